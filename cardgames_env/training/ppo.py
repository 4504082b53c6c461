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
from cardgames_env.core.progress import Progress

from .config import TrainConfig, rounding_note, whole_units
from .evaluate import evaluate
from .fitted import Fitted
from .imitation import imitate
from .plots import EVAL_CSV, append_eval_log, plot_learning_curve, start_eval_log
from .target import TrainingTarget


def ppo_parameters() -> tuple[str, ...]:
    """Return the argument names of ``MaskablePPO``'s constructor (imports sb3-contrib, not a model)."""
    import inspect

    from sb3_contrib import MaskablePPO

    return tuple(inspect.signature(MaskablePPO.__init__).parameters)


def cpu_policy(policy: Any) -> Any:
    """``policy`` when it is on the CPU, else a copy of it there (the evaluations play on the CPU)."""
    import copy

    if policy.device.type == "cpu":
        return policy
    return copy.deepcopy(policy).to("cpu")


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
    import copy

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    n, total, mode = config.n_envs, config.timesteps, config.opponents
    venv = _vec_env(target, config, pool, seed)
    try:
        model = MaskablePPO(
            "MlpPolicy", venv, seed=seed, device=device, verbose=0,
            policy_kwargs={"net_arch": copy.deepcopy(config.ppo.net_arch)}, **config.ppo.model_arguments(),
        )
    except (ValueError, TypeError, AssertionError) as error:  # a setting MaskablePPO refuses
        venv.close()
        raise ValueError(f"bad ppo setting: {error}") from None
    # Everything is checked: only now does the run folder get written.
    try:
        run.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        venv.close()
        raise ValueError(f"--out {run} cannot be created: {error.strerror or error}") from None
    record = {**config.as_dict(), "env": target.env_name, "options": dict(target.options), "seed": seed}
    (run / "config.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    model.set_logger(configure(str(run / "logs"), ["csv", "tensorboard"]))

    callbacks = _callbacks(target, run, config)
    kind = "batched" if config.batched else config.vec_env
    rollout = int(model.n_steps) * n
    planned = whole_units(total, rollout)
    units = f"whole rollouts of {rollout} steps: n_steps {model.n_steps} x {n} envs"
    why = rounding_note(total, planned, units)
    log(f"training {target.env_name} for {planned} steps{why}: opponents {mode}, {n} {kind} envs, "
        f"seed {seed}, output {run}")
    start = time.perf_counter()
    try:
        imitation_s = imitate(model.policy, target, config.imitation, run, seed, log, progress)
        if total > 0:
            steps_bar = _steps_bar(planned, progress)
            model.learn(total_timesteps=total, callback=[*callbacks, steps_bar])
        else:  # imitation only: the callbacks still record the clone's evaluation
            for callback in callbacks:
                callback.init_callback(model)
    finally:
        venv.close()
    wall = time.perf_counter() - start
    side = sum(c.seconds for c in callbacks)
    train_s = max(wall - imitation_s - side, 1e-9)
    steps_per_s = model.num_timesteps / train_s
    env_steps = venv.env_steps if config.batched else sum(venv.get_attr("env_steps"))
    env_steps_per_s = env_steps / train_s
    rollout_s = min(callbacks[-1].rollout_s, train_s)
    update_s = train_s - rollout_s
    why = rounding_note(total, model.num_timesteps, units) if total else ""
    log(f"trained {model.num_timesteps} learner steps{why} in {wall:.1f} s "
        f"({imitation_s:.1f} s of it imitation): "
        f"{steps_per_s:.0f} learner steps/s, "
        f"{env_steps_per_s:.0f} env steps/s (learner and opponents) inside MaskablePPO, updates included, "
        "evaluations and saves excluded")

    model_path = run / MODEL_FILE
    model.save(str(model_path))
    source = config.imitation.source()
    extra = {"imitation": source} if source is not None else {}
    write_sidecar(model_path, target.probe, timesteps=model.num_timesteps, opponents=mode, seed=seed, **extra)
    callbacks[0].evaluate_now(model.num_timesteps, progress)  # the learning curve's last point
    curve = plot_learning_curve(run)
    summary = {
        "env": target.env_name, "options": dict(target.options), "opponents": mode, "seed": seed,
        "timesteps": model.num_timesteps, "timesteps_asked": total, "n_envs": n, "engine": config.engine,
        "vec_env": None if config.batched else config.vec_env,
        "imitation_s": round(imitation_s, 2), "wall_s": round(wall, 2), "train_s": round(train_s, 2),
        "steps_per_s": round(steps_per_s, 1),
        "env_steps": int(env_steps), "env_steps_per_s": round(env_steps_per_s, 1),
        "rollout_s": round(rollout_s, 2), "update_s": round(update_s, 2),
    }
    learner = ModelAgent(cpu_policy(model.policy), deterministic=True, name=run.name)
    return Fitted(learner, model_path, curve, summary, model.num_timesteps, wall, train_s, steps_per_s)


def _steps_bar(total: int, progress: bool | None) -> Any:
    """Return an SB3 callback drawing a bar of the learner steps out of ``total``, the number
    that will run (SB3's own bar counts up to the ``total_timesteps`` asked for and overshoots)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class StepsBar(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.bar: Progress | None = None

        def _on_training_start(self) -> None:
            self.bar = Progress(total, "steps", "train", progress)

        def _on_step(self) -> bool:
            assert self.bar is not None
            self.bar.advance(self.num_timesteps - self.bar.done)
            return True

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self.bar.close()

    return StepsBar()


def _callbacks(target: TrainingTarget, run: Path, config: TrainConfig) -> list[Any]:
    """Build the evaluation, checkpoint and (self-play) snapshot callbacks."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Periodic(BaseCallback):
        """Runs ``fire(timesteps)`` at the first rollout start after every ``every`` steps.

        Keeps the seconds it spent, so the throughput figure can leave them out.
        """

        def __init__(self, every: int):
            super().__init__()
            self.every = max(int(every), 1)
            self.next = self.every
            self.seconds = 0.0

        def _on_step(self) -> bool:
            return True

        def _on_rollout_start(self) -> None:
            # Between PPO updates: evaluations and snapshots see the freshly updated policy.
            if self.num_timesteps >= self.next:
                while self.next <= self.num_timesteps:
                    self.next += self.every
                start = time.perf_counter()
                self.fire(self.num_timesteps)
                self.seconds += time.perf_counter() - start

        def fire(self, timesteps: int) -> None:
            raise NotImplementedError

    class EvalLog(Periodic):
        """Evaluates the current policy against random and appends to eval.csv and TensorBoard."""

        def __init__(self, every: int, games: int, seed: int):
            super().__init__(every)
            self.games, self.seed = games, seed
            self.path = run / EVAL_CSV
            start_eval_log(self.path)
            self.done_at: set[int] = set()

        def _on_training_start(self) -> None:
            start = time.perf_counter()
            self.evaluate_now(0)
            self.seconds += time.perf_counter() - start

        def fire(self, timesteps: int) -> None:
            self.evaluate_now(timesteps)

        def evaluate_now(self, timesteps: int, progress: bool | None = False) -> None:
            if timesteps in self.done_at:
                return
            self.done_at.add(timesteps)
            agent = ModelAgent(cpu_policy(self.model.policy), deterministic=True, name="learner")
            with Progress(self.games, "games", f"eval at {timesteps} steps", progress) as bar:
                result = evaluate(target.raw_env(), agent, "random", games=self.games, seed=self.seed,
                                  on_game=bar.advance)
            append_eval_log(self.path, timesteps, "random", result)
            self.logger.record("eval/vs_random", result.value)
            self.logger.record("eval/win_rate_vs_random", result.win_rate)

    def save_copy(model: Any, subfolder: str, name: str, timesteps: int) -> Path:
        """Save the model under ``run/subfolder/name`` with its sidecar; return the path."""
        folder = run / subfolder
        folder.mkdir(exist_ok=True)
        path = folder / name
        model.save(str(path))
        write_sidecar(path, target.probe, timesteps=timesteps, opponents=config.opponents)
        return path

    class Checkpoint(Periodic):
        """Saves the model and its sidecar under checkpoints/."""

        def fire(self, timesteps: int) -> None:
            save_copy(self.model, "checkpoints", f"model_{timesteps}_steps.zip", timesteps)

    class Snapshot(Periodic):
        """Saves a snapshot of the learner and adds it to every env's opponent pool."""

        def fire(self, timesteps: int) -> None:
            path = save_copy(self.model, "snapshots", f"snapshot_{timesteps}.zip", timesteps)
            folder = path.parent
            self.training_env.env_method("add_opponent", str(path.resolve()))
            self.logger.record("selfplay/snapshots", len(list(folder.glob("*.zip"))))

    class RolloutClock(BaseCallback):
        """Times the rollouts (engine, opponents and the learner's forward passes) apart from
        PPO's updates: ``rollout_s``. Listed last, it starts after the other callbacks'
        rollout-start work, which they time themselves."""

        def __init__(self) -> None:
            super().__init__()
            self.seconds = 0.0  # nothing of its own to leave out of the throughput
            self.rollout_s = 0.0
            self._started = 0.0

        def _on_step(self) -> bool:
            return True

        def _on_rollout_start(self) -> None:
            self._started = time.perf_counter()

        def _on_rollout_end(self) -> None:
            self.rollout_s += time.perf_counter() - self._started

    evals = config.eval
    callbacks: list[Any] = [EvalLog(evals.interval(config.timesteps), evals.games, evals.seed)]
    callbacks.append(Checkpoint(config.checkpoint_every))
    if config.opponents == "selfplay":
        callbacks.append(Snapshot(config.selfplay.snapshot_every))
    callbacks.append(RolloutClock())
    return callbacks


__all__ = ["cpu_policy", "ppo_parameters", "train_ppo"]
