"""Training throughput: ``cardgames train`` on the AEC envs vs on the batched engines, side by side.

For each env it runs ``train()`` twice in this process, one engine after the other, with the
game's config (opponents, PPO settings; ``--engine vector`` adds the config's ``vector``
section: 256 games, shorter rollouts, larger minibatches) for a fixed number of learner
steps, and reads the figures the run writes to ``summary.json``: learner steps per second
and env steps per second (learner and opponents) inside ``MaskablePPO.learn()``, PPO updates
included, evaluations and saves excluded. Figures, not tests: run it on a quiet machine::

    python benchmarks/bench_training.py                       # every env with a batched engine
    python benchmarks/bench_training.py --envs gongzhu_v0 --aec-steps 8192 --vector-steps 65536
    python benchmarks/bench_training.py --opponents random    # the engines alone, no heuristic
    python benchmarks/bench_training.py --repeat 3            # alternate the paths, keep each one's best
    python benchmarks/bench_training.py --envs jaipur_v0 --option exchange_encoding=substeps

Each run's ``summary.json`` also splits ``learn()``'s time into rollouts (engine, opponents,
the learner's forward passes: ``rollout_s``) and PPO's updates (``update_s``). The last
column is the ceiling that split puts on the speed-up: the batched path's env steps per second
if its rollouts cost nothing, over the AEC path's figure. PPO's updates cost the same per
learner step on both paths (same network, same epochs), so no engine can beat that ceiling;
``--vector-config FILE`` trains the batched side with other settings (fewer epochs, a smaller
network) to see what they buy; ``--batched-algo dmc`` trains it with Deep Monte-Carlo (one
gradient pass per decision, only the taken action's Q computed) against the AEC path's PPO::

    python benchmarks/bench_training.py --batched-algo dmc --vector-steps 65536
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import tempfile
from pathlib import Path

from bench_vector import machine  # type: ignore[import-not-found]  # the sibling script

from cardgames_env import vector
from cardgames_env.cli import parse_option


def run(
    env_name: str, engine: str, steps: int, opponents: str | None, seed: int, config: str | None = None,
    algo: str = "ppo", options: dict | None = None,
) -> dict:
    """Train ``steps`` learner steps with ``engine`` and ``algo`` and return the run's summary.json."""
    from cardgames_env.training.config import Overrides, resolve_config
    from cardgames_env.training.train import train

    overrides = Overrides(timesteps=steps, opponents=opponents, eval_games=4, engine=engine, algo=algo)
    with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(io.StringIO()):
        train(env_name, resolve_config(env_name, config, overrides), options=options, seed=seed, out=folder,
              progress=False, log=lambda _: None)
        return json.loads((Path(folder) / "summary.json").read_text())


def main() -> None:
    """Print the side-by-side table."""
    available = vector.available()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--envs", nargs="+", default=available)
    parser.add_argument("--aec-steps", type=int, default=4096, help="learner steps on the AEC path")
    parser.add_argument("--vector-steps", type=int, default=32768, help="learner steps on the batched path")
    parser.add_argument("--opponents", default=None, help="random, heuristic or selfplay (default: config)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="an env option for both paths, as for cardgames train (repeatable)",
    )
    parser.add_argument("--vector-config", default=None, help="a JSON config file for the batched runs only")
    parser.add_argument(
        "--batched-algo", choices=("ppo", "dmc"), default="ppo",
        help="the batched runs' learner: MaskablePPO (the AEC runs' too) or Deep Monte-Carlo (--algo dmc)",
    )
    parser.add_argument(
        "--repeat", type=int, default=1,
        help="runs of each path, alternating; each path's fastest run is shown (a shared machine's "
             "load only ever slows a run down)",
    )
    args = parser.parse_args()
    options = dict(parse_option(o) for o in args.option)
    print(f"Machine: {machine()}")
    print(f"Opponents: {args.opponents or 'each game config (selfplay: random + heuristic + snapshots)'}")
    print(f"Batched settings: {args.vector_config or 'each game config'}; "
          f"batched learner: {args.batched_algo}; AEC learner: ppo; env options: {options or 'defaults'}\n")
    print("| env | AEC learner steps/s | AEC env steps/s | AEC updates | batched learner steps/s "
          "| batched env steps/s | batched updates | speed-up (env steps) | ceiling with free rollouts |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.envs:
        aec_runs, batched_runs = [], []
        for _ in range(max(args.repeat, 1)):
            aec_runs.append(run(name, "aec", args.aec_steps, args.opponents, args.seed, options=options))
            batched_runs.append(
                run(name, "vector", args.vector_steps, args.opponents, args.seed, args.vector_config,
                    args.batched_algo, options)
            )
        aec = max(aec_runs, key=lambda summary: summary["env_steps_per_s"])
        batched = max(batched_runs, key=lambda summary: summary["env_steps_per_s"])
        ratio = batched["env_steps_per_s"] / aec["env_steps_per_s"]
        ceiling = batched["env_steps"] / max(batched["update_s"], 1e-9) / aec["env_steps_per_s"]
        print(
            f"| {name} | {aec['steps_per_s']:,.0f} | {aec['env_steps_per_s']:,.0f} | {_share(aec)} | "
            f"{batched['steps_per_s']:,.0f} | {batched['env_steps_per_s']:,.0f} | {_share(batched)} | "
            f"{ratio:.1f}x | {ceiling:.1f}x |",
            flush=True,
        )


def _share(summary: dict) -> str:
    """The share of ``learn()``'s time that PPO's updates took."""
    return f"{summary['update_s'] / max(summary['train_s'], 1e-9):.0%}"


if __name__ == "__main__":
    main()
