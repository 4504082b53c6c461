"""What the engines' own determinizations give the compiled search: CPU time per simulation
with the engine re-dealing the hidden cards (``redeal_hidden``, compiled) against the search
drawing them with the rules' ``resample_hidden`` in Python, on the same positions.

For each game whose engine re-deals, it takes positions of seeded random games (every fourth
decision of three games, at most 24) and runs ``search:iterations=N`` on each of them, once
with the engine's re-deals and once with Python's, alternating the two ``--rounds`` times,
and prints the CPU microseconds per simulation of every round (one core;
``time.thread_time``). The same seeds give both settings the same positions, so the rest of a
simulation is the same work. Figures, not tests::

    python benchmarks/bench_redeal.py                       # every game that re-deals
    python benchmarks/bench_redeal.py --envs gongzhu_v0 --iterations 2048 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from typing import Any

from cardgames_env.agents.search import SearchAgent
from cardgames_env.core.game import random_positions
from cardgames_env.registry import ALL_ENVS, load

ITERATIONS = {"red7_v0": 2048, "gongzhu_v0": 1024, "jaipur_v0": 1024, "haggis_v0": 256, "haggle_v0": 1024}
"""Simulations per decision by default (fewer where a simulation is long)."""


def positions(env_name: str) -> list[Any]:
    """Rules states with a seat to move: every fourth decision of three seeded random games,
    at most 8 a game."""
    raw = load(env_name).raw_env()
    return random_positions(raw.rules, raw.config, games=3, every=4, limit=8)


def us_per_simulation(env_name: str, states: list[Any], iterations: int, engine_redeals: bool) -> float:
    """CPU microseconds per simulation of ``search:iterations=N`` over ``states``."""
    raw = load(env_name).raw_env()
    agent = SearchAgent(raw, f"search:iterations={iterations}", seed=1)
    playouts = agent.playouts()
    playouts.redeals = playouts.redeals and engine_redeals
    agent.choose_move(states[0])  # kernels compiled or loaded before the timing
    start = time.thread_time()
    simulations = 0
    for state in states:
        agent.choose_move(state)
        simulations += agent.last_iterations
    return (time.thread_time() - start) / max(simulations, 1) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", default=",".join(ALL_ENVS))
    parser.add_argument("--iterations", type=int, default=0, help="simulations per decision (0: per game)")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}")
    print(f"load average at start: {os.getloadavg()[0]:.2f}\n")
    print("| env | simulations per decision | positions | engine re-deals: us/sim "
          "| Python re-deals: us/sim |")
    print("|---|---:|---:|---|---|")
    for env_name in args.envs.split(","):
        raw = load(env_name).raw_env()
        agent = SearchAgent(raw, "search", seed=0)
        if not agent.compiled or not agent.playouts().redeals:
            print(f"| {env_name} | | | (the engine does not re-deal) | |")
            continue
        states = positions(env_name)
        iterations = args.iterations or ITERATIONS.get(env_name, 1024)
        engine, python = [], []
        for _ in range(args.rounds):
            engine.append(us_per_simulation(env_name, states, iterations, True))
            python.append(us_per_simulation(env_name, states, iterations, False))
        print(f"| {env_name} | {iterations} | {len(states)} | {', '.join(f'{x:.1f}' for x in engine)} "
              f"| {', '.join(f'{x:.1f}' for x in python)} |", flush=True)
    print(f"\nload average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
