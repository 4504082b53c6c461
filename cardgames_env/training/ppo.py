"""MaskablePPO (sb3-contrib) for one seat of a game, on the AEC env or the batched engine:
:func:`train_ppo`, the PPO learner of :func:`~cardgames_env.training.train.train`.

The run folder gets ``config.json``, ``logs/`` (TensorBoard events and SB3's
``progress.csv``), ``eval.csv`` (evaluations against random during training),
``checkpoints/``, ``snapshots/`` (self-play), ``imitation.csv`` (with imitation games),
``model.zip`` + ``model.json`` and ``learning_curve.png``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cardgames_env.agents.model import MODEL_FILE, ModelAgent, write_sidecar
from cardgames_env.agents.pool import OpponentPool

from .config import TrainConfig, rounding_note, whole_units
from .fitted import Fitted
from .imitation import imitate
from .plots import plot_learning_curve
from .sb3_callbacks import StepsBar, cpu_policy, run_callbacks
from .target import TrainingTarget


def ppo_parameters() -> tuple[str, ...]:
    """Return the argument names of ``MaskablePPO``'s constructor (imports sb3-contrib, not a model)."""
    import inspect

    from sb3_contrib import MaskablePPO

    return tuple(inspect.signature(MaskablePPO.__init__).parameters)


def _make_env_fn(target: TrainingTarget, pool: OpponentPool, seat: int | None, seed: int,
                 subprocess: bool) -> Callable[[], Any]:
    """Return a factory of one monitored SingleAgentEnv (picklable for SubprocVecEnv)."""

    def make() -> Any:
        from stable_baselines3.common.monitor import Monitor

        if subprocess:  # one core per worker: opponents' model inference stays single-threaded
            import torch

            torch.set_num_threads(1)
        return Monitor(target.single_agent_env(pool, seat, seed))

    return make


def _vec_env(target: TrainingTarget, config: TrainConfig, pool: OpponentPool, seed: int) -> Any:
    """The learner's envs: the batched engine, or ``n_envs`` AEC envs under an SB3 vec env."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if config.batched:
        return target.vector_env(config.n_envs, pool, config.learner_seat, seed)
    subprocess = config.vec_env == "subproc"
    fns = [_make_env_fn(target, pool, config.learner_seat, seed * 1000 + i, subprocess)
           for i in range(config.n_envs)]
    return SubprocVecEnv(fns) if subprocess else DummyVecEnv(fns)


def train_ppo(
    target: TrainingTarget,
    config: TrainConfig,
    pool: OpponentPool,
    run: Path,
    seed: int,
    device: Any = "cpu",
    log: Callable[[str], None] = print,
    progress: bool | None = False,
) -> Fitted:
    """Train MaskablePPO for one seat of ``target`` as ``config`` says; write the run folder
    (all but ``summary.json``); return the fitted policy and the run's figures.

    The network learns on ``device`` (a torch device or its name); the envs, the opponents and
    the evaluations run on the CPU (the evaluations on a CPU copy of the policy).

    With ``config.imitation.games > 0`` the network first imitates the teacher
    (:func:`~cardgames_env.training.imitation.imitate`); ``timesteps`` 0 then keeps the clone.
    PPO collects whole rollouts of ``n_steps`` x ``n_envs`` steps, so ``timesteps`` is rounded
    up (the log says so). ``progress`` draws a bar of the learner steps.

    Raises:
        ValueError: for a PPO setting MaskablePPO refuses, or a run folder that cannot be made.
    """
    n, total = config.n_envs, config.timesteps
    venv = _vec_env(target, config, pool, seed)
    model = _model(venv, config, seed, device)
    _start_run_folder(run, venv, model, target, config, seed)
    callbacks = run_callbacks(target, run, config)
    rollout = int(model.n_steps) * n
    planned = whole_units(total, rollout)
    units = f"whole rollouts of {rollout} steps: n_steps {model.n_steps} x {n} envs"
    kind = "batched" if config.batched else config.vec_env
    log(f"training {target.env_name} for {planned} steps{rounding_note(total, planned, units)}: opponents "
        f"{config.opponents}, {n} {kind} envs, seed {seed}, output {run}")
    start = time.perf_counter()
    try:
        imitation_s = imitate(model.policy, target, config.imitation, run, seed, log, progress)
        if total > 0:
            model.learn(total_timesteps=total, callback=[*callbacks, StepsBar(planned, progress)])
        else:  # imitation only: the callbacks still record the clone's evaluation
            for callback in callbacks:
                callback.init_callback(model)
    finally:
        venv.close()
    wall = time.perf_counter() - start
    summary, train_s = _throughput(model, venv, callbacks, config, wall, imitation_s)
    why = rounding_note(total, model.num_timesteps, units) if total else ""
    log(f"trained {model.num_timesteps} learner steps{why} in {wall:.1f} s "
        f"({imitation_s:.1f} s of it imitation): "
        f"{summary['steps_per_s']:.0f} learner steps/s, "
        f"{summary['env_steps_per_s']:.0f} env steps/s (learner and opponents) inside MaskablePPO, "
        "updates included, evaluations and saves excluded")
    return _finish(model, target, config, run, seed, callbacks, progress, summary, (wall, train_s))


def _model(venv: Any, config: TrainConfig, seed: int, device: Any) -> Any:
    """The MaskablePPO model of ``config.ppo`` on ``venv`` (the envs are closed if it is refused).

    Raises:
        ValueError: for a PPO setting MaskablePPO refuses.
    """
    import copy

    from sb3_contrib import MaskablePPO

    try:
        return MaskablePPO(
            "MlpPolicy", venv, seed=seed, device=device, verbose=0,
            policy_kwargs={"net_arch": copy.deepcopy(config.ppo.net_arch)}, **config.ppo.model_arguments(),
        )
    except (ValueError, TypeError, AssertionError) as error:  # a setting MaskablePPO refuses
        venv.close()
        raise ValueError(f"bad ppo setting: {error}") from None


def _start_run_folder(run: Path, venv: Any, model: Any, target: TrainingTarget, config: TrainConfig,
                      seed: int) -> None:
    """Make the run folder (everything is checked by now), write ``config.json`` and point the
    model's logger at ``logs/``.

    Raises:
        ValueError: for a folder that cannot be made (the envs are closed then).
    """
    from stable_baselines3.common.logger import configure

    try:
        run.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        venv.close()
        raise ValueError(f"--out {run} cannot be created: {error.strerror or error}") from None
    record = {**config.as_dict(), "env": target.env_name, "options": dict(target.options), "seed": seed}
    (run / "config.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    model.set_logger(configure(str(run / "logs"), ["csv", "tensorboard"]))


def _throughput(model: Any, venv: Any, callbacks: list[Any], config: TrainConfig, wall: float,
                imitation_s: float) -> tuple[dict[str, Any], float]:
    """The run's timings and rates for its summary (the callbacks' own seconds and the
    imitation left out), and the learner's seconds."""
    side = sum(c.seconds for c in callbacks)
    train_s = max(wall - imitation_s - side, 1e-9)
    env_steps = venv.env_steps if config.batched else sum(venv.get_attr("env_steps"))
    rollout_s = min(callbacks[-1].rollout_s, train_s)
    return {
        "imitation_s": round(imitation_s, 2), "wall_s": round(wall, 2), "train_s": round(train_s, 2),
        "steps_per_s": round(model.num_timesteps / train_s, 1),
        "env_steps": int(env_steps), "env_steps_per_s": round(env_steps / train_s, 1),
        "rollout_s": round(rollout_s, 2), "update_s": round(train_s - rollout_s, 2),
    }, train_s


def _finish(model: Any, target: TrainingTarget, config: TrainConfig, run: Path, seed: int,
            callbacks: list[Any], progress: bool | None, figures: dict[str, Any],
            seconds: tuple[float, float]) -> Fitted:
    """Save the model and its sidecar, add the learning curve's last point, draw the curve and
    return the fitted policy with the run's summary (``seconds``: wall and learner time)."""
    model_path = run / MODEL_FILE
    model.save(str(model_path))
    source = config.imitation.source()
    extra = {"imitation": source} if source is not None else {}
    write_sidecar(model_path, target.probe, timesteps=model.num_timesteps, opponents=config.opponents,
                  seed=seed, **extra)
    callbacks[0].evaluate_now(model.num_timesteps, progress)  # the learning curve's last point
    curve = plot_learning_curve(run)
    wall, train_s = seconds
    summary = {
        "env": target.env_name, "options": dict(target.options), "opponents": config.opponents, "seed": seed,
        "timesteps": model.num_timesteps, "timesteps_asked": config.timesteps, "n_envs": config.n_envs,
        "engine": config.engine, "vec_env": None if config.batched else config.vec_env, **figures,
    }
    learner = ModelAgent(cpu_policy(model.policy), deterministic=True, name=run.name)
    steps_per_s = model.num_timesteps / train_s
    return Fitted(learner, model_path, curve, summary, model.num_timesteps, wall, train_s, steps_per_s)


__all__ = ["cpu_policy", "ppo_parameters", "train_ppo"]
