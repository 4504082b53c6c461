"""The search agent's hooks for Red7 (:class:`~cardgames_env.core.search.GameAdapter`)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from cardgames_env.core.cards import cards_of, mask_of
from cardgames_env.core.search import GameAdapter

from . import rules as r7
from .cards import CARD_COLOUR
from .scoring import strengths


def _red7_spent(move: Any) -> tuple[int, ...]:
    """Hand cards a Red7 move gives away, highest first (the heuristic's cost)."""
    if isinstance(move, (r7.Play, r7.Discard)):
        return (move.card,)
    if isinstance(move, r7.PlayDiscard):
        return tuple(sorted((move.play, move.discard), reverse=True))
    return ()


def _red7_cheapest(state: Any) -> Any:
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


class Red7Adapter(GameAdapter):
    """Red7: searched to the end of the round; the policy keeps winning as cheaply as it can."""

    rules: ClassVar[Any] = r7
    default_epsilon = 0.0

    def canonical(self, state: Any, player: int) -> Any:
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

    def __init__(self, encoding: Any, epsilon: float | None = None):
        super().__init__(encoding, epsilon)
        self._keys: dict[Any, tuple] = {}

    def _key(self, move: Any) -> tuple:
        """The heuristic's preference: fewest cards spent, then the lowest, then the action id
        (its encoding does not depend on the state); giving up last."""
        key = self._keys.get(move)
        if key is None:
            spent = _red7_spent(move)
            key = (isinstance(move, r7.GiveUp), len(spent), spent, self.encoding.encode(None, move))
            self._keys[move] = key
        return key

    def legal(self, state: Any) -> list[Any]:
        return sorted(r7.legal_moves(state), key=self._key)

    def apply(self, state: Any, move: Any) -> Any:
        return r7.apply_legal_move(state, move)

    def policy(self, state: Any, rng: np.random.Generator) -> Any:
        if self.epsilon and rng.random() < self.epsilon:
            return self.random_move(state, rng)
        config = self.config
        if config.strict and not config.action_rule and state.phase == r7.MAIN and state.hands[state.player]:
            return _red7_cheapest(state)
        moves = r7.legal_moves(state)
        if config.strict:
            return min(moves, key=self._key)
        seat = state.player
        for move in sorted(moves, key=self._key):  # off strict: the cheapest move keeping the seat in
            if isinstance(move, r7.GiveUp):
                return move
            if r7.apply_legal_move(state, move).active >> seat & 1:
                return move
        return r7.GiveUp()

    def stop(self, state: Any, player: int) -> bool:
        return not state.active >> player & 1

    def value(self, root: Any, state: Any, player: int, rng: np.random.Generator) -> float:
        if not self.config.advanced:
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
