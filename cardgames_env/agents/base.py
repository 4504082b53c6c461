"""The one ``Agent`` protocol every player of every game implements, and the random agent.

Agents see exactly what a learner sees: the observation vector and the action mask. Heuristic
agents (each game's ``heuristic.py``, named by its spec) read the observation through the
game's ``ObservationLayout`` (never the hidden state).

Imports run one way: ``model`` <- ``base``; the mask helpers are :mod:`cardgames_env.core.masks`
(``legal_actions`` is re-exported here).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from cardgames_env import registry
from cardgames_env.core.masks import legal_actions
from cardgames_env.core.rng import make_rng

from .model import ModelAgent, looks_like_model_path


def has_heuristic(game: str) -> bool:
    """Whether a game (id or env name) has a heuristic agent."""
    return registry.spec(game).heuristic is not None


@runtime_checkable
class Agent(Protocol):
    """A player: picks a legal action from an observation and its mask."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return an action whose mask entry is 1."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Start a new episode, re-seeding the agent's own randomness when ``seed`` is given."""
        ...


class RandomAgent:
    """Plays uniformly at random among the legal actions."""

    needs_observation = False
    """Callers may pass any array as the observation (it is never read), saving its encoding."""

    def __init__(self, seed: int | None = None):
        self.rng = make_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return a uniformly random legal action."""
        legal = legal_actions(action_mask)
        return int(legal[self.rng.integers(legal.size)])

    def reset(self, seed: int | None = None) -> None:
        """Re-seed when ``seed`` is given."""
        if seed is not None:
            self.rng = make_rng(seed)


AGENT_KINDS = ("random", "heuristic", "search", "pretrained")
"""Named agent kinds (``search`` takes options: ``search:iterations=800``; ``pretrained`` is the
policy shipped in the package); ``llm:MODEL@URL`` plays a language model behind an
OpenAI-compatible server (:mod:`cardgames_env.agents.llm`); anything else given to :func:`make_agent` must be
a path to a saved model."""


def make_agent(kind: str, env: Any, seed: int | None = None) -> Agent:
    """Build an agent by name or model path for an env (raw or wrapped).

    Args:
        kind: ``"random"``, ``"heuristic"``, ``"search"`` with optional options
            (``"search:iterations=800"``, ``"search:time=0.2"``; see
            :func:`cardgames_env.agents.search.parse_search_options`), a path to a model
            saved by ``cardgames train`` (its ``.zip``, the zip without suffix, or the run
            folder holding ``model.zip``), an exported policy (an ``.npz`` with its ``.json``
            sidecar, or a ``--algo dmc`` run folder holding ``model.npz``), or an RLlib
            checkpoint folder (``cardgames.json`` +
            ``rllib_checkpoint.json``; needs ray), or ``"pretrained"`` (the policy shipped in
            the package for this env, played in numpy; see
            :mod:`cardgames_env.agents.pretrained`), or ``"llm:MODEL@BASE_URL[,key=value...]"``
            (a language model over the OpenAI chat-completions protocol; see
            :mod:`cardgames_env.agents.llm`).
        env: the env the agent will play (its encoding tells heuristics how to read
            observations; a model must have been trained for this env and variant).
        seed: seed of the agent's own randomness.

    Raises:
        ValueError: for an unknown kind, a game without a heuristic, bad search options, an env
            without a shipped pretrained policy, or a model that is missing or was trained for
            another env.
    """
    if kind == "random":
        return RandomAgent(seed)
    if kind == "heuristic":
        raw = env.unwrapped
        game = registry.spec(raw.info.name)
        if game.heuristic is None:
            raise ValueError(f"no heuristic agent for game {game.game!r}")
        agent: Agent = game.load("heuristic")(raw.encoding, seed=seed)
        return agent
    if kind == "search" or kind.startswith("search:"):  # search.is_search_kind, without importing it
        from .search import SearchAgent

        return SearchAgent(env, kind, seed=seed)
    if kind.startswith("llm:"):  # llm.is_llm_kind, without importing it
        from .llm import LLMAgent

        return LLMAgent(env, kind, seed=seed)
    if kind == "pretrained":
        from .pretrained import PretrainedAgent

        return PretrainedAgent(env, seed=seed)
    from .pretrained import exported_policy_file, load_exported
    from .rllib_agent import RLlibAgent, looks_like_rllib_checkpoint

    exported = exported_policy_file(kind)
    if exported is not None:  # a --algo dmc run or an exported policy
        return load_exported(exported, env)

    if looks_like_rllib_checkpoint(kind):
        return RLlibAgent.load(kind, env=env, seed=seed)
    if looks_like_model_path(kind):
        return ModelAgent.load(kind, env=env, seed=seed)
    raise ValueError(
        f"unknown agent {kind!r}; expected 'random', 'heuristic', 'search[:options]', "
        "'pretrained', 'llm:MODEL@URL' or a path to a saved model"
    )
