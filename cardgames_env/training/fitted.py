"""What a learner is to the run that trains it: :class:`Learner`, the entry point every
algorithm module provides, and :class:`Fitted`, what it hands back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from cardgames_env.agents.pool import OpponentPool

    from .config import TrainConfig
    from .target import TrainingTarget


@dataclass
class Fitted:
    """A trained policy and the figures of its training.

    Attributes:
        policy: the trained agent, as the final evaluations play it (greedy).
        model_path: the saved model (``model.zip`` or ``model.npz``).
        curve: the learning curve's picture.
        summary: the run's figures for ``summary.json`` (the final evaluations are added).
        timesteps: learner steps run.
        wall_s: seconds from the start of training to its end (imitation included).
        train_s: seconds of learning alone (the throughput's denominator).
        steps_per_s: learner steps per second of ``train_s``.
    """

    policy: Any
    model_path: Path
    curve: Path
    summary: dict[str, Any]
    timesteps: int
    wall_s: float
    train_s: float
    steps_per_s: float


class Learner(Protocol):
    """An algorithm's entry point (``train_ppo``, ``train_dmc``): trains for one seat of
    ``target`` as ``config`` says against ``pool``, on ``device``, writing the run folder
    ``run`` (all but ``summary.json``), and returns the trained policy and its figures."""

    def __call__(
        self,
        target: TrainingTarget,
        config: TrainConfig,
        pool: OpponentPool,
        run: Path,
        seed: int,
        device: Any = "cpu",
        log: Callable[[str], None] = print,
        progress: bool | None = False,
    ) -> Fitted: ...


__all__ = ["Fitted", "Learner"]
