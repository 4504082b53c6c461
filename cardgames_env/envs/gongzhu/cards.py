"""Gong Zhu cards: the French 52-card deck, the 16 point cards and the scorer's notation.

Card ids follow :mod:`cardgames_env.core.cards`: ``suit * 13 + rank`` with suits C, D, H, S
and ranks 2..A (so ♠2 = 39, ♠Q = 49, ♦J = 22, ♣10 = 8, hearts = 26..38).
"""

from __future__ import annotations

from cardgames_env.core.cards import (
    FRENCH_RANKS,
    french_card_id,
    french_card_str,
    mask_of,
    parse_french_card,
)

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
NUM_PLAYERS = 4
HAND_SIZE = 13
DECK_SIZE = 52
FULL_DECK = (1 << DECK_SIZE) - 1

SUIT_MASKS: tuple[int, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
"""Bitmask of each suit's 13 cards."""

SPADE_TWO = french_card_id(0, SPADES)
PIG = french_card_id(10, SPADES)  # ♠Q
GOAT = french_card_id(9, DIAMONDS)  # ♦J
TRANSFORMER = french_card_id(8, CLUBS)  # ♣10
HEART_IDS: tuple[int, ...] = tuple(french_card_id(r, HEARTS) for r in range(13))

NOTATION = "23456789TJQKAPGD"
"""The scorer's symbols (seed notation): ♥2..♥A, P = ♠Q, G = ♦J, D = ♣10."""
POINT_CARD_IDS: tuple[int, ...] = (*HEART_IDS, PIG, GOAT, TRANSFORMER)
"""Card id of each notation symbol, in :data:`NOTATION` order."""
POINT_CARDS_MASK = mask_of(POINT_CARD_IDS)

card_str = french_card_str
parse_card = parse_french_card


def notation_of(mask: int) -> str:
    """Return the scorer notation of the point cards in a card bitmask (others are ignored)."""
    return "".join(sym for sym, card in zip(NOTATION, POINT_CARD_IDS) if mask >> card & 1)


def point_mask_of(mask: int) -> int:
    """Return the point cards of a card bitmask as a 16-bit mask in :data:`NOTATION` order."""
    return sum(1 << i for i, card in enumerate(POINT_CARD_IDS) if mask >> card & 1)


def pretty(card: int) -> str:
    """Return a card with its suit symbol, e.g. ``"♠Q"``, ``"♥10"``."""
    rank = FRENCH_RANKS[card % 13]
    return "♣♦♥♠"[card // 13] + ("10" if rank == "T" else rank)
