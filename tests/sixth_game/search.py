"""High Card's hooks for the search agent (:class:`~cardgames_env.core.search.GameAdapter`)."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np

from cardgames_env.core.cards import cards_of, mask_of
from cardgames_env.core.search import GameAdapter

from . import rules


class HighCardAdapter(GameAdapter):
    """Searched to the end of the game; the value is the game's return."""

    rules: ClassVar[Any] = rules

    def canonical(self, state: rules.State, player: int) -> rules.State:
        other = 1 - player
        pool = sorted(cards_of(state.hands[other] | state.unseen))  # what ``player`` cannot see
        size = state.hands[other].bit_count()
        hands = list(state.hands)
        hands[other] = mask_of(pool[:size])
        return dataclasses.replace(state, hands=(hands[0], hands[1]), unseen=mask_of(pool[size:]))

    def value(self, root: rules.State, state: rules.State, player: int, rng: np.random.Generator) -> float:
        if rules.is_terminal(state):
            return rules.returns(state)[player]
        return (state.tricks[player] - state.tricks[1 - player]) / state.config.hand_size
