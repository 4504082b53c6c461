"""Rule-based Jaipur player that reads only its observation and mask.

Plan (docs/rules/jaipur.md, "A turn" and "End of a round and scoring"): sell sets of 3+ cards (or
precious pairs) for bonus tokens while the stacks still pay well, take the camels when the market is
camel-heavy, build sets by taking goods that match the hand, and avoid exchanges that hand the
opponent precious goods. Every legal action gets a score; the best wins (ties broken at random).

With ``exchange_encoding="substeps"`` the agent scores the legal exchanges that continue
its partial exchange (worked out from its own hand, herd and the market in the observation)
exactly like flat ones, and plays the next sub-step of the best.

It decides for a batch of rows at once (:meth:`JaipurHeuristic.act_batch`, what the batched
engines' opponents call; :meth:`~JaipurHeuristic.act` is a batch of one). With the flat
encoding one compiled loop scores every row's legal actions (:meth:`JaipurHeuristic.act_one`
stays the readable reference; a test holds the two to the same moves) and the ties are broken
with one draw per row, in row order, from the agent's generator, as row-by-row play would
draw them. The sub-step encoding has its own compiled loop: it works out each row's legal
exchanges continuing the partial one from the observation with the batched engine's market
tables, in the reference's order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from cardgames_env.core.masks import BatchPlayer, legal_actions, legal_rows
from cardgames_env.core.threads import borrow
from cardgames_env.envs.jaipur.cards import CAMEL, HAND_LIMIT, NUM_GOODS, NUM_TYPES, PRECIOUS
from cardgames_env.envs.jaipur.encoding import (
    ACTIONS,
    EXCHANGE_GIVE,
    EXCHANGE_TAKE,
    LAYOUT,
    MAX_SELL,
    JaipurEncoding,
    legal_exchanges,
)
from cardgames_env.envs.jaipur.kernel import (
    CAND_LIST,
    CAND_START,
    GIVE_PACKED,
    MARKET_LUT,
    MAX_CANDIDATES,
    SEQ,
    exchange_purse,
    pays,
)
from cardgames_env.envs.jaipur.substeps import (
    SEQUENCES,
    SUBSTEP_ACTIONS,
    SUBSTEP_LAYOUT,
    XGIVE0,
    XTAKE0,
    exchange_sequence,
)

TAKE0 = ACTIONS.offset("take")
CAMELS = ACTIONS.offset("camels")
SELL0 = ACTIONS.offset("sell")
EXCHANGE0 = ACTIONS.offset("exchange")
EXPECTED_BONUS = (0.0, 0.0, 0.0, 2.0, 5.0, 9.0, 9.0, 9.0)
"""Mean bonus token of a sale of n cards (3-card pile averages 2, 4-card 5, 5-card 9)."""
_PRECIOUS = np.array(PRECIOUS, dtype=np.float64)


class JaipurHeuristic(BatchPlayer):
    """Scores sales by tokens plus expected bonus, takes by the goods' token values and the
    sets they build, camels by how many there are, exchanges by value gained minus value and
    precious goods given away.

    With ``exchanges=False`` (the flat encoding) it plays the best move other than an
    exchange, as the search's light policy does, and scores no exchange; an exchange only
    when it is the sole legal kind of move.
    """

    def __init__(
        self, encoding: JaipurEncoding | None = None, seed: int | None = None, exchanges: bool = True
    ):
        super().__init__(seed)
        self.exchanges = exchanges
        self._first_skipped = EXCHANGE0 if not exchanges else ACTIONS.size
        """The first flat action left out while other moves are legal (none: the table's size)."""

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Return the best-scoring legal action of every row (ties broken at random, one draw
        per row in row order).

        ``keys`` is accepted for :class:`~cardgames_env.agents.batch.BatchPolicy` and unused:
        the heuristic keeps no state between decisions.

        Raises:
            ValueError: when a row of ``masks`` allows nothing.
        """
        legal = legal_rows(masks)
        observations = np.asarray(observations)
        if legal.shape[1] != ACTIONS.size:  # the sub-step encoding: the masks as lists
            counts = legal.sum(axis=1)
            listed = np.argsort(~legal, axis=1, kind="stable")[:, : max(int(counts.max(initial=0)), 1)]
            return self.act_legal(observations, listed, counts)
        if not self.exchanges:  # the exchanges only in rows where nothing else is legal
            simple = legal.copy()
            simple[:, EXCHANGE0:] = False
            legal = np.where(simple.any(axis=1)[:, None], simple, legal)
        return self._best(observations, _tied_actions, (np.ascontiguousarray(legal),))

    def act_legal(
        self, observations: np.ndarray, legal_index: np.ndarray, legal_count: np.ndarray,
        keys: np.ndarray | None = None,
    ) -> np.ndarray:
        """:meth:`act_batch` given each row's legal actions as a list instead of a mask: row
        ``r``'s are ``legal_index[r, :legal_count[r]]``, in any order (what the batched engine
        keeps, :attr:`~cardgames_env.envs.jaipur.kernel.JaipurEngine.legal_index`). Same
        actions and random draws as :meth:`act_batch` on the same rows.

        Raises:
            ValueError: for a row with no legal action.
        """
        observations = np.asarray(observations)
        counts = np.asarray(legal_count)
        if counts.shape != (len(observations),) or not (counts > 0).all():
            raise ValueError("every row needs a legal action (legal_count > 0)")
        lists = (np.ascontiguousarray(legal_index, dtype=np.int32),
                 np.ascontiguousarray(counts, dtype=np.int64))
        if observations.shape[1] != LAYOUT.size:  # the sub-step encoding
            return self._best(observations, _tied_substeps, lists, substeps=True)
        return self._best(observations, _tied_listed, (*lists, self._first_skipped))

    def _best(
        self, observations: np.ndarray, tie_kernel: Any, legal: tuple[Any, ...], substeps: bool = False
    ) -> np.ndarray:
        """Each row's best-scoring action, ties broken with one draw per row in row order;
        ``tie_kernel(*legal, *pieces, tables, work, tied, ties)`` lists each row's tied actions
        (the buffers made here, so the kernels may borrow them). With ``substeps`` the pieces
        add the own herd and the partial exchange, the tables the engine's market tables."""
        rows = len(observations)
        # Views of the observation's pieces, no copies: the kernels read them as float64 (every
        # entry a small integer, so exactly the reference's values).
        view = {name: observations[:, cut] for name, cut in _PIECES.items()}
        stacks = view["goods_stacks"].reshape(rows, NUM_GOODS, -1)
        pieces: tuple[np.ndarray, ...] = (view["hand"], view["market"], stacks, view["bonus_left"])
        tables: tuple[np.ndarray, ...] = _TABLES
        width = legal[0].shape[1]  # the mask's or the lists' width: the most legal actions of a row
        if substeps:
            herds = observations[:, LAYOUT.slice("herds")][:, 0].astype(np.int64)
            partial = observations[:, LAYOUT.size :].astype(np.int64)  # exchange_take, exchange_give
            pieces += (herds, partial)
            tables = _SUBSTEP_TABLES
            width += MAX_CANDIDATES  # options: the take/camels/sell actions and every exchange
        work = (np.empty(width, dtype=np.int64), np.empty((3, NUM_GOODS)), np.empty(width))
        ties = np.zeros(rows, dtype=np.int64)
        tied = np.empty((rows, 16), dtype=np.int64)
        tie_kernel(*legal, *pieces, tables, work, tied, ties)
        if ties.max(initial=0) > tied.shape[1]:  # many equal scores: list them all
            tied = np.empty((rows, int(ties.max())), dtype=np.int64)
            ties[:] = 0
            tie_kernel(*legal, *pieces, tables, work, tied, ties)
        return tied[np.arange(rows), self.rng.integers(0, ties)]

    def act_one(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the best-scoring legal action, in plain Python (the reference of
        :meth:`act_batch` for the flat encoding)."""
        legal = legal_actions(action_mask)
        substeps = action_mask.size == SUBSTEP_ACTIONS.size
        view = (SUBSTEP_LAYOUT if substeps else LAYOUT).view(observation)
        hand = view["hand"].astype(np.float64)
        market = view["market"]
        stacks = view["goods_stacks"]
        bonus_left = view["bonus_left"]
        hand_size = float(hand.sum())
        # What one more card of each good is worth: its next token, a bit more for sets.
        top = stacks[:, 0].astype(np.float64)
        card_value = top + 1.2 * np.minimum(hand, 4)
        scores = np.full(legal.size, -np.inf)
        for i, action in enumerate(legal.tolist()):
            if action >= EXCHANGE0:
                continue
            if action < CAMELS:
                g = action - TAKE0
                scores[i] = card_value[g] - 1.0 - (1.5 if hand_size >= HAND_LIMIT - 1 else 0.0)
            elif action == CAMELS:
                camels = float(market[CAMEL])
                scores[i] = 2.2 * camels - 2.5 if camels >= 3 else 1.0 * camels - 1.5
            else:
                g, n = divmod(action - SELL0, MAX_SELL)
                n += 1
                tokens = float(stacks[g][:n].sum())
                kind = 0 if n == 3 else 1 if n == 4 else 2 if n >= 5 else -1
                bonus = EXPECTED_BONUS[n] if kind >= 0 and bonus_left[kind] > 0 else 0.0
                score = tokens + bonus - 6.0
                if n < hand[g]:
                    score -= 2.0  # keep sets together: sell all of a type
                if n >= 3 or PRECIOUS[g]:
                    score += 3.0
                if hand_size >= HAND_LIMIT:
                    score += 4.0  # a full hand must make room
                scores[i] = score
        if substeps:
            return self._act_substeps(view, legal, scores, card_value, top, hand)
        exchanges = legal[legal >= EXCHANGE0] - EXCHANGE0
        if exchanges.size:
            scores[legal >= EXCHANGE0] = _exchange_scores(exchanges, card_value, top, hand)
        best = np.flatnonzero(scores >= scores.max() - 1e-9)
        return int(legal[best[self.rng.integers(best.size)]])

    def _act_substeps(
        self, view: Mapping[str, np.ndarray], legal: np.ndarray, scores: np.ndarray,
        card_value: np.ndarray, top: np.ndarray, hand: np.ndarray,
    ) -> int:
        """Sub-step encoding: the best of the take/camels/sell scores and of the legal exchanges
        continuing the partial one; an exchange is played by its next sub-step."""
        take = tuple(int(n) for n in view["exchange_take"])
        give = tuple(int(n) for n in view["exchange_give"])
        depth = sum(take) + sum(give)
        hand7 = tuple(int(n) for n in view["hand"]) + (0,)
        market = tuple(int(n) for n in view["market"])
        exchanges = legal_exchanges(hand7, int(view["herds"][0]), market)
        if depth:
            prefix = np.array(exchange_sequence(take, give)[:depth], dtype=np.intp)
            exchanges = exchanges[(SEQUENCES[exchanges, :depth] == prefix).all(axis=1)]
        options = legal[legal < EXCHANGE0].tolist()
        values = scores[legal < EXCHANGE0].tolist()
        if exchanges.size:
            options.extend(SEQUENCES[exchanges, depth].tolist())
            values.extend(_exchange_scores(exchanges, card_value, top, hand).tolist())
        best_value = max(values)
        best = [a for a, v in zip(options, values) if v >= best_value - 1e-9]
        return int(best[self.rng.integers(len(best))])


def _exchange_scores(
    exchanges: np.ndarray, card_value: np.ndarray, top: np.ndarray, hand: np.ndarray
) -> np.ndarray:
    """Scores of flat exchanges (indices into the exchange table): value gained minus value
    given, precious goods handed to the opponent and camels given back."""
    take = EXCHANGE_TAKE[exchanges]
    give = EXCHANGE_GIVE[exchanges]
    gained = take @ card_value
    lost = give[:, :NUM_GOODS] @ (top + 0.8 * np.minimum(hand, 4))
    precious_given = give[:, :NUM_GOODS] @ (_PRECIOUS * top)  # what the opponent may grab
    camels_given = give[:, CAMEL] * 1.5
    return gained - lost - 0.6 * precious_given - camels_given - 2.0




_PIECES = {name: LAYOUT.slice(name) for name in ("hand", "market", "goods_stacks", "bonus_left")}
"""The observation pieces the kernels read, and where they are."""
_EXPECTED_BONUS = np.array(EXPECTED_BONUS)
_TABLES = (np.ascontiguousarray(EXCHANGE_TAKE), np.ascontiguousarray(EXCHANGE_GIVE))
"""The cards each flat exchange takes and gives (passed to the kernels: large globals are not cached)."""
_SUBSTEP_TABLES = (*_TABLES, MARKET_LUT, CAND_START, CAND_LIST, GIVE_PACKED, SEQ)
"""Besides, the engine's market tables (the exchanges each market's goods allow, their gives
packed) and each exchange's sub-steps."""


@njit(cache=True)
def _score(
    action: int, row: int, hands: np.ndarray, markets: np.ndarray, stacks: np.ndarray, bonus_left: np.ndarray,
    hand_size: float, values: np.ndarray, take_table: np.ndarray, give_table: np.ndarray,
) -> float:
    """:meth:`JaipurHeuristic.act_one`'s score of one flat action in ``row`` (``hand_size`` and
    ``values``: the row's :func:`_values`; the tables: the exchanges' cards taken and given)."""
    hand, stacks_row = hands[row], stacks[row]
    card_value, lost_value, precious_value = values[0], values[1], values[2]
    if action < CAMELS:
        return card_value[action - TAKE0] - 1.0 - (1.5 if hand_size >= HAND_LIMIT - 1 else 0.0)
    if action == CAMELS:
        camels = markets[row, CAMEL]
        return 2.2 * camels - 2.5 if camels >= 3 else 1.0 * camels - 1.5
    if action < EXCHANGE0:
        g, n = divmod(action - SELL0, MAX_SELL)
        n += 1
        tokens = 0.0
        for k in range(n):
            tokens += stacks_row[g, k]
        kind = 0 if n == 3 else 1 if n == 4 else 2 if n >= 5 else -1
        bonus = _EXPECTED_BONUS[n] if kind >= 0 and bonus_left[row, kind] > 0 else 0.0
        score = tokens + bonus - 6.0
        if n < hand[g]:
            score -= 2.0  # keep sets together: sell all of a type
        if n >= 3 or _PRECIOUS[g] != 0:
            score += 3.0
        if hand_size >= HAND_LIMIT:
            score += 4.0  # a full hand must make room
        return score
    e = action - EXCHANGE0
    gained = lost = precious_given = 0.0
    for g in range(NUM_GOODS):
        gained += take_table[e, g] * card_value[g]
        lost += give_table[e, g] * lost_value[g]
        precious_given += give_table[e, g] * precious_value[g]
    return gained - lost - 0.6 * precious_given - give_table[e, CAMEL] * 1.5 - 2.0


@njit(cache=True)
def _values(hand: np.ndarray, stacks: np.ndarray, values: np.ndarray) -> float:
    """Write each good's worth taken, given and to the opponent into the rows of ``values``
    (``[3, NUM_GOODS]``); return the hand size."""
    hand_size = 0.0
    for g in range(NUM_GOODS):
        hand_size += hand[g]
        values[0, g] = stacks[g, 0] + 1.2 * min(hand[g], 4.0)
        values[1, g] = stacks[g, 0] + 0.8 * min(hand[g], 4.0)
        values[2, g] = _PRECIOUS[g] * stacks[g, 0]
    return hand_size


@njit(cache=True)
def _legal_actions(legal: np.ndarray, index: np.ndarray) -> int:
    """Write the legal actions of one mask row into ``index`` (in order); return how many.

    Blocks of 64 entries are summed first (a loop the compiler vectorises) and only blocks
    holding a legal action are scanned: a flat Jaipur mask holds ~10 of 25,505.
    """
    size = legal.shape[0]
    full = size - size % 64
    found = 0
    for base in range(0, full, 64):
        total = 0
        for k in range(64):
            total += legal[base + k]
        if total:
            for action in range(base, base + 64):
                if legal[action]:
                    index[found] = action
                    found += 1
    for action in range(full, size):
        if legal[action]:
            index[found] = action
            found += 1
    return found


@njit(cache=True)
def _row_ties(
    row: int, index: np.ndarray, found: int, pieces: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    tables: tuple[np.ndarray, np.ndarray], work: tuple[np.ndarray, np.ndarray], tied: np.ndarray,
    counts: np.ndarray,
) -> None:
    """Write into ``tied[row]`` the actions of ``index[:found]`` (a row's legal actions)
    scoring within 1e-9 of the best, in the order of ``index``, and their number into
    ``counts[row]`` (``work``: a ``[3, NUM_GOODS]`` and a scores buffer)."""
    hands, markets, stacks, bonus_left = pieces
    take_table, give_table = tables
    values, scores = work
    hand_size = _values(hands[row], stacks[row], values)
    for k in range(found):
        scores[k] = _score(index[k], row, hands, markets, stacks, bonus_left, hand_size, values, take_table,
                           give_table)
    _keep_best(row, index, scores, found, tied, counts)


@njit(cache=True)
def _keep_best(
    row: int, options: np.ndarray, scores: np.ndarray, count: int, tied: np.ndarray, counts: np.ndarray
) -> None:
    """Write into ``tied[row]`` the options of ``options[:count]`` whose ``scores`` lie within
    1e-9 of the best, in order (as many as fit), and their number into ``counts[row]``."""
    best = -np.inf
    for k in range(count):
        best = max(best, scores[k])
    for k in range(count):
        if scores[k] >= best - 1e-9:
            if counts[row] < tied.shape[1]:
                tied[row, counts[row]] = options[k]
            counts[row] += 1


@njit(cache=True)
def _tied_actions(
    legal: np.ndarray, hands: np.ndarray, markets: np.ndarray, stacks: np.ndarray, bonus_left: np.ndarray,
    tables: tuple[np.ndarray, np.ndarray], work: tuple[np.ndarray, np.ndarray, np.ndarray], tied: np.ndarray,
    counts: np.ndarray,
) -> None:
    """Write into ``tied[row]`` the legal actions of each mask row (in action order) scoring
    within 1e-9 of its best and into ``counts[row]`` (zeros on entry) how many they are
    (``tied`` holds the first ones only when a row has more than its width); ``work``: an
    int64 and a float64 buffer of the mask's width around a ``[3, NUM_GOODS]`` one."""
    # Borrowed views (no reference counting in the calls per row and action); the caller keeps
    # every array alive.
    (legal, hands, markets, stacks, bonus_left, take_table, give_table, index, values, scores, tied,
     counts) = borrow(legal, hands, markets, stacks, bonus_left, tables[0], tables[1], work[0], work[1],
                      work[2], tied, counts)
    for row in range(legal.shape[0]):
        found = _legal_actions(legal[row], index)
        _row_ties(row, index, found, (hands, markets, stacks, bonus_left), (take_table, give_table),
                  (values, scores), tied, counts)


@njit(cache=True)
def _tied_listed(
    legal_index: np.ndarray, legal_count: np.ndarray, skipped: int, hands: np.ndarray, markets: np.ndarray,
    stacks: np.ndarray, bonus_left: np.ndarray, tables: tuple[np.ndarray, np.ndarray],
    work: tuple[np.ndarray, np.ndarray, np.ndarray], tied: np.ndarray, counts: np.ndarray,
) -> None:
    """:func:`_tied_actions` of rows given as lists of legal actions (``legal_index[row,
    :legal_count[row]]``, any order), leaving out the actions from ``skipped`` on where a row
    has others: the tied actions are sorted into action order (when they all fit in
    ``tied``)."""
    (legal_index, hands, markets, stacks, bonus_left, take_table, give_table, index, values, scores, tied,
     counts) = borrow(legal_index, hands, markets, stacks, bonus_left, tables[0], tables[1], work[0], work[1],
                      work[2], tied, counts)
    for row in range(legal_index.shape[0]):
        found = 0
        for k in range(legal_count[row]):
            if legal_index[row, k] < skipped:
                index[found] = legal_index[row, k]
                found += 1
        if found == 0:
            found = legal_count[row]
            for k in range(found):
                index[k] = legal_index[row, k]
        _row_ties(row, index, found, (hands, markets, stacks, bonus_left), (take_table, give_table),
                  (values, scores), tied, counts)
        if counts[row] <= tied.shape[1]:
            tied[row, : counts[row]].sort()


@njit(cache=True)
def _sorted_moves(legal_index: np.ndarray, found: int, index: np.ndarray) -> int:
    """Write the take, camels and sell actions among ``legal_index[:found]`` into ``index`` in
    action order (an insertion sort: a row has at most a few dozen); return how many."""
    moves = 0
    for k in range(found):
        action = legal_index[k]
        if action >= EXCHANGE0:
            continue
        j = moves
        while j > 0 and index[j - 1] > action:
            index[j] = index[j - 1]
            j -= 1
        index[j] = action
        moves += 1
    return moves


@njit(cache=True)
def _continues(sequence: np.ndarray, partial: np.ndarray, depth: int) -> bool:
    """Whether an exchange's sub-steps ``sequence`` start with the canonical sub-steps of the
    partial exchange ``partial`` (cards taken per good, then given per type; ``depth`` of them):
    :func:`~cardgames_env.envs.jaipur.substeps.exchange_sequence` of it, cut at ``depth``."""
    d = 0
    for g in range(NUM_GOODS):
        for _ in range(partial[g]):
            if sequence[d] != XTAKE0 + g:
                return False
            d += 1
    for t in range(NUM_TYPES):
        for _ in range(partial[NUM_GOODS + t]):
            if sequence[d] != XGIVE0 + t:
                return False
            d += 1
    return d == depth


@njit(cache=True)
def _tied_substeps(
    legal_index: np.ndarray, legal_count: np.ndarray, hands: np.ndarray, markets: np.ndarray,
    stacks: np.ndarray, bonus_left: np.ndarray, herds: np.ndarray, partials: np.ndarray,
    tables: tuple[np.ndarray, ...], work: tuple[np.ndarray, np.ndarray, np.ndarray], tied: np.ndarray,
    counts: np.ndarray,
) -> None:
    """:meth:`JaipurHeuristic.act_one`'s choice in the sub-step encoding, for rows given as lists
    of legal actions: the options are the row's take/camels/sell actions (in action order) and
    then, in exchange-table order, the next sub-step of every legal exchange continuing the
    partial one (one entry per exchange, so a sub-step shared by tied exchanges counts once for
    each); ``tied[row]`` gets the options within 1e-9 of the best, ``counts[row]`` their number."""
    take_table, give_table, lut, cand_start, cand_list, give_packed, seq = tables
    (legal_index, hands, markets, stacks, bonus_left, take_table, give_table, index, values, scores, tied,
     counts) = borrow(legal_index, hands, markets, stacks, bonus_left, take_table, give_table, work[0],
                      work[1], work[2], tied, counts)
    for row in range(legal_index.shape[0]):
        hand_size = _values(hands[row], stacks[row], values)
        options = _sorted_moves(legal_index[row], legal_count[row], index)
        for k in range(options):
            scores[k] = _score(index[k], row, hands, markets, stacks, bonus_left, hand_size, values,
                               take_table, give_table)
        # The legal exchanges, as the engine lists them for the mover: the market's candidates
        # whose gives the hand and the givable camels pay.
        packed, key, _ = exchange_purse(hands[row], markets[row], herds[row])
        partial = partials[row]
        depth = 0
        for t in range(partial.shape[0]):
            depth += partial[t]
        market = lut[key]
        for c in range(cand_start[market], cand_start[market + 1]):
            e = cand_list[c]
            if not pays(packed, give_packed[e]) or not _continues(seq[e], partial, depth):
                continue
            index[options] = seq[e, depth]
            scores[options] = _score(EXCHANGE0 + e, row, hands, markets, stacks, bonus_left, hand_size,
                                     values, take_table, give_table)
            options += 1
        _keep_best(row, index, scores, options, tied, counts)
