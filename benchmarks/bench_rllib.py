"""RLlib sampling throughput: the env runners on the batched engines against the multi-agent
adapter, envs per env runner, and one remote env runner against two.

Needs the ``rllib`` extra. Measures, in one run on one machine, with the PPO configs of
:func:`cardgames_env.integrations.rllib.build_config` (256x256 networks):

* ``engines`` (``--compare``) — a learner against heuristic seats, one env runner in this
  process, on the multi-agent adapter (``engine="aec"``: RLlib's multi-agent runner steps
  AEC envs, the frozen heuristic module picks the opponents' moves) and on the batched engine
  (``engine="vector"``: the single-agent runner over the gymnasium vector env, the heuristic
  deciding inside in batch), for each number of envs per runner: env steps (every decision,
  learner and opponents) and the learner's decisions per wall second and per CPU second;

and, in self-play (the masked module picking every move):

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
from collections.abc import Callable
from typing import Any

# One thread for torch and for the engines in this process, as build_config gives every remote
# env runner: the figures are those of one runner on one core.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

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


def engines(env: str, options: dict[str, Any], envs: list[int], steps: int, rounds: int) -> None:
    """Env steps per second of one local env runner, a learner against heuristic seats, on the
    multi-agent adapter and on the batched engine, side by side (best of ``rounds``)."""
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    from cardgames_env.integrations.rllib import build_config

    def measure(runner: Any, count: Callable[[Any, Any], tuple[int, int]]) -> tuple[float, ...]:
        """Best (env steps/s, per CPU s, learner decisions/s, per CPU s) over the rounds."""
        runner.sample(num_timesteps=min(steps, 2000))  # warm-up: first episodes, torch, kernels
        best: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
        for _ in range(rounds):
            mark = getattr(runner.env.unwrapped, "env_steps", 0)
            start, cpu = time.perf_counter(), time.process_time()
            episodes = runner.sample(num_timesteps=steps)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            learner, every = count(episodes, mark)
            if every / seconds > best[0]:
                best = (every / seconds, every / cpu, learner / seconds, learner / cpu)
        runner.stop()
        return best

    def aec_count(episodes: Any, mark: Any) -> tuple[int, int]:
        """The learner module's decisions and every decision of multi-agent episodes."""
        learner = sum(len(e.agent_episodes[a]) for e in episodes for a in e.agent_episodes
                      if e.module_for(a) == "learner")
        return learner, sum(e.env_steps() for e in episodes)

    print("| envs per runner | path | env steps per wall s (per CPU s) | learner decisions per wall s "
          "(per CPU s) |\n|---|---|---:|---:|")
    for n in envs:
        aec = MultiAgentEnvRunner(config=build_config(env, options, setup="heuristic", engine="aec",
                                                      envs_per_runner=n))
        vector = SingleAgentEnvRunner(config=build_config(env, options, setup="heuristic", engine="vector",
                                                          envs_per_runner=n))

        def vector_count(episodes: Any, mark: int, vector: Any = vector) -> tuple[int, int]:
            """The learner's decisions (the episodes' steps) and the engine's decision counter."""
            return sum(e.env_steps() for e in episodes), vector.env.unwrapped.env_steps - mark

        rows = {"multi-agent adapter (AEC)": measure(aec, aec_count),
                "batched engine (CardGamesVectorEnv)": measure(vector, vector_count)}
        for path, (every, every_cpu, learner, learner_cpu) in rows.items():
            print(f"| {n} | {path} | {every:,.0f} ({every_cpu:,.0f}) | {learner:,.0f} ({learner_cpu:,.0f}) |",
                  flush=True)


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
    parser.add_argument("--compare", default=None, metavar="N,N",
                        help="envs per runner of the engines comparison (learner against heuristics)")
    parser.add_argument("--skip-per-runner", action="store_true")
    parser.add_argument("--skip-scale-out", action="store_true")
    args = parser.parse_args()

    import ray

    options = dict(parse_option(o) for o in args.option)
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; ray {ray.__version__}; env {args.env} {options}")
    if args.compare:
        engines(args.env, options, [int(x) for x in args.compare.split(",")], args.steps, args.rounds)
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
