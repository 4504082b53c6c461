"""The compiled bit helpers agree with Python's ``int`` methods on card-set bitmasks."""

from __future__ import annotations

import numpy as np
from numba import njit

from cardgames_env.core.bits import append_bits, bit_count, bit_length, highest_bit, lowest_bit, popcount

VALUES = [0, 1, 2, 3, 0b1011_0000, (1 << 38) | 5, (1 << 48) - 1, (1 << 62) | (1 << 7), (1 << 63) - 1]


@njit(cache=True)
def _all(values: np.ndarray, out: np.ndarray) -> None:
    for i in range(values.size):
        x = values[i]
        out[i, 0] = bit_count(x)
        out[i, 1] = bit_length(x)
        out[i, 2] = highest_bit(x)
        out[i, 3] = lowest_bit(x) if x else -1
        out[i, 4] = popcount(x)


def test_bit_helpers_match_python_int():
    rng = np.random.default_rng(0)
    values = VALUES + [int(v) for v in rng.integers(0, 1 << 62, size=200)]
    out = np.zeros((len(values), 5), dtype=np.int64)
    _all(np.array(values, dtype=np.int64), out)
    for x, row in zip(values, out.tolist()):
        lowest = (x & -x).bit_length() - 1 if x else -1
        assert row == [x.bit_count(), x.bit_length(), x.bit_length() - 1, lowest, x.bit_count()], x


def test_append_bits_writes_the_set_bits_lowest_first_after_count() -> None:
    out = np.full(8, -1, dtype=np.int64)
    out[0] = 9
    assert append_bits(out, 1, 0b1010_0001) == 4
    assert out[:5].tolist() == [9, 0, 5, 7, -1]
    assert append_bits(out, 4, 0) == 4
    assert append_bits(out, 4, 1 << 62) == 5 and out[4] == 62
