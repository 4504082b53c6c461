"""Gong Zhu as a seat sees it, as JSON for the browser (see :mod:`cardgames_env.core.view`).

The trick just finished is not in the rules state once the next card is led: the view's
memory keeps it (``last_trick``, built move by move by :func:`remember`) and the table shows it
until the next lead.
"""

from __future__ import annotations

from typing import Any

from cardgames_env.core.cards import french_card_str
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
from .cards import NUM_PLAYERS, POINT_CARDS_MASK, notation_of, pretty
from .scoring import score

TITLE = "Gong Zhu"
CARD_COLOURS: dict[str, dict[str, str]] = dict(FRENCH_SUIT_COLOURS)
"""Cards in their suit's colour (a card's kind is its suit letter)."""


def _card(c: int) -> Json:
    code = french_card_str(c)
    return card(code, pretty(c), code[-1])


def _cards(mask: int) -> list[Json]:
    ordered = sorted(range(52), key=lambda c: (-(c // 13), -(c % 13)))
    return [_card(c) for c in ordered if mask >> c & 1]


def table(state: rules.State, viewer: int | None, memory: Json) -> Json:
    """The trick in play order (the one just finished until the next lead), the viewer's hand,
    the captured point cards of every seat.

    ``memory["last_trick"]`` is ``(leader, cards in play order, winner)`` of the latest
    finished trick.
    """
    last_trick = memory.get("last_trick")
    n = NUM_PLAYERS
    trick = [_card(c) for c in state.trick]
    order = " ".join(f"P{(state.leader + i) % n}" for i in range(len(state.trick)))
    if state.trick or last_trick is None:
        note = f"played by {order}" if order else f"P{state.leader} leads"
        trick_zone = zone("trick", "Trick", trick, note=note)
    else:
        leader, cards, winner = last_trick
        order = " ".join(f"P{(leader + i) % n}" for i in range(len(cards)))
        trick_zone = zone("trick", "Last trick", [_card(c) for c in cards],
                          note=f"played by {order}; P{winner} took it · P{state.leader} leads next")
        trick_zone["done"] = True
    zones = [trick_zone]
    mover = rules.current_player(state)
    for p in range(n):
        name = seat_name(p, viewer)
        hand = state.hands[p]
        if sees(p, viewer):
            hand_id = own_zone_id("hand", p, viewer, mover)
            zones.append(zone(hand_id, f"{name} hand", _cards(hand), owner=p))
        else:
            zones.append(zone(f"hand{p}", f"{name} hand", hidden=hand.bit_count(), owner=p))
        captured = state.captured[p] & POINT_CARDS_MASK
        zones.append(zone(f"captured{p}", f"{name} captured", _cards(captured),
                          note=f"{state.hand_points[p]:+d} this hand", owner=p))
    info = [
        ["Hand", f"{state.hand_number}, trick {min(state.tricks_played + 1, 13)}/13"],
        ["Totals", "  ".join(f"P{s} {t:+d}" for s, t in enumerate(state.totals))],
    ]
    return {"zones": zones, "info": info}


def selection(move: Any, state: rules.State) -> Json:
    """The hand card a move plays."""
    return {"hand": [french_card_str(move.card)]}


def scores(state: rules.State) -> Json:
    """Captured point cards (scorer notation) and their score, last hand, totals."""
    rows = [
        ["Point cards captured", *(notation_of(c) or "-" for c in state.captured)],
        ["Their score", *(score(notation_of(c)) for c in state.captured)],
    ]
    if state.last_hand_points is not None:
        rows.append(["Last hand", *state.last_hand_points])
    rows.append(["Totals", *state.totals])
    return {"rows": rows}


def remember(memory: Json, before: rules.State, after: rules.State, move: str) -> Json:
    """The memory after a move: ``last_trick``, ``(leader, cards, winner)`` of the latest
    finished trick (cards played face up: public)."""
    if len(before.trick) != NUM_PLAYERS - 1:
        return memory
    played = rules.parse_move(move)
    winner = rules.apply_move(before, played).leader  # ``after`` may be the next hand's deal
    return {**memory, "last_trick": (before.leader, (*before.trick, played.card), winner)}


def round_message(before: rules.State, after: rules.State) -> str | None:
    """A line announcing the end of a hand that the move from ``before`` to ``after`` brought."""
    return hand_over_message(before, after)


def winners(state: rules.State) -> list[int]:
    """The seats that won a finished game."""
    return list(rules.winners(state))
