"""Card ids, the French 52-card deck, bitmask card sets and multiset counts.

Card sets are Python ints used as bitmasks (bit ``i`` set = card id ``i`` present):
set operations are single integer operations, which keeps the rules engines fast and
their states small, hashable and immutable.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

FRENCH_RANKS = "23456789TJQKA"
"""Ranks of the French deck, lowest first (``T`` is the ten)."""
FRENCH_SUITS = "CDHS"
"""Suits of the French deck: clubs, diamonds, hearts, spades."""
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
NUM_FRENCH_CARDS = 52


def french_card_id(rank: int, suit: int) -> int:
    """Return the id (0..51) of the card of ``rank`` (0 = 2 .. 12 = A) in ``suit`` (0..3)."""
    return suit * 13 + rank


def french_rank(card: int) -> int:
    """Return the rank index (0 = 2 .. 12 = A) of a French card id."""
    return card % 13


def french_suit(card: int) -> int:
    """Return the suit index (0 = C, 1 = D, 2 = H, 3 = S) of a French card id."""
    return card // 13


def french_card_str(card: int) -> str:
    """Return the short name of a French card id, e.g. ``"QS"`` or ``"TH"``."""
    if not 0 <= card < NUM_FRENCH_CARDS:
        raise ValueError(f"card id {card} is outside 0..51")
    return FRENCH_RANKS[card % 13] + FRENCH_SUITS[card // 13]


def parse_french_card(text: str) -> int:
    """Parse a card name such as ``"QS"``, ``"10h"``, ``"T♥"`` or ``"♠Q"`` into its id.

    Raises:
        ValueError: if the text names no card.
    """
    raw = text.strip().upper()
    for suit, symbol in SUIT_SYMBOLS.items():
        raw = raw.replace(symbol, suit)
    if len(raw) >= 2 and raw[0] in FRENCH_SUITS and raw[1:] not in FRENCH_SUITS:
        raw = raw[1:] + raw[0]  # accept suit-first spellings like "SQ" only when unambiguous
    rank_text, suit_text = raw[:-1], raw[-1:]
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in FRENCH_RANKS or suit_text not in FRENCH_SUITS:
        raise ValueError(f"not a card: {text!r} (expected e.g. 'QS', '10H', 'T♥')")
    return french_card_id(FRENCH_RANKS.index(rank_text), FRENCH_SUITS.index(suit_text))


def mask_of(cards: Iterable[int]) -> int:
    """Return the bitmask holding the given card ids."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: int) -> Iterator[int]:
    """Yield the card ids in a bitmask, lowest id first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: int) -> int:
    """Return the number of cards in a bitmask."""
    return mask.bit_count()


def mask_to_array(mask: int, size: int) -> np.ndarray:
    """Return a ``size``-long uint8 0/1 array with a 1 at each card id of the bitmask."""
    nbytes = (size + 7) // 8
    raw = np.frombuffer(mask.to_bytes(nbytes, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:size]


def mask_to_float32(mask: int, size: int) -> np.ndarray:
    """Return a new ``size``-long float32 0/1 vector with a 1 at each set bit of ``mask``."""
    raw = np.frombuffer(mask.to_bytes((size + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, count=size, bitorder="little").astype(np.float32)


def counts_of(items: Iterable[int], size: int) -> tuple[int, ...]:
    """Return the multiset of small ints ``items`` as a tuple of ``size`` counts."""
    result = [0] * size
    for item in items:
        result[item] += 1
    return tuple(result)


def expand_counts(counts: Sequence[int]) -> list[int]:
    """Return the items of a multiset given as counts, e.g. ``(2, 0, 1) -> [0, 0, 2]``."""
    return [kind for kind, n in enumerate(counts) for _ in range(n)]
