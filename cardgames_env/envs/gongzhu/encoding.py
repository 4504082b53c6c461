"""Gong Zhu encoding: 52 card actions with a follow-suit mask; a seat-rotated observation.

Every piece is seen from the observer's seat: relative seat 0 is "me", 1 the next player
to act after me, and so on. Nothing reveals another player's hand.
"""

from __future__ import annotations

import functools

import numpy as np

from cardgames_env.core.actions import ActionTable
from cardgames_env.core.cards import FRENCH_RANKS, mask_to_array, mask_to_float32
from cardgames_env.core.game import Encoding
from cardgames_env.core.observation import ObservationLayout
from cardgames_env.display.ansi import seat_label

from . import rules
from .cards import NOTATION, NUM_PLAYERS, POINT_CARD_IDS, SUIT_MASKS, card_str, notation_of
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
        ("voids", (4, 4), "suits (♣♦♥♠) each relative seat has shown it is void in"),
        ("spade2_holder", 4, "one-hot relative seat known to hold the unplayed ♠2 (first leader, hand 1)"),
        ("hand_points", 4, "each relative seat's score of its captured cards this hand / 100"),
        ("totals", 4, "each relative seat's total of completed hands / 1000 (multi-hand game)"),
    ]
)

# Every 0/1 piece is packed into one Python int whose bit k is observation entry k, then
# unpacked with one numpy call; hand_points and totals (floats) are written afterwards.
_OFF = {p.name: p.offset for p in LAYOUT.pieces}
_BINARY_END = _OFF["hand_points"]
assert _OFF["voids"] + 16 == _OFF["spade2_holder"] == _BINARY_END - 4
assert _OFF["totals"] == _BINARY_END + 4 == LAYOUT.size - 4
_PLAYED, _CAPTURED, _VOIDS = _OFF["played"], _OFF["captured"], _OFF["voids"]
_SPADE2_HOLDER = _OFF["spade2_holder"]
_TRICK, _TRICK_LEADER, _LED_SUIT = _OFF["trick"], _OFF["trick_leader"], _OFF["led_suit"]
_ROTATIONS = tuple(tuple((p + r) % NUM_PLAYERS for r in range(NUM_PLAYERS)) for p in range(NUM_PLAYERS))


@functools.lru_cache(maxsize=4096)
def _score_tail(hand_points: tuple[int, ...], totals: tuple[int, ...], player: int) -> np.ndarray:
    """The ``hand_points`` and ``totals`` pieces for ``player`` (cached: they change per trick)."""
    seats = _ROTATIONS[player]
    return np.array(
        [hand_points[s] / 100 for s in seats] + [totals[s] / 1000 for s in seats], dtype=np.float32
    )


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
        seats = _ROTATIONS[player]
        played, point_masks, voids = state.played, state.point_masks, state.voids
        bits = state.hands[player]
        for r in range(NUM_PLAYERS):
            seat = seats[r]
            bits |= (
                played[seat] << (_PLAYED + 52 * r)
                | point_masks[seat] << (_CAPTURED + 16 * r)
                | voids[seat] << (_VOIDS + 4 * r)
            )
        holder = rules.spade_two_holder(state)
        if holder >= 0:
            bits |= 1 << (_SPADE2_HOLDER + (holder - player) % NUM_PLAYERS)
        trick = state.trick
        if trick:
            lead_rel = (state.leader - player) % NUM_PLAYERS
            bits |= 1 << (_TRICK_LEADER + lead_rel) | 1 << (_LED_SUIT + trick[0] // 13)
            for i, card in enumerate(trick):
                bits |= 1 << (_TRICK + 52 * ((lead_rel + i) % NUM_PLAYERS) + card)
        obs = mask_to_float32(bits, LAYOUT.size)
        if any(state.hand_points) or any(state.totals):
            obs[_BINARY_END:] = _score_tail(state.hand_points, state.totals, player)
        return obs

    def legal_action_mask(self, state: State) -> np.ndarray:
        """Return the int8 mask of playable cards (follow suit)."""
        return mask_to_array(rules.legal_mask(state), 52).view(np.int8)

    def apply_action(self, state: State, action: int) -> State:
        """Play the card of a mask-checked action (skips re-validating it)."""
        return rules.play_checked_card(state, action)

    def encode(self, state: State, move: Play) -> int:
        """Return the action of a move (its card id)."""
        return move.card

    def decode(self, state: State, action: int) -> Play:
        """Return the move of an action."""
        if not 0 <= action < 52:
            raise ValueError(f"Gong Zhu actions are 0..51, got {action}")
        return Play(action)

    def describe_transition(self, before: State, after: State) -> str | None:
        """Narrate a completed trick (who took it, point cards, score) and a finished hand."""
        if after.hand_number != before.hand_number:  # the last trick ended the hand; new deal
            return "  -> hand over; totals " + "  ".join(
                f"P{s} {t:+d}" for s, t in enumerate(after.totals)
            ) + f"; P{after.leader} (pig) leads hand {after.hand_number}"
        if len(before.trick) != NUM_PLAYERS - 1:
            return None
        winner = after.leader
        gained = notation_of(after.captured[winner] & ~before.captured[winner])
        line = f"  -> P{winner} takes the trick"
        if gained:
            line += f" with [{gained}], hand score {after.hand_points[winner]:+d}"
        return line

    def render(self, state: State, viewer: int | None) -> str:
        """Hands (the viewer's only, when given), the trick, captured point cards and scores."""
        return render_state(state, viewer)

    def legend(self) -> str:
        """The card notation (``T`` is the ten) and the captured point cards' symbols."""
        return LEGEND


LEGEND = (
    "cards: rank then suit (C D H S), T = 10: TD is the ten of diamonds (10D reads too); "
    "captured: hearts by rank, " + ", ".join(
        f"{symbol} = {name} ({card_str(card)})"
        for symbol, name, card in zip(NOTATION[13:], ("pig", "goat", "transformer"), POINT_CARD_IDS[13:])
    )
)
"""What the terminal's Gong Zhu picture abbreviates: the move notation's cards and the
captured point cards' symbols (:data:`~cardgames_env.envs.gongzhu.cards.NOTATION`)."""


def _format_hand(mask: int) -> str:
    """Return a hand by suit (♠ ♥ ♦ ♣), highest rank first, in the notation's ranks (``T`` = 10)."""
    parts = []
    for suit in (3, 2, 1, 0):
        cards = [c for c in range(52) if mask >> c & 1 and c // 13 == suit]
        ranks = " ".join(FRENCH_RANKS[c % 13] for c in sorted(cards, reverse=True))
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
            f"P{(state.leader + i) % NUM_PLAYERS} {card_str(c)}" for i, c in enumerate(state.trick)
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
