"""A tiny scripted game for training tests: "last one standing", with eliminations.

Players take turns in seat order among the living; a move is ``0`` (pass) or ``1`` (strike:
the next living seat after the mover is eliminated, its return drops by 1). The game ends
when one player is left (it gets +1) or after ``max_turns`` turns. Game points: 1 for each
player still standing at the end, 0 for the eliminated. Eliminated players are terminated
by the env (the PettingZoo dead-step protocol), like Red7's.

Outcomes are easy to derive by hand, which is what evaluation and wrapper tests need.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from cardgames_env.core.actions import ActionTable
from cardgames_env.core.aec import CardGameEnv
from cardgames_env.core.game import TERMINAL, Encoding, GameInfo
from cardgames_env.core.observation import ObservationLayout

PASS, STRIKE = 0, 1


@dataclass(frozen=True)
class Config:
    """Players and turn limit."""

    num_players: int = 3
    max_turns: int = 12


class State(NamedTuple):
    """Who is alive, whose turn it is, turns played, returns so far."""

    config: Config
    alive: tuple[bool, ...]
    turn: int
    turns: int
    returns: tuple[float, ...]


def _next_alive(alive: tuple[bool, ...], seat: int) -> int:
    n = len(alive)
    for step in range(1, n + 1):
        if alive[(seat + step) % n]:
            return (seat + step) % n
    raise AssertionError("nobody alive")


class ToyRules:
    """The rules module (as a namespace of functions)."""

    Config = Config

    @staticmethod
    def new_game(config: Config, deal: Any) -> State:
        n = config.num_players
        return State(config, (True,) * n, 0, 0, (0.0,) * n)

    @staticmethod
    def sample_deal(state_or_config: Any, rng: np.random.Generator) -> None:
        return None

    @staticmethod
    def apply_deal(state: State, deal: Any) -> State:
        return state

    @staticmethod
    def is_terminal(state: State) -> bool:
        return sum(state.alive) == 1 or state.turns >= state.config.max_turns

    @staticmethod
    def current_player(state: State) -> int:
        return TERMINAL if ToyRules.is_terminal(state) else state.turn

    @staticmethod
    def legal_moves(state: State) -> tuple[int, ...]:
        return () if ToyRules.is_terminal(state) else (PASS, STRIKE)

    @staticmethod
    def apply_move(state: State, move: int) -> State:
        alive, returns = list(state.alive), list(state.returns)
        if move == STRIKE:
            target = _next_alive(state.alive, state.turn)
            alive[target] = False
            returns[target] -= 1.0
            if sum(alive) == 1:
                returns[alive.index(True)] += 1.0
        alive_t = tuple(alive)
        turn = _next_alive(alive_t, state.turn) if sum(alive_t) > 1 else state.turn
        return State(state.config, alive_t, turn, state.turns + 1, tuple(returns))

    @staticmethod
    def points(state: State) -> tuple[int, ...]:
        return tuple(int(a) for a in state.alive)

    @staticmethod
    def returns(state: State) -> tuple[float, ...]:
        return state.returns

    @staticmethod
    def eliminated(state: State) -> tuple[bool, ...]:
        return tuple(not a for a in state.alive)

    @staticmethod
    def resample_hidden(state: State, player: int, rng: np.random.Generator) -> State:
        return state

    @staticmethod
    def game_info(config: Config) -> GameInfo:
        return GameInfo("toy", config.num_players, config.max_turns, -1.0, 1.0, -1.0, 1.0, False,
                        "-1 when eliminated, +1 to the last one standing")


class ToyEncoding(Encoding):
    """Observation: who is alive (seat-rotated) and the turn count; actions: pass, strike."""

    rules = ToyRules

    def __init__(self, config: Config):
        self.config = config
        self.num_players = config.num_players
        self.actions = ActionTable([("pass", 1, "pass"), ("strike", 1, "eliminate the next player")])
        self.layout = ObservationLayout([("alive", config.num_players, "alive, me first"),
                                         ("turns", 1, "turns / max_turns")])

    def observe(self, state: State, player: int) -> np.ndarray:
        n = self.num_players
        alive = [float(state.alive[(player + i) % n]) for i in range(n)]
        return np.array(alive + [state.turns / self.config.max_turns], dtype=np.float32)

    def legal_action_mask(self, state: State) -> np.ndarray:
        return np.ones(2, dtype=np.int8)

    def encode(self, state: State, move: int) -> int:
        return int(move)

    def decode(self, state: State, action: int) -> int:
        return int(action)


class ToyEnv(CardGameEnv):
    """The toy game as a CardGameEnv."""

    rules = ToyRules
    encoding_cls = ToyEncoding
    metadata = {"name": "toy_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}


class Scripted:
    """An agent that always plays the same action."""

    def __init__(self, action: int, name: str):
        self.action = action
        self.name = name

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        assert action_mask[self.action]
        return self.action

    def reset(self, seed: int | None = None) -> None:
        """Nothing random."""


def striker() -> Scripted:
    """Always strikes."""
    return Scripted(STRIKE, "striker")


def passer() -> Scripted:
    """Always passes."""
    return Scripted(PASS, "passer")
