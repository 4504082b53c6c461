"""High Card's actions and observations: action ``i`` plays card id ``i``."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardgames_env.core.actions import ActionTable
from cardgames_env.core.cards import cards_of, mask_to_float32
from cardgames_env.core.game import Encoding
from cardgames_env.core.observation import ObservationLayout

from . import rules


class HighCardEncoding(Encoding):
    """One action per card; the observation is the seat's hand, the card led, both seats'
    played cards and the tricks won (seat-rotated: "me" first)."""

    rules = rules

    def __init__(self, config: rules.Config) -> None:
        super().__init__(config)
        n = config.deck_size
        self.num_players = 2
        self.actions = ActionTable([("play", n, "play card id i (its number is i + 1)")])
        self.layout = ObservationLayout([
            ("hand", n, "my cards"),
            ("led", n, "the card led in the trick under way, if any"),
            ("played", (2, n), "the cards each seat played (me first)"),
            ("tricks", 2, "tricks won (me first) / hand size"),
            ("leading", 1, "1 when I lead the trick"),
        ])

    def observe(self, state: rules.State, player: int) -> np.ndarray:
        n = self.config.deck_size
        other = 1 - player
        out = self.layout.zeros()
        out[self.layout.slice("hand")] = mask_to_float32(state.hands[player], n)
        if state.trick:
            out[self.layout.slice("led")] = mask_to_float32(1 << state.trick[0], n)
        played = self.layout.slice("played")
        out[played] = np.concatenate([mask_to_float32(state.played[s], n) for s in (player, other)])
        out[self.layout.slice("tricks")] = np.array(
            [state.tricks[player], state.tricks[other]], dtype=np.float32
        ) / self.config.hand_size
        out[self.layout.slice("leading")] = float(state.leader == player and not rules.is_terminal(state))
        return out

    def legal_action_mask(self, state: rules.State) -> np.ndarray:
        player = rules.current_player(state)
        return self.actions.mask(cards_of(state.hands[player]) if player >= 0 else ())

    def encode(self, state: Any, move: rules.Play) -> int:
        if not isinstance(move, rules.Play) or not 0 <= move.card < self.config.deck_size:
            raise ValueError(f"{move} is not a move of this deck")
        return move.card

    def decode(self, state: Any, action: int) -> rules.Play:
        return rules.Play(int(action))

    def render(self, state: rules.State, viewer: int | None) -> str:
        lines = []
        for seat in range(2):
            hand = " ".join(str(c + 1) for c in cards_of(state.hands[seat]))
            if viewer is not None and viewer != seat:
                hand = "?" * state.hands[seat].bit_count()
            lines.append(f"P{seat}: hand {hand}; tricks {state.tricks[seat]}")
        lines.append(f"trick: {' '.join(str(c + 1) for c in state.trick) or '-'} (P{state.leader} leads)")
        return "\n".join(lines)
