"""Red7 hidden information: exchanging cards between the places a seat cannot see never
changes what it observes.

Hidden from a seat (docs/rules/red7.md, "Cards", "A turn", "The advanced game"): the other seats'
hands except the cards everybody saw enter them (``known_hands``: cards drawn from a known deck
top), the deck below its known top cards, and the unseen hands of other eliminated seats. Palettes,
the canvas, the scored cards, every size and the known cards are public. The perturbation swaps two
cards between such hidden places (or within the deck), written here independently of
``resample_hidden``.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env.envs.red7 import rules
from cardgames_env.envs.red7.env import TEST_VARIANTS
from tests.envs.leak import check_perturbations, variant_id


def _cards(mask: int) -> list[int]:
    return [c for c in range(49) if mask >> c & 1]


def _hidden_slots(state: rules.State, observer: int) -> list[tuple[str, int, int]]:
    """Every hidden card with its place: ``("hand", seat, card)``, ``("out", seat, card)``,
    ``("deck", index, card)``."""
    slots = []
    for seat in range(state.num_players):
        if seat == observer:
            continue
        known = state.known_hands[seat] if state.known_hands else 0
        slots += [("hand", seat, c) for c in _cards(state.hands[seat] & ~known)]
        if state.out_hidden:
            slots += [("out", seat, c) for c in _cards(state.out_hidden[seat])]
    slots += [("deck", i, c) for i, c in enumerate(state.deck) if i >= state.known_top]
    return slots


def perturb(state: rules.State, observer: int, rng: np.random.Generator) -> rules.State | None:
    """Swap the cards of 1-3 random pairs of hidden places."""
    slots = _hidden_slots(state, observer)
    if len(slots) < 2:
        return None
    hands, out, deck = list(state.hands), list(state.out_hidden), list(state.deck)
    where = {card: (kind, index) for kind, index, card in slots}
    for _ in range(int(rng.integers(1, 4))):
        i, j = rng.choice(len(slots), size=2, replace=False)
        x, y = slots[i][2], slots[j][2]
        for card, new in ((x, y), (y, x)):
            kind, index = where[card]
            if kind == "hand":
                hands[index] ^= 1 << card | 1 << new
            elif kind == "out":
                out[index] ^= 1 << card | 1 << new
            else:
                deck[index] = new
        where[x], where[y] = where[y], where[x]
        slots[i], slots[j] = (slots[i][0], slots[i][1], y), (slots[j][0], slots[j][1], x)
    return state._replace(hands=tuple(hands), out_hidden=tuple(out), deck=tuple(deck))


def valid(state: rules.State, other: rules.State, observer: int) -> None:
    """Same public facts: sizes, known cards, known deck top, the same cards in play."""
    assert other._replace(hands=state.hands, out_hidden=state.out_hidden, deck=state.deck) == state
    assert other.hands[observer] == state.hands[observer]
    top = state.known_top
    assert len(other.deck) == len(state.deck) and other.deck[:top] == state.deck[:top]
    for seat in range(state.num_players):
        assert other.hands[seat].bit_count() == state.hands[seat].bit_count()
        if state.known_hands:
            assert other.hands[seat] & state.known_hands[seat] == state.known_hands[seat]
        if state.out_hidden:
            assert other.out_hidden[seat].bit_count() == state.out_hidden[seat].bit_count()
        assert not other.hands[seat] & (state.palettes[seat] | state.canvas | state.scored)
    everything = sorted(_cards(sum(other.hands) + sum(other.out_hidden or (0,))) + list(other.deck))
    assert everything == sorted(_cards(sum(state.hands) + sum(state.out_hidden or (0,))) + list(state.deck))
    assert len(set(everything)) == len(everything)
    if rules.current_player(other) >= 0:
        assert rules.legal_moves(other)  # giving up at least ("A turn")


@pytest.mark.parametrize("options", TEST_VARIANTS, ids=variant_id)
def test_swapping_hidden_cards_changes_no_observation(options):
    episodes = 3 if options.get("advanced") else 40
    checks, changed = check_perturbations("red7_v0", options, perturb, valid, episodes=episodes, seed=7)
    assert checks >= 300 and changed >= 0.9 * checks, (checks, changed)
