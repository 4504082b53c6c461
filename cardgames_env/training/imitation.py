"""Imitation before reinforcement: clone a teacher agent's moves into the policy network.

PPO from a random network learns slowly on games whose only reward comes at the end of a long
episode (a game played to a points target can take hundreds of decisions). The package's
search agent already beats the heuristics in every game, so :func:`train` can start from a
network that imitates it:

1. :func:`collect_demonstrations` plays ``games`` games with the teacher (default ``search``)
   in one seat, rotated game by game, against the opponents (default ``heuristic``), and
   records every decision of the teacher's seat: the observation and action mask that seat's
   learner would see, the action the teacher played, the seat's return at the end of the
   game, and the seat's rewards from that decision until its next one (for returns-to-go).
   Games run in worker processes; deal ``k`` has seed ``DEMO_SEED_OFFSET + 100_000 * seed +
   k``, away from the seeds ``cardgames eval`` uses.
2. :func:`clone_policy` fits the actor by cross-entropy on the teacher's actions (masked
   logits, exactly as the policy plays) and the critic by squared error on the returns.

PPO (``timesteps > 0``) then goes on from the cloned network; ``timesteps = 0`` keeps the
clone as it is. Deep Monte-Carlo fits its Q-network to the same demonstrations instead
(:func:`cardgames_env.training.dmc.fit_demonstrations`).
"""

from __future__ import annotations

import csv
import multiprocessing
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cardgames_env.core.aec import CardGameEnv
from cardgames_env.display.progress import Progress

from .config import ImitationConfig
from .evaluate import make_raw_env, play_game
from .plots import IMITATION_CSV

if TYPE_CHECKING:
    from .target import TrainingTarget

DEMO_SEED_OFFSET = 10_000_000
"""Deal seeds of demonstration games start here (evaluations use seeds from 0 and 1,000,000)."""

CHUNK_GAMES = 4
"""Games per worker task: small enough to spread the work evenly over the workers."""


@dataclass
class Demonstrations:
    """Decisions of the teacher's seat, one row each.

    Attributes:
        observations: float32 ``(n, observation_size)``, the seat's observation.
        masks: bool ``(n, actions)``, the legal actions.
        actions: int64 ``(n,)``, the action the teacher played (legal in its mask).
        returns: float32 ``(n,)``, the seat's episode return in that game.
        rewards: float32 ``(n,)``, the seat's rewards from this decision until its next one
            (until the game's end after its last): the rewards a learner in that seat is paid
            for this decision.
        last: bool ``(n,)``, whether this is the seat's last decision of its game.
        games: games played.
    """

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    rewards: np.ndarray
    last: np.ndarray
    games: int

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    @staticmethod
    def concatenate(parts: Sequence[Demonstrations]) -> Demonstrations:
        """Join demonstrations in order."""
        return Demonstrations(
            np.concatenate([p.observations for p in parts]),
            np.concatenate([p.masks for p in parts]),
            np.concatenate([p.actions for p in parts]),
            np.concatenate([p.returns for p in parts]),
            np.concatenate([p.rewards for p in parts]),
            np.concatenate([p.last for p in parts]),
            sum(p.games for p in parts),
        )


class _Recorder:
    """Wraps the teacher: plays its moves and keeps every (observation, mask, action, the seat's
    rewards so far); :meth:`watch` keeps ``rewards_so_far`` up to date after every move."""

    def __init__(self, teacher: Any):
        self.teacher = teacher
        self.needs_observation = True
        self.seat = 0
        self.rewards_so_far = 0.0
        self.rows: list[tuple[np.ndarray, np.ndarray, int, float]] = []

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action = int(self.teacher.act(observation, action_mask))
        self.rows.append((np.asarray(observation, dtype=np.float32).copy(), action_mask.astype(bool), action,
                          self.rewards_so_far))
        return action

    def start(self, seat: int) -> None:
        """Forget the last game's rows; record the next game from ``seat``."""
        self.seat, self.rewards_so_far, self.rows = seat, 0.0, []

    def watch(self, totals: Sequence[float]) -> None:
        """:func:`play_game`'s ``on_step``: every seat's rewards so far."""
        self.rewards_so_far = float(totals[self.seat])

    def reset(self, seed: int | None = None) -> None:
        self.teacher.reset(seed)


def check_agent_kinds(
    env: str | CardGameEnv, options: Mapping[str, Any] | None, teacher: str, opponents: str
) -> None:
    """Build the teacher and an opponent once, so a bad kind fails before any game is played.

    Args:
        env: an env name (with ``options``) or an env instance (``options`` empty).

    Raises:
        ValueError: naming the unknown agent kind (or the game without a heuristic).
    """
    from cardgames_env.agents.base import make_agent

    raw = make_raw_env(env, options)
    for role, kind in (("teacher", teacher), ("opponents", opponents)):
        try:
            make_agent(kind, raw, seed=0)
        except ValueError as error:
            raise ValueError(f"imitation {role}: {error}") from None


def _collect_chunk(
    env_name: str, options: Mapping[str, Any], teacher: str, opponents: str, seed: int, games: Sequence[int]
) -> Demonstrations:
    """Play the demonstration games numbered ``games`` (a worker's task)."""
    from cardgames_env.agents.base import make_agent

    raw = make_raw_env(env_name, options)
    n = len(raw.possible_agents)
    recorder = _Recorder(make_agent(teacher, raw, seed=seed))
    others = [make_agent(opponents, raw, seed=seed + 1 + s) for s in range(n)]
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    rewards: list[float] = []
    last: list[bool] = []
    for game in games:
        seat = game % n
        agents = [recorder if s == seat else others[s] for s in range(n)]
        recorder.start(seat)
        record = play_game(raw, agents, DEMO_SEED_OFFSET + 100_000 * seed + game, on_step=recorder.watch)
        # The rewards a decision earns: the seat's total at its next decision (the game's end
        # after the last) minus its total at this one.
        so_far = [row[3] for row in recorder.rows] + [record.returns[seat]]
        for index, (observation, mask, action, _) in enumerate(recorder.rows):
            observations.append(observation)
            masks.append(mask)
            actions.append(action)
            returns.append(record.returns[seat])
            rewards.append(so_far[index + 1] - so_far[index])
            last.append(index == len(recorder.rows) - 1)
    size = raw.encoding.observation_size
    width = raw.encoding.num_actions
    return Demonstrations(
        np.array(observations, dtype=np.float32).reshape(-1, size),
        np.array(masks, dtype=bool).reshape(-1, width),
        np.array(actions, dtype=np.int64),
        np.array(returns, dtype=np.float32),
        np.array(rewards, dtype=np.float32),
        np.array(last, dtype=bool),
        len(games),
    )


def collect_demonstrations(
    env_name: str,
    options: Mapping[str, Any] | None = None,
    *,
    teacher: str = "search",
    opponents: str = "heuristic",
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    log: Callable[[str], None] = print,
    progress: bool | None = False,
) -> Demonstrations:
    """Play ``games`` games of the teacher against the opponents and record its decisions.

    With ``workers > 1`` the games run in that many processes; the result does not depend on
    the worker count (every game has its own seed and the chunks are joined in order).
    ``progress`` draws a bar of the games played, chunk by chunk (``None``: when stderr is a
    terminal; see :class:`~cardgames_env.display.progress.Progress`).

    Raises:
        ValueError: for a non-positive count or an unknown env, option or agent kind.
    """
    if games <= 0:
        raise ValueError(f"imitation games must be positive, got {games}")
    if workers <= 0:
        raise ValueError(f"imitation workers must be positive, got {workers}")
    options = dict(options or {})
    check_agent_kinds(env_name, options, teacher, opponents)
    chunks = [list(range(start, min(start + CHUNK_GAMES, games))) for start in range(0, games, CHUNK_GAMES)]
    start = time.perf_counter()
    with Progress(games, "games", f"imitation: {teacher} plays", progress) as bar:
        if workers == 1:
            parts = []
            for chunk in chunks:
                parts.append(_collect_chunk(env_name, options, teacher, opponents, seed, chunk))
                bar.advance(len(chunk))
        else:
            # spawn, not fork: the parent may hold torch's thread pool.
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
                jobs = [pool.submit(_collect_chunk, env_name, options, teacher, opponents, seed, chunk)
                        for chunk in chunks]
                for job, chunk in zip(jobs, chunks):  # in order: a bar that may lag, never lead
                    job.result()
                    bar.advance(len(chunk))
                parts = [job.result() for job in jobs]
    demos = Demonstrations.concatenate(parts)
    log(f"imitation: {teacher} played {demos.games} games against {opponents} in "
        f"{time.perf_counter() - start:.1f} s, {len(demos)} decisions recorded")
    return demos


def collect_for_run(
    target: TrainingTarget,
    section: ImitationConfig,
    seed: int,
    log: Callable[[str], None] = print,
    progress: bool | None = False,
) -> Demonstrations | None:
    """Play a training run's demonstration games as its ``imitation`` settings say (games,
    teacher, opponents, workers), with a bar of the games as ``progress`` says; ``None`` when
    it plays none."""
    if section.games <= 0:
        return None
    return collect_demonstrations(
        target.env_name, target.options, teacher=section.teacher, opponents=section.opponents,
        games=section.games, seed=seed, workers=section.workers, log=log, progress=progress,
    )


def imitate(
    policy: Any,
    target: TrainingTarget,
    section: ImitationConfig,
    run: Path,
    seed: int,
    log: Callable[[str], None] = print,
    progress: bool | None = False,
) -> float:
    """Clone the teacher into a MaskablePPO ``policy`` when ``section.games > 0`` (the PPO
    learner's start); write ``run/imitation.csv`` (one row per epoch); return the seconds spent
    (0 without imitation)."""
    start = time.perf_counter()
    demos = collect_for_run(target, section, seed, log, progress)
    if demos is None:
        return 0.0
    history = clone_policy(policy, demos, epochs=section.epochs, batch_size=section.batch_size,
                           learning_rate=section.learning_rate, value_coef=section.value_coef, seed=seed,
                           log=log)
    write_history(run / IMITATION_CSV, history, len(demos))
    return time.perf_counter() - start


def clone_policy(
    policy: Any,
    demos: Demonstrations,
    *,
    epochs: int = 10,
    batch_size: int = 1024,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    validation: float = 0.05,
    seed: int = 0,
    log: Callable[[str], None] = print,
) -> list[dict[str, float]]:
    """Fit a ``MaskableActorCriticPolicy`` to the demonstrations, in place.

    The actor minimises the cross-entropy of the teacher's action under the masked policy,
    the critic ``value_coef`` times the squared error to the seat's return. A random
    ``validation`` share of the rows is held out; each epoch reports the training loss and the
    held-out share of rows where the policy's most likely action is the teacher's.

    Returns:
        One dict per epoch: ``epoch``, ``loss``, ``accuracy`` (held out), ``seconds``.

    Raises:
        ValueError: for empty demonstrations or a non-positive setting.
    """
    import torch

    device = policy.device  # the fit runs where the policy is

    def tensors(rows: np.ndarray) -> tuple[Any, Any, Any, Any]:
        return (torch.as_tensor(demos.observations[rows], device=device),
                torch.as_tensor(demos.masks[rows], device=device),
                torch.as_tensor(demos.actions[rows], device=device),
                torch.as_tensor(demos.returns[rows], device=device))

    def batch_loss(rows: np.ndarray) -> Any:
        obs, mask, action, ret = tensors(rows)
        values, log_prob, _ = policy.evaluate_actions(obs, action, action_masks=mask)
        return -log_prob.mean() + value_coef * torch.mean((values.flatten() - ret) ** 2)

    policy.set_training_mode(True)
    try:
        return fit_minibatches(
            policy, len(demos), batch_loss, lambda rows: _accuracy(policy, *tensors(rows)[:3]), epochs=epochs,
            batch_size=batch_size, learning_rate=learning_rate, max_grad_norm=1.0, validation=validation,
            seed=seed, log=log,
        )
    finally:
        policy.set_training_mode(False)


def fit_minibatches(
    module: Any,
    rows: int,
    batch_loss: Callable[[np.ndarray], Any],
    held_out_accuracy: Callable[[np.ndarray], float],
    *,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    max_grad_norm: float,
    validation: float,
    seed: int,
    log: Callable[[str], None],
) -> list[dict[str, float]]:
    """Fit ``module``'s parameters with Adam to ``batch_loss(row_indices)`` (a torch scalar)
    over ``rows`` recorded decisions: shuffled minibatches of ``batch_size`` for ``epochs``
    epochs, the gradient norm clipped at ``max_grad_norm``. A random ``validation`` share of
    the rows (:func:`split_rows`) is held out and scored by ``held_out_accuracy`` after each
    epoch. The imitation fit of PPO (:func:`clone_policy`) and of DMC
    (:func:`cardgames_env.training.dmc.fit_demonstrations`).

    Returns:
        One dict per epoch: ``epoch``, ``loss`` (the mean over training rows), ``accuracy``
        (held out; NaN with nothing held out), ``seconds``.

    Raises:
        ValueError: for fewer than two rows or a non-positive setting.
    """
    import torch

    if rows < 2:
        raise ValueError(f"imitation needs at least 2 recorded decisions, got {rows}")
    for value, what in ((epochs, "epochs"), (batch_size, "batch_size"), (learning_rate, "learning_rate")):
        if value <= 0:
            raise ValueError(f"imitation {what} must be positive, got {value}")
    rng = np.random.default_rng(seed)
    held_rows, train_rows = split_rows(rows, validation, rng)
    optimizer = torch.optim.Adam(module.parameters(), lr=learning_rate)
    history: list[dict[str, float]] = []
    for epoch in range(1, epochs + 1):
        start = time.perf_counter()
        rng.shuffle(train_rows)
        total, count = 0.0, 0
        for first in range(0, len(train_rows), batch_size):
            batch = train_rows[first:first + batch_size]
            loss = batch_loss(batch)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(module.parameters(), max_grad_norm)
            optimizer.step()
            total += loss.item() * len(batch)
            count += len(batch)
        accuracy = held_out_accuracy(held_rows) if len(held_rows) else float("nan")
        row = {"epoch": epoch, "loss": total / max(count, 1), "accuracy": accuracy,
               "seconds": time.perf_counter() - start}
        history.append(row)
        log(f"imitation epoch {epoch}/{epochs}: loss {row['loss']:.4f}, held-out accuracy {accuracy:.3f}")
    return history


def split_rows(count: int, validation: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Shuffle rows ``0..count-1`` and return ``(held_out, training)``: a ``validation`` share
    (at least one row when positive) held out, the rest for training."""
    order = rng.permutation(count)
    held = max(1, int(round(validation * count))) if validation > 0 else 0
    return order[:held], order[held:]


def write_history(path: Path, history: Sequence[Mapping[str, float]], decisions: int) -> None:
    """Write a fit's epochs (``epoch``, ``loss``, ``accuracy``, ``seconds``) as ``imitation.csv``
    rows, with the number of recorded decisions."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["epoch", "decisions", "loss", "heldout_accuracy", "seconds"])
        for row in history:
            writer.writerow([row["epoch"], decisions, f"{row['loss']:.6f}", f"{row['accuracy']:.6f}",
                             f"{row['seconds']:.2f}"])


def _accuracy(policy: Any, obs: Any, mask: Any, action: Any) -> float:
    """Share of rows whose most likely legal action under ``policy`` is ``action``."""
    import torch

    with torch.no_grad():
        hits = 0
        for first in range(0, len(action), 4096):
            dist = policy.get_distribution(obs[first:first + 4096], action_masks=mask[first:first + 4096])
            best = dist.distribution.probs.argmax(dim=1)
            hits += int((best == action[first:first + 4096]).sum())
    return hits / max(len(action), 1)


__all__ = [
    "DEMO_SEED_OFFSET", "Demonstrations", "clone_policy", "collect_demonstrations", "collect_for_run",
    "fit_minibatches", "imitate",
    "split_rows", "write_history",
]
