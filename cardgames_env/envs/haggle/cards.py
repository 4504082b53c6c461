"""Haggle cards: five colours (Y B R O W), hands as count tuples, and the 12 rule cards.

A hand is a tuple of five counts in colour order ``Y B R O W`` (Yellow, Blue, Red, Orange,
White), e.g. ``YYR`` = ``(2, 0, 1, 0, 0)``. The scorer's notation is a string of colour letters,
case-insensitive, in any order.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from itertools import combinations_with_replacement

COLOURS = "YBROW"
"""Colour letters in index order: Yellow, Blue, Red, Orange, White."""
COLOUR_NAMES = ("Yellow", "Blue", "Red", "Orange", "White")
NUM_COLOURS = 5
NUM_MODIFIERS = 12
"""The 12 scoring rules S1..S12; rule card ``r`` (0..11) is rule ``S<r + 1>``."""
HAND_SIZE = 10
"""Colour cards dealt to each player (docs/rules/haggle.md, "Cards")."""

Counts = tuple[int, int, int, int, int]
EMPTY: Counts = (0, 0, 0, 0, 0)


class Colour(IntEnum):
    """Index of a colour in a count tuple (and its base value minus one)."""

    YELLOW = 0
    BLUE = 1
    RED = 2
    ORANGE = 3
    WHITE = 4


BASE_VALUES: Counts = (1, 2, 3, 4, 5)
"""Seed "Basic Values": Y=1, B=2, R=3, O=4, W=5."""


def parse_hand(text: str) -> Counts:
    """Return the colour counts of a hand written in letters ``YBROW`` (any case, any order).

    Raises:
        ValueError: naming the characters that are not colour letters.
    """
    upper = text.upper()
    bad = sorted({c for c in upper if c not in COLOURS})
    if bad:
        raise ValueError(
            f"invalid letter(s) {''.join(bad)!r} in hand {text!r}: use Y B R O W "
            "(Yellow, Blue, Red, Orange, White)"
        )
    return (
        upper.count("Y"),
        upper.count("B"),
        upper.count("R"),
        upper.count("O"),
        upper.count("W"),
    )


def hand_str(counts: Sequence[int]) -> str:
    """Return the letters of a count tuple in colour order, e.g. ``(2, 0, 1, 0, 0) -> "YYR"``."""
    return "".join(letter * n for letter, n in zip(COLOURS, counts))


def multisets(max_size: int) -> tuple[Counts, ...]:
    """Every colour multiset of 0..``max_size`` cards, by size then colour order.

    ``multisets(3)`` has 56 entries: the empty set, 5 singles, 15 pairs, 35 triples.
    """
    result: list[Counts] = []
    for size in range(max_size + 1):
        for combo in combinations_with_replacement(range(NUM_COLOURS), size):
            counts = [0] * NUM_COLOURS
            for colour in combo:
                counts[colour] += 1
            result.append(tuple(counts))  # type: ignore[arg-type]
    return tuple(result)


def rule_str(rule: int) -> str:
    """Return the name of rule card ``rule`` (0..11) as its scoring rule, e.g. ``"S5"``."""
    return f"S{rule + 1}"


def parse_rule(text: str) -> int:
    """Parse ``"S5"`` (or ``"5"``) into rule card id 4.

    Raises:
        ValueError: if the text names no modifier 1..12.
    """
    raw = text.strip().upper().removeprefix("S")
    if not raw.isdigit() or not 1 <= int(raw) <= NUM_MODIFIERS:
        raise ValueError(f"not a rule card: {text!r} (expected S1..S12)")
    return int(raw) - 1
