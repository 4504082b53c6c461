"""Learner steps per second: ``CardGamesVectorEnv`` (the gymnasium vector env over the batched
engine) against the AEC ``SingleAgentEnv``, side by side in one run, every game.

Both play the same thing: a uniformly random learner (no network) against opponents in every
other seat (``--opponents``, default ``heuristic``), rewards and episode ends booked as a
training loop would. The figure is learner decisions per second of the envs' own calls
(``step`` and ``reset``: the opponents' decisions inside them included, the learner's random
choice left out, as a policy's forward pass would be); ``env steps/s`` counts every decision.
The vector env runs twice: as built by default (``final_obs=True``: each finished episode's
final observation is encoded, ``infos["final_obs"]``) and with ``final_obs=False``. Besides
wall-clock seconds, the CPU seconds of this process are counted (less sensitive to other
work on a shared machine). Each env runs about ``--seconds`` per round, the rounds interleave
the paths, and the median round is kept::

    python benchmarks/bench_gym_vector.py                    # every game, N = 256
    python benchmarks/bench_gym_vector.py --games red7_v0 --num-envs 1024 --rounds 5
    python benchmarks/bench_gym_vector.py --games jaipur_v0 --option exchange_encoding=substeps

State the machine's load with the figures (printed at the start and the end).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from bench_vector import machine  # type: ignore[import-not-found]  # the sibling script

from cardgames_env import vector
from cardgames_env.agents.batch import random_legal
from cardgames_env.cli import parse_option
from cardgames_env.wrappers.single_agent import SingleAgentEnv
from cardgames_env.wrappers.vector_env import CardGamesVectorEnv

Runner = Callable[[float], tuple[float, float, float]]
"""Runs for about ``seconds``; returns (learner steps/s, env steps/s, learner steps per CPU s)."""


def single_agent(name: str, options: dict[str, Any], opponents: str, seed: int) -> Runner:
    """The AEC path: one ``SingleAgentEnv`` game at a time."""
    env = SingleAgentEnv(name, options, opponents=opponents, seed=seed)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def run(seconds: float) -> tuple[float, float, float]:
        steps, env_steps, inside, cpu = 0, env.env_steps, 0.0, 0.0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            action = random_legal(env.action_masks()[None, :], rng)[0]
            tick, tock = time.perf_counter(), time.process_time()
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
            inside += time.perf_counter() - tick
            cpu += time.process_time() - tock
            steps += 1
        return steps / inside, (env.env_steps - env_steps) / inside, steps / max(cpu, 1e-9)

    return run


def batched(
    name: str, options: dict[str, Any], opponents: str, num_envs: int, seed: int, final_obs: bool
) -> Runner:
    """The batched path: ``CardGamesVectorEnv`` with ``num_envs`` games."""
    env = CardGamesVectorEnv(name, num_envs, opponents=opponents, seed=seed, final_obs=final_obs, **options)
    observations, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(3):  # compile or load the kernels outside the timing
        observations, *_ = env.step(random_legal(observations["action_mask"].astype(bool), rng))

    def run(seconds: float) -> tuple[float, float, float]:
        nonlocal observations
        steps, env_steps, inside, cpu = 0, env.env_steps, 0.0, 0.0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            actions = random_legal(observations["action_mask"].view(np.bool_), rng)
            tick, tock = time.perf_counter(), time.process_time()
            observations, *_ = env.step(actions)
            inside += time.perf_counter() - tick
            cpu += time.process_time() - tock
            steps += num_envs
        return steps / inside, (env.env_steps - env_steps) / inside, steps / max(cpu, 1e-9)

    return run


def load() -> str:
    """The load averages, as text."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    """Print one table row per game."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="+", default=vector.available())
    parser.add_argument("--opponents", default="heuristic")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a variant option of every game measured (repeatable)")
    args = parser.parse_args()
    options = dict(parse_option(o) for o in args.option)
    print(f"Machine: {machine()}; load average {load()} at the start")
    print(f"Random learner against {args.opponents}; median of {args.rounds} interleaved rounds x "
          f"{args.seconds:g} s\n")
    print(f"Learner steps per wall s (per CPU s); vector env: N={args.num_envs}\n")
    print("| game | SingleAgentEnv | CardGamesVectorEnv | ratio | ratio per CPU s | "
          "CardGamesVectorEnv, final_obs=False | ratio | ratio per CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.games:
        runners = {"aec": single_agent(name, options, args.opponents, args.seed),
                   "vector": batched(name, options, args.opponents, args.num_envs, args.seed, final_obs=True),
                   "lean": batched(name, options, args.opponents, args.num_envs, args.seed, final_obs=False)}
        rounds: dict[str, list[tuple[float, float, float]]] = {key: [] for key in runners}
        for _ in range(args.rounds):
            for key, run in runners.items():
                rounds[key].append(run(args.seconds))
        aec, vec, lean = (statistics.median_low(rounds[key]) for key in runners)
        label = name + (f"[{','.join(args.option)}]" if args.option else "")
        print(f"| {label} | {aec[0]:,.0f} ({aec[2]:,.0f}) | {vec[0]:,.0f} ({vec[2]:,.0f}) | "
              f"{vec[0] / aec[0]:.1f}x | {vec[2] / aec[2]:.1f}x | {lean[0]:,.0f} ({lean[2]:,.0f}) | "
              f"{lean[0] / aec[0]:.1f}x | {lean[2] / aec[2]:.1f}x |", flush=True)
    print(f"\nload average {load()} at the end")


if __name__ == "__main__":
    main()
