"""Gong Zhu hidden information: moving cards between the other seats' hands, as far as the
public history allows, never changes what a seat observes.

A seat knows its own hand, every played card, each seat's hand size, the suits each seat has
shown it is void in, and in hand 1 who holds the unplayed ♠2 (its holder led the first trick,
docs/rules/gongzhu.md, "Play of a hand"). The perturbation below swaps cards between two other seats' hands
keeping all of that: a card never goes to a seat void in its suit, and the ♠2 never moves
in hand 1. It is written here, independently of ``rules.resample_hidden``.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env.envs.gongzhu import rules
from cardgames_env.envs.gongzhu.env import TEST_VARIANTS
from tests.envs.leak import check_perturbations, variant_id

SPADE_TWO = 39  # spades (suit 3) * 13 + rank 2 (index 0)


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def _pinned(state: rules.State, card: int) -> bool:
    """True for a card whose holder every seat knows: the ♠2 during hand 1."""
    return card == SPADE_TWO and state.hand_number == 1


def perturb(state: rules.State, observer: int, rng: np.random.Generator) -> rules.State | None:
    """Swap 1-3 pairs of cards between two other seats' hands, respecting voids and the ♠2."""
    others = [s for s in range(4) if s != observer]
    hands = list(state.hands)
    swapped = False
    for _ in range(int(rng.integers(1, 4))):
        a, b = (int(x) for x in rng.choice(others, size=2, replace=False))
        give = [c for c in _cards(hands[a]) if not state.voids[b] >> (c // 13) & 1 and not _pinned(state, c)]
        take = [c for c in _cards(hands[b]) if not state.voids[a] >> (c // 13) & 1 and not _pinned(state, c)]
        if not give or not take:
            continue
        x, y = give[rng.integers(len(give))], take[rng.integers(len(take))]
        hands[a] ^= 1 << x | 1 << y
        hands[b] ^= 1 << x | 1 << y
        swapped = True
    return state._replace(hands=tuple(hands)) if swapped else None


def valid(state: rules.State, other: rules.State, observer: int) -> None:
    """The perturbed state is one the public history allows ("Play of a hand" rules)."""
    assert other._replace(hands=state.hands) == state  # only the hands moved
    assert other.hands[observer] == state.hands[observer]
    assert sum(other.hands) == sum(state.hands) and sum(h.bit_count() for h in other.hands) == sum(
        h.bit_count() for h in state.hands
    )
    for seat in range(4):
        assert other.hands[seat].bit_count() == state.hands[seat].bit_count()
        for card in _cards(other.hands[seat]):
            assert not state.voids[seat] >> (card // 13) & 1, "a card went to a seat void in its suit"
            assert not other.played[seat] >> card & 1
        if state.hand_number == 1 and state.hands[seat] >> SPADE_TWO & 1:
            assert other.hands[seat] >> SPADE_TWO & 1, "the first leader's ♠2 moved"
    if not other.hand_over:  # the seat to move can still move by the rules
        assert rules.legal_moves(other)


@pytest.mark.parametrize("options", TEST_VARIANTS, ids=variant_id)
def test_moving_hidden_cards_between_other_hands_changes_no_observation(options):
    episodes = 2 if options.get("game_end") is not None else 10
    checks, changed = check_perturbations("gongzhu_v0", options, perturb, valid, episodes=episodes, seed=16)
    assert checks >= 1500 and changed >= 0.9 * checks, (checks, changed)
