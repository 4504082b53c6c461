"""Strength of the search agent: a long ``cardgames eval`` split into chunks that can resume.

``python benchmarks/eval_search.py ENV --games N [--chunk C] [--workers W]`` plays exactly the
games of ``cardgames eval ENV --agent AGENT --vs OPPONENT --games N --seed S`` (deal ``S + k``,
seats rotated over each deal, every agent re-seeded from the deal and its seat), ``C`` games
at a time, each chunk in its own process and saved to ``--out`` as soon as it is done (a
rerun skips saved chunks), then prints the same summary line as ``cardgames eval`` for all
``N`` games. Use chunks that are a multiple of the player count. Figures, not tests::

    python benchmarks/eval_search.py red7_v0 --games 400 --chunk 100 --workers 2
    python benchmarks/eval_search.py gongzhu_v0 --games 1600 --chunk 200 --workers 2
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from cardgames_env.training.evaluate import GameOutcome, evaluate, summarize


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """``key=value`` env options (values read as JSON when they parse, else as text)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, _, text = pair.partition("=")
        try:
            options[key] = json.loads(text)
        except json.JSONDecodeError:
            options[key] = text
    return options


def run_chunk(env: str, agent: str, opponent: str, games: int, seed: int, first_block: int,
              options: dict[str, Any], path: str) -> str:
    """Play one chunk (deals ``seed + first_block ...``) and save its records as JSON."""
    start = time.perf_counter()
    result = evaluate(env, agent, opponent, games=games, seed=seed + first_block, options=options)
    records = [[seat, list(r.returns), list(r.points), r.steps] for seat, r in result.records]
    Path(path).write_text(json.dumps({"records": records, "seconds": time.perf_counter() - start}))
    return path


def main() -> None:
    """Run the chunks (in parallel), then print the pooled summary."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("env")
    parser.add_argument("--agent", default="search")
    parser.add_argument("--vs", default="heuristic")
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--out", default="runs/eval_search", help="folder of the saved chunks")
    args = parser.parse_args()
    options = parse_options(args.option)
    from cardgames_env.registry import load

    raw = load(args.env).raw_env(**options)
    n = len(raw.possible_agents)
    if args.chunk % n or args.games % args.chunk:
        raise SystemExit(f"--chunk must divide --games and be a multiple of {n} (the players)")
    tag = "_".join([args.env, args.agent, "vs", args.vs, f"s{args.seed}", *args.option])
    tag = tag.replace(":", "-").replace("/", "+")  # an agent may be a run folder's path
    out = Path(args.out) / tag
    out.mkdir(parents=True, exist_ok=True)
    jobs = []
    for k in range(args.games // args.chunk):
        path = out / f"chunk{k:03d}_{args.chunk}.json"
        if not path.exists():
            jobs.append((args.env, args.agent, args.vs, args.chunk, args.seed, k * args.chunk // n,
                         options, str(path)))
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for done in pool.map(run_chunk, *zip(*jobs)) if jobs else ():
            print(f"saved {done}", flush=True)
    records: list[tuple[int, GameOutcome]] = []
    for k in range(args.games // args.chunk):
        data = json.loads((out / f"chunk{k:03d}_{args.chunk}.json").read_text())
        for seat, returns, points, steps in data["records"]:
            records.append((seat, GameOutcome(tuple(returns), tuple(points), steps)))
    from cardgames_env.training.config import score_by

    result = summarize(raw.metadata["name"], args.agent, args.vs, n, records, score_by(raw.info.name))
    print(result.summary())


if __name__ == "__main__":
    main()
