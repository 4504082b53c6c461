"""Training one seat of any registered env: :func:`train`, what ``cardgames train`` runs.

It resolves the env (:class:`~cardgames_env.training.target.TrainingTarget`) and the settings
(:func:`~cardgames_env.training.config.resolve_config`: ``training/configs/default.json``, the
game's ``config.json``, ``--config FILE``, the command line) once, hands both to the learner
(:func:`~cardgames_env.training.ppo.train_ppo`, :func:`~cardgames_env.training.dmc.train_dmc` or
:func:`~cardgames_env.training.exit.train_exit`),
evaluates what it learned and writes the summary.
A run folder holds::

    config.json             the resolved settings
    logs/                   TensorBoard events and SB3's progress.csv
    eval.csv                periodic evaluations against random (the learning curve)
    checkpoints/            model_<steps>_steps.zip + sidecars
    snapshots/              self-play snapshots that joined the opponent pool
    imitation.csv           the imitation fit per epoch (with --imitation-games)
    model.zip, model.json   the final model and its sidecar (env, options, sizes); DMC:
                            model.npz + model.json, an exported policy
    learning_curve.png      eval.csv (the rollout return, the imitation fit) as a chart
    summary.json            timesteps, wall time, throughput, final evaluations
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardgames_env.core.spec import GameSpec

from .config import ENGINES, OPPONENT_MODES, VEC_ENVS, Overrides, TrainConfig, resolve_config
from .device import resolve_device
from .evaluate import MatchResult, final_evaluations, match_json
from .fitted import Learner
from .imitation import check_agent_kinds
from .output import check_output_folder
from .target import TrainingTarget
from .threads import plan_threads

__all__ = ["ENGINES", "LEGACY_SETTINGS", "OPPONENT_MODES", "VEC_ENVS", "TrainResult", "run_folder_name",
           "train"]


@dataclass
class TrainResult:
    """What a training run produced and measured."""

    out: Path
    model_path: Path
    timesteps: int
    wall_s: float
    train_s: float
    steps_per_s: float
    evaluations: list[MatchResult] = field(default_factory=list)


LEGACY_SETTINGS = (*Overrides.names(), "config_path")
"""The settings :func:`train` took as keywords before it took a :class:`TrainConfig` (still
accepted, with a ``DeprecationWarning``)."""


def train(
    env: str | GameSpec | TrainingTarget,
    config: TrainConfig | None = None,
    *,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
    out: str | Path | None = None,
    progress: bool | None = None,
    log: Callable[[str], None] = print,
    resume: bool = False,
    **settings: Any,
) -> TrainResult:
    """Train a MaskablePPO (or, with ``config.algo == "dmc"``, a Deep Monte-Carlo; with
    ``"exit"``, an expert-iteration) agent for one seat of ``env`` (expert iteration: every
    seat), evaluate it and write the run folder.

    Every setting comes from ``config`` (default: the game's,
    :func:`~cardgames_env.training.config.resolve_config`); the learner, the evaluations and the
    saved files read that one object. With ``config.imitation.games > 0`` the network first
    imitates a teacher agent (``config.imitation.teacher``); ``timesteps=0`` then keeps the
    clone. The run ends by saving the model (PPO: ``model.zip``; DMC: an exported policy,
    ``model.npz``) with its sidecar, drawing the learning curve, and evaluating against random
    and (when the game has one) the heuristic over ``config.eval.final_games`` games, compared
    by ``config.eval.metric``.

    The learner runs on ``config.device`` (``auto``, ``cpu``, ``cuda`` or ``cuda:K``); the CPU
    threads of the learner, the engines' kernels and the opponents' BLAS come from one plan
    (:func:`~cardgames_env.training.threads.plan_threads`, ``config.threads`` cores in all, by
    default every core), logged and recorded in ``summary.json``.

    Args:
        env: the env: a name in any accepted spelling, its spec, or a resolved
            :class:`~cardgames_env.training.target.TrainingTarget` (then ``options`` are its own).
        config: the run's settings.
        options: the variant options of an env given by name or spec.
        seed: seed of the envs and the network.
        out: the run folder (default ``runs/<env>[-dmc|-exit]-<opponents>-s<seed>``, with the
            canonical env name).
        progress: bars on stderr for the learner steps (their total is the number of steps that
            will run, ``timesteps`` rounded up to whole rollouts or batches, as the log says),
            the imitation games and the final evaluations' games: ``None`` when stderr is a
            terminal, ``True`` always, ``False`` never.
        log: where the run's lines go.
        resume: go on from the state an expert-iteration run saved in its folder (``out``, or
            the default folder): only with ``config.algo == "exit"``.
        **settings: deprecated: the settings as keywords (:data:`LEGACY_SETTINGS`), resolved
            over the game's settings as the command line's are.

    Raises:
        ValueError: for an unknown env or option, a non-positive count, a bad setting, or a
            device that is not there.
    """
    run = Path(out) if out is not None else None
    if run is not None:
        check_output_folder(run)
    target = env if isinstance(env, TrainingTarget) else TrainingTarget.resolve(env, options)
    config = _config(target, config, settings)
    if resume and config.algo != "exit":
        raise ValueError(f"resume is for algo exit (expert iteration), not {config.algo}")
    target.check_seat(config.learner_seat)
    if config.imitation.games > 0:
        check_agent_kinds(target.raw_env(), None, config.imitation.teacher, config.imitation.opponents)
    pool = target.opponent_pool(config.opponents, config.selfplay)
    on = resolve_device(config.device)
    config = config.for_device(on.type)  # a GPU learner plays its section's n_envs_cuda games
    plan = plan_threads(str(on), config.torch_threads, config.threads)
    if run is None:
        run = check_output_folder(Path("runs") / run_folder_name(target.env_name, config, seed))
    plan.apply()
    log(plan.describe())
    fitted = _learner(config, resume)(target, config, pool, run, seed, on, log, progress)
    results = final_evaluations(target.raw_env(), fitted.policy, config.eval, progress, log)
    summary = {**fitted.summary, "device": str(on), "threads": plan.as_dict(),
               "final_evaluations": [match_json(r) for r in results]}
    (run / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    sidecar = fitted.model_path.with_suffix(".json").name
    log(f"saved {fitted.model_path} (+ {sidecar}), learning curve {fitted.curve}")
    return TrainResult(run, fitted.model_path, fitted.timesteps, fitted.wall_s, fitted.train_s,
                       fitted.steps_per_s, results)


def run_folder_name(env_name: str, config: TrainConfig, seed: int) -> str:
    """The default run folder's name under ``runs/``: ``<env>[-dmc|-exit]-<opponents>-s<seed>``."""
    prefix = f"{env_name}-{config.algo}" if config.algo in ("dmc", "exit") else env_name
    return f"{prefix}-{config.opponents}-s{seed}"


def _config(target: TrainingTarget, config: TrainConfig | None, settings: Mapping[str, Any]) -> TrainConfig:
    """The run's settings: ``config``, or the game's with the deprecated keyword ``settings``.

    Raises:
        ValueError: for an unknown keyword, keywords beside a ``config``, or a bad setting.
    """
    unknown = sorted(set(settings) - set(LEGACY_SETTINGS))
    if unknown:
        raise TypeError(f"train() got an unexpected keyword argument {unknown[0]!r}")
    if config is not None:
        if settings:
            raise ValueError(f"train() takes the settings in config, not as keywords ({', '.join(settings)})")
        return config
    if settings:
        warnings.warn("train(env, timesteps=..., ...) is deprecated: pass train(env, config) with a "
                      "TrainConfig (resolve_config(game, path, Overrides(...)))", DeprecationWarning,
                      stacklevel=3)
    given = dict(settings)
    path = given.pop("config_path", None)
    return resolve_config(target.spec, path, Overrides(**given))


def _learner(config: TrainConfig, resume: bool = False) -> Learner:
    """The entry point of the run's algorithm (imported only now: it loads torch); with
    ``resume``, expert iteration's that goes on from the run folder's saved state."""
    if config.algo == "exit":
        from .exit import train_exit

        return functools.partial(train_exit, resume=resume)
    if config.algo == "dmc":
        from .dmc import train_dmc

        return train_dmc
    from .ppo import train_ppo

    return train_ppo
