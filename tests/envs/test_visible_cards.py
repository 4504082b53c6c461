"""Every card a seat may see is in its observation: for random positions of every game, the
seat's visible cards, written out here from the rules ``State`` (its hand, the public piles),
equal what the observation encodes, decoded through the documented layout (docs/envs/).

A card dropped by an encoding (the hidden-information tests only check that nothing extra
leaks) fails here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from .helpers import make_raw, random_legal


def _bits(mask: int, size: int) -> list[int]:
    """The 0/1 indicator of the card ids in bitmask ``mask``."""
    return [mask >> card & 1 for card in range(size)]


def _indicator(piece: np.ndarray) -> list[int]:
    return [int(v != 0) for v in np.asarray(piece).reshape(-1)]


def _red7(state: Any, me: int, view: Any) -> list[tuple[str, Any, Any]]:
    n = len(state.hands)
    rows = [("hand", _bits(state.hands[me], 49), _indicator(view["hand"]))]
    for r in range(n):
        seat = (me + r) % n
        rows.append((f"palette of relative seat {r}", _bits(state.palettes[seat], 49),
                     _indicator(view["palettes"][r])))
    rows.append(("canvas", _bits(state.canvas, 49), _indicator(view["canvas"])))
    rows.append(("out of the round, seen", _bits(state.out_public, 49), _indicator(view["out"])))
    rows.append(("scored", _bits(state.scored, 49), _indicator(view["scored"])))
    return rows


def _gongzhu(state: Any, me: int, view: Any) -> list[tuple[str, Any, Any]]:
    rows = [("hand", _bits(state.hands[me], 52), _indicator(view["hand"]))]
    on_table = [0] * 4
    for i, card in enumerate(state.trick):
        on_table[(state.leader + i - me) % 4] |= 1 << card
    for r in range(4):
        rows.append((f"trick card of relative seat {r}", _bits(on_table[r], 52),
                     _indicator(view["trick"][r])))
        rows.append((f"cards played by relative seat {r}", _bits(state.played[(me + r) % 4], 52),
                     _indicator(view["played"][r])))
    return rows


def _jaipur(state: Any, me: int, view: Any) -> list[tuple[str, Any, Any]]:
    return [
        ("hand (goods counts)", list(state.hands[me][:6]), view["hand"].tolist()),
        ("market (goods, camels)", list(state.market), view["market"].tolist()),
        ("my herd", [sum(state.herds[me])], view["herds"][:1].tolist()),
        ("discard pile", list(state.discard[:6]), view["discard"].tolist()),
    ]


def _haggis(state: Any, me: int, view: Any) -> list[tuple[str, Any, Any]]:
    other = 1 - me
    faces = state.hands[other] >> 36 & 0b111  # the opponent's unplayed J, Q, K are public
    rows = [("hand (numbers, my J Q K, the opponent's unplayed J Q K)",
             _bits(state.hands[me], 39) + _bits(faces, 3), _indicator(view["hand"]))]
    for r in range(2):
        rows.append((f"cards played by relative seat {r}", _bits(state.played[(me + r) % 2], 39),
                     _indicator(view["played"][r])))
    return rows


def _haggle(state: Any, me: int, view: Any) -> list[tuple[str, Any, Any]]:
    n = len(state.hands)
    mine = sum(1 << rule for rule in state.rules[me])
    rows = [("hand (colour counts)", list(state.hands[me]), (view["hand"] * 10).tolist()),
            ("my rule cards", _bits(mine, 12), _indicator(view["my_rules"]))]
    for k in range(1, n):
        other = (me + k) % n
        rows.append((f"rule cards relative seat {k} showed me", _bits(state.shown[me * n + other], 12),
                     _indicator(view["shown_to_me"][k - 1])))
    return rows


VISIBLE: dict[str, Callable[[Any, int, Any], list[tuple[str, Any, Any]]]] = {
    "red7_v0": _red7, "gongzhu_v0": _gongzhu, "jaipur_v0": _jaipur, "haggis_v0": _haggis,
    "haggle_v0": _haggle,
}
"""Per env: (what, expected from the rules state, decoded from the observation) rows."""


@pytest.mark.parametrize("name", sorted(VISIBLE))
def test_every_card_a_seat_sees_is_in_its_observation(name: str) -> None:
    env = make_raw(name, {})
    layout = env.encoding.layout
    rng = np.random.default_rng(0)
    compared = 0
    for episode in range(6):
        env.reset(seed=episode)
        while env.agents and compared < 1500:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            state = env.game_state()
            if state is not None:  # every seat, at every decision
                for me, seat_agent in enumerate(env.possible_agents):
                    view = layout.view(env.observe(seat_agent)["observation"])
                    for what, expected, seen in VISIBLE[name](state, me, view):
                        assert seen == pytest.approx(expected), (name, what, me)
                        compared += 1
            env.step(random_legal(env.action_mask(), rng))
    assert compared > 200
