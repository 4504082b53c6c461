"""The Haggis heuristic's decisions, compiled: a batch of rows in one Numba loop.

The readable reference is :func:`cardgames_env.envs.haggis.heuristic.choose_play` on the plays of
:func:`cardgames_env.envs.haggis.combos.legal_plays`. The plays come from the engine's compiled
statement of the same rules (:func:`cardgames_env.envs.haggis.kernel.legal_plays`), which lists
them in ``legal_plays``' order (singles, then the sequence templates in
:data:`~cardgames_env.envs.haggis.combos.TEMPLATES` order, each card set and kind once at its
first appearance with its highest rank, then the bombs), so the choice's ties (the first of
equal keys, as Python's ``min`` takes) fall on the same play. The differential test
``tests/haggis/test_haggis_heuristic.py`` holds the two together.

**Plays** are int64 rows of :func:`~cardgames_env.envs.haggis.kernel.legal_plays`: the cards
(bitmask of card ids, 36..38 = J, Q, K), the kind (0 = bomb, ``m`` = a sequence of multiplicity
``m``) and the rank (a sequence's highest legal rank; a bomb's index in ``BOMB_ORDER``).

**Tables** are ``(kind, length, rank)``: kind -1 = none (the mover leads), 0 = a bomb (rank =
its index in ``BOMB_ORDER``), ``m`` = a sequence of multiplicity ``m`` (rank = its rank).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardgames_env.core.bits import bit_count, highest_bit, lowest_bit
from cardgames_env.envs.haggis.cards import FACE_MASK
from cardgames_env.envs.haggis.encoding import DECLARE0, PASS
from cardgames_env.envs.haggis.kernel import OVERFLOW, legal_plays

__all__ = ["NO_PLAY", "OVERFLOW", "choose", "decide", "extend", "legal_plays"]

NO_PLAY = -1
"""A row's chosen cards when the heuristic passes."""

_FACES = FACE_MASK


@njit(cache=True)
def choose(plays: np.ndarray, count: int, hand: int, leading: bool, opponent_cards: int,
           trick_points: float) -> int:
    """The row of ``choose_play``'s choice among the first ``count`` rows of ``plays``, or -1
    to pass (:func:`cardgames_env.envs.haggis.heuristic.choose_play`; ties go to the first, as ``min``)."""
    if count == 0:
        return -1
    for p in range(count):
        if plays[p, 0] == hand:
            return p  # go out
    cards, kinds, ranks = plays[:count, 0], plays[:count, 1], plays[:count, 2]
    best = -1
    if leading:
        for p in range(count):  # the longest clean run, lowest first
            size = bit_count(cards[p])
            if kinds[p] == 1 and not cards[p] & _FACES and size >= 3:
                if best < 0 or (-size, ranks[p]) < (-bit_count(cards[best]), ranks[best]):
                    best = p
        if best >= 0:
            return best
        for p in range(count):  # the lowest clean single up to 7
            if kinds[p] == 1 and not cards[p] & _FACES and bit_count(cards[p]) == 1 and ranks[p] <= 7:
                if best < 0 or ranks[p] < ranks[best]:
                    best = p
        if best >= 0:
            return best
        for p in range(count):  # the clean play with most cards, lowest first
            if kinds[p] != 0 and not cards[p] & _FACES:
                if best < 0 or (-bit_count(cards[p]), ranks[p]) < (-bit_count(cards[best]), ranks[best]):
                    best = p
        if best >= 0:
            return best
        for p in range(count):  # the fewest face cards, most cards
            if kinds[p] != 0:
                key = (bit_count(cards[p] & _FACES), -bit_count(cards[p]))
                if best < 0 or key < (bit_count(cards[best] & _FACES), -bit_count(cards[best])):
                    best = p
        if best >= 0:
            return best
        return _first_bomb(kinds)
    for p in range(count):  # following: the lowest clean play
        if kinds[p] != 0 and not cards[p] & _FACES and (best < 0 or ranks[p] < ranks[best]):
            best = p
    if best >= 0:
        return best
    danger = opponent_cards <= 4
    if trick_points >= 3 or danger:  # face cards as wilds: fewest, lowest
        for p in range(count):
            if kinds[p] != 0:
                key = (bit_count(cards[p] & _FACES), ranks[p])
                if best < 0 or key < (bit_count(cards[best] & _FACES), ranks[best]):
                    best = p
        if best >= 0:
            return best
    return _first_bomb(kinds) if danger else -1


@njit(cache=True)
def _first_bomb(kinds: np.ndarray) -> int:
    """The first bomb's row, -1 when there is none."""
    for p in range(kinds.shape[0]):
        if kinds[p] == 0:
            return p
    return -1


@njit(cache=True)
def extend(plays: np.ndarray, count: int, selected: int) -> int:
    """The row of the play with the fewest cards (then the lowest bitmask) whose cards up to the
    selection's highest are exactly ``selected``, -1 when none (``HaggisHeuristic``'s plan for a
    selection it did not make)."""
    low = (1 << (highest_bit(selected) + 1)) - 1
    best = -1
    for p in range(count):
        cards = plays[p, 0]
        if cards & low == selected:
            if best < 0 or (bit_count(cards), cards) < (bit_count(plays[best, 0]), plays[best, 0]):
                best = p
    return best


@njit(cache=True)
def decide(
    hands: np.ndarray, selections: np.ndarray, tables: np.ndarray, opponent_cards: np.ndarray,
    trick_points: np.ndarray, legal: np.ndarray, keys: np.ndarray, plans: np.ndarray,
    lone_qk_wild: bool, natural_runs: bool, start: int, actions: np.ndarray,
    plays: np.ndarray, table: np.ndarray, scratch: np.ndarray,
) -> int:
    """Write the heuristic's action of rows ``start..`` into ``actions``; return the number of
    rows done (fewer than all when ``plays`` overflowed on the next row, which is untouched).

    Each row: at the start of a move (nothing selected), or when the selection leaves the plan,
    plan a play (:func:`choose`, or :func:`extend` for a selection it did not make); then select
    the plan's lowest unselected card, or declare its kind once all are selected. ``plans[key]``
    holds each game seat's plan (cards, kind), cards -1 for none. ``tables[i]`` is the row's
    table ``(kind, length, rank)`` (kind -1: leading).
    """
    for i in range(start, hands.shape[0]):
        key = keys[i]
        selected = selections[i]
        planned = plans[key, 0]
        if selected == 0 or planned < 0 or planned & selected != selected:
            count = legal_plays(hands[i], tables[i, 0], tables[i, 1], tables[i, 2], lone_qk_wild,
                                natural_runs, plays, table, scratch)
            if count < 0:
                return i
            if selected == 0:
                row = choose(plays, count, hands[i], tables[i, 0] < 0, opponent_cards[i], trick_points[i])
            else:
                row = extend(plays, count, selected)
            planned = plays[row, 0] if row >= 0 else NO_PLAY
            plans[key, 0], plans[key, 1] = planned, plays[row, 1] if row >= 0 else 0
        first = 0
        while not legal[i, first]:
            first += 1
        if planned < 0:
            actions[i] = PASS if legal[i, PASS] else first
            continue
        rest = planned & ~selected
        action = DECLARE0 + plans[key, 1] if rest == 0 else lowest_bit(rest)
        if not legal[i, action]:  # never play an illegal action
            plans[key, 0] = NO_PLAY
            action = first
        elif action >= DECLARE0:
            plans[key, 0] = NO_PLAY
        actions[i] = action
    return hands.shape[0]
