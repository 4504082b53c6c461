"""RLlib PPO with its env runners on the batched engines (the ``rllib`` extra).

:func:`cardgames_env.integrations.rllib.build_config` returns an ordinary ``PPOConfig``: for a
learner against fixed opponents every env runner is RLlib's single-agent runner over
``gymnasium.make_vec("cardgames_env:cardgames/<env>", num_envs=envs_per_runner, ...)`` (the
batched engine; the opponents decide inside, in batch) and the masked PPO module sees the
learner's decisions only. Change the config freely before building the algorithm; the same
call scales to a Ray cluster (``ray.init(address="auto")``, more ``num_env_runners``)::

    pip install -e ".[rllib]"
    python examples/rllib_vector.py --env-id red7_v0 --opponents heuristic --iterations 20

``cardgames train red7_v0 --backend rllib --rllib-setup heuristic`` runs the same thing and
saves a checkpoint that ``cardgames eval`` plays.
"""

from __future__ import annotations

import argparse
import os

from cardgames_env.core.extras import exit_unless_installed

exit_unless_installed("examples/rllib_vector.py", "rllib", ["ray.rllib", "torch"])
os.environ.setdefault("OMP_NUM_THREADS", "1")

import ray  # noqa: E402

from cardgames_env.integrations.rllib import build_config  # noqa: E402


def main(argv: list[str] | None = None) -> list[float]:
    """Train for ``--iterations``; return the mean episode return after each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="red7_v0")
    parser.add_argument("--opponents", choices=("random", "heuristic"), default="heuristic")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--num-env-runners", type=int, default=0, help="0: sample in this process")
    parser.add_argument("--envs-per-runner", type=int, default=64, help="games in each runner's engine")
    parser.add_argument("--train-batch", type=int, default=4096)
    parser.add_argument("--hidden", type=int, default=256)
    args = parser.parse_args(argv)
    config = build_config(
        args.env_id, setup=args.opponents, num_env_runners=args.num_env_runners,
        envs_per_runner=args.envs_per_runner, train_batch=args.train_batch,
        minibatch=min(512, args.train_batch), hidden=(args.hidden, args.hidden),
    )
    ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
    means: list[float] = []
    try:
        algo = config.build_algo()
        for iteration in range(args.iterations):
            result = algo.train()
            runners = result["env_runners"]
            means.append(float(runners.get("episode_return_mean", float("nan"))))
            sampled = int(runners["num_env_steps_sampled_lifetime"])
            print(f"iteration {iteration + 1}: {sampled:,} learner decisions, "
                  f"episode return mean {means[-1]:+.3f}", flush=True)
        algo.stop()
    finally:
        ray.shutdown()
    return means


if __name__ == "__main__":
    main()
