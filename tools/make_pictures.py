"""Draw the pictures in the docs: a mid-game position of every game, and the README's GIF.

Usage (from the repository root, with the ``pictures`` extra installed)::

    python tools/make_pictures.py            # docs/img/picture_<game>.png and docs/img/red7_game.gif
    python tools/make_pictures.py --out DIR  # the same files in DIR

Each position comes from a fixed seed and the games' heuristic agents, so the command draws
the same pictures every time. The GIF is what ``cardgames play red7_v0 --agents heuristic
--seed 7 --option num_players=3 --quiet --gif docs/img/red7_game.gif`` writes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PIL import Image

from cardgames_env import cli, registry
from cardgames_env.agents import make_agent

POSITIONS: dict[str, tuple[dict, int, int]] = {
    "gongzhu": ({}, 3, 22),
    "haggis": ({}, 1, 20),
    "haggle": ({}, 2, 7),
    "jaipur": ({}, 1, 14),
    "red7": ({"num_players": 3}, 5, 5),
}
"""Game id -> (options, seed, decisions (env steps) taken before the picture)."""
GIF_ARGS = ["play", "red7_v0", "--agents", "heuristic", "--seed", "7", "--option", "num_players=3",
            "--quiet", "--no-progress"]
"""The README's GIF: one 3-player Red7 game of the heuristic agents."""


def position(game: str, options: dict, seed: int, moves: int) -> Image.Image:
    """The spectator's picture after ``moves`` decisions of heuristic agents from ``seed``'s deal."""
    env = registry.load(game).env(render_mode="rgb_array", **options)
    env.reset(seed=seed)
    agents = [make_agent("heuristic", env, seed=seed * 100 + s) for s in range(len(env.possible_agents))]
    for _ in range(moves):
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            raise SystemExit(f"{game}: the game ended before move {moves}")
        env.step(agents[env.possible_agents.index(agent)].act(obs["observation"], obs["action_mask"]))
    return Image.fromarray(env.render())


def main(argv: list[str] | None = None) -> int:
    """Write the pictures; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/img", help="folder of the pictures (default docs/img)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for game, (options, seed, moves) in POSITIONS.items():
        path = out / f"picture_{game}.png"
        position(game, options, seed, moves).save(path, optimize=True)
        print(f"{path}: {path.stat().st_size // 1024} KiB")
    gif = out / "red7_game.gif"
    code = cli.main([*GIF_ARGS, "--gif", str(gif)])  # the game's final position is printed too
    print(f"{gif}: {gif.stat().st_size // 1024} KiB")
    return code


if __name__ == "__main__":
    sys.exit(main())
