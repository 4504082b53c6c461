"""Haggle's batched engine: the turn-based trading protocol, scoring and observation in Numba.

The reference is :mod:`cardgames_env.envs.haggle.rules` (and ``scoring``/``encoding``); the
kernels below restate them for one slot at a time, and ``tests/haggle/test_haggle_kernel.py``
holds the two together move by move.

A slot is one int64 row of :data:`HaggleEngine.slots`; its fields sit at the offsets of
:class:`_Layout` (scalars first, then the per-seat and per-pair tables of the rules
``State``). The 13-card cap draw (rule S12) and the deals come from the slot's own
random stream.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import get_thread_id, njit, prange

from cardgames_env.core.engine import BatchedEngine
from cardgames_env.core.kernel_rng import below, shuffle
from cardgames_env.core.threads import aligned_zeros, borrow, max_kernel_threads
from cardgames_env.envs.haggle import rules
from cardgames_env.envs.haggle.cards import HAND_SIZE, NUM_COLOURS, NUM_MODIFIERS
from cardgames_env.envs.haggle.env import HaggleEnv
from cardgames_env.envs.haggle.rules import MAX_PLAYERS, Stage, State
from cardgames_env.envs.haggle.scoring import CARD_LIMIT, ELIMINATION_COUNT

# Scalar fields of a slot row.
STAGE, ROUND, PROPOSER, PASSES, TARGET, SHOW, REQUEST, SUBMIT_COLOUR = range(8)
NUM_SCALARS = 8

# Indices into the int64 parameter vector handed to the kernels.
(
    P_N, P_T, P_M, P_SUBMISSION, P_MARGIN, P_IN_GLOBALS, P_CASCADE, P_YELLOW_MIN, P_HAS_PENALTY,
    P_PENALTY, P_PYRAMID_FINAL, P_COPIES, P_MAX_STEPS,
    # slot-row offsets
    P_HANDS, P_RULES, P_GIVE, P_ASK, P_SHOWN, P_TRADES, P_FLOWS, P_PARTNER, P_RECEIVED, P_SUBMITTED,
    P_WIDTH,
    # action offsets
    A_TARGET, A_GIVE, A_ASK, A_TERMS, A_REJECT, A_ACCEPT, A_ACCEPT_SHOW, A_SUBMIT,
    # observation offsets
    O_HAND, O_MY_RULES, O_SHOWN_TO_ME, O_SHOWN_BY_ME, O_HAND_SIZES, O_STAGE, O_PROPOSER, O_ROUND,
    O_PASSES, O_OFFER_TARGET, O_OFFER_GIVE, O_OFFER_ASK, O_OFFER_TERMS, O_TRADES, O_GAVE, O_RECEIVED,
    O_SUBMITTED, O_SUBMIT_COLOUR,
    NUM_PARAMS,
) = range(51)

_OBS_PIECES = (
    "hand", "my_rules", "shown_to_me", "shown_by_me", "hand_sizes", "stage", "proposer", "round",
    "passes", "offer_target", "offer_give", "offer_ask", "offer_terms", "trades", "gave", "received",
    "submitted", "submit_colour",
)
_ACTION_FAMILIES = ("target", "give", "ask", "terms", "reject", "accept", "accept_show", "submit")

# Work space of a deal and of the scoring (one row per thread, int64): offsets of its pieces
# for the largest game (MAX_PLAYERS players, two copies of each rule card).
_W_CARDS = 0  # the cards of a deal (2N of each colour), then of a hand being capped
_W_POOL = _W_CARDS + NUM_COLOURS * 2 * MAX_PLAYERS  # the rule cards of a deal
_W_HANDED = _W_POOL + NUM_MODIFIERS * 2  # N x 5: the handed-in counts
_W_SCORED = _W_HANDED + MAX_PLAYERS * NUM_COLOURS  # N x 5: the counts after the 13-card cap
_W_ELIMINATED = _W_SCORED + MAX_PLAYERS * NUM_COLOURS
_W_SUBTOTAL = _W_ELIMINATED + MAX_PLAYERS
_W_IN_FIELD = _W_SUBTOTAL + MAX_PLAYERS
_W_CROSS = _W_IN_FIELD + MAX_PLAYERS
_W_CULPRITS = _W_CROSS + MAX_PLAYERS
_W_COLUMN = _W_CULPRITS + MAX_PLAYERS  # one colour's column (yellows, then reds)
_W_VALUES = _W_COLUMN + MAX_PLAYERS
WORK_SIZE = -(-(_W_VALUES + MAX_PLAYERS) // 8) * 8
"""int64 entries of one thread's work space (whole cache lines, so threads never share one)."""


class _Layout:
    """Offsets of the fields of a slot row for ``n`` players."""

    def __init__(self, n: int):
        self.hands = NUM_SCALARS
        self.rules = self.hands + n * NUM_COLOURS
        self.give = self.rules + 2 * n
        self.ask = self.give + NUM_COLOURS
        self.shown = self.ask + NUM_COLOURS
        self.trades = self.shown + n * n
        self.flows = self.trades + n * n
        self.partner = self.flows + n * n * NUM_COLOURS
        self.received = self.partner + n
        self.submitted = self.received + n * NUM_COLOURS
        self.width = self.submitted + n * NUM_COLOURS


# --- kernels ---------------------------------------------------------------------------------
@njit(cache=True)
def _fits(row: np.ndarray, cards_at: int, hand_at: int) -> bool:
    """Whether the 5 counts at ``cards_at`` fit in the hand at ``hand_at`` (same row)."""
    for c in range(NUM_COLOURS):
        if row[cards_at + c] > row[hand_at + c]:
            return False
    return True


@njit(cache=True)
def _offer_fits(offers: np.ndarray, j: int, row: np.ndarray, hand_at: int) -> bool:
    for c in range(NUM_COLOURS):
        if offers[j, c] > row[hand_at + c]:
            return False
    return True


@njit(cache=True)
def _deal(row: np.ndarray, prm: np.ndarray, rng_state: np.ndarray, i: int, work: np.ndarray) -> None:
    """Rules ``sample_deal`` + ``new_game``: 2N cards of each colour, 10 each; two different
    rule cards each from ``rule_copies`` copies of the 12 (docs/rules/haggle.md, "The game in the env").
    ``work``: the calling thread's work space (:data:`WORK_SIZE` entries)."""
    n = prm[P_N]
    row[:] = 0
    row[TARGET] = -1
    row[SHOW] = -1
    deck = work[_W_CARDS : _W_CARDS + NUM_COLOURS * 2 * n]
    for k in range(deck.size):
        deck[k] = k // (2 * n)
    shuffle(rng_state, i, deck, deck.size)
    for p in range(n):
        for k in range(HAND_SIZE):
            row[prm[P_HANDS] + p * NUM_COLOURS + deck[p * HAND_SIZE + k]] += 1
    copies = prm[P_COPIES]
    pool = work[_W_POOL : _W_POOL + NUM_MODIFIERS * copies]
    for k in range(pool.size):
        pool[k] = k // copies
    while True:  # two different rule cards each (a retry only when there are two copies)
        shuffle(rng_state, i, pool, pool.size)
        ok = True
        for p in range(n):
            if pool[2 * p] == pool[2 * p + 1]:
                ok = False
        if ok:
            break
    for p in range(n):
        a, b = pool[2 * p], pool[2 * p + 1]
        row[prm[P_RULES] + 2 * p] = min(a, b)
        row[prm[P_RULES] + 2 * p + 1] = max(a, b)
    for p in range(n):
        row[prm[P_PARTNER] + p] = -1


@njit(cache=True)
def _next_turn(row: np.ndarray, prm: np.ndarray, passes: int) -> None:
    """Rules ``_next_turn``: clear the offer, next proposer; trading ends after T rounds or N
    passes in a row (then submission or scoring)."""
    n = prm[P_N]
    proposer, round_ = row[PROPOSER] + 1, row[ROUND]
    if proposer == n:
        proposer, round_ = 0, round_ + 1
    row[PASSES] = passes
    row[TARGET] = -1
    row[SHOW] = -1
    row[REQUEST] = 0
    for c in range(NUM_COLOURS):
        row[prm[P_GIVE] + c] = 0
        row[prm[P_ASK] + c] = 0
    if not (passes >= n or round_ >= prm[P_T]):
        row[STAGE] = Stage.PROPOSE
        row[PROPOSER] = proposer
        row[ROUND] = round_
        return
    row[ROUND] = prm[P_T]
    row[PROPOSER] = 0
    if prm[P_SUBMISSION]:
        row[STAGE] = Stage.SUBMIT
        row[SUBMIT_COLOUR] = 0
    else:
        row[STAGE] = Stage.SCORE


@njit(cache=True)
def _trade(row: np.ndarray, prm: np.ndarray, accept_show: int) -> None:
    """Rules ``_trade``: move the offered cards, record shown rule cards, trades and flows."""
    n = prm[P_N]
    p, t = row[PROPOSER], row[TARGET]
    hands, give, ask, flows = prm[P_HANDS], prm[P_GIVE], prm[P_ASK], prm[P_FLOWS]
    for c in range(NUM_COLOURS):
        g, a = row[give + c], row[ask + c]
        row[hands + p * NUM_COLOURS + c] += a - g
        row[hands + t * NUM_COLOURS + c] += g - a
        row[flows + (p * n + t) * NUM_COLOURS + c] += g
        row[flows + (t * n + p) * NUM_COLOURS + c] += a
        row[prm[P_RECEIVED] + p * NUM_COLOURS + c] = a
        row[prm[P_RECEIVED] + t * NUM_COLOURS + c] = g
    if row[SHOW] >= 0:
        row[prm[P_SHOWN] + t * n + p] |= 1 << row[SHOW]
    if accept_show >= 0:
        row[prm[P_SHOWN] + p * n + t] |= 1 << accept_show
    row[prm[P_TRADES] + p * n + t] += 1
    row[prm[P_PARTNER] + p] = t
    row[prm[P_PARTNER] + t] = p


@njit(cache=True)
def _apply(row: np.ndarray, prm: np.ndarray, offers: np.ndarray, action: int) -> None:
    """Apply one legal action (rules ``apply_move`` through the encoding's ``decode``)."""
    n = prm[P_N]
    if action == 0:  # pass
        _next_turn(row, prm, row[PASSES] + 1)
    elif action < prm[A_GIVE]:  # target: the k-th player after the proposer
        row[TARGET] = (row[PROPOSER] + action - prm[A_TARGET] + 1) % n
        row[STAGE] = Stage.GIVE
    elif action < prm[A_ASK]:
        j = action - prm[A_GIVE]
        for c in range(NUM_COLOURS):
            row[prm[P_GIVE] + c] = offers[j, c]
        row[STAGE] = Stage.ASK
    elif action < prm[A_TERMS]:
        j = action - prm[A_ASK]
        for c in range(NUM_COLOURS):
            row[prm[P_ASK] + c] = offers[j, c]
        row[STAGE] = Stage.TERMS
    elif action < prm[A_REJECT]:  # terms: 2 x (shown rule + 1) + request
        k = action - prm[A_TERMS]
        row[SHOW] = k // 2 - 1
        row[REQUEST] = k % 2
        row[STAGE] = Stage.RESPOND
    elif action == prm[A_REJECT]:
        _next_turn(row, prm, 0)
    elif action == prm[A_ACCEPT]:
        _trade(row, prm, -1)
        _next_turn(row, prm, 0)
    elif action < prm[A_ACCEPT_SHOW] + NUM_MODIFIERS:
        _trade(row, prm, action - prm[A_ACCEPT_SHOW])
        _next_turn(row, prm, 0)
    else:  # submit: hand in ``count`` cards of the colour being submitted (variant A8)
        seat, colour = row[PROPOSER], row[SUBMIT_COLOUR]
        row[prm[P_SUBMITTED] + seat * NUM_COLOURS + colour] = action - prm[A_SUBMIT]
        if colour + 1 < NUM_COLOURS:
            row[SUBMIT_COLOUR] = colour + 1
        else:
            row[SUBMIT_COLOUR] = 0
            if seat + 1 < n:
                row[PROPOSER] = seat + 1
            else:
                row[STAGE] = Stage.SCORE


@njit(cache=True)
def _mover(row: np.ndarray) -> int:
    """Rules ``current_player`` of a state in trading or submission."""
    return row[TARGET] if row[STAGE] == Stage.RESPOND else row[PROPOSER]


@njit(cache=True)
def _unique_winner(values: np.ndarray, in_field: np.ndarray, cascade_depth: int, minimum: int) -> int:
    """Scoring ``_unique_winner`` over the distinct values in decreasing order (at most
    ``cascade_depth`` of them): the single holder of the first such value, or -1."""
    n = values.size
    previous = 1 << 30
    for _ in range(cascade_depth):
        value = -1
        for p in range(n):  # the next distinct value below ``previous``
            if in_field[p] and values[p] < previous and values[p] > value:
                value = values[p]
        if value < 0:
            return -1
        if value < minimum:
            return -1
        holder, holders = -1, 0
        for p in range(n):
            if in_field[p] and values[p] == value:
                holder = p
                holders += 1
        if holders == 1:
            return holder
        previous = value
    return -1


@njit(cache=True)
def cap_hand(hand: np.ndarray, rng_state: np.ndarray, i: int, cards: np.ndarray, kept: np.ndarray) -> None:
    """Rule S12: write into ``kept`` a uniformly random 13-card subset of ``hand``
    (decision A7; a hand of 13 cards or fewer is kept whole and draws nothing).

    ``cards`` is scratch space of at least ``sum(hand)`` entries.
    """
    total = 0
    for c in range(NUM_COLOURS):
        kept[c] = hand[c]
        total += hand[c]
    if total <= CARD_LIMIT:
        return
    k = 0
    for c in range(NUM_COLOURS):
        for _ in range(hand[c]):
            cards[k] = c
            k += 1
    for j in range(CARD_LIMIT):  # partial Fisher-Yates: the first 13 cards are kept
        r = j + below(rng_state, i, total - j)
        tmp = cards[j]
        cards[j] = cards[r]
        cards[r] = tmp
    kept[:] = 0
    for j in range(CARD_LIMIT):
        kept[cards[j]] += 1


@njit(cache=True)
def _score(
    row: np.ndarray, prm: np.ndarray, rng_state: np.ndarray, i: int, out: np.ndarray, work: np.ndarray
) -> None:
    """The scoring chance node and ``returns``: the 13-card cap (rule S12), then
    ``scoring.score_counts`` with all 12 modifiers, then the reward formula, into ``out``.
    ``work``: the calling thread's work space (:data:`WORK_SIZE` entries)."""
    n = prm[P_N]
    handed_at = prm[P_SUBMITTED] if prm[P_SUBMISSION] else prm[P_HANDS]
    handed = work[_W_HANDED : _W_HANDED + n * NUM_COLOURS].reshape((n, NUM_COLOURS))
    scored = work[_W_SCORED : _W_SCORED + n * NUM_COLOURS].reshape((n, NUM_COLOURS))
    cards = work[_W_CARDS : _W_CARDS + NUM_COLOURS * 2 * n]
    for p in range(n):  # step 1, in seat order
        for c in range(NUM_COLOURS):
            handed[p, c] = row[handed_at + p * NUM_COLOURS + c]
        cap_hand(handed[p], rng_state, i, cards, scored[p])
    has_penalty, penalty = prm[P_HAS_PENALTY], prm[P_PENALTY]
    eliminated = work[_W_ELIMINATED : _W_ELIMINATED + n]  # 0/1 flags
    subtotal = work[_W_SUBTOTAL : _W_SUBTOTAL + n]
    for p in range(n):
        y, b, r, o, w = scored[p, 0], scored[p, 1], scored[p, 2], scored[p, 3], scored[p, 4]
        big = 0
        for c in range(NUM_COLOURS):
            if handed[p, c] >= ELIMINATION_COUNT:
                big += 1
        eliminated[p] = 1 if not has_penalty and big > 0 else 0  # modifier 6
        white_value = 0 if w > 3 else 5  # modifier 1
        orange = min(o, b)  # modifier 2
        total = y * 1 + b * 2 + r * 3 + orange * 4 + w * white_value
        total += 10 * min(min(y, b), min(min(r, o), w))  # modifier 7
        total += white_value * min(y // 2, w)  # modifier 10
        total += 3 * 4 * min(b // 3, orange)  # modifier 11
        if has_penalty:
            total += penalty * big
        subtotal[p] = total
    in_field = work[_W_IN_FIELD : _W_IN_FIELD + n]  # 0/1 flags
    for p in range(n):  # decision A6
        in_field[p] = 1 if prm[P_IN_GLOBALS] != 0 or not eliminated[p] else 0
    cross = work[_W_CROSS : _W_CROSS + n]
    culprits = work[_W_CULPRITS : _W_CULPRITS + n]  # 0/1 flags
    for p in range(n):  # modifier 3
        cross[p] = 0
        culprits[p] = 1 if in_field[p] and scored[p, 1] >= 5 else 0
    for p in range(n):
        hits = 0
        for q in range(n):
            if culprits[q] and q != p:
                hits += 1
        protection = scored[p, 2] // 3  # modifier 4
        cross[p] -= 10 * max(0, hits - protection)
    yellows = work[_W_COLUMN : _W_COLUMN + n]
    for p in range(n):
        yellows[p] = scored[p, 0]
    winner = _unique_winner(yellows, in_field, n if prm[P_CASCADE] else 2, prm[P_YELLOW_MIN])  # modifier 5
    if winner >= 0:
        cross[winner] += scored[winner, 0] ** 2
    reds = yellows  # modifier 5 is decided: its column is free again
    for p in range(n):
        reds[p] = scored[p, 2]
    winner = _unique_winner(reds, in_field, 1, 1)  # modifier 9
    if winner >= 0:
        cross[winner] += 3 * scored[winner, 2]
    values = work[_W_VALUES : _W_VALUES + n]
    lowest, alive = 0, 0
    for p in range(n):
        values[p] = 0
        if eliminated[p]:
            continue
        seen = 0  # modifier 8: the five counts are 0, 1, 2, 3, 4 in some order
        for c in range(NUM_COLOURS):
            if handed[p, c] < NUM_COLOURS:
                seen |= 1 << handed[p, c]
        pyramid = seen == (1 << NUM_COLOURS) - 1
        if not pyramid:
            values[p] = subtotal[p] + cross[p]
        elif prm[P_PYRAMID_FINAL]:
            values[p] = 2 * (subtotal[p] + cross[p])
        else:
            values[p] = 2 * subtotal[p] + cross[p]
        if alive == 0 or values[p] < lowest:
            lowest = values[p]
        alive += 1
    floor = (lowest if alive else 0) - prm[P_MARGIN]  # rules ``reward_scores``
    total = 0
    for p in range(n):
        if eliminated[p]:
            values[p] = floor
        total += values[p]
    for p in range(n):  # rules ``returns``, in float64 like the reference
        out[p] = np.float32((values[p] - (total - values[p]) / (n - 1)) / 10)


@njit(cache=True)
def _write_obs(row: np.ndarray, prm: np.ndarray, scale: np.ndarray, obs: np.ndarray, player: int) -> None:
    """Write seat ``player``'s observation of ``row`` (``encoding.observe``; a finished game's
    too: past the submission stage no stage and proposer are shown)."""
    n = prm[P_N]
    stage = row[STAGE]
    obs[:] = 0.0
    hands = prm[P_HANDS]
    for c in range(NUM_COLOURS):
        obs[prm[O_HAND] + c] = np.float32(row[hands + player * NUM_COLOURS + c]) * scale[prm[O_HAND] + c]
    obs[prm[O_MY_RULES] + row[prm[P_RULES] + 2 * player]] = 1.0
    obs[prm[O_MY_RULES] + row[prm[P_RULES] + 2 * player + 1]] = 1.0
    for k in range(1, n):
        s = (player + k) % n
        to_me = row[prm[P_SHOWN] + player * n + s]
        by_me = row[prm[P_SHOWN] + s * n + player]
        for bit in range(NUM_MODIFIERS):
            if to_me >> bit & 1:
                obs[prm[O_SHOWN_TO_ME] + (k - 1) * NUM_MODIFIERS + bit] = 1.0
            if by_me >> bit & 1:
                obs[prm[O_SHOWN_BY_ME] + (k - 1) * NUM_MODIFIERS + bit] = 1.0
        for c in range(NUM_COLOURS):
            at = (k - 1) * NUM_COLOURS + c
            gave = row[prm[P_FLOWS] + (player * n + s) * NUM_COLOURS + c]
            got = row[prm[P_FLOWS] + (s * n + player) * NUM_COLOURS + c]
            obs[prm[O_GAVE] + at] = np.float32(gave) * scale[prm[O_GAVE] + at]
            obs[prm[O_RECEIVED] + at] = np.float32(got) * scale[prm[O_RECEIVED] + at]
    for k in range(n):
        s = (player + k) % n
        size = 0
        for c in range(NUM_COLOURS):
            size += row[hands + s * NUM_COLOURS + c]
        obs[prm[O_HAND_SIZES] + k] = np.float32(size) * scale[prm[O_HAND_SIZES] + k]
        for k2 in range(n):
            s2 = (player + k2) % n
            at = prm[O_TRADES] + k * n + k2
            obs[at] = np.float32(row[prm[P_TRADES] + s * n + s2]) * scale[at]
    if stage <= Stage.SUBMIT:
        obs[prm[O_STAGE] + stage] = 1.0
        obs[prm[O_PROPOSER] + (row[PROPOSER] - player) % n] = 1.0
    if row[ROUND] < prm[P_T]:
        obs[prm[O_ROUND] + row[ROUND]] = 1.0
    obs[prm[O_PASSES]] = np.float32(row[PASSES] / n) * scale[prm[O_PASSES]]
    proposer, target = row[PROPOSER], row[TARGET]
    if target >= 0 and (stage == Stage.RESPOND or player == proposer):
        obs[prm[O_OFFER_TARGET] + (target - player) % n] = 1.0
        if player == proposer or player == target:
            for c in range(NUM_COLOURS):
                at = prm[O_OFFER_GIVE] + c
                obs[at] = np.float32(row[prm[P_GIVE] + c]) * scale[at]
                at = prm[O_OFFER_ASK] + c
                obs[at] = np.float32(row[prm[P_ASK] + c]) * scale[at]
            if stage == Stage.RESPOND:
                obs[prm[O_OFFER_TERMS]] = 1.0 if row[SHOW] >= 0 else 0.0
                obs[prm[O_OFFER_TERMS] + 1] = 1.0 if row[REQUEST] else 0.0
    if prm[P_SUBMISSION]:
        for c in range(NUM_COLOURS):
            at = prm[O_SUBMITTED] + c
            obs[at] = np.float32(row[prm[P_SUBMITTED] + player * NUM_COLOURS + c]) * scale[at]
        if stage == Stage.SUBMIT:
            obs[prm[O_SUBMIT_COLOUR] + row[SUBMIT_COLOUR]] = 1.0


@njit(cache=True)
def _write_outputs(
    row: np.ndarray, prm: np.ndarray, offers: np.ndarray, scale: np.ndarray,
    obs: np.ndarray, mask: np.ndarray,
) -> int:
    """Write the mover's observation (``encoding.observe``) and mask; return the mover."""
    stage = row[STAGE]
    player = _mover(row)
    _write_obs(row, prm, scale, obs, player)
    mask[:] = False
    hands = prm[P_HANDS]
    proposer, target = row[PROPOSER], row[TARGET]
    # The mask: rules ``legal_moves`` through the encoding's action table.
    if stage == Stage.PROPOSE:
        for a in range(prm[A_GIVE]):  # pass and every target
            mask[a] = True
    elif stage == Stage.GIVE:
        for j in range(prm[P_M]):
            mask[prm[A_GIVE] + j] = _offer_fits(offers, j, row, hands + proposer * NUM_COLOURS)
    elif stage == Stage.ASK:
        for j in range(prm[P_M]):
            mask[prm[A_ASK] + j] = True
    elif stage == Stage.TERMS:
        empty = True
        for c in range(NUM_COLOURS):
            if row[prm[P_GIVE] + c] or row[prm[P_ASK] + c]:
                empty = False
        for choice in range(3):  # show nothing, or one of the proposer's two rule cards
            show = -1 if choice == 0 else row[prm[P_RULES] + 2 * proposer + choice - 1]
            for request in range(2):
                if not (empty and show < 0 and request == 0):  # the offer may not be empty
                    mask[prm[A_TERMS] + 2 * (show + 1) + request] = True
    elif stage == Stage.RESPOND:
        mask[prm[A_REJECT]] = True
        if _fits(row, prm[P_ASK], hands + target * NUM_COLOURS):
            if row[REQUEST]:
                mask[prm[A_ACCEPT_SHOW] + row[prm[P_RULES] + 2 * target]] = True
                mask[prm[A_ACCEPT_SHOW] + row[prm[P_RULES] + 2 * target + 1]] = True
            else:
                mask[prm[A_ACCEPT]] = True
    else:  # submit 0..held cards of the colour
        held = row[hands + proposer * NUM_COLOURS + row[SUBMIT_COLOUR]]
        for count in range(held + 1):
            mask[prm[A_SUBMIT] + count] = True
    return player


@njit(cache=True)
def _step_slot(
    i: int, action: int, slots: np.ndarray, final: np.ndarray, prm: np.ndarray, offers: np.ndarray,
    scale: np.ndarray,
    rng_state: np.ndarray, steps: np.ndarray, obs: np.ndarray, mask: np.ndarray, player: np.ndarray,
    rewards: np.ndarray, done: np.ndarray, truncated: np.ndarray, work: np.ndarray,
) -> None:
    row = slots[i]
    rewards[i, :] = 0.0
    done[i] = False
    truncated[i] = False
    if action < 0:  # engine.STAY: this slot sits the step out
        return
    _apply(row, prm, offers, action)
    steps[i] += 1
    if row[STAGE] == Stage.SCORE:
        _score(row, prm, rng_state, i, rewards[i], work)
        done[i] = True
    elif steps[i] >= prm[P_MAX_STEPS]:
        done[i] = True
        truncated[i] = True
    if done[i]:
        final[i, :] = row  # the finished game, for ``final_state``
        _deal(row, prm, rng_state, i, work)
        steps[i] = 0
    player[i] = _write_outputs(row, prm, offers, scale, obs[i], mask[i])


@njit(cache=True)
def _step_block(
    lo: int, hi: int, actions: np.ndarray, slots: np.ndarray, final: np.ndarray, prm: np.ndarray,
    offers: np.ndarray, scale: np.ndarray, rng_state: np.ndarray, steps: np.ndarray, obs: np.ndarray,
    mask: np.ndarray, player: np.ndarray, rewards: np.ndarray, done: np.ndarray, truncated: np.ndarray,
    work: np.ndarray,
) -> None:
    """Step slots ``lo..hi-1`` in order with work space ``work``."""
    for i in range(lo, hi):
        _step_slot(
            i, actions[i], slots, final, prm, offers, scale, rng_state, steps, obs, mask, player, rewards,
            done, truncated, work,
        )


@njit(cache=True, parallel=True)
def _step_threads(
    bounds: np.ndarray, actions: np.ndarray, slots: np.ndarray, final: np.ndarray, prm: np.ndarray,
    offers: np.ndarray, scale: np.ndarray, rng_state: np.ndarray, steps: np.ndarray, obs: np.ndarray,
    mask: np.ndarray, player: np.ndarray, rewards: np.ndarray, done: np.ndarray, truncated: np.ndarray,
    work: np.ndarray,
) -> None:
    """Step every slot, chunk ``c`` of ``bounds`` on one thread, which works in its own row of
    ``work`` (one per thread, whatever the number of chunks). The slot loop sits in the parallel
    region itself, where the arrays are known not to overlap."""
    for c in prange(bounds.shape[0] - 1):
        own = work[get_thread_id()]
        for i in range(bounds[c], bounds[c + 1]):
            _step_slot(
                i, actions[i], slots, final, prm, offers, scale, rng_state, steps, obs, mask, player, rewards,
                done, truncated, own,
            )


@njit(cache=True)
def _step_one_thread(
    bounds: np.ndarray, actions: np.ndarray, slots: np.ndarray, final: np.ndarray, prm: np.ndarray,
    offers: np.ndarray, scale: np.ndarray, rng_state: np.ndarray, steps: np.ndarray, obs: np.ndarray,
    mask: np.ndarray, player: np.ndarray, rewards: np.ndarray, done: np.ndarray, truncated: np.ndarray,
    work: np.ndarray,
) -> None:
    """Step every slot on the calling thread (the arrays borrowed: no reference counting)."""
    _step_block(
        0, slots.shape[0],
        *borrow(actions, slots, final, prm, offers, scale, rng_state, steps, obs, mask, player, rewards, done,
                truncated, work[0]),
    )


@njit(cache=True)
def _reset_all(
    slots: np.ndarray, prm: np.ndarray, offers: np.ndarray, scale: np.ndarray, rng_state: np.ndarray,
    obs: np.ndarray, mask: np.ndarray, player: np.ndarray, work: np.ndarray,
) -> None:
    for i in range(slots.shape[0]):
        _deal(slots[i], prm, rng_state, i, work)
        player[i] = _write_outputs(slots[i], prm, offers, scale, obs[i], mask[i])


@njit(cache=True)
def _write_final_obs(
    final: np.ndarray, slots: np.ndarray, seats: np.ndarray, prm: np.ndarray, scale: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[k]``: seat ``seats[k]``'s observation of the finished game in ``final[slots[k]]``."""
    for k in range(slots.shape[0]):
        _write_obs(final[slots[k]], prm, scale, out[k], seats[k])


@njit(cache=True)
def _refresh(
    i: int, slots: np.ndarray, prm: np.ndarray, offers: np.ndarray, scale: np.ndarray,
    obs: np.ndarray, mask: np.ndarray, player: np.ndarray,
) -> None:
    player[i] = _write_outputs(slots[i], prm, offers, scale, obs[i], mask[i])


class HaggleEngine(BatchedEngine):
    """Haggle's batched engine (see the module docstring and :mod:`.base`)."""

    env_cls = HaggleEnv

    def _setup(self) -> None:
        config = self.config
        n = config.num_players
        lay = self._layout = _Layout(n)
        sconf = config.scoring
        prm = np.zeros(NUM_PARAMS, dtype=np.int64)
        prm[P_N], prm[P_T] = n, config.trading_rounds
        self.offers = np.array(rules.offer_sets(config.max_offer), dtype=np.int64)
        prm[P_M] = len(self.offers)
        prm[P_SUBMISSION] = config.submission_phase
        prm[P_MARGIN] = config.eliminated_margin
        prm[P_IN_GLOBALS] = sconf.eliminated_in_globals
        prm[P_CASCADE] = sconf.yellow_cascade
        prm[P_YELLOW_MIN] = sconf.yellow_min_count
        prm[P_HAS_PENALTY] = sconf.elimination_penalty is not None
        prm[P_PENALTY] = sconf.elimination_penalty or 0
        prm[P_PYRAMID_FINAL] = sconf.pyramid_final
        prm[P_COPIES] = config.rule_copies
        prm[P_MAX_STEPS] = self.max_steps
        prm[P_HANDS], prm[P_RULES], prm[P_GIVE], prm[P_ASK] = lay.hands, lay.rules, lay.give, lay.ask
        prm[P_SHOWN], prm[P_TRADES], prm[P_FLOWS] = lay.shown, lay.trades, lay.flows
        prm[P_PARTNER], prm[P_RECEIVED], prm[P_SUBMITTED] = lay.partner, lay.received, lay.submitted
        prm[P_WIDTH] = lay.width
        table = self.encoding.actions
        for index, family in zip(range(A_TARGET, A_SUBMIT + 1), _ACTION_FAMILIES):
            prm[index] = table.offset(family) if family != "submit" or config.submission_phase else -1
        layout = self.encoding.layout
        for index, piece in zip(range(O_HAND, O_SUBMIT_COLOUR + 1), _OBS_PIECES):
            prm[index] = layout.slice(piece).start
        self.params = prm
        self.scale = np.asarray(self.encoding._scale, dtype=np.float32)
        self.slots = aligned_zeros((self.num_envs, lay.width), np.int64)
        self.final_slots = aligned_zeros(self.slots.shape, np.int64)
        """Each slot's row as its last finished game ended (``final_state``)."""
        self._work = aligned_zeros((max_kernel_threads(), WORK_SIZE), np.int64)
        """Work space of the deals and the scoring, one row per thread."""
        self._use_kernels(_step_one_thread, _step_threads, (
            self.slots, self.final_slots, self.params, self.offers, self.scale, self.rng_state, self.steps,
            self.obs, self.mask, self.player, self.rewards, self.done, self.truncated, self._work,
        ))

    def _reset_all(self) -> None:
        _reset_all(self.slots, self.params, self.offers, self.scale, self.rng_state, self.obs, self.mask,
                   self.player, self._work[0])

    def _load(self, i: int, state: Any) -> None:
        stage = int(state.stage)
        if stage in (Stage.SCORE, Stage.DONE):
            raise ValueError("load needs a state in trading or submission")
        # The row's fields in layout order (scalars in the order of their indices).
        row = [stage, state.round, state.proposer, state.passes, state.target, state.show,
               int(state.request), state.submit_colour]
        for hand in state.hands:
            row += hand
        for pair in state.rules:
            row += pair
        row += state.give
        row += state.ask
        row += state.shown
        row += state.trades
        for flow in state.flows:
            row += flow
        row += state.last_partner
        for received in state.last_received:
            row += received
        for submitted in state.submitted:
            row += submitted
        self.slots[i] = row
        _refresh(i, self.slots, self.params, self.offers, self.scale, self.obs, self.mask, self.player)

    def _write_final_obs(self, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> bool:
        _write_final_obs(self.final_slots, slots, seats, self.params, self.scale, out)
        return True

    def _get_state(self, i: int) -> State:
        n, lay = self.config.num_players, self._layout
        row: list[int] = self.slots[i].tolist()

        def counts(at: int, count: int) -> tuple[tuple[int, ...], ...]:
            return tuple(tuple(row[at + k * NUM_COLOURS : at + (k + 1) * NUM_COLOURS]) for k in range(count))

        return State(
            config=self.config,
            hands=counts(lay.hands, n),  # type: ignore[arg-type]
            rules=tuple((row[lay.rules + 2 * p], row[lay.rules + 2 * p + 1]) for p in range(n)),
            stage=Stage(row[STAGE]),
            round=row[ROUND],
            proposer=row[PROPOSER],
            passes=row[PASSES],
            target=row[TARGET],
            give=tuple(row[lay.give : lay.ask]),  # type: ignore[arg-type]
            ask=tuple(row[lay.ask : lay.shown]),  # type: ignore[arg-type]
            show=row[SHOW],
            request=bool(row[REQUEST]),
            shown=tuple(row[lay.shown : lay.trades]),
            trades=tuple(row[lay.trades : lay.flows]),
            flows=counts(lay.flows, n * n),  # type: ignore[arg-type]
            last_partner=tuple(row[lay.partner : lay.received]),
            last_received=counts(lay.received, n),  # type: ignore[arg-type]
            submitted=counts(lay.submitted, n),  # type: ignore[arg-type]
            submit_colour=row[SUBMIT_COLOUR],
        )
