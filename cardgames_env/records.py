"""Game records: one JSON object per game (JSON Lines files), and their replay.

A record holds what it takes to play a game again exactly: the env name, its options, the
seed of ``reset`` (the deals come from the env's Generator, so the same seed deals the same
cards) and every move in the game's notation with the seat that made it, plus the results
(RL returns and game points) to check a replay against.

Moves are whole rules moves (``str(move)``, what ``rules.parse_move`` reads): a move that an
encoding builds over several actions (cards selected one at a time, an exchange built in
sub-steps) is one entry, written as the notation of the action that completed it. A game cut
off by the turn limit in the middle of such a move ends with the sub-step entries made.

Example record (one line in the file)::

    {"format": "cardgames-record/1", "env": "<game>_v0", "options": {}, "seed": 3,
     "agents": ["human", "random", "random", "random"], "moves": [[0, "play 2S"], ...],
     "finished": true, "truncated": false, "returns": [...], "points": [...]}
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .core.game import IllegalMoveError
from .registry import load

RECORD_FORMAT = "cardgames-record/1"
"""Value of the ``format`` field of every record this module writes."""


class RecordError(ValueError):
    """A record that cannot be read or does not replay (the message says which and why)."""


@dataclass
class GameRecord:
    """One game: env, options, seed, the moves in notation, and the results.

    Attributes:
        env: env name (``"<game>_v0"``).
        options: keyword arguments of the env (the game's ``Config`` fields, ``max_steps``).
        seed: seed given to ``reset``.
        moves: ``(seat, notation)`` of every move in play order.
        agents: who played each seat (``"human"``, ``"random"``, a model path...), if known.
        finished: the game reached its end (terminal or truncated by the turn limit).
        truncated: the game was cut off by the turn limit.
        returns: each seat's RL return of the episode, once finished.
        points: each seat's game points (``rules.points``), once finished.
        transcripts: the conversation of each seat played by a language model (seat number
            as text -> its chat messages, ``{"role", "content"}``), or ``None``; replays
            ignore it.
    """

    env: str
    options: dict[str, Any]
    seed: int
    moves: list[tuple[int, str]] = field(default_factory=list)
    agents: list[str] | None = None
    finished: bool = False
    truncated: bool = False
    returns: list[float] | None = None
    points: list[Any] | None = None
    transcripts: dict[str, list[dict[str, str]]] | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a JSON-ready dict (``format`` first)."""
        data = {
            "format": RECORD_FORMAT,
            "env": self.env,
            "options": dict(self.options),
            "seed": self.seed,
            "agents": list(self.agents) if self.agents is not None else None,
            "moves": [[seat, text] for seat, text in self.moves],
            "finished": self.finished,
            "truncated": self.truncated,
            "returns": self.returns,
            "points": self.points,
        }
        if self.transcripts is not None:  # only records with a language-model seat carry it
            data["transcripts"] = self.transcripts
        return data

    def to_json(self) -> str:
        """Return the record as one line of JSON."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """Build a record from a decoded JSON object, checking every field.

        Raises:
            RecordError: naming the first missing or malformed field.
        """
        if not isinstance(data, dict):
            raise RecordError(f"a record must be a JSON object, got {type(data).__name__}")
        if data.get("format") != RECORD_FORMAT:
            raise RecordError(
                f"not a game record: format is {data.get('format')!r}, expected {RECORD_FORMAT!r}"
            )
        for name in ("env", "options", "seed", "moves"):
            if name not in data:
                raise RecordError(f"the record has no {name!r} field")
        env, options, seed, moves = data["env"], data["options"], data["seed"], data["moves"]
        if not isinstance(env, str):
            raise RecordError(f"'env' must be a string, got {env!r}")
        if not isinstance(options, dict):
            raise RecordError(f"'options' must be an object, got {options!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RecordError(f"'seed' must be an integer, got {seed!r}")
        if not isinstance(moves, list):
            raise RecordError("'moves' must be a list of [seat, move] pairs")
        parsed: list[tuple[int, str]] = []
        for i, entry in enumerate(moves):
            if (
                not isinstance(entry, list) or len(entry) != 2 or isinstance(entry[0], bool)
                or not isinstance(entry[0], int) or not isinstance(entry[1], str)
            ):
                raise RecordError(f"move {i + 1} must be [seat, \"notation\"], got {entry!r}")
            parsed.append((entry[0], entry[1]))
        agents = data.get("agents")
        if agents is not None and (
            not isinstance(agents, list) or not all(isinstance(a, str) for a in agents)
        ):
            raise RecordError(f"'agents' must be a list of strings, got {agents!r}")
        returns = data.get("returns")
        if returns is not None and (
            not isinstance(returns, list) or not all(isinstance(r, (int, float)) for r in returns)
        ):
            raise RecordError(f"'returns' must be a list of numbers, got {returns!r}")
        points = data.get("points")
        if points is not None and not isinstance(points, list):
            raise RecordError(f"'points' must be a list, got {points!r}")
        transcripts = data.get("transcripts")
        if transcripts is not None and (
            not isinstance(transcripts, dict)
            or not all(isinstance(k, str) and isinstance(v, list) for k, v in transcripts.items())
        ):
            raise RecordError("'transcripts' must be an object of seat -> list of messages")
        return cls(
            env=env, options=options, seed=seed, moves=parsed, agents=agents,
            finished=bool(data.get("finished", False)), truncated=bool(data.get("truncated", False)),
            returns=returns, points=points, transcripts=transcripts,
        )

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Parse one line of JSON into a record.

        Raises:
            RecordError: for text that is not JSON (e.g. a cut-off line), JSON nested too
                deeply to decode, or not a record.
        """
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(
                f"not valid JSON ({error.msg} at column {error.colno}); is the record cut off?"
            ) from None
        except RecursionError:
            raise RecordError("the JSON is nested too deeply to be a record") from None
        return cls.from_dict(data)


def read_records(path: str | Path) -> list[GameRecord]:
    """Read every record of a JSON Lines file (blank lines skipped).

    Raises:
        RecordError: for a missing file, an empty one, or a bad line (its number is named).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise RecordError(f"cannot read {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not a text file") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(GameRecord.from_json(line))
        except RecordError as error:
            raise RecordError(f"{path}, line {number}: {error}") from None
    if not records:
        raise RecordError(f"{path} holds no game record")
    return records


def append_record(path: str | Path, record: GameRecord) -> None:
    """Append ``record`` as one line to the JSON Lines file ``path`` (created if missing)."""
    with Path(path).open("a", encoding="utf-8") as handle:
        handle.write(record.to_json() + "\n")


# -- moves over an env ----------------------------------------------------------------------
def actions_for_move(env: Any, text: str) -> list[int]:
    """Return the actions that play the move written ``text`` for the seat to move.

    A whole move is followed through every sub-step an encoding needs (the same text gives
    the next action until the rules state changes); a sub-step's own notation (``select 5S``)
    gives that one action. Nothing is changed: the sub-steps are worked out on the
    encoding's immutable decision states.

    Raises:
        ValueError: if ``text`` is not notation of this game (``IllegalMoveError``, a
            ``ValueError``, if it is but the move is not legal now).
    """
    raw = env.unwrapped
    encoding = raw.encoding
    decision = raw._decision
    start = encoding.rules_state(decision)
    actions: list[int] = []
    wanted = text.strip().lower()
    while True:
        action = int(encoding.string_to_action(decision, text))
        mask = encoding.legal_action_mask(decision)
        if not 0 <= action < len(mask) or not mask[action]:
            raise IllegalMoveError(f"{text!r} is not a legal move now")
        substep_text = encoding.action_to_string(decision, action).strip().lower()
        decision = encoding.apply_action(decision, action)
        actions.append(action)
        if encoding.rules_state(decision) is not start:
            return actions
        if substep_text == wanted or len(actions) > 64:
            return actions


def game_over(env: Any) -> bool:
    """Return whether every remaining agent of the env is terminated or truncated."""
    raw = env.unwrapped
    return all(raw.terminations[a] or raw.truncations[a] for a in raw.agents)


def skip_dead_steps(env: Any) -> None:
    """Give eliminated agents their ``step(None)`` until a live agent is to move (or the game is over)."""
    raw = env.unwrapped
    while raw.agents and not game_over(raw):
        agent = raw.agent_selection
        if not (raw.terminations[agent] or raw.truncations[agent]):
            return
        raw.step(None)


class Recorder:
    """Builds the record of a game while it is played through :meth:`step`.

    Args:
        env_name: the env's name.
        options: the env's keyword arguments.
        seed: the seed given to ``reset``.
        agents: who plays each seat (for the record only).
    """

    def __init__(
        self, env_name: str, options: dict[str, Any], seed: int, agents: Sequence[str] | None = None
    ):
        self.record = GameRecord(env=env_name, options=dict(options), seed=seed,
                                 agents=list(agents) if agents is not None else None)
        self._pending: list[tuple[int, str]] = []

    def step(self, env: Any, action: int) -> tuple[int, str] | None:
        """Step the env with ``action`` and note the move it completes.

        Returns:
            ``(seat, notation)`` of the move completed by this action, or ``None`` after a
            sub-step that leaves the move unfinished.
        """
        raw = env.unwrapped
        seat = raw.possible_agents.index(raw.agent_selection)
        text = raw.action_to_string(action)
        start = raw.game_state()
        env.step(action)
        if raw.game_state() is not start:
            self._pending.clear()
            self.record.moves.append((seat, text))
            self._finish_if_over(raw)
            return seat, text
        self._pending.append((seat, text))
        if game_over(raw):  # cut off by the turn limit inside a move: keep its sub-steps
            self.record.moves.extend(self._pending)
            self._pending.clear()
            self._finish_if_over(raw)
        return None

    def _finish_if_over(self, raw: Any) -> None:
        if not game_over(raw):
            return
        state = raw.game_state()
        rec = self.record
        rec.finished = True
        rec.truncated = any(raw.truncations.get(a, False) for a in raw.agents)
        rec.returns = [float(r) for r in raw.rules.returns(state)]
        rec.points = list(raw.rules.points(state))


# -- replay ---------------------------------------------------------------------------------
def make_env(record: GameRecord, render_mode: str | None = None) -> Any:
    """Build and reset the raw env a record was played on.

    Raises:
        RecordError: for an unknown env or options it does not accept.
    """
    try:
        module = load(record.env)
    except ValueError as error:
        raise RecordError(str(error)) from None
    try:
        env = module.raw_env(render_mode=render_mode, **record.options)
    except (ValueError, TypeError) as error:
        raise RecordError(f"the record's options do not fit {record.env}: {error}") from None
    env.reset(seed=record.seed)
    return env


@dataclass(frozen=True)
class ReplayStep:
    """One move of a replay: who moved, its notation, and the rules states around it."""

    index: int
    seat: int
    move: str
    before: Any
    after: Any


def replay(record: GameRecord, env: Any | None = None) -> Iterator[ReplayStep]:
    """Play a record's moves again, yielding each one; the env ends where the game ended.

    Args:
        record: the record.
        env: a fresh env from :func:`make_env` (built here when ``None``); it is stepped in place.

    Raises:
        RecordError: when a move is not the notation of a legal move for the seat to move,
            the game ends before the moves do, or (for a finished record) it does not end
            with them or ends with other results than recorded.
    """
    if env is None:
        env = make_env(record)
    raw = env.unwrapped
    total = len(record.moves)
    for index, (seat, text) in enumerate(record.moves):
        where = f"move {index + 1} of {total} ({text!r} by seat {seat})"
        skip_dead_steps(raw)
        if game_over(raw):
            raise RecordError(
                f"{where}: the replayed game ended after move {index}; {_setup_hint(record)}"
            )
        to_move = raw.possible_agents.index(raw.agent_selection)
        if seat != to_move:
            raise RecordError(
                f"{where}: the record's seat {seat} disagrees with the replay, where seat {to_move} "
                f"is to move; {_setup_hint(record)}"
            )
        before = raw.game_state()
        try:
            actions = actions_for_move(raw, text)
        except ValueError as error:
            raise RecordError(f"{where}: {error}; {_setup_hint(record)}") from None
        for action in actions:
            raw.step(action)
        yield ReplayStep(index, seat, text, before, raw.game_state())
    skip_dead_steps(raw)
    if record.finished:
        if not game_over(raw):
            raise RecordError(
                f"the record ends after {len(record.moves)} moves but the game goes on (is it cut off?)"
            )
        check_results(record, raw)


def _setup_hint(record: GameRecord) -> str:
    """Name the fields a replay is built from, which a move that does not fit calls into doubt."""
    return (
        f"the moves do not fit the game that env {record.env!r}, options "
        f"{json.dumps(record.options, sort_keys=True)} and seed {record.seed} deal "
        "(was one of them, or the move, edited?)"
    )


def check_results(record: GameRecord, env: Any) -> None:
    """Compare a finished record's returns and points with the env's final state.

    Raises:
        RecordError: naming the first field that differs.
    """
    raw = env.unwrapped
    state = raw.game_state()
    points = list(raw.rules.points(state))
    if record.points is not None and _plain(points) != _plain(record.points):
        raise RecordError(f"the replay ends with points {points}, the record says {record.points}")
    returns = [float(r) for r in raw.rules.returns(state)]
    if record.returns is not None and (
        len(returns) != len(record.returns)
        or not all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(returns, record.returns))
    ):
        raise RecordError(f"the replay ends with returns {returns}, the record says {record.returns}")


def _plain(values: Sequence[Any]) -> list[Any]:
    """JSON round trip of a list (tuples become lists, as in a read record)."""
    return list(json.loads(json.dumps(list(values))))


def replay_record(record: GameRecord) -> Any:
    """Replay a whole record and return the env at its end (raises :class:`RecordError`)."""
    env = make_env(record)
    for _ in replay(record, env):
        pass
    return env


__all__ = [
    "RECORD_FORMAT",
    "GameRecord",
    "RecordError",
    "Recorder",
    "ReplayStep",
    "actions_for_move",
    "append_record",
    "check_results",
    "game_over",
    "make_env",
    "read_records",
    "replay",
    "replay_record",
    "skip_dead_steps",
]
