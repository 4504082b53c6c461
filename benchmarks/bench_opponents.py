"""Rollout speed against batched opponents: a random learner in ``SB3BatchedEnv``.

No network and no PPO: the learner's actions are uniformly random, so the figure is the
engine plus the opponents (``--opponents heuristic``: the heuristics asked row by row) for
``--seconds`` per env. Figures, not tests; run it on a quiet machine::

    python benchmarks/bench_opponents.py                     # every env, heuristic opponents
    python benchmarks/bench_opponents.py --envs haggle_v0 --opponents random
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_vector import machine  # type: ignore[import-not-found]  # the sibling script

from cardgames_env import vector
from cardgames_env.agents.batch import random_legal
from cardgames_env.training.sb3_vec_env import SB3BatchedEnv


def measure(env_name: str, opponents: str, num_envs: int, seconds: float, seed: int) -> tuple[float, float]:
    """Return (learner steps/s, env steps/s) of a random learner against ``opponents``."""
    env = SB3BatchedEnv(env_name, num_envs=num_envs, opponents=opponents, seed=seed)
    env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(3):  # compile or load the engine's kernels outside the timing
        env.step(random_legal(env.action_masks(), rng))
    steps, env_steps = 0, env.env_steps
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.step(random_legal(env.action_masks(), rng))
        steps += 1
    elapsed = time.perf_counter() - start
    return steps * num_envs / elapsed, (env.env_steps - env_steps) / elapsed


def main() -> None:
    """Print one table row per env."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--envs", nargs="+", default=vector.available())
    parser.add_argument("--opponents", default="heuristic")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"Machine: {machine()}")
    print(f"Random learner against {args.opponents}, {args.num_envs} games, {args.seconds:g} s per env\n")
    print("| env | learner steps/s | env steps/s |")
    print("|---|---|---|")
    for name in args.envs:
        learner, env_steps = measure(name, args.opponents, args.num_envs, args.seconds, args.seed)
        print(f"| {name} | {learner:,.0f} | {env_steps:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
