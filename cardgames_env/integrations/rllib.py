"""Ray RLlib (new API stack): env runners on the batched engines, a multi-agent env adapter and
action-masking modules for every env.

Install with ``pip install -e ".[rllib]"`` in the checkout. Four pieces:

* the batched engines' gymnasium vector env: a learner against fixed opponents (``random``,
  ``heuristic``...) runs RLlib's single-agent env runners on
  ``gymnasium.make_vec("cardgames/<env>", ...)``
  (:class:`cardgames_env.wrappers.vector_env.CardGamesVectorEnv`, ``NEXT_STEP`` autoreset as
  the runners expect): every runner steps its ``num_envs_per_env_runner`` games in one batched
  engine, the opponents decide inside in batch, and the learner's module sees only its own
  decisions (:func:`build_config` with ``engine="vector"``, the default for those setups);
* :class:`RLlibCardGameEnv` — an RLlib ``MultiAgentEnv`` over any registered AEC env,
  turn-based: each step returns the observation of the agent to move only, as
  ``{"observations": float32 vector, "action_mask": float32 0/1 vector}`` (the layout RLlib's
  action-masking modules read). Every seat's rewards are reported on the step they are paid
  (payouts on other seats' turns included: RLlib adds them to that seat's next transition);
  a seat that is eliminated gets its final observation with ``terminated=True`` (with
  the next step if no other live seat has moved yet: RLlib ends an episode once every agent
  it has seen is done); at the end every seat gets its final observation and ``__all__``
  ends the episode for all.
* :class:`MaskedPPOModule` — RLlib's default PPO torch module with the illegal actions'
  logits pushed to the float minimum before sampling, in training and in inference alike, so
  it never picks an illegal action; :class:`RandomModule` and :class:`HeuristicModule` are
  frozen opponents (uniform over legal actions; the package's heuristic).
* :func:`build_config` — a ``PPOConfig`` for one env in one of the two usual setups: one
  shared policy for every seat (self-play, on the multi-agent adapter: the policy plays every
  seat, which RLlib's multi-agent runners allow) or a learner against frozen opponents (on the
  batched engines, or on the multi-agent adapter with ``engine="aec"``).

``cardgames train ENV --backend rllib`` runs :func:`train` (see ``docs/distributed.md``); the
checkpoint folder it writes plays as an agent through
:class:`cardgames_env.agents.rllib_agent.RLlibAgent`.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from cardgames_env.agents.base import make_agent
from cardgames_env.agents.model import SIDECAR_FORMAT, env_signature
from cardgames_env.agents.rllib_agent import SIDECAR
from cardgames_env.registry import NAMESPACE, load

SETUPS = ("selfplay", "random", "heuristic")
"""Policy setups of :func:`build_config`: one shared policy, or a learner against frozen
random or heuristic opponents."""
ENGINES = ("vector", "aec")
"""Where :func:`build_config`'s env runners play: the batched engines' vector env (a learner
against fixed opponents) or the AEC env through :class:`RLlibCardGameEnv` (every setup)."""
OBSERVATION_KEYS = ("observation", "observations")
"""The key of the plain observation in a masked Dict observation: the vector env's (and the
AEC env's) ``observation``, or the multi-agent adapter's ``observations``."""


def _masked_space(env: Any) -> gym.spaces.Dict:
    """The observation space RLlib sees: the observation and a float 0/1 mask."""
    encoding = env.encoding
    return gym.spaces.Dict(
        {
            "observations": gym.spaces.Box(-np.inf, np.inf, (encoding.observation_size,), np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (encoding.num_actions,), np.float32),
        }
    )


class RLlibCardGameEnv(MultiAgentEnv):
    """An RLlib multi-agent env over one registered AEC env (see the module docstring).

    Args:
        config: ``{"env": "<game>_v0", "options": {...}}`` (RLlib passes ``env_config``).

    Raises:
        ValueError: for an unknown env or bad options.
    """

    def __init__(self, config: Mapping[str, Any] | None = None):
        super().__init__()
        config = dict(config or {})
        if "env" not in config:
            raise ValueError("RLlibCardGameEnv needs env_config={'env': <env name>, 'options': {...}}")
        self.raw = load(str(config["env"])).raw_env(**dict(config.get("options") or {}))
        self.possible_agents = list(self.raw.possible_agents)
        self.agents = list(self.possible_agents)
        space = _masked_space(self.raw)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: self.raw.action_space(a) for a in self.possible_agents}
        self._seen: set[str] = set()
        self._leaving: dict[str, tuple[dict[str, np.ndarray], bool, bool]] = {}

    def _observation(self, agent: str) -> dict[str, np.ndarray]:
        observed = self.raw.observe(agent)
        return {
            "observations": observed["observation"],
            "action_mask": observed["action_mask"].astype(np.float32),
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Deal a new game; return the first mover's observation."""
        self.raw.reset(seed=seed)
        self.agents = list(self.raw.agents)
        mover = self.raw.agent_selection
        self._seen = {mover}
        self._leaving = {}
        return {mover: self._observation(mover)}, {}

    def step(  # type: ignore[override, unused-ignore]
        self, action_dict: Mapping[Any, Any]
    ) -> tuple[dict, dict, dict, dict, dict]:
        """Play the mover's action; return the next mover's observation and every reward paid.

        Raises:
            ValueError: when ``action_dict`` has no action for the agent to move.
            IllegalMoveError: for an illegal action (the env's state is unchanged).
        """
        raw = self.raw
        mover = raw.agent_selection
        if mover not in action_dict:
            raise ValueError(f"{mover} is to move; action_dict has {sorted(action_dict)}")
        raw.step(int(action_dict[mover]))
        # Every seat's reward of this step, zeros included: RLlib wants one for each agent it
        # sends an observation, and adds those of waiting seats to their next transition.
        rewards = {a: float(r) for a, r in raw.rewards.items()}
        # Dead steps: a seat eliminated now leaves with its final observation.
        while raw.agents and (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
            if all(raw.terminations[a] or raw.truncations[a] for a in raw.agents):
                break  # the game is over: handled below for every seat at once
            gone = raw.agent_selection
            self._leaving[gone] = (
                self._observation(gone), bool(raw.terminations[gone]), bool(raw.truncations[gone])
            )
            raw.step(None)
        observations: dict[str, Any] = {}
        terminateds: dict[str, bool] = {}
        truncateds: dict[str, bool] = {}
        over = not raw.agents or all(raw.terminations[a] or raw.truncations[a] for a in raw.agents)
        # RLlib ends an episode once every agent it has seen is done, so a seat eliminated
        # before any other live seat has moved (one out on the first turn) is reported
        # with the next step, when a live seat has been seen.
        if over or self._seen & set(raw.agents):
            for gone, (observation, terminated, truncated) in self._leaving.items():
                observations[gone] = observation
                terminateds[gone] = terminated
                truncateds[gone] = truncated
                rewards.setdefault(gone, 0.0)
            self._leaving = {}
        if over:
            truncated = any(raw.truncations.values())
            for agent in raw.agents:
                observations[agent] = self._observation(agent)
                terminateds[agent] = not truncated
                truncateds[agent] = truncated
            terminateds["__all__"] = not truncated
            truncateds["__all__"] = truncated
            self.agents = []
            return observations, rewards, terminateds, truncateds, {}
        nxt = raw.agent_selection
        observations[nxt] = self._observation(nxt)
        self._seen.add(nxt)
        self.agents = list(raw.agents) + list(self._leaving)
        terminateds["__all__"] = False
        truncateds["__all__"] = False
        return observations, rewards, terminateds, truncateds, {}


def _observation_key(spaces_or_batch: Mapping[str, Any]) -> str:
    """The key of the plain observation (:data:`OBSERVATION_KEYS`).

    Raises:
        ValueError: when there is none, or no ``action_mask``.
    """
    for key in OBSERVATION_KEYS:
        if key in spaces_or_batch and "action_mask" in spaces_or_batch:
            return key
    raise ValueError("the observation must be {'observation' (or 'observations'): ..., 'action_mask': ...}")


def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Return ``(mask, batch with the plain observations under OBS)``."""
    obs = batch[Columns.OBS]
    if not isinstance(obs, Mapping):
        raise ValueError("the observation must be {'observation': ..., 'action_mask': ...}")
    batch = dict(batch)
    batch[Columns.OBS] = obs[_observation_key(obs)]
    return obs["action_mask"], batch


class _NormalizedCategorical(torch.distributions.Categorical):
    """A torch categorical over logits, normalised with ``log_softmax`` and sampled by inverse
    transform (one uniform per row against the cumulative probabilities).

    The same distribution as ``torch.distributions.Categorical(logits=...)``, whose
    ``logsumexp`` and ``torch.multinomial`` took a third of an env runner's time over a table
    of thousands of actions on a CPU (``docs/distributed.md``).
    """

    def __init__(self, logits: torch.Tensor):
        self.logits = torch.log_softmax(logits, dim=-1)
        self._param = self.logits
        self._num_events = self.logits.size(-1)
        batch_shape = self.logits.size()[:-1]
        torch.distributions.Distribution.__init__(self, batch_shape, validate_args=False)

    def sample(self, sample_shape: Any = ()) -> torch.Tensor:
        """Draw one action per row (or ``sample_shape`` of them).

        An action of probability zero is never drawn: the uniform is kept below the total
        mass, so the first cumulative sum above it ends on an action with mass.
        """
        sample_shape = torch.Size(sample_shape)
        with torch.no_grad():
            cumulative = self.probs.cumsum(dim=-1)
            total = cumulative[..., -1:]
            shape = sample_shape + cumulative.shape[:-1] + (1,)
            uniform = torch.rand(shape, dtype=cumulative.dtype, device=cumulative.device) * total
            uniform = torch.minimum(uniform, torch.nextafter(total, torch.zeros_like(total)))
            cumulative = cumulative.expand(sample_shape + cumulative.shape).contiguous()
            return torch.searchsorted(cumulative, uniform, right=True).squeeze(-1)


class MaskedCategorical(TorchCategorical):
    """RLlib's categorical action distribution over masked logits, normalised and sampled
    without ``logsumexp`` and ``torch.multinomial`` (see :class:`_NormalizedCategorical`)."""

    def _get_torch_distribution(
        self, logits: torch.Tensor | None = None, probs: torch.Tensor | None = None
    ) -> torch.distributions.Distribution:
        if logits is None:
            return super()._get_torch_distribution(logits=logits, probs=probs)
        return _NormalizedCategorical(logits)


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module, with illegal actions masked out of the logits.

    The networks are built for the ``observations`` part of the Dict space; the
    ``action_mask`` part sets the logits of illegal actions to the float minimum in every
    forward pass (exploration, inference and training), so sampling and argmax never pick
    one and the PPO loss sees the same distribution the env runners sampled from. Actions
    are drawn from :class:`MaskedCategorical`.
    """

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any):
        if not isinstance(observation_space, gym.spaces.Dict):
            raise ValueError(
                "MaskedPPOModule needs a Dict observation space with 'observation' and 'action_mask'"
            )
        key = _observation_key(observation_space.spaces)
        self.masked_space = observation_space
        super().__init__(observation_space=observation_space[key], **kwargs)

    def setup(self) -> None:
        """Build the default networks for the plain observations, then expose the Dict space."""
        super().setup()
        self.observation_space = self.masked_space

    def get_inference_action_dist_cls(self) -> type[MaskedCategorical]:
        return MaskedCategorical

    def get_exploration_action_dist_cls(self) -> type[MaskedCategorical]:
        return MaskedCategorical

    def get_train_action_dist_cls(self) -> type[MaskedCategorical]:
        return MaskedCategorical

    @staticmethod
    def _mask(outs: dict[str, Any], mask: Any) -> dict[str, Any]:
        """Set the logits of illegal actions to the float minimum (a float 0/1 mask, or an
        int8/bool one as the vector env gives: cast, not compared, which is faster)."""
        logits = outs[Columns.ACTION_DIST_INPUTS]
        legal = mask > 0.5 if mask.is_floating_point() else mask.bool()
        outs[Columns.ACTION_DIST_INPUTS] = torch.where(legal, logits, torch.finfo(logits.dtype).min)
        return outs

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, plain = _split(batch)
        return self._mask(super()._forward_inference(plain, **kwargs), mask)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, plain = _split(batch)
        return self._mask(super()._forward_exploration(plain, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, plain = _split(batch)
        return self._mask(super()._forward_train(plain, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        """Values of the plain observations (the mask plays no part in the value head)."""
        if isinstance(batch[Columns.OBS], Mapping):
            _, batch = _split(batch)
            embeddings = None
        return super().compute_values(batch, embeddings)


class _FrozenModule(RLModule):
    """A module that picks actions from the observation and mask without learning."""

    def _choose(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        observations = np.asarray(obs[_observation_key(obs)], dtype=np.float32)
        masks = np.asarray(obs["action_mask"]) > 0.5
        return {Columns.ACTIONS: self._choose(observations, masks)}

    def _forward_train(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError(
            f"{type(self).__name__} is a frozen opponent: leave it out of policies_to_train"
        )


class RandomModule(_FrozenModule):
    """A frozen opponent playing uniformly among the legal actions."""

    def setup(self) -> None:
        config: dict[str, Any] = dict(self.model_config or {})  # type: ignore[arg-type, unused-ignore]
        self._rng = np.random.default_rng(config.get("seed"))

    def _choose(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        keys = np.where(masks, self._rng.random(masks.shape), -1.0)
        return keys.argmax(axis=1)


class HeuristicModule(_FrozenModule):
    """A frozen opponent playing the package's heuristic for the env in ``model_config``."""

    def setup(self) -> None:
        config: dict[str, Any] = dict(self.model_config or {})  # type: ignore[arg-type, unused-ignore]
        probe = load(config["env"]).raw_env(**dict(config.get("options") or {}))
        self._agent = make_agent("heuristic", probe, seed=config.get("seed"))

    def _choose(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        act = self._agent.act
        return np.array([act(o, m.astype(np.int8)) for o, m in zip(observations, masks)], dtype=np.int64)


_DISCRETE_ACTIONS: dict[str, Any] = {"normalize_actions": False, "clip_actions": False}
"""Discrete actions have nothing to unsquash or clip: RLlib's connector for it would copy the
batch's actions and walk them one game at a time on every step of the env runners."""


def _masked_ppo_spec(
    observation_space: gym.Space, action_space: gym.Space, hidden: tuple[int, ...]
) -> RLModuleSpec:
    """The learner's module: :class:`MaskedPPOModule` with ``hidden`` layers, separate policy
    and value networks."""
    return RLModuleSpec(
        module_class=MaskedPPOModule,
        observation_space=observation_space,
        action_space=action_space,
        model_config={"fcnet_hiddens": list(hidden), "vf_share_layers": False},
    )


def build_config(
    env_name: str,
    options: Mapping[str, Any] | None = None,
    setup: str = "selfplay",
    num_env_runners: int = 0,
    envs_per_runner: int = 8,
    hidden: tuple[int, ...] = (256, 256),
    train_batch: int = 4000,
    minibatch: int = 500,
    epochs: int = 4,
    lr: float = 3e-4,
    seed: int = 0,
    engine: str | None = None,
) -> PPOConfig:
    """Return a PPO config (new API stack) for ``env_name`` in the given policy setup.

    ``selfplay``: one module ``shared`` plays every seat (``engine="aec"``: the multi-agent
    adapter). ``random``/``heuristic``: by default (``engine="vector"``) each env runner is
    RLlib's single-agent runner on ``envs_per_runner`` batched games with those opponents
    inside (the module ``default_policy`` makes the learner's decisions, its seat drawn per
    game); with ``engine="aec"`` the multi-agent adapter, where module ``learner`` plays one
    seat per episode (drawn from the episode id, so every seat over time) and the frozen
    module ``opponent`` every other seat.

    Raises:
        ValueError: for an unknown env, bad options, setup or engine, or self-play asked of the
            vector engine.
    """
    if setup not in SETUPS:
        raise ValueError(f"setup must be one of {', '.join(SETUPS)}, got {setup!r}")
    engine = engine or ("aec" if setup == "selfplay" else "vector")
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "vector" and setup == "selfplay":
        raise ValueError("self-play (one module in every seat) runs on the multi-agent adapter: engine='aec'")
    options = dict(options or {})
    if engine == "vector":
        return _vector_config(env_name, options, setup, num_env_runners, envs_per_runner, hidden,
                              (train_batch, minibatch, epochs, lr), seed)
    probe = RLlibCardGameEnv({"env": env_name, "options": options})
    first = probe.possible_agents[0]
    space = _masked_space(probe.raw)
    action_space = probe.raw.action_space(first)
    learner = _masked_ppo_spec(space, action_space, hidden)
    seats = len(probe.possible_agents)
    if setup == "selfplay":
        specs = {"shared": learner}
        trained = ["shared"]

        def mapping(agent_id: Any, episode: Any, **kwargs: Any) -> str:
            return "shared"
    else:
        frozen = RandomModule if setup == "random" else HeuristicModule
        specs = {
            "learner": learner,
            "opponent": RLModuleSpec(
                module_class=frozen, observation_space=space, action_space=action_space,
                model_config={"env": env_name, "options": options, "seed": seed},
            ),
        }
        trained = ["learner"]

        def mapping(agent_id: Any, episode: Any, **kwargs: Any) -> str:
            seat = int(agent_id.rsplit("_", 1)[1])
            # The learner's seat is drawn from the episode id (a uuid hex): every seat over time.
            return "learner" if seat == zlib.crc32(str(episode.id_).encode()) % seats else "opponent"

    return (
        PPOConfig()
        # RLlib's env pre-check plays unmasked random actions, which a card game refuses.
        .environment(
            env=RLlibCardGameEnv, env_config={"env": env_name, "options": options}, disable_env_checking=True,
            **_DISCRETE_ACTIONS,
        )
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=envs_per_runner)
        .python_environment(extra_python_environs_for_worker={"OMP_NUM_THREADS": "1"})
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping, policies_to_train=trained)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            train_batch_size_per_learner=train_batch, minibatch_size=minibatch, num_epochs=epochs, lr=lr
        )
        .debugging(seed=seed)
    )


def _vector_config(
    env_name: str, options: dict[str, Any], opponents: str, num_env_runners: int, envs_per_runner: int,
    hidden: tuple[int, ...], training: tuple[int, int, int, float], seed: int,
) -> PPOConfig:
    """:func:`build_config` on the batched engines: single-agent env runners over
    ``gymnasium.make_vec("cardgames/<env>")`` (the id names the module to import first, so
    remote runners register the envs themselves)."""
    probe = load(env_name).raw_env(**options)  # bad names and options fail here, in the driver
    first = probe.possible_agents[0]
    module = _masked_ppo_spec(probe.observation_space(first), probe.action_space(first), hidden)
    train_batch, minibatch, epochs, lr = training
    env_config = {"opponents": opponents, "autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP.value,
                  "info_mask": False}  # the module reads the mask in the observation
    env_config.update(options)
    return (
        PPOConfig()
        .environment(
            env=f"cardgames_env:{NAMESPACE}/{probe.metadata['name']}", env_config=env_config,
            disable_env_checking=True, **_DISCRETE_ACTIONS,
        )
        .env_runners(
            num_env_runners=num_env_runners, num_envs_per_env_runner=envs_per_runner,
            gym_env_vectorize_mode=gym.VectorizeMode.VECTOR_ENTRY_POINT,
        )
        .python_environment(
            extra_python_environs_for_worker={"OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
        )
        .callbacks(on_environment_created=one_torch_thread)
        .rl_module(rl_module_spec=module)
        .training(
            train_batch_size_per_learner=train_batch, minibatch_size=minibatch, num_epochs=epochs, lr=lr
        )
        .debugging(seed=seed)
    )


def one_torch_thread(**kwargs: Any) -> None:
    """RLlib callback after an env runner builds its env: torch back on one thread.

    Starting Numba's OpenMP threads (a batched engine of 64 slots or more does) sets the
    process's OpenMP thread count to Numba's, and torch, on the same OpenMP runtime, follows:
    a sampling runner's forward passes on two threads of a busy 2-core machine ran 14 times
    slower than on one.
    """
    torch.set_num_threads(1)


def trained_module_id(config: PPOConfig) -> str:
    """The id of the module :func:`build_config`'s config trains (``shared``, ``learner`` or
    RLlib's ``default_policy`` on the vector engine)."""
    if not config.is_multi_agent:
        from ray.rllib.core import DEFAULT_MODULE_ID

        return str(DEFAULT_MODULE_ID)
    trained: Any = config.policies_to_train or ()
    return str(sorted(trained)[0])


def train(
    env_name: str,
    *,
    options: Mapping[str, Any] | None = None,
    setup: str = "selfplay",
    iterations: int = 10,
    num_env_runners: int = 0,
    envs_per_runner: int = 8,
    address: str | None = None,
    out: str | Path = "runs/rllib",
    seed: int = 0,
    log: Any = print,
    **config_kwargs: Any,
) -> dict[str, Any]:
    """Train with RLlib PPO for ``iterations`` iterations and save a checkpoint under ``out``.

    Args:
        address: a Ray cluster to join (``"auto"`` or ``"HOST:PORT"``); ``None`` starts Ray
            locally in this process.

    Returns:
        The summary written to ``out/summary.json`` (iterations, env steps, seconds, sampling
        throughput, the checkpoint folder).

    Raises:
        ValueError: for bad arguments (nothing is started then).
    """
    import ray

    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, got {iterations}")
    if num_env_runners < 0:
        raise ValueError(f"num_env_runners must be >= 0, got {num_env_runners}")
    out = Path(out)
    config = build_config(
        env_name, options, setup, num_env_runners=num_env_runners, envs_per_runner=envs_per_runner,
        seed=seed, **config_kwargs,
    )
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        algo = config.build_algo()
        start = time.perf_counter()
        sampled = 0
        result: dict[str, Any] = {}
        for i in range(iterations):
            result = algo.train()
            runners = result.get("env_runners", {})
            key = "num_env_steps_sampled_lifetime"
            sampled = int(result.get(key, runners.get(key, 0)))
            log(f"iteration {i + 1}/{iterations}: {sampled} env steps sampled, "
                f"episode return mean {runners.get('episode_return_mean', float('nan')):.3f}")
        seconds = time.perf_counter() - start
        checkpoint = out / "checkpoint"
        algo.save_to_path(str(checkpoint.resolve()))
        module = trained_module_id(config)
        sidecar = {
            "format": SIDECAR_FORMAT, **env_signature(load(env_name).raw_env(**dict(options or {}))),
            "backend": "rllib", "module": module, "setup": setup, "iterations": iterations,
            "env_steps_sampled": sampled,
        }
        (checkpoint / SIDECAR).write_text(json.dumps(sidecar, indent=2, default=str) + "\n", encoding="utf-8")
        algo.stop()
    finally:
        if started_here:
            ray.shutdown()
    summary = {
        "env": env_name, "options": dict(options or {}), "setup": setup, "iterations": iterations,
        "num_env_runners": num_env_runners, "envs_per_runner": envs_per_runner,
        "env_steps_sampled": sampled, "seconds": round(seconds, 2),
        "env_steps_per_s": round(sampled / max(seconds, 1e-9), 1), "checkpoint": str(checkpoint),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    log(f"saved {checkpoint} ({sampled} env steps in {seconds:.1f} s)")
    return summary


__all__ = [
    "HeuristicModule",
    "MaskedPPOModule",
    "RLlibCardGameEnv",
    "RandomModule",
    "SETUPS",
    "build_config",
    "train",
]
