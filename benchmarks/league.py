"""A strength league that resumes: the games of ``cardgames league``, one pair of agents at a time.

``python benchmarks/league.py ENV --agents A,B,C --games G --out DIR`` plays every pair of the
agents exactly as ``cardgames league ENV --agents A,B,C --games G`` does (deals ``seed,
seed + 1, ...``, each twice with the seats exchanged; more players: the seats alternate A, B,
A, B... and a game scores A against B as the share of (A seat, B seat) pairs A finished ahead
of), saves each pair's result to ``DIR`` as soon as it is done (a rerun skips saved pairs;
``--workers`` pairs run at once), then prints:

* the Elo ladder (Bradley-Terry, ``random`` anchored at 1000, as ``cardgames league``);
* the head-to-head table: the row agent's score against the column agent with a 95% Wilson
  interval (with more players a game's score is a share, whose variance is at most a
  win-or-loss's: the interval is conservative);

and draws the ladder to ``DIR/elo_<env>.png``. Figures, not tests::

    python benchmarks/league.py red7_v0 --agents random,heuristic,search:engine=python,search,pretrained \\
        --games 40 --out runs/league/red7 --workers 2
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from cardgames_env.cli import parse_option
from cardgames_env.training.evaluate import LeagueResult, league
from cardgames_env.training.stats import bradley_terry, elo_from_strengths, wilson_interval


def play_pair(env: str, first: str, second: str, games: int, seed: int, options: dict[str, Any],
              path: str) -> str:
    """Play one pair's games (``first`` against ``second``) and save the score to ``path``."""
    start = time.perf_counter()
    result = league(env, [first, second], games_per_pair=games, seed=seed, options=options)
    record = {"agents": [first, second], "score": float(result.wins[0, 1]),
              "games": int(result.games[0, 1]), "seconds": time.perf_counter() - start}
    Path(path).write_text(json.dumps(record), encoding="utf-8")
    return path


def pair_path(out: Path, i: int, j: int, agents: list[str]) -> Path:
    """Where the result of agents ``i`` and ``j`` is saved."""
    return out / f"pair_{i}_{j}_{agents[i]}_vs_{agents[j]}.json".replace(":", "-")


def head_to_head(names: list[str], wins: np.ndarray, games: np.ndarray) -> str:
    """The head-to-head table as markdown: row's score against column, 95% Wilson interval."""
    lines = ["| | " + " | ".join(f"`{n}`" for n in names) + " |", "|---" * (len(names) + 1) + "|"]
    for i, name in enumerate(names):
        cells = []
        for j in range(len(names)):
            if i == j or not games[i, j]:
                cells.append("—")
                continue
            low, high = wilson_interval(wins[i, j], int(games[i, j]))
            cells.append(f"{wins[i, j] / games[i, j]:.2f} [{low:.2f}, {high:.2f}]")
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    """Play the missing pairs, then print the ladder and the head-to-head table."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("env")
    parser.add_argument("--agents", required=True, help="comma-separated agent names")
    parser.add_argument("--games", type=int, default=40, help="games per pair (even)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--out", required=True, help="folder of the saved pairs and the picture")
    args = parser.parse_args()
    if args.games <= 0 or args.games % 2:
        raise SystemExit("--games must be a positive even number (each deal is played twice)")
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    options = dict(parse_option(text) for text in args.option)  # as cardgames league reads them
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    k = len(agents)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k) if not pair_path(out, i, j, agents).exists()]
    jobs = [(args.env, agents[i], agents[j], args.games, args.seed, options,
             str(pair_path(out, i, j, agents))) for i, j in pairs]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for done in pool.map(play_pair, *zip(*jobs)) if jobs else ():
            print(f"saved {done}", flush=True)
    wins, games = np.zeros((k, k)), np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            record = json.loads(pair_path(out, i, j, agents).read_text(encoding="utf-8"))
            wins[i, j], wins[j, i] = record["score"], record["games"] - record["score"]
            games[i, j] = games[j, i] = record["games"]
    anchor = agents.index("random") if "random" in agents else None
    elo = elo_from_strengths(bradley_terry(wins, prior=1.0), anchor=anchor)
    result = LeagueResult(args.env, agents, wins, games, elo)
    print(f"{args.env}: {args.games} games per pair, seed {args.seed}, {platform.machine()}")
    print(result.table())
    print()
    print(head_to_head(agents, wins, games))
    from cardgames_env.training.plots import plot_elo

    print(f"saved {plot_elo(result, out / f'elo_{args.env}.png')}")


if __name__ == "__main__":
    main()
