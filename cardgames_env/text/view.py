"""A seat's view of a game in plain words (:func:`describe`), built from the game's view module.

The words come from the same place as the browser's table: the game's view module (its spec's
``view``; see :mod:`cardgames_env.core.view`) describes the rules ``State`` for one seat, with
only what that seat may know (its own cards, the public piles, counts of the others' hidden
cards), and this module writes those zones and facts as lines of text, in the same words for
every game. The moves since the seat's last turn come from the env's public record
(:meth:`~cardgames_env.core.aec.CardGameEnv.track_moves`), each written as the seat may read it
(the view's ``public_move`` hook hides what the seat may not see, e.g. another pair's offer).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardgames_env import registry
from cardgames_env.core.game import TERMINAL
from cardgames_env.core.view import Json, public_move, result_line, round_message

MAX_HISTORY_LINES = 60
"""Most lines of "What happened since your last turn" (the latest are kept)."""

LEGAL_MOVES_HEADER = "Legal moves (answer with exactly one of them, in square brackets):"
"""The line above the list of legal moves (the same in every game)."""


def raw_env(env: Any) -> Any:
    """The raw :class:`~cardgames_env.core.aec.CardGameEnv` of an env (raw or wrapped)."""
    return getattr(env, "unwrapped", env)


def seat_of(env: Any, agent: str | int) -> int:
    """The seat of ``agent`` (``"player_i"`` or a seat number).

    Raises:
        ValueError: for an agent the env does not have.
    """
    raw = raw_env(env)
    seats = len(raw.possible_agents)
    if isinstance(agent, str) and agent in raw.possible_agents:
        return int(raw.possible_agents.index(agent))
    if isinstance(agent, int) and not isinstance(agent, bool) and 0 <= agent < seats:
        return agent
    raise ValueError(f"unknown agent {agent!r}; the env's agents are {', '.join(raw.possible_agents)}")


def view_module(env: Any) -> Any:
    """The game's view module (its spec's ``view``).

    Raises:
        ValueError: for a game whose spec names no view (it has no text face).
    """
    raw = raw_env(env)
    spec = type(raw).spec or registry.spec(raw.info.name)
    if spec.view is None:
        raise ValueError(f"{raw.metadata['name']} has no text face: its spec names no view")
    return spec.load("view")


def legal_moves(env: Any) -> list[str]:
    """The notation of every legal whole move of the seat to move, in the rules' order.

    Whole moves, even in an encoding that builds a move over several actions: in the middle
    of such a move, the moves that complete the part already chosen. Empty when nobody is to
    move.
    """
    raw = raw_env(env)
    if raw._decision is None or raw._to_move < 0:
        return []
    decision = raw._decision
    encoding = raw.encoding
    state = encoding.rules_state(decision)
    mask = raw.action_mask()
    moves = []
    for move in raw.rules.legal_moves(state):
        try:
            action = int(encoding.encode(decision, move))
        except ValueError:  # a sub-step encoding: the move does not continue the part chosen
            continue
        if 0 <= action < len(mask) and mask[action]:
            moves.append(str(move))
    return moves


def _cards_text(cards: Sequence[Json]) -> str:
    """Card codes in order, runs of one code written ``code ×n``."""
    parts: list[str] = []
    previous, count = None, 0
    for card in cards:
        code = str(card["code"])
        if code == previous:
            count += 1
            continue
        if previous is not None:
            parts.append(previous if count == 1 else f"{previous} ×{count}")
        previous, count = code, 1
    if previous is not None:
        parts.append(previous if count == 1 else f"{previous} ×{count}")
    return " ".join(parts)


def _label(text: str, seat: int) -> str:
    """A view label from the seat's side: ``"P1 (you) hand"`` -> ``"Your hand"``."""
    return text.replace(f"P{seat} (you) ", "Your ").replace(f"P{seat} (you)", "You")


def zone_line(zone: Json, seat: int) -> str:
    """One zone of the table as a line: ``Label: cards, N hidden (note)``."""
    parts = []
    if zone["cards"]:
        parts.append(_cards_text(zone["cards"]))
    if zone["hidden"]:
        hidden = int(zone["hidden"])
        parts.append(f"{hidden} hidden card{'s' * (hidden != 1)}")
    body = ", ".join(parts) if parts else "none"
    note = f" ({_label(zone['note'], seat)})" if zone.get("note") else ""
    return f"{_label(zone['label'], seat)}: {body}{note}"


def history_lines(env: Any, seat: int, view: Any) -> list[str]:
    """The moves of the other seats since ``seat``'s last move, as ``seat`` may read them,
    with the end of each round or hand they brought."""
    raw = raw_env(env)
    log = raw.move_log
    start = 0
    for index in range(len(log) - 1, -1, -1):
        if log[index][1] == seat:
            start = index + 1
            break
    lines = []
    for before, mover, text, after in log[start:]:
        lines.append(f"P{mover}: {public_move(view, before, mover, text, seat)}")
        message = round_message(view, before, after)
        if message:
            lines.append(message)
    if len(lines) > MAX_HISTORY_LINES:
        left_out = len(lines) - MAX_HISTORY_LINES
        lines = [f"({left_out} earlier lines left out)"] + lines[-MAX_HISTORY_LINES:]
    return lines


def describe(env: Any, agent: str | int) -> str:
    """Return what ``agent``'s seat knows of the game now, in plain words.

    Sections, in this order and the same words in every game: the game and the seat, "What
    happened since your last turn" (the others' moves in notation, as this seat may read
    them), "Your hand", "Table" (every other zone: piles, the others' cards shown and counts
    of those hidden), the public facts (scores, round), whose turn it is, and for the seat to
    move "Legal moves", one per line, each written ``[move]`` in the game's notation.

    Only what the seat may know is used: the game's view module writes the table for that
    seat, and another seat's move is written as the seat may read it.

    Args:
        env: the env (raw or wrapped), reset; the moves since the seat's last turn are listed
            when it tracks moves (:meth:`~cardgames_env.core.aec.CardGameEnv.track_moves`).
        agent: ``"player_i"`` or a seat number.

    Raises:
        ValueError: for an unknown agent or a game without a view.
        RuntimeError: before the env's first ``reset()``.
    """
    raw = raw_env(env)
    raw._require_reset()
    seat = seat_of(raw, agent)
    view = view_module(raw)
    state = raw.game_state()
    n = len(raw.possible_agents)
    lines = [f"Game: {view.TITLE}, {n} players (P0..P{n - 1}). You are P{seat} (player_{seat})."]
    lines.append("")
    lines.append("What happened since your last turn:")
    if not raw.tracks_moves:
        lines.append("- (not recorded: the env does not track moves)")
    else:
        history = history_lines(raw, seat, view)
        lines.extend(f"- {line}" for line in history or ["nothing yet"])
    table = view.table(state, seat, raw.view_memory if raw.tracks_moves else {})
    zones = table["zones"]
    own = [zone_line(z, seat) for z in zones if z["id"] == "hand"]
    lines.append("")
    lines.extend(own or ["Your hand: none"])
    lines.append("")
    lines.append("Table:")
    lines.extend(f"- {zone_line(z, seat)}" for z in zones if z["id"] != "hand")
    for label, text in table.get("info", []):
        lines.append(f"- {_label(str(label), seat)}: {_label(str(text), seat)}")
    lines.append("")
    to_move = raw._to_move
    if to_move == TERMINAL or to_move < 0:
        truncated = raw.rules.current_player(state) != TERMINAL
        winners = [] if truncated else view.winners(state)
        lines.append(f"The game is over. {result_line(winners, truncated)}.")
        return "\n".join(lines) + "\n"
    if to_move != seat:
        lines.append(f"It is P{to_move}'s turn, not yours.")
        return "\n".join(lines) + "\n"
    lines.append("It is your turn.")
    partial = _partial_move(raw, seat)
    if partial:
        lines.append(partial)
    lines.append(LEGAL_MOVES_HEADER)
    lines.extend(f"[{move}]" for move in legal_moves(raw))
    return "\n".join(lines) + "\n"


def _partial_move(raw: Any, seat: int) -> str | None:
    """A line saying that part of a move is already chosen (encodings with sub-steps), or ``None``."""
    decision = raw._decision
    encoding = raw.encoding
    if encoding.to_decision(encoding.rules_state(decision)) == decision:
        return None
    return "Part of your move is chosen already: only the moves that complete it are listed."


__all__ = ["LEGAL_MOVES_HEADER", "MAX_HISTORY_LINES", "describe", "history_lines", "legal_moves",
           "raw_env", "seat_of", "view_module", "zone_line"]
