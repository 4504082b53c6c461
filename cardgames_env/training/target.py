"""The game a training run learns, resolved once: :class:`TrainingTarget`.

A run names its env once (``cardgames train ENV``); :meth:`TrainingTarget.resolve` turns the
name (any accepted spelling) and the variant options into the game's spec and one AEC env of
that variant, and every
part of the run (the learners, the opponents, the evaluations, the saved files) takes its envs
from the target's factories instead of looking the name up again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cardgames_env import registry
from cardgames_env.agents.pool import OpponentPool
from cardgames_env.core.aec import CardGameEnv
from cardgames_env.core.spec import GameSpec

from .config import OPPONENT_MODES, SelfPlayConfig

if TYPE_CHECKING:  # the factories import these when called
    from cardgames_env.wrappers.single_agent import SingleAgentEnv

    from .sb3_vec_env import SB3BatchedEnv


@dataclass(frozen=True)
class TrainingTarget:
    """One env and variant that a run trains on.

    Attributes:
        env_name: the canonical env name (``"<game>_v0"``: logs, file names, summaries).
        options: the variant's options.
        spec: the game's spec.
        probe: an AEC env of the variant, for its sizes and sidecars (never stepped).
    """

    env_name: str
    options: Mapping[str, Any]
    spec: GameSpec
    probe: CardGameEnv = field(repr=False)

    @classmethod
    def resolve(cls, env: str | GameSpec, options: Mapping[str, Any] | None = None) -> TrainingTarget:
        """Return the target of ``env`` (any accepted spelling of its name, or its spec) with
        ``options``: the name is looked up here, once, and the probe is the one AEC env built.

        Raises:
            ValueError: for an unknown env or a bad option.
        """
        spec = env if isinstance(env, GameSpec) else registry.spec(env)
        options = dict(options or {})
        probe = spec.load("env")(**options)
        return cls(spec.env_name, options, spec, probe)

    @property
    def game(self) -> str:
        """The game id."""
        return self.spec.game

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return len(self.probe.possible_agents)

    @property
    def observation_size(self) -> int:
        """Length of one seat's flat observation."""
        return int(self.probe.encoding.observation_size)

    @property
    def num_actions(self) -> int:
        """Size of the action space."""
        return int(self.probe.encoding.num_actions)

    @property
    def has_heuristic(self) -> bool:
        """Whether the game has a rule-based agent."""
        return self.spec.heuristic is not None

    def raw_env(self) -> CardGameEnv:
        """A fresh AEC env of the variant (unwrapped)."""
        return type(self.probe)(**dict(self.options))

    def single_agent_env(
        self, opponents: OpponentPool, learner_seat: int | None, seed: int
    ) -> SingleAgentEnv:
        """A gymnasium env of one learner seat against ``opponents`` (each env its own pool copy)."""
        import copy

        from cardgames_env.wrappers.single_agent import SingleAgentEnv

        return SingleAgentEnv(self.raw_env(), opponents=copy.deepcopy(opponents), learner_seat=learner_seat,
                              seed=seed)

    def vector_env(
        self, num_envs: int, opponents: OpponentPool, learner_seat: int | None, seed: int
    ) -> SB3BatchedEnv:
        """The batched engine's ``num_envs`` games, one learner seat each, as an SB3 ``VecEnv``."""
        from cardgames_env import vector

        from .sb3_vec_env import SB3BatchedEnv

        engine = vector.make(self.spec, num_envs, seed=seed, deal=False, **self.options)
        return SB3BatchedEnv(engine, options=self.options, probe=self.probe, opponents=opponents,
                                 learner_seat=learner_seat, seed=seed)

    def check_seat(self, seat: int | None) -> None:
        """Check a fixed learner seat against the table.

        Raises:
            ValueError: for a seat outside ``0..num_players - 1``.
        """
        if seat is not None and seat >= self.num_players:
            raise ValueError(f"learner_seat must be in 0..{self.num_players - 1}, got {seat}")

    def opponent_pool(self, mode: str, selfplay: SelfPlayConfig) -> OpponentPool:
        """Return the opponent pool of an ``--opponents`` mode.

        ``random``/``heuristic``: that agent in every other seat. ``selfplay``: random and (when
        the game has one) heuristic stay in the pool; snapshots of the learner join during
        training.

        Raises:
            ValueError: for an unknown mode or ``heuristic`` in a game without a heuristic.
        """
        if mode not in OPPONENT_MODES:
            raise ValueError(f"unknown opponents {mode!r}; expected one of {', '.join(OPPONENT_MODES)}")
        if mode == "heuristic" and not self.has_heuristic:
            raise ValueError(f"no heuristic agent for game {self.game!r}: use --opponents random or selfplay")
        if mode != "selfplay":
            return OpponentPool(base=(mode,))
        base = ("random", "heuristic") if self.has_heuristic else ("random",)
        return OpponentPool(base=base, sampling=selfplay.sampling, snapshot_prob=selfplay.snapshot_prob,
                            window=selfplay.window)


__all__ = ["TrainingTarget"]
