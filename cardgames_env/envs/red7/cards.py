"""Red7 cards: 49 cards, numbers 1-7 in the seven colours of the rainbow.

Card ids follow the card order (docs/rules/red7.md, "Cards"): higher number first, then colour
Red > Orange > Yellow > Green > Blue > Indigo > Violet. So ``id = (number - 1) * 7 +
(6 - colour)``: ``V1`` = 0 is the lowest card and ``R7`` = 48 the highest, and the highest
card of a bitmask is simply its highest set bit.
"""

from __future__ import annotations

from enum import IntEnum

from cardgames_env.core.cards import cards_of


class Colour(IntEnum):
    """Card colours; the index of a rule is the index of its colour (``"ROYGBIV"``)."""

    RED = 0
    ORANGE = 1
    YELLOW = 2
    GREEN = 3
    BLUE = 4
    INDIGO = 5
    VIOLET = 6


COLOURS = "ROYGBIV"
"""Colour letters in rule order (Red = 0 .. Violet = 6)."""
COLOUR_NAMES = ("Red", "Orange", "Yellow", "Green", "Blue", "Indigo", "Violet")
NUM_CARDS = 49
FULL_DECK = (1 << NUM_CARDS) - 1


def card_id(number: int, colour: int) -> int:
    """Return the id of the card ``number`` (1..7) of ``colour`` (0 = Red .. 6 = Violet)."""
    if not (1 <= number <= 7 and 0 <= colour <= 6):
        raise ValueError(f"no Red7 card with number {number} and colour {colour}")
    return (number - 1) * 7 + 6 - colour


CARD_NUMBER: tuple[int, ...] = tuple(c // 7 + 1 for c in range(NUM_CARDS))
"""Number (1..7) of each card id."""
CARD_COLOUR: tuple[int, ...] = tuple(6 - c % 7 for c in range(NUM_CARDS))
"""Colour index (0 = Red .. 6 = Violet) of each card id."""

NUMBER_MASKS: tuple[int, ...] = tuple(0x7F << (7 * n) for n in range(7))
"""Bitmask of the seven cards of number ``n + 1`` (index 0 = the 1s)."""
COLOUR_MASKS: tuple[int, ...] = tuple(
    sum(1 << card_id(n, col) for n in range(1, 8)) for col in range(7)
)
"""Bitmask of the seven cards of each colour (index = colour)."""
EVEN_MASK = NUMBER_MASKS[1] | NUMBER_MASKS[3] | NUMBER_MASKS[5]
"""Cards numbered 2, 4, 6 (the Green rule)."""
LOW_MASK = NUMBER_MASKS[0] | NUMBER_MASKS[1] | NUMBER_MASKS[2]
"""Cards numbered 1, 2, 3 (the Violet rule: below 4)."""
ODD_MASK = FULL_DECK & ~EVEN_MASK
"""Cards numbered 1, 3, 5, 7 (those with an effect under the action rule)."""


def card_str(card: int) -> str:
    """Return the name of a card id, colour letter then number, e.g. ``"R7"``, ``"V1"``."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card} is outside 0..48")
    return COLOURS[CARD_COLOUR[card]] + str(CARD_NUMBER[card])


def parse_card(text: str) -> int:
    """Parse a card name such as ``"R7"`` or ``"v1"`` (colour letter + number) into its id.

    Raises:
        ValueError: if the text names no card.
    """
    raw = text.strip().upper()
    if len(raw) == 2 and raw[0] in COLOURS and raw[1] in "1234567":
        return card_id(int(raw[1]), COLOURS.index(raw[0]))
    raise ValueError(f"not a Red7 card: {text!r} (expected a colour letter of ROYGBIV and 1-7, e.g. 'R7')")


def parse_cards(text: str) -> tuple[int, ...]:
    """Parse space-separated card names, e.g. ``"G7 R1"``."""
    return tuple(parse_card(word) for word in text.split())


def parse_colour(text: str) -> int:
    """Parse a rule (colour letter of ``ROYGBIV``) into its index."""
    raw = text.strip().upper()
    if len(raw) != 1 or raw not in COLOURS:
        raise ValueError(f"not a Red7 rule colour: {text!r} (expected one letter of ROYGBIV)")
    return COLOURS.index(raw)


def mask_str(mask: int) -> str:
    """Return the cards of a bitmask, highest first, e.g. ``"R7 G4 V1"`` (``"-"`` if empty)."""
    cards = sorted(cards_of(mask), reverse=True)
    return " ".join(card_str(c) for c in cards) if cards else "-"
