"""``SB3BatchedEnv``: the Stable-Baselines3 ``VecEnv`` face of the gymnasium vector env
over a batched engine.

All the learner/opponent logic lives in
:class:`cardgames_env.wrappers.vector_env.CardGamesVectorEnv` (learner seats, batched
opponents, rewards paid on opponents' turns, the next game started in place); this layer
only speaks SB3's ``VecEnv`` protocol: flat observations (the ``observation`` part), float32
rewards, one ``done`` per slot and a list of info dicts. ``action_masks()`` returns the
learner's masks, which sb3-contrib's ``MaskablePPO`` reads through ``env_method``.
``infos[i]["episode"]`` carries the finished episode's return and length (as SB3's
``Monitor`` does), so SB3 logs ``ep_rew_mean``. A game cut at the turn limit ends the episode
like any other end (``TimeLimit.truncated`` stays False: no final observation is encoded).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from cardgames_env.agents.pool import OpponentPool
from cardgames_env.core.aec import CardGameEnv
from cardgames_env.core.engine import BatchedEngine
from cardgames_env.core.spec import GameSpec
from cardgames_env.wrappers.vector_env import CardGamesVectorEnv

NO_INFO: Mapping[str, Any] = MappingProxyType({})
"""The info of a slot whose game goes on (shared by those slots, read-only)."""


class SB3BatchedEnv(VecEnv):
    """One learner seat in each of ``num_envs`` batched games; opponents act in batch.

    Args:
        env: a registered env name (``"<game>_v0"``), the game's spec, or its batched engine
            (:func:`cardgames_env.vector.make`, best with ``deal=False``: ``reset`` deals).
        num_envs: games stepped together (an engine given has its own).
        options: the env's variant options.
        probe: an AEC env of the game and variant (default: one built from the engine's env
            class).
        opponents: an agent spec for every other seat (``"random"``, ``"heuristic"``,
            ``"search"``, a model path...: any spec
            :func:`~cardgames_env.agents.batch.batch_policy` takes) or an
            :class:`OpponentPool` of specs sampled per seat and game.
        learner_seat: the learner's seat in every game, or ``None`` to draw it per game.
        seed: seed of the engine's deals, the seat and opponent draws and the opponents.

    Raises:
        ValueError: for an unknown env, bad options, a bad seat or opponent spec.
    """

    def __init__(
        self,
        env: str | GameSpec | BatchedEngine,
        num_envs: int | None = None,
        options: Mapping[str, Any] | None = None,
        opponents: str | OpponentPool = "random",
        learner_seat: int | None = None,
        seed: int = 0,
        *,
        probe: CardGameEnv | None = None,
    ):
        # A single spec is a pool of one, drawn per seat and game like any pool.
        pool = opponents if isinstance(opponents, OpponentPool) else OpponentPool(base=(opponents,))
        self.venv = CardGamesVectorEnv(
            env, num_envs, probe=probe, opponents=pool, learner_seat=learner_seat, seed=seed, final_obs=False,
            copy=False, **dict(options or {}),
        )
        """The gymnasium vector env this layer drives."""
        self.engine = self.venv.engine
        self.probe = self.venv.probe
        self.pool = self.venv.pool
        self.render_mode = None  # nothing to render; SB3's VecEnv reads it through get_attr
        super().__init__(self.engine.num_envs, self.engine.observation_space, self.engine.action_space)
        self._actions: np.ndarray | None = None

    @property
    def env_steps(self) -> int:
        """Decisions the engine has played (learner and opponents), for throughput figures."""
        return self.venv.env_steps

    def add_opponent(self, spec: str) -> None:
        """Add a snapshot (model path) to the pool; later games may draw it."""
        self.venv.add_opponent(spec)

    # -- stepping -------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """Deal new games in every slot (seeded by ``seed()`` once) and play up to the learner."""
        seed = self._seeds[0] if self._seeds else None
        self._reset_seeds()
        observations, _ = self.venv.reset(seed=seed)
        return observations["observation"].copy()

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
        observations, rewards, terminated, truncated, infos = self.venv.step(
            actions.astype(np.int64, copy=False).reshape(self.num_envs)
        )
        dones = terminated | truncated
        # One shared, read-only empty info for the slots whose game goes on: no work per slot.
        step_infos: list[Any] = [NO_INFO] * self.num_envs
        if dones.any():
            episode = infos["episode"]
            for i in np.flatnonzero(dones):
                step_infos[i] = {"episode": {"r": float(episode["r"][i]), "l": int(episode["l"][i])},
                                 "TimeLimit.truncated": False}
        return observations["observation"].copy(), rewards.astype(np.float32), dones, step_infos

    # -- masks and plumbing ---------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every slot (bool ``[N, A]``)."""
        return self.venv.action_masks()

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


__all__ = ["SB3BatchedEnv"]
