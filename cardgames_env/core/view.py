"""What a seat may see of a game, as JSON: the pieces every game's ``view.py`` builds with.

A game's view module (its spec's ``view``) describes a rules ``State`` for one ``viewer`` (a
seat, or ``None`` for the spectator view that shows every card) as plain JSON data; the web
app draws it. A seat's view holds only what the rules let that seat know: its own hand, the
public piles, counts of the others' hidden cards.

A *zone* is one row of the table: ``{"id", "label", "cards", "hidden", "note", "owner"}``
where ``cards`` are ``{"code", "label", "kind"}`` (``code`` is the card's name in the game's
notation, ``kind`` picks its colours from the module's ``CARD_COLOURS``) and ``hidden`` counts
face-down cards. A card may also carry ``"top": True`` (the card that set a rule, marked),
``"group"`` (which play of a trick it belongs to; plays are drawn apart) and ``"sub"`` (a short
second line printed on its face, e.g. ``"wild"``); a zone ``"done": True`` is a finished trick.
A move's *selection* maps zone ids to the cards of those zones the move uses
(with repeats for identical cards), so the page can build a move by clicking cards.

A view module defines (see :class:`ViewModule`):

* ``TITLE``: the game's name as players write it;
* ``CARD_COLOURS``: card kind -> CSS properties of its face (``background``, ``color``, ...);
* ``table(state, viewer, memory)``: ``{"zones": [...], "info": [[label, text], ...]}``;
* ``scores(state)``: the score breakdown of a finished game, ``{"rows": [[label, per seat...]]}``;
* ``winners(state)``: the seats that won a finished game;

and, where the game needs them (the web app has defaults):

* ``selection(move, state)``: the move's cards by zone (default: none, a button only);
* ``public_move(before, seat, text, viewer)``: the move's notation as ``viewer`` may read it
  (default: all of it);
* ``remember(memory, before, after, move)``: public facts the rules state forgets, kept for
  ``table`` (default: nothing);
* ``round_message(before, after)``: a line announcing the end of a round (default: none);
* ``move_label(text)``: the move written for reading (default: its notation).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

Json = dict[str, Any]
"""A JSON object."""

FRENCH_SUIT_COLOURS: dict[str, dict[str, str]] = {
    "S": {"color": "#1d1d1f"}, "C": {"color": "#1d1d1f"},
    "H": {"color": "#c0392b"}, "D": {"color": "#c0392b"},
}
"""Card colours of the French suits by their letter (black spades and clubs, red hearts and
diamonds), for games played with French-suited cards."""


class ViewModule(Protocol):
    """What every game's view module provides (the optional hooks are in the module docstring)."""

    TITLE: str
    CARD_COLOURS: dict[str, dict[str, str]]

    def table(self, state: Any, viewer: int | None, memory: Json) -> Json: ...
    def scores(self, state: Any) -> Json: ...
    def winners(self, state: Any) -> list[int]: ...


def card(code: str, label: str, kind: str) -> Json:
    """One card face: its notation ``code``, the ``label`` printed on it, its colour ``kind``."""
    return {"code": code, "label": label, "kind": kind}


def zone(
    zone_id: str, label: str, cards: Sequence[Json] = (), hidden: int = 0, note: str = "",
    owner: int | None = None,
) -> Json:
    """One row of the table (see the module docstring)."""
    return {"id": zone_id, "label": label, "cards": list(cards), "hidden": hidden, "note": note,
            "owner": owner}


def seat_name(seat: int, viewer: int | None) -> str:
    """``"P1"``, or ``"P1 (you)"`` for the viewer."""
    return f"P{seat} (you)" if seat == viewer else f"P{seat}"


def sees(seat: int, viewer: int | None) -> bool:
    """Whether ``viewer`` sees ``seat``'s private cards (its own, or every seat's for ``None``)."""
    return viewer is None or viewer == seat


def own_zone_id(base: str, seat: int, viewer: int | None, mover: int) -> str:
    """``base`` (e.g. ``"hand"``) for the viewer's own zone, or the mover's when everything is
    shown (``viewer`` None); ``base`` + the seat for every other seat's zone."""
    return base if seat == viewer or viewer is None and seat == mover else f"{base}{seat}"


def hand_over_message(before: Any, after: Any) -> str | None:
    """The line announcing that the move from ``before`` to ``after`` ended a hand, or ``None``.

    For games played in hands towards a total: their states have ``hand_number``,
    ``hand_over``, ``hand_points`` (this hand's), ``last_hand_points`` (the previous hand's)
    and ``totals``.
    """
    if after.hand_number != before.hand_number:
        points = after.last_hand_points
    elif after.hand_over and not before.hand_over:
        points = after.hand_points
    else:
        return None
    hand = " · ".join(f"P{s} {v:+d}" for s, v in enumerate(points))
    totals = " · ".join(f"P{s} {v}" for s, v in enumerate(after.totals))
    return f"Hand {before.hand_number} over: this hand {hand}; totals {totals}"


def remember(view: Any, memory: Json, before: Any, after: Any, move: str) -> Json:
    """The view's memory after the move written ``move`` took ``before`` to ``after`` (the
    module's ``remember`` hook; a view without one keeps ``memory``)."""
    hook = getattr(view, "remember", None)
    return memory if hook is None else dict(hook(memory, before, after, move))


def public_move(view: Any, before: Any, seat: int, text: str, viewer: int | None) -> str:
    """The notation of ``seat``'s move as ``viewer`` may read it (the module's ``public_move``
    hook; all of it by default)."""
    hook = getattr(view, "public_move", None)
    return text if hook is None else str(hook(before, seat, text, viewer))


def round_message(view: Any, before: Any, after: Any) -> str | None:
    """The line announcing the end of a round or hand that the move from ``before`` to
    ``after`` brought (the module's ``round_message`` hook), or ``None``."""
    hook = getattr(view, "round_message", None)
    return None if hook is None else hook(before, after)


def result_line(winners: Sequence[int], truncated: bool = False) -> str:
    """One line naming the winners of a finished game (``truncated``: cut off by the turn limit)."""
    if truncated:
        return "Cut off by the turn limit: no winner"
    if not winners:
        return "A draw: nobody wins"
    if len(winners) == 1:
        return f"P{winners[0]} wins"
    return " and ".join(f"P{s}" for s in winners) + " share the win"


__all__ = [
    "FRENCH_SUIT_COLOURS", "Json", "ViewModule", "card", "hand_over_message", "own_zone_id", "public_move",
    "remember", "result_line", "round_message", "seat_name", "sees", "zone",
]
