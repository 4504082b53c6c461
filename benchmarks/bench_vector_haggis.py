"""Batched Haggis against the AEC env, side by side in one run (figures, not tests).

* ``aec`` — random play through the wrapped ``haggis_v0`` env, reading the observation and
  the action mask at every step (steps/s);
* ``vector N`` — ``cardgames_env.vector.make("haggis_v0", num_envs=N)`` stepped with random
  legal actions (argmax of ``mask * uniform noise``, one vectorised call), reading nothing
  more than the returned buffers: slot-steps/s.

Rates are wall-clock (the batched engine runs on several threads), best of a few rounds::

    python benchmarks/bench_vector_haggis.py
    python benchmarks/bench_vector_haggis.py --seconds 1 --rounds 1 --sizes 256
"""

from __future__ import annotations

import argparse
import platform
import time
from typing import Any

import numpy as np

from cardgames_env import vector
from cardgames_env.registry import load


def aec_rate(options: dict[str, Any], seconds: float, seed: int = 0) -> float:
    """Random play through the AEC env reading obs and mask each step: steps/s (wall clock)."""
    env = load("haggis_v0").env(**options)
    rng = np.random.default_rng(seed)
    steps = 0
    episode = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=seed + episode)
        episode += 1
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            _ = obs["observation"]
            legal = np.flatnonzero(obs["action_mask"].view(np.bool_))
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
    return steps / (time.perf_counter() - start)


def vector_rate(num_envs: int, options: dict[str, Any], seconds: float, seed: int = 0) -> float:
    """Random legal play in the batched engine: slot-steps/s (wall clock)."""
    vec = vector.make("haggis_v0", num_envs=num_envs, seed=seed, **options)
    rng = np.random.default_rng(seed)
    noise = rng.random((64, num_envs, vec.action_size), dtype=np.float32)
    mask = vec.mask
    for k in range(20):  # warm-up (compiled code, threads)
        mask = vec.step(np.argmax(mask * noise[k % 64], axis=1))[1]
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for k in range(64):
            mask = vec.step(np.argmax(mask * noise[k], axis=1))[1]
        steps += 64
    return steps * num_envs / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per figure and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; each figure keeps its best")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 256, 1024])
    parser.add_argument("--target-score", type=int, default=None, help="variant option target_score")
    args = parser.parse_args()
    options: dict[str, Any] = {} if args.target_score is None else {"target_score": args.target_score}
    vector_rate(1, options, 0.1)  # compile / load the cached kernels before timing
    vector_rate(64, options, 0.1)
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        best["aec"] = max(best.get("aec", 0.0), aec_rate(options, args.seconds))
        for n in args.sizes:
            key = f"vector N={n}"
            best[key] = max(best.get(key, 0.0), vector_rate(n, options, args.seconds))
    print(f"haggis_v0 {options or 'default options'} on {platform.machine()} "
          f"({platform.python_version()}), best of {args.rounds} x {args.seconds:g} s, wall clock")
    print("| subject | steps/s | x AEC |")
    print("|---|---:|---:|")
    for key, rate in best.items():
        print(f"| {key} | {rate:,.0f} | {rate / best['aec']:.1f} |")


if __name__ == "__main__":
    main()
