"""Jaipur's search hooks: searched to the end of the round (Seal and rupee gap); exchanges are
searched only at the searching seat's decisions (its best-scored moves), the policy never
exchanges (see :mod:`cardgames_env.core.search`)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from cardgames_env.core.game import CHANCE
from cardgames_env.core.search import SearchHooks

from . import rules as jp
from .cards import CAMEL, HAND_LIMIT, NUM_GOODS, PRECIOUS
from .encoding import ACTIONS
from .heuristic import EXPECTED_BONUS, JaipurHeuristic

ROLLOUT_EPSILON = 0.1
"""Chance that the rollout policy plays a uniformly random move other than an exchange."""


def canonical(state: jp.State, player: int) -> jp.State:
    """``player``'s information set's canonical state: the opponent's unknown goods the lowest
    goods of the unseen pool, the deck the rest in order; the bonus tokens sorted."""
    opp = 1 - player
    hand, known = state.hands[opp], state.known[opp]
    unknown = [h - k for h, k in zip(hand, known)]
    pool = sorted([t for t in range(len(unknown)) for _ in range(unknown[t])] + list(state.deck))
    need = sum(unknown)
    goods = [t for t in pool if t != CAMEL][:need]
    new_hand = list(known)
    for t in goods:
        new_hand[t] += 1
    rest = list(pool)
    for t in goods:
        rest.remove(t)
    held = state.bonus_tokens[opp]
    opp_bonus, piles = [], []
    for kind in range(len(state.bonus_piles)):
        values = sorted(list(held[kind]) + list(state.bonus_piles[kind]))
        opp_bonus.append(tuple(values[: len(held[kind])]))
        piles.append(tuple(values[len(held[kind]) :]))
    hands = list(state.hands)
    hands[opp] = tuple(new_hand)
    bonus = list(state.bonus_tokens)
    bonus[opp] = tuple(opp_bonus)
    return dataclasses.replace(
        state,
        hands=(hands[0], hands[1]),
        deck=tuple(rest),
        bonus_piles=tuple(piles),
        bonus_tokens=tuple(bonus),
    )


def _scores(state: jp.State, moves: Any) -> list[float]:
    """The heuristic's scores of moves (sales by tokens and bonus, takes by set value...)."""
    p = state.player
    hand = state.hands[p]
    market = state.market
    size = sum(hand)
    top = [s[0] if s else 0 for s in state.goods_stacks]
    value = [top[g] + 1.2 * min(hand[g], 4) for g in range(NUM_GOODS)]
    scores = []
    for move in moves:
        kind = type(move)
        if kind is jp.TakeOne:
            scores.append(value[move.good] - 1.0 - (1.5 if size >= HAND_LIMIT - 1 else 0.0))
        elif kind is jp.TakeCamels:
            camels = market[CAMEL]
            scores.append(2.2 * camels - 2.5 if camels >= 3 else camels - 1.5)
        elif kind is jp.Sell:
            g, n = move.good, move.count
            score = sum(state.goods_stacks[g][:n]) - 6.0
            bonus_kind = 0 if n == 3 else 1 if n == 4 else 2 if n >= 5 else -1
            if bonus_kind >= 0 and state.bonus_piles[bonus_kind]:
                score += EXPECTED_BONUS[n]
            if n < hand[g]:
                score -= 2.0
            if n >= 3 or PRECIOUS[g]:
                score += 3.0
            if size >= HAND_LIMIT:
                score += 4.0
            scores.append(score)
        else:
            take, give = move.take, move.give
            gained = sum(take[g] * value[g] for g in range(NUM_GOODS))
            lost = sum(give[g] * (top[g] + 0.8 * min(hand[g], 4)) for g in range(NUM_GOODS))
            precious = sum(give[g] * top[g] for g in range(NUM_GOODS) if PRECIOUS[g])
            scores.append(gained - lost - 0.6 * precious - 1.5 * give[CAMEL] - 2.0)
    return scores


def ordered_moves(state: jp.State) -> list[jp.Move]:
    """The legal moves, best scored first."""
    moves = jp.legal_moves(state)
    scores = _scores(state, moves)
    order = sorted(range(len(moves)), key=lambda i: -scores[i])
    return [moves[i] for i in order]


def _simple_moves(state: jp.State) -> list[jp.Move]:
    """The legal moves other than exchanges (never empty: see the hand-limit argument)."""
    p = state.player
    hand = state.hands[p]
    market = state.market
    moves: list[Any] = []
    if sum(hand) < HAND_LIMIT:
        moves += [jp.TakeOne(g) for g in range(NUM_GOODS) if market[g]]
    if market[CAMEL]:
        moves.append(jp.TakeCamels())
    for g in range(NUM_GOODS):
        moves += [jp.Sell(g, n) for n in range(2 if PRECIOUS[g] else 1, hand[g] + 1)]
    return moves


def rollout(state: jp.State, rng: np.random.Generator) -> jp.Move:
    """The heuristic's best scored move other than an exchange (ties broken at random), or
    one time in ten a uniformly random one of those moves."""
    moves = _simple_moves(state)
    if not moves:  # pragma: no cover - a 7-card hand always holds a sale
        legal = jp.legal_moves(state)
        return legal[int(rng.integers(len(legal)))]
    if rng.random() < ROLLOUT_EPSILON:
        return moves[int(rng.integers(len(moves)))]
    scores = _scores(state, moves)
    best = max(scores)
    ties = [m for m, s in zip(moves, scores) if s >= best - 1e-9]
    return ties[int(rng.integers(len(ties)))] if len(ties) > 1 else ties[0]


def round_over(state: jp.State, player: int) -> bool:
    """The horizon: the round is over (the next deal is chance)."""
    return jp.current_player(state) == CHANCE


def value(root: jp.State, state: jp.State, player: int) -> float:
    """The round's Seal of Excellence and rupee gap, scaled; mid-round the rupee gap alone."""
    if state.round_over:
        result = state.history[-1]
        gap = result.rupees[player] - result.rupees[1 - player]
        seal = 1.0 if result.seal == player else -1.0 if result.seal >= 0 else 0.0
        return 0.6 * seal + 0.4 * math.tanh(gap / 25)
    rupees = jp.rupees(state)
    return 0.4 * math.tanh((rupees[player] - rupees[1 - player]) / 25)


def dealt_value(root: jp.State, state: jp.State, player: int) -> float:
    """:func:`value` of the round just finished, read from the state the next round starts
    from (its result is the last of ``history``)."""
    if len(state.history) <= len(root.history):
        return value(root, state, player)
    result = state.history[-1]
    gap = result.rupees[player] - result.rupees[1 - player]
    seal = 1.0 if result.seal == player else -1.0 if result.seal >= 0 else 0.0
    return 0.6 * seal + 0.4 * math.tanh(gap / 25)


def _round_values(results: np.ndarray, player: int) -> np.ndarray:
    """:func:`value` of finished rounds from their records (``JaipurEngine.last_rounds``)."""
    gap = results[:, player] - results[:, 1 - player]
    seal = results[:, 3]
    won = np.where(seal == player, 1.0, np.where(seal >= 0, -1.0, 0.0))
    return 0.6 * won + 0.4 * np.tanh(gap / 25)


def engine_dealt_value(root: jp.State, engine: Any, slots: np.ndarray, player: int) -> np.ndarray | None:
    """:func:`dealt_value` of the slots where the engine just dealt a new round: the round
    they finished, read from the engine's history."""
    results = engine.last_rounds(slots)
    return None if results is None else _round_values(results, player)


def engine_final_value(root: jp.State, engine: Any, slots: np.ndarray, player: int) -> np.ndarray | None:
    """:func:`value` of the slots' finished games (each ends with a round scored): their last
    round, read from the engine's history."""
    results = engine.last_rounds(slots, final=True)
    return None if results is None else _round_values(results, player)


def light_policy(encoding: Any, seed: int | None = None) -> JaipurHeuristic:
    """The light policy in compiled form: the heuristic's best move other than an exchange, as
    :func:`rollout` plays (in the flat encoding; in the sub-step encoding it keeps the
    exchanges). Not the default of the compiled playouts: the full heuristic's make the
    stronger search."""
    return JaipurHeuristic(encoding, seed=seed, exchanges=encoding.actions.size != ACTIONS.size)


HOOKS = SearchHooks(
    infoset=canonical,
    resample=jp.resample_hidden,
    rollout=rollout,
    moves=ordered_moves,
    max_children=10,
    horizon=round_over,
    value=value,
    dealt_value=dealt_value,
    engine_dealt_value=engine_dealt_value,
    engine_final_value=engine_final_value,
    light_policy=light_policy,
)
"""Jaipur's search hooks."""
