"""Rule-based Jaipur player that reads only its observation and mask.

Plan (docs/rules/jaipur.md, "A turn" and "End of a round and scoring"): sell sets of 3+ cards (or
precious pairs) for bonus tokens while the stacks still pay well, take the camels when the market is
camel-heavy, build sets by taking goods that match the hand, and avoid exchanges that hand the
opponent precious goods. Every legal action gets a score; the best wins (ties broken at random).

With ``exchange_encoding="substeps"`` the agent scores the legal exchanges that continue
its partial exchange (worked out from its own hand, herd and the market in the observation)
exactly like flat ones, and plays the next sub-step of the best.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cardgames_env.core.masks import legal_actions
from cardgames_env.core.rng import make_rng
from cardgames_env.envs.jaipur.cards import CAMEL, HAND_LIMIT, NUM_GOODS, PRECIOUS
from cardgames_env.envs.jaipur.encoding import (
    ACTIONS,
    EXCHANGE_GIVE,
    EXCHANGE_TAKE,
    LAYOUT,
    MAX_SELL,
    JaipurEncoding,
    legal_exchanges,
)
from cardgames_env.envs.jaipur.substeps import SEQUENCES, SUBSTEP_ACTIONS, SUBSTEP_LAYOUT, exchange_sequence

TAKE0 = ACTIONS.offset("take")
CAMELS = ACTIONS.offset("camels")
SELL0 = ACTIONS.offset("sell")
EXCHANGE0 = ACTIONS.offset("exchange")
EXPECTED_BONUS = (0.0, 0.0, 0.0, 2.0, 5.0, 9.0, 9.0, 9.0)
"""Mean bonus token of a sale of n cards (3-card pile averages 2, 4-card 5, 5-card 9)."""
_PRECIOUS = np.array(PRECIOUS, dtype=np.float64)


class JaipurHeuristic:
    """Scores sales by tokens plus expected bonus, takes by the goods' token values and the
    sets they build, camels by how many there are, exchanges by value gained minus value and
    precious goods given away."""

    def __init__(self, encoding: JaipurEncoding | None = None, seed: int | None = None):
        self.rng = make_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed when ``seed`` is given (ties are broken at random)."""
        if seed is not None:
            self.rng = make_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the best-scoring legal action."""
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
