"""The ``cardgames`` command: list the envs and play or watch games in the terminal.

Examples::

    cardgames list
    cardgames play gongzhu_v0 --agents heuristic,random,random,random --seed 1
    cardgames play gongzhu_v0 --agents human,heuristic,heuristic,heuristic
    cardgames play gongzhu_v0 --option game_end=-1000 --quiet
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from .registry import ALL_ENVS, load


class UsageError(Exception):
    """A user mistake on the command line (reported in one line, exit status 2)."""


def parse_option(text: str) -> tuple[str, Any]:
    """Parse ``key=value`` with ints, floats, true/false and none recognised."""
    if "=" not in text:
        raise UsageError(f"option {text!r} must look like key=value")
    key, _, raw = text.partition("=")
    lowered = raw.strip().lower()
    value: Any
    if lowered in ("true", "false"):
        value = lowered == "true"
    elif lowered in ("none", "null"):
        value = None
    else:
        try:
            value = int(raw)
        except ValueError:
            try:
                value = float(raw)
            except ValueError:
                value = raw
    return key.strip(), value


def make_env(name: str, options: Sequence[str], render_mode: str | None = None) -> Any:
    """Build the raw env ``name`` with ``key=value`` options, turning mistakes into UsageError."""
    try:
        module = load(name)
    except ValueError as error:
        raise UsageError(str(error)) from None
    kwargs = dict(parse_option(o) for o in options)
    try:
        return module.raw_env(render_mode=render_mode, **kwargs)
    except (ValueError, TypeError) as error:
        raise UsageError(f"bad option for {name}: {error}") from None


def cmd_list(args: argparse.Namespace) -> int:
    """Print every env with its players, action-space size and observation size."""
    rows = [("env", "players", "actions", "observation", "reward")]
    for name in ALL_ENVS:
        env = load(name).raw_env()
        rows.append(
            (
                name,
                str(len(env.possible_agents)),
                str(env.encoding.num_actions),
                str(env.encoding.observation_size),
                env.info.reward_model,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1])
    return 0


class HumanAgent:
    """Reads moves in the game's notation from the terminal.

    In games whose moves take several actions (Haggis selects cards one at a time), a full
    move typed once is carried out over the following sub-steps: while the rules state has
    not changed, the same text is turned into its next action.
    """

    def __init__(self, env: Any, seat: int):
        self.env = env
        self.seat = seat
        self._pending: tuple[str, Any] | None = None

    def act(self, observation: Any, action_mask: Any) -> int:
        env = self.env
        if self._pending is not None:
            text, state = self._pending
            self._pending = None
            if env.state() is state:
                try:
                    action = env.string_to_action(text)
                except ValueError:
                    action = -1
                if action >= 0 and action_mask[action]:
                    self._pending = (text, state)
                    return action
        env.render_viewer = self.seat
        print(env.encoding.render(env._decision, self.seat))
        legal = env.legal_action_strings()
        shown = ", ".join(legal[:40]) + (f", ... ({len(legal)} moves)" if len(legal) > 40 else "")
        print(f"your moves: {shown}")
        while True:
            try:
                text = input("> ").strip()
            except EOFError:
                raise UsageError("input ended before the game did") from None
            if text in ("?", "help"):
                print(", ".join(legal))
                continue
            try:
                action = env.string_to_action(text)
            except ValueError as error:
                print(f"not understood: {error}")
                continue
            if not action_mask[action]:
                print(f"{text!r} is not legal now; type ? for the list")
                continue
            self._pending = (text, env.state())
            return action

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset."""


def build_agents(env: Any, spec: str, seed: int) -> list[Any]:
    """Build one agent per seat from ``random,heuristic,human,...`` (one name = every seat)."""
    from .agents import make_agent

    names = [s.strip() for s in spec.split(",") if s.strip()]
    n = len(env.possible_agents)
    if len(names) == 1:
        names = names * n
    if len(names) != n:
        raise UsageError(f"{env.metadata['name']} has {n} seats; --agents names {len(names)}")
    agents: list[Any] = []
    for seat, kind in enumerate(names):
        if kind == "human":
            agents.append(HumanAgent(env, seat))
            continue
        try:
            agents.append(make_agent(kind, env, seed=seed * 100 + seat))
        except ValueError as error:
            raise UsageError(str(error)) from None
    return agents


def cmd_play(args: argparse.Namespace) -> int:
    """Play (or watch) one episode with the given agents."""
    env = make_env(args.env, args.option)
    agents = build_agents(env, args.agents, args.seed)
    humans = [a.seat for a in agents if isinstance(a, HumanAgent)]
    viewer = humans[0] if len(humans) == 1 else None
    env.reset(seed=args.seed)
    if not args.quiet and not humans:
        print(env.encoding.render(env._decision, viewer))
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        action = agents[seat].act(obs["observation"], obs["action_mask"])
        move = env.action_to_string(action)
        before = env.state()
        env.step(action)
        if not args.quiet:
            print(f"{agent}: {move}")
            event = env.encoding.describe_transition(before, env.state())
            if event:
                print(event)
    print(env.encoding.render(env._decision, viewer))
    points = env.rules.points(env.state())
    print("points: " + "  ".join(f"player_{i} {p}" for i, p in enumerate(points)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``cardgames`` command."""
    parser = argparse.ArgumentParser(prog="cardgames", description="Card games as PettingZoo envs.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser("list", help="list the envs with players, actions and observation size")
    p_list.set_defaults(func=cmd_list)
    p_play = sub.add_parser("play", help="play or watch one game in the terminal")
    p_play.add_argument("env", help=f"env name: {', '.join(ALL_ENVS)}")
    p_play.add_argument(
        "--agents", default="heuristic",
        help="comma-separated seat agents: random, heuristic, human (one name = every seat)",
    )
    p_play.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents")
    p_play.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game variant, e.g. game_end=-1000 (repeatable)")
    p_play.add_argument("--quiet", action="store_true", help="print only the final position")
    p_play.set_defaults(func=cmd_play)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cardgames`` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except UsageError as error:
        print(f"cardgames: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
