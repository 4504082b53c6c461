"""How far skill goes in Red7's basic two-player game: an exact solver against an agent.

The basic game deals every card it will use before the first move (no card is drawn), so
once the hands are known the rest of a deal is a finite two-player game of perfect
information that an exact search settles. This script plays the games of ``cardgames eval
red7_v0 --agent X --vs OPPONENT --games N --seed S`` (deal ``S + k``, seats exchanged over
each deal, every agent re-seeded from the deal and its seat) with one of two players in the
measured seat:

* ``--player oracle``: sees every card (it reads the real deal: a measuring stick, never an
  agent) and plays a move that wins against every reply where one exists, else any move (the
  heuristic's cheapest among equals). Its win rate against an opponent bounds what any player
  of that seat can score against it: it is the best result the deals allow.
* ``--player pimc``: perfect-information Monte Carlo, a fair player. It sees only its seat's
  information set: it re-deals the hidden cards ``--determinizations`` times, solves every
  move on each re-deal exactly, and plays the move that wins on the most of them (the
  heuristic's cheapest among equals).
* ``--player hybrid``: a fair player that adds exact endgames to the default ``search``: while
  a hand holds more than ``--hand-limit`` cards it plays the default compiled search; from
  there on, perfect-information Monte Carlo as above, with as many re-deals as fit in 80% of
  ``--time`` CPU seconds (at most ``--determinizations``; at least one).

The solver is an alpha-beta search over win and loss on the batched engine's compiled turn
(``kernel._write_mask`` lists the legal actions, ``kernel._apply`` plays one), with a table of
the positions already solved. Figures, not tests::

    python benchmarks/red7_ceiling.py --player oracle --vs search:engine=python --games 400 --workers 2
    python benchmarks/red7_ceiling.py --player pimc --vs search:engine=python --games 200 --workers 2
    python benchmarks/red7_ceiling.py --player hybrid --hand-limit 5 --determinizations 200 \
        --games 400 --workers 2
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
from numba import njit

from cardgames_env.agents.search import SearchAgent
from cardgames_env.core.game import random_positions
from cardgames_env.envs.red7 import kernel, rules
from cardgames_env.envs.red7.encoding import ACTIONS, move_action
from cardgames_env.envs.red7.heuristic import BY_PREFERENCE
from cardgames_env.registry import load
from cardgames_env.training.evaluate import MatchResult, evaluate, summarize

TABLE_BITS = 20
"""The table of solved positions holds ``2**TABLE_BITS`` entries (a new entry replaces an old)."""
MAX_PLIES = 64
"""Deepest line the solver follows (a basic deal ends within 16 turns)."""


@njit
def _position_key(row: np.ndarray) -> int:
    """A hash of everything the rest of a basic two-player deal depends on: both hands, both
    palettes, the rule and the seat to move."""
    key = row[kernel.F_HANDS] * 0x9E3779B97F4A7C15 ^ row[kernel.F_HANDS + 1] * 0xC2B2AE3D27D4EB4F
    key ^= row[kernel.F_PALETTES] * 0x165667B19E3779F9 ^ row[kernel.F_PALETTES + 1] * 0x27D4EB2F165667C5
    return key ^ (row[kernel.F_RULE] * 2 + row[kernel.F_PLAYER]) * 0x94D049BB133111EB


@njit
def _table_entry(row: np.ndarray, entry: np.ndarray) -> None:
    """Write the position's full key (hands, palettes, rule and seat) into ``entry``."""
    entry[0] = row[kernel.F_HANDS]
    entry[1] = row[kernel.F_HANDS + 1]
    entry[2] = row[kernel.F_PALETTES]
    entry[3] = row[kernel.F_PALETTES + 1]
    entry[4] = row[kernel.F_RULE] * 2 + row[kernel.F_PLAYER] + 1  # never 0: 0 is an empty entry


@njit
def _solve(rows: np.ndarray, masks: np.ndarray, ply: int, cfg: np.ndarray, keys: np.ndarray,
           values: np.ndarray, probe: np.ndarray) -> float:
    """+1 if the seat to move in ``rows[ply]`` wins the deal against every defence, else -1.
    ``rows[ply + 1:]`` and ``masks[ply:]`` are work space; ``keys``/``values`` the table of
    solved positions. Compiled at each run: Numba does not cache a recursive function."""
    row = rows[ply]
    slot = _position_key(row) & (keys.shape[0] - 1)
    _table_entry(row, probe[ply])
    if (keys[slot] == probe[ply]).all():
        return values[slot]
    mover = row[kernel.F_PLAYER]
    kernel._write_mask(row, cfg, masks[ply])
    best = -1.0  # giving up (or no other move) loses
    for action in BY_PREFERENCE:
        if action == kernel.GIVE_UP or not masks[ply, action]:
            continue
        child = rows[ply + 1]
        child[:] = row
        kernel._apply(child, cfg, action)
        if child[kernel.F_STATUS] == kernel.GAME_OVER:
            value = kernel._seat_return(child, cfg, mover)
        else:
            value = _solve(rows, masks, ply + 1, cfg, keys, values, probe)
            if child[kernel.F_PLAYER] != mover:
                value = -value
        if value > best:
            best = value
            if best >= 1.0:
                break
    keys[slot] = probe[ply]
    values[slot] = best
    return best


class Solver:
    """Exact values of Red7 basic two-player positions (a table of solved positions kept
    across calls: a position's value never changes)."""

    def __init__(self) -> None:
        self.engine = kernel.Red7Engine(1, seed=0)
        self.rows = np.zeros((MAX_PLIES, kernel.ROW), dtype=np.int64)
        self.masks = np.zeros((MAX_PLIES, ACTIONS.size), dtype=np.bool_)
        self.keys = np.zeros((1 << TABLE_BITS, 5), dtype=np.int64)
        self.values = np.zeros(1 << TABLE_BITS, dtype=np.float64)
        self.probe = np.zeros((MAX_PLIES, 5), dtype=np.int64)

    def move_values(self, state: rules.State, moves: list[Any]) -> np.ndarray:
        """+1 or -1 for the seat to move in ``state`` after each of ``moves``, both seats
        playing perfectly from there."""
        self.engine.load(0, state, check=False)
        root = self.engine.slots[0]
        mover = state.player
        out = np.empty(len(moves))
        cfg = self.engine._cfg
        for i, move in enumerate(moves):
            row = self.rows[0]
            row[:] = root
            kernel._apply(row, cfg, move_action(move))
            if row[kernel.F_STATUS] == kernel.GAME_OVER:
                out[i] = kernel._seat_return(row, cfg, mover)
                continue
            value = _solve(self.rows, self.masks, 0, cfg, self.keys, self.values, self.probe)
            out[i] = value if row[kernel.F_PLAYER] == mover else -value
        return out


def hand_sizes(state: rules.State) -> list[int]:
    """How many cards each seat holds."""
    return [hand.bit_count() for hand in state.hands]


class SolverPlayer(SearchAgent):
    """The oracle (reads the real deal) or perfect-information Monte Carlo (re-deals the
    hidden cards): see the module docstring. Moves are the heuristic's order of preference,
    so ties go to the cheapest move."""

    def __init__(self, env: Any, oracle: bool, determinizations: int, seed: int | None = None,
                 hand_limit: int | None = None, seconds: float = 0.1):
        super().__init__(env, "search", seed=seed)
        self.oracle = oracle
        self.determinizations = determinizations
        self.hand_limit = hand_limit
        """``None``: solve every decision; else the default search while a hand is larger."""
        self.solve_seconds = seconds
        """CPU seconds of a solved decision (``hand_limit`` set; the search keeps its own cap)."""
        self.solver = Solver()

    def _search(self, state: Any) -> Any:
        me = self.rules.current_player(state)
        seen = state if self.oracle else self.infoset(state, me)
        if self.hand_limit is not None and max(hand_sizes(seen)) > self.hand_limit:
            return super()._search(state)  # the default compiled search
        moves = self.searched_moves(seen)
        if len(moves) == 1:
            return moves[0]
        if self.oracle:
            return moves[int(np.argmax(self.solver.move_values(state, moves)))]
        wins = np.zeros(len(moves))
        deadline = time.thread_time() + 0.8 * self.solve_seconds if self.hand_limit is not None else math.inf
        done = 0
        while done < self.determinizations and (done == 0 or time.thread_time() < deadline):
            wins += self.solver.move_values(self.resample(seen, me, self.rng), moves)
            done += 1
        return moves[int(np.argmax(wins))]


def play_chunk(player: str, opponent: str, games: int, seed: int, determinizations: int,
               hand_limit: int, seconds: float) -> list:
    """Play ``games`` games from deal ``seed`` on; return their records."""
    raw = load("red7_v0").raw_env()
    if raw.config != rules.Config():
        raise SystemExit("the solver plays the default variant only (two players, basic, strict)")
    agent = SolverPlayer(raw, player == "oracle", determinizations,
                         hand_limit=hand_limit if player == "hybrid" else None, seconds=seconds)
    if player == "hybrid":  # compile the solver before the first timed decision
        late = next(state for state in random_positions(rules, raw.config, seed=0, games=4, every=1, limit=20)
                    if sorted(hand_sizes(state)) == [3, 4])
        agent.solver.move_values(late, list(rules.legal_moves(late)))
    return evaluate(raw, agent, opponent, games=games, seed=seed, agent_name=player).records


def main() -> None:
    """Play the chunks (in parallel) and print the pooled summary."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--player", choices=("oracle", "pimc", "hybrid"), default="oracle")
    parser.add_argument("--vs", default="search:engine=python")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--determinizations", type=int, default=30)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--hand-limit", type=int, default=5,
                        help="hybrid: solve once no hand holds more cards than this")
    parser.add_argument("--time", type=float, default=0.1,
                        help="hybrid: CPU seconds a solved decision may take (80%% of it for re-deals)")
    args = parser.parse_args()
    if args.games <= 0 or args.games % (2 * args.workers):
        parser.error("--games must be a positive multiple of 2 x --workers")
    if args.determinizations <= 0 or args.hand_limit < 0 or args.time <= 0:
        parser.error("--determinizations and --time must be positive, --hand-limit at least 0")
    chunk = args.games // args.workers
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; load {os.getloadavg()[0]:.2f}")
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        parts = pool.map(play_chunk, [args.player] * args.workers, [args.vs] * args.workers,
                         [chunk] * args.workers, [args.seed + k * chunk // 2 for k in range(args.workers)],
                         [args.determinizations] * args.workers, [args.hand_limit] * args.workers,
                         [args.time] * args.workers)
        records = [record for part in parts for record in part]
    result: MatchResult = summarize("red7_v0", args.player, args.vs, 2, records)
    low, high = result.win_ci
    print(f"{args.player} vs {args.vs}: win rate {result.win_rate:.3f} [{low:.3f}, {high:.3f}] over "
          f"{result.games} games (W-D-L {result.wins}-{result.draws}-{result.losses}); "
          f"{time.perf_counter() - start:.0f} s; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
