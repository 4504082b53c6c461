"""``ActionTable``: named families of actions at fixed offsets in one ``Discrete`` space."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ActionFamily:
    """A contiguous block of actions: ``offset .. offset + size - 1``."""

    name: str
    offset: int
    size: int
    description: str


class ActionTable:
    """Fixed layout of a flat action space as named families (e.g. ``play``: 52 card actions).

    Example:
        >>> table = ActionTable([("play", 52, "play card id i"), ("pass", 1, "pass")])
        >>> table.offset("pass"), table.size
        (52, 53)
        >>> table.family_of(53 - 1)
        ('pass', 0)
    """

    def __init__(self, families: Iterable[tuple[str, int, str]]):
        self.families: tuple[ActionFamily, ...] = ()
        offset = 0
        built = []
        for name, size, description in families:
            if size <= 0:
                raise ValueError(f"action family {name!r} needs a positive size, got {size}")
            built.append(ActionFamily(name, offset, size, description))
            offset += size
        self.families = tuple(built)
        self._by_name = {f.name: f for f in self.families}
        if len(self._by_name) != len(self.families):
            raise ValueError("action family names must be unique")
        self._starts = np.array([f.offset for f in self.families])
        self.size = offset

    def offset(self, name: str) -> int:
        """Return the first action of family ``name``."""
        return self._by_name[name].offset

    def family(self, name: str) -> ActionFamily:
        """Return the family called ``name``."""
        return self._by_name[name]

    def family_of(self, action: int) -> tuple[str, int]:
        """Return ``(family name, index inside the family)`` of an action."""
        if not 0 <= action < self.size:
            raise ValueError(f"action {action} is outside 0..{self.size - 1}")
        position = int(np.searchsorted(self._starts, action, side="right")) - 1
        family = self.families[position]
        return family.name, action - family.offset

    def mask(self, actions: Iterable[int]) -> np.ndarray:
        """Return the int8 mask with a 1 at each given action."""
        mask = np.zeros(self.size, dtype=np.int8)
        mask[list(actions)] = 1
        return mask

    def markdown_table(self) -> str:
        """Return the action families as a Markdown table (used by the docs)."""
        lines = ["| actions | family | count | meaning |", "|---|---|---|---|"]
        for f in self.families:
            span = str(f.offset) if f.size == 1 else f"{f.offset}–{f.offset + f.size - 1}"
            lines.append(f"| {span} | `{f.name}` | {f.size} | {f.description} |")
        lines.append(f"| | **total** | **{self.size}** | |")
        return "\n".join(lines)


def as_action(action: object) -> int:
    """Return ``action`` as a Python int, accepting exactly the types an action may have.

    Accepted: Python ints (and int subclasses such as ``IntEnum``, but not ``bool``), numpy
    integer scalars and 0-d numpy integer arrays. Anything else is a caller's mistake that
    must not be turned into some action: ``2.9`` is not action 2, ``"12"`` is not action 12,
    ``True`` is not action 1.

    Raises:
        TypeError: for any other type (``bool``, ``np.bool_``, floats, strings, arrays with
            dimensions, ``None``), naming the type.
    """
    if type(action) is int:
        return action
    if isinstance(action, np.integer):  # np.bool_ is not an np.integer
        return int(action)
    if isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer):
        return int(action)
    if isinstance(action, int) and not isinstance(action, bool):
        return int(action)
    kind = type(action)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    raise TypeError(f"an action must be an int or a numpy integer, got {name} {action!r}")
