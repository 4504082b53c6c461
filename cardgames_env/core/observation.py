"""``ObservationLayout``: named pieces laid out in one flat float32 vector."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ObservationPiece:
    """One named slice ``offset .. offset + size`` of the observation, viewed as ``shape``."""

    name: str
    offset: int
    shape: tuple[int, ...]
    description: str

    @property
    def size(self) -> int:
        """Number of floats in this piece."""
        return int(np.prod(self.shape))


class ObservationView(Mapping[str, np.ndarray]):
    """The pieces of one observation vector by name, each a view in its shape (no copy), sliced
    when it is read: a heuristic reads a few pieces of the layout on every move."""

    __slots__ = ("_vector", "_spans")

    def __init__(self, vector: np.ndarray, spans: Mapping[str, tuple[int, int, tuple[int, ...]]]):
        self._vector = vector
        self._spans = spans

    def __getitem__(self, name: str) -> np.ndarray:
        start, stop, shape = self._spans[name]
        return self._vector[start:stop].reshape(shape)

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans)

    def __len__(self) -> int:
        return len(self._spans)


class ObservationLayout:
    """Named pieces -> one flat float32 vector, with a mapping view and a docs table.

    Example:
        >>> layout = ObservationLayout([("hand", (52,), "my cards"), ("trick", (4, 52), "...")])
        >>> layout.size
        260
        >>> layout.slice("trick")
        slice(52, 260, None)
    """

    def __init__(self, pieces: Iterable[tuple[str, tuple[int, ...] | int, str]]):
        built = []
        offset = 0
        for name, shape, description in pieces:
            shape_t = (shape,) if isinstance(shape, int) else tuple(shape)
            piece = ObservationPiece(name, offset, shape_t, description)
            built.append(piece)
            offset += piece.size
        self.pieces: tuple[ObservationPiece, ...] = tuple(built)
        self._by_name = {p.name: p for p in self.pieces}
        if len(self._by_name) != len(self.pieces):
            raise ValueError("observation piece names must be unique")
        self.size = offset
        self._spans = {p.name: (p.offset, p.offset + p.size, p.shape) for p in self.pieces}
        """``name: (start, stop, shape)`` per piece, for :meth:`view`."""

    def piece(self, name: str) -> ObservationPiece:
        """Return the piece called ``name``."""
        return self._by_name[name]

    def slice(self, name: str) -> slice:
        """Return the slice of the flat vector that holds piece ``name``."""
        p = self._by_name[name]
        return slice(p.offset, p.offset + p.size)

    def zeros(self) -> np.ndarray:
        """Return a new all-zero observation vector."""
        return np.zeros(self.size, dtype=np.float32)

    def view(self, vector: np.ndarray) -> ObservationView:
        """Return ``{piece name: view of the vector in the piece's shape}`` (no copy; each piece
        is sliced when read)."""
        if vector.shape != (self.size,):
            raise ValueError(f"expected an observation of shape ({self.size},), got {vector.shape}")
        return ObservationView(vector, self._spans)

    def markdown_table(self) -> str:
        """Return the pieces as a Markdown table (used by the docs)."""
        lines = ["| piece | shape | offset | meaning |", "|---|---|---|---|"]
        for p in self.pieces:
            shape = "×".join(str(d) for d in p.shape)
            lines.append(f"| `{p.name}` | {shape} | {p.offset} | {p.description} |")
        lines.append(f"| **total** | **{self.size}** | | |")
        return "\n".join(lines)
