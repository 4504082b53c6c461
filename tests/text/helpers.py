"""Shared pieces of the text-face tests: short games of every env, positions, hidden cards."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from cardgames_env.core.cards import cards_of, french_card_str
from cardgames_env.registry import ALL_ENVS, load

MAX_STEPS = {"gongzhu_v0": 60, "haggis_v0": 80, "jaipur_v0": 80, "haggle_v0": 120, "red7_v0": 80}
"""Turn limit of the short games the tests play (every env of the package is listed)."""


def short_env(name: str, **options: Any) -> Any:
    """A raw env of ``name`` that tracks moves, with a short turn limit."""
    env = load(name).raw_env(max_steps=MAX_STEPS.get(name, 80), **options)
    env.track_moves()
    return env


def positions(name: str, episodes: int, seed: int = 0, **options: Any) -> Iterator[Any]:
    """Play random episodes of a short env; yield the env at every decision of a live seat."""
    env = short_env(name, **options)
    rng = np.random.default_rng(seed)
    for episode in range(episodes):
        env.reset(seed=seed * 100 + episode)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            yield env
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))


def _gongzhu(state: Any, seat: int) -> set[str]:
    return {french_card_str(c) for p, hand in enumerate(state.hands) if p != seat for c in cards_of(hand)}


def _haggis(state: Any, seat: int) -> set[str]:
    from cardgames_env.envs.haggis.cards import FACE_MASK, card_str, ids_of

    return {card_str(c) for p, hand in enumerate(state.hands) if p != seat for c in ids_of(hand & ~FACE_MASK)}


def _red7(state: Any, seat: int) -> set[str]:
    from cardgames_env.envs.red7.cards import card_str

    return {card_str(c) for p, hand in enumerate(state.hands) if p != seat for c in cards_of(hand)}


def _haggle(state: Any, seat: int) -> set[str]:
    from cardgames_env.envs.haggle.cards import rule_str

    n = state.num_players
    own = set(state.rules[seat])
    return {
        rule_str(r) for p in range(n) if p != seat for r in state.rules[p]
        if not state.shown[seat * n + p] >> r & 1 and r not in own
    }


HIDDEN_CODES: dict[str, Callable[[Any, int], set[str]]] = {
    "gongzhu": _gongzhu, "haggis": _haggis, "red7": _red7, "haggle": _haggle,
}
"""Per game with unique card names: the names of the cards a seat cannot see (others' hidden
cards; Haggle's: the rule cards it has not seen). Jaipur's cards are goods kinds shared by
many cards, so a name says nothing there."""
FACE_UP_MOVES = ("gongzhu", "haggis", "red7")
"""Games whose moves show their cards to everyone (a card played earlier is public)."""

__all__ = ["ALL_ENVS", "FACE_UP_MOVES", "HIDDEN_CODES", "MAX_STEPS", "positions", "short_env"]
