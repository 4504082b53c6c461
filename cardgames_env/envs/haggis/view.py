"""Haggis as a seat sees it, as JSON for the browser (see :mod:`cardgames_env.core.view`)."""

from __future__ import annotations

from typing import Any

from cardgames_env.core.cards import SUIT_SYMBOLS
from cardgames_env.core.view import (
    FRENCH_SUIT_COLOURS,
    Json,
    card,
    hand_over_message,
    own_zone_id,
    seat_name,
    sees,
    zone,
)

from . import rules
from .cards import FACE_MASK, FACE_NAMES, card_str, ids_of
from .combos import reading_str

TITLE = "Haggis"
CARD_COLOURS: dict[str, dict[str, str]] = {
    **FRENCH_SUIT_COLOURS,
    "face": {"background": "#fff3cf", "color": "#6b4b00"},
}
"""Number cards in their suit's colour (a card's kind is its suit letter); J, Q, K as faces."""


def _card(c: int) -> Json:
    text = card_str(c)
    if c in FACE_NAMES:  # the J, Q and K are wild
        return {**card(text, text, "face"), "sub": "wild"}
    return card(text, text[:-1] + SUIT_SYMBOLS[text[-1]], text[-1])


def _cards(mask: int) -> list[Json]:
    return [_card(c) for c in ids_of(mask)]


def table(state: rules.State, viewer: int | None, memory: Json) -> Json:
    """The trick (every play in it), the viewer's hand, the opponent's count and unplayed faces."""
    plays = "  ".join(f"P{seat}: {reading_str(reading)}" for seat, _, reading in state.trick)
    trick_cards = [  # "group": which play of the trick a card belongs to
        {**c, "group": i} for i, (_, cards, _) in enumerate(state.trick) for c in _cards(cards)
    ]
    zones = [zone("trick", "Trick", trick_cards, note=plays or "empty: the player to move leads")]
    mover = rules.current_player(state)
    for p in range(2):
        name = seat_name(p, viewer)
        hand = state.hands[p]
        if sees(p, viewer):
            hand_id = own_zone_id("hand", p, viewer, mover)
            zones.append(zone(hand_id, f"{name} hand", _cards(hand), owner=p))
        else:
            faces = hand & FACE_MASK  # each player's J, Q, K are public until played
            zones.append(zone(f"hand{p}", f"{name} hand", _cards(faces),
                              hand.bit_count() - faces.bit_count(), note="faces shown, number cards hidden",
                              owner=p))
    info = [
        ["Hand", f"{state.hand_number} (target {state.config.target_score})"],
        ["Points this hand", "  ".join(f"P{s} {v:+d}" for s, v in enumerate(state.hand_points))],
        ["Totals", "  ".join(f"P{s} {v}" for s, v in enumerate(state.totals))],
        ["Points in this trick", str(state.trick_points)],
    ]
    return {"zones": zones, "info": info}


def selection(move: Any, state: rules.State) -> Json:
    """Hand cards of a play (nothing for a pass)."""
    if isinstance(move, rules.Play):
        return {"hand": [card_str(c) for c in ids_of(move.cards)]}
    return {}


def scores(state: rules.State) -> Json:
    """The last hand's points and the totals."""
    rows = []
    if state.last_hand_points is not None:
        rows.append(["Last hand", *state.last_hand_points])
    rows.append(["This hand", *state.hand_points])
    rows.append(["Totals", *state.totals])
    return {"rows": rows}


def round_message(before: rules.State, after: rules.State) -> str | None:
    """A line announcing the end of a hand that the move from ``before`` to ``after`` brought."""
    return hand_over_message(before, after)


def winners(state: rules.State) -> list[int]:
    """The winner of a finished game."""
    return [rules.winner(state)]
