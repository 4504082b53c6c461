"""``core.threads``: the split of slots into per-thread chunks, aligned arrays, borrowed views
and the kernels' thread count."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from numba import njit

from cardgames_env.core import threads
from cardgames_env.core.threads import CHUNK_ALIGN, MIN_CHUNK, aligned_zeros, borrow, chunk_bounds


def test_chunk_bounds_examples() -> None:
    assert chunk_bounds(4096, 16).tolist() == list(range(0, 4097, 256))
    assert chunk_bounds(4096, 1).tolist() == [0, 4096]
    assert chunk_bounds(100, 4).tolist() == [0, 100], "too few slots for two chunks of 64"
    assert chunk_bounds(130, 2).tolist() == [0, 64, 130]
    assert chunk_bounds(300, 2).tolist() == [0, 128, 300]  # 5 blocks of 64: 2 + 3 (the last partial)
    assert chunk_bounds(1, 8).tolist() == [0, 1]


@pytest.mark.parametrize("threads_", [1, 2, 3, 7, 16, 64])
def test_chunk_bounds_cover_the_slots_in_aligned_chunks(threads_: int) -> None:
    for n in list(range(1, 300)) + [511, 512, 513, 1000, 4095, 4096, 4097, 8192, 10_000]:
        bounds = chunk_bounds(n, threads_)
        sizes = np.diff(bounds)
        expected_count = max(1, min(threads_, n // MIN_CHUNK))
        assert bounds[0] == 0 and bounds[-1] == n and len(sizes) == expected_count, (n, bounds)
        assert np.all(bounds[1:-1] % CHUNK_ALIGN == 0), "inner edges start a cache line of every row"
        if len(sizes) > 1:
            assert sizes.min() >= MIN_CHUNK and sizes.max() - sizes.min() < 2 * CHUNK_ALIGN, (n, bounds)


def test_chunk_bounds_refuses_empty_batches() -> None:
    for n, t in ((0, 2), (5, 0), (-1, 1)):
        with pytest.raises(ValueError, match="at least one slot and one thread"):
            chunk_bounds(n, t)


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.float32, np.int64, np.uint64])
@pytest.mark.parametrize("shape", [1, 7, (3, 5), (4, 3, 8)])
def test_aligned_zeros_start_on_a_cache_line(dtype: type, shape: int | tuple[int, ...]) -> None:
    for _ in range(5):  # several allocations: the offset into the raw buffer varies
        array = aligned_zeros(shape, dtype)
        assert array.ctypes.data % threads.CACHE_LINE == 0
        assert array.shape == np.zeros(shape).shape and array.dtype == np.dtype(dtype)
        assert array.flags.c_contiguous and array.flags.writeable and not array.any()
        array[...] = 1  # the whole array is writable memory of its own
        assert array.all()


@njit
def _fill_rows(values: np.ndarray, flags: np.ndarray) -> None:
    """Write through borrowed row views (and a call taking them), as the kernels do."""
    values, flags = borrow(values, flags)
    for i in range(values.shape[0]):
        _fill_row(values[i], i)
        flags[i] = True


@njit
def _fill_row(row: np.ndarray, i: int) -> None:
    for k in range(row.shape[0]):
        row[k] = 10 * i + k


@njit
def _sum_borrowed(values: np.ndarray) -> float:
    view = borrow(values)  # one array in, that array out (not a tuple)
    return view[1:].sum()


def test_borrowed_views_read_and_write_the_caller_arrays() -> None:
    values = np.zeros((4, 3), dtype=np.float32)
    flags = np.zeros(4, dtype=np.bool_)
    before = sys.getrefcount(values), sys.getrefcount(flags)
    _fill_rows(values, flags)
    assert values.tolist() == [[10 * i + k for k in range(3)] for i in range(4)]
    assert flags.all()
    assert _sum_borrowed(np.arange(5.0)) == 10.0
    assert (sys.getrefcount(values), sys.getrefcount(flags)) == before, "borrowing leaks no reference"


def test_kernel_threads_are_set_and_checked() -> None:
    limit = threads.max_kernel_threads()
    assert 1 <= threads.kernel_threads() <= limit
    assert threads.available_cores() >= 1
    for bad in (0, limit + 1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="kernel threads"):
            threads.set_kernel_threads(bad)  # type: ignore[arg-type]
    previous = threads.set_kernel_threads(1)
    try:
        assert threads.kernel_threads() == 1
        assert threads.set_kernel_threads(limit) == 1
        assert threads.kernel_threads() == limit
    finally:
        threads.set_kernel_threads(previous)
