"""Batched Jaipur (``cardgames_env.vector``) against the AEC env, side by side in one run.

For each encoding (flat 25,505 actions, ``exchange_encoding="substeps"``) it measures:

* ``aec`` — random legal play on ``jaipur_v0.raw_env``: ``observe(agent)`` (observation and
  mask) every step, a uniformly random legal action, ``step``; new games with ``reset``;
* ``vector N`` — ``vec.step(actions)`` on N slots (N = 1, 64, 256, 1024), each slot's action
  drawn uniformly among the legal ones of its mask row by a compiled sampler that reads the
  whole row once (for the flat mask 25,505 bytes per slot and step, like the AEC loop's
  ``flatnonzero``); its time is counted. ``--sampler sparse`` draws from the engine's sparse
  list of legal actions instead (``legal_index``/``legal_count``), reading no mask byte.

Rates are slot-steps per wall-clock second (both cores work inside the batched kernels, so
CPU time would hide the gain), the median of ``--rounds`` rounds, the loops interleaved so a
busy machine slows all of them alike. It also prints the bytes per slot. Figures, not tests::

    python benchmarks/bench_vector_jaipur.py                      # best on a quiet machine
    python benchmarks/bench_vector_jaipur.py --seconds 0.5 --rounds 3 --sizes 256
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from typing import Any

import numpy as np
from numba import njit, prange

from cardgames_env import vector
from cardgames_env.envs.jaipur import env as jaipur_env


def aec_rate(options: dict[str, Any], seconds: float, seed: int = 0) -> float:
    """Slot-steps per second of random legal play on the AEC env."""
    env = jaipur_env.raw_env(**options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.reset()
                agent = env.agent_selection
            observed = env.observe(agent)
            _ = observed["observation"]
            legal = np.flatnonzero(observed["action_mask"].view(np.bool_))
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
    return steps / (time.perf_counter() - start)


_BYTES_SUM = np.uint64(0x0101010101010101)
_S56 = np.uint64(56)


_BLOCK = 32  # words per block of the second pass


@njit(cache=True)
def _pick_rows(
    flat: np.ndarray, words: np.ndarray, width: int, u: np.ndarray, out: np.ndarray, first: int = 0
) -> None:
    n = out.shape[0]
    blocks = np.zeros(width // (8 * _BLOCK) + 2, dtype=np.int64)
    for r in range(n):
        i = first + r
        start = i * width
        end = start + width
        w0 = (start + 7) // 8  # the row's whole 8-byte words
        w1 = end // 8
        head = 0
        for b in range(start, w0 * 8):
            head += flat[b]
        total = head
        nb = 0
        for w in range(w0, w1, _BLOCK):
            stop = min(w + _BLOCK, w1)
            any_legal = np.uint64(0)
            if stop - w == _BLOCK:
                block_words = words[w : w + _BLOCK]
                for x in range(_BLOCK):  # most blocks hold no legal action: one OR per word
                    any_legal |= block_words[x]
            else:
                for x in range(w, stop):
                    any_legal |= words[x]
            acc = 0
            if any_legal:
                for x in range(w, stop):  # 8 mask bytes (0 or 1 each) summed by one multiplication
                    acc += (words[x] * _BYTES_SUM) >> _S56
            blocks[nb] = acc
            nb += 1
            total += acc
        for b in range(w1 * 8, end):
            total += flat[b]
        k = int(u[r] * total)
        if k < head:
            b = start
        else:
            k -= head
            block = 0
            while block < nb and k >= blocks[block]:
                k -= blocks[block]
                block += 1
            w = min(w0 + block * _BLOCK, w1)  # w1: the k-th is in the row's last bytes
            while w < w1:
                c = (words[w] * _BYTES_SUM) >> _S56
                if k < c:
                    break
                k -= c
                w += 1
            b = w * 8
        while flat[b] == 0 or k > 0:
            k -= flat[b]
            b += 1
        out[r] = b - start


@njit(cache=True, parallel=True)
def _pick_rows_parallel(
    flat: np.ndarray, words: np.ndarray, width: int, u: np.ndarray, out: np.ndarray, first: int = 0
) -> None:
    n = out.shape[0]
    parts = 2
    for part in prange(parts):
        lo = n * part // parts
        hi = n * (part + 1) // parts
        _pick_rows(flat, words, width, u[lo:hi], out[lo:hi], first + lo)


_PICK_COST = [0.0, 0.0]
_PICK_CALLS = [0, 64, 64]  # calls, next try of the other, gap


def sample_legal(mask: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """Per row: a uniformly random legal action. The mask buffer is read once as 8-byte words
    (OR-ed per block of 32 words, the blocks holding a legal action then counted: a word's
    legal count is one multiplication); then the block and the word of the k-th legal action
    are found. From 32 rows on, the rows are split over two threads when that is faster
    (timed, as in the engine)."""
    flat = mask.reshape(-1).view(np.uint8)
    words = flat[: flat.size // 8 * 8].view(np.uint64)
    if len(out) < 32:
        _pick_rows(flat, words, mask.shape[1], u, out, 0)
        return
    # Like the engine: time one thread and both, use the faster, retry the other now and then.
    _PICK_CALLS[0] += 1
    current = 0 if _PICK_COST[0] <= _PICK_COST[1] else 1
    choice = current
    probe = not _PICK_COST[1 - current] or _PICK_CALLS[0] >= _PICK_CALLS[1]
    if probe:
        choice = 1 - current
    start = time.perf_counter()
    (_pick_rows if choice == 0 else _pick_rows_parallel)(flat, words, mask.shape[1], u, out, 0)
    seconds = time.perf_counter() - start
    cost = _PICK_COST[choice]
    _PICK_COST[choice] = seconds if not cost else 0.75 * cost + 0.25 * seconds
    if probe:  # next try: twice as late when the choice holds (up to 4,096 calls), else soon
        confirmed = (0 if _PICK_COST[0] <= _PICK_COST[1] else 1) == current
        _PICK_CALLS[2] = min(_PICK_CALLS[2] * 2, 4096) if confirmed else 64
        _PICK_CALLS[1] = _PICK_CALLS[0] + _PICK_CALLS[2]


def sample_sparse(vec: Any, u: np.ndarray, out: np.ndarray) -> None:
    """Per slot: a uniformly random legal action from the engine's sparse list (numpy)."""
    picks = (u * vec.legal_count).astype(np.int64)
    out[:] = vec.legal_index[np.arange(len(out)), picks]


def vector_rate(vec: Any, seconds: float, sampler: Any, seed: int = 0) -> float:
    """Slot-steps per second of ``vec.step`` with actions from ``sampler``."""
    rng = np.random.default_rng(seed)
    n = vec.num_envs
    actions = np.zeros(n, dtype=np.int64)
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(10):
            if sampler is sample_sparse:
                sampler(vec, rng.random(n), actions)
            else:
                sampler(vec.mask, rng.random(n), actions)
            vec.step(actions)
            steps += n
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per figure and round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (the median is reported)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 256, 1024])
    parser.add_argument(
        "--sampler", choices=("mask", "sparse"), default="mask",
        help="mask: read every mask byte; sparse: the engine's legal_index/legal_count",
    )
    args = parser.parse_args()
    sampler = sample_sparse if args.sampler == "sparse" else sample_legal
    encodings = {"flat": {}, "substeps": {"exchange_encoding": "substeps"}}
    machine = platform.processor() or platform.platform()
    print(f"machine: {platform.machine()}, {machine}; sampler {args.sampler}")
    for name, options in encodings.items():
        vecs = {n: vector.make("jaipur_v0", num_envs=n, seed=n, **options) for n in args.sizes}
        for vec in vecs.values():  # compile (or load from the cache) and warm up
            vector_rate(vec, 0.05, sampler)
        rates: dict[str, list[float]] = {"aec": [], **{f"vector {n}": [] for n in args.sizes}}
        for _ in range(args.rounds):
            rates["aec"].append(aec_rate(options, args.seconds))
            for n, vec in vecs.items():
                rates[f"vector {n}"].append(vector_rate(vec, args.seconds, sampler))
        aec = statistics.median(rates["aec"])
        print(f"\njaipur_v0 {name} ({vecs[args.sizes[0]].action_size} actions)")
        print("| loop | slot-steps/s | × AEC | bytes/slot |")
        print("|---|---:|---:|---:|")
        print(f"| AEC env | {aec:,.0f} | 1.0 | |")
        for n, vec in vecs.items():
            rate = statistics.median(rates[f"vector {n}"])
            print(f"| vector N={n} | {rate:,.0f} | {rate / aec:.1f} | {vec.slot_nbytes():,} |")


if __name__ == "__main__":
    main()
