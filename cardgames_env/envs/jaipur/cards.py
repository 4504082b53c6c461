"""Jaipur's card and token vocabulary: goods types, the 55-card deck, the token stacks.

Cards of one type are interchangeable, so every card zone (hand, herd, market, discard
pile) is a tuple of 7 counts indexed by :class:`Good` (camel last); only the deck keeps an
order (a tuple of card types, top first).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum


class Good(IntEnum):
    """Card types; the six goods first, then the camel (indexes every count tuple)."""

    DIAMOND = 0
    GOLD = 1
    SILVER = 2
    CLOTH = 3
    SPICE = 4
    LEATHER = 5
    CAMEL = 6


NUM_GOODS = 6
"""Goods types (diamond .. leather); ``Good.CAMEL`` is the seventh card type."""
NUM_TYPES = 7
CAMEL = int(Good.CAMEL)
NUM_PLAYERS = 2
HAND_LIMIT = 7
MARKET_SIZE = 5
HAND_DEAL = 5
MARKET_CAMELS = 3  # Jaipur rulebook, setup: 3 camels face up in the market

NAMES: tuple[str, ...] = ("diamond", "gold", "silver", "cloth", "spice", "leather", "camel")
"""Notation of each card type (singular, lower case)."""
SHORT: tuple[str, ...] = ("Di", "Go", "Si", "Cl", "Sp", "Le", "Ca")
"""Two-letter labels used by the renderer."""
_ALIASES: dict[str, int] = {name: i for i, name in enumerate(NAMES)}
_ALIASES.update({name + "s": i for i, name in enumerate(NAMES)})
_ALIASES.update({"silk": 3, "silks": 3, "cloths": 3, "spices": 4, "golds": 1})

COMPOSITION: tuple[int, ...] = (6, 6, 6, 8, 8, 10, 11)
"""Cards of each type in the 55-card deck (docs/rules/jaipur.md, "Cards and tokens")."""
DECK_SIZE = sum(COMPOSITION)  # 55

PRECIOUS: tuple[bool, ...] = (True, True, True, False, False, False)
"""Diamonds, gold and silver are precious: a sale needs at least 2 of them."""
MIN_SALE: tuple[int, ...] = tuple(2 if p else 1 for p in PRECIOUS)

GOODS_TOKENS: tuple[tuple[int, ...], ...] = (
    (7, 7, 5, 5, 5),  # diamond
    (6, 6, 5, 5, 5),  # gold
    (5, 5, 5, 5, 5),  # silver
    (5, 3, 3, 2, 2, 1, 1),  # cloth
    (5, 3, 3, 2, 2, 1, 1),  # spice
    (4, 3, 2, 1, 1, 1, 1, 1, 1),  # leather
)
"""The goods token stacks, top (highest) first: 38 tokens (docs/rules/jaipur.md, "Cards and tokens")."""
MAX_STACK = max(len(s) for s in GOODS_TOKENS)  # 9

BONUS_TOKENS: tuple[tuple[int, ...], ...] = (
    (1, 1, 2, 2, 2, 3, 3),  # 3-card sale
    (4, 4, 5, 5, 6, 6),  # 4-card sale
    (8, 8, 9, 10, 10),  # 5-or-more-card sale
)
"""The three bonus token piles as multisets (shuffled face down each round): 18 tokens."""
BONUS_KINDS = 3
BONUS_LABELS: tuple[str, ...] = ("3-card", "4-card", "5-card")
CAMEL_TOKEN = 5
"""Rupees of the camel token (larger herd at the end of the round)."""
SEALS_TO_WIN = 2


def card_name(kind: int) -> str:
    """Return the notation of a card type, e.g. ``"diamond"``."""
    return NAMES[kind]


def parse_card(text: str) -> int:
    """Parse a card type name (singular or plural, any case; ``silk`` = cloth).

    Raises:
        ValueError: if the text names no card type.
    """
    key = text.strip().lower()
    if key not in _ALIASES:
        raise ValueError(f"not a Jaipur card: {text!r} (expected one of {', '.join(NAMES)})")
    return _ALIASES[key]


def counts(kinds: Iterable[int], size: int = NUM_TYPES) -> tuple[int, ...]:
    """Return the count tuple of a list of card types."""
    result = [0] * size
    for kind in kinds:
        result[kind] += 1
    return tuple(result)


def parse_cards(text: str, size: int = NUM_TYPES) -> tuple[int, ...]:
    """Parse ``"gold, silver camel"`` (commas and/or spaces) into a count tuple of ``size``.

    Raises:
        ValueError: for an unknown name, or a camel when ``size`` is 6 (goods only).
    """
    names = [w for w in text.replace(",", " ").split() if w]
    kinds = [parse_card(w) for w in names]
    if any(k >= size for k in kinds):
        raise ValueError(f"camels are not allowed here: {text!r}")
    return counts(kinds, size)


def format_cards(card_counts: Sequence[int]) -> str:
    """Return the comma-separated names of a count tuple, e.g. ``"gold,gold,camel"``."""
    return ",".join(NAMES[k] for k, n in enumerate(card_counts) for _ in range(n))


def format_counts(card_counts: Sequence[int]) -> str:
    """Return a compact ``"2 gold, 1 camel"`` description of a count tuple (``-`` if empty)."""
    parts = [f"{n} {NAMES[k]}" for k, n in enumerate(card_counts) if n]
    return ", ".join(parts) if parts else "-"
