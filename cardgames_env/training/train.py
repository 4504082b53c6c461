"""Training one seat of any registered env: :func:`train`, what ``cardgames train`` runs.

It resolves the env (:class:`~cardgames_env.training.target.TrainingTarget`) and the settings
(:func:`~cardgames_env.training.config.resolve_config`: ``training/configs/default.json``, the
game's ``config.json``, ``--config FILE``, the command line) once, hands both to the learner
(:func:`~cardgames_env.training.ppo.train_ppo` or :func:`~cardgames_env.training.dmc.train_dmc`),
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

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import ENGINES, OPPONENT_MODES, VEC_ENVS, Overrides, TrainConfig, resolve_config
from .device import resolve_device
from .evaluate import MatchResult, final_evaluations, match_json
from .fitted import Learner
from .imitation import check_agent_kinds
from .output import check_output_folder
from .target import TrainingTarget
from .threads import plan_threads

__all__ = ["ENGINES", "OPPONENT_MODES", "VEC_ENVS", "TrainResult", "train"]


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


def train(
    env_name: str,
    *,
    options: Mapping[str, Any] | None = None,
    timesteps: int | None = None,
    opponents: str | None = None,
    n_envs: int | None = None,
    seed: int = 0,
    out: str | Path | None = None,
    vec_env: str | None = None,
    eval_games: int | None = None,
    progress: bool | None = None,
    config_path: str | Path | None = None,
    engine: str | None = None,
    imitation_games: int | None = None,
    imitation_teacher: str | None = None,
    algo: str | None = None,
    device: str | None = None,
    threads: int | None = None,
    log: Callable[[str], None] = print,
) -> TrainResult:
    """Train a MaskablePPO (or, with ``algo="dmc"``, a Deep Monte-Carlo) agent for one seat of
    ``env_name``, evaluate it and write the run folder.

    Arguments left ``None`` come from the settings (:func:`~cardgames_env.training.config.resolve_config`:
    with ``engine="vector"`` the ``vector`` section applies, with ``algo="dmc"`` the ``dmc``
    section, on the batched engine). With ``imitation_games > 0`` the network first imitates a
    teacher agent (``imitation_teacher``, default the config's ``imitation.teacher``);
    ``timesteps=0`` then keeps the clone. The run ends by saving the model (PPO: ``model.zip``;
    DMC: an exported policy, ``model.npz``) with its sidecar, drawing the learning curve, and
    evaluating against random and (when the game has one) the heuristic over
    ``eval.final_games`` games.

    The learner runs on ``device`` (``auto``, ``cpu``, ``cuda`` or ``cuda:K``; default the
    config's ``device``, ``auto``); the CPU threads of the learner, the engines' kernels and
    the opponents' BLAS come from one plan (:func:`~cardgames_env.training.threads.plan_threads`,
    ``threads`` cores in all, by default every core), logged and recorded in ``summary.json``.

    ``progress`` draws bars on stderr for the learner steps (their total is the number of
    steps that will run, ``timesteps`` rounded up to whole rollouts or batches, as the log
    says), the imitation games and the final evaluations' games: ``None`` when stderr is a
    terminal, ``True`` always, ``False`` never.

    Raises:
        ValueError: for an unknown env or option, a non-positive count, a bad setting, or a
            device that is not there.
    """
    run = Path(out) if out is not None else None
    if run is not None:
        check_output_folder(run)
    target = TrainingTarget.resolve(env_name, options)
    config = resolve_config(target.game, config_path, Overrides(
        timesteps=timesteps, opponents=opponents, n_envs=n_envs, vec_env=vec_env, engine=engine, algo=algo,
        eval_games=eval_games, imitation_games=imitation_games, imitation_teacher=imitation_teacher,
        device=device, threads=threads,
    ))
    target.check_seat(config.learner_seat)
    if config.imitation.games > 0:
        check_agent_kinds(target.raw_env(), None, config.imitation.teacher, config.imitation.opponents)
    pool = target.opponent_pool(config.opponents, config.selfplay)
    on = resolve_device(config.device)
    config = config.for_device(on.type)  # a GPU learner plays its section's n_envs_cuda games
    plan = plan_threads(str(on), config.torch_threads, config.threads)
    if run is None:
        prefix = f"{env_name}-dmc" if config.algo == "dmc" else env_name
        run = check_output_folder(Path("runs") / f"{prefix}-{config.opponents}-s{seed}")
    plan.apply()
    log(plan.describe())
    fitted = _learner(config)(target, config, pool, run, seed, on, log, progress)
    results = final_evaluations(target.raw_env(), fitted.policy, config.eval, progress, log)
    summary = {**fitted.summary, "device": str(on), "threads": plan.as_dict(),
               "final_evaluations": [match_json(r) for r in results]}
    (run / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    sidecar = fitted.model_path.with_suffix(".json").name
    log(f"saved {fitted.model_path} (+ {sidecar}), learning curve {fitted.curve}")
    return TrainResult(run, fitted.model_path, fitted.timesteps, fitted.wall_s, fitted.train_s,
                       fitted.steps_per_s, results)


def _learner(config: TrainConfig) -> Learner:
    """The entry point of the run's algorithm (imported only now: it loads torch)."""
    if config.algo == "dmc":
        from .dmc import train_dmc

        return train_dmc
    from .ppo import train_ppo

    return train_ppo
