"""A TorchRL data collector over the batched engines' gymnasium vector env.

TorchRL's ``GymWrapper`` takes the vector env as it is (one batched TorchRL env of
``num_envs`` games); ``autoreset_mode="Disabled"`` lets TorchRL restart finished games itself
(``reset(options={"reset_mask": ...})``), which it prefers over gymnasium's autoresets. The
policy is a small MLP whose logits go through TorchRL's ``MaskedCategorical`` with the env's
``action_mask``, so it only ever picks legal actions; ``RewardSum`` adds each game's return.
The collector gathers batches of learner decisions, ready for any TorchRL loss::

    pip install -e ".[torchrl]"          # the torchrl extra (no dependency of the package)
    python examples/torchrl_collector.py --env-id gongzhu_v0 --opponents heuristic --frames 20000
"""

from __future__ import annotations

import argparse
import time

from cardgames_env.core.extras import exit_unless_installed

exit_unless_installed("examples/torchrl_collector.py", "torchrl", ["torch", "torchrl", "tensordict"])

import gymnasium  # noqa: E402
import torch  # noqa: E402
from tensordict.nn import TensorDictModule, TensorDictSequential  # noqa: E402
from torchrl.collectors import Collector  # noqa: E402
from torchrl.envs import GymWrapper, RewardSum, TransformedEnv  # noqa: E402
from torchrl.envs.libs.gym import set_gym_backend  # noqa: E402
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor  # noqa: E402

import cardgames_env  # noqa: E402, F401  (registers "cardgames/<env>" with gymnasium)


def make_env(env_id: str, num_envs: int, opponents: str, seed: int) -> TransformedEnv:
    """The vector env as one batched TorchRL env (``batch_size == [num_envs]``)."""
    venv = gymnasium.make_vec(f"cardgames/{env_id}", num_envs=num_envs, opponents=opponents,
                              autoreset_mode="Disabled")
    with set_gym_backend("gymnasium"):
        env = TransformedEnv(GymWrapper(venv, categorical_action_encoding=True), RewardSum())
    env.set_seed(seed)
    return env


def make_policy(env: TransformedEnv, hidden: int) -> ProbabilisticActor:
    """An MLP over the observation; illegal actions get no probability (``MaskedCategorical``)."""
    observation_size = env.observation_spec["observation"].shape[-1]
    num_actions = env.action_spec.space.n
    network = MLP(in_features=observation_size, out_features=num_actions, num_cells=[hidden] * 2)
    logits = TensorDictModule(network, in_keys=["observation"], out_keys=["logits"])
    legal = TensorDictModule(lambda mask: mask.bool(), in_keys=["action_mask"], out_keys=["mask"])
    return ProbabilisticActor(
        TensorDictSequential(logits, legal), in_keys=["logits", "mask"], out_keys=["action"],
        distribution_class=MaskedCategorical, return_log_prob=True,
    )


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Collect ``--frames`` learner decisions; print and return what the batches held."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="red7_v0")
    parser.add_argument("--opponents", default="heuristic")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--frames-per-batch", type=int, default=2048)
    parser.add_argument("--frames", type=int, default=8192)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    env = make_env(args.env_id, args.num_envs, args.opponents, args.seed)
    policy = make_policy(env, args.hidden)
    collector = Collector(env, policy, frames_per_batch=args.frames_per_batch, total_frames=args.frames,
                          auto_register_policy_transforms=False)
    frames = episodes = 0
    returns = 0.0
    start = time.perf_counter()
    for batch in collector:
        legal = batch["action_mask"].bool().gather(-1, batch["action"].unsqueeze(-1))
        assert legal.all(), "the masked policy picked an illegal action"
        done = batch["next", "done"].squeeze(-1)
        frames += batch.numel()
        episodes += int(done.sum())
        returns += float(batch["next", "episode_reward"].squeeze(-1)[done].sum())
        mean = returns / max(episodes, 1)
        print(f"{frames:,} frames, {episodes:,} games finished, mean return {mean:+.3f}", flush=True)
    collector.shutdown()
    seconds = time.perf_counter() - start
    print(f"{frames:,} learner decisions in {seconds:.1f} s ({frames / seconds:,.0f} per s, policy included)")
    return {"frames": frames, "episodes": episodes, "mean_return": returns / max(episodes, 1)}


if __name__ == "__main__":
    main()
