"""The search agent's hooks for Haggle (:class:`~cardgames_env.core.search.GameAdapter`)."""

from __future__ import annotations

import functools
import math
from typing import Any, ClassVar

import numpy as np

from cardgames_env.core.search import GameAdapter

from . import rules as hl
from .cards import BASE_VALUES, NUM_COLOURS, NUM_MODIFIERS


@functools.lru_cache(maxsize=1 << 16)
def haggle_hand_value(hand: tuple[int, ...], num_players: int) -> float:
    """The Haggle heuristic's estimate of a hand's worth to its holder (one hand, no numpy)."""
    y, b, r, o, w = hand
    white = 0 if w > 3 else 5
    orange = min(o, b)
    value = float(y + 2 * b + 3 * r + 4 * orange + white * w)
    value += 10 * min(hand) + white * min(y // 2, w) + 12 * min(b // 3, orange)
    value += 0.6 * y * y if y >= 4 else 3.0 if y == 3 else 0.0
    value += 1.8 * r if r >= 4 else 0.0
    value += 10.0 * (num_players - 1) / num_players if b >= 5 else 0.0
    value += 3.0 * min(r // 3, 2)
    size = sum(hand)
    if size == 10 and sorted(hand) == [0, 1, 2, 3, 4]:
        value *= 2
    value -= 2.0 * max(size - 13, 0)
    return value - 80.0 if max(hand) >= 7 else value


@functools.lru_cache(maxsize=1 << 16)
def _best_trade(hand: tuple[int, ...], give: tuple[int, ...], n: int, max_offer: int) -> float:
    """Best hand value after giving ``give`` and asking a fair set (no more base value)."""
    given = sum(g * v for g, v in zip(give, BASE_VALUES))
    rest = tuple(h - g for h, g in zip(hand, give))
    best = -math.inf
    for ask in hl.offer_sets(max_offer):
        if ask != give and sum(a * v for a, v in zip(ask, BASE_VALUES)) <= given:
            best = max(best, haggle_hand_value(tuple(h + a for h, a in zip(rest, ask)), n))
    return best


class HaggleAdapter(GameAdapter):
    """Haggle: searched to the end of the game (the real scoring, cap draw sampled); in the
    policy proposers pass (a proposal under way is completed with the best fair trade) and
    targets accept offers that do not lower their hand's value."""

    rules: ClassVar[Any] = hl
    default_children = 8

    def canonical(self, state: Any, player: int) -> Any:
        n = state.num_players
        others = [s for s in range(n) if s != player]
        known = {s: hl.known_cards(state, player, s) for s in others}
        pool = [0] * NUM_COLOURS
        for s in others:
            for colour in range(NUM_COLOURS):
                pool[colour] += state.hands[s][colour] - known[s][colour]
        cards = [colour for colour in range(NUM_COLOURS) for _ in range(pool[colour])]
        hands = list(state.hands)
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
        copies = [self.config.rule_copies] * NUM_MODIFIERS
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

    def legal(self, state: Any) -> list[Any]:
        moves: list[Any] = list(hl.legal_moves(state))
        stage = state.stage
        n = state.num_players
        if stage == hl.Stage.GIVE:
            hand = state.hands[state.proposer]
            max_offer = self.config.max_offer
            moves.sort(key=lambda m: -_best_trade(hand, m.cards, n, max_offer))
        elif stage == hl.Stage.ASK:
            give = state.give
            given = sum(g * v for g, v in zip(give, BASE_VALUES))
            hand = tuple(h - g for h, g in zip(state.hands[state.proposer], give))

            def key(move: Any) -> tuple[bool, float]:
                # Fair asks first (no more base value than given, not the cards given): the
                # ones a partner may take; then by the proposer's resulting hand value.
                fair = move.cards != give and sum(a * v for a, v in zip(move.cards, BASE_VALUES)) <= given
                value = haggle_hand_value(tuple(h + a for h, a in zip(hand, move.cards)), n)
                return (not fair, -value)

            moves.sort(key=key)
        return moves

    def policy(self, state: Any, rng: np.random.Generator) -> Any:
        stage = state.stage
        n = state.num_players
        if stage == hl.Stage.PROPOSE:
            return hl.Pass()
        if stage == hl.Stage.RESPOND:
            hand = state.hands[state.target]
            moves = hl.legal_moves(state)
            if len(moves) > 1:
                after = tuple(h + g - a for h, g, a in zip(hand, state.give, state.ask))
                if haggle_hand_value(after, n) >= haggle_hand_value(hand, n):
                    return moves[1]
            return moves[0]
        if stage == hl.Stage.SUBMIT:
            seat, colour = state.proposer, state.submit_colour
            hand = state.hands[seat]
            done = state.submitted[seat]
            best, best_value = None, -math.inf
            submits: tuple[Any, ...] = hl.legal_moves(state)
            for move in submits:
                trial = tuple(
                    done[c] if c < colour else move.count if c == colour else hand[c]
                    for c in range(NUM_COLOURS)
                )
                value = haggle_hand_value(trial, n)
                if value > best_value:
                    best, best_value = move, value
            return best
        if stage in (hl.Stage.GIVE, hl.Stage.ASK):  # the heuristic's best fair trade
            return self.legal(state)[0]
        if stage == hl.Stage.TERMS:
            return hl.legal_moves(state)[0]
        return self.random_move(state, rng)

    def value(self, root: Any, state: Any, player: int, rng: np.random.Generator) -> float:
        if state.stage == hl.Stage.SCORE:
            state = hl.apply_deal(state, hl.sample_deal(state, rng))
        if state.stage != hl.Stage.DONE:
            return 0.0
        return math.tanh(hl.returns(state)[player] / 3)
