"""Speed of the search agents: time per decision and simulations per second, per game.

For each game and each agent setting (default: the rules-engine search
``search:engine=python`` and the default ``search``, whose playouts run in the batched
engine, side by side in one run) it plays a few seeded games of the search agent (seat 0, or
every seat in turn) against the heuristic and times every search decision on one core:

* ``iters`` — simulations per decision of the setting measured (the Python engine's default:
  the game's spec's ``search_iterations``; the compiled engine's: as many as 100 ms of CPU
  allow);
* ``ms/decision`` — mean, 95th percentile and maximum CPU time of one decision
  (``time.process_time``, so other work on a shared machine disturbs it as little as
  possible; wall time is printed too);
* ``sims/s`` — simulations per CPU second;
* ``us/sim`` — CPU microseconds per simulation, and for the compiled engine the part of it
  spent in the batched engine's steps (``engine``; with a game whose engine plays a batch
  out in one call, ``play_out``, that call: engine and policy together) and in the playout
  policy's calls (``policy``): what is left for everything else bounds how far the rest can
  be sped up.

Decisions with a single searched move (no search) are not counted. Figures, not tests::

    python benchmarks/bench_search.py                    # every game, 2 games each
    python benchmarks/bench_search.py --games 1 --envs red7_v0 --agents search:iterations=800
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from typing import Any

import numpy as np

from cardgames_env.agents.base import make_agent
from cardgames_env.agents.playouts import BatchedPlayouts
from cardgames_env.agents.search import SearchAgent
from cardgames_env.registry import load
from cardgames_env.training.evaluate import play_game

ENVS = ("red7_v0", "gongzhu_v0", "jaipur_v0", "haggis_v0", "haggle_v0")
OPTIONS: dict[str, dict[str, Any]] = {"haggis_v0": {"target_score": 100}}
"""Shorter Haggis games (the time per decision does not depend on the target score)."""


class PlayoutClock:
    """CPU time of one thread spent in the batched engines' steps and the playout policies'
    calls, counted while ``on`` (the timed decisions)."""

    def __init__(self) -> None:
        self.on = False
        self.seconds = {"engine": 0.0, "policy": 0.0}
        self._wrapped: set[tuple[type, str]] = set()

    def watch(self, playouts: BatchedPlayouts) -> None:
        """Count the steps and whole playouts of ``playouts``' engine class and the policy
        calls of every :class:`BatchedPlayouts` (each method wrapped once)."""
        self._wrap(type(playouts.engine), "step", "engine")
        self._wrap(type(playouts.engine), "play_out", "engine")
        self._wrap(BatchedPlayouts, "policy_actions", "policy")

    def _wrap(self, cls: type, method: str, part: str) -> None:
        if (cls, method) in self._wrapped:
            return
        self._wrapped.add((cls, method))
        real = getattr(cls, method)

        def timed(this: Any, *args: Any, **kwargs: Any) -> Any:
            start = time.thread_time()
            try:
                return real(this, *args, **kwargs)
            finally:
                if self.on:
                    self.seconds[part] += time.thread_time() - start

        setattr(cls, method, timed)


CLOCK = PlayoutClock()


def warm_up(raw: Any, agent: str, seed: int) -> None:
    """One untimed decision of a throwaway agent at the first move of a game: the compiled
    kernels it uses are compiled (or loaded from numba's cache) before any decision is timed."""
    raw.reset(seed=seed)
    make_agent(agent, raw, seed=seed).choose_move(raw.game_state())


def measure(env_name: str, agent: str, games: int, seed: int) -> dict[str, float]:
    """Play ``games`` games of the search agent against heuristics and time its decisions."""
    raw = load(env_name).raw_env(**OPTIONS.get(env_name, {}))
    n = len(raw.possible_agents)
    cpu: list[float] = []
    wall: list[float] = []
    iterations: list[int] = []
    warm_up(raw, agent, seed)
    CLOCK.seconds = {"engine": 0.0, "policy": 0.0}
    for game in range(games):
        seat = game % n
        searcher = make_agent(agent, raw, seed=game)
        assert isinstance(searcher, SearchAgent)
        if searcher.compiled:
            CLOCK.watch(searcher.playouts())  # built (and its kernels loaded) untimed
        choose = searcher.choose_move

        def timed(state: Any, choose: Any = choose, searcher: SearchAgent = searcher) -> Any:
            c0, w0 = time.process_time(), time.perf_counter()
            CLOCK.on = True
            try:
                move = choose(state)
            finally:
                CLOCK.on = False
            if searcher.last_iterations:
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
                iterations.append(searcher.last_iterations)
            return move

        searcher.choose_move = timed  # type: ignore[method-assign]
        agents = [searcher if s == seat else make_agent("heuristic", raw, seed=s) for s in range(n)]
        play_game(raw, agents, seed + game)
    cpu_a, wall_a = np.array(cpu), np.array(wall)
    return {
        "decisions": len(cpu),
        "iters": float(np.mean(iterations)),
        "mean_ms": 1000 * float(cpu_a.mean()),
        "p95_ms": 1000 * float(np.percentile(cpu_a, 95)),
        "max_ms": 1000 * float(cpu_a.max()),
        "wall_ms": 1000 * float(wall_a.mean()),
        "sims_per_s": float(np.sum(iterations) / cpu_a.sum()),
        "engine_us": 1e6 * CLOCK.seconds["engine"] / float(np.sum(iterations)),
        "policy_us": 1e6 * CLOCK.seconds["policy"] / float(np.sum(iterations)),
    }


def main() -> None:
    """Print a Markdown table of the search agent's speed per game."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--envs", default=",".join(ENVS), help="comma-separated env names")
    parser.add_argument(
        "--agents", default="search:engine=python,search", help="comma-separated search agent names"
    )
    parser.add_argument("--games", type=int, default=2, help="games per env")
    parser.add_argument("--seed", type=int, default=0, help="first game's seed")
    args = parser.parse_args()
    machine = f"{platform.machine()}, {platform.processor() or 'cpu'}"
    print(f"machine: {machine}, {os.cpu_count()} cores, python {platform.python_version()}")
    print(f"load average at start: {os.getloadavg()[0]:.2f}; CPU time per decision (one core)\n")
    agents = args.agents.split(",")
    print("| env | agent | decisions | iters | mean ms | p95 ms | max ms | wall mean ms | sims/s | ratio "
          "| us/sim | engine | policy |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.envs.split(","):
        first = None
        for agent in agents:
            r = measure(name, agent, args.games, args.seed)
            first = first or r["sims_per_s"]
            print(
                f"| {name} | `{agent}` | {r['decisions']:.0f} | {r['iters']:.0f} | {r['mean_ms']:.1f} | "
                f"{r['p95_ms']:.1f} | {r['max_ms']:.1f} | {r['wall_ms']:.1f} | {r['sims_per_s']:.0f} | "
                f"{r['sims_per_s'] / first:.1f}x | {1e6 / r['sims_per_s']:.1f} | {r['engine_us']:.1f} | "
                f"{r['policy_us']:.1f} |",
                flush=True,
            )
    print(f"\nload average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
