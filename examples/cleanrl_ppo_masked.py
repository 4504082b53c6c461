"""Masked PPO in one file, CleanRL style, on the batched engines' gymnasium vector env.

``gymnasium.make_vec("cardgames/<env>", num_envs=N, opponents=...)`` gives the learner's
decisions in ``N`` games at once (opponents play inside, in batch); this script is CleanRL's
``ppo.py`` (rollouts, GAE, clipped surrogate, value clipping, annealed learning rate) with the
illegal actions' logits masked out (the mask comes in ``obs["action_mask"]``). Only torch,
numpy, gymnasium and this package are used. At the end the actor is saved as an exported
policy (``policy.npz`` + its ``policy.json`` sidecar, the format of the shipped policies), which
every ``cardgames`` command plays as an agent::

    python examples/cleanrl_ppo_masked.py --env-id red7_v0 --opponents heuristic \\
        --total-timesteps 1000000 --time-limit 28 --out runs/cleanrl-red7
    cardgames eval red7_v0 --agent runs/cleanrl-red7/policy.npz --vs heuristic --games 1000

Result on the 2-core development machine, shared with other work (1-minute load average
2.8-4.0 during the run; torch on one thread; the script got 69% of a core): 999,424 learner
decisions in 900 s of training (about 1,110 per second; 15 minutes for the whole script),
and ``cardgames eval`` over 1,000 games against the heuristic (Red7, two players, seats
alternating): win rate **0.618 [95% CI 0.587, 0.648]** (W-D-L 618-0-382).

``--time-limit MINUTES`` stops the training early (after the update in progress) and still saves
the policy; ``--help`` lists every setting of :class:`Args`.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cardgames_env.core.extras import exit_unless_installed

exit_unless_installed("examples/cleanrl_ppo_masked.py", "train", ["torch"])

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.distributions.categorical import Categorical  # noqa: E402

import cardgames_env  # noqa: E402, F401  (registers "cardgames/<env>" with gymnasium)
from cardgames_env.display.progress import Progress  # noqa: E402
from cardgames_env.registry import load  # noqa: E402
from cardgames_env.training.export import write_policy  # noqa: E402


@dataclass
class Args:
    """The run's settings (each one is a command-line flag: ``--total-timesteps`` ...)."""

    env_id: str = "red7_v0"
    """Registered env name."""
    opponents: str = "heuristic"
    """Every other seat: an agent spec (random, heuristic, pretrained, a model path...)."""
    seed: int = 1
    """Seed of the envs, the network and the sampling."""
    total_timesteps: int = 1_000_000
    """Learner decisions to train on."""
    learning_rate: float = 2.5e-4
    num_envs: int = 256
    """Games stepped together."""
    num_steps: int = 32
    """Decisions per game per rollout (a batch is ``num_envs * num_steps``)."""
    anneal_lr: bool = True
    gamma: float = 1.0
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    norm_adv: bool = True
    clip_coef: float = 0.2
    clip_vloss: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: str = "256,256"
    """Widths of the actor's and the critic's hidden layers."""
    torch_threads: int = 1
    out: str = "runs/cleanrl"
    """Folder of ``policy.npz``, ``policy.json`` and ``progress.csv``."""
    time_limit: float = 0.0
    """Minutes after which training stops (0: none)."""


def parse_args(argv: list[str] | None = None) -> Args:
    """Read :class:`Args` from the command line (``--no-anneal-lr`` turns a flag off).

    Bad values end the program with one error line and exit status 2 (argparse's).
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in dataclasses.fields(Args):
        flag = "--" + field.name.replace("_", "-")
        default = field.default
        if isinstance(default, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default)
        else:
            parser.add_argument(flag, type=type(default), default=default)
    args = Args(**vars(parser.parse_args(argv)))
    if min(args.num_envs, args.num_steps, args.num_minibatches, args.update_epochs, args.total_timesteps) < 1:
        parser.error("counts must be positive")
    if (args.num_envs * args.num_steps) % args.num_minibatches:
        parser.error("num_envs * num_steps must be a multiple of num_minibatches")
    try:
        widths(args.hidden)
    except ValueError:
        parser.error(f"--hidden must be comma-separated positive widths, got {args.hidden!r}")
    return args


def widths(hidden: str) -> list[int]:
    """``"256,256"`` -> ``[256, 256]``.

    Raises:
        ValueError: for anything else.
    """
    sizes = [int(part) for part in hidden.split(",")]
    if not sizes or min(sizes) < 1:
        raise ValueError(hidden)
    return sizes


def layer_init(layer: nn.Linear, std: float = float(np.sqrt(2)), bias_const: float = 0.0) -> nn.Linear:
    """CleanRL's orthogonal initialisation."""
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


def mlp(inputs: int, hidden: list[int], outputs: int, last_std: float) -> nn.Sequential:
    """Linear + Tanh layers, then a linear head."""
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [layer_init(nn.Linear(inputs, width)), nn.Tanh()]
        inputs = width
    return nn.Sequential(*layers, layer_init(nn.Linear(inputs, outputs), std=last_std))


class Agent(nn.Module):
    """Separate actor and critic MLPs; the actor's illegal logits are masked out."""

    def __init__(self, observation_size: int, num_actions: int, hidden: list[int]):
        super().__init__()
        self.critic = mlp(observation_size, hidden, 1, last_std=1.0)
        self.actor = mlp(observation_size, hidden, num_actions, last_std=0.01)

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(
        self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        logits = torch.where(mask, self.actor(x), torch.tensor(-1e8))
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)

    def layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The actor as ``(weights (in, out), bias)`` pairs: what ``write_policy`` saves."""
        return [(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
                for m in self.actor if isinstance(m, nn.Linear)]


def main(argv: list[str] | None = None) -> Path:
    """Train, save the policy; return the path of ``policy.npz``."""
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    envs = gymnasium.make_vec(f"cardgames/{args.env_id}", num_envs=args.num_envs, opponents=args.opponents,
                              seed=args.seed, final_obs=False)  # no bootstrapping from final observations
    # After the engine: starting Numba's threads sets the OpenMP thread count torch follows.
    torch.set_num_threads(args.torch_threads)
    observation_size = envs.single_observation_space["observation"].shape[0]
    num_actions = int(envs.single_action_space.n)
    agent = Agent(observation_size, num_actions, widths(args.hidden))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)
    shape = (args.num_steps, args.num_envs)
    obs = torch.zeros((*shape, observation_size))
    masks = torch.zeros((*shape, num_actions), dtype=torch.bool)
    actions = torch.zeros(shape, dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros(shape) for _ in range(4))

    start = time.perf_counter()
    global_step = 0
    returns: list[float] = []
    log = (out / "progress.csv").open("w", encoding="utf-8")
    log.write("global_step,seconds,episodes,mean_return\n")
    next_obs_np, _ = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs_np["observation"])
    next_mask = torch.as_tensor(next_obs_np["action_mask"]).bool()
    next_done = torch.zeros(args.num_envs)
    # The package's bar, as `cardgames train` draws it (on a terminal's stderr only).
    bar = Progress(num_iterations * batch_size, "steps", "train")
    for iteration in range(1, num_iterations + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - (iteration - 1.0) / num_iterations) * args.learning_rate
        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step] = value.flatten()
            actions[step], logprobs[step] = action, logprob
            observation, reward, terminations, truncations, infos = envs.step(action.numpy())
            next_done = torch.as_tensor(np.logical_or(terminations, truncations), dtype=torch.float32)
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs = torch.as_tensor(observation["observation"])
            next_mask = torch.as_tensor(observation["action_mask"]).bool()
            if "episode" in infos:
                returns.extend(infos["episode"]["r"][infos["_episode"]].tolist())
            bar.advance(args.num_envs)

        with torch.no_grad():  # GAE; the autoreset is SAME_STEP: obs after a done is the next game's
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                nonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                following = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * nonterminal - values[t]
                advantages[t] = last = delta + args.gamma * args.gae_lambda * nonterminal * last
            targets = advantages + values

        b_obs, b_masks = obs.reshape(-1, observation_size), masks.reshape(-1, num_actions)
        b_logprobs, b_actions = logprobs.reshape(-1), actions.reshape(-1)
        b_advantages, b_returns, b_values = advantages.reshape(-1), targets.reshape(-1), values.reshape(-1)
        order = np.arange(batch_size)
        for _ in range(args.update_epochs):
            np.random.default_rng(args.seed + iteration).shuffle(order)
            for first in range(0, batch_size, minibatch_size):
                mb = order[first:first + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_masks[mb], b_actions[mb]
                )
                ratio = (newlogprob - b_logprobs[mb]).exp()
                mb_advantages = b_advantages[mb]
                if args.norm_adv:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
                clipped_ratio = torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(-mb_advantages * ratio, -mb_advantages * clipped_ratio).mean()
                newvalue = newvalue.view(-1)
                if args.clip_vloss:
                    change = torch.clamp(newvalue - b_values[mb], -args.clip_coef, args.clip_coef)
                    clipped = b_values[mb] + change
                    losses = (newvalue - b_returns[mb]) ** 2, (clipped - b_returns[mb]) ** 2
                    v_loss = 0.5 * torch.max(*losses).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        seconds = time.perf_counter() - start
        recent = float(np.mean(returns[-1000:])) if returns else float("nan")
        log.write(f"{global_step},{seconds:.1f},{len(returns)},{recent:.4f}\n")
        log.flush()
        bar.note(f"mean return {recent:+.3f}")
        if iteration % 10 == 0 or iteration == num_iterations:
            with bar.paused():
                print(f"step {global_step:,} ({seconds:.0f} s, {global_step / seconds:,.0f} steps/s): "
                      f"mean return of the last 1000 episodes {recent:+.3f}", flush=True)
        if args.time_limit and seconds > 60 * args.time_limit:
            with bar.paused():
                print(f"time limit of {args.time_limit:g} minutes reached", flush=True)
            break
    bar.close()
    log.close()
    probe = load(args.env_id).raw_env()
    command = "python " + " ".join([Path(sys.argv[0]).name, *(argv if argv is not None else sys.argv[1:])])
    npz, sidecar = write_policy(out / "policy", agent.layers(), probe, timesteps=global_step,
                                opponents=args.opponents, seed=args.seed, command=command,
                                settings=dataclasses.asdict(args))
    seconds = time.perf_counter() - start
    print(f"saved {npz} (+ {sidecar.name}) after {global_step:,} steps in {seconds:.0f} s; "
          f"evaluate it with: cardgames eval {args.env_id} --agent {npz} --vs {args.opponents} "
          "--games 1000")
    return npz


if __name__ == "__main__":
    main()
