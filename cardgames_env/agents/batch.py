"""Batched players: one call picks an action for every row of a batch of observations.

The gymnasium vector env over the batched engines
(:class:`cardgames_env.wrappers.vector_env.CardGamesVectorEnv`) asks each opponent for the
moves of all the slots it plays at once. :func:`batch_policy` turns any agent spec into a
:class:`BatchPolicy`: random play is vectorised, a trained model runs one forward pass for the
whole batch (:meth:`ModelAgent.act_batch`), a heuristic with ``act_batch`` decides the batch
in one call, and any other :class:`Agent` is asked row by row, one copy per game seat when it
remembers things between its decisions in a game (``keeps_game_state``). Agents that read the
env's state instead of the observation (the search agent, a pretrained policy translating
another encoding) play through :class:`StateBatch`: the caller hands it each row's rules
``State`` (``act_states``), and each game seat's agent reads it from an AEC env of its own.
:func:`as_batch_policy` accepts, besides specs, a :class:`BatchPolicy`, an :class:`Agent` or a
plain callable ``f(observations, masks) -> actions`` (a learner's own network in self-play).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from cardgames_env.core.rng import make_rng

from .base import Agent, make_agent


class BatchPolicy(Protocol):
    """Picks one legal action per row of a batch."""

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Return int64 actions ``[k]`` for observations ``[k, D]`` and bool/int masks ``[k, A]``.

        ``keys`` (int ``[k]``), when given, names the game seat each row comes from: rows with
        one key are one player's successive decisions in one game, until the caller ends that
        game (``end_games(keys)``, on the policies that have it: :class:`AgentBatch`).
        """
        ...


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Return a uniformly random legal action per row of ``masks``: the ``k``-th legal action of
    a row, ``k`` drawn uniformly below the row's count (one draw per row, whatever the width).

    Raises:
        ValueError: when a row allows nothing.
    """
    rows, columns = np.nonzero(masks)  # row-major: each row's legal actions in order
    counts = np.bincount(rows, minlength=masks.shape[0])
    if not counts.all():
        raise ValueError("every row of masks needs a legal action")
    starts = np.cumsum(counts) - counts
    return columns[starts + (rng.random(masks.shape[0]) * counts).astype(np.int64)]


class RandomBatch:
    """Uniformly random legal actions, vectorised."""

    def __init__(self, seed: int | None = None):
        self.rng = make_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed when ``seed`` is given (as if built with it)."""
        if seed is not None:
            self.rng = make_rng(seed)

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Return a uniformly random legal action per row."""
        return random_legal(masks, self.rng)


class AgentBatch:
    """Any :class:`Agent` without ``act_batch``, asked row by row (e.g. a heuristic that decides
    one observation at a time).

    An agent whose class sets ``keeps_game_state = True`` (one that plans a whole move and then
    emits it over several decisions) must see one game at a time: it gets one copy per key
    (game seat), made on first use and reset by :meth:`end_games`. Other agents are stateless
    between decisions and share one instance (and so one random stream).
    """

    def __init__(self, agent: Agent):
        self.agent = agent
        self.per_seat = bool(getattr(agent, "keeps_game_state", False))
        self._copies: dict[int, Agent] = {}

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Return the agent's action for each row (from the row's own copy, when it has one).

        Raises:
            ValueError: for an agent that keeps game state asked without ``keys``.
        """
        if not self.per_seat:
            act = self.agent.act
            return np.array([act(obs, mask) for obs, mask in zip(observations, masks)], dtype=np.int64)
        if keys is None:
            raise ValueError(f"{type(self.agent).__name__} keeps state within a game: pass keys")
        return np.array(
            [self._copy(int(key)).act(obs, mask) for obs, mask, key in zip(observations, masks, keys)],
            dtype=np.int64,
        )

    def end_games(self, keys: np.ndarray) -> None:
        """The games of ``keys`` are over: their copies start afresh."""
        for key in keys:
            agent = self._copies.get(int(key))
            if agent is not None:
                agent.reset()

    def reset(self, seed: int | None = None) -> None:
        """Reset the agent (re-seeded when ``seed`` is given) and drop every copy."""
        self.agent.reset(seed=seed)
        self._copies.clear()

    def _copy(self, key: int) -> Agent:
        agent = self._copies.get(key)
        if agent is None:
            agent = self._copies[key] = copy.deepcopy(self.agent)
            agent.reset()
        return agent


class CallableBatch:
    """A plain function ``f(observations, masks) -> actions`` as a :class:`BatchPolicy` (a
    learner's own network playing the other seats in self-play). Its actions are checked."""

    def __init__(self, function: Callable[[np.ndarray, np.ndarray], Any]):
        self.function = function

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Return the function's actions for the rows.

        Raises:
            ValueError: when it returns anything but one legal action per row.
        """
        actions = np.asarray(self.function(observations, masks))
        rows = masks.shape[0]
        if actions.shape != (rows,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"an opponent function must return {rows} integer actions, got "
                             f"{actions.dtype} array of shape {actions.shape}")
        actions = actions.astype(np.int64)
        inside = (actions >= 0) & (actions < masks.shape[1])
        if not inside.all() or not masks[np.arange(rows), actions].all():
            row = int(np.flatnonzero(~inside | ~masks[np.arange(rows), np.where(inside, actions, 0)])[0])
            raise ValueError(f"an opponent function played illegal action {int(actions[row])} in row {row}")
        return actions


class StateBatch:
    """An agent that reads the env's state (``needs_observation = False``: ``search``, a
    ``pretrained`` policy translating another encoding), playing batched games.

    Each game seat (key) gets its own agent on its own AEC env; :meth:`act_states` sets that
    env to the row's rules ``State`` (the state at the start of the move in progress) unless
    it already holds an equal one, so an agent that plans a whole move and plays it over
    several sub-steps (an exchange, a card selection) keeps its plan.

    Args:
        kind: the agent spec (anything :func:`make_agent` takes).
        env: an AEC env of the game and variant (copied for each game seat).
        seed: seed of the agents' randomness (game seat ``key`` plays with ``seed + key``).
    """

    needs_states = True
    """Callers pass rules states (:meth:`act_states`), not observations."""

    def __init__(self, kind: str, env: Any, seed: int | None = None):
        self.kind = kind
        self.env = env.unwrapped
        self.seed = seed
        self._players: dict[int, tuple[Agent, Any]] = {}

    def _player(self, key: int) -> tuple[Agent, Any]:
        """The agent of game seat ``key`` and the AEC env it reads (built on first use)."""
        player = self._players.get(key)
        if player is None:
            env = copy.deepcopy(self.env)
            env.reset(seed=0)
            seed = None if self.seed is None else self.seed + key
            player = self._players[key] = (make_agent(self.kind, env, seed=seed), env)
        return player

    def act_states(self, states: Sequence[Any], masks: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """Return each row's action: the agent of the row's game seat, on the row's state."""
        actions = np.empty(len(states), dtype=np.int64)
        for row, (state, mask, key) in enumerate(zip(states, masks, keys)):
            agent, env = self._player(int(key))
            if env.game_state() != state:
                env.set_game_state(state)
            actions[row] = agent.act(np.zeros(0, dtype=np.float32), mask)
        return actions

    def end_games(self, keys: np.ndarray) -> None:
        """The games of ``keys`` are over: their agents forget any plan."""
        for key in keys:
            player = self._players.get(int(key))
            if player is not None:
                player[0].reset()

    def reset(self, seed: int | None = None) -> None:
        """Drop every game seat's agent; later ones use ``seed`` when it is given."""
        if seed is not None:
            self.seed = seed
        self._players.clear()


def batch_policy(kind: str, env: Any, seed: int | None = None) -> BatchPolicy | StateBatch:
    """Return the batched player of an agent spec (``"random"``, ``"heuristic"``, ``"search"``,
    ``"pretrained"``, a model path...).

    Raises:
        ValueError: as :func:`make_agent` does for a bad spec.
    """
    if kind == "random":
        return RandomBatch(seed)
    agent = make_agent(kind, env, seed=seed)
    if getattr(agent, "needs_observation", True) is False:
        return StateBatch(kind, env, seed=seed)
    if hasattr(agent, "act_batch"):
        return agent  # type: ignore[return-value]
    return AgentBatch(agent)


def as_batch_policy(player: Any, env: Any, seed: int | None = None) -> BatchPolicy | StateBatch:
    """Return the batched player of a spec (:func:`batch_policy`), a :class:`BatchPolicy` (as it
    is), an :class:`Agent` object (row by row: :class:`AgentBatch`) or a plain callable
    ``f(observations, masks) -> actions`` (:class:`CallableBatch`).

    Raises:
        ValueError: for a bad spec or anything else.
    """
    if isinstance(player, str):
        return batch_policy(player, env, seed=seed)
    if hasattr(player, "act_batch") or hasattr(player, "act_states"):
        return player
    if isinstance(player, Agent):
        return AgentBatch(player)
    if callable(player):
        return CallableBatch(player)
    raise ValueError(
        f"an opponent must be an agent spec, an Agent, a batch policy or a function, got {player!r}"
    )


__all__ = [
    "AgentBatch", "BatchPolicy", "CallableBatch", "RandomBatch", "StateBatch", "as_batch_policy",
    "batch_policy", "random_legal",
]
