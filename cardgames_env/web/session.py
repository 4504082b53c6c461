"""One game in the browser app: the env, who plays each seat, the record, and the seat views.

A :class:`GameSession` holds a raw env and one player per seat: an agent built by the
server's :class:`~cardgames_env.web.catalog.AgentCatalog`, or ``None`` for the human seat
(at most one, so that a seat's hidden cards are never sent to a page that is not that
seat's). Agents move one whole move per :meth:`GameSession.step`; the human moves with
:meth:`GameSession.move`, written in the game's notation and checked against the env's
mask before anything changes. A replay session plays the moves of a record instead of agents.

Callers change a game under its :attr:`~GameSession.lock` and then :meth:`~GameSession.publish`
its views; readers take the published :attr:`~GameSession.snapshot` without the lock, so
reading never waits for an agent that is thinking.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import secrets
import threading
import time
from typing import Any

from cardgames_env.core.game import IllegalMoveError
from cardgames_env.records import (
    GameRecord,
    Recorder,
    RecordError,
    actions_for_move,
    game_over,
    make_env,
    replay,
    skip_dead_steps,
)
from cardgames_env.registry import load

from . import views
from .catalog import HUMAN, AgentCatalog, UnknownAgent
from .store import TooLarge, deep_size

MAX_MOVE = 200
"""Longest move text accepted (characters); the longest legal notation is far shorter."""
MAX_OPTIONS = 16
"""Most options (game variants) in one request."""
MAX_OPTION_TEXT = 64
"""Longest option name or text value (characters)."""
MAX_OPTION_INT = 2**63 - 1
"""Largest integer option value (in absolute value)."""
SEED_BITS = 128
"""Bits of OS entropy in a seed the server chooses (a game started without one)."""
MAX_SEED = 2**SEED_BITS - 1
"""Largest seed (a client may choose any seed the server could)."""
LOG_SHOWN = 2000
"""Moves of the log a view holds at most (the latest; ``log_start`` says where they begin)."""


class BadRequest(ValueError):
    """A request the client got wrong (HTTP 400): unknown env, bad option, malformed move..."""


class Conflict(ValueError):
    """A request that does not fit the game's moment (HTTP 409): out of turn, game over..."""


class Forbidden(ValueError):
    """A request for what the page may not see (HTTP 403): another seat's view, a record too early."""


def clip(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters (with its length said) for quoting in a message."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


QUOTED = 40
"""Characters of a client's text an error message repeats at most in one run."""


def quote_less(message: str, sent: str, limit: int = QUOTED) -> str:
    """``message`` with every run of more than ``limit`` characters copied from ``sent`` cut to
    ``limit`` (and ``…``): an error about a long move repeats a few dozen characters of it."""
    out = []
    i = 0
    while i < len(message):
        n = 0
        while i + n < len(message) and message[i:i + n + 1] in sent:
            n += 1
        if n > limit:
            out.append(message[i:i + limit] + "…")
            i += n
        else:
            out.append(message[i:i + max(n, 1)])
            i += max(n, 1)
    return "".join(out)


@functools.cache
def default_catalog() -> AgentCatalog:
    """The catalog of built-in agents, shared by sessions made without one."""
    return AgentCatalog()


@functools.cache
def option_names(env_name: str) -> frozenset[str]:
    """The options an env accepts from a client: its ``Config`` fields and ``max_steps``."""
    env = load(env_name).raw_env()
    return frozenset({f.name for f in dataclasses.fields(env.rules.Config)} | {"max_steps"})


def check_seed(seed: Any) -> int:
    """Return ``seed`` if it is an integer ``0..2**128-1``.

    Raises:
        BadRequest: naming the field otherwise.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise BadRequest(f"seed must be an integer, got {clip(repr(seed))}")
    if not 0 <= seed <= MAX_SEED:
        raise BadRequest(f"seed must be 0..2**{SEED_BITS}-1 (a non-negative integer), got {clip(str(seed))}")
    return seed


def check_options(env_name: str, options: Any) -> dict[str, Any]:
    """Return the options if they are a small object of known names and plain values.

    Raises:
        BadRequest: for an unknown env, too many options, an unknown name or a value that is not
            ``null``, a boolean, a number or a short string.
    """
    if not isinstance(options, dict):
        raise BadRequest("'options' must be an object of variant values")
    try:
        known = option_names(env_name)
    except ValueError as error:
        raise BadRequest(clip(str(error), 200)) from None
    if len(options) > MAX_OPTIONS:
        raise BadRequest(f"at most {MAX_OPTIONS} options, got {len(options)}")
    for key, value in options.items():
        if key not in known:
            raise BadRequest(
                f"bad option for {env_name}: unknown option {clip(key)!r}; known: {', '.join(sorted(known))}"
            )
        if isinstance(value, str) and len(value) > MAX_OPTION_TEXT:
            raise BadRequest(f"option {key}: text values are at most {MAX_OPTION_TEXT} characters")
        if isinstance(value, float) and not math.isfinite(value):
            raise BadRequest(f"option {key} must be finite")
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_OPTION_INT:
            raise BadRequest(f"option {key} is out of range")
        if value is not None and not isinstance(value, (bool, int, float, str)):
            raise BadRequest(f"option {key} must be null, a boolean, a number or a string")
    return dict(options)


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """The views a game published after its latest change: JSON bytes by viewer (``None``: all cards)."""

    version: int
    views: dict[int | None, bytes]

    @property
    def size(self) -> int:
        """Bytes of the published views."""
        return sum(len(body) for body in self.views.values())


class GameSession:
    """A game being played, watched or replayed.

    Args:
        env_name: env name (``"<game>_v0"``).
        options: the env's keyword arguments (game variants, ``max_steps``).
        seed: seed of the deal (and of the agents' own randomness).
        agents: one name per seat: ``"human"`` (at most one) or a name ``catalog`` plays.
        record: a record to replay instead of agents (``agents`` is then ignored).
        catalog: the agents this game may use (default: the built-in ones).

    Raises:
        BadRequest: for an unknown env, bad options or seed, a wrong number of seats or an
            agent the catalog does not play.
    """

    def __init__(
        self, env_name: str, options: dict[str, Any], seed: int, agents: list[str] | None = None,
        record: GameRecord | None = None, catalog: AgentCatalog | None = None,
    ):
        self.lock = threading.Lock()
        """Held while the game changes (readers use :attr:`snapshot` instead)."""
        self._record_lock = threading.Lock()
        self._record_bytes: tuple[int, bytes] | None = None
        self.token = secrets.token_urlsafe(24)
        """The game's secret: a client shows it to move, step, or read a human seat's view."""
        catalog = catalog or default_catalog()
        self.replay_of = record
        if record is not None:
            env_name, options, seed = record.env, record.options, record.seed
        options = check_options(env_name, options)
        seed = check_seed(seed)
        if not views.has_view(env_name):
            raise BadRequest(f"{env_name} has no view for the browser")
        module = load(env_name)
        try:
            self.env = module.raw_env(**options)
        except (ValueError, TypeError) as error:
            raise BadRequest(clip(f"bad option for {env_name}: {error}", 300)) from None
        self.env_name = env_name
        self.game: str = self.env.info.name
        self.seed = seed
        n = len(self.env.possible_agents)
        if record is not None:
            recorded = record.agents if record.agents and len(record.agents) == n else None
            agents = [f"record: {clip(a, 40)}" for a in recorded] if recorded else ["record"] * n
        if agents is None or len(agents) != n:
            count = "none" if agents is None else len(agents)
            raise BadRequest(f"{env_name} has {n} seats; give one agent per seat, got {count}")
        self.agent_names = [str(a) for a in agents]
        humans = [i for i, a in enumerate(self.agent_names) if a == HUMAN]
        if len(humans) > 1:
            raise BadRequest("at most one seat can be human (each page sees one seat's cards)")
        self.human: int | None = humans[0] if humans else None
        self.players: list[Any] = []
        if record is None:
            for seat, name in enumerate(self.agent_names):
                if name == HUMAN:
                    self.players.append(None)
                    continue
                try:
                    self.players.append(catalog.build(name, self.env, seed=seed * 100 + seat))
                except UnknownAgent as error:
                    raise BadRequest(clip(f"seat {seat}: {error}", 300)) from None
        self.env.reset(seed=seed)
        self.recorder = Recorder(env_name, dict(options), seed, self.agent_names if record is None else None)
        self.log: list[dict[str, Any]] = []
        """Every move: ``seat``, ``move`` (notation), ``shown`` (as each viewer may read it:
        index 0 for all cards, ``k + 1`` for seat ``k``) and ``event`` (a trick taken, a round over)."""
        self.memory: dict[str, Any] = {}
        """Public facts the rules state does not keep (see :func:`views.remember`)."""
        self.notice: dict[str, Any] | None = None
        """The latest end of a round or hand: ``{"at": log index, "text"}``."""
        self.version = 0
        """Changes so far (moves and steps)."""
        self._grown = 0
        self._base = deep_size(self, exclude=catalog.shared_objects())
        self.snapshot = Snapshot(-1, {})
        """The views published after the latest change (read without the lock)."""
        self.publish()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["lock"], state["_record_lock"]  # copies (tests, snapshots) get locks of their own
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.lock = threading.Lock()
        self._record_lock = threading.Lock()

    # -- state ------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """Whether the game has ended (finished or truncated)."""
        return game_over(self.env)

    def to_move(self) -> int | None:
        """The seat to move, or ``None`` once the game is over."""
        if self.over:
            return None
        return self.env.possible_agents.index(self.env.agent_selection)

    def estimated_bytes(self) -> int:
        """Estimated bytes this game holds (see :mod:`cardgames_env.web.store`)."""
        encoded = self._record_bytes
        return self._base + self._grown + self.snapshot.size + (len(encoded[1]) if encoded else 0)

    # -- moving -----------------------------------------------------------------------------
    def _play(self, seat: int, actions: list[int]) -> None:
        before = self.env.game_state()
        text = None
        for action in actions:
            done = self.recorder.step(self.env, action)
            if done is not None:
                text = done[1]
        if text is None:  # a cut-off sub-step sequence: name its last action
            text = self.recorder.record.moves[-1][1] if self.recorder.record.moves else "?"
        after = self.env.game_state()
        viewers = [None, *range(len(self.env.possible_agents))]
        shown = [views.public_move(self.game, before, seat, text, viewer) for viewer in viewers]
        notice = views.round_message(self.game, before, after)
        event = self.env.encoding.describe_transition(before, after) or notice
        entry = {"seat": seat, "move": text, "shown": shown, "event": event}
        if notice:
            self.notice = {"at": len(self.log), "text": notice}
        self.log.append(entry)
        self.memory = views.remember(self.game, self.memory, before, after, text)
        self.version += 1
        self._grown += deep_size(entry) + deep_size(self.recorder.record.moves[-1:])
        skip_dead_steps(self.env)

    def move(self, text: str, seat: int | None = None) -> None:
        """Play the human seat's move written ``text`` (the whole move, sub-steps included).

        Raises:
            Conflict: if the game has no human seat, is over, or the human is not to move.
            BadRequest: for text that is not a legal move now (nothing is changed).
        """
        if not isinstance(text, str) or not text.strip():
            raise BadRequest("the move must be a non-empty string in the game's notation")
        if len(text) > MAX_MOVE:
            raise BadRequest(f"the move is {len(text)} characters; moves are at most {MAX_MOVE}")
        if self.human is None:
            raise Conflict("this game has no human seat; its agents move with /step")
        if seat is not None and seat != self.human:
            raise Forbidden(f"seat {seat} is not the human seat of this game")
        if self.over:
            raise Conflict("the game is over")
        to_move = self.to_move()
        if to_move != self.human:
            raise Conflict(f"it is not your turn: seat {to_move} is to move")
        try:
            actions = actions_for_move(self.env, text)
        except IllegalMoveError as error:
            raise BadRequest(clip(quote_less(f"illegal move: {error}", text), 160)) from None
        except ValueError as error:
            raise BadRequest(clip(quote_less(f"not a move of this game: {error}", text), 160)) from None
        if self.env.encoding.rules_state(self._after(actions)) is self.env.game_state():
            raise BadRequest(f"{clip(text, QUOTED)!r} is only part of a move; send the whole move")
        self._play(self.human, actions)

    def _after(self, actions: list[int]) -> Any:
        decision = self.env._decision
        for action in actions:
            decision = self.env.encoding.apply_action(decision, action)
        return decision

    def step(self) -> None:
        """Play one whole move of the agent to move (or the record's next move).

        Raises:
            Conflict: if the game is over, the human is to move, or the record has no more moves.
        """
        if self.over:
            raise Conflict("the game is over")
        seat = self.to_move()
        assert seat is not None
        if self.replay_of is not None:
            index = len(self.log)
            if index >= len(self.replay_of.moves):
                raise Conflict("the record has no more moves")
            rec_seat, text = self.replay_of.moves[index]
            if rec_seat != seat:
                raise Conflict(
                    f"the record's move {index + 1} is seat {rec_seat}'s, but seat {seat} is to move"
                )
            try:
                actions = actions_for_move(self.env, text)
            except ValueError as error:
                message = f"the record's move {index + 1} ({text!r}) does not replay: {error}"
                raise Conflict(clip(message, 300)) from None
            self._play(seat, actions)
            return
        if seat == self.human:
            raise Conflict("the human seat is to move")
        agent = self.players[seat]
        start = self.env.game_state()
        actions = []
        decision = self.env._decision
        encoding = self.env.encoding
        while True:  # the agent's sub-steps up to the end of its move
            mask = encoding.legal_action_mask(decision)
            obs = encoding.observe(decision, seat)
            action = int(agent.act(obs, mask))
            if not mask[action]:
                raise RuntimeError(f"agent {self.agent_names[seat]} chose illegal action {action}")
            actions.append(action)
            decision = encoding.apply_action(decision, action)
            move_done = encoding.rules_state(decision) is not start
            if move_done or len(actions) + self.env.num_steps >= self.env.max_steps:
                break
        self._play(seat, actions)

    # -- what a page sees -------------------------------------------------------------------
    def check_viewer(self, viewer: int | None) -> int | None:
        """Return the seat whose view a page gets: the human's in a game with a human seat.

        Raises:
            Forbidden: for any other view of a game with a human seat.
            BadRequest: for a seat that does not exist.
        """
        n = len(self.env.possible_agents)
        if viewer is not None and not 0 <= viewer < n:
            raise BadRequest(f"viewer must be a seat 0..{n - 1}")
        if self.human is not None:
            if viewer is not None and viewer != self.human:
                raise Forbidden("a game with a human seat shows only that seat's view")
            return self.human
        return viewer

    def publish(self) -> Snapshot:
        """Build the views of the game as it is now and make them the :attr:`snapshot` (call it
        with the lock held, after each change): the human's in a game with a human seat, else
        the view with every card and each seat's."""
        seats = [self.human] if self.human is not None else [None, *range(len(self.env.possible_agents))]
        bodies = {viewer: json.dumps(self.view(viewer), separators=(",", ":")).encode() for viewer in seats}
        self.snapshot = Snapshot(self.version, bodies)
        return self.snapshot

    def published(self, viewer: int | None) -> bytes:
        """The latest published view (JSON) for ``viewer``, without waiting for the lock.

        Raises:
            Forbidden, BadRequest: as :meth:`check_viewer`.
        """
        return self.snapshot.views[self.check_viewer(viewer)]

    def view(self, viewer: int | None = None) -> dict[str, Any]:
        """The JSON view of the game for ``viewer`` (see :meth:`check_viewer`)."""
        viewer = self.check_viewer(viewer)
        env = self.env
        state = env.game_state()
        over = self.over
        to_move = self.to_move()
        table = views.table(self.game, state, viewer, self.memory)
        column = 0 if viewer is None else viewer + 1
        start = max(0, len(self.log) - LOG_SHOWN)
        truncated = over and any(env.truncations.get(a, False) for a in env.agents)
        data: dict[str, Any] = {
            "env": self.env_name,
            "game": self.game,
            "title": views.title(self.game),
            "players": len(env.possible_agents),
            "agents": self.agent_names,
            "human": self.human,
            "viewer": viewer,
            "spectator": viewer is None,
            "to_move": to_move,
            "over": over,
            "truncated": truncated,
            "result": views.result(self.game, state, truncated) if over else None,
            "notice": self.notice,
            "text": env.encoding.render(env._decision, viewer),
            "zones": table["zones"],
            "info": table["info"],
            "log_start": start,
            "log": [
                {
                    "seat": e["seat"],
                    "move": e["shown"][column],
                    "label": views.move_label(self.game, e["shown"][column]),
                    "event": e["event"],
                }
                for e in self.log[start:]
            ],
            "moves": self.human_moves() if to_move is not None and to_move == self.human else [],
            "scores": None,
            "replay": None,
            "seed": self.seed if self.human is None or over else None,
            "seed_text": str(self.seed) if self.human is None or over else None,
        }
        if self.replay_of is not None:
            data["replay"] = {"index": len(self.log), "total": len(self.replay_of.moves)}
        if over:
            points = list(env.rules.points(state))
            returns = [round(float(r), 6) for r in env.rules.returns(state)]
            breakdown = views.scores(self.game, state)
            breakdown["rows"] += [["Points", *points], ["Return (RL)", *returns]]
            data["scores"] = breakdown
        return data

    def human_moves(self) -> list[dict[str, Any]]:
        """The human's legal moves: every rules move whose actions the env's mask allows.

        For an encoding with sub-steps, a move is offered when its first action is in the
        mask (the encoding then leads it to completion); each comes with its card selection
        and a ``label`` written for reading.
        """
        env = self.env
        state = env.game_state()
        mask = env.action_mask()
        out = []
        seen = set()
        for move in env.rules.legal_moves(state):
            text = str(move)
            try:
                action = env.string_to_action(text)
            except ValueError:
                continue  # a move the encoding does not offer (e.g. another reading of the same cards)
            if not mask[action] or text in seen:
                continue
            seen.add(text)
            out.append({"text": text, "label": views.move_label(self.game, text),
                        "sel": views.selection(self.game, move, state)})
        return out

    def record(self) -> dict[str, Any]:
        """The game's record so far (for a human game only once it is over).

        Raises:
            Forbidden: for a game with a human seat that is still going (the record holds the seed).
        """
        if self.human is not None and not self.over:
            raise Forbidden("the record of a game with a human seat is available once the game is over")
        if self.replay_of is not None:
            return self.replay_of.to_dict()
        return self.recorder.record.to_dict()


    def record_bytes(self, limit: int) -> bytes:
        """The game's record as JSON bytes, encoded once per change (a replay's once): the
        bytes are kept with the game and count in :meth:`estimated_bytes`.

        Raises:
            Forbidden: as :meth:`record`.
            TooLarge: when the encoded record is over ``limit`` bytes.
        """
        with self._record_lock:  # readers of the same version wait for one encoding
            version = -1 if self.replay_of is not None else self.version
            if self._record_bytes is None or self._record_bytes[0] != version:
                self._record_bytes = None
                body = encode_json(self.record())
                if len(body) > limit:
                    raise TooLarge(
                        f"this game's record is {len(body) / 2**20:.1f} MiB; this server sends records "
                        f"of at most {limit / 2**20:.1f} MiB"
                    )
                self._record_bytes = (version, body)
            return self._record_bytes[1]


def encode_json(data: dict[str, Any], piece: int = 2048) -> bytes:
    """``json.dumps(data)`` in compact form, long lists encoded ``piece`` items at a time, so
    that a worker thread encoding a large record lets the event loop's thread run between pieces
    (one ``json.dumps`` call holds the interpreter until it returns)."""
    parts = []
    for key, value in data.items():
        if isinstance(value, list) and len(value) > piece:
            pieces = (json.dumps(value[i:i + piece], separators=(",", ":"))[1:-1]
                      for i in range(0, len(value), piece))
            text = "[" + ",".join(pieces) + "]"
        else:
            text = json.dumps(value, separators=(",", ":"))
        parts.append(f"{json.dumps(key)}:{text}")
    return ("{" + ",".join(parts) + "}").encode()


def check_replay(record: GameRecord, seconds: float) -> None:
    """Replay the whole record on a fresh env, giving up after ``seconds``.

    Raises:
        BadRequest: when the record does not replay (the message says where and why) or its
            check takes longer than ``seconds``.
    """
    check_options(record.env, record.options)
    check_seed(record.seed)
    deadline = time.monotonic() + seconds
    try:
        env = make_env(record)
        for step in replay(record, env):
            if step.index % 256 == 0 and time.monotonic() > deadline:
                raise BadRequest(
                    f"checking the record stopped after {seconds:g} s at move {step.index + 1} of "
                    f"{len(record.moves)}; this server replays shorter records"
                )
    except RecordError as error:
        raise BadRequest(clip(f"bad record: {error}", 300)) from None


def random_seed() -> int:
    """A fresh seed for a game started without one: :data:`SEED_BITS` bits from the OS's
    entropy, so that nobody can search the seeds for the one that deals a given opening hand.

    The seed fixes the deal and the agents' randomness (``numpy``'s generators take integers
    of any size), and the game record keeps it whole, so the game replays.
    """
    return secrets.randbits(SEED_BITS)


__all__ = [
    "HUMAN", "LOG_SHOWN", "MAX_MOVE", "SEED_BITS",
    "BadRequest", "Conflict", "Forbidden", "GameSession", "Snapshot",
    "check_options", "check_replay", "check_seed", "clip", "default_catalog", "random_seed",
]
