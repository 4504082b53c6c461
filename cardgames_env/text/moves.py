"""Reading a move out of a free-text reply (:func:`parse_move`).

The answer is the **last** bracketed text of the reply, ``[move]``: a model may weigh other
moves in brackets while it reasons. Case and spacing are forgiven (both the reply and the
legal moves are normalised the same way), and another spelling the game's own parser reads as
the same move is accepted; nothing else is. A reply without a bracketed move, one whose last
bracketed move is not legal now, or whose text could mean several legal moves is refused
with a ``ValueError`` naming the problem: a move is never silently changed.
"""

from __future__ import annotations

import re
from typing import Any

from .view import legal_moves, raw_env, seat_of

MAX_REPLY_SCAN = 20_000
"""Characters of a reply that are read: its last ones (the answer is the last bracket)."""
MAX_MOVE_TEXT = 300
"""Longest text between brackets taken for a move (longer brackets are not moves)."""

_BRACKETS = re.compile(r"\[([^\[\]\n]{0," + str(MAX_MOVE_TEXT) + r"})\]")
_SPACE = re.compile(r"\s+")
_AROUND = re.compile(r"\s*([,+:×=/])\s*")


class MoveParseError(ValueError):
    """A reply that names no legal move (the message says why; it can be shown to the model)."""


def normalise(text: str) -> str:
    """Move text with case and spacing forgiven: lower case, one space between words, none
    around ``, + : × = /``, no surrounding quotes or backticks."""
    text = text.strip().strip("`'\"*").strip()
    text = _SPACE.sub(" ", text.lower())
    return _AROUND.sub(r"\1", text)


def last_bracketed(reply: str) -> str:
    """The text inside the last ``[...]`` of ``reply`` (only its last :data:`MAX_REPLY_SCAN`
    characters are read).

    Raises:
        MoveParseError: when the reply holds no bracketed text.
    """
    if not isinstance(reply, str):
        raise MoveParseError(f"a reply must be text, got {type(reply).__name__}")
    tail = reply[-MAX_REPLY_SCAN:]
    found = None
    for match in _BRACKETS.finditer(tail):
        found = match
    if found is None:
        raise MoveParseError(
            "no move in brackets: end the reply with one legal move written in square brackets, e.g. [move]"
        )
    return found.group(1)


def _quote(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def match_move(legal: list[str], text: str, parse: Any = None) -> str:
    """The legal move (its notation, from ``legal``) that ``text`` names.

    Args:
        legal: the notation of every legal move.
        text: the move text (inside the brackets).
        parse: the game's ``rules.parse_move`` (other spellings of the same move), or ``None``.

    Raises:
        MoveParseError: when ``text`` names no legal move, or could mean more than one.
    """
    wanted = normalise(text)
    if not wanted:
        raise MoveParseError("the last brackets are empty: write one legal move inside them, e.g. [move]")
    by_text: dict[str, list[str]] = {}
    for move in legal:
        by_text.setdefault(normalise(move), []).append(move)
    found = list(by_text.get(wanted, []))
    if not found and parse is not None:
        try:
            parsed = str(parse(text.strip().strip("`'\"*").strip()))
        except Exception:  # any text at all reaches the game's parser: nothing may escape
            parsed = None
        if parsed is not None:
            found = list(by_text.get(normalise(parsed), []))
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise MoveParseError(
            f"[{text.strip()}] is ambiguous: it could mean {' or '.join(f'[{m}]' for m in found[:4])}"
        )
    starting = [m for norm, ms in by_text.items() if norm.startswith(wanted + " ") for m in ms]
    if len(starting) > 1:
        shown = ", ".join(f"[{m}]" for m in starting[:4]) + (", ..." if len(starting) > 4 else "")
        raise MoveParseError(
            f"[{text.strip()}] is ambiguous: it could mean {len(starting)} legal moves ({shown}); "
            "write the whole move"
        )
    if not legal:
        raise MoveParseError("no move is legal for you now: it is not your turn")
    hint = f"; did you mean [{starting[0]}]? Write the whole move" if starting else ""
    raise MoveParseError(f"[{_quote(text.strip(), 60)[1:-1]}] is not a legal move now{hint}")


def parse_reply(env: Any, reply: str) -> str:
    """The notation of the legal move of the seat to move that ``reply`` names (its last
    bracketed text; see the module docstring).

    Raises:
        MoveParseError: (a ``ValueError``) naming the problem.
    """
    raw = raw_env(env)
    return match_move(legal_moves(raw), last_bracketed(reply), raw.rules.parse_move)


def parse_move(env: Any, agent: str | int, reply: str) -> int:
    """Return the action that plays (or, for a move built over sub-steps, starts) the legal
    move that ``agent``'s free-text ``reply`` names: the last ``[move]`` of the reply.

    Raises:
        ValueError: (:class:`MoveParseError`) when the reply has no bracketed move, its last
            one is not legal now or could mean several legal moves, or ``agent`` is not to move;
            a ``ValueError`` for an unknown agent.
    """
    raw = raw_env(env)
    raw._require_reset()
    seat = seat_of(raw, agent)
    if raw._to_move != seat:
        who = "nobody" if raw._to_move < 0 else f"P{raw._to_move}"
        raise MoveParseError(f"it is not P{seat}'s turn ({who} is to move)")
    move = parse_reply(raw, reply)
    return int(raw.encoding.string_to_action(raw._decision, move))


__all__ = ["MAX_MOVE_TEXT", "MAX_REPLY_SCAN", "MoveParseError", "last_bracketed", "match_move",
           "normalise", "parse_move", "parse_reply"]
