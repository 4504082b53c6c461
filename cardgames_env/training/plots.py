"""PNG charts (matplotlib, Agg backend): the Elo table of a league and a run's learning curve."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .output import check_output_file

EVAL_CSV = "eval.csv"
"""Periodic evaluations of a training run (written by the training callback)."""
PROGRESS_CSV = "logs/progress.csv"
"""SB3's CSV log inside a run folder."""
IMITATION_CSV = "imitation.csv"
"""Per-epoch loss and held-out accuracy of the imitation fit, in the run folder."""
EXIT_CSV = "exit.csv"
"""Per-iteration policy and value losses of an expert-iteration run, in the run folder."""


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


EVAL_COLUMNS = ("timesteps", "opponent", "metric", "value", "low", "high")
"""Columns of ``eval.csv`` that a learning curve reads."""
EVAL_HEADER = ("timesteps", "opponent", "games", "metric", "value", "low", "high", "win_rate")
"""Every column of ``eval.csv``, in order."""


def start_csv(path: Path, header: Sequence[str]) -> None:
    """Write a CSV log at ``path`` holding its header alone."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerow(header)


def append_csv(path: Path, row: Sequence[Any]) -> None:
    """Append one row to the CSV log at ``path``."""
    with path.open("a", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerow(row)


def start_eval_log(path: Path) -> None:
    """Write an empty ``eval.csv`` (its header alone) at ``path``."""
    start_csv(path, EVAL_HEADER)


def append_eval_log(path: Path, timesteps: int, opponent: str, result: Any) -> None:
    """Append one evaluation (a :class:`~cardgames_env.training.evaluate.MatchResult`) after
    ``timesteps`` learner steps to the ``eval.csv`` at ``path``."""
    append_csv(path, [timesteps, opponent, result.games, result.metric, f"{result.value:.6f}",
                      f"{result.ci[0]:.6f}", f"{result.ci[1]:.6f}", f"{result.win_rate:.6f}"])


def read_eval_csv(path: str | Path) -> dict[str, dict[str, np.ndarray]]:
    """Read a run's ``eval.csv`` into ``{opponent: {column: array}}``.

    Raises:
        ValueError: naming the file (and line) when it is not a readable evaluation table:
            missing columns, a value that is not a number, no rows.
    """
    path = Path(path)
    rows: dict[str, dict[str, list[float]]] = {}
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in EVAL_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise ValueError(f"{path} is not an evaluation table: no column {missing[0]!r}")
            for row in reader:
                line = reader.line_num
                series = rows.setdefault(str(row["opponent"]), {})
                for key in ("timesteps", "value", "low", "high"):
                    try:
                        series.setdefault(key, []).append(float(row[key]))
                    except (TypeError, ValueError):
                        raise ValueError(
                            f"{path} line {line}: {key} is not a number: {row[key]!r}"
                        ) from None
                series.setdefault("metric", []).append(row["metric"])  # type: ignore[arg-type]
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file") from None
    except csv.Error as error:
        raise ValueError(f"{path} is not a readable CSV file: {error}") from None
    if not rows:
        raise ValueError(f"{path} holds no evaluations")
    return {
        opp: {k: (np.array(v) if k != "metric" else np.array(v, dtype=object)) for k, v in cols.items()}
        for opp, cols in rows.items()
    }


def _read_log_columns(path: Path, keys: tuple[str, ...], skip_incomplete: bool) -> list[np.ndarray] | None:
    """Return the columns ``keys`` of an optional CSV log as float arrays, or ``None`` when the
    file is absent or holds no complete row.

    Args:
        skip_incomplete: skip rows that lack one of the values (SB3's progress.csv logs some
            keys only on some rows); otherwise a missing value is an error.

    Raises:
        ValueError: naming the file and line of a value that is not a number (or missing),
            or a file that is not readable CSV text.
    """
    if not path.is_file():
        return None
    columns: list[list[float]] = [[] for _ in keys]
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            for row in reader:
                texts = [row.get(key) for key in keys]
                if skip_incomplete and not all(texts):
                    continue
                for key, text, values in zip(keys, texts, columns):
                    try:
                        values.append(float(text))  # type: ignore[arg-type]
                    except (TypeError, ValueError):
                        raise ValueError(f"{path} line {reader.line_num}: {key} is not a number") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise ValueError(f"{path} is not a readable CSV file: {error}") from None
    if not columns[0]:
        return None
    return [np.array(values) for values in columns]


def _read_progress(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """Return ``(timesteps, mean episode return)`` from SB3's progress.csv, if logged.

    Raises:
        ValueError: naming the file and line of a value that is not a number.
    """
    columns = _read_log_columns(path, ("time/total_timesteps", "rollout/ep_rew_mean"), skip_incomplete=True)
    return None if columns is None else (columns[0], columns[1])


def _read_imitation(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Return ``(epoch, loss, held-out accuracy)`` from a run's ``imitation.csv``, if any.

    Raises:
        ValueError: naming the file and line of a missing or non-numeric value.
    """
    columns = _read_log_columns(path, ("epoch", "loss", "heldout_accuracy"), skip_incomplete=False)
    return None if columns is None else (columns[0], columns[1], columns[2])


def _read_exit(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Return ``(timesteps, policy loss, value loss)`` from a run's ``exit.csv``, if any.

    Raises:
        ValueError: naming the file and line of a missing or non-numeric value.
    """
    columns = _read_log_columns(path, ("timesteps", "policy_loss", "value_loss"), skip_incomplete=False)
    return None if columns is None else (columns[0], columns[1], columns[2])


def plot_learning_curve(run_dir: str | Path, path: str | Path | None = None) -> Path:
    """Draw a run's learning curve: periodic evaluations with 95% bands, the rollout return,
    (after ``--imitation-games``) the imitation fit's loss and held-out accuracy per epoch, and
    (expert iteration) the policy and value losses per iteration.

    Args:
        run_dir: a ``cardgames train`` output folder (``eval.csv``, ``logs/progress.csv``,
            ``imitation.csv``, ``exit.csv``).
        path: the PNG to write (default ``run_dir/learning_curve.png``).

    Raises:
        ValueError: when the folder has no readable ``eval.csv`` (or a malformed progress.csv),
            or the PNG cannot be written there.
    """
    run = Path(run_dir)
    eval_path = run / EVAL_CSV
    if not eval_path.is_file():
        raise ValueError(f"{run} has no {EVAL_CSV}: not a training run folder")
    out = check_output_file(path if path is not None else run / "learning_curve.png")
    evals = read_eval_csv(eval_path)
    progress = _read_progress(run / PROGRESS_CSV)
    imitation = _read_imitation(run / IMITATION_CSV)
    losses = _read_exit(run / EXIT_CSV)
    plt = _pyplot()
    panels = 1 + (progress is not None) + (imitation is not None) + (losses is not None)
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
    if imitation is not None:
        epoch, loss, accuracy = imitation
        ax_fit = axes[0][1]
        ax_fit.plot(epoch, accuracy, color="#C44E52", marker="o", markersize=3, label="held-out accuracy")
        ax_fit.plot(epoch, loss, color="#8172B2", marker="o", markersize=3, label="training loss")
        ax_fit.set_xlabel("epoch")
        ax_fit.set_title("imitation of the teacher")
        ax_fit.legend(fontsize=8)
    if losses is not None:
        ax_loss = axes[0][1 + (imitation is not None)]
        ax_loss.plot(losses[0], losses[1], color="#8172B2", marker="o", markersize=3,
                     label="policy (cross-entropy)")
        ax_loss.plot(losses[0], losses[2], color="#DD8452", marker="o", markersize=3,
                     label="value (squared error)")
        ax_loss.set_xlabel("timesteps (decisions)")
        ax_loss.set_title("expert iteration losses")
        ax_loss.legend(fontsize=8)
    if progress is not None:
        ax2 = axes[0][panels - 1]
        ax2.plot(progress[0], progress[1], color="#55A868", marker="o", markersize=2)
        ax2.set_xlabel("timesteps")
        ax2.set_ylabel("mean episode return")
        ax2.set_title("training episodes")
    fig.suptitle(run.name, fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
