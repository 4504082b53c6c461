"""RLlib sampling throughput: envs per env runner, and one remote env runner against two.

Needs the ``rllib`` extra. Measures, in one run on one machine, with the PPO config of
:func:`cardgames_env.integrations.rllib.build_config` (self-play, the masked module picking
every move, 256x256 networks):

* ``per runner`` — one env runner in this process (``MultiAgentEnvRunner.sample``) with
  1, 4, 8, 16... envs: env steps per wall second and per CPU second of this process
  (torch on one thread), including the module's forward passes and RLlib's episode
  bookkeeping;
* ``scale-out`` — an algorithm with two remote env runners (Ray actors, one process each):
  the same number of steps sampled on one of them, then on both at once; env steps per
  wall second of the driver, the ratio, and the CPU seconds the runners got per wall
  second (the cores the machine gave them).

Wall-clock figures: other work on the machine disturbs them, so state the load with them::

    python benchmarks/bench_rllib.py                                  # Gong Zhu
    python benchmarks/bench_rllib.py --env jaipur_v0 --option exchange_encoding=substeps
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

from cardgames_env.cli import parse_option  # noqa: E402 (after the thread setting)


def per_runner(
    env: str, options: dict[str, Any], envs: list[int], steps: int
) -> list[tuple[int, float, float]]:
    """Env steps per wall second and per CPU second of one local env runner, for each number of envs."""
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    from cardgames_env.integrations.rllib import build_config

    rows = []
    for n in envs:
        config = build_config(env, options, num_env_runners=0, envs_per_runner=n)
        runner = MultiAgentEnvRunner(config=config)
        runner.sample(num_timesteps=max(n * 20, 200))  # warm-up: first episodes, torch
        start, cpu = time.perf_counter(), time.process_time()
        episodes = runner.sample(num_timesteps=steps)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        sampled = sum(e.env_steps() for e in episodes)
        rows.append((n, sampled / seconds, sampled / cpu))
        runner.stop()
        print(f"per runner, {n:>3} envs: {sampled / seconds:6.0f} env steps per wall s, "
              f"{sampled / cpu:6.0f} per CPU s ({sampled} steps, {seconds:.1f} s wall, {cpu:.1f} s CPU)",
              flush=True)
    return rows


def scale_out(env: str, options: dict[str, Any], envs: int, steps: int, rounds: int) -> tuple[float, float]:
    """Env steps per second sampling on one remote env runner, then on two (best of ``rounds``)."""
    from cardgames_env.integrations.rllib import build_config

    config = build_config(env, options, num_env_runners=2, envs_per_runner=envs)
    algo = config.build_algo()
    group = algo.env_runner_group

    def sample(runner: Any) -> tuple[int, float]:
        cpu = time.process_time()
        sampled = sum(e.env_steps() for e in runner.sample(num_timesteps=steps))
        return sampled, time.process_time() - cpu

    group.foreach_env_runner(sample, local_env_runner=False)  # warm-up on both
    best = {1: 0.0, 2: 0.0}
    for _ in range(rounds):
        for k, ids in ((1, [1]), (2, [1, 2])):
            start = time.perf_counter()
            results = group.foreach_env_runner(sample, local_env_runner=False, remote_worker_ids=ids)
            seconds = time.perf_counter() - start
            sampled = sum(n for n, _ in results)
            cpu = sum(c for _, c in results)
            best[k] = max(best[k], sampled / seconds)
            # CPU seconds the runners got per wall second: the cores this machine gave them.
            print(f"scale-out, {k} runner(s) x {envs} envs: {sampled / seconds:6.0f} env steps per wall s, "
                  f"{sampled / cpu:6.0f} per runner CPU s, {cpu / seconds:.2f} cores used ({sampled} steps)",
                  flush=True)
    algo.stop()
    return best[1], best[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="gongzhu_v0")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--envs", default="1,4,8,16,32", help="envs per runner to try (per-runner table)")
    parser.add_argument("--steps", type=int, default=8000, help="env steps per measurement")
    parser.add_argument("--scale-envs", type=int, default=8, help="envs per runner in the scale-out test")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the scale-out test (best kept)")
    parser.add_argument("--skip-per-runner", action="store_true")
    parser.add_argument("--skip-scale-out", action="store_true")
    args = parser.parse_args()

    import ray

    options = dict(parse_option(o) for o in args.option)
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; ray {ray.__version__}; env {args.env} {options}")
    if not args.skip_per_runner:
        per_runner(args.env, options, [int(x) for x in args.envs.split(",")], args.steps)
    if not args.skip_scale_out:
        ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False, configure_logging=False)
        try:
            one, two = scale_out(args.env, options, args.scale_envs, args.steps, args.rounds)
        finally:
            ray.shutdown()
        print(f"scale-out: 1 runner {one:.0f}, 2 runners {two:.0f} env steps/s, ratio {two / one:.2f}x")
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
