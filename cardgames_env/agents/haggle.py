"""A rule-based Haggle player: trades towards a valuable hand, never towards 7 of a colour.

It reads only its observation (through the encoding's layout) and the action mask. Its hand
value is the seed's scoring of the hand alone plus rough estimates of the cross-player terms:
a pyramid doubles, a big Yellow or Red count probably wins its majority, 5 Blue hurt the
others, 3 Red protect, 7 of a colour is ruinous.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from cardgames_env.agents.masks import legal_actions
from cardgames_env.core.rng import make_rng
from cardgames_env.envs.haggle.cards import BASE_VALUES, NUM_COLOURS
from cardgames_env.envs.haggle.encoding import HaggleEncoding

_BASE = np.array(BASE_VALUES)
_PYRAMID = np.array([0, 1, 2, 3, 4])


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


@cache
def _value_table(num_players: int) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`hand_values` of every hand of at most ``limit`` cards of each colour, indexed
    by ``hand @ weights`` (mixed radix ``limit + 1``): ``(table, weights, limit)``.

    A hand holds at most the deck's ``2N`` cards of a colour (rules section 9) and the
    heuristic looks at it plus an offer of at most 3 (the default ``max_offer``), so ``limit``
    is ``2N + 3``; :func:`hand_values_fast` computes hands beyond it directly.
    """
    limit = 2 * num_players + 3
    radix = limit + 1
    weights = radix ** np.arange(NUM_COLOURS, dtype=np.int64)
    every = np.indices((radix,) * NUM_COLOURS).reshape(NUM_COLOURS, -1).T  # row r has index r
    every = every[:, ::-1]  # colour c is digit c: row index = every @ weights
    return hand_values(every, num_players), weights, limit


def hand_values_fast(hands: np.ndarray, num_players: int) -> np.ndarray:
    """:func:`hand_values`, looked up in a table built from it once per player count (the
    heuristic evaluates thousands of hands a move); the same floats, bit for bit."""
    table, weights, limit = _value_table(num_players)
    if hands.size and (hands.min() < 0 or hands.max() > limit):
        return hand_values(hands, num_players)
    return table[hands @ weights]


class HaggleHeuristic:
    """Proposes the fair-looking trade that improves its hand most; accepts improving offers."""

    def __init__(self, encoding: HaggleEncoding, seed: int | None = None):
        self.encoding = encoding
        self.layout = encoding.layout
        self.n = encoding.num_players
        self.rng = make_rng(seed)
        self.sets = np.array(encoding.offer_sets)
        self.set_values = self.sets @ _BASE
        # Only offers a partner might take: ask no more base value than given, not a no-op.
        fair = self.set_values[None, :] <= self.set_values[:, None]
        same = np.all(self.sets[:, None, :] == self.sets[None, :, :], axis=2)
        self.offerable = fair & ~same
        """``offerable[g, a]``: giving set ``g`` for set ``a`` is an offer the heuristic makes."""
        _, weights, limit = _value_table(self.n)  # built once per player count
        self.set_index = self.sets @ weights
        """Each offer set's index offset in the value table."""
        self.table_room = limit - int(self.sets.max())
        """The largest colour count a hand may hold for every ``hand - give + ask`` to be in the table."""
        a = encoding.actions
        self.offsets = {f.name: f.offset for f in a.families}
        self.min_gain = 1.0

    def reset(self, seed: int | None = None) -> None:
        """Re-seed when ``seed`` is given."""
        if seed is not None:
            self.rng = make_rng(seed)

    def _value(self, hand: np.ndarray) -> float:
        return float(hand_values_fast(hand[None, :], self.n)[0])

    def _plan(self, hand: np.ndarray) -> tuple[int, int, float]:
        """Best (give index, ask index, gain) among trades giving at least the value asked."""
        fits = np.all(self.sets <= hand, axis=1)
        give = np.flatnonzero(fits)
        gains = self._trade_values(hand, give)
        gains -= self._value(hand)
        gains = np.where(self.offerable[give], gains, -np.inf)
        gains += self.rng.random(gains.shape) * 1e-3  # break ties at random
        i, j = np.unravel_index(int(np.argmax(gains)), gains.shape)
        return int(give[i]), int(j), float(gains[i, j])

    def _trade_values(self, hand: np.ndarray, give: np.ndarray) -> np.ndarray:
        """Values of ``hand - sets[g] + sets[a]`` for each ``g`` in ``give`` (rows, sets the
        hand holds) and every ask ``a`` (columns). Inside the value table the index of a sum
        is the sum of the indices, so no hand is built."""
        if hand.max() <= self.table_room:
            table, weights, _ = _value_table(self.n)
            index = int(hand @ weights) - self.set_index[give][:, None] + self.set_index[None, :]
            return table[index]
        new = hand[None, None, :] - self.sets[give][:, None, :] + self.sets[None, :, :]
        return hand_values_fast(new.reshape(-1, NUM_COLOURS), self.n).reshape(len(give), -1)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return a legal action chosen from the observation and the mask."""
        legal = legal_actions(action_mask)
        view = self.layout.view(observation)
        hand = np.rint(view["hand"] * 10).astype(np.int64)
        stage = int(np.argmax(view["stage"])) if view["stage"].any() else -1
        off = self.offsets
        if stage == 0:  # propose: pass or pick a target
            _, _, gain = self._plan(hand)
            if gain < self.min_gain or self.rng.random() < 0.1:
                return off["pass"]
            return int(self.rng.choice(legal[legal != off["pass"]]))
        if stage == 1:  # give
            give, _, _ = self._plan(hand)
            return self._pick(off["give"] + give, legal)
        if stage == 2:  # ask: the best ask for the cards already chosen
            given = np.rint(view["offer_give"] * 3).astype(np.int64)
            new = hand[None, :] - given[None, :] + self.sets
            values = hand_values_fast(new, self.n)
            fair = self.set_values <= int(given @ _BASE)
            same = np.all(self.sets == given, axis=1)
            values = np.where(fair & ~same, values, -np.inf)
            return self._pick(off["ask"] + int(np.argmax(values)), legal)
        if stage == 3:  # terms: show nothing, ask to see a rule card
            return self._pick(off["terms"] + 1, legal)
        if stage == 4:  # respond
            give = np.rint(view["offer_give"] * 3).astype(np.int64)
            ask = np.rint(view["offer_ask"] * 3).astype(np.int64)
            accepts = legal[legal != off["reject"]]
            if accepts.size and self._value(hand + give - ask) >= self._value(hand):
                return int(accepts[0])
            return off["reject"]
        if stage == 5:  # submit: hand in the count that maximises the estimated value
            colour = int(np.argmax(view["submit_colour"]))
            done = np.rint(view["submitted"] * 10).astype(np.int64)
            candidates = legal - off["submit"]
            hands = np.repeat((done + np.where(np.arange(5) > colour, hand, 0))[None, :], len(candidates), 0)
            hands[:, colour] = candidates
            return int(legal[int(np.argmax(hand_values_fast(hands, self.n)))])
        return int(self.rng.choice(legal))

    def _pick(self, action: int, legal: np.ndarray) -> int:
        """``action`` if legal, else a random legal action (never an illegal one)."""
        if action in legal:
            return action
        return int(self.rng.choice(legal))


__all__ = ["HaggleHeuristic", "hand_values", "hand_values_fast"]
