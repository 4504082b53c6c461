"""Haggis scoring (docs/rules/haggis.md, "Play of a hand"): card points, tricks, going out.

* Card points: 3, 5, 7, 9 = 1 each; J = 2, Q = 3, K = 5; 2, 4, 6, 8, 10 = 0.
* A trick's points go to its winner, or to the winner's opponent if it was won with a bomb.
* The player who goes out scores 5 for each card (face cards included) left in the opponent's hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import ODD_POINT_MASK, J, K, Q, mask_of_strings

FACE_POINTS = {J: 2, Q: 3, K: 5}
"""Points of the face cards (J, Q and K are worth 2, 3 and 5 points)."""
GOING_OUT_POINTS_PER_CARD = 5


def points_of_mask(cards: int) -> int:
    """Return the card points of a card bitmask (ids as in :mod:`.cards`)."""
    return (
        (cards & ODD_POINT_MASK).bit_count()
        + 2 * (cards >> J & 1)
        + 3 * (cards >> Q & 1)
        + 5 * (cards >> K & 1)
    )


def card_points(cards: Sequence[str]) -> int:
    """Return the points of the named cards, e.g. ``card_points(["3S", "5H", "J"]) == 4``.

    Face cards may repeat here (a trick can hold both players' J); number cards may not.

    Raises:
        ValueError: on an unknown card or a repeated number card.
    """
    faces = [c for c in cards if c.strip().upper() in ("J", "Q", "K")]
    numbers = [c for c in cards if c.strip().upper() not in ("J", "Q", "K")]
    total = points_of_mask(mask_of_strings(numbers))
    return total + sum(FACE_POINTS[{"J": J, "Q": Q, "K": K}[c.strip().upper()]] for c in faces)


def trick_award(winner: int, won_with_bomb: bool, points: int) -> tuple[int, int]:
    """Return the points each of the two seats takes from a trick (a bomb gives them away)."""
    taker = 1 - winner if won_with_bomb else winner
    return (points, 0) if taker == 0 else (0, points)


def going_out_bonus(cards_left_to_opponent: int) -> int:
    """Return the going-out bonus: 5 x the cards left in the opponent's hand (J/Q/K count)."""
    if cards_left_to_opponent < 0:
        raise ValueError(f"cards left cannot be negative, got {cards_left_to_opponent}")
    return GOING_OUT_POINTS_PER_CARD * cards_left_to_opponent
