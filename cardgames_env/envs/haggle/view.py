"""Haggle as a seat sees it, as JSON for the browser (see :mod:`cardgames_env.core.view`).

Offers are private to the two players trading: :func:`public_move` hides an offer's contents
from everyone else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardgames_env.core.view import Json, card, seat_name, sees, zone

from . import rules
from .cards import COLOURS, hand_str, rule_str

TITLE = "Haggle"
CARD_COLOURS: dict[str, dict[str, str]] = {
    "Y": {"background": "#f3d02c", "color": "#333"},
    "B": {"background": "#2d6cdf", "color": "#fff"},
    "R": {"background": "#d8342b", "color": "#fff"},
    "O": {"background": "#ee8a1b", "color": "#fff"},
    "W": {"background": "#fff", "color": "#333", "border-color": "#bbb"},
}
"""The face of each colour (a card's kind is its colour letter)."""


def _cards(counts: Sequence[int]) -> list[Json]:
    return [card(letter, letter, letter) for letter, n in zip(COLOURS, counts) for _ in range(n)]


def table(state: rules.State, viewer: int | None, memory: Json) -> Json:
    """Each hand (the viewer's only), the rule cards known, the offer's rows (its cards when the
    viewer may see them)."""
    n = state.num_players
    zones = []
    for p in range(n):
        name = seat_name(p, viewer)
        if sees(p, viewer):
            rules_text = " ".join(rule_str(r) for r in state.rules[p])
            zones.append(zone("hand" if p == viewer else f"hand{p}", f"{name} hand",
                              _cards(state.hands[p]), note=f"rule cards {rules_text}", owner=p))
        else:
            assert viewer is not None
            seen = state.shown[viewer * n + p]
            known = " ".join(rule_str(r) for r in state.rules[p] if seen >> r & 1) or "?"
            zones.append(zone(f"hand{p}", f"{name} hand", hidden=sum(state.hands[p]),
                              note=f"rule cards seen: {known}", owner=p))
    stage = rules.Stage(state.stage)
    zones.extend(offer_zones(state, viewer))
    rounds = state.config.trading_rounds
    info = [["Trading round", f"{min(state.round + 1, rounds)}/{rounds}"],
            ["Stage", stage.name.lower()], ["Trades accepted", str(sum(state.trades))]]
    if state.target >= 0:
        sees_offer = sees_offer_of(state, viewer)
        offer = f"P{state.proposer} → P{state.target}"
        if sees_offer:
            gives, asks = hand_str(state.give) or "-", hand_str(state.ask) or "-"
            offer += f": gives {gives}, asks {asks}"
            if stage == rules.Stage.RESPOND:
                shown = "a rule card" if state.show >= 0 else "no rule card"
                if state.show >= 0 and (viewer is None or viewer == state.proposer):
                    shown = rule_str(state.show)
                offer += f"; shows {shown}; asks to see one: {'yes' if state.request else 'no'}"
        info.append(["Offer", offer])
    return {"zones": zones, "info": info}


def sees_offer_of(state: rules.State, viewer: int | None) -> bool:
    """Whether ``viewer`` may see the contents of the offer being made: the spectator and the
    proposer always, the target once the offer is complete (the respond stage)."""
    return viewer is None or viewer == state.proposer or (
        viewer == state.target and rules.Stage(state.stage) == rules.Stage.RESPOND
    )


def offer_zones(state: rules.State, viewer: int | None) -> list[Json]:
    """The offer's two rows, always present: the cards the proposer gives and those it asks
    for, when ``viewer`` may see them; empty rows (with who offers to whom) otherwise."""
    if state.target < 0:
        note = "no offer on the table"
        return [zone("offer_give", "Offer gives", note=note), zone("offer_ask", "Offer asks", note=note)]
    who = f"P{state.proposer} → P{state.target}"
    if not sees_offer_of(state, viewer):
        note = f"{who}: between those two only"
        return [zone("offer_give", "Offer gives", note=note), zone("offer_ask", "Offer asks", note=note)]
    return [zone("offer_give", "Offer gives", _cards(state.give), note=f"{who}: P{state.proposer} gives"),
            zone("offer_ask", "Offer asks", _cards(state.ask), note=f"{who}: P{state.proposer} asks for")]


def scores(state: rules.State) -> Json:
    """Hands handed in, what was scored after the 13-card cap, each rule pair, the scores."""
    n = state.num_players
    rows: list[list[Any]] = [["Handed in", *(hand_str(h) or "-" for h in state.handed_in())]]
    if state.kept is not None:
        rows.append(["Scored (13-card cap)", *(hand_str(h) or "-" for h in state.kept)])
    rows.append(["Rule cards", *(" ".join(rule_str(r) for r in state.rules[p]) for p in range(n))])
    if state.scores is not None:
        rows.append(["Score", *("ELIMINATED" if s is None else s for s in state.scores)])
    return {"rows": rows}


def public_move(before: rules.State, seat: int, text: str, viewer: int | None) -> str:
    """The part of a move ``viewer`` may see: offer contents only between the two parties."""
    if viewer is None or seat == viewer:
        return text
    word = text.split()[0]
    if word in ("pass", "offer", "reject", "submit"):
        return text  # who offers to whom, refusals and hand-ins are public
    if word == "accept":
        return text if viewer == before.proposer else "accept"
    return f"{word} …"  # give / ask / terms: seen by the target only once the offer is complete


def winners(state: rules.State) -> list[int]:
    """The seats that won a finished game."""
    return list(rules.winners(state))
