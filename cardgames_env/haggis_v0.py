"""Haggis, version 0 of its encoding and rules behaviour."""

from cardgames_env.envs.haggis.env import TEST_VARIANTS, HaggisEnv, env, raw_env

__all__ = ["HaggisEnv", "TEST_VARIANTS", "env", "raw_env"]
