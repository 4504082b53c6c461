"""Expert iteration (ExIt): ``cardgames train ENV --algo exit``.

The search teaches a network, and the network guides the next search (Anthony et al. 2017;
AlphaZero's loop with information-set MCTS as the expert):

* **Self-play by the search.** Every seat of every game moves by
  :class:`~cardgames_env.agents.search.SearchAgent` (``exit.search``, by default
  ``search:iterations=64:batch=8``: a fixed number of simulations per decision, so a run does
  not depend on the machine's speed, in batches of 8, so the visit counts follow the results of
  the earlier batches' playouts), its root priors (PUCT) the current network's policy. Every seat
  searches with the same network: each decision of each seat is a training example, and the
  policy learned plays any seat. The run's opponent pool does not take part (``opponents`` must
  be ``selfplay``).
* **Targets.** Each decision's target is the search's root visit counts as a distribution over
  the env's flat actions (:func:`step_targets`: a move's share goes to its first action; moves
  that share a first action add up; a move built over several actions gives its later actions
  the visits of the moves that agree with it so far). The value target is the seat's return at
  the end of the game divided by ``exit.value_scale``, clipped to ``[-1, 1]``.
* **Network.** A tanh MLP (``exit.net_arch``) with a policy head (one logit per action, masked
  to the legal ones) and a value head (``tanh``) (:class:`ExItNetwork`). Loss: the
  cross-entropy of the masked policy to the visit distribution plus ``exit.value_coef`` times
  the squared error of the value to the outcome; Adam.
* **Iterations.** Each iteration plays ``exit.games`` games, adds their decisions to a buffer of
  the latest ``exit.window`` iterations' decisions, makes ``exit.epochs`` passes over it in
  mini-batches of ``exit.batch_size``, evaluates the greedy policy against random (``eval.csv``),
  logs the losses (``exit.csv``) and saves the run's state (``checkpoints/exit_state.pt``). The
  run's ``timesteps`` counts recorded decisions (every seat's): iterations run until that many
  are recorded, so it is rounded up to whole iterations.
* **Resuming.** ``train(..., resume=True)`` (``cardgames train ENV --algo exit --resume``) goes
  on from the state saved after the last finished iteration in the run folder, with the same
  games, batches and weights as a run that was not stopped.
* **Export.** The policy (trunk and policy head; the value head is left out) is saved as an
  exported policy (``model.npz`` + ``model.json``, checkpoints as ``checkpoints/model_N_steps``),
  which ``--agent RUN`` plays greedily and ``cardgames export`` ships.

The network and its updates run on ``device``; the games, the search and the evaluations on
the CPU (the search reads the network as a numpy policy).
"""

from __future__ import annotations

import csv
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from cardgames_env.agents.pool import OpponentPool
from cardgames_env.agents.pretrained import POLICY_FILE, NumpyPolicy
from cardgames_env.agents.search import SearchAgent
from cardgames_env.core.extras import missing_extra
from cardgames_env.core.masks import move_actions
from cardgames_env.display.progress import Progress

from .config import TrainConfig
from .evaluate import evaluate
from .export import Layers, linear_layer, write_policy
from .fitted import Fitted
from .plots import (
    EVAL_CSV,
    EXIT_CSV,
    append_csv,
    append_eval_log,
    plot_learning_curve,
    start_csv,
    start_eval_log,
)
from .target import TrainingTarget

STATE_FILE = "checkpoints/exit_state.pt"
"""The run's resumable state, relative to the run folder (rewritten after every iteration)."""
EXIT_HEADER = ("timesteps", "iteration", "games", "decisions", "policy_loss", "value_loss", "seconds")
"""Columns of ``exit.csv``: one row per iteration (``timesteps``: decisions recorded so far)."""


# --- targets --------------------------------------------------------------------------------------


def step_targets(
    prefixes: Sequence[Sequence[int]], visits: Sequence[int], chosen: Sequence[int], num_actions: int
) -> list[np.ndarray]:
    """Return the search's move distribution as one target per action of the chosen move.

    Target ``k`` (the decision at the ``k``-th action of the chosen move ``chosen``) spreads the
    visits of the root moves whose actions agree with ``chosen`` before ``k`` over their
    ``k``-th action, normalised to sum to 1: at the first action every move counts, and moves
    that share a first action add up. Where no such move has a visit (a single searched move,
    or none visited), the target is the chosen action alone.

    Args:
        prefixes: each root move's actions (``move_actions``).
        visits: each root move's visit count, aligned with ``prefixes``.
        chosen: the actions of the move played.
        num_actions: the size of the env's flat action space.

    Raises:
        ValueError: when ``prefixes`` and ``visits`` differ in length or a count is negative.
    """
    if len(prefixes) != len(visits):
        raise ValueError(f"{len(prefixes)} moves but {len(visits)} visit counts")
    if any(v < 0 for v in visits):
        raise ValueError("visit counts must be non-negative")
    targets = []
    for k, action in enumerate(chosen):
        target = np.zeros(num_actions, dtype=np.float32)
        for prefix, count in zip(prefixes, visits):
            if len(prefix) > k and list(prefix[:k]) == list(chosen[:k]):
                target[prefix[k]] += count
        total = target.sum()
        if total > 0:
            target /= total
        else:
            target[action] = 1.0
        targets.append(target)
    return targets


def sharpen(target: np.ndarray, temperature: float) -> np.ndarray:
    """Return the distribution ``target ** (1 / temperature)``, normalised; ``temperature`` 0
    gives its largest entries equal shares and every other entry 0; 1 returns it unchanged."""
    if temperature == 1.0:
        return target
    if temperature == 0.0:
        top = (target == target.max()) & (target > 0)
        return np.asarray(top / top.sum(), dtype=np.float32)
    powered = np.power(target / target.max(), 1.0 / temperature)
    return np.asarray(powered / powered.sum(), dtype=np.float32)


def root_targets(agent: SearchAgent, state: Any, move: Any, num_actions: int,
                 temperature: float = 1.0) -> list[np.ndarray]:
    """The targets of the move ``move`` that ``agent`` just chose in ``state``, from its
    ``last_root`` (:func:`step_targets`, each :func:`sharpen`-ed by ``temperature``; an empty
    root gives the move's actions alone)."""
    return _chosen_targets(agent, state, move_actions(agent.env.encoding, state, move), num_actions,
                           temperature)


def _chosen_targets(agent: SearchAgent, state: Any, chosen: Sequence[int], num_actions: int,
                    temperature: float) -> list[np.ndarray]:
    """:func:`root_targets` of the move whose actions are ``chosen``."""
    encoding = agent.env.encoding
    root = agent.last_root
    prefixes = [move_actions(encoding, state, m) for m, _ in root]
    targets = step_targets(prefixes, [int(v) for _, v in root], chosen, num_actions)
    return [sharpen(target, temperature) for target in targets]


# --- self-play ------------------------------------------------------------------------------------


@dataclass
class Decisions:
    """Recorded decisions: observations, legal-action masks, visit targets, the seat, and the
    seat's value target (its scaled, clipped final return)."""

    observations: np.ndarray
    masks: np.ndarray
    targets: np.ndarray
    players: np.ndarray
    values: np.ndarray

    def __len__(self) -> int:
        return int(self.players.shape[0])

    @classmethod
    def join(cls, parts: Sequence[Decisions]) -> Decisions:
        """The decisions of ``parts`` one after another."""
        return cls(**{name: np.concatenate([getattr(p, name) for p in parts]) for name in _DECISION_FIELDS})

    def arrays(self) -> dict[str, np.ndarray]:
        """The decisions as named arrays (the state file's layout)."""
        return {name: getattr(self, name) for name in _DECISION_FIELDS}


_DECISION_FIELDS = tuple(f.name for f in fields(Decisions))
"""The arrays of :class:`Decisions`, in order."""


def self_play_game(
    env: Any, agents: Sequence[SearchAgent], seed: int, value_scale: float = 1.0, temperature: float = 1.0
) -> tuple[Decisions, tuple[float, ...]]:
    """Play one game of the raw ``env`` from ``reset(seed=seed)``, each seat moved by its
    search agent, and record every decision with the search's targets (:func:`root_targets`,
    sharpened by ``temperature``).

    Returns:
        The decisions (value targets: each seat's return over ``value_scale``, clipped to
        ``[-1, 1]``) and the seats' returns.
    """
    raw = env.unwrapped
    raw.reset(seed=seed)
    index = raw._agent_index
    encoding = raw.encoding
    num_actions = encoding.num_actions
    totals = [0.0] * len(raw.possible_agents)
    observations, masks, targets, players = [], [], [], []
    while raw.agents:
        name = raw.agent_selection
        if raw.terminations[name] or raw.truncations[name]:
            raw.step(None)
            continue
        seat = index[name]
        state = raw.game_state()
        move = agents[seat].choose_move(state)
        actions = move_actions(encoding, state, move)
        for action, target in zip(actions, _chosen_targets(agents[seat], state, actions, num_actions,
                                                           temperature)):
            mask = np.asarray(raw.action_mask(), dtype=bool)
            if not mask[action]:  # a legal move's actions are legal: never play another one
                raise RuntimeError(f"the search's move {move!r} is not legal in {raw.metadata['name']}")
            observations.append(np.asarray(encoding.observe(raw._decision, seat), dtype=np.float32))
            masks.append(mask)
            targets.append(target * mask)
            players.append(seat)
            raw.step(action)
            for other, reward in raw.rewards.items():
                if reward:
                    totals[index[other]] += reward
    seats = np.asarray(players, dtype=np.int64)
    returns = np.clip(np.asarray(totals, dtype=np.float32) / value_scale, -1.0, 1.0)
    decisions = Decisions(np.stack(observations), np.stack(masks), np.stack(targets), seats, returns[seats])
    return decisions, tuple(totals)


# --- the network ----------------------------------------------------------------------------------


def build_exit_network(observation_size: int, num_actions: int, net_arch: Sequence[int]) -> Any:
    """Return the torch :class:`ExItNetwork` (built here: torch is imported on demand)."""
    import torch
    from torch import nn

    class ExItNetwork(nn.Module):
        """A tanh MLP trunk with a policy head (one logit per action) and a value head (tanh)."""

        def __init__(self) -> None:
            super().__init__()
            layers: list[nn.Module] = []
            width = observation_size
            for hidden in net_arch:
                layers += [nn.Linear(width, hidden), nn.Tanh()]
                width = hidden
            self.trunk = nn.Sequential(*layers)
            self.policy = nn.Linear(width, num_actions)
            self.value = nn.Linear(width, 1)

        def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            """Return the logits and the values (``tanh``) of a batch of observations."""
            features = self.trunk(observations)
            return self.policy(features), torch.tanh(self.value(features))[:, 0]

    return ExItNetwork()


def policy_layers(network: Any) -> Layers:
    """The network's trunk and policy head as ``(weights (in, out), bias)`` pairs (float32):
    the layout of an exported policy (the value head is left out)."""
    from torch import nn

    trunk = [linear_layer(module) for module in network.trunk if isinstance(module, nn.Linear)]
    return [*trunk, linear_layer(network.policy)]


def exit_loss(logits: Any, values: Any, masks: Any, targets: Any, outcomes: Any,
              value_coef: float) -> tuple[Any, Any, Any]:
    """Return ``(loss, policy loss, value loss)``: the cross-entropy of the legal actions'
    softmax to the visit distribution ``targets`` (mean over rows), the mean squared error of
    ``values`` to ``outcomes``, and their sum with the value loss weighted by ``value_coef``."""
    import torch

    legal = torch.where(masks, logits, torch.full_like(logits, -1e9))
    log_probs = torch.log_softmax(legal, dim=1)
    policy_loss = -(targets * torch.where(masks, log_probs, torch.zeros_like(log_probs))).sum(dim=1).mean()
    value_loss = torch.mean((values - outcomes) ** 2)
    return policy_loss + value_coef * value_loss, policy_loss, value_loss


# --- the run --------------------------------------------------------------------------------------


@dataclass
class _State:
    """What a run carries from one iteration to the next (and a state file holds)."""

    iteration: int = 0
    decisions: int = 0
    games: int = 0
    play_s: float = 0.0
    update_s: float = 0.0
    buffer: list[Decisions] = field(default_factory=list)
    rng: dict[str, Any] = field(default_factory=dict)


def train_exit(
    target: TrainingTarget,
    config: TrainConfig,
    pool: OpponentPool,
    run: Path,
    seed: int,
    device: Any = "cpu",
    log: Callable[[str], None] = print,
    progress: bool | None = False,
    resume: bool = False,
) -> Fitted:
    """Train a policy by expert iteration for ``target`` as ``config`` says; write the run
    folder (all but ``summary.json``); return the greedy policy and the run's figures.

    Iterations of ``config.exit.games`` self-play games by the guided search run until
    ``config.timesteps`` decisions are recorded (the module docstring says what one does);
    ``pool`` is not used (every seat searches). With ``resume`` the run goes on from the state
    saved in ``run`` (:data:`STATE_FILE`).

    Raises:
        ValueError: when torch is missing, or (``resume``) ``run`` holds no state of a run of
            the same env, variant, network and seed.
    """
    try:
        import torch
    except ImportError as error:  # pragma: no cover - depends on the install
        raise ValueError(f"{missing_extra('training', 'train')} ({error})") from None

    section = config.exit
    torch.manual_seed(seed)
    network = build_exit_network(target.observation_size, target.num_actions, section.net_arch).to(device)
    optimizer = torch.optim.Adam(network.parameters(), lr=section.learning_rate)
    rng = np.random.default_rng([seed, 0xE817])
    identity = {"env": target.env_name, "options": dict(target.options),
                "observation_size": target.observation_size, "num_actions": target.num_actions,
                "net_arch": list(section.net_arch), "seed": seed}
    if resume:
        state = _load_state(run, identity, network, optimizer, rng)
        log(f"resuming {run} after iteration {state.iteration} ({state.decisions} decisions)")
    else:
        state = _start_run(run, target, config, seed)
    fields = {"algo": "exit", "opponents": "selfplay", "seed": seed, "search": section.search}
    log(f"training {target.env_name} by expert iteration until {config.timesteps} decisions are recorded "
        f"(whole iterations of {section.games} self-play games, every seat by {section.search}), "
        f"seed {seed}, output {run}")
    if state.iteration == 0:
        _evaluate(run, target, config, NumpyPolicy.from_layers(policy_layers(network)), 0)
    start = time.perf_counter()
    raw = target.raw_env()
    next_checkpoint = (state.decisions // config.checkpoint_every + 1) * config.checkpoint_every
    with Progress(config.timesteps, "decisions", "train (exit)", progress) as bar:
        bar.advance(min(state.decisions, config.timesteps))
        while state.decisions < config.timesteps:
            state.iteration += 1
            policy = NumpyPolicy.from_layers(policy_layers(network))
            tick = time.perf_counter()
            part = _play_iteration(raw, section, policy, seed, state.iteration, bar)
            tock = time.perf_counter()
            state.buffer = [*state.buffer, part][-section.window:]
            losses = _fit(network, optimizer, Decisions.join(state.buffer), section, rng, device)
            state.play_s += tock - tick
            state.update_s += time.perf_counter() - tock
            state.decisions += len(part)
            state.games += section.games
            policy = NumpyPolicy.from_layers(policy_layers(network))
            result = _evaluate(run, target, config, policy, state.decisions)
            append_csv(run / EXIT_CSV, [state.decisions, state.iteration, state.games, len(part),
                                        f"{losses[0]:.6f}", f"{losses[1]:.6f}",
                                        f"{time.perf_counter() - tick:.3f}"])
            if state.decisions >= next_checkpoint:
                write_policy(run / f"checkpoints/model_{state.decisions}_steps", policy_layers(network),
                             target.probe, timesteps=state.decisions, **fields)
                next_checkpoint = (state.decisions // config.checkpoint_every + 1) * config.checkpoint_every
            state.rng = dict(rng.bit_generator.state)
            _save_state(run, identity, network, optimizer, state)
            log(f"iteration {state.iteration}: {len(part)} decisions ({state.decisions} in all), "
                f"policy loss {losses[0]:.4f}, value loss {losses[1]:.4f}, {result.summary()}")
    wall = time.perf_counter() - start
    train_s = max(state.play_s + state.update_s, 1e-9)
    layers = policy_layers(network)
    model_path, _ = write_policy(run / Path(POLICY_FILE).stem, layers, target.probe,
                                 timesteps=state.decisions, **fields)
    policy = NumpyPolicy.from_layers(layers)
    chart = plot_learning_curve(run)
    log(f"trained {state.iteration} iterations, {state.games} games, {state.decisions} decisions: "
        f"{state.play_s:.1f} s of self-play and {state.update_s:.1f} s of updates in all, "
        f"{wall:.1f} s of wall time {'since resuming' if resume else 'in all'} (evaluations included)")
    summary = {
        "env": target.env_name, "options": dict(target.options), "opponents": "selfplay", "seed": seed,
        "algo": "exit", "search": section.search, "engine": "aec", "vec_env": None,
        "timesteps": state.decisions, "timesteps_asked": config.timesteps, "iterations": state.iteration,
        "games": state.games, "wall_s": round(wall, 2), "train_s": round(train_s, 2),
        "steps_per_s": round(state.decisions / train_s, 1), "play_s": round(state.play_s, 2),
        "update_s": round(state.update_s, 2), "resumed": resume,
    }
    return Fitted(policy, model_path, chart, summary, state.decisions, wall, train_s,
                  state.decisions / train_s)


def _start_run(run: Path, target: TrainingTarget, config: TrainConfig, seed: int) -> _State:
    """Create a new run's folder with its ``config.json`` and empty logs; its state at the start."""
    run.mkdir(parents=True, exist_ok=True)
    record = {**config.as_dict(), "env": target.env_name, "options": dict(target.options), "seed": seed}
    (run / "config.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    start_eval_log(run / EVAL_CSV)
    start_csv(run / EXIT_CSV, EXIT_HEADER)
    return _State()


def _play_iteration(raw: Any, section: Any, policy: NumpyPolicy, seed: int, iteration: int,
                    bar: Progress) -> Decisions:
    """One iteration's self-play games: game ``g``'s deal and its agents' seeds come from
    ``(seed, iteration, g)``, so an iteration plays the same games whenever it runs."""
    parts = []
    players = len(raw.possible_agents)
    for game in range(section.games):
        seeds = np.random.SeedSequence([seed, iteration, game]).generate_state(players + 1)
        agents = [SearchAgent(raw, section.search, seed=int(seeds[s]), prior_policy=policy)
                  for s in range(players)]
        decisions, _ = self_play_game(raw, agents, int(seeds[-1] % 2**31), section.value_scale,
                                      section.temperature)
        parts.append(decisions)
        bar.advance(len(decisions))
    return Decisions.join(parts)


def _fit(network: Any, optimizer: Any, data: Decisions, section: Any, rng: np.random.Generator,
         device: Any) -> tuple[float, float]:
    """``section.epochs`` shuffled passes over ``data`` in mini-batches; return the last pass's
    mean policy and value losses."""
    import torch

    tensors = [torch.as_tensor(a, device=device) for a in
               (data.observations, data.masks, data.targets, data.values)]
    network.train()
    policy_sum = value_sum = 0.0
    rows = 0
    for _ in range(section.epochs):
        policy_sum = value_sum = 0.0
        rows = 0
        order = rng.permutation(len(data))
        for first in range(0, len(order), section.batch_size):
            index = torch.as_tensor(order[first:first + section.batch_size], device=device)
            observations, masks, targets, outcomes = (t[index] for t in tensors)
            logits, values = network(observations)
            loss, policy_loss, value_loss = exit_loss(logits, values, masks, targets, outcomes,
                                                      section.value_coef)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(network.parameters(), section.max_grad_norm)
            optimizer.step()
            size = len(index)
            policy_sum += float(policy_loss.detach()) * size
            value_sum += float(value_loss.detach()) * size
            rows += size
    return policy_sum / max(rows, 1), value_sum / max(rows, 1)


def _evaluate(run: Path, target: TrainingTarget, config: TrainConfig, policy: NumpyPolicy,
              decisions: int) -> Any:
    """Evaluate the greedy ``policy`` against random (``eval.games`` games); append ``eval.csv``."""
    evals = config.eval
    result = evaluate(target.raw_env(), policy, "random", games=evals.games, seed=evals.seed,
                      metric=evals.metric)
    append_eval_log(run / EVAL_CSV, decisions, "random", result)
    return result


def _save_state(run: Path, identity: dict[str, Any], network: Any, optimizer: Any, state: _State) -> None:
    """Write the run's state to :data:`STATE_FILE` (a new file renamed over the old one)."""
    import torch

    path = run / STATE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "identity": identity, "network": network.state_dict(), "optimizer": optimizer.state_dict(),
        "iteration": state.iteration, "decisions": state.decisions, "games": state.games,
        "play_s": state.play_s, "update_s": state.update_s, "rng": state.rng,
        "buffer": [{key: torch.from_numpy(array) for key, array in part.arrays().items()}
                   for part in state.buffer],
    }
    temporary = path.with_suffix(".tmp")
    torch.save(payload, temporary)
    os.replace(temporary, path)


def _load_state(run: Path, identity: dict[str, Any], network: Any, optimizer: Any,
                rng: np.random.Generator) -> _State:
    """Load :data:`STATE_FILE` of ``run`` into the network, the optimizer and ``rng``; trim the
    logs to the rows of the iterations it holds.

    Raises:
        ValueError: when there is no state file, or it is of another env, variant or network.
    """
    import torch

    path = run / STATE_FILE
    if not path.is_file():
        raise ValueError(f"nothing to resume: {run} holds no {STATE_FILE} (a run of --algo exit saves it)")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # a damaged file: say which
        raise ValueError(f"cannot resume from {path}: {error}") from None
    keys = ("identity", "network", "optimizer", "iteration", "decisions", "games", "play_s", "update_s",
            "rng", "buffer")
    if not isinstance(payload, dict) or any(key not in payload for key in keys):
        raise ValueError(f"cannot resume from {path}: not the state of an expert-iteration run")
    saved = payload["identity"]
    for key, value in identity.items():
        if saved.get(key) != value:
            raise ValueError(f"cannot resume {run}: it was trained with {key} {saved.get(key)!r}, "
                             f"this run has {value!r}")
    network.load_state_dict(payload["network"])
    optimizer.load_state_dict(payload["optimizer"])
    rng.bit_generator.state = payload["rng"]
    decisions = int(payload["decisions"])
    for name in (EVAL_CSV, EXIT_CSV):  # rows written after the state was saved are played again
        _trim_csv(run / name, decisions)
    buffer = [Decisions(**{key: tensor.numpy() for key, tensor in part.items()})
              for part in payload["buffer"]]
    return _State(int(payload["iteration"]), decisions, int(payload["games"]), float(payload["play_s"]),
                  float(payload["update_s"]), buffer, payload["rng"])


def _trim_csv(path: Path, decisions: int) -> None:
    """Keep the header and the rows of ``path`` whose ``timesteps`` is at most ``decisions``."""
    if not path.is_file():
        return
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    kept = rows[:1] + [row for row in rows[1:] if row and int(float(row[0])) <= decisions]
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(kept)


__all__ = [
    "EXIT_HEADER", "STATE_FILE", "Decisions", "build_exit_network", "exit_loss", "policy_layers",
    "root_targets", "self_play_game", "step_targets", "train_exit",
]
