"""Red7 env (``red7_v0``).

Red7 is a 2-4 player card game of 49 cards (numbers 1-7 in the seven rainbow colours): the
colour on top of the canvas is the rule (Red: highest card, Orange: most of one number, ...,
Violet: most cards below 4), and at the end of your turn you must be winning under it, by
adding a card to your palette, changing the rule, or both; otherwise you are out. The last
player standing wins.

| Import             | `from cardgames_env import red7_v0`                          |
|--------------------|--------------------------------------------------------------|
| Actions            | Discrete(2599)                                               |
| Parallel API       | No                                                           |
| Agents             | `agents = ['player_0', 'player_1']` (`num_players=2..4`)     |
| Observation shape  | (513,) float32 for 2 players (+ 103 per extra player) + action_mask (2599,) int8 |
| Reward             | +1 to the winner, -1 to each other player when out or at the end |

**Actions.** ``play`` card i (0-48), ``discard`` card i, ``play_discard`` (card i to the
palette, then card j to the canvas: ``98 + 48 i + (j if j < i else j - 1)``), ``give_up``;
with ``action_rule=True`` also ``take`` (a 1's target card), ``canvas``/``deck`` (a 7's own
palette card) and ``end_turn``; the extra card of a 5 uses ``play`` and the discard after an
effect uses ``discard``. Card ids follow the card order: ``id = (number-1)*7 + 6 - colour``
(V1 = 0, R1 = 6, V2 = 7, ..., R7 = 48). With ``strict=True`` (default) the mask allows
exactly the options that leave the player winning after the turn (with the action rule:
that some completion of the turn does; a 3 is always playable); giving up is always legal.

**Observation.** Seat-rotated (relative seat 0 = me): my hand, every palette, the canvas
cards of this round, cards known to be in hands or on the deck (put there by effects),
cards out of the round or scored, the pending effect card, the rule, who is still in, who
is winning, who is to move and in which phase, hand sizes, deck size and (advanced) scores.

**Rewards.** One round (default): a player who gives up or is out gets -1 at that step; the
last player standing gets +1 when the round ends. Advanced game: 0 until the game ends, then
+1 for the game winner and -1 for the others (tied leaders at a stop for lack of cards: 0).

**Variants** (keyword arguments of ``env()``): ``num_players`` (2-4), ``strict=False``
(rulebook: any option, out if not winning at the end of the turn), ``advanced=True`` (draw
rule, scoring, rounds to 40/35/30 points or ``target_score``), ``action_rule=True`` (effects
of 1/3/5/7), ``seven_to_deck=True`` (with the action rule).

**State, positions, turn limit.** ``env.unwrapped.state()`` is the perfect-information
float32 vector of ``state_space`` (every seat's observation in seat order, then the deck's
cards and the unseen cards of eliminated hands); ``game_state()`` is the rules ``State`` and
``set_game_state(state)`` starts from any position. ``max_steps`` (default: the rules' bound
in the basic game, (7 + 1) × players − 1 steps, never reached early; 20,000 with
``advanced`` or ``action_rule``) truncates an episode; ``reset()`` takes no variant options.
See ``docs/envs/red7.md``, "Global state, positions and turn limit".

**Version history.** A behaviour change (one that alters a golden playthrough) bumps the
version; a refactor never does. ``red7_v0``: the initial version: Red7 for 2-4 players (basic
game, advanced scoring and the action rule as variants), Discrete(2599) actions, 513
observation entries for 2 players (+103 per extra player), +1 to the winner and -1 to each
other player.
"""

from __future__ import annotations

from typing import Any

from cardgames_env.core.aec import RENDER_FPS, RENDER_MODES, CardGameEnv, wrap_env
from cardgames_env.display import picture

from . import SPEC, rules
from .encoding import Red7Encoding

TEST_VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"num_players": 3},
    {"num_players": 4},
    {"advanced": True},
    {"action_rule": True},
    {"strict": False, "num_players": 3},
    {"num_players": 4, "advanced": True, "action_rule": True, "seven_to_deck": True},
)
"""Option sets the shared env test-suite runs (the default first)."""

BENCH_OPTIONS: dict[str, Any] = {"num_players": 4}
"""Options ``benchmarks/bench_envs.py`` measures (the issue's 4-player game)."""


class Red7Env(CardGameEnv):
    """Red7 as a PettingZoo AEC env; see the module docstring (the env card)."""

    drawing = picture
    rules = rules
    encoding_cls = Red7Encoding
    spec = SPEC
    metadata = {
        "name": "red7_v0",
        "render_modes": RENDER_MODES,
        "render_fps": RENDER_FPS,
        "is_parallelizable": False,
    }


def raw_env(render_mode: str | None = None, **options: Any) -> Red7Env:
    """Return the unwrapped env; ``options`` are :class:`rules.Config` fields."""
    return Red7Env(render_mode=render_mode, **options)


def env(render_mode: str | None = None, **options: Any) -> Any:
    """Return the env wrapped like PettingZoo's classic envs (an illegal action ends the game)."""
    return wrap_env(raw_env(render_mode=render_mode, **options))
