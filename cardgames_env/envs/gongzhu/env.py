"""Gong Zhu env (``gongzhu_v0``).

Gong Zhu (拱猪, "Chinese Hearts", "Chase the Pig") is a four-player trick-taking game
without trumps: follow suit if you can, the highest card of the suit led takes the trick,
and at the end of the hand the hearts, the pig (♠Q), the goat (♦J) and the transformer
(♣10) each player captured are scored.

| Import             | `from cardgames_env import gongzhu_v0`               |
|--------------------|------------------------------------------------------|
| Actions            | Discrete(52)                                         |
| Parallel API       | No                                                   |
| Agents             | `agents = ['player_0', 'player_1', 'player_2', 'player_3']` |
| Observation shape  | (568,) float32 + action_mask (52,) int8              |
| Reward             | own hand points / 100 at the end of each hand        |

**Actions.** Action ``i`` plays card id ``i = suit * 13 + rank`` (suits ♣ ♦ ♥ ♠, ranks 2..A).
The mask allows the cards of the suit led, or any card when void or leading; with
``first_lead_must_be_spade2=True`` the very first lead of the game must be the ♠2.

**Observation.** Seat-rotated (relative seat 0 = me): my hand, the current trick and who
played what, who led and the suit led, every card each seat played this hand, the point
cards each seat captured and its running hand score, the voids each seat has shown, the
seat known to hold the unplayed ♠2 (hand 1: the first leader), and the totals of completed
hands. No other player's hand ever appears. See ``LAYOUT`` in
:mod:`cardgames_env.envs.gongzhu.encoding` and ``docs/envs/gongzhu.md``.

**Rewards.** When a hand ends, each player gets its hand points / 100 (from -6.0 to +8.0;
the scoring of :mod:`.scoring`, e.g. all hearts +200 = +2.0, the pig alone = -1.0).

**Variants** (keyword arguments of ``env()``): ``first_lead_must_be_spade2``,
``game_end=-1000`` (an episode is a whole game of several hands; the player who took the
pig leads the next hand), ``game_end_upper``.

**State, positions, turn limit.** ``env.unwrapped.state()`` is the perfect-information
float32 vector of ``state_space`` (every seat's observation in seat order); ``game_state()``
is the rules ``State`` and ``set_game_state(state)`` starts from any position. ``max_steps``
(default: the rules' bound, 52 steps for one hand, never reached early; 20,000 with
``game_end``) truncates an episode; ``reset()`` takes no variant options. See
``docs/envs/gongzhu.md``, "Global state, positions and turn limit".

**Version history.** A behaviour change (one that alters a golden playthrough) bumps the
version; a refactor never does. ``gongzhu_v0``: the initial version: four-player Gong Zhu, one
hand per episode (a whole game with ``game_end``), Discrete(52) actions, 568 observation
entries, own hand points / 100 at the end of each hand.
"""

from __future__ import annotations

from typing import Any

from cardgames_env.core.aec import RENDER_FPS, RENDER_MODES, CardGameEnv, wrap_env
from cardgames_env.display import picture

from . import SPEC, rules
from .encoding import GongZhuEncoding

TEST_VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"game_end": -1000},
    {"first_lead_must_be_spade2": True},
)
"""Option sets the shared env test-suite runs (the default first)."""


class GongZhuEnv(CardGameEnv):
    """Gong Zhu as a PettingZoo AEC env; see the module docstring (the env card)."""

    drawing = picture
    rules = rules
    encoding_cls = GongZhuEncoding
    spec = SPEC
    metadata = {
        "name": "gongzhu_v0",
        "render_modes": RENDER_MODES,
        "render_fps": RENDER_FPS,
        "is_parallelizable": False,
    }


def raw_env(render_mode: str | None = None, **options: Any) -> GongZhuEnv:
    """Return the unwrapped env; ``options`` are :class:`rules.Config` fields."""
    return GongZhuEnv(render_mode=render_mode, **options)


def env(render_mode: str | None = None, **options: Any) -> Any:
    """Return the env wrapped like PettingZoo's classic envs (an illegal action ends the game)."""
    return wrap_env(raw_env(render_mode=render_mode, **options))
