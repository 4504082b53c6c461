"""Batched Jaipur (``jaipur_v0``): every variant, the flat 25,505-action and the 63-action
sub-step encodings, bit-exact with the AEC env.

The kernels restate the rules of :mod:`cardgames_env.envs.jaipur.rules` (the reference; quoted
section names cite the rules page ``docs/rules/jaipur.md``, labels A1-A8 the decisions listed in
the rules module) over one ``int32`` row per
slot (layout below), and write the observation of
:func:`cardgames_env.envs.jaipur.encoding.observe` and the mask of ``legal_mask`` (or the
sub-step encoding's) for the mover. ``tests/jaipur/test_jaipur_kernel.py`` holds the two
together move by move.

Legal exchanges (rulebook A) come from two tables built once at import: for each of the
462 possible goods contents of the market, the list of flat exchanges whose taken goods it
holds (at most 455), and each exchange's give multiset packed in 4-bit fields with guard
bits (as in the encoding), so a move's legal exchanges are one subtraction and mask test per
candidate. The flat mask is never rewritten in full: each slot remembers which entries it
set and clears only those before the next write.

A slot's row holds the whole rules ``State``: counts of the card zones, the deck (top first,
from ``DECKPOS``), the goods stacks and bonus piles (top first, right-aligned in fixed
regions), the tokens each player took (in the order taken), and the round history in a
separate array of ``min(round cap, 16)`` rounds (running sums keep observations and rewards
exact beyond it; :meth:`JaipurEngine.state` refuses a slot with a longer history).
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import numpy as np
from numba import njit, prange

from cardgames_env.core.engine import BatchedEngine
from cardgames_env.core.kernel_rng import below, shuffle
from cardgames_env.core.threads import aligned_zeros, borrow
from cardgames_env.envs.jaipur import encoding, rules, substeps
from cardgames_env.envs.jaipur.cards import (
    BONUS_KINDS,
    BONUS_TOKENS,
    CAMEL,
    CAMEL_TOKEN,
    COMPOSITION,
    GOODS_TOKENS,
    HAND_DEAL,
    HAND_LIMIT,
    MARKET_CAMELS,
    MAX_STACK,
    MIN_SALE,
    NUM_GOODS,
    NUM_PLAYERS,
    NUM_TYPES,
    SEALS_TO_WIN,
)
from cardgames_env.envs.jaipur.env import JaipurEnv

# -- slot layout (one int32 row per slot) -------------------------------------------------------

_FIELDS = (
    ("PLAYER", 1),
    ("STARTER", 1),
    ("ROUND", 1),
    ("TURNS", 1),
    ("SEALS", 2),
    ("NHIST", 1),  # rounds finished (len(history)), possibly beyond the history array
    ("LASTSEAL", 1),  # Seal of the last finished round (-1: a full tie or none)
    ("GAP", 1),  # sum over finished rounds of rupees(0) - rupees(1)
    ("PAST", 2),  # rupee totals of the finished rounds per player
    ("DEPTH", 1),  # sub-steps made in the exchange under way (substeps encoding)
    ("XTAKE", NUM_GOODS),  # the partial exchange: goods taken so far
    ("XGIVE", NUM_TYPES),  # cards given so far
    ("NCAND", 1),  # legal exchanges still consistent with the partial exchange
    ("MCOUNT", 1),  # mask entries set (listed in the slot's row of ``midx``)
    ("MARKET", NUM_TYPES),
    ("HANDS", NUM_PLAYERS * NUM_TYPES),
    ("HERDS", NUM_PLAYERS),
    ("DISCARD", NUM_TYPES),
    ("KNOWN", NUM_PLAYERS * NUM_TYPES),
    ("DECKPOS", 1),
    ("DECK", 52),  # card types, top first from DECKPOS to the end
    ("STACKLEN", NUM_GOODS),
    ("STACK", NUM_GOODS * MAX_STACK),  # per good: values top first, right-aligned
    ("PILELEN", BONUS_KINDS),
    ("PILE", BONUS_KINDS * 7),  # per bonus kind: values top first, right-aligned
    ("GTOKN", NUM_PLAYERS * NUM_GOODS),
    ("GTOK", NUM_PLAYERS * NUM_GOODS * MAX_STACK),  # goods tokens taken, in order
    ("BTOKN", NUM_PLAYERS * BONUS_KINDS),
    ("BTOK", NUM_PLAYERS * BONUS_KINDS * 7),  # bonus tokens taken, in order
    ("GSUM", NUM_PLAYERS),  # rupees of the goods tokens held
)
_OFFSETS: dict[str, int] = {}
_width = 0
for _name, _size in _FIELDS:
    _OFFSETS[_name] = _width
    _width += _size
WIDTH = _width
"""int32 entries per slot row."""
PLAYER = _OFFSETS["PLAYER"]
STARTER = _OFFSETS["STARTER"]
ROUND = _OFFSETS["ROUND"]
TURNS = _OFFSETS["TURNS"]
SEALS = _OFFSETS["SEALS"]
NHIST = _OFFSETS["NHIST"]
LASTSEAL = _OFFSETS["LASTSEAL"]
GAP = _OFFSETS["GAP"]
PAST = _OFFSETS["PAST"]
DEPTH = _OFFSETS["DEPTH"]
XTAKE = _OFFSETS["XTAKE"]
XGIVE = _OFFSETS["XGIVE"]
NCAND = _OFFSETS["NCAND"]
MCOUNT = _OFFSETS["MCOUNT"]
MARKET = _OFFSETS["MARKET"]
HANDS = _OFFSETS["HANDS"]
HERDS = _OFFSETS["HERDS"]
DISCARD = _OFFSETS["DISCARD"]
KNOWN = _OFFSETS["KNOWN"]
DECKPOS = _OFFSETS["DECKPOS"]
DECK = _OFFSETS["DECK"]
STACKLEN = _OFFSETS["STACKLEN"]
STACK = _OFFSETS["STACK"]
PILELEN = _OFFSETS["PILELEN"]
PILE = _OFFSETS["PILE"]
GTOKN = _OFFSETS["GTOKN"]
GTOK = _OFFSETS["GTOK"]
BTOKN = _OFFSETS["BTOKN"]
BTOK = _OFFSETS["BTOK"]
GSUM = _OFFSETS["GSUM"]
DECK_CAP = 52
PILE_CAP = 7
HIST_FIELDS = 8  # rupees 0, 1, camel token, seal, bonus counts 0, 1, goods counts 0, 1
HIST_CAP = 16

# -- constants of the rules and encodings ---------------------------------------------------------

TAKE0 = encoding.TAKE0
CAMELS = encoding.CAMELS
SELL0 = encoding.SELL0
EXCHANGE0 = encoding.EXCHANGE0
MAX_SELL = encoding.MAX_SELL
XTAKE0 = substeps.XTAKE0
XGIVE0 = substeps.XGIVE0
XDONE = substeps.XDONE
GUARD = encoding.GUARD
MIN_SALE_A = np.array(MIN_SALE, dtype=np.int64)
STACK_SIZES = np.array([len(s) for s in GOODS_TOKENS], dtype=np.int64)
STACK_FULL = np.zeros((NUM_GOODS, MAX_STACK), dtype=np.int64)
"""Each full goods stack, top first, right-aligned like the slot's STACK regions."""
for _g, _stack in enumerate(GOODS_TOKENS):
    STACK_FULL[_g, MAX_STACK - len(_stack) :] = _stack
PILE_SIZES = np.array([len(p) for p in BONUS_TOKENS], dtype=np.int64)
PILE_FULL = np.zeros((BONUS_KINDS, PILE_CAP), dtype=np.int64)
for _k, _pile in enumerate(BONUS_TOKENS):
    PILE_FULL[_k, PILE_CAP - len(_pile) :] = _pile
DEAL_CARDS = np.array(
    [k for k in range(NUM_TYPES) for _ in range(COMPOSITION[k] - (MARKET_CAMELS if k == CAMEL else 0))],
    dtype=np.int32,
)
"""The 52 cards shuffled at each setup (the 3 market camels set aside; "Setting up a round")."""
assert len(DEAL_CARDS) == DECK_CAP

# Observation offsets (encoding.LAYOUT; the sub-step layout appends the partial exchange).
_L = encoding.LAYOUT
O_HAND = _L.piece("hand").offset
O_MARKET = _L.piece("market").offset
O_HERDS = _L.piece("herds").offset
O_SIZES = _L.piece("hand_sizes").offset
O_KNOWN = _L.piece("opponent_known").offset
O_DECK = _L.piece("deck_size").offset
O_DISCARD = _L.piece("discard").offset
O_STANDING = _L.piece("camel_standing").offset
O_TO_MOVE = _L.piece("to_move").offset
O_TOKENS_LEFT = _L.piece("tokens_left").offset
O_STACKS = _L.piece("goods_stacks").offset
O_BONUS_LEFT = _L.piece("bonus_left").offset
O_BONUS_VALUES = _L.piece("my_bonus_values").offset
O_BONUS_COUNTS = _L.piece("bonus_counts").offset
O_RUPEES = _L.piece("goods_rupees").offset
O_COUNTS = _L.piece("goods_counts").offset
O_SEALS = _L.piece("seals").offset
O_ROUND = _L.piece("round").offset
O_STARTER = _L.piece("starter").offset
O_PAST = _L.piece("past_rupees").offset
O_PARTIAL = _L.size
assert substeps.SUBSTEP_LAYOUT.piece("exchange_take").offset == O_PARTIAL
assert O_PAST + 2 == _L.size


def _build_market_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per market goods content (key: base-6 digits of the 6 counts): the flat exchanges
    whose taken goods it holds, as CSR rows ``CAND_LIST[CAND_START[r]:CAND_START[r + 1]]``."""
    lut = np.full(6**NUM_GOODS, -1, dtype=np.int32)
    starts = [0]
    lists = []
    row = 0
    for market in itertools.product(range(6), repeat=NUM_GOODS):
        if sum(market) > 5:
            continue
        fits = ((encoding.pack(market) - encoding.TAKE_PACKED) & GUARD) == GUARD
        found = np.flatnonzero(fits).astype(np.int32)
        lists.append(found)
        starts.append(starts[-1] + len(found))
        lut[sum(n * 6**g for g, n in enumerate(market))] = row
        row += 1
    return lut, np.array(starts, dtype=np.int32), np.concatenate(lists).astype(np.int32)


MARKET_LUT, CAND_START, CAND_LIST = _build_market_tables()
MAX_CANDIDATES = int(np.diff(CAND_START).max())  # 455
GIVE_PACKED = np.ascontiguousarray(encoding.GIVE_PACKED, dtype=np.int64)
"""Per flat exchange: its give multiset, packed (4-bit fields, no guard bits)."""
EX_TAKE = np.ascontiguousarray(encoding.EXCHANGE_TAKE, dtype=np.int8)
EX_GIVE = np.ascontiguousarray(encoding.EXCHANGE_GIVE, dtype=np.int8)
SEQ = np.ascontiguousarray(substeps.SEQUENCES, dtype=np.int8)
"""Per flat exchange: its canonical sub-step actions (-1 padded)."""

# Config flags passed to the kernels (int64 array).
C_HIDDEN, C_SUBSTEPS, C_POINTS, C_STANDARD, C_ROUND_CAP, C_HIST_CAP, C_MAX_STEPS = range(7)


# -- kernels: one slot -------------------------------------------------------------------------


@njit(cache=True)
def _deal(s: np.ndarray, i: int, rng: np.ndarray, starter: int) -> None:
    """Lay out a round in row ``s`` (setup, "Setting up a round"): 3 camels + 2 cards in the market, 5
    cards per hand (camels to the herd), 40 in the deck, full stacks, shuffled bonus piles."""
    deck = s[DECK : DECK + DECK_CAP]
    deck[:] = DEAL_CARDS
    shuffle(rng, i, deck, DECK_CAP)
    for t in range(NUM_TYPES):
        s[MARKET + t] = 0
        s[DISCARD + t] = 0
        for p in range(NUM_PLAYERS):
            s[HANDS + p * NUM_TYPES + t] = 0
            s[KNOWN + p * NUM_TYPES + t] = 0
    s[MARKET + CAMEL] = MARKET_CAMELS
    for p in range(NUM_PLAYERS):
        s[HERDS + p] = 0
        for j in range(HAND_DEAL):
            card = deck[p * HAND_DEAL + j]
            if card == CAMEL:
                s[HERDS + p] += 1  # setup step 5: camels in hand go to the herd
            else:
                s[HANDS + p * NUM_TYPES + card] += 1
    s[MARKET + deck[2 * HAND_DEAL]] += 1
    s[MARKET + deck[2 * HAND_DEAL + 1]] += 1
    s[DECKPOS] = 2 * HAND_DEAL + 2
    for g in range(NUM_GOODS):
        s[STACKLEN + g] = STACK_SIZES[g]
        for j in range(MAX_STACK):
            s[STACK + g * MAX_STACK + j] = STACK_FULL[g, j]
    for k in range(BONUS_KINDS):
        n = PILE_SIZES[k]
        s[PILELEN + k] = n
        region = s[PILE + k * PILE_CAP : PILE + (k + 1) * PILE_CAP]
        for j in range(PILE_CAP):
            region[j] = PILE_FULL[k, j]
        shuffle(rng, i, region[PILE_CAP - n :], n)
    for j in range(NUM_PLAYERS * NUM_GOODS):
        s[GTOKN + j] = 0
    for j in range(NUM_PLAYERS * BONUS_KINDS):
        s[BTOKN + j] = 0
    s[GSUM] = 0
    s[GSUM + 1] = 0
    s[TURNS] = 0
    s[STARTER] = starter
    s[PLAYER] = starter
    _clear_partial(s)


@njit(cache=True)
def _new_game(s: np.ndarray, i: int, rng: np.ndarray) -> None:
    """A fresh game: no Seals, no history, round 1, a random first starter ("Setting up a round")."""
    s[SEALS] = 0
    s[SEALS + 1] = 0
    s[NHIST] = 0
    s[LASTSEAL] = -1
    s[GAP] = 0
    s[PAST] = 0
    s[PAST + 1] = 0
    s[ROUND] = 1
    _deal(s, i, rng, below(rng, i, NUM_PLAYERS))


@njit(cache=True)
def _clear_partial(s: np.ndarray) -> None:
    s[DEPTH] = 0
    s[NCAND] = 0
    for g in range(NUM_GOODS):
        s[XTAKE + g] = 0
    for t in range(NUM_TYPES):
        s[XGIVE + t] = 0


@njit(cache=True)
def _refill(s: np.ndarray, needed: int) -> bool:
    """Draw ``needed`` cards from the deck into the market; True if the deck ran out (A3)."""
    pos = s[DECKPOS]
    for _ in range(needed):
        if pos >= DECK_CAP:
            s[DECKPOS] = pos
            return True
        s[MARKET + s[DECK + pos]] += 1
        pos += 1
    s[DECKPOS] = pos
    return False


@njit(cache=True)
def _sell(s: np.ndarray, p: int, g: int, n: int) -> bool:
    """Sell ``n`` cards of good ``g`` (rulebook D, A4); True if three stacks are empty (A5)."""
    length = s[STACKLEN + g]
    taken = min(n, length)
    top = STACK + g * MAX_STACK + MAX_STACK - length
    slot = p * NUM_GOODS + g
    held = s[GTOKN + slot]
    for j in range(taken):
        value = s[top + j]
        s[GTOK + slot * MAX_STACK + held + j] = value
        s[GSUM + p] += value
    s[GTOKN + slot] = held + taken
    s[STACKLEN + g] = length - taken
    kind = 2 if n >= 5 else n - 3  # bonus pile of a 3-, 4- or 5+-card sale
    if kind >= 0 and s[PILELEN + kind] > 0:
        size = s[PILELEN + kind]
        value = s[PILE + kind * PILE_CAP + PILE_CAP - size]
        s[PILELEN + kind] = size - 1
        bslot = p * BONUS_KINDS + kind
        s[BTOK + bslot * PILE_CAP + s[BTOKN + bslot]] = value
        s[BTOKN + bslot] += 1
    s[HANDS + p * NUM_TYPES + g] -= n
    s[DISCARD + g] += n
    known = s[KNOWN + p * NUM_TYPES + g] - n
    s[KNOWN + p * NUM_TYPES + g] = known if known > 0 else 0
    empty = 0
    for h in range(NUM_GOODS):
        if s[STACKLEN + h] == 0:
            empty += 1
    return empty >= 3


@njit(cache=True)
def _exchange(s: np.ndarray, p: int, take: np.ndarray, give: np.ndarray) -> None:
    """Take goods from the market, give back as many cards (rulebook A; no refill)."""
    for g in range(NUM_GOODS):
        t = take[g]
        v = give[g]
        s[MARKET + g] += v - t
        s[HANDS + p * NUM_TYPES + g] += t - v
        known = s[KNOWN + p * NUM_TYPES + g] + t - v
        s[KNOWN + p * NUM_TYPES + g] = known if known > 0 else 0
    camels = give[CAMEL]
    s[MARKET + CAMEL] += camels
    s[HERDS + p] -= camels


@njit(cache=True)
def _apply(s: np.ndarray, action: int, ex_take: np.ndarray, ex_give: np.ndarray) -> bool:
    """Play a (legal) flat-table move for the player to move; True if the round ends."""
    p = s[PLAYER]
    if action < CAMELS:  # B: take one good, refill its slot
        s[MARKET + action] -= 1
        s[HANDS + p * NUM_TYPES + action] += 1
        s[KNOWN + p * NUM_TYPES + action] += 1
        return _refill(s, 1)
    if action == CAMELS:  # C: take all the camels, refill
        camels = s[MARKET + CAMEL]
        s[MARKET + CAMEL] = 0
        s[HERDS + p] += camels
        return _refill(s, camels)
    if action < EXCHANGE0:  # D: sell
        a = action - SELL0
        return _sell(s, p, a // MAX_SELL, a % MAX_SELL + 1)
    e = action - EXCHANGE0
    _exchange(s, p, ex_take[e], ex_give[e])
    return False


@njit(cache=True)
def _round_tally(s: np.ndarray, p: int, camel: int) -> tuple[int, int, int]:
    """Player ``p``'s rupees of the round, bonus tokens and goods tokens ("End of a round and scoring")."""
    total = s[GSUM + p] + (CAMEL_TOKEN if camel == p else 0)
    bonus = 0
    goods = 0
    for k in range(BONUS_KINDS):
        bslot = p * BONUS_KINDS + k
        count = s[BTOKN + bslot]
        bonus += count
        for j in range(count):
            total += s[BTOK + bslot * PILE_CAP + j]
    for g in range(NUM_GOODS):
        goods += s[GTOKN + p * NUM_GOODS + g]
    return total, bonus, goods


@njit(cache=True)
def _end_round(s: np.ndarray, hist: np.ndarray, i: int, cfg: np.ndarray, rewards: np.ndarray) -> bool:
    """Score the round ("End of a round and scoring": camel token, rupees, Seal with tie-breaks; A7), pay the
    rewards, record it; True if the game is over."""
    h0 = s[HERDS]
    h1 = s[HERDS + 1]
    camel = 0 if h0 > h1 else (1 if h1 > h0 else -1)  # a camel tie: nobody
    total0, bonus0, goods0 = _round_tally(s, 0, camel)
    total1, bonus1, goods1 = _round_tally(s, 1, camel)
    totals = (total0, total1)
    bonus_counts = (bonus0, bonus1)
    goods_counts = (goods0, goods1)
    seal = -1
    if totals[0] != totals[1]:
        seal = 0 if totals[0] > totals[1] else 1
    elif bonus_counts[0] != bonus_counts[1]:
        seal = 0 if bonus_counts[0] > bonus_counts[1] else 1
    elif goods_counts[0] != goods_counts[1]:
        seal = 0 if goods_counts[0] > goods_counts[1] else 1
    if seal >= 0:
        s[SEALS + seal] += 1
    s[LASTSEAL] = seal
    n = s[NHIST]
    if n < cfg[C_HIST_CAP]:
        row = hist[n]
        row[0] = totals[0]
        row[1] = totals[1]
        row[2] = camel
        row[3] = seal
        row[4] = bonus_counts[0]
        row[5] = bonus_counts[1]
        row[6] = goods_counts[0]
        row[7] = goods_counts[1]
    s[NHIST] = n + 1
    old_gap = s[GAP]
    new_gap = old_gap + totals[0] - totals[1]
    s[GAP] = new_gap
    s[PAST] += totals[0]
    s[PAST + 1] += totals[1]
    if cfg[C_POINTS]:  # the change of rules.returns: (gap / 100, -gap / 100), in float64
        rewards[i, 0] = new_gap / 100 - old_gap / 100
        rewards[i, 1] = -(new_gap / 100) - -(old_gap / 100)
    a = s[SEALS]
    b = s[SEALS + 1]
    over = max(a, b) >= SEALS_TO_WIN or n + 1 >= cfg[C_ROUND_CAP]
    if over and not cfg[C_POINTS]:
        if cfg[C_STANDARD]:
            winner = -1 if max(a, b) < SEALS_TO_WIN else (0 if a > b else 1)  # A7: the cap is a draw
        else:
            winner = -1 if a == b else (0 if a > b else 1)
        if winner >= 0:
            rewards[i, winner] = 1.0
            rewards[i, 1 - winner] = -1.0
    if not over:
        s[ROUND] += 1
    return over


@njit(cache=True)
def exchange_purse(hand: np.ndarray, market: np.ndarray, herd: int) -> tuple[int, int, int]:
    """What the mover's legal exchanges (rulebook A) depend on, from its goods ``hand`` (6
    counts), the market's goods (6 counts) and its ``herd``: ``(packed, key, room)``, the goods
    and the camels it may give (A2: up to the room under the hand limit, 5 at most) packed in
    guarded 4-bit fields for :func:`pays`, the market's row key into :data:`MARKET_LUT`, and
    the room left in the hand."""
    packed = GUARD
    key = 0
    size = 0
    mult = 1
    for g in range(NUM_GOODS):
        n = int(hand[g])
        size += n
        packed |= n << (4 * g)
        key += int(market[g]) * mult
        mult *= 6
    room = HAND_LIMIT - size
    packed |= min(int(herd), room, 5) << (4 * CAMEL)
    return packed, key, room


@njit(cache=True, inline="always")
def pays(packed: int, give: int) -> bool:
    """Whether a purse packed by :func:`exchange_purse` holds the cards ``give`` (an
    exchange's :data:`GIVE_PACKED`)."""
    return ((packed - give) & GUARD) == GUARD


@njit(cache=True)
def _mark(mask: np.ndarray, midx: np.ndarray, i: int, count: int, action: int) -> int:
    mask[i, action] = True
    midx[i, count] = action
    return count + 1


@njit(cache=True)
def _write_mask(
    s: np.ndarray,
    i: int,
    mask: np.ndarray,
    midx: np.ndarray,
    cand: np.ndarray,
    substep: bool,
    lut: np.ndarray,
    cand_start: np.ndarray,
    cand_list: np.ndarray,
    give_packed: np.ndarray,
    seq: np.ndarray,
) -> int:
    """Write the mover's mask at the start of a move (clearing only the entries set last
    time); with sub-steps, also the legal exchanges (``cand``). Returns the entries set."""
    for j in range(s[MCOUNT]):
        mask[i, midx[i, j]] = False
    p = s[PLAYER]
    hand = HANDS + p * NUM_TYPES
    goods, market = s[hand : hand + NUM_GOODS], s[MARKET : MARKET + NUM_GOODS]
    packed, key, room = exchange_purse(goods, market, s[HERDS + p])
    count = 0
    if room > 0:  # B needs room in the hand
        for g in range(NUM_GOODS):
            if s[MARKET + g] > 0:
                count = _mark(mask, midx, i, count, TAKE0 + g)
    if s[MARKET + CAMEL] > 0:  # C needs a camel in the market
        count = _mark(mask, midx, i, count, CAMELS)
    for g in range(NUM_GOODS):  # D: precious goods sell 2 or more
        for n in range(MIN_SALE_A[g], s[hand + g] + 1):
            count = _mark(mask, midx, i, count, SELL0 + g * MAX_SELL + n - 1)
    row = lut[key]
    ncand = 0
    for c in range(cand_start[row], cand_start[row + 1]):
        e = cand_list[c]
        if pays(packed, give_packed[e]):
            if substep:
                cand[i, ncand] = e
                ncand += 1
                first = seq[e, 0]
                if not mask[i, first]:
                    count = _mark(mask, midx, i, count, first)
            else:
                count = _mark(mask, midx, i, count, EXCHANGE0 + e)
    s[NCAND] = ncand
    s[MCOUNT] = count
    return count


@njit(cache=True)
def _substep_mask(s: np.ndarray, i: int, mask: np.ndarray, midx: np.ndarray, cand: np.ndarray,
                  seq: np.ndarray, action: int) -> None:
    """After sub-step ``action`` at depth ``d``: keep the exchanges whose sequence continues
    with it; the mask is their next sub-steps."""
    for j in range(s[MCOUNT]):
        mask[i, midx[i, j]] = False
    depth = s[DEPTH]  # already counts ``action``
    kept = 0
    count = 0
    for c in range(s[NCAND]):
        e = cand[i, c]
        if seq[e, depth - 1] == action:
            cand[i, kept] = e
            kept += 1
            nxt = seq[e, depth]
            if not mask[i, nxt]:
                count = _mark(mask, midx, i, count, nxt)
    s[NCAND] = kept
    s[MCOUNT] = count


@njit(cache=True)
def _write_obs(s: np.ndarray, o: np.ndarray, cfg: np.ndarray, p: int, final: bool) -> None:
    """Write seat ``p``'s observation of row ``s`` into ``o`` (encoding.observe, then the partial
    exchange). ``final``: the row is a finished game (``final_state``): the mover is shown only
    where the game was cut at the turn limit, and no partial exchange."""
    q = 1 - p
    size_me = 0
    size_opp = 0
    for g in range(NUM_GOODS):
        mine = s[HANDS + p * NUM_TYPES + g]
        o[O_HAND + g] = mine
        size_me += mine
        size_opp += s[HANDS + q * NUM_TYPES + g]
        o[O_KNOWN + g] = s[KNOWN + q * NUM_TYPES + g]
        o[O_DISCARD + g] = s[DISCARD + g]
    for t in range(NUM_TYPES):
        o[O_MARKET + t] = s[MARKET + t]
    my_herd = s[HERDS + p]
    opp_herd = s[HERDS + q]
    o[O_HERDS] = my_herd
    o[O_SIZES] = size_me
    o[O_SIZES + 1] = size_opp
    o[O_DECK] = DECK_CAP - s[DECKPOS]
    o[O_STANDING] = 0.0
    o[O_STANDING + 1] = 0.0
    o[O_STANDING + 2] = 0.0
    if cfg[C_HIDDEN]:  # the herd piece shows only whether the opponent has camels
        o[O_HERDS + 1] = 1.0 if opp_herd else 0.0
    else:
        o[O_HERDS + 1] = opp_herd
        if my_herd > opp_herd:
            o[O_STANDING] = 1.0
        elif my_herd < opp_herd:
            o[O_STANDING + 1] = 1.0
        else:
            o[O_STANDING + 2] = 1.0
    if final:  # rules.is_terminal of the finished game: its last round scored and the game over
        over = max(s[SEALS], s[SEALS + 1]) >= SEALS_TO_WIN or s[NHIST] >= cfg[C_ROUND_CAP]
        o[O_TO_MOVE] = 1.0 if s[PLAYER] == p and not over else 0.0
    else:
        o[O_TO_MOVE] = 1.0
    for g in range(NUM_GOODS):
        length = s[STACKLEN + g]
        o[O_TOKENS_LEFT + g] = length
        top = STACK + g * MAX_STACK + MAX_STACK - length
        base = O_STACKS + g * MAX_STACK
        for j in range(MAX_STACK):
            o[base + j] = s[top + j] if j < length else 0.0
    for v in range(10):
        o[O_BONUS_VALUES + v] = 0.0
    for k in range(BONUS_KINDS):
        o[O_BONUS_LEFT + k] = s[PILELEN + k]
        mine = p * BONUS_KINDS + k
        o[O_BONUS_COUNTS + k] = s[BTOKN + mine]
        o[O_BONUS_COUNTS + BONUS_KINDS + k] = s[BTOKN + q * BONUS_KINDS + k]
        for j in range(s[BTOKN + mine]):
            o[O_BONUS_VALUES + s[BTOK + mine * PILE_CAP + j] - 1] += 1.0
    o[O_RUPEES] = s[GSUM + p] / 100
    o[O_RUPEES + 1] = s[GSUM + q] / 100
    counts_me = 0
    counts_opp = 0
    for g in range(NUM_GOODS):
        counts_me += s[GTOKN + p * NUM_GOODS + g]
        counts_opp += s[GTOKN + q * NUM_GOODS + g]
    o[O_COUNTS] = counts_me
    o[O_COUNTS + 1] = counts_opp
    o[O_SEALS] = s[SEALS + p]
    o[O_SEALS + 1] = s[SEALS + q]
    o[O_ROUND] = s[ROUND]
    o[O_STARTER] = 1.0 if s[STARTER] == p else 0.0
    o[O_PAST] = s[PAST + p] / 100
    o[O_PAST + 1] = s[PAST + q] / 100
    if cfg[C_SUBSTEPS]:
        for g in range(NUM_GOODS):
            o[O_PARTIAL + g] = 0.0 if final else s[XTAKE + g]
        for t in range(NUM_TYPES):
            o[O_PARTIAL + NUM_GOODS + t] = 0.0 if final else s[XGIVE + t]


@njit(cache=True)
def _write_final_obs(
    final: np.ndarray, slots: np.ndarray, seats: np.ndarray, cfg: np.ndarray, out: np.ndarray
) -> None:
    """``out[k]``: seat ``seats[k]``'s observation of the finished game in ``final[slots[k]]``."""
    for k in range(slots.shape[0]):
        _write_obs(final[slots[k]], out[k], cfg, seats[k], True)


@njit(cache=True)
def _next_round(s: np.ndarray, i: int, rng: np.ndarray) -> None:
    """Deal the next round: the previous round's loser starts (a full tie: the other starter)."""
    seal = s[LASTSEAL]
    _deal(s, i, rng, 1 - seal if seal >= 0 else 1 - s[STARTER])


@njit(cache=True)
def _step_slot(
    s, hist, fs, fh, i, action, rng, obs, mask, midx, cand, player, rewards, done, truncated, steps, cfg,
    lut, cand_start, cand_list, give_packed, seq, ex_take, ex_give,
):
    """One decision of slot ``i``: the move (or sub-step), the round's and game's end, the
    turn limit, a fresh game when done (the finished one kept in ``fs``/``fh`` for
    ``final_state``), and the outputs of the next decision (``engine.STAY``: the slot sits the
    step out, with zero rewards and its outputs unchanged)."""
    rewards[i, 0] = 0.0
    rewards[i, 1] = 0.0
    done[i] = False
    truncated[i] = False
    if action < 0:
        return
    steps[i] += 1
    substep = cfg[C_SUBSTEPS] != 0
    move_done = True
    round_ends = False
    if substep and action >= XTAKE0:
        if action == XDONE:  # play the exchange built so far
            _exchange(s, s[PLAYER], s[XTAKE : XTAKE + NUM_GOODS], s[XGIVE : XGIVE + NUM_TYPES])
            _clear_partial(s)
        else:
            move_done = False
            if action < XGIVE0:
                s[XTAKE + action - XTAKE0] += 1
            else:
                s[XGIVE + action - XGIVE0] += 1
            s[DEPTH] += 1
            _substep_mask(s, i, mask, midx, cand, seq, action)
    else:
        round_ends = _apply(s, action, ex_take, ex_give)
    mask_written = not move_done
    if move_done:
        s[PLAYER] = 1 - s[PLAYER]
        s[TURNS] += 1
        if not round_ends:
            # A8 safety rule: a mover without any legal move ends the round.
            written = _write_mask(
                s, i, mask, midx, cand, substep, lut, cand_start, cand_list, give_packed, seq
            )
            round_ends = written == 0
            mask_written = True
        if round_ends:
            mask_written = False
            if _end_round(s, hist, i, cfg, rewards):
                done[i] = True
                fs[:] = s
                fh[:] = hist
                _new_game(s, i, rng)
            else:
                _next_round(s, i, rng)
    if not done[i] and steps[i] >= cfg[C_MAX_STEPS]:  # the turn limit (core/aec.py max_steps)
        done[i] = True
        truncated[i] = True
        fs[:] = s
        fh[:] = hist
        _new_game(s, i, rng)
        mask_written = False
    if done[i]:
        steps[i] = 0
    if not mask_written:  # a new deal always has a legal move (3 camels in the market)
        _write_mask(s, i, mask, midx, cand, substep, lut, cand_start, cand_list, give_packed, seq)
    _write_obs(s, obs[i], cfg, s[PLAYER], False)
    player[i] = s[PLAYER]


@njit(cache=True)
def _refresh_slot(s, i, obs, mask, midx, cand, player, cfg, lut, cand_start, cand_list, give_packed, seq):
    """Write slot ``i``'s outputs for the state in its row (after a load; no move made)."""
    _write_mask(s, i, mask, midx, cand, cfg[C_SUBSTEPS] != 0, lut, cand_start, cand_list, give_packed, seq)
    _write_obs(s, obs[i], cfg, s[PLAYER], False)
    player[i] = s[PLAYER]


# -- determinizations (BatchedEngine.redeal_hidden) ---------------------------------------------


@njit(cache=True)
def _redeal_hidden(
    slots, seat, state, rng, obs, mask, midx, cand, player, cfg, lut, cand_start, cand_list, give_packed, seq
):
    """``rules.resample_hidden`` in each slot of ``slots`` from its own stream, for ``seat``:
    the opponent's unknown goods and the deck's goods shuffled together, the opponent's
    unknown goods dealt from them, the rest and the deck's camels shuffled into the deck; the
    opponent's bonus tokens and each bonus pile shuffled together within each kind, counts
    kept. Then the slot's outputs."""
    opp = 1 - seat
    hand = HANDS + opp * NUM_TYPES
    known = KNOWN + opp * NUM_TYPES
    goods = np.empty(DECK_CAP + HAND_LIMIT, dtype=np.int32)
    values = np.empty(2 * PILE_CAP, dtype=np.int32)
    for k in range(slots.shape[0]):
        i = slots[k]
        s = state[i]
        count = 0
        for g in range(NUM_GOODS):
            for _ in range(s[hand + g] - s[known + g]):
                goods[count] = g
                count += 1
        unknown = count
        camels = 0
        top = s[DECKPOS]
        for d in range(top, DECK_CAP):
            if s[DECK + d] == CAMEL:
                camels += 1
            else:
                goods[count] = s[DECK + d]
                count += 1
        shuffle(rng, i, goods, count)
        for g in range(NUM_GOODS):
            s[hand + g] = s[known + g]
        for j in range(unknown):
            s[hand + goods[j]] += 1
        d = DECK + top
        for j in range(unknown, count):
            s[d] = goods[j]
            d += 1
        for _ in range(camels):
            s[d] = CAMEL
            d += 1
        shuffle(rng, i, s[DECK + top : DECK + DECK_CAP], DECK_CAP - top)
        for kind in range(BONUS_KINDS):
            held = s[BTOKN + opp * BONUS_KINDS + kind]
            taken = BTOK + (opp * BONUS_KINDS + kind) * PILE_CAP
            left = s[PILELEN + kind]
            pile = PILE + (kind + 1) * PILE_CAP - left  # right-aligned, top first
            for j in range(held):
                values[j] = s[taken + j]
            for j in range(left):
                values[held + j] = s[pile + j]
            shuffle(rng, i, values, held + left)
            for j in range(held):
                s[taken + j] = values[j]
            for j in range(left):
                s[pile + j] = values[held + j]
        _refresh_slot(s, i, obs, mask, midx, cand, player, cfg, lut, cand_start, cand_list, give_packed, seq)


# -- kernels: all slots ------------------------------------------------------------------------


@njit(cache=True)
def _step_block(
    lo, hi, actions, state, hist, final, final_hist, rng, obs, mask, midx, cand, player, rewards, done,
    truncated, steps, cfg, lut, cand_start, cand_list, give_packed, seq, ex_take, ex_give,
):
    """Step slots ``lo..hi-1`` in order."""
    for i in range(lo, hi):
        _step_slot(state[i], hist[i], final[i], final_hist[i], i, actions[i], rng, obs, mask, midx, cand,
                   player, rewards, done, truncated, steps, cfg, lut, cand_start, cand_list, give_packed, seq,
                   ex_take, ex_give)


@njit(cache=True)
def _step_one_thread(
    bounds, actions, state, hist, final, final_hist, rng, obs, mask, midx, cand, player, rewards, done,
    truncated, steps, cfg, lut, cand_start, cand_list, give_packed, seq, ex_take, ex_give,
):
    """Step every slot on the calling thread (the arrays borrowed: no reference counting)."""
    _step_block(
        0, state.shape[0],
        *borrow(actions, state, hist, final, final_hist, rng, obs, mask, midx, cand, player, rewards, done,
                truncated, steps, cfg, lut, cand_start, cand_list, give_packed, seq, ex_take, ex_give),
    )


@njit(cache=True, parallel=True)
def _step_threads(
    bounds, actions, state, hist, final, final_hist, rng, obs, mask, midx, cand, player, rewards, done,
    truncated, steps, cfg, lut, cand_start, cand_list, give_packed, seq, ex_take, ex_give,
):
    """Step every slot, chunk ``c`` of ``bounds`` on one thread (the region holds only the
    chunk loop: a parallel region holding the whole step compiles far slower)."""
    for c in prange(bounds.shape[0] - 1):
        _step_block(bounds[c], bounds[c + 1], actions, state, hist, final, final_hist, rng, obs, mask, midx,
                    cand, player, rewards, done, truncated, steps, cfg, lut, cand_start, cand_list,
                    give_packed, seq, ex_take, ex_give)


@njit(cache=True)
def _reset_kernel(
    state, rng, obs, mask, midx, cand, player, cfg, lut, cand_start, cand_list, give_packed, seq
):
    for i in range(state.shape[0]):  # rare: one thread (a parallel kernel costs compile time)
        _new_game(state[i], i, rng)
        _refresh_slot(state[i], i, obs, mask, midx, cand, player, cfg, lut, cand_start, cand_list,
                      give_packed, seq)


class JaipurEngine(BatchedEngine):
    """``num_envs`` Jaipur games stepped together (see the module docstring and ``docs/vector.md``).

    Attributes (beyond :class:`BatchedEngine`'s):
        slots: int32 ``[N, WIDTH]``, one row of rules state per slot (layout: the module's
            field offsets).
        history: int32 ``[N, H, 8]``, the finished rounds of each slot's game.
        legal_count, legal_index: the mask in sparse form, kept up to date by every
            ``reset``/``step``/``load`` (read-only views): the legal actions of slot ``i``
            are ``legal_index[i, :legal_count[i]]`` (int32, in no particular order), so a
            policy over the flat 25,505 actions need not scan the whole mask row.
    """

    env_cls = JaipurEnv
    FINAL_ARRAYS = {"slots": "final_slots", "history": "final_history"}

    def _setup(self) -> None:
        n = self.num_envs
        config = self.config
        self._substeps = config.exchange_encoding == "substeps"
        self._hist_cap = min(config.round_cap, HIST_CAP)
        self.slots = aligned_zeros((n, WIDTH), np.int32)
        self.history = aligned_zeros((n, self._hist_cap, HIST_FIELDS), np.int32)
        self.final_slots = aligned_zeros((n, WIDTH), np.int32)
        self.final_history = aligned_zeros((n, self._hist_cap, HIST_FIELDS), np.int32)
        """Each slot's row and history as its last finished game ended (``final_state``)."""
        mask_cap = self.action_size if self._substeps else EXCHANGE0 + MAX_CANDIDATES
        self._midx = aligned_zeros((n, mask_cap), np.int32)
        self._cand = aligned_zeros((n, MAX_CANDIDATES if self._substeps else 1), np.int32)
        self.legal_index = self._midx.view()
        self.legal_index.flags.writeable = False
        self.legal_count = self.slots[:, MCOUNT]
        self.legal_count.flags.writeable = False
        self._cfg = np.zeros(7, dtype=np.int64)
        self._cfg[C_HIDDEN] = config.hidden_herd
        self._cfg[C_SUBSTEPS] = self._substeps
        self._cfg[C_POINTS] = config.reward == "points"
        self._cfg[C_STANDARD] = config.rounds is None
        self._cfg[C_ROUND_CAP] = config.round_cap
        self._cfg[C_HIST_CAP] = self._hist_cap
        self._cfg[C_MAX_STEPS] = self.max_steps
        self._tables = (MARKET_LUT, CAND_START, CAND_LIST, GIVE_PACKED, SEQ)
        self._use_kernels(_step_one_thread, _step_threads, (
            self.slots, self.history, self.final_slots, self.final_history, self.rng_state, self.obs,
            self.mask, self._midx, self._cand, self.player, self.rewards, self.done, self.truncated,
            self.steps, self._cfg, *self._tables, EX_TAKE, EX_GIVE,
        ))

    def _reset_all(self) -> None:
        _reset_kernel(
            self.slots, self.rng_state, self.obs, self.mask, self._midx, self._cand, self.player, self._cfg,
            *self._tables,
        )

    def _load(self, i: int, state: Any) -> None:
        row = _state_to_row(state, self._hist_cap)
        s = self.slots[i]
        # Keep the mask bookkeeping of the slot: its entries set are cleared by the next write.
        mcount = int(s[MCOUNT])
        s[:] = row[0]
        s[MCOUNT] = mcount
        self.history[i] = row[1]
        self.rewards[i] = 0.0
        self.done[i] = False
        self.truncated[i] = False
        _refresh_slot(
            s, i, self.obs, self.mask, self._midx, self._cand, self.player, self._cfg, *self._tables
        )

    def redeal_hidden(self, slots: Any, seat: int) -> bool:
        """Re-deal the cards and tokens hidden from ``seat`` in ``slots`` from their own
        streams, as ``rules.resample_hidden`` re-deals them (see
        :meth:`BatchedEngine.redeal_hidden`): the opponent's unknown goods, the deck's order
        and the opponent's bonus tokens with the bonus piles.

        Raises:
            ValueError: also for a slot in the middle of an exchange's sub-steps (the
                ``substeps`` encoding): a rules state starts a move.
        """
        slots = self._redeal_slots(slots, seat)
        if slots.size and self.slots[slots, DEPTH].any():
            raise ValueError("redeal_hidden: a slot is in the middle of an exchange's sub-steps")
        _redeal_hidden(
            slots, seat, self.slots, self.rng_state, self.obs, self.mask, self._midx, self._cand, self.player,
            self._cfg, *self._tables,
        )
        return True

    def _write_final_obs(self, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> bool:
        _write_final_obs(self.final_slots, slots, seats, self._cfg, out)
        return True

    def _final_points(self, slots: np.ndarray) -> np.ndarray:
        return self.final_slots[slots, SEALS : SEALS + NUM_PLAYERS].astype(np.int64)  # rules.points: Seals

    def _get_state(self, i: int) -> Any:
        return _row_to_state(self.slots[i], self.history[i], self.config)

    def last_rounds(self, slots: np.ndarray, final: bool = False) -> np.ndarray | None:
        """The record of the last round each slot finished, as ``history`` keeps it (int32
        ``[K, 8]``: rupees of seat 0 and 1, camel token, Seal, bonus and goods token counts of
        seat 0 and 1; ``final``: in the game the slot last finished), or ``None`` when a slot
        has finished no round or more rounds than the engine keeps."""
        rows, history = (self.final_slots, self.final_history) if final else (self.slots, self.history)
        finished = rows[slots, NHIST]
        if finished.size and (finished.min() < 1 or finished.max() > history.shape[1]):
            return None
        return history[slots, finished - 1]

    def final_state(self, i: int) -> Any:
        """The position slot ``i``'s last game ended in (see :meth:`BatchedEngine.final_state`): its
        last round scored, or cut at the turn limit."""
        state = super().final_state(i)
        ended = dataclasses.replace(state, round_over=True)
        return ended if rules.is_terminal(ended) else state

    def slot_nbytes(self) -> int:
        """Bytes of slot state and output buffers per slot."""
        arrays = (
            self.slots, self.history, self._midx, self._cand, self.obs, self.mask, self.player, self.rewards,
            self.done, self.truncated, self.steps, self.rng_state,
        )
        return sum(a.nbytes for a in arrays) // self.num_envs


def _state_to_row(state: rules.State, hist_cap: int) -> tuple[np.ndarray, np.ndarray]:
    """Encode a rules ``State`` (a player to move) as a slot row and its history.

    Raises:
        ValueError: for a state the slot layout cannot hold (not one of a real game).
    """
    if sum(state.market[:NUM_GOODS]) > 5 or len(state.deck) > DECK_CAP:
        raise ValueError("load: the market holds more than 5 goods or the deck more than 52 cards")
    if len(state.history) > hist_cap:
        raise ValueError(
            f"load: the engine keeps at most {hist_cap} finished rounds, got {len(state.history)}"
        )
    # The row as a list first: slice assignments of a list cost far less than of an array.
    s = [0] * WIDTH
    s[PLAYER] = state.player
    s[STARTER] = state.starter
    s[ROUND] = state.round
    s[TURNS] = state.turns
    s[SEALS : SEALS + 2] = state.seals
    s[NHIST] = len(state.history)
    s[LASTSEAL] = state.history[-1].seal if state.history else -1
    s[GAP] = sum(r.rupees[0] - r.rupees[1] for r in state.history)
    s[PAST] = sum(r.rupees[0] for r in state.history)
    s[PAST + 1] = sum(r.rupees[1] for r in state.history)
    s[MARKET : MARKET + NUM_TYPES] = state.market
    for p in range(NUM_PLAYERS):
        s[HANDS + p * NUM_TYPES : HANDS + (p + 1) * NUM_TYPES] = state.hands[p]
        s[KNOWN + p * NUM_TYPES : KNOWN + (p + 1) * NUM_TYPES] = state.known[p]
        s[HERDS + p] = state.herds[p][CAMEL]
    s[DISCARD : DISCARD + NUM_TYPES] = state.discard
    s[DECKPOS] = DECK_CAP - len(state.deck)
    s[DECK + DECK_CAP - len(state.deck) : DECK + DECK_CAP] = state.deck
    for g, stack in enumerate(state.goods_stacks):
        if len(stack) > MAX_STACK:
            raise ValueError("load: a goods stack holds more than 9 tokens")
        s[STACKLEN + g] = len(stack)
        end = STACK + (g + 1) * MAX_STACK
        s[end - len(stack) : end] = stack
    for k, pile in enumerate(state.bonus_piles):
        if len(pile) > PILE_CAP:
            raise ValueError("load: a bonus pile holds more than 7 tokens")
        s[PILELEN + k] = len(pile)
        end = PILE + (k + 1) * PILE_CAP
        s[end - len(pile) : end] = pile
    for p in range(NUM_PLAYERS):
        for g, taken in enumerate(state.goods_tokens[p]):
            slot = p * NUM_GOODS + g
            if len(taken) > MAX_STACK:
                raise ValueError("load: a player holds more than 9 goods tokens of one type")
            s[GTOKN + slot] = len(taken)
            s[GTOK + slot * MAX_STACK : GTOK + slot * MAX_STACK + len(taken)] = taken
            s[GSUM + p] += sum(taken)
        for k, taken in enumerate(state.bonus_tokens[p]):
            slot = p * BONUS_KINDS + k
            if len(taken) > PILE_CAP:
                raise ValueError("load: a player holds more than 7 bonus tokens of one kind")
            s[BTOKN + slot] = len(taken)
            s[BTOK + slot * PILE_CAP : BTOK + slot * PILE_CAP + len(taken)] = taken
    if len(s) != WIDTH:  # a field of the wrong length shifted the ones after it
        raise ValueError("load: a card zone of the state does not have its fixed size")
    hist = np.zeros((hist_cap, HIST_FIELDS), dtype=np.int32)
    for n, r in enumerate(state.history):
        hist[n] = (*r.rupees, r.camel_token, r.seal, *r.bonus_counts, *r.goods_counts)
    return np.array(s, dtype=np.int32), hist


def _row_to_state(s: np.ndarray, hist: np.ndarray, config: rules.Config) -> rules.State:
    """Decode a slot row as the rules ``State`` at the start of the current move.

    Raises:
        ValueError: when the game has more finished rounds than the history array keeps.
    """
    row = s.tolist()
    nhist = row[NHIST]
    if nhist > hist.shape[0]:
        raise ValueError(
            f"state: this slot's game has {nhist} finished rounds, more than the {hist.shape[0]} kept"
        )
    history = tuple(
        rules.RoundResult((r[0], r[1]), r[2], r[3], (r[4], r[5]), (r[6], r[7])) for r in hist[:nhist].tolist()
    )

    def counts(start: int) -> tuple[int, ...]:
        return tuple(row[start : start + NUM_TYPES])

    def herd(p: int) -> tuple[int, ...]:
        return (0,) * CAMEL + (row[HERDS + p],)

    stacks = tuple(
        tuple(row[STACK + (g + 1) * MAX_STACK - row[STACKLEN + g] : STACK + (g + 1) * MAX_STACK])
        for g in range(NUM_GOODS)
    )
    piles = tuple(
        tuple(row[PILE + (k + 1) * PILE_CAP - row[PILELEN + k] : PILE + (k + 1) * PILE_CAP])
        for k in range(BONUS_KINDS)
    )
    goods_tokens = tuple(
        tuple(
            tuple(row[GTOK + (p * NUM_GOODS + g) * MAX_STACK : GTOK + (p * NUM_GOODS + g) * MAX_STACK
                      + row[GTOKN + p * NUM_GOODS + g]])
            for g in range(NUM_GOODS)
        )
        for p in range(NUM_PLAYERS)
    )
    bonus_tokens = tuple(
        tuple(
            tuple(row[BTOK + (p * BONUS_KINDS + k) * PILE_CAP : BTOK + (p * BONUS_KINDS + k) * PILE_CAP
                      + row[BTOKN + p * BONUS_KINDS + k]])
            for k in range(BONUS_KINDS)
        )
        for p in range(NUM_PLAYERS)
    )
    return rules.State(
        config=config,
        player=row[PLAYER],
        starter=row[STARTER],
        round=row[ROUND],
        deck=tuple(row[DECK + row[DECKPOS] : DECK + DECK_CAP]),
        market=counts(MARKET),
        hands=(counts(HANDS), counts(HANDS + NUM_TYPES)),
        herds=(herd(0), herd(1)),
        discard=counts(DISCARD),
        goods_stacks=stacks,
        bonus_piles=piles,
        goods_tokens=goods_tokens,
        bonus_tokens=bonus_tokens,
        known=(counts(KNOWN), counts(KNOWN + NUM_TYPES)),
        seals=(row[SEALS], row[SEALS + 1]),
        history=history,
        turns=row[TURNS],
    )


__all__ = ["JaipurEngine"]
