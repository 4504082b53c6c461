"""What a seat may see, as JSON: each game's view module, found through its spec.

Every function here takes a game id and passes the call to that game's view module (its
spec's ``view``; the pieces and the hooks are described in :mod:`cardgames_env.core.view`),
with the defaults for the hooks a game leaves out. Every view takes a rules ``State`` and a
``viewer`` (a seat, or ``None`` for the spectator view that shows every card) and returns
plain JSON data holding only what the rules let that seat know. The test suite checks this by
re-dealing the viewer's unknown cards with the rules' ``resample_hidden`` and asserting that
the view does not change.

Some public facts are not in the rules state, and a game's *memory* (built move by move by
:func:`remember`) keeps them for the table. :func:`round_message` narrates the end of a round
or hand, :func:`result` names the winners and :func:`move_label` writes a move for reading;
the notation itself is unchanged.
"""

from __future__ import annotations

from typing import Any

from cardgames_env import registry
from cardgames_env.core import view as core_view
from cardgames_env.core.view import Json


def view_module(game: str) -> Any:
    """The view module of a game (id or env name).

    Raises:
        ValueError: for an unknown game or one without a view.
    """
    return registry.spec(game).load("view")


def has_view(game: str) -> bool:
    """Whether a game (id or env name) can be shown in the browser."""
    return registry.spec(game).view is not None


def title(game: str) -> str:
    """The game's name as players write it."""
    return str(view_module(game).TITLE)


def card_colours(game: str) -> dict[str, dict[str, str]]:
    """The CSS properties of each card kind's face."""
    return dict(view_module(game).CARD_COLOURS)


def table(game: str, state: Any, viewer: int | None, memory: Json | None = None) -> Json:
    """The zones and info lines of ``state`` as ``viewer`` sees it (``memory``: see :func:`remember`)."""
    result: Json = view_module(game).table(state, viewer, memory or {})
    return result


def selection(game: str, move: Any, state: Any) -> Json:
    """Cards (by zone) that ``move`` uses, for building it by clicking (empty: a button only)."""
    hook = getattr(view_module(game), "selection", None)
    return {} if hook is None else dict(hook(move, state))


def scores(game: str, state: Any) -> Json:
    """The score breakdown of a finished game (rows of ``[label, value per seat...]``)."""
    result: Json = view_module(game).scores(state)
    return result


def public_move(game: str, before: Any, seat: int, text: str, viewer: int | None) -> str:
    """The notation of a move as ``viewer`` may read it (all of it unless the game hides some)."""
    return core_view.public_move(view_module(game), before, seat, text, viewer)


def remember(game: str, memory: Json, before: Any, after: Any, move: str) -> Json:
    """Return the game's memory after the move written ``move`` took ``before`` to ``after``.

    Only public facts are kept (cards played face up); a game without memory keeps ``memory``.
    """
    return core_view.remember(view_module(game), memory, before, after, move)


def round_message(game: str, before: Any, after: Any) -> str | None:
    """A line announcing the end of a round or hand that the move from ``before`` to ``after``
    brought, or ``None``."""
    return core_view.round_message(view_module(game), before, after)


def winners(game: str, state: Any) -> list[int]:
    """The seats that won a finished game (several for a shared first place; none for a draw)."""
    return list(view_module(game).winners(state))


def result(game: str, state: Any, truncated: bool) -> str:
    """One line naming the winner(s) of a finished game."""
    return core_view.result_line([] if truncated else winners(game, state), truncated)


def move_label(game: str, text: str) -> str:
    """The move written for reading (the notation, unless the game writes it otherwise)."""
    hook = getattr(view_module(game), "move_label", None)
    return text if hook is None else str(hook(text))


__all__ = [
    "Json", "card_colours", "has_view", "move_label", "public_move", "remember", "result",
    "round_message", "scores", "selection", "table", "title", "view_module", "winners",
]
