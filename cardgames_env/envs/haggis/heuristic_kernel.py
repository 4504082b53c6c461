"""The Haggis heuristic's decisions, compiled: a batch of rows in one Numba loop.

The readable reference is :func:`cardgames_env.envs.haggis.heuristic.choose_play` on the plays of
:func:`cardgames_env.envs.haggis.combos.legal_plays`. The kernels below restate both on bitmasks
and keep their order exactly: :func:`legal_plays` lists the plays in ``legal_plays``' order
(singles, then the sequence templates in :data:`~cardgames_env.envs.haggis.combos.TEMPLATES`
order, each card set and kind once at its first appearance with its highest rank, then the
bombs), so the choice's ties (the first of equal keys, as Python's ``min`` takes) fall on the
same play. The differential test ``tests/haggis/test_haggis_heuristic.py`` holds the two together.

**Plays** are three int64 arrays: the cards (bitmask of card ids, 36..38 = J, Q, K), the kind
(0 = bomb, ``m`` = a sequence of multiplicity ``m``) and the rank (a sequence's highest legal
rank; a bomb's index in ``BOMB_ORDER``). A hash table of ``cards << 3 | kind`` finds a card set
and kind seen before.

**Tables** are ``(kind, length, rank)``: kind -1 = none (the mover leads), 0 = a bomb (rank =
its index in ``BOMB_ORDER``), ``m`` = a sequence of multiplicity ``m`` (rank = its rank).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from numba import njit

from cardgames_env.core.bits import bit_count, highest_bit, lowest_bit
from cardgames_env.envs.haggis.cards import FACE_MASK, NUMBER_MASK, J
from cardgames_env.envs.haggis.combos import BOMB_RANK, TEMPLATES
from cardgames_env.envs.haggis.encoding import DECLARE0, PASS
from cardgames_env.envs.haggis.kernel import FACE_BOMB_INDEX

NO_PLAY = -1
"""A row's chosen cards when the heuristic passes."""
OVERFLOW = -2
"""What :func:`legal_plays` returns when the play array is too small."""

_NUMBERS = NUMBER_MASK
_FACES = FACE_MASK
_J = J
_BOMB_SUITED = BOMB_RANK["suited"]
_BOMB_RAINBOW = BOMB_RANK["rainbow"]


def _template_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``TEMPLATES`` as arrays in their own order, with the rows of each shape.

    Returns:
        ``tpl`` int64 ``[T, 6]`` (m, l, top, region, naturals, slots); ``shape_rows`` int64
        ``[5, 13, S]``: the rows of shape ``(m, l)`` in order, ``shape_n`` ``[5, 13]`` their
        count.
    """
    tpl = np.array(TEMPLATES, dtype=np.int64)
    lists: dict[tuple[int, int], list[int]] = {}
    for row, template in enumerate(TEMPLATES):
        lists.setdefault((template[0], template[1]), []).append(row)
    shape_rows = np.zeros((5, 13, max(len(rows) for rows in lists.values())), dtype=np.int64)
    shape_n = np.zeros((5, 13), dtype=np.int64)
    for (m, length), rows in lists.items():
        shape_rows[m, length, : len(rows)] = rows
        shape_n[m, length] = len(rows)
    return tpl, shape_rows, shape_n


def _face_subsets() -> tuple[np.ndarray, np.ndarray]:
    """Subsets of each set of face cards by size, in ``itertools.combinations`` order (the
    order of ``combos._FACE_SUBSETS``): ``subsets[f, k, j]`` the ``j``-th subset of size ``k``
    of the faces ``f << 36`` (J = 1, Q = 2, K = 4), ``counts[f, k]`` how many."""
    subsets = np.zeros((8, 4, 3), dtype=np.int64)
    counts = np.zeros((8, 4), dtype=np.int64)
    for faces in range(8):
        present = [1 << (_J + bit) for bit in range(3) if faces >> bit & 1]
        for size in range(4):
            chosen = [sum(combo) for combo in combinations(present, size)]
            subsets[faces, size, : len(chosen)] = chosen
            counts[faces, size] = len(chosen)
    return subsets, counts


TPL, SHAPE_ROWS, SHAPE_N = _template_arrays()
FACE_SUBSETS, FACE_SUBSET_COUNTS = _face_subsets()


@njit(cache=True)
def _add(key: int, top: int, plays: np.ndarray, count: int, table: np.ndarray) -> int:
    """Record the sequence play ``key = cards << 3 | m`` with rank ``top``: appended to
    ``plays`` when new, its rank raised when seen before (``legal_plays``' ``best`` dict).
    Returns the new count, or :data:`OVERFLOW` when ``plays`` is full (or ``count`` already is
    :data:`OVERFLOW`).

    ``plays`` is int64 ``[capacity, 4]``: cards, kind, rank and the play's slot in ``table``.
    ``table`` is int64 ``[size, 2]`` (size a power of two): a key (0 = empty) and its play.
    """
    if count < 0:
        return count  # full already
    size = table.shape[0]
    h = np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - lowest_bit(size)))
    while table[h, 0] != 0:
        if table[h, 0] == key:
            index = table[h, 1]
            if plays[index, 2] < top:
                plays[index, 2] = top
            return count
        h = (h + 1) & (size - 1)
    if count == plays.shape[0]:
        return OVERFLOW
    table[h, 0], table[h, 1] = key, count
    plays[count, 0], plays[count, 1], plays[count, 2], plays[count, 3] = key >> 3, key & 7, top, h
    return count + 1


@njit(cache=True)
def _bomb(cards: int, index: int, plays: np.ndarray, count: int) -> int:
    """Append the bomb ``cards`` (``index`` in ``BOMB_ORDER``); :data:`OVERFLOW` when full."""
    if count < 0 or count == plays.shape[0]:
        return OVERFLOW
    plays[count, 0], plays[count, 1], plays[count, 2], plays[count, 3] = cards, 0, index, -1
    return count + 1


@njit(cache=True)
def legal_plays(
    hand: int, tkind: int, tlen: int, trank: int, lone_qk_wild: bool, natural_runs: bool,
    plays: np.ndarray, table: np.ndarray, scratch: np.ndarray,
) -> int:
    """Write the plays of ``combos.legal_plays(hand, table)`` into ``plays`` (see
    :func:`_add`) in its order; return their number, or :data:`OVERFLOW` when ``plays`` is full.

    ``table`` must be empty (zero) on entry and is empty again on return; ``scratch`` is an
    int64 array of at least 72 entries.
    """
    numbers = hand & _NUMBERS
    faces = hand & _FACES
    count = 0
    min_top = 0
    floor = -1
    singles = False
    rows = 0  # templates: all of them when leading, else the table's shape
    if tkind < 0:
        singles = True
        rows = TPL.shape[0]
    elif tkind >= 1:
        min_top = trank
        singles = tkind == 1 and tlen == 1
        if tkind < SHAPE_N.shape[0] and tlen < SHAPE_N.shape[1]:
            rows = SHAPE_N[tkind, tlen]
    else:
        floor = trank
    if singles:  # number cards by id, then J, Q, K (rules A3)
        for c in range(36):
            if (numbers >> c) & 1 and c // 4 + 2 > min_top:
                count = _add(((1 << c) << 3) | 1, c // 4 + 2, plays, count, table)
        for face in range(_J, _J + 3):
            if (faces >> face) & 1:
                rank = 10 if lone_qk_wild and face != _J else face - _J + 11
                if rank > min_top:
                    count = _add(((1 << face) << 3) | 1, rank, plays, count, table)
    bits, pick = scratch[:36], scratch[36:72]
    for r in range(rows):
        t = r if tkind < 0 else SHAPE_ROWS[tkind, tlen, r]
        m, top, region, naturals, slots = TPL[t, 0], TPL[t, 2], TPL[t, 3], TPL[t, 4], TPL[t, 5]
        if top <= min_top or naturals & ~faces or (naturals and not natural_runs):
            continue
        wild = faces & ~naturals
        avail = numbers & region
        k_min = max(1, slots - bit_count(wild))
        k_max = min(bit_count(avail), slots)
        if k_max < k_min:
            continue
        n = 0
        while avail:
            bits[n] = avail & -avail
            avail ^= bits[n]
            n += 1
        wild_index = wild >> _J
        for k in range(k_min, k_max + 1):
            subsets = FACE_SUBSETS[wild_index, slots - k, : FACE_SUBSET_COUNTS[wild_index, slots - k]]
            for j in range(k):  # combinations(bits, k), lexicographic
                pick[j] = j
            while count >= 0:
                chosen = naturals
                for j in range(k):
                    chosen |= bits[pick[j]]
                for f in range(subsets.shape[0]):
                    count = _add(((chosen | subsets[f]) << 3) | m, top, plays, count, table)
                j = k - 1
                while j >= 0 and pick[j] == n - k + j:
                    j -= 1
                if j < 0:
                    break
                pick[j] += 1
                for later in range(j + 1, k):
                    pick[later] = pick[later - 1] + 1
        if count < 0:
            break
    if count < 0:
        table[:, 0] = 0
        return OVERFLOW
    for p in range(count):  # empty the hash table for the next call
        table[plays[p, 3], 0] = 0
    # Bombs: two face cards, then J Q K (rules A2); then the 3-5-7-9s (rules A6).
    fb = faces >> _J
    for size in range(2, 4):
        for f in range(FACE_SUBSET_COUNTS[fb, size]):
            sub = FACE_SUBSETS[fb, size, f]
            if FACE_BOMB_INDEX[sub >> _J] > floor:
                count = _bomb(sub, FACE_BOMB_INDEX[sub >> _J], plays, count)
    for c3 in range(4, 8):
        for c5 in range(12, 16):
            for c7 in range(20, 24):
                for c9 in range(28, 32):
                    cards = (1 << c3) | (1 << c5) | (1 << c7) | (1 << c9)
                    if numbers & cards != cards:
                        continue
                    suits = (1 << (c3 & 3)) | (1 << (c5 & 3)) | (1 << (c7 & 3)) | (1 << (c9 & 3))
                    index = _BOMB_RAINBOW if suits == 15 else _BOMB_SUITED if suits & (suits - 1) == 0 else -1
                    if index >= 0 and index > floor:
                        count = _bomb(cards, index, plays, count)
    return count


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
