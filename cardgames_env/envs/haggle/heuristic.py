"""A rule-based Haggle player: trades towards a valuable hand, never towards 7 of a colour.

It reads only its observation (through the encoding's layout) and the action mask. Its hand
value is the scoring (:mod:`.scoring`) of the hand alone plus rough estimates of the cross-player terms:
a pyramid doubles, a big Yellow or Red count probably wins its majority, 5 Blue hurt the
others, 3 Red protect, 7 of a colour is ruinous.

It decides for a batch of observations at once (:meth:`HaggleHeuristic.act_batch`, what the
batched training engines call; :meth:`~HaggleHeuristic.act` is a batch of one): one compiled
loop over the rows, which looks every hand up in a table of :func:`hand_values`.
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np
from numba import njit

from cardgames_env.core.masks import BatchPlayer, legal_rows
from cardgames_env.envs.haggle.cards import BASE_VALUES, NUM_COLOURS
from cardgames_env.envs.haggle.encoding import HaggleEncoding

_BASE = np.array(BASE_VALUES)
_PYRAMID = np.array([0, 1, 2, 3, 4])

STAGE_PROPOSE, STAGE_GIVE, STAGE_ASK, STAGE_TERMS, STAGE_RESPOND, STAGE_SUBMIT = range(6)
"""The stages of the observation's one-hot ``stage`` piece."""
PASS_PROBABILITY = 0.1
"""How often the heuristic passes although a trade would improve its hand."""
TIE = 1e-9
"""Values closer than this are equal. Every hand value is a multiple of ``1 / (5 N)`` (the
terms of :func:`hand_values`), so two values that differ at all differ by far more."""


def hand_values(hands: np.ndarray, num_players: int) -> np.ndarray:
    """Estimated worth of each row of ``hands`` (counts Y B R O W) to its holder."""
    y, b, r, o, w = (hands[:, c] for c in range(NUM_COLOURS))
    white = np.where(w > 3, 0, 5)  # modifier 1
    orange = np.minimum(o, b)  # modifier 2
    value = y + 2 * b + 3 * r + 4 * orange + white * w
    value = value + 10 * hands.min(axis=1)  # modifier 7
    value = value + white * np.minimum(y // 2, w)  # modifier 10
    value = value + 12 * np.minimum(b // 3, orange)  # modifier 11
    value = value.astype(np.float64)
    value += np.where(y >= 4, 0.6 * y * y, np.where(y == 3, 3.0, 0.0))  # likely Yellow bonus
    value += np.where(r >= 4, 0.6 * 3 * r, 0.0)  # likely Red doubling
    value += np.where(b >= 5, 10.0 * (num_players - 1) / num_players, 0.0)  # others lose 10
    value += 3.0 * np.minimum(r // 3, 2)  # protection from Blue penalties
    size = hands.sum(axis=1)
    pyramid = (size == 10) & np.all(np.sort(hands, axis=1) == _PYRAMID, axis=1)
    value = np.where(pyramid, 2 * value, value)  # modifier 8
    value -= 2.0 * np.maximum(size - 13, 0)  # modifier 12: surplus cards are wasted
    return np.where(hands.max(axis=1) >= 7, value - 80.0, value)  # modifier 6: avoid at all costs


@lru_cache(maxsize=1 << 16)
def hand_value(hand: tuple[int, ...], num_players: int) -> float:
    """One hand's :func:`hand_values`, in plain Python (the search agent's light policy)."""
    y, b, r, o, w = hand
    white = 0 if w > 3 else 5
    orange = min(o, b)
    value = float(y + 2 * b + 3 * r + 4 * orange + white * w)
    value += 10 * min(hand) + white * min(y // 2, w) + 12 * min(b // 3, orange)
    value += 0.6 * y * y if y >= 4 else 3.0 if y == 3 else 0.0
    value += 1.8 * r if r >= 4 else 0.0
    value += 10.0 * (num_players - 1) / num_players if b >= 5 else 0.0
    value += 3.0 * min(r // 3, 2)
    size = sum(hand)
    if size == 10 and sorted(hand) == [0, 1, 2, 3, 4]:
        value *= 2
    value -= 2.0 * max(size - 13, 0)
    return value - 80.0 if max(hand) >= 7 else value


@cache
def _value_table(num_players: int, max_offer: int = 3) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`hand_values` of every hand of at most ``limit`` cards of each colour, indexed
    by ``hand @ weights`` (mixed radix ``limit + 1``): ``(table, weights, limit)``.

    A hand holds at most the deck's ``2N`` cards of a colour ("The game in the env") and the
    heuristic looks at it plus an offer of at most ``max_offer`` cards, so ``limit`` is
    ``2N + max_offer`` (at least ``2N + 3``).
    """
    limit = 2 * num_players + max(max_offer, 3)
    radix = limit + 1
    weights = radix ** np.arange(NUM_COLOURS, dtype=np.int64)
    every = np.indices((radix,) * NUM_COLOURS).reshape(NUM_COLOURS, -1).T  # row r has index r
    every = every[:, ::-1]  # colour c is digit c: row index = every @ weights
    return hand_values(every, num_players), weights, limit


class HaggleHeuristic(BatchPlayer):
    """Proposes the fair-looking trade that improves its hand most; accepts improving offers.

    Stage by stage (the observation's ``stage`` piece):

    * propose: pass when no trade gains at least ``min_gain`` (or, 1 time in 10, anyway),
      otherwise offer to a random other player;
    * give, then ask: the trade that gains most among those giving at least the base value
      asked (ties at random), the ask re-planned for the cards already given;
    * terms: show no rule card, ask to see one;
    * respond: accept an offer that keeps or raises the hand's value;
    * submit (variant): hand in the count that maximises the value.

    A planned action that the mask does not allow becomes a random legal action.
    """

    def __init__(self, encoding: HaggleEncoding, seed: int | None = None):
        self.encoding = encoding
        self.layout = encoding.layout
        self.n = encoding.num_players
        super().__init__(seed)
        self.sets = np.array(encoding.offer_sets, dtype=np.int64)
        self.set_values = self.sets @ _BASE
        # Only offers a partner might take: ask no more base value than given, not a no-op.
        fair = self.set_values[None, :] <= self.set_values[:, None]
        same = np.all(self.sets[:, None, :] == self.sets[None, :, :], axis=2)
        gives, asks = np.nonzero(fair & ~same)  # the offers it makes, by give set, then ask set
        self.asks = asks.astype(np.int64)
        """The ask sets of every give set's offers, in order: give set ``g``'s are
        ``asks[ask_starts[g]:ask_starts[g + 1]]``."""
        self.ask_starts = np.concatenate([[0], np.cumsum(np.bincount(gives, minlength=len(self.sets)))])
        self.table, self.weights, limit = _value_table(self.n, int(self.sets.max()))
        self.hand_room = limit - int(self.sets.max())
        """The most cards of a colour a hand may hold for every trade's hand to be in the table
        (``2N`` or more: the deck holds ``2N`` of each colour)."""
        self.set_index = self.sets @ self.weights
        """Each offer set's index offset in the value table."""
        families = {f.name: f.offset for f in encoding.actions.families}
        self.offsets = {name: families.get(name, -1) for name in _FAMILIES}
        """The first action of each family the heuristic plays (``-1``: not in this variant)."""
        self.min_gain = 1.0
        self._slices = {name: self.layout.slice(name) for name in _PIECES}

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Return a legal action for every row of ``observations`` and ``masks``.

        ``keys`` is accepted for :class:`~cardgames_env.agents.batch.BatchPolicy` and unused:
        the heuristic keeps no state between decisions.

        Raises:
            ValueError: when a row of ``masks`` allows nothing, or an observation's hand holds
                more cards of a colour than the deck.
        """
        legal = legal_rows(masks)
        piece = {name: np.asarray(observations)[:, cut] for name, cut in self._slices.items()}
        hands = _counts(piece["hand"], 10)
        if hands.size and (hands.min() < 0 or hands.max() > self.hand_room):
            raise ValueError(f"a Haggle hand holds 0..{2 * self.n} cards of a colour, these observations "
                             f"{hands.min()}..{hands.max()}")
        stages = np.where(piece["stage"].any(axis=1), piece["stage"].argmax(axis=1), -1)
        draws = self.rng.random((legal.shape[0], 3))
        return _decide(
            hands, stages, _counts(piece["offer_give"], 3),
            _counts(piece["offer_ask"], 3), _counts(piece["submitted"], 10),
            piece["submit_colour"].argmax(axis=1), legal, draws, self.sets, self.set_values,
            self.set_index, self.ask_starts, self.asks, self.table, self.weights,
            np.array([self.offsets[name] for name in _FAMILIES], dtype=np.int64), float(self.min_gain),
        )


_PIECES = ("hand", "stage", "offer_give", "offer_ask", "submitted", "submit_colour")
"""The observation pieces the heuristic reads."""
_FAMILIES = ("pass", "give", "ask", "terms", "reject", "submit")
"""The action families the heuristic plays, in the order :func:`_decide` takes their offsets."""
F_PASS, F_GIVE, F_ASK, F_TERMS, F_REJECT, F_SUBMIT = range(len(_FAMILIES))


def _counts(piece: np.ndarray, scale: int) -> np.ndarray:
    """Card counts from an observation piece stored as ``count / scale``."""
    return np.rint(piece * scale).astype(np.int64)


@njit(cache=True)
def _nth_legal(mask: np.ndarray, skip: int, draw: float) -> int:
    """The ``k``-th legal action of ``mask`` other than ``skip``, ``k`` uniform below their
    count by ``draw`` in [0, 1); ``skip`` itself when it is the only one."""
    count = 0
    for action in range(mask.size):
        if mask[action] and action != skip:
            count += 1
    if count == 0:
        return skip
    k = int(draw * count)
    for action in range(mask.size):
        if mask[action] and action != skip:
            if k == 0:
                return action
            k -= 1
    return skip  # not reached


@njit(cache=True)
def _pick(action: int, mask: np.ndarray, draw: float) -> int:
    """``action`` when the mask allows it, else a uniformly random legal action."""
    if 0 <= action < mask.size and mask[action]:
        return action
    return _nth_legal(mask, -1, draw)


@njit(cache=True)
def _fitting(hand: np.ndarray, sets: np.ndarray) -> tuple[np.ndarray, int]:
    """Which sets ``hand`` holds, and the first of them (-1: none)."""
    fits = np.ones(sets.shape[0], dtype=np.bool_)
    first = -1
    for g in range(sets.shape[0]):
        for c in range(hand.size):
            if sets[g, c] > hand[c]:
                fits[g] = False
        if fits[g] and first < 0:
            first = g
    return fits, first


@njit(cache=True)
def _best_value(
    here: int, fits: np.ndarray, set_index: np.ndarray, ask_starts: np.ndarray, asks: np.ndarray,
    table: np.ndarray,
) -> float:
    """The best value a hand (table index ``here``) reaches by one offer the heuristic makes
    giving a set it holds (``fits``); -inf without one."""
    best = -np.inf
    for g in range(fits.size):
        if fits[g]:
            base = here - set_index[g]
            for k in range(ask_starts[g], ask_starts[g + 1]):
                value = table[base + set_index[asks[k]]]
                if value > best:
                    best = value
    return best


@njit(cache=True)
def _gain(
    hand: np.ndarray, sets: np.ndarray, set_index: np.ndarray, ask_starts: np.ndarray, asks: np.ndarray,
    table: np.ndarray, weights: np.ndarray,
) -> float:
    """The value the best trade of :func:`_plan` gains (-inf without one)."""
    here = _index(hand, weights)
    fits, _ = _fitting(hand, sets)
    return _best_value(here, fits, set_index, ask_starts, asks, table) - table[here]


@njit(cache=True)
def _plan(
    hand: np.ndarray, draw: float, sets: np.ndarray, set_index: np.ndarray, ask_starts: np.ndarray,
    asks: np.ndarray, table: np.ndarray, weights: np.ndarray,
) -> tuple[int, int, float]:
    """The trade ``(give set, ask set, gain)`` that improves ``hand``'s value most among those
    giving sets the hand holds for sets of at most their base value (the offers listed by
    ``ask_starts``/``asks``); ties at random by ``draw``. Without any such trade: the first set
    the hand holds, ask 0, gain -inf."""
    here = _index(hand, weights)
    fits, first = _fitting(hand, sets)
    best = _best_value(here, fits, set_index, ask_starts, asks, table)
    if best == -np.inf:
        return first, 0, -np.inf
    ties = 0
    for g in range(fits.size):
        if fits[g]:
            for k in range(ask_starts[g], ask_starts[g + 1]):
                if table[here - set_index[g] + set_index[asks[k]]] >= best - TIE:
                    ties += 1
    pick = int(draw * ties)
    for g in range(fits.size):
        if fits[g]:
            for k in range(ask_starts[g], ask_starts[g + 1]):
                if table[here - set_index[g] + set_index[asks[k]]] >= best - TIE:
                    if pick == 0:
                        return g, asks[k], best - table[here]
                    pick -= 1
    return first, 0, -np.inf  # not reached


@njit(cache=True)
def _index(hand: np.ndarray, weights: np.ndarray) -> int:
    """A hand's index in the value table (``hand @ weights``). The index of a sum of hands is
    the sum of their indices, so a trade's hand is never built."""
    index = 0
    for c in range(hand.size):
        index += hand[c] * weights[c]
    return index


@njit(cache=True)
def _decide(
    hands: np.ndarray, stages: np.ndarray, given: np.ndarray, asked: np.ndarray, submitted: np.ndarray,
    submit_colours: np.ndarray, masks: np.ndarray, draws: np.ndarray, sets: np.ndarray,
    set_values: np.ndarray, set_index: np.ndarray, ask_starts: np.ndarray, asks: np.ndarray,
    table: np.ndarray, weights: np.ndarray, offsets: np.ndarray, min_gain: float,
) -> np.ndarray:
    """:class:`HaggleHeuristic`'s action for every row. ``draws[i]`` are the row's three uniform
    draws: the tie between equal trades, the pass 1 time in 10, a random legal action."""
    actions = np.empty(hands.shape[0], dtype=np.int64)
    m = sets.shape[0]
    for i in range(hands.shape[0]):
        hand, mask, stage = hands[i], masks[i], stages[i]
        tie, chance, anything = draws[i, 0], draws[i, 1], draws[i, 2]
        if stage == STAGE_PROPOSE:  # pass, or start an offer to a random other player
            if (
                chance < PASS_PROBABILITY
                or min_gain == np.inf  # a policy that always passes
                or _gain(hand, sets, set_index, ask_starts, asks, table, weights) < min_gain - TIE
            ):
                actions[i] = offsets[F_PASS]
            else:
                actions[i] = _nth_legal(mask, offsets[F_PASS], anything)
        elif stage == STAGE_GIVE:
            give, _, _ = _plan(hand, tie, sets, set_index, ask_starts, asks, table, weights)
            actions[i] = _pick(offsets[F_GIVE] + give, mask, anything)
        elif stage == STAGE_ASK:  # the best fair ask for the cards already given (the first of equals)
            offered = _index(given[i], weights)
            worth, kept = 0, _index(hand, weights) - offered
            for c in range(hand.size):
                worth += given[i, c] * _BASE[c]
            best, choice = -np.inf, 0
            for a in range(m):
                if set_values[a] <= worth and set_index[a] != offered:  # fair, not a no-op
                    value = table[kept + set_index[a]]
                    if value > best:
                        best, choice = value, a
            actions[i] = _pick(offsets[F_ASK] + choice, mask, anything)
        elif stage == STAGE_TERMS:  # show no rule card, ask to see one
            actions[i] = _pick(offsets[F_TERMS] + 1, mask, anything)
        elif stage == STAGE_RESPOND:  # the first legal acceptance when it keeps the value
            actions[i] = offsets[F_REJECT]
            accept = _nth_legal(mask, offsets[F_REJECT], 0.0)
            if accept != offsets[F_REJECT]:  # the offer's ask fits the hand
                here = _index(hand, weights)
                after = here + _index(given[i], weights) - _index(asked[i], weights)
                if table[after] >= table[here]:
                    actions[i] = accept
        elif stage == STAGE_SUBMIT:  # the legal count of this colour that maximises the value
            colour = submit_colours[i]
            trial = submitted[i].copy()
            for c in range(colour + 1, hand.size):
                trial[c] += hand[c]
            best, choice = -np.inf, -1
            for count in range(mask.size - offsets[F_SUBMIT]):
                if mask[offsets[F_SUBMIT] + count]:
                    trial[colour] = count
                    value = table[_index(trial, weights)]
                    if value > best:
                        best, choice = value, offsets[F_SUBMIT] + count
            actions[i] = _pick(choice, mask, anything)
        else:
            actions[i] = _nth_legal(mask, -1, anything)
    return actions


__all__ = ["HaggleHeuristic", "hand_values"]
