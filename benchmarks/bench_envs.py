"""Throughput of every registered env, side by side with PettingZoo classic and OpenSpiel.

Measures, in one run on one machine:

* ``env`` — random play through the wrapped ``env()`` (the three PettingZoo wrappers), reading
  the observation and the action mask at every step (steps/s);
* ``engine`` — raw rules-engine playouts with uniformly random legal moves (games/s);
* ``mask`` — median time of one action-mask computation (microseconds);
* ``stock wrappers`` — the same loop over the raw env under PettingZoo's own three wrappers
  (``env()`` uses subclasses of them that read the hot attributes directly);
* the same ``env`` loop over PettingZoo's ``tictactoe_v3`` and ``texas_holdem_v4`` and, when
  ``open_spiel`` is installed, OpenSpiel's ``hearts`` (``pass_cards=False``) filling its
  information-state tensor at every decision through the C++ observer
  (``open_spiel.python.observation.make_observation``, written straight into a numpy array:
  OpenSpiel's fastest documented path) and reading ``legal_actions_mask``; for reference
  also the slower ``information_state_tensor()`` path, which builds a Python list per call.

It prints a Markdown table with the ratios against ``tictactoe_v3`` and OpenSpiel hearts
(the C++ observer path).
Rates are per CPU second of this process (``time.process_time``) and each figure is the best
of a few rounds, so other work on the machine disturbs the comparison as little as possible.
Figures, not tests: run it on a quiet machine::

    python benchmarks/bench_envs.py            # every env, best of 3 x 2 s per figure
    python benchmarks/bench_envs.py --seconds 1 --rounds 1 --envs gongzhu_v0
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from cardgames_env.core.game import CHANCE
from cardgames_env.registry import ALL_ENVS, load


def aec_steps_per_second(make: Callable[[], Any], seconds: float, seed: int = 0) -> float:
    """Random play through an AEC env, reading observation and mask every step."""
    env = make()
    rng = np.random.default_rng(seed)
    steps = 0
    episode = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        env.reset(seed=seed + episode)
        episode += 1
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            _ = obs["observation"]
            # The 0/1 int8 mask viewed as bool: numpy's fast path for nonzero (identical result).
            legal = np.flatnonzero(obs["action_mask"].view(np.bool_))
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
    return steps / (time.process_time() - start)


def engine_games_per_second(name: str, options: dict[str, Any], seconds: float) -> float:
    """Raw rules-engine playouts (no encoding, no env): games/s."""
    rules = load(name).raw_env(**options).rules
    config = rules.Config(**options)
    rng = np.random.default_rng(0)
    games = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        state = rules.new_game(config, rules.sample_deal(config, rng))
        while not rules.is_terminal(state):
            if rules.current_player(state) == CHANCE:
                state = rules.apply_deal(state, rules.sample_deal(state, rng))
                continue
            moves = rules.legal_moves(state)
            state = rules.apply_move(state, moves[rng.integers(len(moves))])
        games += 1
    return games / (time.process_time() - start)


def median_mask_microseconds(name: str, options: dict[str, Any], samples: int = 2000) -> float:
    """Median time of one ``legal_action_mask`` call over states met in random play."""
    env = load(name).raw_env(**options)
    rng = np.random.default_rng(1)
    times: list[float] = []
    env.reset(seed=1)
    while len(times) < samples:
        if not env.agents:
            env.reset()
            continue
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        decision = env._decision
        t = time.process_time()
        mask = env.encoding.legal_action_mask(decision)
        times.append(time.process_time() - t)
        legal = np.flatnonzero(mask.view(np.bool_))
        env.step(int(legal[rng.integers(legal.size)]))
    return statistics.median(times) * 1e6


def stock_wrapped(module: Any, options: dict[str, Any]) -> Any:
    """The raw env under PettingZoo's own three wrappers (what ``env()`` improves on)."""
    from pettingzoo.utils import wrappers

    env: Any = wrappers.TerminateIllegalWrapper(module.raw_env(**options), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env))


def openspiel_hearts_steps_per_second(
    seconds: float, observer: bool = True, clock: Callable[[], float] = time.process_time
) -> float | None:
    """OpenSpiel hearts without passing: the information-state tensor and the mask every decision.

    Args:
        seconds: time to measure for, on ``clock``.
        observer: fill the tensor with the C++ observer into one numpy array (OpenSpiel's
            fastest documented path); ``False`` calls ``information_state_tensor()``, which
            returns a new Python list each time.
        clock: ``time.process_time`` (CPU time, default) or ``time.perf_counter`` (wall time,
            for tables whose other subjects are timed on the wall clock).

    Returns:
        Decisions per second, or ``None`` when open_spiel is not installed.
    """
    try:
        import pyspiel
        from open_spiel.python.observation import make_observation
    except ImportError:
        return None
    game = pyspiel.load_game("hearts", {"pass_cards": False})
    # Hearts provides the information-state tensor only: the perfect-recall observer fills it.
    info_state = pyspiel.IIGObservationType(
        perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
    )
    tensor_of = make_observation(game, info_state) if observer else None
    rng = np.random.default_rng(0)
    steps = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            player = state.current_player()
            if tensor_of is not None:
                tensor_of.set_from(state, player)  # writes into tensor_of.tensor (float32)
                _ = tensor_of.tensor
            else:
                _ = np.asarray(state.information_state_tensor(player), dtype=np.float32)
            mask = np.asarray(state.legal_actions_mask(player), dtype=np.int8)
            legal = np.flatnonzero(mask.view(np.bool_))
            state.apply_action(int(legal[rng.integers(legal.size)]))
            steps += 1
    return steps / (clock() - start)


def interleaved_best(subjects: dict[str, Callable[[], float | None]], rounds: int) -> dict[str, float | None]:
    """Measure every subject once per round, round after round, and keep each one's best.

    Interleaving spreads any disturbance from other work on the machine over all subjects
    instead of penalising whichever happened to run during it.
    """
    best: dict[str, float | None] = {name: None for name in subjects}
    for _ in range(rounds):
        for name, measure in subjects.items():
            value = measure()
            if value is not None and (best[name] is None or value > best[name]):  # type: ignore[operator]
                best[name] = value
    return best


def main() -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="duration of each measurement")
    parser.add_argument("--rounds", type=int, default=3, help="measurements per figure (best kept)")
    parser.add_argument("--envs", default=",".join(ALL_ENVS), help="comma-separated env names")
    args = parser.parse_args()
    names = [n.strip() for n in args.envs.split(",") if n.strip()]
    modules = {name: load(name) for name in names}  # fails early on an unknown name

    from pettingzoo.classic import tictactoe_v3

    try:
        from pettingzoo.classic import texas_holdem_v4
    except ImportError:  # rlcard missing
        texas_holdem_v4 = None

    seconds, rounds = args.seconds, args.rounds
    print(f"# Env throughput ({platform.machine()}, Python {platform.python_version()}, "
          f"best of {rounds} x {seconds:g} s)\n")

    def env_rate(make: Callable[[], Any]) -> float:
        return aec_steps_per_second(make, seconds)

    rows = [
        "| env | env steps/s | × tictactoe_v3 | × OpenSpiel hearts | stock wrappers steps/s (×ttt) "
        "| engine games/s | mask µs (median) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    subjects: dict[str, Callable[[], float | None]] = {
        "tictactoe_v3": lambda: env_rate(tictactoe_v3.env),
        "texas_holdem_v4": lambda: env_rate(texas_holdem_v4.env) if texas_holdem_v4 else None,
        "hearts": lambda: openspiel_hearts_steps_per_second(seconds),
        "hearts_lists": lambda: openspiel_hearts_steps_per_second(seconds, observer=False),
    }
    bench_options: dict[str, dict[str, Any]] = {}
    for name, module in modules.items():
        options = dict(getattr(module, "BENCH_OPTIONS", {}))
        bench_options[name] = options
        subjects[f"env:{name}"] = lambda m=module, o=options: env_rate(lambda: m.env(**o))
        subjects[f"stock:{name}"] = lambda m=module, o=options: env_rate(lambda: stock_wrapped(m, o))
        subjects[f"engine:{name}"] = lambda n=name, o=options: engine_games_per_second(n, o, seconds)
    best = interleaved_best(subjects, rounds)
    ttt, holdem, hearts = best["tictactoe_v3"], best["texas_holdem_v4"], best["hearts"]
    assert ttt is not None
    for name in modules:
        options = bench_options[name]
        label = name + (" " + ",".join(f"{k}={v}" for k, v in options.items()) if options else "")
        steps, games, stock = best[f"env:{name}"], best[f"engine:{name}"], best[f"stock:{name}"]
        assert steps is not None and games is not None and stock is not None
        mask = median_mask_microseconds(name, options)
        vs_hearts = f"{steps / hearts:.2f}" if hearts else "–"
        rows.append(
            f"| {label} | {steps:,.0f} | {steps / ttt:.2f} | {vs_hearts} | {stock:,.0f} ({stock / ttt:.2f}) "
            f"| {games:,.1f} | {mask:.1f} |"
        )
    rows.append(f"| tictactoe_v3 (PettingZoo) | {ttt:,.0f} | 1.00 | – | – | – | – |")
    if holdem is not None:
        rows.append(f"| texas_holdem_v4 (PettingZoo) | {holdem:,.0f} | {holdem / ttt:.2f} | – | – | – | – |")
    if hearts is not None:
        rows.append(
            f"| hearts (OpenSpiel, C++ observer + mask) | {hearts:,.0f} | {hearts / ttt:.2f} | 1.00 "
            "| – | – | – |"
        )
    lists = best["hearts_lists"]
    if lists is not None and hearts is not None:
        rows.append(
            f"| hearts (OpenSpiel, `information_state_tensor()` lists + mask) | {lists:,.0f} "
            f"| {lists / ttt:.2f} | {lists / hearts:.2f} | – | – | – |"
        )
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
