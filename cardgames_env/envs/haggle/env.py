"""Haggle env (``haggle_v0``).

Haggle (Sid Sackson, 1969) is a negotiation game: every player holds ten colour cards and
two secret rule cards, players trade cards and glimpses of rule cards, and at the end every
hand is scored with all twelve rules, which nobody knows in full at the start. This env
replaces the free, timed haggling with a turn-based protocol (docs/rules/haggle.md, "The game in the env").

| Import             | `from cardgames_env import haggle_v0`                      |
|--------------------|------------------------------------------------------------|
| Actions            | Discrete(156) for 4 players (`num_players=2..8`: 152 + N)  |
| Parallel API       | No                                                         |
| Agents             | `agents = ['player_0', ..., 'player_{N-1}']` (default N = 4) |
| Observation shape  | (181,) float32 for 4 players + action_mask int8            |
| Reward             | at the end: (own score - mean of the others) / 10          |

**Protocol.** ``trading_rounds`` rounds (default 5); in each, seats 0..N-1 in turn propose.
A proposal is four actions of the proposer: ``pass`` or ``target`` (a relative seat), then
``give`` (a multiset of 0..3 cards it holds), ``ask`` (0..3 cards), ``terms`` (show one of its
rule cards or not, request to see one or not; the offer may not be empty). The target then
plays ``reject``, ``accept`` (only if it holds the asked cards) or, when a rule card was
requested, ``accept_show`` naming which of its two rule cards it reveals. Trading ends after
the last round or after N consecutive passes; every hand is then scored by
:func:`cardgames_env.envs.haggle.scoring.score_counts`, the random 13-card cap drawn from
the env's seeded Generator.

**Actions.** ``pass`` 1, ``target`` N-1, ``give`` 56, ``ask`` 56, ``terms`` 26, ``reject`` 1,
``accept`` 1, ``accept_show`` 12 (+ ``submit`` 2N+1 with ``submission_phase=True``). The
mask allows exactly the legal moves of :func:`rules.legal_moves`.

**Observation.** Seat-rotated (relative seat 0 = me): my colour counts and rule cards, the
rule cards others have shown me and those I have shown, every hand size, the stage, whose
turn it is, the round, the pass count, the offer (its target once sent; its contents only to
the two parties), accepted trades between every pair of seats (parties, not contents), the
cards I gave to and received from each seat. See ``build_layout`` in
:mod:`cardgames_env.envs.haggle.encoding` and ``docs/envs/haggle.md``.

**Rewards.** Zero until the end; then (own score - mean of the others' scores) / 10, an
ELIMINATED player counting as the lowest surviving score minus 10 (zero-sum). Raw scores
are in ``infos[agent]["points"]`` at the end (``None`` = ELIMINATED).

**Variants** (keyword arguments of ``env()``): ``num_players`` (2..8), ``trading_rounds``,
``max_offer`` (cards per side, 1..5), ``submission_phase``, ``eliminated_margin``, and the
scorer's ``eliminated_in_globals``, ``yellow_cascade``, ``yellow_min_count``,
``elimination_penalty``, ``pyramid_final``.

**State, positions, turn limit.** ``env.unwrapped.state()`` is the perfect-information
float32 vector of ``state_space`` (every seat's observation in seat order); ``game_state()``
is the rules ``State`` and ``set_game_state(state)`` starts from any position. ``max_steps``
(default: the rules' bound, ``trading_rounds`` × players × 5 plus the submission phase: 100
by default, never reached early) truncates an episode; ``reset()`` takes no variant options.
See ``docs/envs/haggle.md``, "Global state, positions and turn limit".

**Version history.** A behaviour change (one that alters a golden playthrough) bumps the
version; a refactor never does. ``haggle_v0``: the initial version: Haggle for 2-8 players in
the turn-based trading protocol, Discrete(152 + players) actions, 181 observation entries for 4
players, (own score - mean of the others) / 10 at the end.
"""

from __future__ import annotations

from typing import Any

from cardgames_env.core.aec import RENDER_FPS, RENDER_MODES, CardGameEnv, wrap_env
from cardgames_env.display import picture

from . import SPEC, rules
from .encoding import HaggleEncoding

TEST_VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"num_players": 2},
    {"num_players": 8},
    {"num_players": 3, "trading_rounds": 2, "submission_phase": True, "max_offer": 2},
)
"""Option sets the shared env test-suite runs (the default first)."""


class HaggleEnv(CardGameEnv):
    """Haggle as a PettingZoo AEC env; see the module docstring (the env card)."""

    drawing = picture
    rules = rules
    encoding_cls = HaggleEncoding
    spec = SPEC
    metadata = {
        "name": "haggle_v0",
        "render_modes": RENDER_MODES,
        "render_fps": RENDER_FPS,
        "is_parallelizable": False,
    }


def raw_env(render_mode: str | None = None, **options: Any) -> HaggleEnv:
    """Return the unwrapped env; ``options`` are :class:`rules.Config` fields."""
    return HaggleEnv(render_mode=render_mode, **options)


def env(render_mode: str | None = None, **options: Any) -> Any:
    """Return the env wrapped like PettingZoo's classic envs (an illegal action ends the game)."""
    return wrap_env(raw_env(render_mode=render_mode, **options))
