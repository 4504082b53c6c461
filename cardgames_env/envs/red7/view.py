"""Red7 as a seat sees it, as JSON for the browser (see :mod:`cardgames_env.core.view`).

The canvas is a set of cards, so the card that set the rule is not in the rules state: the
view's memory keeps it (``canvas_top``, built move by move by :func:`remember`).
"""

from __future__ import annotations

from typing import Any

from cardgames_env.core.cards import cards_of
from cardgames_env.core.view import Json, card, own_zone_id, seat_name, sees, zone

from . import rules
from .cards import CARD_COLOUR, card_str

TITLE = "Red7"
CARD_COLOURS: dict[str, dict[str, str]] = {
    "R": {"background": "#d8342b", "color": "#fff"},
    "O": {"background": "#ee8a1b", "color": "#fff"},
    "Y": {"background": "#f3d02c", "color": "#333"},
    "G": {"background": "#3f9e4a", "color": "#fff"},
    "B": {"background": "#2d6cdf", "color": "#fff"},
    "I": {"background": "#3b2f8f", "color": "#fff"},
    "V": {"background": "#8e44ad", "color": "#fff"},
}
"""The face of each colour (a card's kind is its colour letter)."""


def _card(c: int) -> Json:
    text = card_str(c)
    return card(text, text, text[0])  # the colour letter on the face, not only its colour


def _cards(mask: int) -> list[Json]:
    return [_card(c) for c in sorted(cards_of(mask), reverse=True)]


def canvas(state: rules.State, top: int) -> tuple[list[Json], str]:
    """The canvas cards with ``top`` (the card that set the rule) first and marked, and the note."""
    rule = f"rule: {rules.describe_rule(state.rule)}"
    if top < 0 or not state.canvas >> top & 1:
        setter = "the starting red card" if not state.canvas else "the top card"
        return _cards(state.canvas), f"{rule}, set by {setter} · deck {len(state.deck)}"
    shown = [{**_card(top), "top": True}] + _cards(state.canvas & ~(1 << top))
    return shown, f"{rule}, set by {card_str(top)} · deck {len(state.deck)}"


def table(state: rules.State, viewer: int | None, memory: Json) -> Json:
    """Canvas (its top card, which set the rule, first), each palette, the viewer's hand,
    counts of the other hands."""
    shown_canvas, note = canvas(state, memory.get("canvas_top", -1))
    zones = [zone("canvas", "Canvas", shown_canvas, note=note)]
    mover = rules.current_player(state)
    for p in range(state.num_players):
        name = seat_name(p, viewer)
        if not state.active >> p & 1:
            zones.append(zone(f"palette{p}", f"{name} palette", note="out of the round", owner=p))
            continue
        score = f"score {state.scores[p]}" if state.config.advanced else ""
        zones.append(zone(f"palette{p}", f"{name} palette", _cards(state.palettes[p]),
                          note=score, owner=p))
        hand = state.hands[p]
        shown = sees(p, viewer)
        hand_id = own_zone_id("hand", p, viewer, mover)
        zones.append(zone(hand_id, f"{name} hand", _cards(hand) if shown else [],
                          0 if shown else hand.bit_count(), owner=p))
    winner = rules.winning_seat(state)
    info = [["Winning now", "-" if winner is None else f"P{winner}"], ["Round", str(state.round_number)]]
    return {"zones": zones, "info": info}


def selection(move: Any, state: rules.State) -> Json:
    """Hand cards a move plays or discards; palette cards taken or moved by an effect."""
    if isinstance(move, (rules.Play, rules.Discard)):
        return {"hand": [card_str(move.card)]}
    if isinstance(move, rules.PlayDiscard):
        return {"hand": [card_str(move.play), card_str(move.discard)]}
    if isinstance(move, (rules.Take, rules.SevenCanvas, rules.SevenDeck)):
        owner = next(p for p in range(state.num_players) if state.palettes[p] >> move.card & 1)
        return {f"palette{owner}": [card_str(move.card)]}
    return {}


def scores(state: rules.State) -> Json:
    """Who won; the advanced game's scores."""
    winner = ["winner" if state.winner == p else "" for p in range(state.num_players)]
    rows: list[list[Any]] = [["Round winner", *winner]]
    if state.config.advanced:
        rows.append(["Score", *state.scores])
    return {"rows": rows}


def remember(memory: Json, before: rules.State, after: rules.State, move: str) -> Json:
    """The memory after a move: ``canvas_top``, the canvas card that set the rule (``-1``: none
    this round). Only public facts are kept (cards played face up)."""
    if after.round_number != before.round_number:
        return {**memory, "canvas_top": -1}
    added = list(cards_of(after.canvas & ~before.canvas))
    if added:
        ruling = [c for c in added if CARD_COLOUR[c] == after.rule]
        return {**memory, "canvas_top": (ruling or added)[-1]}
    return memory


def round_message(before: rules.State, after: rules.State) -> str | None:
    """A line announcing the end of a round that the move from ``before`` to ``after`` brought."""
    if after.round_number == before.round_number and (
        after.status == before.status or after.status == rules.PLAYING
    ):
        return None
    line = f"Round {before.round_number} over: " + (
        f"P{after.winner} wins the round" if after.winner >= 0 else "no winner")
    if after.config.advanced:
        line += "; scores " + " · ".join(f"P{s} {v}" for s, v in enumerate(after.scores))
    return line


def winners(state: rules.State) -> list[int]:
    """The seats that won a finished game: the game's winner, else (advanced game) the best
    scores; none when nobody won."""
    if state.game_winner >= 0:
        return [state.game_winner]
    if not state.config.advanced:
        return []
    best = max(state.scores)
    return [s for s in range(state.num_players) if state.scores[s] == best]
