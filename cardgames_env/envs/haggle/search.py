"""Haggle's search hooks: searched to the end of the game; in the policy proposers pass and
targets accept offers that do not lower their hand's value (see
:mod:`cardgames_env.core.search`)."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from cardgames_env.core.search import SearchHooks

from . import rules as hl
from .cards import BASE_VALUES, NUM_COLOURS, NUM_MODIFIERS
from .heuristic import HaggleHeuristic, hand_value


@functools.lru_cache(maxsize=1 << 16)
def _best_trade(hand: tuple[int, ...], give: tuple[int, ...], n: int, max_offer: int) -> float:
    """Best hand value after giving ``give`` and asking a fair set (no more base value)."""
    given = sum(g * v for g, v in zip(give, BASE_VALUES))
    rest = tuple(h - g for h, g in zip(hand, give))
    best = -math.inf
    for ask in hl.offer_sets(max_offer):
        if ask != give and sum(a * v for a, v in zip(ask, BASE_VALUES)) <= given:
            best = max(best, hand_value(tuple(h + a for h, a in zip(rest, ask)), n))
    return best


def canonical(state: hl.State, player: int) -> hl.State:
    """``player``'s information set's canonical state: the unknown cards of the other hands
    dealt in colour order, the unseen rule cards in sorted order over the unseen slots."""
    n = state.num_players
    others = [s for s in range(n) if s != player]
    known = {s: hl.known_cards(state, player, s) for s in others}
    pool = [0] * NUM_COLOURS
    for s in others:
        for colour in range(NUM_COLOURS):
            pool[colour] += state.hands[s][colour] - known[s][colour]
    cards = [colour for colour in range(NUM_COLOURS) for _ in range(pool[colour])]
    hands: list[Any] = list(state.hands)
    pos = 0
    for s in others:
        extra = sum(state.hands[s]) - sum(known[s])
        hand = list(known[s])
        for colour in cards[pos : pos + extra]:
            hand[colour] += 1
        hands[s] = tuple(hand)
        pos += extra
    # Rule cards: the unseen ones, in sorted order, over the unseen slots sorted by who has
    # seen them (a fact the seat knows), so that the records of shows keep their meaning.
    copies = [state.config.rule_copies] * NUM_MODIFIERS
    for rule in state.rules[player]:
        copies[rule] -= 1
    slots = []
    for s in others:
        seen = state.shown[player * n + s]
        for rule in state.rules[s]:
            if seen >> rule & 1:
                copies[rule] -= 1
            else:
                pattern = tuple(state.shown[v * n + s] >> rule & 1 for v in range(n))
                pending = int(state.show == rule and state.proposer == s)
                slots.append((s, pattern, pending, rule))
    unseen = [r for r in range(NUM_MODIFIERS) for _ in range(copies[r])]
    slots.sort(key=lambda slot: (slot[0], slot[1], slot[2]))
    renames: dict[int, dict[int, int]] = {s: {} for s in others}
    new_rules = list(state.rules)
    pos = 0
    for s in others:
        mine = [slot for slot in slots if slot[0] == s]
        fixed = [r for r in state.rules[s] if state.shown[player * n + s] >> r & 1]
        chosen: list[int] = []
        for _ in mine:
            for i in range(pos, len(unseen)):
                if unseen[i] not in fixed and unseen[i] not in chosen:
                    unseen[pos], unseen[i] = unseen[i], unseen[pos]
                    break
            chosen.append(unseen[pos])
            pos += 1
        unseen[pos:] = sorted(unseen[pos:])
        for slot, new in zip(mine, chosen):
            renames[s][slot[3]] = new
        for r in fixed:
            renames[s][r] = r
        pair = [renames[s][r] for r in state.rules[s]]
        new_rules[s] = (min(pair), max(pair))
    return hl.redealt(state, player, hands, new_rules, renames)


def ordered_moves(state: hl.State) -> list[hl.Move]:
    """The legal moves; a proposal's give and ask ordered by the heuristic's trade value."""
    moves: list[Any] = list(hl.legal_moves(state))
    stage = state.stage
    n = state.num_players
    if stage == hl.Stage.GIVE:
        hand = state.hands[state.proposer]
        max_offer = state.config.max_offer
        moves.sort(key=lambda m: -_best_trade(hand, m.cards, n, max_offer))
    elif stage == hl.Stage.ASK:
        give = state.give
        given = sum(g * v for g, v in zip(give, BASE_VALUES))
        kept = tuple(h - g for h, g in zip(state.hands[state.proposer], give))

        def key(move: Any) -> tuple[bool, float]:
            # Fair asks first (no more base value than given, not the cards given): the
            # ones a partner may take; then by the proposer's resulting hand value.
            fair = move.cards != give and sum(a * v for a, v in zip(move.cards, BASE_VALUES)) <= given
            value = hand_value(tuple(h + a for h, a in zip(kept, move.cards)), n)
            return (not fair, -value)

        moves.sort(key=key)
    return moves


def rollout(state: hl.State, rng: np.random.Generator) -> hl.Move:
    """The heuristic's move: proposers pass (a proposal under way is completed with the best
    fair trade), targets accept offers that do not lower their hand's value, submissions keep
    the most valuable hand."""
    stage = state.stage
    n = state.num_players
    if stage == hl.Stage.PROPOSE:
        return hl.Pass()
    if stage == hl.Stage.RESPOND:
        hand = state.hands[state.target]
        moves = hl.legal_moves(state)
        if len(moves) > 1:
            after = tuple(h + g - a for h, g, a in zip(hand, state.give, state.ask))
            if hand_value(after, n) >= hand_value(hand, n):
                return moves[1]
        return moves[0]
    if stage == hl.Stage.SUBMIT:
        seat, colour = state.proposer, state.submit_colour
        hand = state.hands[seat]
        done = state.submitted[seat]
        best: Any = None
        best_value = -math.inf
        submits: tuple[Any, ...] = hl.legal_moves(state)
        for move in submits:
            trial = tuple(
                done[c] if c < colour else move.count if c == colour else hand[c]
                for c in range(NUM_COLOURS)
            )
            value = hand_value(trial, n)
            if value > best_value:
                best, best_value = move, value
        return best
    if stage in (hl.Stage.GIVE, hl.Stage.ASK):  # the heuristic's best fair trade
        return ordered_moves(state)[0]
    if stage == hl.Stage.TERMS:
        return hl.legal_moves(state)[0]
    legal = hl.legal_moves(state)
    return legal[int(rng.integers(len(legal)))]


def value(root: hl.State, state: hl.State, player: int) -> float:
    """The game's return, scaled."""
    if state.stage != hl.Stage.DONE:
        return 0.0
    return math.tanh(hl.returns(state)[player] / 3)


def returns_value(root: hl.State, returns: np.ndarray, player: int) -> np.ndarray:
    """:func:`value` of finished games from the returns their simulations gained: a game's
    returns are paid whole in the step that scores it."""
    return np.tanh(returns[:, player] / 3)


def light_policy(encoding: Any, seed: int | None = None) -> HaggleHeuristic:
    """The light policy in compiled form, which plays the compiled search's playouts: the
    compiled heuristic with proposers passing, as in :func:`rollout` (an offer under way, a
    response and the submissions as the heuristic plays them), so that a playout ends once
    every seat has passed."""
    policy = HaggleHeuristic(encoding, seed=seed)
    policy.min_gain = math.inf
    return policy


HOOKS = SearchHooks(
    infoset=canonical,
    resample=hl.resample_hidden,
    rollout=rollout,
    moves=ordered_moves,
    max_children=8,
    value=value,
    returns_value=returns_value,
    light_policy=light_policy,
    playouts="light",
    prior="pretrained",
)
"""Haggle's search hooks (searched to the end of the game, the scoring draw dealt; the
compiled search's playouts pass as the light policy does, its root priors come from the
shipped policy, which plays Haggle better than the heuristic)."""
