"""Threads of the compiled kernels: how a batch of slots is split over threads, and the
compiled helper that keeps a kernel's inner loop free of shared writes.

A batched kernel steps ``N`` independent slots. Its threaded form hands each thread one
contiguous *chunk* of slots (:func:`chunk_bounds`), so a thread writes only its own rows of
every per-slot array; the chunk edges fall on multiples of :data:`CHUNK_ALIGN` slots, and
per-slot arrays allocated with :func:`aligned_zeros` start on a cache line, so no two threads
ever write the same cache line. A caller that splits its own work on the slots (choosing
actions, checking them) with the same bounds reads rows that the same core has just written.

Numba counts references to an array's memory on every view it makes (``rows[i]``) and on
every call that takes an array; the count is one word per array, updated with atomic
instructions. Inside a ``prange`` loop Numba passes arrays without such a count, but a
one-thread kernel pays two atomic updates per array per call: :func:`borrow` gives the kernel
a view without the count, so its loop runs as fast as the threaded body on one thread.
"""

from __future__ import annotations

import os
from typing import Any

# The engines' threaded kernels run one short parallel region per step. OpenMP workers that
# spin long between regions (GNU OpenMP's default: 300,000 spins, milliseconds) steal the CPU
# from the other thread on a busy machine and made threaded steps 5-10x slower than one thread
# on a shared 2-core machine. Workers that sleep at once are woken for every region, which cost
# 45 us per region on the 2-core development machine (a virtual machine). A short spin (1,000
# spins, about 30 us) keeps the workers awake between the regions of one step (1.2 us each)
# and wastes at most that much CPU after the last. Every engine imports this module, so the
# policy is set before the first parallel kernel loads the OpenMP runtime; a wait policy
# already in the environment is left alone (GOMP_SPINCOUNT is GNU OpenMP's, and overrides the
# policy's spin there).
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    os.environ.setdefault("GOMP_SPINCOUNT", "1000")

import numba  # noqa: E402  (after the OpenMP settings above)
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

CACHE_LINE = 64
"""Bytes of a cache line (x86-64 and most ARM cores)."""

CHUNK_ALIGN = 64
"""Chunk edges fall on multiples of this many slots: with an array that starts on a cache
line, a chunk edge then starts a cache line for every per-slot row width (a one-byte flag
per slot included)."""

MIN_CHUNK = 64
"""Fewest slots a chunk gets: smaller batches use fewer threads (a thread costs a wake-up of
a few microseconds per step, more than a few dozen slots of work)."""


def available_cores() -> int:
    """CPU cores this process may run on (its affinity mask; ``os.cpu_count()`` elsewhere)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # platforms without sched_getaffinity
        return os.cpu_count() or 1


def kernel_threads() -> int:
    """Threads the compiled kernels use now (Numba's count for the calling thread)."""
    return int(numba.get_num_threads())


def max_kernel_threads() -> int:
    """Most threads the compiled kernels can use in this process (``NUMBA_NUM_THREADS``,
    by default the machine's cores; fixed when Numba starts its threads)."""
    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def set_kernel_threads(count: int) -> int:
    """Run the compiled kernels on ``count`` threads from now on; return the previous count.

    Raises:
        ValueError: for a count that is not an integer in ``1..max_kernel_threads()``.
    """
    limit = max_kernel_threads()
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 1 <= count <= limit:
        raise ValueError(
            f"kernel threads must be an integer in 1..{limit} (NUMBA_NUM_THREADS), got {count!r}"
        )
    previous = kernel_threads()
    numba.set_num_threads(int(count))
    return previous


def chunk_bounds(num_slots: int, threads: int) -> np.ndarray:
    """Split slots ``0..num_slots-1`` into at most ``threads`` contiguous chunks.

    Every chunk but the last holds a multiple of :data:`CHUNK_ALIGN` slots and each holds at
    least :data:`MIN_CHUNK` (a batch too small for two chunks is one chunk); sizes differ by
    less than two :data:`CHUNK_ALIGN` blocks.

    Returns:
        int64 ``[k + 1]``: chunk ``c`` is ``bounds[c]:bounds[c + 1]``; ``bounds[0] == 0`` and
        ``bounds[k] == num_slots``.

    Raises:
        ValueError: for ``num_slots < 1`` or ``threads < 1``.
    """
    if num_slots < 1 or threads < 1:
        raise ValueError(f"need at least one slot and one thread, got {num_slots} slots, {threads} threads")
    blocks = -(-num_slots // CHUNK_ALIGN)  # aligned blocks, the last one possibly partial
    count = max(1, min(threads, num_slots // MIN_CHUNK, blocks))
    edges = [CHUNK_ALIGN * (blocks * c // count) for c in range(count)] + [num_slots]
    return np.array(edges, dtype=np.int64)


def aligned_zeros(shape: int | tuple[int, ...], dtype: Any) -> np.ndarray:
    """A zeroed C-contiguous array whose data starts on a cache line (:data:`CACHE_LINE`)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    raw = np.zeros(count * dtype.itemsize + CACHE_LINE, dtype=np.uint8)
    start = -raw.ctypes.data % CACHE_LINE
    return raw[start : start + count * dtype.itemsize].view(dtype).reshape(shape)


def _borrowed(context: Any, builder: Any, array: Any, value: Any) -> Any:
    """Code of one borrowed view: ``value`` with a null reference count and no parent."""
    source = context.make_array(array)(context, builder, value=value)
    view = context.make_array(array)(context, builder)
    for field in ("nitems", "itemsize", "data", "shape", "strides"):
        setattr(view, field, getattr(source, field))
    view.meminfo = ir.Constant(view.meminfo.type, None)
    view.parent = ir.Constant(view.parent.type, None)
    return view._getvalue()


def _borrow_typer(typingctx: Any, *arrays: Any) -> Any:
    """Typing and code of :func:`borrow`."""
    if not arrays or not all(isinstance(array, types.Array) for array in arrays):
        return None
    result = arrays[0] if len(arrays) == 1 else types.Tuple(arrays)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        values = cgutils.unpack_tuple(builder, args[0], len(arrays))
        views = [_borrowed(context, builder, array, value) for array, value in zip(arrays, values)]
        return views[0] if len(arrays) == 1 else context.make_tuple(builder, result, views)

    return result(types.StarArgTuple.from_types(arrays)), codegen


borrow: Any = intrinsic(_borrow_typer)
"""``borrow(a, b, ...)`` (compiled code only): the same arrays (one array alone, else a tuple)
without a reference count, so views of them and calls taking them cost no atomic update. The
caller keeps the arrays alive while the borrowed views are in use, and the views never leave
the kernel (no return, no store)."""


__all__ = [
    "CACHE_LINE",
    "CHUNK_ALIGN",
    "MIN_CHUNK",
    "aligned_zeros",
    "available_cores",
    "borrow",
    "chunk_bounds",
    "kernel_threads",
    "max_kernel_threads",
    "set_kernel_threads",
]
