"""Print the example prompts of ``docs/llm.md``: one real view per game, from ``describe``.

Each game is dealt with a fixed seed, a few random legal moves are played, and the view of the
seat to move is printed (long move lists cut after ten moves). ``tests/text`` checks that the
page holds exactly these blocks. Run: ``python tools/llm_prompts.py``.
"""

from __future__ import annotations

import numpy as np

from cardgames_env.registry import env_names, load
from cardgames_env.text import LEGAL_MOVES_HEADER, describe

MOVES_BEFORE = {"gongzhu_v0": 9, "jaipur_v0": 6, "haggle_v0": 5, "haggis_v0": 3, "red7_v0": 2}
"""Random moves played before each game's example view."""
SHOWN_MOVES = 10
"""Legal moves shown per example before the list is cut."""


def example_prompt(name: str) -> str:
    """The example view of env ``name`` (seed 3, random moves from seed 1), cut as on the page."""
    env = load(name).raw_env()
    env.track_moves()
    env.reset(seed=3)
    rng = np.random.default_rng(1)
    for _ in range(MOVES_BEFORE.get(name, 4)):
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    lines = describe(env, env._to_move).rstrip("\n").splitlines()
    head = lines.index(LEGAL_MOVES_HEADER)
    moves = lines[head + 1 :]
    if len(moves) > SHOWN_MOVES + 2:
        cut = len(moves) - SHOWN_MOVES
        lines = lines[: head + 1] + moves[:SHOWN_MOVES] + [f"... ({cut} more moves listed, one per line)"]
    return "\n".join(lines)


def markdown() -> str:
    """Every game's example as a Markdown section with a text block."""
    return "\n".join(f"### {name}\n\n```text\n{example_prompt(name)}\n```\n" for name in env_names())


if __name__ == "__main__":
    print(markdown(), end="")
