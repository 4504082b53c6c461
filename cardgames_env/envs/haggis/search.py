"""The search agent's hooks for Haggis (:class:`~cardgames_env.core.search.GameAdapter`)."""

from __future__ import annotations

import functools
import math
from typing import Any, ClassVar

import numpy as np

from cardgames_env.core.rng import make_rng
from cardgames_env.core.search import GameAdapter

from . import rules as hg
from .cards import FACE_MASK
from .combos import BOMB_KIND, legal_plays
from .heuristic import choose_play as choose_haggis_play


@functools.lru_cache(maxsize=1 << 15)
def _haggis_plays(hand: int, table: Any, lone_qk_wild: bool, natural_runs: bool) -> list:
    """:func:`legal_plays`, remembered (the same hands and tables recur across simulations)."""
    return legal_plays(hand, table, lone_qk_wild, natural_runs)


class HaggisAdapter(GameAdapter):
    """Haggis: searched to the end of the hand (the hand's point difference); the moves are the
    encoding's plays (one reading per card set and kind), the policy is the heuristic's."""

    rules: ClassVar[Any] = hg
    default_children = 10

    def __init__(self, encoding: Any, epsilon: float | None = None):
        super().__init__(encoding, epsilon)
        self.flags = (self.config.lone_qk_wild, self.config.natural_faces_in_runs)

    def canonical(self, state: Any, player: int) -> Any:
        # resample_hidden deals from the sorted unseen cards: a function of the information set.
        return hg.resample_hidden(state, player, make_rng(0))

    def legal(self, state: Any) -> list[Any]:
        seat = state.to_move
        hand = state.hands[seat]
        plays = _haggis_plays(hand, state.table, *self.flags)
        opponent = state.hands[1 - seat].bit_count()
        leading = state.table is None
        trick_points = state.trick_points

        def key(play: tuple) -> tuple:
            cards, kind, reading = play
            faces = (cards & FACE_MASK).bit_count()
            bomb = kind == BOMB_KIND
            rank = reading[3] if not bomb else 20
            if cards == hand:
                return (0, 0, 0, 0)
            if leading:
                return (1, faces + (5 if bomb else 0), -cards.bit_count(), rank)
            urgent = opponent <= 4 or trick_points >= 3
            cost = faces * (1 if urgent else 3) + (4 if bomb else 0)
            return (1, cost, rank, -cards.bit_count())

        ordered: list[Any] = [hg.Play(p[0], p[2]) for p in sorted(plays, key=key)]
        if not leading:
            clean = sum(1 for p in plays if not p[0] & FACE_MASK and p[1] != BOMB_KIND)
            ordered.insert(min(clean, 2), hg.Pass())
        return ordered

    def apply(self, state: Any, move: Any) -> Any:
        return hg.apply_move(state, move)

    def random_move(self, state: Any, rng: np.random.Generator) -> Any:
        plays = _haggis_plays(state.hands[state.to_move], state.table, *self.flags)
        n = len(plays) + (state.table is not None)
        i = int(rng.integers(n))
        if i == len(plays):
            return hg.Pass()
        cards, _, reading = plays[i]
        return hg.Play(cards, reading)

    def policy(self, state: Any, rng: np.random.Generator) -> Any:
        if rng.random() < self.epsilon:
            return self.random_move(state, rng)
        seat = state.to_move
        hand = state.hands[seat]
        table = state.table
        plays = _haggis_plays(hand, table, *self.flags)
        choice = choose_haggis_play(plays, hand, table, state.hands[1 - seat].bit_count(), state.trick_points)
        if choice is None:
            return hg.Pass() if table is not None else hg.Play(plays[0][0], plays[0][2])
        return hg.Play(choice[0], choice[2])

    def value(self, root: Any, state: Any, player: int, rng: np.random.Generator) -> float:
        if hg.is_terminal(state):
            return 1.0 if state.totals[player] > state.totals[1 - player] else -1.0
        points = state.hand_points
        return math.tanh((points[player] - points[1 - player]) / 30)
