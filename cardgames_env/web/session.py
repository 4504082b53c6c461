"""One game in the browser app: the env, who plays each seat, the record, and the seat views.

A :class:`GameSession` holds a raw env and one player per seat: an agent built by
:func:`cardgames_env.agents.make_agent`, or ``None`` for the human seat (at most one, so
that a seat's hidden cards are never sent to a page that is not that seat's). Agents move
one whole move per :meth:`GameSession.step`; the human moves with :meth:`GameSession.move`,
written in the game's notation and checked against the env's mask before anything changes.
A replay session plays the moves of a record instead of agents.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from cardgames_env.agents.base import make_agent
from cardgames_env.core.game import IllegalMoveError
from cardgames_env.records import (
    GameRecord,
    Recorder,
    actions_for_move,
    game_over,
    skip_dead_steps,
)
from cardgames_env.registry import load

from . import views

HUMAN = "human"
"""Agent name of the seat played from the page."""


class BadRequest(ValueError):
    """A request the client got wrong (HTTP 400): unknown env, bad option, malformed move..."""


class Conflict(ValueError):
    """A request that does not fit the game's moment (HTTP 409): out of turn, game over..."""


class Forbidden(ValueError):
    """A request for what the page may not see (HTTP 403): another seat's view, a record too early."""


class GameSession:
    """A game being played, watched or replayed.

    Args:
        env_name: env name, e.g. ``"gongzhu_v0"``.
        options: the env's keyword arguments (game variants, ``max_steps``).
        seed: seed of the deal (and of the agents' own randomness).
        agents: one name per seat: ``"human"`` (at most one) or anything ``make_agent`` accepts.
        record: a record to replay instead of agents (``agents`` is then ignored).

    Raises:
        BadRequest: for an unknown env, bad options, a wrong number of seats or an unknown agent.
    """

    def __init__(
        self, env_name: str, options: dict[str, Any], seed: int, agents: list[str] | None = None,
        record: GameRecord | None = None,
    ):
        self.lock = threading.Lock()
        self.replay_of = record
        if record is not None:
            env_name, options, seed = record.env, record.options, record.seed
        try:
            module = load(env_name)
        except ValueError as error:
            raise BadRequest(str(error)) from None
        try:
            self.env = module.raw_env(**options)
        except (ValueError, TypeError) as error:
            raise BadRequest(f"bad option for {env_name}: {error}") from None
        self.env_name = env_name
        self.game: str = self.env.info.name
        self.seed = seed
        n = len(self.env.possible_agents)
        if record is not None:
            agents = [f"record: {a}" for a in record.agents] if record.agents else ["record"] * n
        if agents is None or len(agents) != n:
            raise BadRequest(f"{env_name} has {n} seats; give one agent per seat, got {agents}")
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
                    self.players.append(make_agent(name, self.env, seed=seed * 100 + seat))
                except ValueError as error:
                    raise BadRequest(f"seat {seat}: {error}") from None
        self.env.reset(seed=seed)
        self.recorder = Recorder(env_name, dict(options), seed, self.agent_names if record is None else None)
        self.log: list[dict[str, Any]] = []
        """Every move: ``seat``, ``move`` (notation), ``before`` (rules state), ``event``."""

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["lock"]  # copies (tests, snapshots) get a lock of their own
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.lock = threading.Lock()

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
        event = self.env.encoding.describe_transition(before, self.env.game_state())
        self.log.append({"seat": seat, "move": text, "before": before, "event": event})
        skip_dead_steps(self.env)

    def move(self, text: str, seat: int | None = None) -> None:
        """Play the human seat's move written ``text`` (the whole move, sub-steps included).

        Raises:
            Conflict: if the game has no human seat, is over, or the human is not to move.
            BadRequest: for text that is not a legal move now (nothing is changed).
        """
        if not isinstance(text, str) or not text.strip():
            raise BadRequest("the move must be a non-empty string in the game's notation")
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
            raise BadRequest(f"illegal move: {error}") from None
        except ValueError as error:
            raise BadRequest(f"not a move of this game: {error}") from None
        if self.env.encoding.rules_state(self._after(actions)) is self.env.game_state():
            raise BadRequest(f"{text!r} is only part of a move; send the whole move")
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
                raise Conflict(f"the record's move {index + 1} ({text!r}) does not replay: {error}") from None
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

    def view(self, viewer: int | None = None) -> dict[str, Any]:
        """The JSON view of the game for ``viewer`` (see :meth:`check_viewer`)."""
        viewer = self.check_viewer(viewer)
        env = self.env
        state = env.game_state()
        over = self.over
        to_move = self.to_move()
        table = views.table(self.game, state, viewer)
        data: dict[str, Any] = {
            "env": self.env_name,
            "game": self.game,
            "players": len(env.possible_agents),
            "agents": self.agent_names,
            "human": self.human,
            "viewer": viewer,
            "spectator": viewer is None,
            "to_move": to_move,
            "over": over,
            "truncated": over and any(env.truncations.get(a, False) for a in env.agents),
            "text": env.encoding.render(env._decision, viewer),
            "zones": table["zones"],
            "info": table["info"],
            "log": [
                {
                    "seat": e["seat"],
                    "move": views.public_move(self.game, e["before"], e["seat"], e["move"], viewer),
                    "event": e["event"],
                }
                for e in self.log
            ],
            "moves": self.human_moves() if to_move is not None and to_move == self.human else [],
            "scores": None,
            "replay": None,
            "seed": self.seed if self.human is None or over else None,
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
        mask (the encoding then leads it to completion); each comes with its card selection.
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
                continue  # a move the encoding does not offer (e.g. a lower Haggis reading)
            if not mask[action] or text in seen:
                continue
            seen.add(text)
            out.append({"text": text, "sel": views.selection(self.game, move, state)})
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


def random_seed() -> int:
    """A fresh seed for a game started without one."""
    return int(np.random.default_rng().integers(0, 2**31 - 1))


__all__ = ["HUMAN", "BadRequest", "Conflict", "Forbidden", "GameSession", "random_seed"]
