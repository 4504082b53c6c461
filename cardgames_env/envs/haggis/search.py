"""Haggis' search hooks: searched to the end of the hand (the hand's point difference); the
searched moves are the encoding's plays (one reading per card set and kind), the policy is
the heuristic's (see :mod:`cardgames_env.core.search`)."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from cardgames_env.core.game import CHANCE
from cardgames_env.core.rng import make_rng
from cardgames_env.core.search import SearchHooks

from . import rules as hg
from .cards import FACE_MASK
from .combos import BOMB_KIND, legal_plays
from .heuristic import choose_play as choose_haggis_play

ROLLOUT_EPSILON = 0.1
"""Chance that the rollout policy plays a uniformly random play (or pass)."""


@functools.lru_cache(maxsize=1 << 15)
def _haggis_plays(hand: int, table: Any, lone_qk_wild: bool, natural_runs: bool) -> list:
    """:func:`legal_plays`, remembered (the same hands and tables recur across simulations)."""
    return legal_plays(hand, table, lone_qk_wild, natural_runs)


def _plays(state: hg.State) -> list:
    """The plays of the seat to act: ``(cards, kind, reading)``, one per card set and kind."""
    config = state.config
    return _haggis_plays(
        state.hands[state.to_move], state.table, config.lone_qk_wild, config.natural_faces_in_runs
    )


def canonical(state: hg.State, player: int) -> hg.State:
    """``player``'s information set's canonical state (``resample_hidden`` deals from the
    sorted unseen cards, so a fixed seed makes it a function of the information set)."""
    return hg.resample_hidden(state, player, make_rng(0))


def ordered_moves(state: hg.State) -> list[hg.Move]:
    """The plays, cheapest first (going out first of all), with passing among the first three
    when following."""
    seat = state.to_move
    hand = state.hands[seat]
    plays = _plays(state)
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

    ordered: list[hg.Move] = [hg.Play(p[0], p[2]) for p in sorted(plays, key=key)]
    if not leading:
        clean = sum(1 for p in plays if not p[0] & FACE_MASK and p[1] != BOMB_KIND)
        ordered.insert(min(clean, 2), hg.Pass())
    return ordered


def rollout(state: hg.State, rng: np.random.Generator) -> hg.Move:
    """The heuristic's play, or one time in ten a uniformly random play or pass."""
    plays = _plays(state)
    table = state.table
    if rng.random() < ROLLOUT_EPSILON:
        i = int(rng.integers(len(plays) + (table is not None)))
        if i == len(plays):
            return hg.Pass()
        return hg.Play(plays[i][0], plays[i][2])
    seat = state.to_move
    hand = state.hands[seat]
    choice = choose_haggis_play(plays, hand, table, state.hands[1 - seat].bit_count(), state.trick_points)
    if choice is None:
        return hg.Pass() if table is not None else hg.Play(plays[0][0], plays[0][2])
    return hg.Play(choice[0], choice[2])


def hand_over(state: hg.State, player: int) -> bool:
    """The horizon: the hand is over (the next deal is chance)."""
    return hg.current_player(state) == CHANCE


def value(root: hg.State, state: hg.State, player: int) -> float:
    """The game's result at its end, else the hand's point difference, scaled."""
    if hg.is_terminal(state):
        return 1.0 if state.totals[player] > state.totals[1 - player] else -1.0
    points = state.hand_points
    return math.tanh((points[player] - points[1 - player]) / 30)


def dealt_value(root: hg.State, state: hg.State, player: int) -> float:
    """:func:`value` of the hand just finished, read from the state the next hand starts from:
    the hand's points are what the totals gained since ``root`` (a position of that hand)."""
    gained = [state.totals[seat] - root.totals[seat] for seat in (0, 1)]
    return math.tanh((gained[player] - gained[1 - player]) / 30)


HOOKS = SearchHooks(
    infoset=canonical,
    resample=hg.resample_hidden,
    rollout=rollout,
    moves=ordered_moves,
    max_children=10,
    horizon=hand_over,
    value=value,
    dealt_value=dealt_value,
)
"""Haggis' search hooks."""
