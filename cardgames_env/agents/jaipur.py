"""Rule-based Jaipur player that reads only its observation and mask.

Plan (jaipur.md sections 3-4): sell sets of 3+ cards (or precious pairs) for bonus tokens
while the stacks still pay well, take the camels when the market is camel-heavy, build sets
by taking goods that match the hand, and avoid exchanges that hand the opponent precious
goods. Every legal action gets a score; the best wins (ties broken at random).
"""

from __future__ import annotations

import numpy as np

from cardgames_env.core.rng import make_rng
from cardgames_env.envs.jaipur.cards import CAMEL, HAND_LIMIT, NUM_GOODS, PRECIOUS
from cardgames_env.envs.jaipur.encoding import (
    ACTIONS,
    EXCHANGE_GIVE,
    EXCHANGE_TAKE,
    LAYOUT,
    MAX_SELL,
    JaipurEncoding,
)

from .base import legal_actions

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
        view = LAYOUT.view(observation)
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
        exchanges = legal[legal >= EXCHANGE0] - EXCHANGE0
        if exchanges.size:
            take = EXCHANGE_TAKE[exchanges]
            give = EXCHANGE_GIVE[exchanges]
            gained = take @ card_value
            lost = give[:, :NUM_GOODS] @ (top + 0.8 * np.minimum(hand, 4))
            precious_given = give[:, :NUM_GOODS] @ (_PRECIOUS * top)  # what the opponent may grab
            camels_given = give[:, CAMEL] * 1.5
            scores[legal >= EXCHANGE0] = gained - lost - 0.6 * precious_given - camels_given - 2.0
        best = np.flatnonzero(scores >= scores.max() - 1e-9)
        return int(legal[best[self.rng.integers(best.size)]])
