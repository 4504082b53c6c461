"""Red7 rule evaluation: qualifying sets, who is winning, and advanced-game scoring.

The stable API works on card names (docs/rules/red7.md, "The seven rules")::

    winning_player("O", [["V4", "I4", "Y2", "O2"], ["G3", "B3"]])  # -> 0
    scored_points("G", ["R2", "O4", "Y7"])                          # -> 6

Under the hood palettes are card bitmasks (:mod:`.cards`); a palette's *strength* under a
rule is ``|Q| * 64 + highest card of Q`` (0 when ``Q`` is empty), so comparing strengths
compares ``(|Q|, highest card)`` exactly as the rulebook's tie-break does.

:func:`qualifying`, :func:`strength`, :func:`all_strengths` and :func:`points_of` are compiled
(Numba): the rules engine calls them with ints and the batched engine (:mod:`.kernel`) from its
kernels, so each rule is stated once.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from numba import njit

from cardgames_env.core.bits import bit_count, bit_length, lowest_bit

from .cards import (
    COLOUR_MASKS,
    EVEN_MASK,
    FULL_DECK,
    LOW_MASK,
    NUMBER_MASKS,
    Colour,
    parse_card,
    parse_colour,
)

RED, ORANGE, YELLOW, GREEN, BLUE, INDIGO, VIOLET = (int(c) for c in Colour)
_COLOUR_LOW = COLOUR_MASKS[Colour.VIOLET]  # bits 0, 7, .., 42: a colour group shifted down
_COLOUR_SPREAD = tuple(sum(_COLOUR_LOW << s for s in range(7) if m >> s & 1) for m in range(128))
"""Cards of the colours whose in-group positions (``6 - colour``) are the bits of the index."""


def _top(mask: int) -> int:
    """Highest card id of a non-empty mask."""
    return mask.bit_length() - 1


def _best_run(present: int) -> tuple[int, int]:
    """Longest run of consecutive numbers in a 7-bit set; ties -> the highest run.

    Returns ``(length, index of its top number)``; ``(0, -1)`` for the empty set.
    """
    best = (0, -1)
    length = 0
    for n in range(7):
        length = length + 1 if present >> n & 1 else 0
        if length and length >= best[0]:
            best = (length, n)
    return best


RUN_TABLE: tuple[tuple[int, int], ...] = tuple(_best_run(p) for p in range(128))
"""``RUN_TABLE[numbers present]`` = (length, top number index) of the best run (Indigo)."""


_NUMBER_ARRAY = np.array(NUMBER_MASKS, dtype=np.int64)
_COLOUR_ARRAY = np.array(COLOUR_MASKS, dtype=np.int64)
_RUN_LEN = np.array([length for length, _ in RUN_TABLE], dtype=np.int64)
_RUN_TOP = np.array([top for _, top in RUN_TABLE], dtype=np.int64)

# The functions below are compiled (Numba) so that the rules engine and the batched engine
# (:mod:`.kernel`) share one statement of each rule; Python calls them with ints.


@njit(cache=True)
def _run_numbers(palette: int) -> int:
    """7-bit set of the number indices (0 = the 1s) present in a palette."""
    present = 0
    for n in range(7):
        if palette >> (7 * n) & 0x7F:
            present |= 1 << n
    return present


@njit(cache=True)
def qualifying(rule: int, palette: int) -> int:
    """Return the qualifying set ``Q`` of a palette under a rule, as a bitmask (docs/rules/red7.md,
    "The seven rules").

    Args:
        rule: colour index of the rule (0 = Red .. 6 = Violet).
        palette: bitmask of the palette's cards.

    Raises:
        ValueError: if ``rule`` is not a colour index 0..6 (and the palette is not empty).
    """
    if palette == 0:
        return 0
    if rule == RED:  # the highest card
        return 1 << (bit_length(palette) - 1)
    if rule == GREEN:  # the even cards
        return palette & EVEN_MASK
    if rule == VIOLET:  # the cards below 4
        return palette & LOW_MASK
    q = 0
    if rule == BLUE:  # one card of each colour, its highest
        for colour in range(7):
            group = palette & _COLOUR_ARRAY[colour]
            if group:
                q |= 1 << (bit_length(group) - 1)
        return q
    if rule == ORANGE or rule == YELLOW:  # A1: the group with the largest (size, highest card)
        best = -1
        for g in range(7):
            group = palette & (_NUMBER_ARRAY[g] if rule == ORANGE else _COLOUR_ARRAY[g])
            if group:
                value = bit_count(group) * 64 + bit_length(group) - 1
                if value > best:
                    best = value
                    q = group
        return q
    if rule != INDIGO:
        raise ValueError("rule must be a colour index 0..6")
    present = _run_numbers(palette)  # Indigo: the longest run (A2: one card per number, its best)
    top = _RUN_TOP[present]
    for n in range(top - _RUN_LEN[present] + 1, top + 1):
        q |= 1 << (bit_length(palette & _NUMBER_ARRAY[n]) - 1)
    return q


@njit(cache=True)
def strength(rule: int, palette: int) -> int:
    """Return ``|Q| * 64 + highest card of Q`` (0 when ``Q`` is empty); higher is better.

    Computed from the palette's groups without building ``Q`` (:func:`qualifying` states ``Q``;
    a test holds the two together).

    Raises:
        ValueError: if ``rule`` is not a colour index 0..6 (and the palette is not empty).
    """
    if palette == 0:
        return 0
    if rule == RED:
        return 63 + bit_length(palette)
    if rule == GREEN or rule == VIOLET:
        q = palette & (EVEN_MASK if rule == GREEN else LOW_MASK)
        return bit_count(q) * 64 + bit_length(q) - 1 if q else 0
    if rule == BLUE:
        m = palette | palette >> 7
        m |= m >> 14
        m |= m >> 28
        return bit_count(m & 0x7F) * 64 + bit_length(palette) - 1
    best = 0
    if rule == ORANGE:
        for n in range(7):
            group = palette >> (7 * n) & 0x7F
            if group:
                value = bit_count(group) * 64 + 7 * n + bit_length(group) - 1
                if value > best:
                    best = value
        return best
    if rule == YELLOW:
        for s in range(7):
            group = palette >> s & _COLOUR_LOW
            if group:
                value = bit_count(group) * 64 + bit_length(group) - 1 + s
                if value > best:
                    best = value
        return best
    if rule != INDIGO:
        raise ValueError("rule must be a colour index 0..6")
    present = _run_numbers(palette)
    return _RUN_LEN[present] * 64 + bit_length(palette & _NUMBER_ARRAY[_RUN_TOP[present]]) - 1


@njit(cache=True)
def all_strengths(palette: int, out: np.ndarray, at: int) -> None:
    """Write the palette's :func:`strength` under each rule into ``out[at:at + 7]``, in one
    pass over its number and colour groups."""
    if palette == 0:
        for r in range(7):
            out[at + r] = 0
        return
    top = bit_length(palette) - 1
    orange = 0
    yellow = 0
    present = 0
    colours = 0
    for k in range(7):
        group = palette >> (7 * k) & 0x7F  # the cards of number k + 1
        if group:
            present |= 1 << k
            value = bit_count(group) * 64 + 7 * k + bit_length(group) - 1
            if value > orange:
                orange = value
        group = palette >> k & _COLOUR_LOW  # the cards of colour 6 - k
        if group:
            colours += 1
            value = bit_count(group) * 64 + bit_length(group) - 1 + k
            if value > yellow:
                yellow = value
    even = palette & EVEN_MASK
    low = palette & LOW_MASK
    out[at + RED] = 64 + top
    out[at + ORANGE] = orange
    out[at + YELLOW] = yellow
    out[at + GREEN] = bit_count(even) * 64 + bit_length(even) - 1 if even else 0
    out[at + BLUE] = colours * 64 + top
    out[at + INDIGO] = _RUN_LEN[present] * 64 + bit_length(palette & _NUMBER_ARRAY[_RUN_TOP[present]]) - 1
    out[at + VIOLET] = bit_count(low) * 64 + bit_length(low) - 1 if low else 0


@lru_cache(maxsize=1 << 16)
def strengths(palette: int) -> tuple[int, ...]:
    """Return the palette's strength under each of the seven rules (cached: palettes repeat)."""
    out = np.zeros(7, dtype=np.int64)
    all_strengths(palette, out, 0)
    return tuple(out.tolist())


_ABOVE: tuple[int, ...] = tuple(FULL_DECK >> (x + 1) << (x + 1) for x in range(49))
"""``_ABOVE[x]``: the cards with an id greater than ``x`` (0 <= x <= 48)."""


def _above(x: int) -> int:
    """Cards with an id greater than ``x``."""
    return FULL_DECK if x < 0 else (_ABOVE[x] if x < 49 else 0)


def winning_additions(palette: int, thresholds: Sequence[int], rules: int = 0x7F) -> tuple[int, ...]:
    """For each rule ``k``: the cards ``c`` with ``strength(k, palette | c) > thresholds[k]``.

    Adding a card never lowers a strength, so a rule already beaten gives every card. The
    result is exact for cards outside the palette (cards inside it change nothing). Rules
    whose bit is not set in ``rules`` are skipped (their set is returned as 0).
    """
    base = strengths(palette)
    return tuple(
        0 if not rules >> rule & 1
        else FULL_DECK if base[rule] > thresholds[rule]
        else WINNING_CARDS_BELOW[rule](palette, thresholds[rule], FULL_DECK)
        for rule in range(7)
    )


def winning_cards(rule: int, palette: int, threshold: int, cards: int) -> int:
    """The cards of ``cards`` whose addition lifts the palette's strength under ``rule`` above
    ``threshold`` (the cards of ``winning_additions(palette, ...)[rule]`` restricted to ``cards``).

    Only the number or colour groups that ``cards`` touch are examined, so a small hand costs
    little. ``cards`` must not meet the palette.
    """
    if not 0 <= rule < 7:
        raise ValueError(f"rule must be a colour index 0..6, got {rule!r}")
    if strengths(palette)[rule] > threshold:
        return cards
    return WINNING_CARDS_BELOW[rule](palette, threshold, cards)


def _red_wins(palette: int, t: int, cards: int) -> int:
    return cards & _above(t - 64)  # 64 + max(top, c) > t, and top <= t - 64 here


def _green_wins(palette: int, t: int, cards: int) -> int:
    q = palette & EVEN_MASK
    x = t - (q.bit_count() + 1) * 64  # need max(top of Q, c) > x
    return cards & EVEN_MASK if q.bit_length() - 1 > x else cards & EVEN_MASK & _above(x)


def _violet_wins(palette: int, t: int, cards: int) -> int:
    q = palette & LOW_MASK
    x = t - (q.bit_count() + 1) * 64  # need max(top of Q, c) > x
    return cards & LOW_MASK if q.bit_length() - 1 > x else cards & LOW_MASK & _above(x)


def _blue_wins(palette: int, t: int, cards: int) -> int:
    m = palette | palette >> 7
    m |= m >> 14
    m |= m >> 28
    m &= 0x7F
    old = _COLOUR_SPREAD[m]
    count = m.bit_count()
    top = palette.bit_length() - 1
    x_old, x_new = t - count * 64, t - (count + 1) * 64
    return cards & (
        (old if top > x_old else old & _above(x_old))
        | (FULL_DECK & ~old if top > x_new else ~old & _above(x_new))
    )


def _orange_wins(palette: int, t: int, cards: int) -> int:
    wins = 0
    for n in range(7):
        low = 7 * n
        if not cards >> low & 0x7F:
            continue
        g = palette >> low & 0x7F
        x = t - (g.bit_count() + 1) * 64
        if x < low or g.bit_length() + low - 1 > x:
            wins |= 0x7F << low
        elif x < low + 6:
            wins |= 0x7F << low & _ABOVE[x]
    return cards & wins


def _yellow_wins(palette: int, t: int, cards: int) -> int:
    wins = 0
    for shift in range(7):
        if not cards >> shift & _COLOUR_LOW:
            continue
        g = palette >> shift & _COLOUR_LOW
        x = t - (g.bit_count() + 1) * 64
        if x < shift or (g and g.bit_length() + shift - 1 > x):
            wins |= _COLOUR_LOW << shift
        elif x < 42 + shift:
            wins |= _COLOUR_LOW << shift & _ABOVE[x]
    return cards & wins


def _indigo_wins(palette: int, t: int, cards: int) -> int:
    present = 0
    for n in range(7):
        if palette >> (7 * n) & 0x7F:
            present |= 1 << n
    wins = 0
    for n in range(7):
        group = NUMBER_MASKS[n]
        if not cards & group:
            continue
        length, top_number = RUN_TABLE[present | 1 << n]
        if top_number == n:
            x = t - length * 64
            if (palette & group).bit_length() - 1 > x:
                wins |= group
            else:
                wins |= group & _above(x)
        elif length * 64 + _top(palette & NUMBER_MASKS[top_number]) > t:
            wins |= group
    return cards & wins


WINNING_CARDS_BELOW = (
    _red_wins, _orange_wins, _yellow_wins, _green_wins, _blue_wins, _indigo_wins, _violet_wins,
)
"""Per rule, ``f(palette, threshold, cards)`` = :func:`winning_cards` for a palette whose own
strength under the rule does not exceed ``threshold`` (the caller has checked)."""


# -- the stable API on card names ----------------------------------------------------------


def _mask_of_names(palette: Sequence[str]) -> int:
    mask = 0
    for name in palette:
        card = parse_card(name)
        if mask >> card & 1:
            raise ValueError(f"card {name} appears twice")
        mask |= 1 << card
    return mask


def winning_player(rule: str, palettes: Sequence[Sequence[str]]) -> int | None:
    """Return the index of the palette winning under ``rule``, or ``None`` if nobody qualifies.

    Args:
        rule: the canvas colour, one letter of ``ROYGBIV``.
        palettes: each player's palette as card names such as ``"R7"``, ``"V1"``.

    Raises:
        ValueError: for a bad rule or card name, or a card appearing twice.
    """
    rule_index = parse_colour(rule)
    masks = [_mask_of_names(p) for p in palettes]
    seen = 0
    for mask in masks:
        if seen & mask:
            raise ValueError("a card appears in two palettes")
        seen |= mask
    values = [strength(rule_index, m) for m in masks]
    best = max(values, default=0)
    return values.index(best) if best > 0 else None


def scored_points(rule: str, palette: Sequence[str]) -> int:
    """Return the advanced-game score of a palette: the sum of the numbers of its ``Q`` ("The
    advanced game")."""
    return int(points_of(parse_colour(rule), _mask_of_names(palette)))


@njit(cache=True)
def points_of(rule: int, palette: int) -> int:
    """Bitmask version of :func:`scored_points`: the sum of the numbers of ``Q``."""
    q = qualifying(rule, palette)
    total = 0
    while q:
        total += lowest_bit(q) // 7 + 1  # the card's number (cards.CARD_NUMBER)
        q &= q - 1
    return total
