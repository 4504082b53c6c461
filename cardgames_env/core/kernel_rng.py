"""Per-slot random streams for the compiled kernels (SplitMix64, one uint64 state per slot).

Every slot draws from its own stream, so a slot's deals are the same whatever the thread
schedule. Functions take the whole state array and the slot index, and are meant to be
called from ``numba.njit`` kernels (they are jitted themselves).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)


@njit(cache=True, inline="always")
def next_u64(states: np.ndarray, i: int) -> np.uint64:
    """Advance slot ``i``'s stream and return 64 random bits."""
    z = states[i] + _GAMMA
    states[i] = z
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def below(states: np.ndarray, i: int, n: int) -> int:
    """Return a uniform integer in ``[0, n)`` from slot ``i``'s stream (``n`` >= 1)."""
    # 53 random bits scaled to [0, n): bias below 2**-40 for the small n of card games.
    return int((next_u64(states, i) >> _S11) * (1.0 / 9007199254740992.0) * n)


@njit(cache=True)
def shuffle(states: np.ndarray, i: int, values: np.ndarray, n: int) -> None:
    """Shuffle ``values[:n]`` in place (Fisher-Yates) with slot ``i``'s stream."""
    for k in range(n - 1, 0, -1):
        j = below(states, i, k + 1)
        tmp = values[k]
        values[k] = values[j]
        values[j] = tmp
