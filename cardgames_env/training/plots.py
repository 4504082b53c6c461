"""PNG charts (matplotlib, Agg backend): the Elo table of a league and a run's learning curve."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np

EVAL_CSV = "eval.csv"
"""Periodic evaluations of a training run (written by the training callback)."""
PROGRESS_CSV = "logs/progress.csv"
"""SB3's CSV log inside a run folder."""


def _pyplot() -> Any:
    """Return ``matplotlib.pyplot`` on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_elo(result: Any, path: str | Path) -> Path:
    """Draw a league's Elo ratings as a bar chart (best first) and save it as a PNG."""
    plt = _pyplot()
    order = np.argsort(-result.elo)
    names = [result.names[i] for i in order]
    ratings = result.elo[order]
    fig, ax = plt.subplots(figsize=(max(4.0, 1.1 * len(names) + 2), 3.6))
    bars = ax.bar(range(len(names)), ratings, color="#4C72B0")
    for bar, rating in zip(bars, ratings):
        ax.annotate(f"{rating:.0f}", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    low = float(min(ratings.min(), 1000.0)) - 100
    ax.set_ylim(low, float(ratings.max()) + 100)
    ax.set_ylabel("Elo (Bradley-Terry)")
    ax.set_title(f"{result.env}: round-robin league")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def read_eval_csv(path: str | Path) -> dict[str, dict[str, np.ndarray]]:
    """Read a run's ``eval.csv`` into ``{opponent: {column: array}}``."""
    rows: dict[str, dict[str, list[float]]] = {}
    with Path(path).open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            series = rows.setdefault(row["opponent"], {})
            for key in ("timesteps", "value", "low", "high"):
                series.setdefault(key, []).append(float(row[key]))
            series.setdefault("metric", []).append(row["metric"])  # type: ignore[arg-type]
    return {
        opp: {k: (np.array(v) if k != "metric" else np.array(v, dtype=object)) for k, v in cols.items()}
        for opp, cols in rows.items()
    }


def _read_progress(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """Return ``(timesteps, mean episode return)`` from SB3's progress.csv, if logged."""
    if not path.is_file():
        return None
    steps, rewards = [], []
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            t, r = row.get("time/total_timesteps", ""), row.get("rollout/ep_rew_mean", "")
            if t and r:
                steps.append(float(t))
                rewards.append(float(r))
    if not steps:
        return None
    return np.array(steps), np.array(rewards)


def plot_learning_curve(run_dir: str | Path, path: str | Path | None = None) -> Path:
    """Draw a run's learning curve: periodic evaluations with 95% bands, and the rollout return.

    Args:
        run_dir: a ``cardgames train`` output folder (``eval.csv``, ``logs/progress.csv``).
        path: the PNG to write (default ``run_dir/learning_curve.png``).

    Raises:
        ValueError: when the folder has no ``eval.csv``.
    """
    run = Path(run_dir)
    eval_path = run / EVAL_CSV
    if not eval_path.is_file():
        raise ValueError(f"{run} has no {EVAL_CSV}: not a training run folder")
    evals = read_eval_csv(eval_path)
    progress = _read_progress(run / PROGRESS_CSV)
    plt = _pyplot()
    panels = 2 if progress is not None else 1
    fig, axes = plt.subplots(1, panels, figsize=(5.2 * panels, 3.6), squeeze=False)
    ax = axes[0][0]
    metric = ""
    for opponent, series in evals.items():
        x = series["timesteps"]
        metric = str(series["metric"][-1]) if len(series["metric"]) else metric
        ax.plot(x, series["value"], marker="o", markersize=3, label=f"vs {opponent}")
        ax.fill_between(x, series["low"], series["high"], alpha=0.2)
    if metric == "win_rate":
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
        ax.set_ylabel("win rate (95% CI)")
    else:
        ax.axhline(0.0, color="grey", linewidth=0.8, linestyle="--")
        what = "return" if metric == "return_diff" else "points"
        ax.set_ylabel(f"{what} - others' mean (95% CI)")
    ax.set_xlabel("timesteps")
    ax.set_title("evaluation")
    ax.legend(fontsize=8)
    if progress is not None:
        ax2 = axes[0][1]
        ax2.plot(progress[0], progress[1], color="#55A868", marker="o", markersize=2)
        ax2.set_xlabel("timesteps")
        ax2.set_ylabel("mean episode return")
        ax2.set_title("training episodes")
    fig.suptitle(run.name, fontsize=10)
    fig.tight_layout()
    out = Path(path) if path is not None else run / "learning_curve.png"
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
