"""What a learner hands back to the run that trained it: :class:`Fitted`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


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


__all__ = ["Fitted"]
