"""Batched engines: thousands of games of one env stepped at once, bit-exact with the AEC envs.

``make(name, num_envs, seed=0, **options)`` returns a :class:`VectorEnv` whose ``reset`` and
``step`` work on every slot together (compiled kernels, both cores), with the same
observations, masks, rewards and game ends as the AEC env for the same state. See
``docs/vector.md``.
"""

from __future__ import annotations

import os

# The engines' threaded kernels run one short parallel region per step. OpenMP workers that
# spin long between regions (GNU OpenMP's default: 300,000 spins, milliseconds) steal the CPU
# from the other thread on a busy machine and made threaded steps 5-10x slower than one thread
# on a shared 2-core machine. Workers that sleep at once are woken for every region, which cost
# 45 us per region on the 2-core development machine (a virtual machine). A short spin (1,000
# spins, about 30 us) keeps the workers awake between the regions of one step (1.2 us each)
# and wastes at most that much CPU after the last. Set before the first parallel kernel loads
# the OpenMP runtime; a wait policy already in the environment is left alone (GOMP_SPINCOUNT
# is GNU OpenMP's, and overrides the policy's spin there).
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    os.environ.setdefault("GOMP_SPINCOUNT", "1000")

from .base import STAY, VECTOR_ENVS, VectorEnv, available, make

__all__ = ["STAY", "VECTOR_ENVS", "VectorEnv", "available", "make"]
