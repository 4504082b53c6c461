"""The one way randomness enters the package: an explicit ``numpy.random.Generator``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")


def make_rng(seed: int | np.random.Generator | None = None) -> np.random.Generator:
    """Return a Generator: the one given, or a new one seeded with ``seed`` (``None`` = fresh entropy)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
    return np.random.default_rng(seed)


def shuffled(items: Sequence[T], rng: np.random.Generator) -> list[T]:
    """Return a new list holding ``items`` in a random order drawn from ``rng``."""
    order = rng.permutation(len(items))
    return [items[i] for i in order]
