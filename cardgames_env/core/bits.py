"""Compiled bit helpers for the batched engines' kernels (card sets are int64 bitmasks).

``popcount``, ``leading_zeros`` and ``trailing_zeros`` are Numba intrinsics that emit one LLVM
instruction each (``ctpop``, ``ctlz``, ``cttz``); the ``njit`` functions below give them the
meaning of Python's ``int`` methods on a non-negative int64. Call them from ``njit`` code.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


def _ctpop_typer(typingctx: Any, x: Any) -> Any:
    """Typing and code of :func:`popcount`: number of set bits (LLVM ``ctpop``)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return x(x), codegen


popcount: Any = intrinsic(_ctpop_typer)
"""Number of set bits of an integer (of any width)."""


def _ctlz_typer(typingctx: Any, x: Any) -> Any:
    """Typing and code of :func:`leading_zeros`: leading zero bits (LLVM ``ctlz``; the width for 0)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen


leading_zeros: Any = intrinsic(_ctlz_typer)
"""Leading zero bits of an integer (its width for 0)."""


def _cttz_typer(typingctx: Any, x: Any) -> Any:
    """Typing and code of :func:`trailing_zeros`: trailing zero bits (LLVM ``cttz``; the width for 0)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen


trailing_zeros: Any = intrinsic(_cttz_typer)
"""Trailing zero bits of an integer (its width for 0)."""


@njit(cache=True)
def bit_length(x: int) -> int:
    """``int.bit_length`` of a non-negative int64."""
    return 64 - leading_zeros(np.int64(x))


@njit(cache=True)
def bit_count(x: int) -> int:
    """``int.bit_count`` of a non-negative int64 (the number of cards in a set)."""
    return popcount(np.int64(x))


@njit(cache=True)
def lowest_bit(x: int) -> int:
    """Index of the lowest set bit of a non-zero int64 (the lowest card id of a set)."""
    return trailing_zeros(np.int64(x))


@njit(cache=True)
def highest_bit(x: int) -> int:
    """Index of the highest set bit of a non-negative int64 (the highest card id), -1 for 0."""
    return 63 - leading_zeros(np.int64(x))


@njit(cache=True)
def append_bits(out: np.ndarray, count: int, bits: int) -> int:
    """Write the indices of the set bits of the non-negative int64 ``bits`` (the card ids of
    a set), lowest first, at ``out[count:]``; return the new count."""
    while bits:
        out[count] = trailing_zeros(np.int64(bits))
        count += 1
        bits &= bits - 1
    return count


__all__ = [
    "append_bits", "bit_count", "bit_length", "highest_bit", "leading_zeros", "lowest_bit", "popcount",
    "trailing_zeros",
]
