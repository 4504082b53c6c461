"""Gong Zhu hand scoring (docs/rules/gongzhu.md, "Scoring a hand").

Input is the scorer's notation: ``23456789TJQKA`` = ♥2..♥A, ``P`` = ♠Q (pig), ``G`` = ♦J (goat),
``D`` = ♣10 (transformer). Order does not matter; a repeated symbol or any other character
is an input error.
"""

from __future__ import annotations

from .cards import NOTATION

HEART_SYMBOLS = "23456789TJQKA"
HEART_VALUES: dict[str, int] = dict(
    zip(HEART_SYMBOLS, (0, 0, 0, -10, -10, -10, -10, -10, -10, -20, -30, -40, -50))
)
"""Section 3 step 1: ♥2-♥4 = 0, ♥5-♥10 = -10, ♥J -20, ♥Q -30, ♥K -40, ♥A -50."""
NONZERO_POINT_SYMBOLS = frozenset("56789TJQKAPG")
"""Cards that make the ♣10 double rather than count +50 ("Decisions this implementation takes":
decided per card)."""


def validate(cards: str) -> None:
    """Raise ``ValueError`` naming the problem if ``cards`` is not valid scorer notation."""
    bad = sorted({c for c in cards if c not in NOTATION})
    if bad:
        raise ValueError(
            f"invalid card symbol(s) {''.join(bad)!r}: use {NOTATION} "
            "(hearts 2-A, P = pig, G = goat, D = transformer)"
        )
    repeated = sorted({c for c in cards if cards.count(c) > 1}, key=NOTATION.index)
    if repeated:
        raise ValueError(f"repeated card symbol(s) {''.join(repeated)!r}: each card exists once")


def score(cards: str) -> int:
    """Return the points of one player's captured cards in scorer notation.

    >>> score("23456789TJQKA")
    200
    >>> score("G2P6D4")
    -20

    Raises:
        ValueError: on a character outside the notation or a repeated card.
    """
    validate(cards)
    held = set(cards)
    hearts = held & set(HEART_SYMBOLS)
    all_red = len(hearts) == 13
    # Step 1-2: all 13 hearts count +200 instead of -200.
    total = 200 if all_red else sum(HEART_VALUES[c] for c in hearts)
    # Step 3: the pig is -100, +100 with all hearts and the goat.
    if "P" in held:
        total += 100 if (all_red and "G" in held) else -100
    # Step 4: the goat is +100.
    if "G" in held:
        total += 100
    # Step 5: the transformer doubles when any non-zero point card is present, else +50.
    if "D" in held:
        total = total * 2 if held & NONZERO_POINT_SYMBOLS else total + 50
    return total
