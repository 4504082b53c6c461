"""Jaipur env (``jaipur_v0``).

Jaipur is a two-player trading game: each turn a trader takes cards from a five-card market
(an exchange of several goods, one good, or all the camels) or sells cards of one goods type
for tokens whose value drops as the stack empties; big sales earn bonus tokens, the bigger
herd earns the camel token, the richer trader wins the round's Seal and two Seals win.

| Import             | `from cardgames_env import jaipur_v0`                       |
|--------------------|-------------------------------------------------------------|
| Actions            | Discrete(25505)                                             |
| Parallel API       | No                                                          |
| Agents             | `agents = ['player_0', 'player_1']`                         |
| Observation shape  | (123,) float32 + action_mask (25505,) int8                  |
| Reward             | +1 win / -1 loss / 0 draw at the end of the game            |

**Actions.** One action per move: ``take`` one good (6), ``camels`` (1), ``sell`` n cards
of a type (6 × 7, index ``g * 7 + n - 1``) and every ``exchange`` (25,456: a multiset of 2..5
goods taken and a multiset of as many goods of other types and/or camels given). The mask
is exact: takes need room in the 7-card hand, precious goods sell 2 or more, exchanges need
the cards in the market / hand / herd and leave at most 7 cards in hand.
``env.unwrapped.action_to_string(a)`` writes the notation (``take diamond``, ``camels``,
``sell 3 leather``, ``exchange gold,silver for spice,camel``).

**Observation.** Seat-rotated (me first): my hand, the market, both herds, both hand sizes,
the goods publicly seen entering the opponent's hand, deck size, discard pile, every goods
token stack (values), bonus piles left, my bonus token values, both players' bonus token
counts, goods-token rupees and counts, the camel-token standing, Seals, round number, who
started and who moves, and the rupees of finished rounds. Never the opponent's hand, the
deck order or the opponent's bonus values. See ``LAYOUT`` in
:mod:`cardgames_env.envs.jaipur.encoding` and ``docs/envs/jaipur.md``.

**Rewards.** ``reward="win"`` (default): +1 / -1 at the end of the game to the winner / the
loser, 0 each for a draw (the round cap reached after full ties). ``reward="points"``: at the
end of each round, (own rupees - opponent's rupees) / 100.

**Variants** (keyword arguments of ``env()``): ``rounds=1`` (an episode is one round;
``rounds=k``: at most k rounds, more Seals wins), ``reward="points"``, ``hidden_herd=True``
(the opponent's herd shows only whether it is empty; its size still follows from the public
card counts: 55 minus my hand, the market, my herd, the opponent's hand size, the deck and the
discard pile), ``max_rounds`` (cap of a standard game
whose rounds end in full ties; default 5), ``exchange_encoding="substeps"`` (an encoding
choice only, same rules: an exchange is built card by card, take goods in non-decreasing
type order, then give cards, then ``exchange_done``; Discrete(63) and 13 more observation
entries for the partial exchange; every legal exchange stays reachable, by exactly one
action sequence; see ``docs/envs/jaipur.md``, "Exchanges in sub-steps").

**State, positions, turn limit.** ``env.unwrapped.state()`` is the perfect-information
float32 vector of ``state_space`` (every seat's observation in seat order); ``game_state()``
is the rules ``State`` and ``set_game_state(state)`` starts from any position. ``max_steps``
(default: 20,000 steps, as the rules alone have no bound: exchanges draw no cards) truncates
an episode; ``reset()`` takes no variant options. See ``docs/envs/jaipur.md``, "Global
state, positions and turn limit".

**Version history.** A behaviour change (one that alters a golden playthrough) bumps the
version; a refactor never does. ``jaipur_v0``: the initial version: two-player Jaipur to two
Seals of Excellence, Discrete(25505) actions (flat exchange table) or Discrete(63) with
``exchange_encoding="substeps"``, 123 observation entries, +1/-1/0 at the end of the game.
"""

from __future__ import annotations

from typing import Any

from cardgames_env.core.aec import RENDER_FPS, RENDER_MODES, CardGameEnv, wrap_env
from cardgames_env.core.game import Encoding
from cardgames_env.display import picture

from . import SPEC, rules
from .encoding import JaipurEncoding
from .substeps import make_encoding

TEST_VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"rounds": 1},
    {"reward": "points", "hidden_herd": True},
    {"exchange_encoding": "substeps"},
    {"rounds": 1, "exchange_encoding": "substeps"},
)
"""Option sets the shared env test-suite runs (the default first)."""


class JaipurEnv(CardGameEnv):
    """Jaipur as a PettingZoo AEC env; see the module docstring (the env card)."""

    drawing = picture
    rules = rules
    encoding_cls = JaipurEncoding
    spec = SPEC
    ENCODING_OPTIONS = ("exchange_encoding",)  # flat or sub-step exchanges: the same rules
    metadata = {
        "name": "jaipur_v0",
        "render_modes": RENDER_MODES,
        "render_fps": RENDER_FPS,
        "is_parallelizable": False,
    }

    @classmethod
    def make_encoding(cls, config: rules.Config) -> Encoding:
        """Return the flat or the sub-step encoding, as ``config.exchange_encoding`` says."""
        return make_encoding(config)


def raw_env(render_mode: str | None = None, **options: Any) -> JaipurEnv:
    """Return the unwrapped env; ``options`` are :class:`rules.Config` fields."""
    return JaipurEnv(render_mode=render_mode, **options)


def env(render_mode: str | None = None, **options: Any) -> Any:
    """Return the env wrapped like PettingZoo's classic envs (an illegal action ends the game)."""
    return wrap_env(raw_env(render_mode=render_mode, **options))
