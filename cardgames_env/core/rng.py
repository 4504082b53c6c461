"""The one way randomness enters the package: an explicit ``numpy.random.Generator``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")


def check_seed(seed: object) -> int | None:
    """Return a seed as a Python int (``None`` stays ``None``).

    Accepted: ``None``, non-negative ints and numpy integers. Not a seed: bools (``True`` is
    a mistake, not seed 1), floats, strings.

    Raises:
        ValueError: for anything else.
    """
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
    return int(seed)


def make_rng(seed: int | np.random.Generator | None = None) -> np.random.Generator:
    """Return a Generator: the one given, or a new one seeded with ``seed`` (``None`` = fresh entropy).

    Raises:
        ValueError: for a seed :func:`check_seed` refuses.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(check_seed(seed))


def shuffled(items: Sequence[T], rng: np.random.Generator) -> list[T]:
    """Return a new list holding ``items`` in a random order drawn from ``rng``."""
    order = rng.permutation(len(items))
    return [items[i] for i in order]
