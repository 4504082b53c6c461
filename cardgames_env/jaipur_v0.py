"""Jaipur (two-player trading game), version 0 of its encoding and rules behaviour."""

from cardgames_env.envs.jaipur.env import TEST_VARIANTS, JaipurEnv, env, raw_env

__all__ = ["JaipurEnv", "TEST_VARIANTS", "env", "raw_env"]
