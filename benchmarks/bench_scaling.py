"""How the package scales with the machine: one thread against every core, side by side.

One command prints the scaling table of whatever machine it runs on::

    python benchmarks/bench_scaling.py                     # about 4-6 minutes
    python benchmarks/bench_scaling.py --quick             # 1 round x 0.3 s per figure
    python benchmarks/bench_scaling.py --games red7_v0 --sizes 4096 --threads 8

**Engines.** Every batched engine (each default variant, Jaipur's sub-step exchanges and Red7
with 4 players) plays random legal games at ``N`` = 256 and 4096 slots, once with the
kernels on one thread and once on ``--threads`` threads (all the cores Numba may use, by
default). A step is what a batched loop does: choose a uniformly random legal action in every
slot (a compiled sampler that splits the slots into the engine's own chunks, so each thread
reads the mask rows it has just written) and ``vec.step(actions)`` (the compiled action check
and the step kernel). On one thread the engine runs its one-thread kernel; on more, its
threaded kernel is forced (the engine's kernel chooser would otherwise fall back to one thread
on a machine busier than its cores). Figures are wall-clock slot-steps per second, the median
of ``--rounds`` interleaved rounds (every subject once per round, so a disturbance from other
work spreads over all of them).

The header names the OpenMP workers' wait (see ``docs/vector.md``): by default they spin for
about 30 us after each parallel region; on a machine of your own, ``OMP_WAIT_POLICY=ACTIVE``
keeps them spinning.

**Learners.** ``cardgames train`` with DMC and with PPO on the batched engine
(``--learner-games``, Red7 by default) at the same sizes, once with ``--threads 1`` and once
with ``--threads``, on the CPU and, where torch sees one, on the GPU: env steps per second
(learner and opponents) as the run's ``summary.json`` gives them, updates included. Each
run plays ``--learner-steps`` steps of every game (DMC: one decision per game per step; PPO:
rollouts of that many steps, ``vector.ppo.n_steps`` set to it, one epoch), against random
opponents, so a figure measures the loop and not the game's opponents.

The table is built from :data:`SECTIONS`: a title and a function that measures its rows.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from bench_vector import add_run_arguments, check_run_arguments, machine, parse_subject, random_legal_rows
from numba import njit, prange

from cardgames_env.core.threads import kernel_threads, max_kernel_threads, set_kernel_threads
from cardgames_env.vector import BatchedEngine, make

ENGINE_SUBJECTS = (
    "gongzhu_v0", "jaipur_v0", "jaipur_v0[exchange_encoding=substeps]", "red7_v0",
    "red7_v0[num_players=4]", "haggis_v0", "haggle_v0",
)
"""The engines measured by default: every default variant and the variants that cost
differently (Jaipur's 63-action sub-steps, Red7 with 4 players)."""

SIZES = (256, 4096)


@njit(cache=True, parallel=True)
def random_legal_chunks(bounds: np.ndarray, mask: np.ndarray, states: np.ndarray, out: np.ndarray) -> None:
    """A uniformly random legal action of each row of ``mask`` into ``out``, chunk ``c`` of
    ``bounds`` on one thread (the engine's split, so a thread reads the rows it wrote)."""
    for c in prange(bounds.shape[0] - 1):
        random_legal_rows(bounds[c], bounds[c + 1], mask, states, out)


@dataclass
class Row:
    """One line of a section: a label, the figures at each size and thread count."""

    label: str
    cells: dict[tuple[int, int], float]
    """``(N, threads)`` -> slot-steps per second."""


class EngineLoop:
    """Random legal play on one engine of ``n`` slots (built and warmed up once)."""

    def __init__(self, subject: str, n: int, threads: list[int]):
        name, options = parse_subject(subject)
        self.vec: BatchedEngine = make(name, num_envs=n, seed=0, **options)
        self.states = np.random.SeedSequence(1).generate_state(n, dtype=np.uint64)
        self.actions = np.zeros(n, dtype=np.int64)
        for count in threads:  # compile or load every kernel before timing
            self.run(count, 0.0)

    def run(self, threads: int, seconds: float) -> float:
        """Play for ``seconds`` with the kernels on ``threads`` threads; slot-steps per second."""
        set_kernel_threads(threads)
        vec, states, actions = self.vec, self.states, self.actions
        vec.parallel = threads > 1
        bounds = vec.chunks()
        sample_all = len(bounds) > 2
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            if sample_all:
                random_legal_chunks(bounds, vec.mask, states, actions)
            else:
                random_legal_rows(0, vec.num_envs, vec.mask, states, actions)
            vec.step(actions)
            steps += 1
            now = time.perf_counter()
            if now >= deadline:
                return steps * vec.num_envs / (now - start)


def engine_rows(args: argparse.Namespace) -> list[Row]:
    """The engines' section: each subject at each size, on 1 and on ``args.threads`` threads."""
    thread_counts = sorted({1, args.threads})
    loops: dict[tuple[str, int], EngineLoop] = {}
    for subject in args.games:
        for n in args.sizes:
            print(f"  preparing {subject} N={n}", flush=True)
            loops[subject, n] = EngineLoop(subject, n, thread_counts)
    samples: dict[tuple[str, int, int], list[float]] = {}
    for round_ in range(args.rounds):
        print(f"  round {round_ + 1}/{args.rounds} (load {os.getloadavg()[0]:.2f})", flush=True)
        for (subject, n), loop in loops.items():
            for threads in thread_counts:
                samples.setdefault((subject, n, threads), []).append(loop.run(threads, args.seconds))
    cells = [(n, t) for n in args.sizes for t in thread_counts]
    return [Row(s, {(n, t): statistics.median(samples[s, n, t]) for n, t in cells}) for s in args.games]


@dataclass
class Section:
    """A part of the table: its title and the function measuring its rows."""

    title: str
    rows: Callable[[argparse.Namespace], list[Row]]


def learner_figure(env: str, algo: str, device: str, n: int, threads: int, steps: int) -> float:
    """Env steps per second of one ``cardgames train`` run (``summary.json``'s figure)."""
    from cardgames_env.training.config import Overrides, resolve_config
    from cardgames_env.training.train import train

    settings = {"eval": {"points": 1, "games": 2, "final_games": 2}, "checkpoint_every": 10**9,
                "dmc": {"n_envs": n}, "vector": {"n_envs": n, "ppo": {"n_steps": steps, "n_epochs": 1}}}
    with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(io.StringIO()):
        config = Path(folder) / "bench.json"
        config.write_text(json.dumps(settings))
        overrides = Overrides(algo=algo, engine="vector", timesteps=steps * n, opponents="random",
                              device=device, threads=threads)
        train(env, resolve_config(env, config, overrides), seed=0, out=Path(folder) / "run", progress=False,
              log=lambda _: None)
        return float(json.loads((Path(folder) / "run" / "summary.json").read_text())["env_steps_per_s"])


def learner_devices() -> list[str]:
    """``cpu``, and ``cuda`` where torch sees a GPU."""
    import torch

    return ["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"]


def learner_rows(args: argparse.Namespace) -> list[Row]:
    """The learners' section: DMC and PPO on each device, at each size, on 1 and ``args.threads``
    threads (one run each)."""
    rows = []
    for env in args.learner_games:
        for algo in ("dmc", "ppo"):
            for device in learner_devices():
                cells = {}
                for n in args.sizes:
                    for threads in sorted({1, args.threads}):
                        print(f"  {algo} {env} {device} N={n} threads={threads} "
                              f"(load {os.getloadavg()[0]:.2f})", flush=True)
                        cells[n, threads] = learner_figure(env, algo, device, n, threads, args.learner_steps)
                rows.append(Row(f"{algo} {env} ({device}), env steps/s", cells))
    return rows


SECTIONS: list[Section] = [Section("engines", engine_rows), Section("learners", learner_rows)]
"""The table's sections, in order (``--sections`` picks some)."""


def print_table(title: str, rows: list[Row], sizes: list[int], threads: int) -> None:
    """Print one section as a Markdown table: per size, 1 thread, ``threads`` threads, ratio."""
    header = "| " + title + " | " + " | ".join(
        f"N={n}: 1 thread | N={n}: {threads} threads | N={n}: ×" for n in sizes
    ) + " |"
    print(header)
    print("|---|" + "---:|" * (3 * len(sizes)))
    for row in rows:
        cells = []
        for n in sizes:
            one, many = row.cells[n, 1], row.cells[n, threads]
            cells += [f"{one:,.0f}", f"{many:,.0f}", f"{many / one:.2f}×"]
        print(f"| {row.label} | " + " | ".join(cells) + " |")
    print()


def main(argv: list[str] | None = None) -> int:
    """Measure the chosen sections and print the scaling table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(parser, 1.5, ENGINE_SUBJECTS, SIZES)
    parser.add_argument("--threads", type=int, default=max_kernel_threads(),
                        help="threads of the many-thread column (default: all Numba may use)")
    parser.add_argument("--sections", nargs="+", default=[s.title for s in SECTIONS],
                        choices=[s.title for s in SECTIONS], help="which sections to measure")
    parser.add_argument("--quick", action="store_true", help="1 round x 0.3 s per figure")
    parser.add_argument("--learner-games", nargs="+", default=["red7_v0"],
                        help="envs of the learners' section (default red7_v0)")
    parser.add_argument("--learner-steps", type=int, default=16,
                        help="steps of every game in one learner run (default 16)")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.rounds = 0.3, 1
    args.sizes = check_run_arguments(parser, args)
    if not 1 <= args.threads <= max_kernel_threads():
        parser.error(f"--threads must be in 1..{max_kernel_threads()} (NUMBA_NUM_THREADS)")
    for subject in args.games:
        name, _ = parse_subject(subject)
        try:
            make(name, num_envs=1)
        except ValueError as error:
            parser.error(str(error))

    before = os.getloadavg()
    start = time.perf_counter()
    previous = kernel_threads()
    tables = []
    try:
        for section in SECTIONS:
            if section.title in args.sections:
                print(f"measuring {section.title}", flush=True)
                tables.append((section.title, section.rows(args)))
    finally:
        set_kernel_threads(previous)
    after = os.getloadavg()
    print(f"\n# Scaling: 1 thread against {args.threads} ({time.strftime('%Y-%m-%d')})\n")
    print(f"Machine: {machine()}; Numba may use {max_kernel_threads()} threads; "
          f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '(unset)')}, "
          f"GOMP_SPINCOUNT={os.environ.get('GOMP_SPINCOUNT', '(unset)')}. Load average (1 min) "
          f"{before[0]:.2f} before, {after[0]:.2f} after; {time.perf_counter() - start:.0f} s in all. "
          f"Median of {args.rounds} interleaved rounds x {args.seconds:g} s; wall-clock slot-steps per "
          "second of random legal play (sampler and step).\n")
    for title, rows in tables:
        print_table(title, rows, args.sizes, args.threads)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
