"""Gong Zhu (Chinese Hearts), version 0 of its encoding and rules behaviour."""

from cardgames_env.envs.gongzhu.env import TEST_VARIANTS, GongZhuEnv, env, raw_env

__all__ = ["GongZhuEnv", "TEST_VARIANTS", "env", "raw_env"]
