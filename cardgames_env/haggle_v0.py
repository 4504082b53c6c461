"""Haggle (turn-based negotiation), version 0 of its encoding and rules behaviour."""

from cardgames_env.envs.haggle.env import TEST_VARIANTS, HaggleEnv, env, raw_env

__all__ = ["HaggleEnv", "TEST_VARIANTS", "env", "raw_env"]
