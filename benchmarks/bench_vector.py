"""Batched engines (``cardgames_env.vector``) side by side with the AEC envs and OpenSpiel hearts.

Measures, in one run on one machine, for every game whose batched engine is installed
(a game's spec names it; a missing one is skipped with a note):

* ``AEC`` — random legal play through the game's raw AEC env: ``observe(agent)`` (observation
  and mask) and ``action_mask()`` at every decision, a uniformly random legal action, ``step``;
* ``N = 1, 64, 256, 1024`` — the batched engine with ``N`` slots: every step chooses a
  uniformly random legal action per slot (a small compiled helper, so the choice costs little
  next to the step) and calls ``vec.step(actions)``; slot-steps per second;
* OpenSpiel ``hearts(pass_cards=False)`` through its fastest documented tensor path
  (``bench_envs.openspiel_hearts_steps_per_second``, timed on the wall clock here): an
  observer from ``open_spiel.python.observation.make_observation`` (the information-state
  type: hearts provides no observation tensor) whose ``set_from(state, player)`` writes into
  a numpy ``tensor``, plus ``legal_actions_mask()`` at every decision; chance nodes (the deal)
  are sampled and not counted;
* per game: memory per slot (bytes of every per-slot array of the engine) and the compile
  time on first use, cold (a subprocess with an empty ``NUMBA_CACHE_DIR``) and warm (a second
  subprocess reusing that cache).

Rates are wall-clock decisions (slot-steps) per second, so threads count; every subject is
measured once per round, round after round (interleaved, so a disturbance from other work on
the machine spreads over all of them), and the table shows each subject's median. Figures,
not tests::

    python benchmarks/bench_vector.py                 # 3 rounds x 1 s per figure + compile times
    python benchmarks/bench_vector.py --quick         # 1 round x 0.3 s, no compile times
    python benchmarks/bench_vector.py --games gongzhu_v0 --seconds 2 --rounds 5
    python benchmarks/bench_vector.py --games "red7_v0[num_players=4,advanced=true]"

A subject is an env name, optionally with options in brackets (``key=value`` as on the
command line); the default list is every game's default variant plus the variants that cost
differently (Jaipur's sub-step exchanges, Red7 with 4 players and with the action rule).
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np
from numba import njit

from cardgames_env.cli import parse_option
from cardgames_env.core.kernel_rng import below
from cardgames_env.registry import load, spec
from cardgames_env.vector import make

SIZES = (1, 64, 256, 1024)
DEFAULT_SUBJECTS = (
    "gongzhu_v0", "jaipur_v0", "jaipur_v0[exchange_encoding=substeps]", "red7_v0",
    "red7_v0[num_players=4]", "red7_v0[action_rule=true]", "haggis_v0", "haggle_v0",
)
"""What a plain run measures: every default variant and the variants that cost differently."""


def parse_subject(text: str) -> tuple[str, dict]:
    """``"red7_v0[num_players=4,advanced=true]"`` -> ``("red7_v0", {"num_players": 4, ...})``."""
    name, _, rest = text.partition("[")
    options = dict(parse_option(o) for o in rest.rstrip("]").split(",") if o.strip())
    return name.strip(), options
REFERENCE_GAME = "gongzhu_v0"
"""The game compared with OpenSpiel hearts (both four-player trick-taking games)."""


def machine() -> str:
    """One line naming the machine: cores, CPU model, Python and Numba."""
    import numba

    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (
        f"{os.cpu_count()} cores (nproc), {model}, {platform.machine()}, Python "
        f"{platform.python_version()}, Numba {numba.__version__}"
    )


@njit(cache=True)
def random_legal(mask: np.ndarray, states: np.ndarray, out: np.ndarray) -> None:
    """Write a uniformly random legal action of each row of ``mask`` into ``out``."""
    random_legal_rows(0, mask.shape[0], mask, states, out)


@njit(cache=True)
def random_legal_rows(lo: int, hi: int, mask: np.ndarray, states: np.ndarray, out: np.ndarray) -> None:
    """:func:`random_legal` for rows ``lo..hi-1`` (row ``i`` draws from ``states[i]``)."""
    for i in range(lo, hi):
        row = mask[i]
        count = 0
        for legal in row:  # iterating the row itself vectorises; indexing it does not
            count += legal
        pick = below(states, i, count)
        for a in range(row.shape[0]):
            if row[a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1


class VectorSubject:
    """A batched engine with ``n`` slots, kept between rounds (built and warmed up once)."""

    def __init__(self, subject: str, n: int):
        name, options = parse_subject(subject)
        self.vec = make(name, num_envs=n, seed=0, **options)
        self.states = np.random.SeedSequence(1).generate_state(n, dtype=np.uint64)
        self.actions = np.zeros(n, dtype=np.int64)
        self.run(0.0)

    def run(self, seconds: float) -> float:
        """Step for ``seconds`` of wall time; return slot-steps per second."""
        vec, states, actions = self.vec, self.states, self.actions
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            random_legal(vec.mask, states, actions)
            vec.step(actions)
            steps += 1
            now = time.perf_counter()
            if now >= deadline:
                return steps * vec.num_envs / (now - start)


def aec_steps_per_second(subject: str, seconds: float, seed: int = 0) -> float:
    """Random legal play through the raw AEC env reading observation and mask every decision."""
    name, options = parse_subject(subject)
    env = load(name).raw_env(**options)
    rng = np.random.default_rng(seed)
    steps = 0
    episode = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=seed + episode)
        episode += 1
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            _ = env.observe(agent)["observation"]
            legal = np.flatnonzero(env.action_mask().view(np.bool_))
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
    return steps / (time.perf_counter() - start)


def openspiel_hearts() -> tuple[Callable[[float], float], str] | None:
    """OpenSpiel hearts through the C++ observer (``bench_envs``' loop, on the wall clock like
    the other subjects) and a description of its tensor; ``None`` when open_spiel is missing."""
    try:
        import pyspiel
    except ImportError:
        return None
    from bench_envs import openspiel_hearts_steps_per_second

    size = pyspiel.load_game("hearts", {"pass_cards": False}).information_state_tensor_size()

    def run(seconds: float) -> float:
        rate = openspiel_hearts_steps_per_second(seconds, clock=time.perf_counter)
        assert rate is not None  # pyspiel imported above
        return rate

    return run, f"information-state tensor, {size} floats"


def bytes_per_slot(subject: str, n: int = 64) -> float:
    """Bytes of every per-slot array an engine holds (state, outputs, counters), per slot."""
    name, options = parse_subject(subject)
    vec = make(name, num_envs=n, seed=0, **options)
    arrays = [v for v in vars(vec).values() if isinstance(v, np.ndarray) and v.shape[:1] == (n,)]
    return sum(a.nbytes for a in arrays) / n


_COMPILE_SCRIPT = """
import time
start = time.perf_counter()
import numpy as np
from cardgames_env.vector import make
for n in {sizes}:
    vec = make({name!r}, num_envs=n, seed=0, **{options!r})
    for _ in range(3):
        vec.step(np.array([np.flatnonzero(row)[0] for row in vec.mask]))
print(time.perf_counter() - start)
"""


def compile_seconds(subject: str) -> tuple[float, float, float]:
    """Import, build and step the engine (1 and 1024 slots) in fresh processes.

    Returns:
        ``(cold wall, cold CPU, warm wall)`` seconds: the first process starts with an empty
        ``NUMBA_CACHE_DIR`` (everything compiles), the second reuses that cache.
    """
    name, options = parse_subject(subject)
    script = _COMPILE_SCRIPT.format(name=name, options=options, sizes=(1, max(SIZES)))
    times = []
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for _ in range(2):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            out = subprocess.run(
                [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            times.append((float(out.stdout.strip().splitlines()[-1]), cpu))
    return times[0][0], times[0][1], times[1][0]


def available_games(wanted: list[str]) -> tuple[list[str], list[str]]:
    """The wanted games whose batched engine imports, and notes on the ones skipped."""
    games, notes = [], []
    for subject in wanted:
        name, _ = parse_subject(subject)
        kernel = spec(name).kernel
        if kernel is None:
            notes.append(f"{name}: its spec names no batched engine")
            continue
        module = kernel.partition(":")[0]
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            notes.append(f"{name}: skipped, `{module}` is not installed yet")
            continue
        games.append(subject)
    return games, notes


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}"


def _ratio(a: float | None, b: float | None) -> str:
    return "–" if a is None or not b else f"{a / b:.1f}×"


def add_run_arguments(
    parser: argparse.ArgumentParser, seconds: float, games: tuple[str, ...], sizes: tuple[int, ...]
) -> None:
    """Add the options every engine benchmark takes: --seconds, --rounds, --games, --sizes."""
    parser.add_argument("--seconds", type=float, default=seconds, help="duration of each measurement")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median kept)")
    parser.add_argument("--games", nargs="+", default=list(games),
                        help="env names, each optionally with options: 'red7_v0[num_players=4]'")
    parser.add_argument("--sizes", default=",".join(map(str, sizes)), help="comma-separated slot counts")


def check_run_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[int]:
    """Check the options of :func:`add_run_arguments` (exit status 2 on a bad one); the sizes."""
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--sizes must be comma-separated integers, got {args.sizes!r}")
    if args.seconds <= 0 or args.rounds < 1 or not sizes or min(sizes) < 1:
        parser.error("--seconds must be > 0, --rounds >= 1 and every size >= 1")
    return sizes


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the Markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(parser, 1.0, DEFAULT_SUBJECTS, SIZES)
    parser.add_argument("--no-compile", action="store_true", help="skip the compile-time subprocesses")
    parser.add_argument("--quick", action="store_true", help="1 round x 0.3 s, no compile times")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.rounds, args.no_compile = 0.3, 1, True
    sizes = check_run_arguments(parser, args)
    games, notes = available_games([g.strip() for g in args.games if g.strip()])

    subjects: dict[str, Callable[[], float]] = {}
    for name in games:
        subjects[f"aec:{name}"] = lambda n=name: aec_steps_per_second(n, args.seconds)
        for size in sizes:
            subject = VectorSubject(name, size)
            subjects[f"vec:{name}:{size}"] = lambda s=subject: s.run(args.seconds)
    hearts = openspiel_hearts()
    if hearts is not None:
        hearts_run, hearts_kind = hearts
        subjects["hearts"] = lambda: hearts_run(args.seconds)
    else:
        notes.append("OpenSpiel hearts: skipped, open_spiel is not installed")
    samples: dict[str, list[float]] = {key: [] for key in subjects}
    for _ in range(args.rounds):
        for key, measure in subjects.items():
            samples[key].append(measure())
    median = {key: statistics.median(values) for key, values in samples.items()}
    hearts_rate = median.get("hearts")

    print(f"# Batched engines vs AEC envs ({time.strftime('%Y-%m-%d')})\n")
    print(f"Machine: {machine()}. Median of {args.rounds} interleaved rounds x {args.seconds:g} s; "
          "wall-clock decisions (slot-steps) per second.\n")
    header = "| game | AEC steps/s | " + " | ".join(f"N={s} steps/s (×AEC)" for s in sizes) + " |"
    print(header)
    print("|---|---:|" + "---:|" * len(sizes))
    for name in games:
        aec = median[f"aec:{name}"]
        rates = [median[f"vec:{name}:{s}"] for s in sizes]
        cells = [f"{_rate(rate)} ({_ratio(rate, aec)})" for rate in rates]
        print(f"| {name} | {_rate(aec)} | " + " | ".join(cells) + " |")
    if hearts_rate is not None:
        blanks = " | ".join("" for _ in sizes)
        print(f"| OpenSpiel hearts ({hearts_kind}) | {_rate(hearts_rate)} | {blanks} |")
        if REFERENCE_GAME in games:
            aec_ratio = _ratio(median[f"aec:{REFERENCE_GAME}"], hearts_rate)
            cells = [_ratio(median[f"vec:{REFERENCE_GAME}:{s}"], hearts_rate) for s in sizes]
            print(f"| {REFERENCE_GAME} ÷ OpenSpiel hearts | {aec_ratio} | " + " | ".join(cells) + " |")
    print()
    print("| game | bytes per slot | first use, cold cache: wall s (CPU s) | warm cache: wall s |")
    print("|---|---:|---:|---:|")
    for name in games:
        cold = warm = "not measured"
        if not args.no_compile:
            cold_wall, cold_cpu, warm_wall = compile_seconds(name)
            cold, warm = f"{cold_wall:.1f} ({cold_cpu:.1f})", f"{warm_wall:.1f}"
        print(f"| {name} | {bytes_per_slot(name):,.0f} | {cold} | {warm} |")
    if notes:
        print()
    for note in notes:
        print(f"* {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
