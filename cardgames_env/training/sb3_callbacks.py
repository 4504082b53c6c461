"""The callbacks of a MaskablePPO run (:func:`~cardgames_env.training.ppo.train_ppo`): periodic
evaluations, checkpoints and self-play snapshots, the rollout clock and the steps bar.

Importing this module imports Stable-Baselines3 (and torch): the trainer imports it when a PPO
run starts.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from cardgames_env.agents.model import ModelAgent, write_sidecar
from cardgames_env.display.progress import Progress

from .config import TrainConfig
from .evaluate import evaluate
from .plots import EVAL_CSV, append_eval_log, start_eval_log
from .target import TrainingTarget


def cpu_policy(policy: Any) -> Any:
    """``policy`` when it is on the CPU, else a copy of it there (the evaluations play on the CPU)."""
    import copy

    if policy.device.type == "cpu":
        return policy
    return copy.deepcopy(policy).to("cpu")


class StepsBar(BaseCallback):
    """A bar of the learner steps out of ``total``, the number that will run (SB3's own bar
    counts up to the ``total_timesteps`` asked for and overshoots)."""

    def __init__(self, total: int, progress: bool | None) -> None:
        super().__init__()
        self.total, self.progress = total, progress
        self.bar: Progress | None = None

    def _on_training_start(self) -> None:
        self.bar = Progress(self.total, "steps", "train", self.progress)

    def _on_step(self) -> bool:
        assert self.bar is not None
        self.bar.advance(self.num_timesteps - self.bar.done)
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


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
        """The periodic task, at ``timesteps`` learner steps."""
        raise NotImplementedError


class EvalLog(Periodic):
    """Evaluates the current policy against random (``config.eval``: games, seed, metric) and
    appends to eval.csv and TensorBoard."""

    def __init__(self, target: TrainingTarget, run: Path, config: TrainConfig):
        super().__init__(config.eval.interval(config.timesteps))
        self.target, self.evals = target, config.eval
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
        """Evaluate the policy at ``timesteps`` (once per count) and log the result."""
        if timesteps in self.done_at:
            return
        self.done_at.add(timesteps)
        agent = ModelAgent(cpu_policy(self.model.policy), deterministic=True, name="learner")
        games = self.evals.games
        with Progress(games, "games", f"eval at {timesteps} steps", progress) as bar:
            result = evaluate(self.target.raw_env(), agent, "random", games=games, seed=self.evals.seed,
                              on_game=bar.advance, metric=self.evals.metric)
        append_eval_log(self.path, timesteps, "random", result)
        self.logger.record("eval/vs_random", result.value)
        self.logger.record("eval/win_rate_vs_random", result.win_rate)


class ModelSaver(Periodic):
    """A periodic save of the model with its sidecar under ``run/<subfolder>/``."""

    subfolder = ""

    def __init__(self, every: int, target: TrainingTarget, run: Path, opponents: str):
        super().__init__(every)
        self.target, self.run, self.opponents = target, run, opponents

    def save_copy(self, name: str, timesteps: int) -> Path:
        """Save the model under ``run/subfolder/name`` with its sidecar; return the path."""
        folder = self.run / self.subfolder
        folder.mkdir(exist_ok=True)
        path = folder / name
        self.model.save(str(path))
        write_sidecar(path, self.target.probe, timesteps=timesteps, opponents=self.opponents)
        return path


class Checkpoint(ModelSaver):
    """Saves the model and its sidecar under checkpoints/."""

    subfolder = "checkpoints"

    def fire(self, timesteps: int) -> None:
        self.save_copy(f"model_{timesteps}_steps.zip", timesteps)


class Snapshot(ModelSaver):
    """Saves a snapshot of the learner under snapshots/ and adds it to every env's opponent pool."""

    subfolder = "snapshots"

    def fire(self, timesteps: int) -> None:
        path = self.save_copy(f"snapshot_{timesteps}.zip", timesteps)
        self.training_env.env_method("add_opponent", str(path.resolve()))
        self.logger.record("selfplay/snapshots", len(list(path.parent.glob("*.zip"))))


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


def run_callbacks(target: TrainingTarget, run: Path, config: TrainConfig) -> list[Any]:
    """The run's callbacks: the evaluations first, then the checkpoints, the (self-play)
    snapshots and the rollout clock last."""
    callbacks: list[Any] = [EvalLog(target, run, config),
                            Checkpoint(config.checkpoint_every, target, run, config.opponents)]
    if config.opponents == "selfplay":
        callbacks.append(Snapshot(config.selfplay.snapshot_every, target, run, config.opponents))
    callbacks.append(RolloutClock())
    return callbacks


__all__ = ["Checkpoint", "EvalLog", "ModelSaver", "Periodic", "RolloutClock", "Snapshot", "StepsBar",
           "cpu_policy", "run_callbacks"]
