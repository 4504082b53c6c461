"""Batched players: one call picks an action for every row of a batch of observations.

The batched training env (:mod:`cardgames_env.training.vector_env`) asks each opponent for the
moves of all the slots it plays at once. :func:`batch_policy` turns any agent spec into a
:class:`BatchPolicy`: random play is vectorised, a trained model runs one forward pass for the
whole batch (:meth:`ModelAgent.act_batch`), and any other :class:`Agent` (the heuristics) is
asked row by row, one copy per game seat when it remembers things between its decisions in a
game (``keeps_game_state``). Agents that read the env's state instead of the observation (the
search agent, a pretrained policy translating another encoding) cannot play in a batched
engine's slots and are refused.
"""

from __future__ import annotations

import copy
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

    def _copy(self, key: int) -> Agent:
        agent = self._copies.get(key)
        if agent is None:
            agent = self._copies[key] = copy.deepcopy(self.agent)
            agent.reset()
        return agent


def batch_policy(kind: str, env: Any, seed: int | None = None) -> BatchPolicy:
    """Return the batched player of an agent spec (``"random"``, ``"heuristic"``, a model path).

    Raises:
        ValueError: as :func:`make_agent` does for a bad spec, and for an agent that reads the
            env's state rather than its observation (``search``; ``pretrained`` when it
            translates another encoding), which a batched engine's slots cannot give it.
    """
    if kind == "random":
        return RandomBatch(seed)
    agent = make_agent(kind, env, seed=seed)
    if getattr(agent, "needs_observation", True) is False:
        raise ValueError(
            f"agent {kind!r} reads the env's state, not its observation, so it cannot play in a "
            "batched engine; use it on the AEC path (--engine aec)"
        )
    if hasattr(agent, "act_batch"):
        return agent  # type: ignore[return-value]
    return AgentBatch(agent)


__all__ = ["AgentBatch", "BatchPolicy", "RandomBatch", "batch_policy", "random_legal"]
