"""Red7, version 0 of its encoding and rules behaviour."""

from cardgames_env.envs.red7.env import BENCH_OPTIONS, TEST_VARIANTS, Red7Env, env, raw_env

__all__ = ["BENCH_OPTIONS", "Red7Env", "TEST_VARIANTS", "env", "raw_env"]
