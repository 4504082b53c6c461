"""Jaipur hidden information: exchanging what a player cannot see never changes its observation.

Hidden from a player (docs/rules/jaipur.md, "Cards and tokens", "Setting up a round", decision A6):
which goods are in the opponent's hand beyond those it saw enter it (``known``), the deck's order
and content (given the union of the two), the order of the bonus piles and the values of the
opponent's bonus tokens (their counts are public). Herds are left alone: with ``hidden_herd=True``
the opponent's herd size may be derivable from public counts. The perturbations are written here,
independently of ``rules.resample_hidden``:

* a good in the opponent's hand beyond the known ones trades places with a different good
  in the deck (camels never enter a hand);
* two deck cards trade places;
* during a round, an opponent's bonus token trades places with one of the same kind in the
  pile.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cardgames_env.envs.jaipur import rules
from cardgames_env.envs.jaipur.cards import CAMEL, HAND_LIMIT, NUM_GOODS
from cardgames_env.envs.jaipur.env import TEST_VARIANTS
from tests.envs.leak import check_perturbations, variant_id


def _hand_deck_swap(
    state: rules.State, opp: int, rng: np.random.Generator, giving: tuple
) -> rules.State | None:
    hand = list(state.hands[opp])
    known = state.known[opp]
    # Goods of the opponent's hand nobody saw enter it (and not being handed over right now).
    free = [g for g in range(NUM_GOODS) for _ in range(hand[g] - max(known[g], giving[g]))]
    deck = list(state.deck)
    if not free or not deck:
        return None
    g = free[rng.integers(len(free))]
    spots = [i for i, k in enumerate(deck) if k != g and k != CAMEL]
    if not spots:
        return None
    i = spots[rng.integers(len(spots))]
    hand[g] -= 1
    hand[deck[i]] += 1
    deck[i] = g
    hands = tuple(tuple(hand) if p == opp else state.hands[p] for p in range(2))
    return dataclasses.replace(state, hands=hands, deck=tuple(deck))


def _deck_swap(state: rules.State, rng: np.random.Generator) -> rules.State | None:
    deck = list(state.deck)
    spots = [(i, j) for i in range(len(deck)) for j in range(i) if deck[i] != deck[j]]
    if not spots:
        return None
    i, j = spots[rng.integers(len(spots))]
    deck[i], deck[j] = deck[j], deck[i]
    return dataclasses.replace(state, deck=tuple(deck))


def _bonus_swap(state: rules.State, opp: int, rng: np.random.Generator) -> rules.State | None:
    if state.round_over:  # the round's scoring shows every total
        return None
    options = [
        (kind, a, b)
        for kind in range(3)
        for a, held in enumerate(state.bonus_tokens[opp][kind])
        for b, pile in enumerate(state.bonus_piles[kind])
        if held != pile
    ]
    if not options:
        return None
    kind, a, b = options[rng.integers(len(options))]
    held = list(state.bonus_tokens[opp][kind])
    pile = list(state.bonus_piles[kind])
    held[a], pile[b] = pile[b], held[a]
    tokens = tuple(
        tuple(tuple(held) if (p, k) == (opp, kind) else state.bonus_tokens[p][k] for k in range(3))
        for p in range(2)
    )
    piles = tuple(tuple(pile) if k == kind else state.bonus_piles[k] for k in range(3))
    return dataclasses.replace(state, bonus_tokens=tokens, bonus_piles=piles)


def perturb(state: rules.State, observer: int, rng: np.random.Generator, decision) -> rules.State | None:
    """One to three of the exchanges above, chosen at random."""
    opp = 1 - observer
    # With sub-step exchanges, the mover's cards already chosen to give stay in its hand.
    giving = getattr(decision, "give", None)
    giving = tuple(giving) if giving is not None and state.player == opp else (0,) * 7
    out, moved = state, False
    for _ in range(int(rng.integers(1, 4))):
        kind = int(rng.integers(3))
        step = (
            _hand_deck_swap(out, opp, rng, giving) if kind == 0
            else _deck_swap(out, rng) if kind == 1
            else _bonus_swap(out, opp, rng)
        )
        if step is not None:
            out, moved = step, True
    return out if moved else None


def valid(state: rules.State, other: rules.State, observer: int) -> None:
    """Only hidden things moved, and the perturbed state satisfies the rules' invariants."""
    opp = 1 - observer
    same = dataclasses.replace(other, hands=state.hands, deck=state.deck, bonus_tokens=state.bonus_tokens,
                               bonus_piles=state.bonus_piles)
    assert same == state
    assert other.hands[observer] == state.hands[observer]
    assert other.bonus_tokens[observer] == state.bonus_tokens[observer]
    assert sum(other.hands[opp]) == sum(state.hands[opp]) <= HAND_LIMIT and other.hands[opp][CAMEL] == 0
    assert all(k <= h for k, h in zip(state.known[opp], other.hands[opp]))
    assert len(other.deck) == len(state.deck)
    pool = [n + state.deck.count(k) for k, n in enumerate(state.hands[opp])]
    assert pool == [n + other.deck.count(k) for k, n in enumerate(other.hands[opp])]
    for kind in range(3):
        assert len(other.bonus_tokens[opp][kind]) == len(state.bonus_tokens[opp][kind])
        assert sorted(other.bonus_tokens[opp][kind] + other.bonus_piles[kind]) == sorted(
            state.bonus_tokens[opp][kind] + state.bonus_piles[kind]
        )
    assert rules.state_is_valid(other), rules.invalid_reasons(other)


@pytest.mark.parametrize("options", TEST_VARIANTS, ids=variant_id)
def test_exchanging_hidden_cards_and_tokens_changes_no_observation(options):
    episodes = 6 if options.get("rounds") == 1 else 3
    checks, changed = check_perturbations(
        "jaipur_v0", options, perturb, valid, episodes=episodes, seed=5, with_decision=True
    )
    assert checks >= 300 and changed >= 0.9 * checks, (checks, changed)
