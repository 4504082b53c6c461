"""MaskablePPO training of one seat of any registered env, with self-play snapshots.

:func:`train` is what ``cardgames train`` runs. Per-game defaults live in
each game's ``config.json`` (merged over ``training/configs/default.json``); command-line
values win.
A run folder holds::

    config.json             the resolved settings
    logs/                   TensorBoard events and SB3's progress.csv
    eval.csv                periodic evaluations against random (the learning curve)
    checkpoints/            model_<steps>_steps.zip + sidecars
    snapshots/              self-play snapshots that joined the opponent pool
    imitation.csv           the imitation fit per epoch (with --imitation-games)
    model.zip, model.json   the final model and its sidecar (env, options, sizes)
    learning_curve.png      eval.csv (the rollout return, the imitation fit) as a chart
    summary.json            timesteps, wall time, throughput, final evaluations
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardgames_env.agents.base import has_heuristic
from cardgames_env.agents.model import MODEL_FILE, ModelAgent, write_sidecar
from cardgames_env.agents.pool import OpponentPool
from cardgames_env.core.progress import Progress
from cardgames_env.registry import load

from .config import (
    ENGINES,
    OPPONENT_MODES,
    VEC_ENVS,
    load_config,
    rounding_note,
    validate_config,
    whole_units,
)
from .evaluate import MatchResult, evaluate, final_evaluations, match_json
from .imitation import check_agent_kinds, clone_policy, collect_for_run, imitation_source, write_history
from .output import check_output_folder
from .plots import EVAL_CSV, IMITATION_CSV, append_eval_log, plot_learning_curve, start_eval_log
from .threads import limit_threads

__all__ = ["ENGINES", "OPPONENT_MODES", "VEC_ENVS", "TrainResult", "opponent_pool", "ppo_parameters", "train"]


def opponent_pool(game: str, mode: str, selfplay: Mapping[str, Any]) -> OpponentPool:
    """Return the opponent pool of an ``--opponents`` mode.

    ``random``/``heuristic``: that agent in every other seat. ``selfplay``: random and (when the
    game has one) heuristic stay in the pool; snapshots of the learner join during training.

    Raises:
        ValueError: for an unknown mode or ``heuristic`` in a game without a heuristic.
    """
    if mode not in OPPONENT_MODES:
        raise ValueError(f"unknown opponents {mode!r}; expected one of {', '.join(OPPONENT_MODES)}")
    if mode == "heuristic" and not has_heuristic(game):
        raise ValueError(f"no heuristic agent for game {game!r}: use --opponents random or selfplay")
    if mode != "selfplay":
        return OpponentPool(base=(mode,))
    base = ("random", "heuristic") if has_heuristic(game) else ("random",)
    return OpponentPool(
        base=base,
        sampling=str(selfplay.get("sampling", "snapshots")),
        snapshot_prob=float(selfplay.get("snapshot_prob", 0.5)),
        window=int(selfplay.get("window", 5)),
    )


@dataclass
class TrainResult:
    """What a training run produced and measured."""

    out: Path
    model_path: Path
    timesteps: int
    wall_s: float
    train_s: float
    steps_per_s: float
    evaluations: list[MatchResult] = field(default_factory=list)


def ppo_parameters() -> tuple[str, ...]:
    """Return the argument names of ``MaskablePPO``'s constructor (imports sb3-contrib, not a model)."""
    import inspect

    from sb3_contrib import MaskablePPO

    return tuple(inspect.signature(MaskablePPO.__init__).parameters)


def _make_env_fn(
    env_name: str,
    options: Mapping[str, Any],
    pool: OpponentPool,
    seat: int | None,
    seed: int,
    subprocess: bool,
) -> Callable[[], Any]:
    """Return a factory of one monitored SingleAgentEnv (picklable for SubprocVecEnv)."""

    def make() -> Any:
        from stable_baselines3.common.monitor import Monitor

        from cardgames_env.wrappers.single_agent import SingleAgentEnv

        if subprocess:  # one core per worker: opponents' model inference stays single-threaded
            import torch

            torch.set_num_threads(1)
        env = SingleAgentEnv(env_name, options, opponents=copy.deepcopy(pool), learner_seat=seat, seed=seed)
        return Monitor(env)

    return make


def train(
    env_name: str,
    *,
    options: Mapping[str, Any] | None = None,
    timesteps: int | None = None,
    opponents: str | None = None,
    n_envs: int | None = None,
    seed: int = 0,
    out: str | Path | None = None,
    vec_env: str | None = None,
    eval_games: int | None = None,
    progress: bool | None = None,
    config_path: str | Path | None = None,
    engine: str | None = None,
    imitation_games: int | None = None,
    imitation_teacher: str | None = None,
    algo: str | None = None,
    log: Callable[[str], None] = print,
) -> TrainResult:
    """Train a MaskablePPO (or, with ``algo="dmc"``, a Deep Monte-Carlo) agent for one seat of
    ``env_name`` and evaluate it.

    Arguments left ``None`` come from the game's config file; with ``engine="vector"`` the
    config's ``vector`` section (``n_envs``, ``ppo`` overrides) applies on top. With
    ``imitation.games > 0`` (``imitation_games``) the network first imitates a teacher agent
    (``imitation_teacher``, default the config's ``imitation.teacher``;
    :mod:`cardgames_env.training.imitation`); ``timesteps=0`` then skips PPO. Ends by saving
    ``model.zip`` and
    its sidecar, drawing the learning curve, and evaluating against random and (when the game
    has one) the heuristic over ``eval.final_games`` games. ``algo="dmc"`` trains on the batched
    engine with the config's ``dmc`` section instead (:mod:`cardgames_env.training.dmc`) and
    saves an exported policy (``model.npz``) in place of ``model.zip``.

    ``progress`` draws bars on stderr for the learner steps (their total is the number of
    steps that will run: PPO collects whole rollouts of ``n_steps`` × ``n_envs`` steps, DMC
    whole batches of ``n_envs``, so ``timesteps`` is rounded up, and the log says so), the
    imitation games and the final evaluations' games: ``None`` when stderr is a terminal,
    ``True`` always, ``False`` never.

    Raises:
        ValueError: for an unknown env or option, a non-positive count, or a bad setting.
    """
    options = dict(options or {})
    run = Path(out) if out is not None else None
    if run is not None:
        check_output_folder(run)
    probe = load(env_name).raw_env(**options)
    game = probe.info.name
    settings = load_config(game, config_path)
    if algo is not None:
        settings["algo"] = algo
    if engine is not None:
        settings["engine"] = engine
    elif settings.get("algo") == "dmc":  # DMC has one engine: the batched one
        settings["engine"] = "vector"
    validate_config(settings)
    settings.setdefault("engine", "aec")
    if settings["engine"] == "vector" and settings.get("algo") == "dmc":
        settings["n_envs"] = settings.get("dmc", {}).get("n_envs", settings["n_envs"])
    elif settings["engine"] == "vector":  # the batched engine's section applies on top
        batched = settings.get("vector", {})
        settings["n_envs"] = batched.get("n_envs", settings["n_envs"])
        settings["ppo"] = {**settings["ppo"], **batched.get("ppo", {})}
    for key, value in (
        ("timesteps", timesteps), ("opponents", opponents), ("n_envs", n_envs), ("vec_env", vec_env)
    ):
        if value is not None:
            settings[key] = value
    for key, value in (("games", imitation_games), ("teacher", imitation_teacher)):
        if value is not None:
            settings.setdefault("imitation", {})[key] = value
    if eval_games is not None:
        settings["eval"]["games"] = eval_games
        settings["eval"]["final_games"] = eval_games
    validate_config(settings)
    seat = settings.get("learner_seat")
    if seat is not None and seat >= len(probe.possible_agents):
        raise ValueError(f"learner_seat must be in 0..{len(probe.possible_agents) - 1}, got {seat}")
    source = imitation_source(settings.get("imitation", {}))
    if source is not None:
        check_agent_kinds(env_name, options, source["teacher"], source["opponents"])
    total = int(settings["timesteps"])
    n = int(settings["n_envs"])
    mode = str(settings["opponents"])
    pool = opponent_pool(game, mode, settings.get("selfplay", {}))
    if run is None:
        prefix = f"{env_name}-dmc" if settings.get("algo") == "dmc" else env_name
        run = check_output_folder(Path("runs") / f"{prefix}-{mode}-s{seed}")
    if settings.get("algo") == "dmc":
        from cardgames_env.agents.pretrained import POLICY_FILE

        from .dmc import train_dmc

        summary, results = train_dmc(env_name, options, settings, pool, run, seed, probe, log, progress)
        return TrainResult(run, run / POLICY_FILE, summary["timesteps"], summary["wall_s"],
                           summary["train_s"], summary["steps_per_s"], results)
    validate_config(settings, ppo_parameters())  # imports sb3-contrib (and torch): names last

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    limit_threads(settings.get("torch_threads"))

    batched = settings["engine"] == "vector"
    venv: Any
    if batched:
        from .vector_env import VectorTrainingEnv

        venv = VectorTrainingEnv(env_name, n, options, opponents=pool, learner_seat=seat, seed=seed)
    else:
        subprocess = settings["vec_env"] == "subproc"
        fns = [_make_env_fn(env_name, options, pool, seat, seed * 1000 + i, subprocess) for i in range(n)]
        venv = SubprocVecEnv(fns) if subprocess else DummyVecEnv(fns)
    ppo = dict(settings["ppo"])
    net_arch = ppo.pop("net_arch", [256, 256])
    try:
        model = MaskablePPO(
            "MlpPolicy", venv, seed=seed, device="cpu", verbose=0,
            policy_kwargs={"net_arch": copy.deepcopy(net_arch)}, **ppo,
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
    settings.update(env=env_name, options=options, seed=seed)
    (run / "config.json").write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    model.set_logger(configure(str(run / "logs"), ["csv", "tensorboard"]))

    callbacks = _callbacks(env_name, options, probe, run, settings, total, n, mode, log)
    kind = "batched" if batched else settings["vec_env"]
    rollout = int(model.n_steps) * n
    planned = whole_units(total, rollout)
    units = f"whole rollouts of {rollout} steps: n_steps {model.n_steps} x {n} envs"
    why = rounding_note(total, planned, units)
    log(f"training {env_name} for {planned} steps{why}: opponents {mode}, {n} {kind} envs, "
        f"seed {seed}, output {run}")
    start = time.perf_counter()
    try:
        imitation_s = _imitate(model, env_name, options, settings.get("imitation", {}), run, seed, log,
                               progress)
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
    env_steps = venv.env_steps if batched else sum(venv.get_attr("env_steps"))
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
    extra = {"imitation": source} if source is not None else {}
    write_sidecar(model_path, probe, timesteps=model.num_timesteps, opponents=mode, seed=seed, **extra)
    callbacks[0].evaluate_now(model.num_timesteps, progress)  # the learning curve's last point
    curve = plot_learning_curve(run)

    learner = ModelAgent(model.policy, deterministic=True, name=run.name)
    results = final_evaluations(env_name, options, learner, settings["eval"], progress, log)
    summary = {
        "env": env_name, "options": options, "opponents": mode, "seed": seed,
        "timesteps": model.num_timesteps, "timesteps_asked": total, "n_envs": n, "engine": settings["engine"],
        "vec_env": None if batched else settings["vec_env"],
        "imitation_s": round(imitation_s, 2), "wall_s": round(wall, 2), "train_s": round(train_s, 2),
        "steps_per_s": round(steps_per_s, 1),
        "env_steps": int(env_steps), "env_steps_per_s": round(env_steps_per_s, 1),
        "rollout_s": round(rollout_s, 2), "update_s": round(update_s, 2),
        "final_evaluations": [match_json(r) for r in results],
    }
    (run / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    log(f"saved {model_path} (+ {model_path.with_suffix('.json').name}), learning curve {curve}")
    return TrainResult(run, model_path, model.num_timesteps, wall, train_s, steps_per_s, results)


def _imitate(
    model: Any,
    env_name: str,
    options: Mapping[str, Any],
    settings: Mapping[str, Any],
    run: Path,
    seed: int,
    log: Callable[[str], None],
    progress: bool | None = None,
) -> float:
    """Clone the teacher into ``model.policy`` when ``settings["games"] > 0``; write
    ``imitation.csv`` (one row per epoch); return the seconds spent (0 without imitation)."""
    start = time.perf_counter()
    demos = collect_for_run(env_name, options, settings, seed, log, progress)
    if demos is None:
        return 0.0
    history = clone_policy(
        model.policy, demos, epochs=int(settings.get("epochs", 10)),
        batch_size=int(settings.get("batch_size", 1024)),
        learning_rate=float(settings.get("learning_rate", 1e-3)),
        value_coef=float(settings.get("value_coef", 0.5)), seed=seed, log=log,
    )
    write_history(run / IMITATION_CSV, history, len(demos))
    return time.perf_counter() - start


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


def _callbacks(
    env_name: str,
    options: Mapping[str, Any],
    probe: Any,
    run: Path,
    settings: Mapping[str, Any],
    total: int,
    n_envs: int,
    mode: str,
    log: Callable[[str], None],
) -> list[Any]:
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
            agent = ModelAgent(self.model.policy, deterministic=True, name="learner")
            with Progress(self.games, "games", f"eval at {timesteps} steps", progress) as bar:
                result = evaluate(env_name, agent, "random", games=self.games, seed=self.seed,
                                  options=options, on_game=bar.advance)
            append_eval_log(self.path, timesteps, "random", result)
            self.logger.record("eval/vs_random", result.value)
            self.logger.record("eval/win_rate_vs_random", result.win_rate)

    def save_copy(model: Any, subfolder: str, name: str, timesteps: int) -> Path:
        """Save the model under ``run/subfolder/name`` with its sidecar; return the path."""
        folder = run / subfolder
        folder.mkdir(exist_ok=True)
        path = folder / name
        model.save(str(path))
        write_sidecar(path, probe, timesteps=timesteps, opponents=mode)
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

    evals = settings["eval"]
    every = evals.get("every") or max(total // max(int(evals.get("points", 10)), 1), 1)
    callbacks: list[Any] = [EvalLog(every, int(evals["games"]), int(evals["seed"]))]
    callbacks.append(Checkpoint(int(settings.get("checkpoint_every", 50_000))))
    if mode == "selfplay":
        callbacks.append(Snapshot(int(settings["selfplay"].get("snapshot_every", 25_000))))
    callbacks.append(RolloutClock())
    return callbacks

