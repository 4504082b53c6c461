"""Haggis cards: 36 number cards (2-10 in four suits) and each player's own J, Q, K.

Card ids inside one player's hand:

* number card ``(rank - 2) * 4 + suit`` for rank 2..10 and suit 0..3 = S, H, D, C, so ids
  grow with the rank (2S = 0, 2H = 1, ..., 10C = 35);
* ``36, 37, 38`` = that player's J, Q, K.

A hand or a played combination is an int bitmask over these 39 ids (the face-card bits
always mean the owner's J/Q/K). Strings: ``"2S"`` .. ``"10C"`` (``"TS"`` is accepted as 10),
``"J"``, ``"Q"``, ``"K"``.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "SHDC"
"""Suit letters in suit-index order."""
NUM_SUITS = 4
MIN_RANK, MAX_NUMBER_RANK = 2, 10
NUM_NUMBER_CARDS = 36
J, Q, K = 36, 37, 38
"""Ids of the owner's face cards."""
NUM_CARD_IDS = 39
FACE_NAMES = {J: "J", Q: "Q", K: "K"}
FACE_MASK = (1 << J) | (1 << Q) | (1 << K)
NUMBER_MASK = (1 << NUM_NUMBER_CARDS) - 1
HAND_SIZE = 14
"""Number cards dealt to each player (plus the player's own J, Q, K)."""
NATURAL_RANK = {J: 11, Q: 12, K: 13}
"""Value of a face card played as itself (the rules: 'J, Q, and K have values 11, 12, and 13')."""

ODD_POINT_MASK = sum(1 << ((r - 2) * 4 + s) for r in (3, 5, 7, 9) for s in range(NUM_SUITS))
"""Number cards worth one point each: the 3s, 5s, 7s and 9s (seed scoring)."""


def card_id(rank: int, suit: int) -> int:
    """Return the id of number card ``rank`` (2..10) of ``suit`` (0..3 = S, H, D, C)."""
    if not (MIN_RANK <= rank <= MAX_NUMBER_RANK and 0 <= suit < NUM_SUITS):
        raise ValueError(f"no Haggis number card with rank {rank} and suit {suit}")
    return (rank - MIN_RANK) * NUM_SUITS + suit


def rank_of(card: int) -> int:
    """Return the rank (2..10) of a number card id, or 11/12/13 for J/Q/K."""
    return card // NUM_SUITS + MIN_RANK if card < NUM_NUMBER_CARDS else NATURAL_RANK[card]


def suit_of(card: int) -> int:
    """Return the suit index (0..3) of a number card id."""
    return card % NUM_SUITS


def card_str(card: int) -> str:
    """Return the name of a card id, e.g. ``"10S"``, ``"3H"``, ``"J"``."""
    if card in FACE_NAMES:
        return FACE_NAMES[card]
    if not 0 <= card < NUM_NUMBER_CARDS:
        raise ValueError(f"card id {card} is outside 0..38")
    return f"{rank_of(card)}{SUITS[suit_of(card)]}"


def parse_card(text: str) -> int:
    """Parse ``"5S"``, ``"10h"``, ``"TC"``, ``"J"``, ``"Q"`` or ``"K"`` into a card id.

    Raises:
        ValueError: if the text names no Haggis card.
    """
    raw = text.strip().upper()
    for card, name in FACE_NAMES.items():
        if raw == name:
            return card
    rank_text, suit_text = raw[:-1], raw[-1:]
    if rank_text == "T":
        rank_text = "10"
    if suit_text not in SUITS or not rank_text.isdigit() or not 2 <= int(rank_text) <= 10:
        raise ValueError(f"not a Haggis card: {text!r} (expected e.g. '5S', '10H', 'J')")
    return card_id(int(rank_text), SUITS.index(suit_text))


def mask_of_strings(cards: Iterable[str]) -> int:
    """Return the bitmask of card names; a repeated card raises ``ValueError``."""
    mask = 0
    for text in cards:
        bit = 1 << parse_card(text)
        if mask & bit:
            raise ValueError(f"card {text!r} appears twice")
        mask |= bit
    return mask


def ids_of(mask: int) -> list[int]:
    """Return the card ids of a bitmask in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def cards_str(mask: int) -> str:
    """Return the names of the cards of a bitmask in id order, space separated."""
    return " ".join(card_str(c) for c in ids_of(mask))


def rank_str(rank: int) -> str:
    """Return ``"2"``..``"10"`` or ``"J"``, ``"Q"``, ``"K"`` for ranks 11..13."""
    return {11: "J", 12: "Q", 13: "K"}.get(rank, str(rank))
