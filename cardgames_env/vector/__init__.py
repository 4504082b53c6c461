"""Batched engines: thousands of games of one env stepped at once, bit-exact with the AEC envs.

``make(name, num_envs, seed=0, **options)`` returns a :class:`VectorEnv` whose ``reset`` and
``step`` work on every slot together (compiled kernels, both cores), with the same
observations, masks, rewards and game ends as the AEC env for the same state. See
``docs/vector.md``.
"""

from __future__ import annotations

import os

# The engines' ``prange`` kernels run one short parallel region per step. OpenMP workers that
# spin between regions (the default) steal the CPU from the other thread on a busy machine and
# made threaded steps 5-10x slower than one thread on a shared 2-core machine; sleeping
# workers cost a few microseconds per step at most. Set before the first parallel kernel loads
# the OpenMP runtime; an explicit OMP_WAIT_POLICY in the environment wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from .base import STAY, VectorEnv, available, make

__all__ = ["STAY", "VectorEnv", "available", "make"]
