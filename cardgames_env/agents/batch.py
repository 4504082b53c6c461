"""Batched players: one call picks an action for every row of a batch of observations.

The batched training env (:mod:`cardgames_env.training.vector_env`) asks each opponent for the
moves of all the slots it plays at once. :func:`batch_policy` turns any agent spec into a
:class:`BatchPolicy`: random play is vectorised, a trained model runs one forward pass for the
whole batch (:meth:`ModelAgent.act_batch`), and any other :class:`Agent` (the heuristics) is
asked row by row.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from cardgames_env.core.rng import make_rng

from .base import Agent, make_agent


class BatchPolicy(Protocol):
    """Picks one legal action per row of a batch."""

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Return int64 actions ``[k]`` for observations ``[k, D]`` and bool/int masks ``[k, A]``."""
        ...


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Return a uniformly random legal action per row of ``masks`` (every row needs one)."""
    keys = np.where(masks.astype(bool, copy=False), rng.random(masks.shape, dtype=np.float32), -1.0)
    return keys.argmax(axis=1)


class RandomBatch:
    """Uniformly random legal actions, vectorised."""

    def __init__(self, seed: int | None = None):
        self.rng = make_rng(seed)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Return a uniformly random legal action per row."""
        return random_legal(masks, self.rng)


class AgentBatch:
    """Any :class:`Agent` asked row by row (the heuristics, the search agent)."""

    def __init__(self, agent: Agent):
        self.agent = agent

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Return the agent's action for each row."""
        act = self.agent.act
        return np.array([act(obs, mask) for obs, mask in zip(observations, masks)], dtype=np.int64)


def batch_policy(kind: str, env: Any, seed: int | None = None) -> BatchPolicy:
    """Return the batched player of an agent spec (``"random"``, ``"heuristic"``, a model path).

    Raises:
        ValueError: as :func:`make_agent` does for a bad spec.
    """
    if kind == "random":
        return RandomBatch(seed)
    agent = make_agent(kind, env, seed=seed)
    if hasattr(agent, "act_batch"):
        return agent  # type: ignore[return-value]
    return AgentBatch(agent)


__all__ = ["AgentBatch", "BatchPolicy", "RandomBatch", "batch_policy", "random_legal"]
