"""Contracts shared by every game: ``GameInfo`` (and the win/loss contract), the rules-module
protocol, the encoding base.

A game is two layers (``docs/architecture.md``):

* a **rules module** (``envs/<game>/rules.py``): pure functions over an immutable ``State``;
  it knows nothing of RL libraries;
* an **encoding** (``envs/<game>/encoding.py``): a subclass of :class:`Encoding` that turns
  states into observation vectors and action masks, and actions (ints) into moves.

:class:`cardgames_env.core.aec.CardGameEnv` drives any pair of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .actions import ActionTable
from .observation import ObservationLayout

CHANCE = -1
"""``current_player`` value of a state that waits for a chance outcome (a deal)."""
TERMINAL = -2
"""``current_player`` value of a finished game."""


class IllegalMoveError(ValueError):
    """A move or action that the rules do not allow in the given state."""


@dataclass(frozen=True)
class GameInfo:
    """The declared contract of a game under one ``Config`` (checked by the env test-suite).

    Attributes:
        name: game id (its spec's ``game``).
        num_players: seats in this configuration.
        max_game_length: most decisions (env steps) in one episode, ``None`` if unbounded.
        min_reward: lowest single reward any step can give a player.
        max_reward: highest single reward any step can give a player.
        min_return: lowest episode return of a player, ``None`` if unbounded.
        max_return: highest episode return of a player, ``None`` if unbounded.
        zero_sum: whether every reward vector sums to zero.
        reward_model: one line saying when rewards arrive and what they mean.
    """

    name: str
    num_players: int
    max_game_length: int | None
    min_reward: float
    max_reward: float
    min_return: float | None
    max_return: float | None
    zero_sum: bool
    reward_model: str


def win_loss_info(
    name: str, num_players: int, reward_model: str, *, max_game_length: int | None = None,
    zero_sum: bool = True,
) -> GameInfo:
    """The contract of a game that pays once, at its end: +1 to the winner, -1 to a loser (0 in
    a draw where the game has them), so every reward and return lies in [-1, 1]."""
    return GameInfo(
        name=name,
        num_players=num_players,
        max_game_length=max_game_length,
        min_reward=-1.0,
        max_reward=1.0,
        min_return=-1.0,
        max_return=1.0,
        zero_sum=zero_sum,
        reward_model=reward_model,
    )


def win_loss_returns(winner: int | None, num_players: int) -> tuple[float, ...]:
    """Returns of a finished win/loss game: +1 for ``winner``, -1 for every other seat; all
    zeros when ``winner`` is ``None`` (a draw)."""
    if winner is None:
        return (0.0,) * num_players
    return tuple(1.0 if seat == winner else -1.0 for seat in range(num_players))


def plain_fields(config: Any) -> None:
    """Replace numpy scalars in a (frozen) dataclass's fields by the Python values they hold.

    Every game's ``Config.__post_init__`` calls this first, so ``num_players=np.int64(3)`` or
    ``hidden_herd=np.bool_(True)`` (values read from arrays, sweeps, config files) pass the
    same checks as ``3`` and ``True``, and the stored ``Config`` holds plain Python values.
    """
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if isinstance(value, np.generic):
            object.__setattr__(config, field.name, value.item())


def config_kwargs(config: Any) -> dict[str, Any]:
    """Return a ``Config``'s fields as keyword options (what :func:`config_from_kwargs` takes)."""
    return {field.name: getattr(config, field.name) for field in dataclasses.fields(config)}


def config_from_kwargs(config_cls: type, kwargs: Mapping[str, Any]) -> Any:
    """Build a frozen ``Config`` dataclass, turning unknown fields into a ``ValueError``."""
    known = {f.name for f in dataclasses.fields(config_cls)}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(unknown)} for {config_cls.__module__}.Config; "
            f"known: {', '.join(sorted(known))}"
        )
    return config_cls(**kwargs)


class RulesModule(Protocol):
    """What ``CardGameEnv`` needs from a game's ``rules`` module (``docs/architecture.md``,
    "Rules engine contract")."""

    def new_game(self, config: Any, deal: Any) -> Any: ...
    def current_player(self, state: Any) -> int: ...
    def legal_moves(self, state: Any) -> tuple[Any, ...]: ...
    def apply_move(self, state: Any, move: Any) -> Any: ...
    def sample_deal(self, state_or_config: Any, rng: np.random.Generator) -> Any: ...
    def apply_deal(self, state: Any, deal: Any) -> Any: ...
    def is_terminal(self, state: Any) -> bool: ...
    def returns(self, state: Any) -> tuple[float, ...]: ...
    def resample_hidden(self, state: Any, player: int, rng: np.random.Generator) -> Any: ...
    def game_info(self, config: Any) -> GameInfo: ...
    def validate_state(self, state: Any, config: Any = None) -> None: ...


def random_positions(
    rules: RulesModule, config: Any, seed: int = 7, games: int = 2, every: int = 3, limit: int = 12
) -> list[Any]:
    """Rules states with a seat to move, from uniformly random play of seeded games: every
    ``every``-th decision of each game, until ``limit`` per game have been taken (a game that
    ends sooner leaves its share to the next). For tests and benchmarks that need varied
    positions of a game."""
    rng = np.random.default_rng(seed)
    found: list[Any] = []
    for game in range(games):
        state = rules.new_game(config, rules.sample_deal(config, rng))
        step = 0
        while len(found) < limit * (game + 1):
            player = rules.current_player(state)
            if player == CHANCE:
                state = rules.apply_deal(state, rules.sample_deal(state, rng))
                continue
            if player < 0:
                break
            if step % every == 0:
                found.append(state)
            moves = rules.legal_moves(state)
            state = rules.apply_move(state, moves[int(rng.integers(len(moves)))])
            step += 1
    return found


class Encoding:
    """Base class of a game's encoding: actions <-> moves, states -> observations and masks.

    Subclasses set ``actions`` (an :class:`ActionTable`) and ``layout`` (an
    :class:`ObservationLayout`) in ``__init__(config)`` and implement the abstract methods.

    The env holds a *decision state*: by default the rules ``State`` itself. An encoding in
    which one move takes several actions (sub-steps, e.g. choosing cards one at a time) keeps
    its partial choice next to the rules state by overriding :meth:`to_decision`,
    :meth:`rules_state` and :meth:`replace_rules_state`, and :meth:`apply_action` (which
    returns a new decision state, completing the rules move on the last sub-step). Every
    method below that takes ``state`` receives the decision state.
    """

    rules: Any
    """The game's rules module (set as a class attribute by each game's encoding)."""

    actions: ActionTable
    layout: ObservationLayout
    num_players: int
    hidden_layout: ObservationLayout = ObservationLayout([])
    """Pieces of the state vector for what no seat sees and the seats' observations do not
    imply (a game overrides it together with :meth:`hidden_vector`); empty by default."""

    def __init__(self, config: Any) -> None:
        self.config = config

    @property
    def num_actions(self) -> int:
        """Size of the ``Discrete`` action space."""
        return self.actions.size

    @property
    def observation_size(self) -> int:
        """Length of the flat float32 observation vector."""
        return self.layout.size

    @property
    def state_layout(self) -> ObservationLayout:
        """Layout of :meth:`state_vector`: every seat's observation in seat order, then
        :attr:`hidden_layout`."""
        layout = self.__dict__.get("_state_layout")
        if layout is None:
            pieces: list[tuple[str, tuple[int, ...] | int, str]] = [
                (
                    f"player_{p}",
                    self.observation_size,
                    f"the observation of `player_{p}` (from its own seat: the observation table)",
                )
                for p in range(self.num_players)
            ]
            pieces += [(q.name, q.shape, q.description) for q in self.hidden_layout.pieces]
            layout = ObservationLayout(pieces)
            self.__dict__["_state_layout"] = layout
        return layout

    @property
    def state_size(self) -> int:
        """Length of the flat float32 state vector (the env's ``state_space``)."""
        return self.state_layout.size

    def state_vector(self, state: Any) -> np.ndarray:
        """Return the perfect-information float32 vector of a decision state (PettingZoo ``state()``).

        It is the observation of every seat, in seat order (together they show every hand and
        every seat's private knowledge), followed by :meth:`hidden_vector` for what no seat sees.
        """
        parts = [self.observe(state, p) for p in range(self.num_players)]
        if self.hidden_layout.size:
            parts.append(self.hidden_vector(state))
        return np.concatenate(parts).astype(np.float32, copy=False)

    def hidden_vector(self, state: Any) -> np.ndarray:
        """Return the :attr:`hidden_layout` part of the state vector (empty by default)."""
        return np.zeros(0, dtype=np.float32)

    def to_decision(self, state: Any) -> Any:
        """Return the decision state at the start of a move in rules state ``state``."""
        return state

    def rules_state(self, decision: Any) -> Any:
        """Return the rules state inside a decision state."""
        return decision

    def replace_rules_state(self, decision: Any, state: Any) -> Any:
        """Return ``decision`` with its rules state replaced (same pending sub-step choice)."""
        return state

    def observe(self, state: Any, player: int) -> np.ndarray:
        """Return ``player``'s observation (seat-rotated, float32, only what it may know)."""
        raise NotImplementedError

    def legal_action_mask(self, state: Any) -> np.ndarray:
        """Return the int8 mask of legal actions for the player to move."""
        return self.actions.mask(self.encode(state, m) for m in self.rules.legal_moves(state))

    def encode(self, state: Any, move: Any) -> int:
        """Return the action of a move (for sub-step encodings: the first action of it)."""
        raise NotImplementedError

    def decode(self, state: Any, action: int) -> Any:
        """Return the move (or sub-step) an action stands for in ``state``."""
        raise NotImplementedError

    def apply_action(self, state: Any, action: int) -> Any:
        """Apply one action that the caller has checked against :meth:`legal_action_mask`."""
        return self.rules.apply_move(state, self.decode(state, action))

    def action_to_string(self, state: Any, action: int) -> str:
        """Return the notation of an action in ``state`` (the move's string by default)."""
        return str(self.decode(state, action))

    def string_to_action(self, state: Any, text: str) -> int:
        """Parse move notation into the action that plays it in ``state``."""
        return self.encode(state, self.rules.parse_move(text))

    def describe_transition(self, before: Any, after: Any) -> str | None:
        """Return a line narrating what a step changed beyond the move itself (e.g. who won a
        trick), or ``None``; used when watching games in the terminal."""
        return None

    def render(self, state: Any, viewer: int | None) -> str:
        """Return a text picture of the state; ``viewer`` hides others' hands (``None`` shows all)."""
        return repr(state)

    def legend(self) -> str | None:
        """Return a line explaining the abbreviations of :meth:`render` and of the move
        notation, or ``None`` when there are none; shown once before a game in the terminal."""
        return None
