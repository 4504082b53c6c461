"""``SingleAgentEnv``: one learning seat of any registered env as a ``gymnasium.Env``.

The PettingZoo SB3 tutorial's wrapper lets every seat act through the learner and hands out
only the reward of the step the learner itself took: a loss that happens on an opponent's
turn (a trick taken by another seat, an opponent completing a set) never reaches it, and the
perspectives of the seats mix. Here the learner sits in one seat (fixed, or drawn per
episode), every other seat is played inside :meth:`SingleAgentEnv.step` by opponent agents,
and the reward of a step is the sum of the learner's rewards over *every* raw step from its
action up to its next decision: its own step and all the opponents' steps in between (read
right after each raw step, before PettingZoo's dead steps clear them).

The learner's episode ends when the game ends or when the learner is eliminated;
other agents' eliminations are handled internally with their dead steps. The observation is
the env's flat float32 vector from the learner's seat; :meth:`SingleAgentEnv.action_masks`
returns the learner's legal actions as a bool array, which is what sb3-contrib's
MaskablePPO calls (through ``env_method``) under ``DummyVecEnv`` and ``SubprocVecEnv``.

The raw env is used (no PettingZoo wrappers) for speed; an illegal learner action is never
replaced by another: by default it ends the episode with ``illegal_reward`` (as PettingZoo's
``TerminateIllegalWrapper`` does), or raises with ``illegal_action="raise"``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from cardgames_env.agents.base import Agent, make_agent
from cardgames_env.agents.pool import OpponentPool
from cardgames_env.core.actions import as_action
from cardgames_env.core.aec import CardGameEnv, check_reset_options
from cardgames_env.core.game import IllegalMoveError
from cardgames_env.core.rng import check_seed
from cardgames_env.registry import make_raw_env

OpponentSpec = str | Agent
"""An opponent: ``"random"``, ``"heuristic"``, a model path, or an :class:`Agent` object."""

_MAX_RESTARTS = 100
"""Deals tried at reset when the learner's episode ends before its first decision."""



def check_learner_seat(learner_seat: Any, num_players: int) -> int | None:
    """Return ``learner_seat`` as an int (``None`` stays: a seat drawn per game).

    Raises:
        ValueError: unless it is ``None`` or an int (numpy ints too, not bools) in
            ``0..num_players - 1``.
    """
    if learner_seat is None:
        return None
    if (
        isinstance(learner_seat, (bool, np.bool_))
        or not isinstance(learner_seat, (int, np.integer))
        or not 0 <= learner_seat < num_players
    ):
        raise ValueError(f"learner_seat must be None or an int in 0..{num_players - 1}, got {learner_seat!r}")
    return int(learner_seat)

class SingleAgentEnv(gymnasium.Env):
    """One learner seat of a card game; every other seat is played by opponents inside ``step``.

    Args:
        env: a registered env name (``"<game>_v0"``) or a raw :class:`CardGameEnv` instance.
        options: the game's variant options (only with an env name).
        opponents: one spec for every other seat, a sequence with one spec per other seat (in
            seat order, skipping the learner), or an :class:`OpponentPool` sampled per seat
            at each episode.
        learner_seat: the learner's seat, or ``None`` to draw it uniformly per episode.
        seed: seed of the first ``reset`` when it is called without one.
        illegal_action: ``"terminate"`` (end the episode with ``illegal_reward``) or ``"raise"``.
        illegal_reward: reward of an illegal learner action under ``"terminate"``.
        render_mode: ``None`` or ``"ansi"`` (the table from the learner's seat).

    Raises:
        ValueError: for an unknown env, bad options, a bad seat or opponent spec.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        env: str | CardGameEnv,
        options: Mapping[str, Any] | None = None,
        opponents: OpponentSpec | Sequence[OpponentSpec] | OpponentPool = "random",
        learner_seat: int | None = None,
        seed: int | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ):
        super().__init__()
        raw = make_raw_env(env, options)
        self.raw: CardGameEnv = raw
        self.env_name: str = raw.metadata["name"]
        self.num_players = len(raw.possible_agents)
        learner_seat = check_learner_seat(learner_seat, self.num_players)
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.fixed_seat = learner_seat
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self._initial_seed = check_seed(seed)
        n_obs, n_act = raw.encoding.observation_size, raw.encoding.num_actions
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(n_obs,), dtype=np.float32)
        self.action_space = spaces.Discrete(n_act)
        self._all_legal = np.ones(n_act, dtype=bool)
        self._blank = np.zeros(n_obs, dtype=np.float32)

        self.pool: OpponentPool | None = None
        self._fixed: list[Agent] | None = None
        if isinstance(opponents, OpponentPool):
            self.pool = opponents
        elif isinstance(opponents, (str, Agent)):
            self._fixed = [self._build(opponents, i) for i in range(self.num_players - 1)]
        else:
            specs = list(opponents)
            if len(specs) != self.num_players - 1:
                raise ValueError(
                    f"{self.env_name} has {self.num_players - 1} opponent seats; got {len(specs)} opponents"
                )
            self._fixed = [self._build(spec, i) for i, spec in enumerate(specs)]
        self._cache: dict[tuple[str, int], Agent] = {}
        if self.pool is not None:
            for spec in self.pool.base:  # fail now, not mid-training, on a bad base entry
                self._pool_agent(spec, 0)

        self.learner_seat = 0 if learner_seat is None else learner_seat
        self.learner = raw.possible_agents[self.learner_seat]
        self.seat_agents: list[Agent | None] = [None] * self.num_players
        self.seat_names: list[str] = [""] * self.num_players
        self._done = True
        self._episode_return = 0.0
        self._pending = 0.0
        self.env_steps = 0
        """Decisions played in the raw env (learner and opponents), for throughput figures."""

    # -- opponents ----------------------------------------------------------------------------
    def _build(self, spec: OpponentSpec, index: int) -> Agent:
        """Build one opponent from a spec (agents given as objects are used as they are)."""
        if isinstance(spec, str):
            return make_agent(spec, self.raw, seed=index)
        if isinstance(spec, Agent):
            return spec
        raise ValueError(f"an opponent must be a name, a model path or an Agent, got {spec!r}")

    def _pool_agent(self, spec: str, seat: int) -> Agent:
        """Return the cached agent for a pool spec in ``seat`` (models are shared across seats)."""
        from cardgames_env.agents.model import ModelAgent

        key = (spec, seat)
        agent = self._cache.get(key)
        if agent is None:
            shared = next((a for (s, _), a in self._cache.items() if s == spec), None)
            if isinstance(shared, ModelAgent):
                agent = shared
            else:
                agent = make_agent(spec, self.raw, seed=seat)
            self._cache[key] = agent
        return agent

    def add_opponent(self, spec: str) -> None:
        """Add a snapshot (model path) to the opponent pool; call through ``VecEnv.env_method``.

        Raises:
            ValueError: when the env plays fixed opponents, or the model does not fit the env.
        """
        if self.pool is None:
            raise ValueError("this env plays fixed opponents: build it with an OpponentPool")
        self._pool_agent(str(spec), 0)  # load (and check) now
        self.pool.add_snapshot(str(spec))
        kept = set(self.pool.entries)
        self._cache = {key: a for key, a in self._cache.items() if key[0] in kept}

    def opponent_probabilities(self) -> dict[str, float]:
        """Return the pool's sampling probabilities (a single entry for fixed opponents)."""
        if self.pool is None:
            return {"fixed": 1.0}
        return self.pool.probabilities()

    # -- gymnasium API --------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode: draw the learner's seat and opponents, play until the learner moves.

        Raises:
            ValueError: for a seed that is not a non-negative int, or ``options`` that are not
                a dict or name a variant (variants are constructor arguments).
        """
        seed = check_seed(seed)
        check_reset_options(options, self.raw._constructor_arguments())
        if seed is None and self._initial_seed is not None and self._np_random is None:
            seed = self._initial_seed
        super().reset(seed=seed)
        rng = self.np_random
        for _ in range(_MAX_RESTARTS):
            self.learner_seat = (
                int(rng.integers(self.num_players)) if self.fixed_seat is None else self.fixed_seat
            )
            self.learner = self.raw.possible_agents[self.learner_seat]
            self._choose_opponents(rng)
            self.raw.reset(seed=int(rng.integers(2**63)))
            self._done = False
            self._episode_return = 0.0
            reward, done = self._advance()
            if not done:
                # Rewards paid before the learner's first decision join its first step's reward.
                self._pending = reward
                return self._observe(), self._info()
        raise RuntimeError(
            f"{self.env_name}: the learner's episode ended before its first move {_MAX_RESTARTS} times"
        )

    def _choose_opponents(self, rng: np.random.Generator) -> None:
        """Seat this episode's opponents and re-seed them from ``rng``."""
        others = [s for s in range(self.num_players) if s != self.learner_seat]
        for index, seat in enumerate(others):
            if self.pool is None:
                assert self._fixed is not None
                agent, name = self._fixed[index], "fixed"
            else:
                name = self.pool.sample(rng)
                agent = self._pool_agent(name, seat)
            agent.reset(seed=int(rng.integers(2**31)))
            self.seat_agents[seat] = agent
            self.seat_names[seat] = name
        self.seat_agents[self.learner_seat] = None
        self.seat_names[self.learner_seat] = "learner"

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then every other seat until the learner's next decision.

        Raises:
            TypeError: for an action that is not an int, a numpy integer or a 0-d integer array.
            RuntimeError: once the episode is over (call ``reset()``).
        """
        action = as_action(action)
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        raw = self.raw
        mask = raw.action_mask()
        if not (0 <= action < mask.size and mask[action]):
            if self.illegal_action == "raise":
                raise IllegalMoveError(
                    f"action {action} is not legal for the learner; legal: {np.flatnonzero(mask).tolist()}"
                )
            self._done = True
            self._episode_return += self.illegal_reward + self._pending
            self._pending = 0.0
            info = self._info()
            info["illegal_action"] = True
            return self._observe(), self.illegal_reward, True, False, info
        raw.step(action)
        self.env_steps += 1
        reward = raw.rewards[self.learner]
        more, done = self._advance()
        reward = float(reward + more + self._pending)
        self._pending = 0.0
        self._episode_return += reward
        self._done = done
        # The env's turn limit (max_steps) truncates: the game did not end by its rules.
        truncated = done and self.raw.truncations.get(self.learner, False)
        return self._observe(), reward, done and not truncated, truncated, self._info()

    def _advance(self) -> tuple[float, bool]:
        """Play opponents and dead steps until the learner is to move or its episode is over.

        Returns:
            The learner's rewards summed over the raw steps played, and whether its episode ended.
        """
        raw = self.raw
        learner = self.learner
        terminations, truncations = raw.terminations, raw.truncations
        total = 0.0
        while True:
            if terminations[learner] or truncations[learner]:
                return total, True
            agent = raw.agent_selection
            if terminations[agent] or truncations[agent]:
                raw.step(None)  # another agent's dead step: no reward, it leaves the game
                continue
            if agent == learner:
                return total, False
            seat = raw._agent_index[agent]
            opponent = self.seat_agents[seat]
            assert opponent is not None
            mask = raw.action_mask()
            if getattr(opponent, "needs_observation", True):
                observation = raw.encoding.observe(raw._decision, seat)
            else:
                observation = self._blank
            raw.step(opponent.act(observation, mask))
            self.env_steps += 1
            total += raw.rewards[learner]

    def _observe(self) -> np.ndarray:
        """Return the learner's observation vector (a new array)."""
        return self.raw.encoding.observe(self.raw._decision, self.learner_seat)

    def _info(self) -> dict[str, Any]:
        """Return the step info: the learner's seat, and at the end its points and return."""
        info: dict[str, Any] = {"learner_seat": self.learner_seat}
        if self._done:
            points = self.raw.rules.points(self.raw.game_state())
            info["points"] = points[self.learner_seat]
            info["episode_return"] = self._episode_return
            info["opponents"] = [n for s, n in enumerate(self.seat_names) if s != self.learner_seat]
        return info

    def action_masks(self) -> np.ndarray:
        """Return the learner's legal actions as a bool array (all True once the episode is over)."""
        if self._done or self.raw.agent_selection != self.learner:
            return self._all_legal.copy()
        return self.raw.action_mask().astype(bool)

    def render(self) -> str | None:  # type: ignore[override, unused-ignore]
        """Return the table as text from the learner's seat (``render_mode="ansi"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        return self.raw.encoding.render(self.raw._decision, self.learner_seat)

    def close(self) -> None:
        """Nothing to release."""
