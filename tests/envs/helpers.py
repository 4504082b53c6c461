"""Random play helpers for the env test-suite."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cardgames_env.registry import load


def make_raw(name: str, options: dict[str, Any], **kw: Any) -> Any:
    """Return a raw (unwrapped) env of ``name`` with ``options``."""
    return load(name).raw_env(**options, **kw)


def make_wrapped(name: str, options: dict[str, Any], **kw: Any) -> Any:
    """Return the wrapped env of ``name`` with ``options``."""
    return load(name).env(**options, **kw)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    """Return a uniformly random action allowed by ``mask`` (fails if none is)."""
    legal = np.flatnonzero(mask)
    assert legal.size > 0, "the agent to move has an empty action mask"
    return int(legal[rng.integers(legal.size)])


def play_episode(
    env: Any,
    seed: int,
    rng: np.random.Generator,
    on_decision: Callable[[Any, str, dict], None] | None = None,
    actions: list[int] | None = None,
) -> list[int]:
    """Play one episode of an AEC env with random legal actions (or the given ``actions``).

    Returns the actions taken (live steps only); ``on_decision(env, agent, obs)`` runs before
    each live step.
    """
    env.reset(seed=seed)
    taken: list[int] = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if on_decision is not None:
            on_decision(env, agent, obs)
        action = actions[len(taken)] if actions is not None else random_legal(obs["action_mask"], rng)
        taken.append(action)
        env.step(action)
    return taken
