"""Deep Monte-Carlo (DMC) training on the batched engines: ``cardgames train ENV --algo dmc``.

DouZero's learning rule, on :class:`~cardgames_env.training.sb3_vec_env.SB3BatchedEnv`:

* **Q-network.** ``Q(s, ·) = tanh-MLP(observation) @ W + b``: one value per action of the
  env's action space. This is the shape of the shipped policies
  (:class:`~cardgames_env.agents.pretrained.NumpyPolicy`), so the greedy policy (the legal
  action with the largest Q) is saved as an exported policy (``model.npz`` + ``model.json``),
  plays as ``--agent RUN``, and ``cardgames export`` turns it into a shipped ``pretrained``
  file by adding its command (shipped in the package: under the 2 MiB limit, which a head
  over a very large action space exceeds). Each column of ``W`` is a learned embedding of one
  action (DouZero builds action features by hand instead).
* **Acting.** ε-greedy over the legal actions: the largest Q, or with probability ``epsilon``
  a uniformly random legal action.
* **Targets.** The Monte-Carlo return of each learner decision: the learner's rewards from that
  decision to the end of its game, discounted by ``gamma`` per later decision. No bootstrapping
  and no value baseline.
* **Updates.** One gradient step on ``mean (Q(s, a) - G)^2`` per ``batch_size`` finished
  decisions, each decision used once. Only the taken action's column of the head is computed
  (a gather), so an update costs the same with 50 actions as with 25,000.
* **A start from a teacher** (``--imitation-games N``, optional), from the teacher's recorded
  games (:mod:`~cardgames_env.training.imitation`), as ``imitation.dmc_start`` says:

  - ``"prior"`` (the default): a second network fits the teacher's moves with the
    cross-entropy (:class:`CloneLoss`) and stays frozen; the learner acts on
    ``Q(s, a) + w * prior(s, a)`` (:class:`ActingScores`), ``w`` being ``imitation.prior_weight``
    standard deviations of the teacher's returns, and the Q-network's head starts at zero, so
    the run starts from the clone's moves and the Monte-Carlo updates train Q alone;
  - ``"fit"``: the Q-network itself fits the teacher (:func:`fit_demonstrations`): the
    teacher's action's Q to the Monte-Carlo return it earned, and every other legal action's Q
    at least a margin below it (the large-margin loss of Deep Q-learning from Demonstrations,
    Hester et al. 2018); every update keeps a share of that loss (the anchor).

One learner seat per game, opponents from the same pool as PPO's (random, heuristic, self-play
snapshots, which are this run's own exported policies). The run folder mirrors PPO's:
``config.json``, ``eval.csv`` and ``learning_curve.png``, ``snapshots/``, ``checkpoints/``,
``model.npz`` + ``model.json``, ``summary.json`` (with ``rollout_s``/``update_s``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardgames_env.agents.batch import random_legal
from cardgames_env.agents.pool import OpponentPool
from cardgames_env.agents.pretrained import POLICY_FILE, NumpyPolicy
from cardgames_env.core.extras import missing_extra
from cardgames_env.core.masks import legal_rows
from cardgames_env.display.progress import Progress

from .config import EvalConfig, TrainConfig, rounding_note, whole_units
from .evaluate import evaluate
from .export import Layers, linear_layer, sum_of_networks, write_policy
from .fitted import Fitted
from .imitation import Demonstrations, collect_for_run, fit_minibatches, write_history
from .plots import EVAL_CSV, IMITATION_CSV, append_eval_log, plot_learning_curve, start_eval_log
from .target import TrainingTarget


def build_q_network(observation_size: int, num_actions: int, net_arch: list[int]) -> Any:
    """Return the torch Q-network: ``Linear + Tanh`` per width of ``net_arch``, then a
    ``Linear`` head with one output per action (an ``nn.Sequential``)."""
    from torch import nn

    layers: list[nn.Module] = []
    width = observation_size
    for hidden in net_arch:
        layers += [nn.Linear(width, hidden), nn.Tanh()]
        width = hidden
    layers.append(nn.Linear(width, num_actions))
    return nn.Sequential(*layers)


def q_taken(network: Any, observations: Any, actions: Any) -> Any:
    """Return ``Q(s, a)`` of each row's taken action, computing only those head columns.

    Equals ``network(observations).gather(1, actions[:, None])[:, 0]``; the head's product is
    one dot product per row instead of one per action.
    """
    trunk, head = network[:-1], network[-1]
    features = trunk(observations)
    return (features * head.weight[actions]).sum(dim=1) + head.bias[actions]


def network_layers(network: Any) -> Layers:
    """Return the network's ``(weights (in, out), bias)`` pairs as float32, head last: the
    layout :class:`NumpyPolicy` and :func:`~cardgames_env.training.export.write_policy` take."""
    from torch import nn

    return [linear_layer(module) for module in network if isinstance(module, nn.Linear)]


def greedy_policy(network: Any) -> NumpyPolicy:
    """Return the network's greedy policy (largest legal Q) as a :class:`NumpyPolicy`."""
    return ActingScores(network).policy()


class ActingScores:
    """What the DMC learner acts on: ``Q(s, ·)``, plus ``weight`` times a frozen prior's logits
    when the run starts from a teacher's prior (``imitation.dmc_start`` ``"prior"``).

    The greedy policy takes the legal action with the largest score. With a prior that is the
    greedy action of ``Q(s, a) + weight * log pi(a | s)`` (the softmax's normaliser is the same
    for every action of a state), so the prior decides where the learned values are close and
    the values decide where they differ by more than the prior's confidence. The policy saved
    is one MLP computing exactly these scores (:func:`~cardgames_env.training.export.sum_of_networks`).
    """

    def __init__(self, network: Any, prior: Any = None, weight: float = 0.0):
        self.network, self.prior, self.weight = network, prior, float(weight)
        self.device = next(network.parameters()).device
        self._prior_layers = network_layers(prior) if prior is not None else None  # frozen: read once

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        """Return the scores of a batch of observations (rows), without gradients."""
        import torch

        with torch.no_grad():
            batch = torch.as_tensor(observations, device=self.device)
            scores = self.network(batch)
            if self.prior is not None:
                scores = scores + self.weight * self.prior(batch)
            return np.asarray(scores.cpu().numpy())

    def layers(self) -> Layers:
        """The layers of one MLP that computes the scores (the Q-network's, without a prior)."""
        layers = network_layers(self.network)
        if self._prior_layers is None:
            return layers
        return sum_of_networks(layers, self._prior_layers, self.weight)

    def policy(self) -> NumpyPolicy:
        """The greedy policy on the scores, as a :class:`NumpyPolicy`."""
        return NumpyPolicy.from_layers(self.layers())


def epsilon_greedy(
    q_values: np.ndarray, masks: np.ndarray, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """Return each row's legal action with the largest Q, or with probability ``epsilon`` a
    uniformly random legal action (one draw per row decides which).

    Raises:
        ValueError: when a row of ``masks`` allows nothing.
    """
    legal = legal_rows(masks)
    explore = np.asarray(rng.random(legal.shape[0]) < epsilon, dtype=bool)
    actions: np.ndarray = np.where(legal, q_values, -np.inf).argmax(axis=1)
    if explore.any():
        actions[explore] = random_legal(legal[explore], rng)
    return actions


def returns_to_go(rewards: np.ndarray, gamma: float) -> np.ndarray:
    """Return ``G_t = r_t + gamma * G_{t+1}`` for every step of one episode (``G`` after the
    last step is 0)."""
    last = np.zeros(len(rewards), dtype=bool)
    last[-1:] = True
    return demonstration_returns(rewards, last, gamma)


def demonstration_returns(rewards: np.ndarray, last: np.ndarray, gamma: float) -> np.ndarray:
    """Return each decision's return-to-go ``G_t = r_t + gamma * G_{t+1}``, where ``G`` after a
    game's final decision (``last`` True) is 0: the decisions of several games in a row."""
    out = np.empty(len(rewards), dtype=np.float64)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = float(rewards[t]) + (0.0 if last[t] else gamma * running)
        out[t] = running
    return out


def demonstration_loss(
    q_values: Any, masks: Any, actions: Any, returns: Any, margin: float, scale: float
) -> Any:
    """The loss :func:`fit_demonstrations` minimises over a batch, in units of ``scale``:
    ``mean (Q(s, a_T) - G)^2 / scale^2`` plus ``mean (max_a [Q(s, a) + margin * scale * (a != a_T)]
    - Q(s, a_T)) / scale`` over the legal actions ``a``; ``a_T`` is the teacher's action and
    ``q_values`` the full head's output."""
    import torch

    taken = q_values.gather(1, actions[:, None])[:, 0]
    bonus = torch.full_like(q_values, margin * scale)
    bonus.scatter_(1, actions[:, None], 0.0)
    best = torch.where(masks, q_values + bonus, torch.full_like(q_values, -torch.inf)).max(dim=1).values
    return torch.mean((taken - returns) ** 2) / scale**2 + torch.mean(best - taken) / scale


class TeacherDecisions:
    """A teacher's recorded decisions as tensors on ``device``: observations, masks, the
    teacher's actions and their returns-to-go (:func:`demonstration_returns`), with ``scale``,
    the returns' standard deviation (1 when they are all equal). Subclasses add the loss a fit
    minimises (``__call__(network, rows)``).

    Raises:
        ValueError: for fewer than two decisions.
    """

    def __init__(self, demos: Demonstrations, gamma: float, device: Any = "cpu"):
        import torch

        if len(demos) < 2:
            raise ValueError(f"imitation needs at least 2 recorded decisions, got {len(demos)}")
        targets = demonstration_returns(demos.rewards, demos.last, gamma).astype(np.float32)
        spread = float(targets.std())
        self.scale = spread if spread > 1e-6 else 1.0
        self.observations = torch.as_tensor(demos.observations, device=device)
        self.masks = torch.as_tensor(demos.masks, device=device)
        self.actions = torch.as_tensor(demos.actions, device=device)
        self.targets = torch.as_tensor(targets, device=device)

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def __call__(self, network: Any, rows: np.ndarray) -> Any:
        """The loss over the decisions ``rows`` (a torch scalar with its graph)."""
        raise NotImplementedError

    def accuracy(self, network: Any, rows: np.ndarray) -> float:
        """Share of the decisions ``rows`` whose largest legal output is the teacher's action."""
        import torch

        hits = 0
        with torch.no_grad():
            for first in range(0, len(rows), 4096):
                index = np.asarray(rows[first:first + 4096])
                q_values = network(self.observations[index])
                legal = torch.where(self.masks[index], q_values, torch.full_like(q_values, -torch.inf))
                hits += int((legal.argmax(dim=1) == self.actions[index]).sum())
        return hits / max(len(rows), 1)


class DemonstrationLoss(TeacherDecisions):
    """The teacher's decisions with :func:`demonstration_loss`, ``margin`` in units of
    ``scale``: the fit of the Q-network itself (``imitation.dmc_start`` ``"fit"``).

    Raises:
        ValueError: for fewer than two decisions or a negative margin.
    """

    def __init__(self, demos: Demonstrations, gamma: float, margin: float, device: Any = "cpu"):
        if margin < 0:
            raise ValueError(f"imitation margin must be at least 0, got {margin}")
        super().__init__(demos, gamma, device)
        self.margin = margin

    def __call__(self, network: Any, rows: np.ndarray) -> Any:
        """The loss over the decisions ``rows`` (a torch scalar with its graph)."""
        index = np.asarray(rows)
        return demonstration_loss(network(self.observations[index]), self.masks[index], self.actions[index],
                                  self.targets[index], self.margin, self.scale)


class CloneLoss(TeacherDecisions):
    """The teacher's decisions with the cross-entropy of the teacher's action under the
    network's softmax over the legal actions: the fit of the prior (``imitation.dmc_start``
    ``"prior"``), the loss of PPO's clone without its critic."""

    def __call__(self, network: Any, rows: np.ndarray) -> Any:
        """The mean cross-entropy over the decisions ``rows`` (a torch scalar with its graph)."""
        import torch

        index = np.asarray(rows)
        logits = network(self.observations[index])
        legal = torch.where(self.masks[index], logits, torch.full_like(logits, -torch.inf))
        return torch.nn.functional.cross_entropy(legal, self.actions[index])


def fit_demonstrations(
    network: Any,
    loss_of: TeacherDecisions,
    *,
    epochs: int = 10,
    batch_size: int = 512,
    learning_rate: float = 1e-3,
    max_grad_norm: float = 40.0,
    validation: float = 0.05,
    seed: int = 0,
    log: Callable[[str], None] = print,
) -> list[dict[str, float]]:
    """Fit ``network`` to a teacher's decisions, in place: minimise ``loss_of`` (the decisions
    with their loss: :class:`DemonstrationLoss` for the Q-network, :class:`CloneLoss` for a prior).

    A random ``validation`` share of the rows is held out; each epoch reports the training loss
    and the held-out share of rows whose largest legal output is the teacher's action.

    Returns:
        One dict per epoch: ``epoch``, ``loss``, ``accuracy`` (held out), ``seconds``.

    Raises:
        ValueError: for a non-positive setting.
    """
    return fit_minibatches(
        network, len(loss_of), lambda rows: loss_of(network, rows),
        lambda rows: loss_of.accuracy(network, rows),
        epochs=epochs, batch_size=batch_size, learning_rate=learning_rate, max_grad_norm=max_grad_norm,
        validation=validation, seed=seed, log=log,
    )


class EpisodeStore:
    """Keeps each slot's decisions until its game ends, then hands them out with their returns.

    The decisions are kept as whole steps (one array per step for every slot), so recording a
    step and handing out the finished games cost a few array operations per step of the
    oldest unfinished game, whatever the number of slots.

    Args:
        num_slots: the batched games.
        gamma: discount per later learner decision.
    """

    def __init__(self, num_slots: int, gamma: float):
        self.gamma = gamma
        self._steps: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._first = 0  # the step number of self._steps[0]
        self._now = 0  # steps recorded
        self._start = np.zeros(num_slots, dtype=np.int64)  # the step each slot's game started

    def add(
        self, observations: np.ndarray, actions: np.ndarray, rewards: np.ndarray, dones: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Record one step of every slot (the observation acted on, the action, the reward that
        followed, whether the game ended); return the finished games' ``(observations, actions,
        returns)``, slot by slot in slot order, each game's decisions in order; ``None`` when no
        game ended."""
        self._steps.append((np.asarray(observations), np.asarray(actions, dtype=np.int64),
                            np.asarray(rewards, dtype=np.float64)))
        self._now += 1
        finished = np.flatnonzero(dones)
        if finished.size == 0:
            return None
        starts = self._start[finished]
        lengths = self._now - starts
        offsets = np.cumsum(lengths) - lengths
        total = int(lengths.sum())
        first_obs = self._steps[0][0]
        obs = np.empty((total, *first_obs.shape[1:]), dtype=first_obs.dtype)
        acts = np.empty(total, dtype=np.int64)
        rewards_by_step = np.zeros((finished.size, int(lengths.max())), dtype=np.float64)
        for step in range(int(starts.min()), self._now):  # steps of the oldest finished game
            playing = starts <= step
            rows = offsets[playing] + (step - starts[playing])
            step_obs, step_actions, step_rewards = self._steps[step - self._first]
            obs[rows] = step_obs[finished[playing]]
            acts[rows] = step_actions[finished[playing]]
            rewards_by_step[playing, step - starts[playing]] = step_rewards[finished[playing]]
        returns = np.empty(total, dtype=np.float64)
        following = np.zeros(finished.size, dtype=np.float64)
        for back in range(rewards_by_step.shape[1] - 1, -1, -1):  # G_t = r_t + gamma G_{t+1}
            playing = back < lengths
            following = np.where(playing, rewards_by_step[:, back] + self.gamma * following, 0.0)
            returns[offsets[playing] + back] = following[playing]
        self._start[finished] = self._now
        oldest = int(self._start.min())
        del self._steps[: oldest - self._first]
        self._first = oldest
        return obs, acts, returns


class SampleQueue:
    """First in, first out: finished decisions wait here until a full batch can be drawn."""

    def __init__(self) -> None:
        self._parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.size = 0

    def put(self, part: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        """Add finished decisions ``(observations, actions, returns)``."""
        self._parts.append(part)
        self.size += len(part[1])

    def take(self, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Remove and return the oldest ``count`` decisions (``count <= size``)."""
        if count > self.size:
            raise ValueError(f"only {self.size} decisions are waiting, {count} asked for")
        merged = tuple(np.concatenate(column) for column in zip(*self._parts))
        head = (merged[0][:count], merged[1][:count], merged[2][:count])
        rest = (merged[0][count:], merged[1][count:], merged[2][count:])
        self._parts = [rest] if len(rest[1]) else []
        self.size -= count
        return head


def dmc_update(network: Any, optimizer: Any, batch: tuple[np.ndarray, np.ndarray, np.ndarray],
               max_grad_norm: float, anchor: Callable[[], Any] | None = None) -> float:
    """One optimizer step on ``mean (Q(s, a) - G)^2`` over a batch ``(observations, actions,
    returns)``, plus ``anchor()`` when given (a torch scalar: the teacher's decisions' loss), the
    gradient norm clipped at ``max_grad_norm``; return the squared error."""
    import torch

    observations, actions, returns = batch
    device = next(network.parameters()).device
    prediction = q_taken(network, torch.as_tensor(observations, device=device),
                         torch.as_tensor(actions, device=device))
    loss = torch.mean((prediction - torch.as_tensor(returns, dtype=torch.float32, device=device)) ** 2)
    optimizer.zero_grad()
    (loss + anchor() if anchor is not None else loss).backward()
    torch.nn.utils.clip_grad_norm_(network.parameters(), max_grad_norm)
    optimizer.step()
    return float(loss.detach())


def train_dmc(
    target: TrainingTarget,
    config: TrainConfig,
    pool: OpponentPool,
    run: Path,
    seed: int,
    device: Any = "cpu",
    log: Callable[[str], None] = print,
    progress: bool | None = False,
) -> Fitted:
    """Train a DMC agent for one seat of ``target`` as ``config`` says; write the run folder
    (all but ``summary.json``); return the greedy policy and the run's figures.

    ``config.timesteps`` learner decisions in ``config.n_envs`` batched games, against
    ``pool``, with the ``dmc`` section's learning rule; the networks and the updates run on
    ``device`` (a torch device or its name), the engine and the opponents on the CPU. With
    ``imitation.games > 0`` the run first starts from the teacher's recorded games as
    ``imitation.dmc_start`` says (a frozen prior fitted with :class:`CloneLoss`, or the
    Q-network's own :func:`fit_demonstrations`; the epochs go to ``imitation.csv``), and
    ``timesteps`` 0 keeps that start as it is. Every step makes one decision in each of the
    ``n_envs`` games, so ``timesteps`` is rounded up to a multiple of ``n_envs`` (the log and
    ``summary.json``'s ``timesteps_asked`` say so). ``progress`` draws bars of the steps and
    the imitation games (``None``: when stderr is a terminal).

    Raises:
        ValueError: when torch (the ``train`` extra) is missing.
    """
    try:
        import torch
    except ImportError as error:  # pragma: no cover - depends on the install
        raise ValueError(f"{missing_extra('training', 'train')} ({error})") from None

    dmc = config.dmc
    total, n, mode = config.timesteps, config.n_envs, config.opponents
    torch.manual_seed(seed)
    venv = target.vector_env(n, pool, config.learner_seat, seed)
    network = build_q_network(target.observation_size, target.num_actions, list(dmc.net_arch)).to(device)
    optimizer = torch.optim.Adam(network.parameters(), lr=dmc.learning_rate)
    rng = np.random.default_rng(seed)
    run.mkdir(parents=True, exist_ok=True)
    record = {**config.as_dict(), "env": target.env_name, "options": dict(target.options), "seed": seed}
    (run / "config.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    tasks = _PeriodicTasks(run, target, config, seed, venv)
    planned = whole_units(total, n)
    why = rounding_note(total, planned, f"whole steps of the {n} batched games")
    log(f"training {target.env_name} with DMC for {planned} steps{why}: opponents {mode}, {n} batched envs, "
        f"seed {seed}, output {run}")
    start = time.perf_counter()
    start_from = _imitate(network, target, config, run, seed, log, progress)
    imitation_s, anchor = start_from.seconds, start_from.anchor
    scores = ActingScores(network, start_from.prior, start_from.prior_weight)
    if start_from.prior is not None:
        tasks.fields["prior_weight"] = start_from.prior_weight
    if config.imitation.source() is not None:  # the teacher's fit, before any Monte-Carlo update
        tasks.save(scores, "checkpoints/model_0_steps", 0)
    tasks.curve.write(scores.policy(), 0)
    with Progress(planned, "steps", "train (dmc)", progress) as bar:
        loop = _learn(venv, scores, optimizer, anchor, tasks, config, rng, bar)
    steps, rollout_s, update_s, losses = loop.steps, loop.rollout_s, loop.update_s, loop.losses
    wall = time.perf_counter() - start
    train_s = max(rollout_s + update_s, 1e-9)
    log(f"trained {steps} learner steps{why if total else ''} in {wall:.1f} s "
        f"({imitation_s:.1f} s of it imitation): "
        f"{steps / train_s:.0f} learner steps/s, "
        f"{venv.env_steps / train_s:.0f} env steps/s (learner and opponents), updates included "
        f"({len(losses)} updates, {update_s:.1f} s), evaluations and saves excluded")
    model_path, _ = tasks.save(scores, Path(POLICY_FILE).stem, steps)
    policy = scores.policy()
    tasks.curve.write(policy, steps)
    chart = plot_learning_curve(run)
    summary = {
        "env": target.env_name, "options": dict(target.options), "opponents": mode, "seed": seed,
        "algo": "dmc",
        "timesteps": steps, "timesteps_asked": total, "n_envs": n, "engine": "vector", "vec_env": None,
        "imitation_s": round(imitation_s, 2),
        "wall_s": round(wall, 2), "train_s": round(train_s, 2), "steps_per_s": round(steps / train_s, 1),
        "env_steps": int(venv.env_steps), "env_steps_per_s": round(venv.env_steps / train_s, 1),
        "rollout_s": round(rollout_s, 2), "update_s": round(update_s, 2), "updates": len(losses),
        "final_loss": round(float(np.mean(losses[-100:])), 6) if losses else None,
    }
    return Fitted(policy, model_path, chart, summary, steps, wall, train_s, steps / train_s)


@dataclass
class _Loop:
    """What the learning loop did: learner steps, seconds of rollouts and of updates, losses."""

    steps: int = 0
    rollout_s: float = 0.0
    update_s: float = 0.0
    losses: list[float] = field(default_factory=list)


def _learn(venv: Any, scores: ActingScores, optimizer: Any, anchor: Callable[[], Any] | None,
           tasks: _PeriodicTasks, config: TrainConfig, rng: np.random.Generator, bar: Progress) -> _Loop:
    """The Monte-Carlo loop: act epsilon-greedily in every game, store the finished episodes'
    returns, update on full batches and run the periodic tasks, until ``config.timesteps``
    learner decisions are made (evaluations and saves left out of the timings)."""
    dmc, n = config.dmc, config.n_envs
    store, queue = EpisodeStore(n, dmc.gamma), SampleQueue()
    loop = _Loop()
    network = scores.network
    tick = time.perf_counter()
    observations = venv.reset()
    while loop.steps < config.timesteps:
        actions = epsilon_greedy(scores(observations), venv.action_masks(), dmc.epsilon, rng)
        venv.step_async(actions)
        following, rewards, dones, _ = venv.step_wait()
        finished = store.add(observations, actions, rewards, dones)
        observations = np.asarray(following)
        loop.steps += n
        bar.advance(n)
        if finished is not None:
            queue.put(finished)
        tock = time.perf_counter()
        loop.rollout_s += tock - tick
        while queue.size >= dmc.batch_size:
            batch = queue.take(dmc.batch_size)
            loop.losses.append(dmc_update(network, optimizer, batch, dmc.max_grad_norm, anchor))
        tick = time.perf_counter()
        loop.update_s += tick - tock
        if tasks.run_due(scores, loop.steps):
            tick = time.perf_counter()  # evaluations and saves stay out of the throughput
    return loop


@dataclass
class TeacherStart:
    """How a DMC run starts from a teacher's games (:func:`_imitate`): the seconds it took, the
    anchor of the Monte-Carlo updates (``dmc_start`` ``"fit"``), or the frozen prior and its
    weight in the acting scores (``dmc_start`` ``"prior"``)."""

    seconds: float = 0.0
    anchor: Callable[[], Any] | None = None
    prior: Any = None
    prior_weight: float = 0.0


def _imitate(network: Any, target: TrainingTarget, config: TrainConfig, run: Path, seed: int,
             log: Callable[[str], None], progress: bool | None = False) -> TeacherStart:
    """Start ``network`` from the teacher's games when ``config.imitation.games > 0``;
    write ``imitation.csv``. Without imitation: nothing (``TeacherStart()``).

    * ``dmc_start`` ``"prior"`` (the default): a second network of the same shape fits the
      teacher's moves (:class:`CloneLoss`) and stays frozen as the prior, weighted by
      ``imitation.prior_weight`` standard deviations of the teacher's returns; the Q-network's
      head starts at zero, so the run starts from the prior's moves.
    * ``"fit"``: the Q-network itself fits the teacher's decisions (:class:`DemonstrationLoss`),
      and every update adds ``imitation.anchor`` times that loss over ``dmc.batch_size``
      decisions of the teacher drawn afresh (no anchor with weight 0).
    """
    import torch

    section, dmc = config.imitation, config.dmc
    start = time.perf_counter()
    demos = collect_for_run(target, section, seed, log, progress)
    if demos is None:
        return TeacherStart()
    prior_start = section.dmc_start == "prior"
    device = next(network.parameters()).device
    loss_of: TeacherDecisions = (CloneLoss(demos, dmc.gamma, device) if prior_start else
                                 DemonstrationLoss(demos, dmc.gamma, section.margin, device))
    linears = [module for module in network if isinstance(module, torch.nn.Linear)]
    fitted = (build_q_network(linears[0].in_features, linears[-1].out_features,
                              [layer.out_features for layer in linears[:-1]]).to(device)
              if prior_start else network)
    history = fit_demonstrations(
        fitted, loss_of,
        epochs=section.epochs, batch_size=section.batch_size,
        learning_rate=section.learning_rate, max_grad_norm=dmc.max_grad_norm,
        seed=seed, log=log,
    )
    write_history(run / IMITATION_CSV, history, len(demos))
    if prior_start:
        fitted.requires_grad_(False)
        with torch.no_grad():  # Q = 0 everywhere: the first moves are the prior's
            linears[-1].weight.zero_()
            linears[-1].bias.zero_()
        weight = section.prior_weight * loss_of.scale
        return TeacherStart(time.perf_counter() - start, prior=fitted, prior_weight=weight)
    anchor_weight = section.anchor
    if anchor_weight <= 0:
        return TeacherStart(time.perf_counter() - start)
    rows = dmc.batch_size
    rng = np.random.default_rng([seed, 0xD3])

    def anchor() -> Any:
        return anchor_weight * loss_of(network, rng.integers(len(loss_of), size=rows))

    return TeacherStart(time.perf_counter() - start, anchor=anchor)


class _PeriodicTasks:
    """The evaluations, checkpoints and (self-play) snapshots of a run, each every so many
    learner steps (settings ``eval``, ``checkpoint_every``, ``selfplay.snapshot_every``)."""

    def __init__(self, run: Path, target: TrainingTarget, config: TrainConfig, seed: int, venv: Any):
        self.run, self.probe, self.venv = run, target.probe, venv
        evals = config.eval
        self.curve = _EvalLog(run, target, evals)
        self.every = {
            "eval": evals.interval(config.timesteps),
            "checkpoint": config.checkpoint_every,
            "snapshot": config.selfplay.snapshot_every if config.opponents == "selfplay" else 0,
        }
        self.next = {key: every for key, every in self.every.items() if every > 0}
        self.fields: dict[str, Any] = {"algo": "dmc", "opponents": config.opponents, "seed": seed}
        source = config.imitation.source()
        if source is not None:  # the sidecar names the teacher, as PPO's does
            self.fields["imitation"] = source

    def due(self, steps: int) -> list[str]:
        """Return the tasks due at ``steps`` and schedule their next time."""
        due = []
        for key, when in self.next.items():
            if steps >= when:
                due.append(key)
                self.next[key] = (steps // self.every[key] + 1) * self.every[key]
        return due

    def run_due(self, scores: ActingScores, steps: int) -> bool:
        """Run the tasks due at ``steps``; return whether any ran."""
        due = self.due(steps)
        if "eval" in due:
            self.curve.write(scores.policy(), steps)
        if "checkpoint" in due:
            self.save(scores, f"checkpoints/model_{steps}_steps", steps)
        if "snapshot" in due:
            npz, _ = self.save(scores, f"snapshots/snapshot_{steps}", steps)
            self.venv.add_opponent(str(npz.resolve()))
        return bool(due)

    def save(self, scores: ActingScores, stem: str, steps: int) -> tuple[Path, Path]:
        """Save the greedy policy as ``run/stem.npz`` + ``.json``; return the two paths."""
        return write_policy(self.run / stem, scores.layers(), self.probe, timesteps=steps, **self.fields)


class _EvalLog:
    """Appends evaluations of the greedy policy against random to ``eval.csv``."""

    def __init__(self, run: Path, target: TrainingTarget, evals: EvalConfig):
        self.path = run / EVAL_CSV
        self.target, self.games, self.seed, self.metric = target, evals.games, evals.seed, evals.metric
        start_eval_log(self.path)
        self.done: set[int] = set()

    def write(self, policy: NumpyPolicy, timesteps: int) -> None:
        """Evaluate ``policy`` (once per ``timesteps``) and append the row."""
        if timesteps in self.done:
            return
        self.done.add(timesteps)
        result = evaluate(self.target.raw_env(), policy, "random", games=self.games, seed=self.seed,
                          metric=self.metric)
        append_eval_log(self.path, timesteps, "random", result)


__all__ = [
    "ActingScores", "CloneLoss", "DemonstrationLoss", "EpisodeStore", "SampleQueue", "TeacherDecisions",
    "TeacherStart", "build_q_network", "demonstration_loss",
    "demonstration_returns",
    "dmc_update", "epsilon_greedy", "fit_demonstrations", "greedy_policy",
    "network_layers", "q_taken", "returns_to_go", "train_dmc",
]
