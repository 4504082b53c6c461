"""High Card as a seat sees it, as JSON for the browser (see :mod:`cardgames_env.core.view`)."""

from __future__ import annotations

from typing import Any

from cardgames_env.core.cards import cards_of
from cardgames_env.core.view import Json, card, own_zone_id, seat_name, sees, zone

from . import rules

TITLE = "High Card"
CARD_COLOURS: dict[str, dict[str, str]] = {"number": {"background": "#fdfdfd", "color": "#1d1d1f"}}
"""Every card has the one face."""


def _cards(mask: int) -> list[Json]:
    return [card(str(c + 1), str(c + 1), "number") for c in cards_of(mask)]


def table(state: rules.State, viewer: int | None, memory: Json) -> Json:
    """The card led, each hand (the viewer's only), the cards each seat played."""
    zones = [zone("trick", "Trick", [c for led in state.trick for c in _cards(1 << led)],
                  note=f"P{state.leader} leads")]
    mover = rules.current_player(state)
    for p in range(2):
        shown = sees(p, viewer)
        hand = state.hands[p]
        zones.append(zone(own_zone_id("hand", p, viewer, mover), f"{seat_name(p, viewer)} hand",
                          _cards(hand) if shown else [], 0 if shown else hand.bit_count(), owner=p))
        zones.append(zone(f"played{p}", f"{seat_name(p, viewer)} played", _cards(state.played[p]), owner=p))
    return {"zones": zones, "info": [["Tricks", "  ".join(f"P{s} {t}" for s, t in enumerate(state.tricks))]]}


def selection(move: Any, state: rules.State) -> Json:
    """The hand card a move plays."""
    return {"hand": [str(move.card + 1)]}


def scores(state: rules.State) -> Json:
    """Tricks won."""
    return {"rows": [["Tricks", *state.tricks]]}


def winners(state: rules.State) -> list[int]:
    """The player with more tricks (none for a tie)."""
    ahead = [s for s in range(2) if rules.returns(state)[s] > 0]
    return ahead
