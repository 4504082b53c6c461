"""Haggis env (``haggis_v0``).

Haggis is a two-player climbing card game: each player holds 14 number cards (2-10 in four
suits) plus its own J, Q, K, which are wild or natural 11/12/13; players beat each other's
sequences (multiplicity × length) or bomb them, a pass ends the trick, and going out scores
5 per card left to the opponent. Hands repeat until a player reaches the target score.

| Import             | `from cardgames_env import haggis_v0`                 |
|--------------------|-------------------------------------------------------|
| Actions            | Discrete(45)                                          |
| Parallel API       | No                                                    |
| Agents             | `agents = ['player_0', 'player_1']`                   |
| Observation shape  | (287,) float32 + action_mask (45,) int8               |
| Reward             | +1 / -1 at the end of the game (`reward="win"`)      |

**Actions.** A play takes several steps: ``select i`` (0-38) adds card id ``i`` of my hand
(``(rank-2)*4 + suit`` with suits S, H, D, C; 36-38 = my J, Q, K) in increasing id order, then
``declare k`` (39-43) plays the selection as a bomb (``k = 0``) or as a sequence of
multiplicity ``k`` with the highest legal rank; ``pass`` is 44. The mask at every sub-step
allows exactly what can still complete a legal play, so every legal play (cards + kind) is
reachable and nothing illegal is.

**Observation.** Seat-rotated (relative seat 0 = me): my hand and both players' unplayed
J/Q/K (public), the table combination (kind, length, rank, cards, who played it), the cards
of the current trick, every card each seat played this hand, the opponent's hand size, the
points in the trick, each side's hand points and totals, and my current selection. See
``LAYOUT`` in :mod:`cardgames_env.envs.haggis.encoding` and ``docs/envs/haggis.md``.

**Rewards.** ``reward="win"`` (default): +1 to the winner and -1 to the loser when the game
ends. ``reward="points"``: at each hand end, (own - opponent) hand score / 100.

**Variants** (keyword arguments of ``env()``): ``target_score`` (default 350),
``face_singles="J"`` (the two-player text read literally: lone Q/K are wild singles <= 10),
``natural_faces_in_runs=False`` (official: face cards in runs only as wilds), ``reward``.

**State, positions, turn limit.** ``env.unwrapped.state()`` is the perfect-information
float32 vector of ``state_space`` (every seat's observation in seat order); ``game_state()``
is the rules ``State`` and ``set_game_state(state)`` starts from any position. ``max_steps``
(default: 20,000 steps, as a game to ``target_score`` has no fixed length) truncates an
episode; ``reset()`` takes no variant options. See ``docs/envs/haggis.md``, "Global state,
positions and turn limit".

**Version history.** A behaviour change (one that alters a golden playthrough) bumps the
version; a refactor never does. ``haggis_v0``: the initial version: two-player Haggis to
``target_score`` (default 350), Discrete(45) actions, 287 observation entries, +1/-1 at the end
of the game (or hand points / 100 with ``reward="points"``).
"""

from __future__ import annotations

from typing import Any

from cardgames_env.core.aec import RENDER_FPS, RENDER_MODES, CardGameEnv, wrap_env
from cardgames_env.display import picture

from . import SPEC, rules
from .encoding import HaggisEncoding

TEST_VARIANTS: tuple[dict[str, Any], ...] = (
    {"target_score": 50},
    {"target_score": 50, "face_singles": "J"},
    {"target_score": 50, "reward": "points", "natural_faces_in_runs": False},
    {},
)
"""Option sets the shared env test-suite runs (quick games first; the full game is tested apart)."""


class HaggisEnv(CardGameEnv):
    """Haggis as a PettingZoo AEC env; see the module docstring (the env card)."""

    drawing = picture
    rules = rules
    encoding_cls = HaggisEncoding
    spec = SPEC
    metadata = {
        "name": "haggis_v0",
        "render_modes": RENDER_MODES,
        "render_fps": RENDER_FPS,
        "is_parallelizable": False,
    }


def raw_env(render_mode: str | None = None, **options: Any) -> HaggisEnv:
    """Return the unwrapped env; ``options`` are :class:`rules.Config` fields."""
    return HaggisEnv(render_mode=render_mode, **options)


def env(render_mode: str | None = None, **options: Any) -> Any:
    """Return the env wrapped like PettingZoo's classic envs (an illegal action ends the game)."""
    return wrap_env(raw_env(render_mode=render_mode, **options))
