"""High Card's search hooks: the three required ones only (no horizon, no move order)."""

from __future__ import annotations

import dataclasses

import numpy as np

from cardgames_env.core.cards import cards_of, mask_of
from cardgames_env.core.search import SearchHooks

from . import rules


def canonical(state: rules.State, player: int) -> rules.State:
    """The other hand dealt the lowest cards ``player`` cannot see."""
    other = 1 - player
    pool = sorted(cards_of(state.hands[other] | state.unseen))
    size = state.hands[other].bit_count()
    hands = list(state.hands)
    hands[other] = mask_of(pool[:size])
    return dataclasses.replace(state, hands=(hands[0], hands[1]), unseen=mask_of(pool[size:]))


def rollout(state: rules.State, rng: np.random.Generator) -> rules.Play:
    """A uniformly random legal card."""
    moves = rules.legal_moves(state)
    return moves[int(rng.integers(len(moves)))]


HOOKS = SearchHooks(infoset=canonical, resample=rules.resample_hidden, rollout=rollout)
"""High Card's search hooks."""
