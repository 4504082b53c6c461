"""Gong Zhu encoding: 52 card actions with a follow-suit mask; a seat-rotated observation.

Every piece is seen from the observer's seat: relative seat 0 is "me", 1 the next player
to act after me, and so on. Nothing reveals another player's hand.
"""

from __future__ import annotations

import numpy as np

from cardgames_env.core.actions import ActionTable
from cardgames_env.core.cards import mask_to_array
from cardgames_env.core.game import Encoding
from cardgames_env.core.observation import ObservationLayout
from cardgames_env.core.render import seat_label

from . import rules
from .cards import NOTATION, NUM_PLAYERS, POINT_CARD_IDS, SUIT_MASKS, card_str, notation_of, pretty
from .rules import Config, Play, State

ACTIONS = ActionTable([("play", 52, "play card id i = suit × 13 + rank (suits ♣♦♥♠, ranks 2..A)")])

LAYOUT = ObservationLayout(
    [
        ("hand", 52, "my cards (card id order)"),
        ("trick", (4, 52), "card each relative seat has played to the current trick"),
        ("trick_leader", 4, "one-hot relative seat that led the current trick"),
        ("led_suit", 4, "one-hot suit led in the current trick (all 0 when I lead)"),
        ("played", (4, 52), "every card each relative seat has played this hand"),
        ("captured", (4, 16), f"point cards captured by each relative seat ({NOTATION})"),
        ("hand_points", 4, "each relative seat's score of its captured cards this hand / 100"),
        ("voids", (4, 4), "suits (♣♦♥♠) each relative seat has shown it is void in"),
        ("totals", 4, "each relative seat's total of completed hands / 1000 (multi-hand game)"),
    ]
)

_POINT_IDS = np.array(POINT_CARD_IDS)
_VOID_BITS = np.array([[(v >> s) & 1 for s in range(4)] for v in range(16)], dtype=np.float32)
_S = {p.name: LAYOUT.slice(p.name) for p in LAYOUT.pieces}
_TRICK0 = _S["trick"].start
_LEADER0 = _S["trick_leader"].start
_LED0 = _S["led_suit"].start


class GongZhuEncoding(Encoding):
    """Actions = card ids; observation = :data:`LAYOUT` from the observer's seat."""

    rules = rules

    def __init__(self, config: Config):
        self.config = config
        self.actions = ACTIONS
        self.layout = LAYOUT
        self.num_players = NUM_PLAYERS

    def observe(self, state: State, player: int) -> np.ndarray:
        """Return ``player``'s observation vector (float32, :data:`LAYOUT`)."""
        obs = np.zeros(LAYOUT.size, dtype=np.float32)
        obs[_S["hand"]] = mask_to_array(state.hands[player], 52)
        seats = [(player + r) % NUM_PLAYERS for r in range(NUM_PLAYERS)]
        # All four "played" rows in one unpack: relative seat r occupies bits 52r..52r+51.
        played = 0
        captured = 0
        for r, seat in enumerate(seats):
            played |= state.played[seat] << (52 * r)
            captured |= state.captured[seat] << (52 * r)
        obs[_S["played"]] = mask_to_array(played, 208)
        obs[_S["captured"]] = mask_to_array(captured, 208).reshape(4, 52)[:, _POINT_IDS].ravel()
        if state.trick:
            lead_rel = (state.leader - player) % NUM_PLAYERS
            obs[_LEADER0 + lead_rel] = 1.0
            obs[_LED0 + state.trick[0] // 13] = 1.0
            for i, card in enumerate(state.trick):
                obs[_TRICK0 + 52 * ((lead_rel + i) % NUM_PLAYERS) + card] = 1.0
        obs[_S["hand_points"]] = [state.hand_points[s] / 100 for s in seats]
        obs[_S["voids"]] = _VOID_BITS[[state.voids[s] for s in seats]].ravel()
        obs[_S["totals"]] = [state.totals[s] / 1000 for s in seats]
        return obs

    def legal_action_mask(self, state: State) -> np.ndarray:
        """Return the int8 mask of playable cards (follow suit)."""
        return mask_to_array(rules.legal_mask(state), 52).view(np.int8)

    def encode(self, state: State, move: Play) -> int:
        """Return the action of a move (its card id)."""
        return move.card

    def decode(self, state: State, action: int) -> Play:
        """Return the move of an action."""
        if not 0 <= action < 52:
            raise ValueError(f"Gong Zhu actions are 0..51, got {action}")
        return Play(action)

    def render(self, state: State, viewer: int | None) -> str:
        """Hands (the viewer's only, when given), the trick, captured point cards and scores."""
        return render_state(state, viewer)


def _format_hand(mask: int) -> str:
    parts = []
    for suit in (3, 2, 1, 0):
        cards = [c for c in range(52) if mask >> c & 1 and c // 13 == suit]
        ranks = " ".join(pretty(c)[1:] for c in sorted(cards, reverse=True))
        parts.append(f"{'♣♦♥♠'[suit]} {ranks or '-'}")
    return "  ".join(parts)


def render_state(state: State, viewer: int | None) -> str:
    """Return a compact text picture of a Gong Zhu state seen by ``viewer``."""
    mover = rules.current_player(state)
    status = f"P{mover} to play" if mover >= 0 else ("game over" if mover == -2 else "next hand")
    lines = [f"Gong Zhu — hand {state.hand_number}, trick {min(state.tricks_played + 1, 13)}/13, {status}"]
    for seat in range(NUM_PLAYERS):
        label = seat_label(seat, viewer).ljust(9)
        if viewer is None or seat == viewer:
            lines.append(f"  {label} {_format_hand(state.hands[seat])}")
        else:
            lines.append(f"  {label} {state.hands[seat].bit_count()} cards")
    if state.trick:
        played = "  ".join(
            f"P{(state.leader + i) % NUM_PLAYERS} {pretty(c)}" for i, c in enumerate(state.trick)
        )
        lines.append(f"  trick:    {played}")
    else:
        lines.append(f"  trick:    (P{state.leader} leads)" if not state.hand_over else "  trick:    -")
    captured = "  ".join(
        f"P{s} [{notation_of(state.captured[s]) or '-'}] {state.hand_points[s]:+d}"
        for s in range(NUM_PLAYERS)
    )
    lines.append(f"  captured: {captured}")
    if state.config.game_end is not None or state.hand_over:
        lines.append("  totals:   " + "  ".join(f"P{s} {t:+d}" for s, t in enumerate(state.totals)))
    return "\n".join(lines)


__all__ = ["ACTIONS", "LAYOUT", "GongZhuEncoding", "card_str", "SUIT_MASKS"]
