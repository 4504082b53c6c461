"""Red7's search hooks: searched to the end of the round; the policy keeps winning as cheaply
as it can (see :mod:`cardgames_env.core.search`)."""

from __future__ import annotations

import functools
import math

import numpy as np

from cardgames_env.core.cards import cards_of, mask_of
from cardgames_env.core.game import CHANCE
from cardgames_env.core.search import SearchHooks

from . import rules as r7
from .cards import CARD_COLOUR
from .encoding import move_action
from .heuristic import PREFERENCE
from .scoring import strengths


def canonical(state: r7.State, player: int) -> r7.State:
    """``player``'s information set's canonical state: the unknown cards of the other hands,
    the unseen hands of eliminated seats and the deck below its known top, re-dealt sorted."""
    n = state.num_players
    pool: list[int] = []
    for s in range(n):
        if s != player:
            pool += list(cards_of(state.hands[s] & ~state.known_hands[s]))
            pool += list(cards_of(state.out_hidden[s]))
    pool += state.deck[state.known_top :]
    pool.sort()
    pos = 0
    hands = list(state.hands)
    out_hidden = list(state.out_hidden)
    for s in range(n):
        if s != player:
            k = (state.hands[s] & ~state.known_hands[s]).bit_count()
            hands[s] = state.known_hands[s] | mask_of(pool[pos : pos + k])
            pos += k
            k = state.out_hidden[s].bit_count()
            out_hidden[s] = mask_of(pool[pos : pos + k])
            pos += k
    deck = state.deck[: state.known_top] + tuple(pool[pos:])
    return state._replace(hands=tuple(hands), out_hidden=tuple(out_hidden), deck=deck)


@functools.lru_cache(maxsize=1 << 12)
def move_key(move: r7.Move) -> tuple[bool, int]:
    """The heuristic's preference (:data:`~cardgames_env.envs.red7.heuristic.PREFERENCE`, the
    one statement of it): fewest cards spent, then the lowest, then the action id; giving up
    last."""
    return (isinstance(move, r7.GiveUp), int(PREFERENCE[move_action(move)]))


def ordered_moves(state: r7.State) -> list[r7.Move]:
    """The legal moves in the heuristic's order of preference."""
    return sorted(r7.legal_moves(state), key=move_key)


def _cheapest(state: r7.State) -> r7.Move:
    """The heuristic's move at a strict turn start without the action rule, found directly:
    the lowest card that can be played or discarded alone (playing first), else the pair
    whose higher then lower card is lowest, else giving up."""
    p = state.player
    hand = list(cards_of(state.hands[p]))
    palette = state.palettes[p]
    thresholds = r7.opponent_thresholds(state, p)
    rule = state.rule
    base = strengths(palette)
    after = {c: strengths(palette | 1 << c) for c in hand}
    for c in hand:
        if after[c][rule] > thresholds[rule]:
            return r7.Play(c)
        colour = CARD_COLOUR[c]
        if base[colour] > thresholds[colour]:
            return r7.Discard(c)
    best, best_key = None, None
    for c in hand:
        for d in hand:
            if d != c and after[c][CARD_COLOUR[d]] > thresholds[CARD_COLOUR[d]]:
                key = (max(c, d), min(c, d), c)
                if best_key is None or key < best_key:
                    best, best_key = r7.PlayDiscard(c, d), key
    return best if best is not None else r7.GiveUp()


def rollout(state: r7.State, rng: np.random.Generator) -> r7.Move:
    """The heuristic's move: the cheapest one that keeps the seat winning (off strict, the
    cheapest that keeps it in the round), else giving up."""
    config = state.config
    if config.strict and not config.action_rule and state.phase == r7.MAIN and state.hands[state.player]:
        return _cheapest(state)
    moves = r7.legal_moves(state)
    if config.strict:
        return min(moves, key=move_key)
    seat = state.player
    for move in sorted(moves, key=move_key):
        if isinstance(move, r7.GiveUp):
            return move
        if r7.apply_legal_move(state, move).active >> seat & 1:
            return move
    return r7.GiveUp()


def round_over(state: r7.State, player: int) -> bool:
    """The horizon: the round is over (the next deal is chance) or ``player`` is out."""
    return not state.active >> player & 1 or r7.current_player(state) == CHANCE


def value(root: r7.State, state: r7.State, player: int) -> float:
    """The result of the round: out is -1; in the advanced game the round's winner and the
    score gained against the best other seat."""
    if not state.config.advanced:
        if not state.active >> player & 1:
            return -1.0
        return r7.returns(state)[player] if state.status == r7.GAME_OVER else 0.0
    if state.status == r7.GAME_OVER:
        return r7.returns(state)[player]
    if state.status != r7.ROUND_OVER:
        return 0.0
    gains = [a - b for a, b in zip(state.scores, root.scores)]
    best_other = max(g for s, g in enumerate(gains) if s != player)
    won = 1.0 if state.winner == player else -1.0
    return 0.5 * won + 0.5 * math.tanh((gains[player] - best_other) / 10)


def points_value(root: r7.State, points: np.ndarray, player: int) -> np.ndarray | None:
    """:func:`value` of finished basic games from their points (1 for the winner, 0 for the
    others): +1 for the winner, -1 for every other seat. ``None`` for the advanced game."""
    if root.config.advanced:
        return None
    return 2.0 * points[:, player] - 1.0


HOOKS = SearchHooks(
    infoset=canonical,
    resample=r7.resample_hidden,
    rollout=rollout,
    moves=ordered_moves,
    horizon=round_over,
    value=value,
    apply=r7.apply_legal_move,
    points_value=points_value,
)
"""Red7's search hooks."""
