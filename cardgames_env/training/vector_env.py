"""``VectorTrainingEnv``: a Stable-Baselines3 ``VecEnv`` over a batched engine.

The learner plays one seat in each of the ``num_envs`` games of a
:mod:`cardgames_env.vector` engine; every other seat is played by opponents that act in
batch (:mod:`cardgames_env.agents.batch`): after the learner's actions, each opponent is
asked once for all the slots where one of its seats is to move, and the engine steps just
those slots, until the learner is to move everywhere again.

It keeps the semantics of :class:`cardgames_env.wrappers.single_agent.SingleAgentEnv`:

* the learner's seat is drawn uniformly per game (or fixed), and each other seat's opponent
  is drawn from the :class:`OpponentPool` per game;
* the reward of a step is the learner's reward summed over its own move and every opponent
  move up to its next decision (rewards paid on opponents' turns reach it);
* the learner's episode ends when its game ends (a learner that is eliminated waits,
  its payouts still counted, until the others finish); the next game starts in place, and
  rewards paid before the learner's first decision in it count towards that first step.

``action_masks()`` returns the learner's masks, which sb3-contrib's ``MaskablePPO`` reads
through ``env_method``. ``infos[i]["episode"]`` carries the finished episode's return and
length (as SB3's ``Monitor`` does), so SB3 logs ``ep_rew_mean``. A game cut at the turn limit
ends the episode like any other end (it happens only at ``max_steps`` decisions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from cardgames_env import vector
from cardgames_env.agents.batch import BatchPolicy, batch_policy
from cardgames_env.agents.pool import OpponentPool
from cardgames_env.registry import load


class VectorTrainingEnv(VecEnv):
    """One learner seat in each of ``num_envs`` batched games; opponents act in batch.

    Args:
        env_name: a registered env name (``"<game>_v0"``).
        num_envs: games stepped together.
        options: the env's variant options.
        opponents: an opponent spec for every other seat (``"random"``, ``"heuristic"``, a
            model path) or an :class:`OpponentPool` sampled per seat and game.
        learner_seat: the learner's seat in every game, or ``None`` to draw it per game.
        seed: seed of the engine's deals, the seat and opponent draws and the opponents.

    Raises:
        ValueError: for an unknown env, bad options, a bad seat or opponent spec.
    """

    def __init__(
        self,
        env_name: str,
        num_envs: int,
        options: Mapping[str, Any] | None = None,
        opponents: str | OpponentPool = "random",
        learner_seat: int | None = None,
        seed: int = 0,
    ):
        options = dict(options or {})
        self.engine = vector.make(env_name, num_envs=num_envs, seed=seed, **options)
        self.probe = load(env_name).raw_env(**options)  # what heuristics and models are built for
        players = self.engine.num_players
        if learner_seat is not None and not (
            isinstance(learner_seat, (int, np.integer)) and not isinstance(learner_seat, bool)
            and 0 <= learner_seat < players
        ):
            raise ValueError(f"learner_seat must be an int in 0..{players - 1} or None, got {learner_seat!r}")
        self.pool = opponents if isinstance(opponents, OpponentPool) else OpponentPool(base=(opponents,))
        self.fixed_seat = learner_seat
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self._policies: dict[str, BatchPolicy] = {}
        self._specs: list[str] = []
        for spec in self.pool.base:  # fail now, not mid-training, on a bad spec
            self._policy_index(spec)
        self.render_mode = None  # nothing to render; SB3's VecEnv reads it through get_attr
        super().__init__(num_envs, self.engine.observation_space, self.engine.action_space)
        n = num_envs
        self.seat = np.zeros(n, dtype=np.int64)
        self.opponent = np.zeros((n, players), dtype=np.int64)
        """Index into ``self._specs`` of the opponent in each seat of each slot (learner: -1)."""
        self._episode_return = np.zeros(n, dtype=np.float64)
        self._episode_length = np.zeros(n, dtype=np.int64)
        self._pending = np.zeros(n, dtype=np.float64)
        self._actions: np.ndarray | None = None
        self.env_steps = 0
        """Decisions the engine has played (learner and opponents), for throughput figures."""

    # -- opponents ------------------------------------------------------------------------------
    def _policy_index(self, spec: str) -> int:
        """Index of the batched player of ``spec`` (built once)."""
        if spec not in self._policies:
            seed = int(self._rng.integers(2**31))
            self._policies[spec] = batch_policy(spec, self.probe, seed=seed)
            self._specs.append(spec)
        return self._specs.index(spec)

    def add_opponent(self, spec: str) -> None:
        """Add a snapshot (model path) to the pool; later games may draw it."""
        self.pool.add_snapshot(spec)

    def _new_games(self, slots: np.ndarray) -> None:
        """Draw the learner's seat and the opponents of the games starting in ``slots``."""
        players = self.engine.num_players
        seats = self._seat_keys(np.asarray(slots, dtype=np.int64)[:, None], np.arange(players)).ravel()
        for policy in self._policies.values():  # opponents that remember a game forget it
            end_games = getattr(policy, "end_games", None)
            if end_games is not None:
                end_games(seats)
        for i in slots:
            seat = self.fixed_seat if self.fixed_seat is not None else int(self._rng.integers(players))
            self.seat[i] = seat
            for s in range(players):
                self.opponent[i, s] = -1 if s == seat else self._policy_index(self.pool.sample(self._rng))
        self._episode_return[slots] = 0.0
        self._episode_length[slots] = 0

    def _seat_keys(self, slots: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The key of each game seat (``slot``, ``seat``), as batched opponents see it
        (:class:`~cardgames_env.agents.batch.BatchPolicy`)."""
        return slots * self.engine.num_players + seats

    # -- stepping -------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """Deal new games in every slot and play the opponents up to the learner's turns."""
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        self._reset_seeds()
        self.engine.reset(seed)
        all_slots = np.arange(self.num_envs)
        self._new_games(all_slots)
        self._pending[:] = 0.0
        # Everything before the learner's first decisions belongs to its first step (pending).
        started = np.ones(self.num_envs, dtype=bool)
        self._play_opponents(np.zeros(self.num_envs), started, [{} for _ in all_slots])
        return self.engine.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Record the learner's actions (one per slot)."""
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        """Play the learner's actions, then the opponents until the learner is to move again.

        Raises:
            ValueError: for an illegal learner action (naming the slot); no slot changes.
        """
        if self._actions is None:
            raise ValueError("step_wait() needs step_async(actions) first")
        actions, self._actions = self._actions, None
        n = self.num_envs
        reward = self._pending.copy()
        self._episode_return += self._pending
        self._pending[:] = 0.0
        ended = np.zeros(n, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        self.engine.step(actions.astype(np.int64, copy=False).reshape(n))
        self.env_steps += n
        self._episode_length += 1
        self._collect(np.ones(n, dtype=bool), reward, ended, infos)
        self._play_opponents(reward, ended, infos)
        return self.engine.obs.copy(), reward.astype(np.float32), ended, infos

    def _collect(
        self, moved: np.ndarray, reward: np.ndarray, ended: np.ndarray, infos: list[dict[str, Any]]
    ) -> None:
        """Book the learner's rewards of the slots that ``moved`` and finish ended games."""
        engine = self.engine
        earned = engine.rewards[np.arange(self.num_envs), self.seat].astype(np.float64)
        # Rewards of a game that started during this call belong to the learner's next step.
        current = moved & ~ended
        reward[current] += earned[current]
        self._episode_return[current] += earned[current]
        self._pending[moved & ended] += earned[moved & ended]
        finished = np.flatnonzero(engine.done & moved)
        for i in finished:
            if ended[i]:  # a game that started and ended without a learner decision: dropped
                self._pending[i] = 0.0
            else:
                ended[i] = True
                infos[i]["episode"] = {"r": float(self._episode_return[i]), "l": int(self._episode_length[i])}
                infos[i]["TimeLimit.truncated"] = False
        if finished.size:
            self._new_games(finished)

    def _play_opponents(self, reward: np.ndarray, ended: np.ndarray, infos: list[dict[str, Any]]) -> None:
        """Let the opponents move, in batch, until the learner is to move in every slot."""
        engine = self.engine
        rows = np.arange(self.num_envs)
        while True:
            waiting = engine.player != self.seat
            if not waiting.any():
                return
            who = self.opponent[rows, engine.player]
            keys = self._seat_keys(rows, engine.player)
            actions = np.zeros(self.num_envs, dtype=np.int64)
            for index in np.unique(who[waiting]):
                chosen = waiting & (who == index)
                policy = self._policies[self._specs[index]]
                actions[chosen] = policy.act_batch(engine.obs[chosen], engine.mask[chosen], keys[chosen])
            engine.step(actions, active=waiting)
            self.env_steps += int(waiting.sum())
            self._collect(waiting, reward, ended, infos)

    # -- masks and plumbing ---------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every slot (bool ``[N, A]``)."""
        return self.engine.mask.copy()

    def close(self) -> None:
        """Nothing to release."""

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """Return an attribute of this env once per requested slot."""
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of this env (shared by every slot)."""
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """``action_masks``: each slot's mask (what MaskablePPO calls). Any other method is
        called once, on this env that every slot shares (``add_opponent`` adds one snapshot),
        and its result given for each requested slot."""
        selected = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.engine.mask
            return [masks[i].copy() for i in selected]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in selected]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """No slot is wrapped."""
        return [False for _ in self._get_indices(indices)]

    def seed(self, seed: int | None = None) -> Sequence[None | int]:
        """Seed the next ``reset``."""
        self._seeds = [seed] * self.num_envs
        return self._seeds


__all__ = ["VectorTrainingEnv"]
