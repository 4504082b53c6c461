"""Batched Red7 (``cardgames_env.vector``) against the AEC env ``red7_v0``, side by side.

Both loops play uniformly random legal moves and read the observation and the action mask of
every decision:

* ``aec``: the raw AEC env (``env.step(a)``, ``env.observe(agent)``, ``env.action_mask()``, a
  random legal action), dead steps of eliminated seats skipped (not counted);
* ``vec N``: ``vec.step(actions)`` on ``N`` slots, each slot's action drawn uniformly among its
  legal ones by a small compiled helper (:func:`random_legal`), which is timed with the loop;
  ``step only`` is the same rate counting only the time spent inside ``vec.step``.

Rates are slot-steps (decisions) per second of wall time, each the median of a few rounds;
the machine is shared, so compare figures of one run only::

    python benchmarks/bench_vector_red7.py
    python benchmarks/bench_vector_red7.py --seconds 1 --rounds 3 --sizes 1 64 256 1024
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from typing import Any

import numpy as np
from numba import njit

from cardgames_env import vector
from cardgames_env.envs.red7.env import raw_env

VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"num_players": 4},
    {"advanced": True},
    {"action_rule": True},
    {"num_players": 4, "advanced": True, "action_rule": True, "seven_to_deck": True},
)


@njit(cache=True)
def random_legal(mask: np.ndarray, noise: np.ndarray, out: np.ndarray) -> None:
    """``out[i]`` = a legal action of slot ``i``, uniform among its legal ones given uniform
    ``noise[i]``; ``mask`` is the engine's mask viewed as uint8 (counts in blocks of 64
    actions, then scans one block)."""
    size = mask.shape[1]
    for i in range(mask.shape[0]):
        row = mask[i]
        count = 0
        for v in row:
            count += v
        k = int(noise[i] * count)
        start = 0
        while start < size:
            stop = min(start + 64, size)
            block = 0
            for v in row[start:stop]:
                block += v
            if k < block:
                for a in range(start, stop):
                    if row[a]:
                        if k == 0:
                            out[i] = a
                            break
                        k -= 1
                break
            k -= block
            start = stop


def aec_rate(options: dict[str, Any], seconds: float, seed: int = 0) -> float:
    """Decisions per second of random play on the raw AEC env, reading obs and mask."""
    env = raw_env(**options)
    rng = np.random.default_rng(seed)
    steps = 0
    game = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=seed + game)
        game += 1
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                if all(env.terminations[a] or env.truncations[a] for a in env.agents):
                    break
                env.step(None)
                continue
            _ = env.observe(agent)["observation"]
            legal = np.flatnonzero(env.action_mask().view(np.bool_))
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
    return steps / (time.perf_counter() - start)


def vec_rates(options: dict[str, Any], num_envs: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """(loop rate, step-only rate) in slot-steps per second for ``num_envs`` slots."""
    vec = vector.make("red7_v0", num_envs=num_envs, seed=seed, **options)
    rng = np.random.default_rng(seed)
    actions = np.zeros(num_envs, dtype=np.int64)
    noise = rng.random((64, num_envs))
    mask = vec.mask.view(np.uint8)  # the same buffer, read as bytes
    for t in range(3):  # warm-up (threads started)
        random_legal(mask, noise[t], actions)
        vec.step(actions)
    steps = 0
    in_step = 0.0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for t in range(64):
            random_legal(mask, noise[t], actions)
            t0 = time.perf_counter()
            vec.step(actions)
            in_step += time.perf_counter() - t0
        steps += 64
    elapsed = time.perf_counter() - start
    return steps * num_envs / elapsed, steps * num_envs / in_step


def slot_bytes(options: dict[str, Any]) -> int:
    """Bytes per slot: state row, obs, mask, player, rewards, done, truncated, steps, rng."""
    vec = vector.make("red7_v0", num_envs=1, **options)
    arrays = (vec.slots, vec.obs, vec.mask, vec.player, vec.rewards, vec.done, vec.truncated, vec.steps,
              vec.rng_state)
    return sum(a.nbytes for a in arrays)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per figure (median)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 256, 1024])
    parser.add_argument("--variants", type=int, nargs="+", default=list(range(len(VARIANTS))),
                        help="indices into VARIANTS")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}")
    header = "| variant | AEC steps/s | " + " | ".join(f"N={n} (step only)" for n in args.sizes)
    print(header + " | bytes/slot |")
    print("|" + "---|" * (3 + len(args.sizes)))
    for index in args.variants:
        options = VARIANTS[index]
        aec: list[float] = []
        vec: dict[int, list[tuple[float, float]]] = {n: [] for n in args.sizes}
        for _ in range(args.rounds):  # interleaved: the machine's load falls on both alike
            aec.append(aec_rate(options, args.seconds))
            for n in args.sizes:
                vec[n].append(vec_rates(options, n, args.seconds))
        base = statistics.median(aec)
        cells = []
        for n in args.sizes:
            loop = statistics.median(r[0] for r in vec[n])
            step = statistics.median(r[1] for r in vec[n])
            cells.append(f"{loop:,.0f} = {loop / base:.1f}x ({step / base:.1f}x)")
        name = ",".join(f"{k}={v}" for k, v in options.items()) or "default (2 players)"
        print(f"| {name} | {base:,.0f} | " + " | ".join(cells) + f" | {slot_bytes(options):,} |", flush=True)


if __name__ == "__main__":
    main()
