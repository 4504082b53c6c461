"""Batched engines: thousands of games of one env stepped at once, bit-exact with the AEC envs.

``make(name, num_envs, seed=0, **options)`` returns a :class:`VectorEnv` whose ``reset`` and
``step`` work on every slot together (compiled kernels, both cores), with the same
observations, masks, rewards and game ends as the AEC env for the same state. See
``docs/vector.md``.
"""

from __future__ import annotations

from .base import VECTOR_ENVS, VectorEnv, make

__all__ = ["VECTOR_ENVS", "VectorEnv", "make"]
