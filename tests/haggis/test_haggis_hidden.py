"""Haggis hidden information: exchanging number cards between the opponent's hand and the
cards out of play never changes what a player observes.

A player sees its own hand, every played card and both players' unplayed J, Q, K (face cards
lie face up, docs/rules/haggis.md, "Dealing a hand"). It does not know which of the other number cards are in
the opponent's hand and which are among the 8 undealt ones: passing is always allowed, so
play shows nothing about a hand beyond its size. The perturbation trades 1-3 of the
opponent's number cards for unseen ones, keeping its hand size; cards the opponent has
already selected for the play it is building stay put. Written here, independently of
``rules.resample_hidden``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cardgames_env.envs.haggis import rules
from cardgames_env.envs.haggis.env import TEST_VARIANTS
from tests.envs.leak import check_perturbations, variant_id

NUMBERS = (1 << 36) - 1  # ids 0..35: 2-10 in four suits; 36-38 are J, Q, K


def _ids(mask: int) -> list[int]:
    return [c for c in range(39) if mask >> c & 1]


def perturb(state: rules.State, observer: int, rng: np.random.Generator, decision) -> rules.State | None:
    opp = 1 - observer
    selected = decision.selected if state.to_move == opp else 0
    seen = state.hands[observer] | state.played[0] | state.played[1]
    mine = _ids(state.hands[opp] & NUMBERS & ~selected)
    unseen = _ids(NUMBERS & ~seen & ~state.hands[opp])  # the undealt number cards
    if not mine or not unseen:
        return None
    hand = state.hands[opp]
    for _ in range(int(rng.integers(1, 4))):
        if not mine or not unseen:
            break
        x = mine.pop(int(rng.integers(len(mine))))
        y = unseen.pop(int(rng.integers(len(unseen))))
        hand ^= 1 << x | 1 << y
    hands = (hand, state.hands[1]) if opp == 0 else (state.hands[0], hand)
    return dataclasses.replace(state, hands=hands)


def valid(state: rules.State, other: rules.State, observer: int) -> None:
    """Only the opponent's number cards changed; sizes, faces and played cards are the same."""
    opp = 1 - observer
    assert dataclasses.replace(other, hands=state.hands) == state
    assert other.hands[observer] == state.hands[observer]
    assert other.hands[opp].bit_count() == state.hands[opp].bit_count()
    assert other.hands[opp] & ~NUMBERS == state.hands[opp] & ~NUMBERS  # faces are public
    assert not other.hands[opp] & NUMBERS & (other.hands[observer] | other.played[0] | other.played[1])
    if not other.hand_over and rules.current_player(other) >= 0:
        assert rules.legal_moves(other)  # passing, at least, unless leading


@pytest.mark.parametrize("options", TEST_VARIANTS, ids=variant_id)
def test_exchanging_unseen_number_cards_changes_no_observation(options):
    episodes = 1 if not options else 2
    checks, changed = check_perturbations(
        "haggis_v0", options, perturb, valid, episodes=episodes, seed=3, with_decision=True
    )
    assert checks >= 300 and changed == checks, (checks, changed)
