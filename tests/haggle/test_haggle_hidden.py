"""Haggle hidden information: moving cards a player cannot see never changes its observation.

A player knows its own hand and rule cards, every hand size, the rule cards others have shown
it, and the contents only of the offers and trades it took part in (docs/rules/haggle.md, "The
game in the env"). The perturbations, written here independently of ``rules.resample_hidden``:

* two other seats trade one colour card each (different colours), keeping every card the
  player can place: what a seat received from the player in its latest trade (when it has
  not traded since), the cards of a pending offer, and cards handed in (submission variant);
* an other seat's rule card that nobody but its owner has seen is exchanged for an undealt
  copy (rule cards of a seat stay different).

Nothing moves once the game is being scored (scores depend on every hand).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cardgames_env.envs.haggle import rules
from cardgames_env.envs.haggle.env import TEST_VARIANTS
from cardgames_env.envs.haggle.rules import Stage
from tests.envs.leak import check_perturbations, variant_id

COLOURS = 5
MODIFIERS = 12


def _pins(state: rules.State, observer: int, seat: int) -> list[int]:
    """Colour counts of ``seat`` that ``observer`` may be able to place (kept in place)."""
    pins = [0] * COLOURS
    sources = []
    if state.last_partner and state.last_partner[seat] == observer:
        sources.append(state.last_received[seat])
    if seat == state.proposer and any(state.give):
        sources.append(state.give)
    if state.submitted and state.config.submission_phase:
        sources.append(state.submitted[seat])
    for counts in sources:
        pins = [max(p, c) for p, c in zip(pins, counts)]
    return pins


def _colour_swap(state: rules.State, observer: int, rng: np.random.Generator) -> rules.State | None:
    others = [s for s in range(state.num_players) if s != observer]
    if len(others) < 2:
        return None
    a, b = (int(s) for s in rng.choice(others, size=2, replace=False))
    pa, pb = _pins(state, observer, a), _pins(state, observer, b)
    xs = [c for c in range(COLOURS) if state.hands[a][c] > pa[c]]
    ys = [c for c in range(COLOURS) if state.hands[b][c] > pb[c]]
    pairs = [(x, y) for x in xs for y in ys if x != y]
    if not pairs:
        return None
    x, y = pairs[rng.integers(len(pairs))]
    hands = [list(h) for h in state.hands]
    hands[a][x] -= 1
    hands[b][x] += 1
    hands[b][y] -= 1
    hands[a][y] += 1
    return dataclasses.replace(state, hands=tuple(tuple(h) for h in hands))


def _seen_by_anyone(state: rules.State, owner: int, card: int) -> bool:
    n = state.num_players
    if state.show == card and state.proposer == owner and state.stage >= Stage.TERMS:
        return True
    return any(state.shown[v * n + owner] >> card & 1 for v in range(n) if v != owner)


def _rule_swap(state: rules.State, observer: int, rng: np.random.Generator) -> rules.State | None:
    n = state.num_players
    used = [0] * MODIFIERS
    for pair in state.rules:
        for r in pair:
            used[r] += 1
    spare = [r for r in range(MODIFIERS) if used[r] < state.config.rule_copies]
    options = [
        (seat, r, new)
        for seat in range(n)
        if seat != observer
        for r in state.rules[seat]
        if not _seen_by_anyone(state, seat, r)
        for new in spare
        if new not in state.rules[seat]
    ]
    if not options:
        return None
    seat, r, new = options[rng.integers(len(options))]
    pair = [new if card == r else card for card in state.rules[seat]]
    new_rules = list(state.rules)
    new_rules[seat] = (min(pair), max(pair))
    return dataclasses.replace(state, rules=tuple(new_rules))


def perturb(state: rules.State, observer: int, rng: np.random.Generator) -> rules.State | None:
    if state.scores is not None or state.stage >= Stage.SCORE:
        return None
    out, moved = state, False
    for _ in range(int(rng.integers(1, 4))):
        step = _colour_swap(out, observer, rng) if rng.random() < 0.7 else _rule_swap(out, observer, rng)
        if step is not None:
            out, moved = step, True
    return out if moved else None


def valid(state: rules.State, other: rules.State, observer: int) -> None:
    """Only hidden hands and unseen rule cards changed; every public count and record holds."""
    n = state.num_players
    assert dataclasses.replace(other, hands=state.hands, rules=state.rules) == state
    assert other.hands[observer] == state.hands[observer] and other.rules[observer] == state.rules[observer]
    others = [s for s in range(n) if s != observer]
    for seat in others:
        assert sum(other.hands[seat]) == sum(state.hands[seat])  # hand sizes are public
        assert all(h >= p for h, p in zip(other.hands[seat], _pins(state, observer, seat)))
        assert all(h >= 0 for h in other.hands[seat])
    for colour in range(COLOURS):
        assert sum(other.hands[s][colour] for s in others) == sum(state.hands[s][colour] for s in others)
    used = [0] * MODIFIERS
    for seat in range(n):
        low, high = other.rules[seat]
        assert low < high  # two different rule cards
        used[low] += 1
        used[high] += 1
        for viewer in range(n):  # every rule card somebody saw is still where it was seen
            seen = other.shown[viewer * n + seat]
            assert all(not seen >> r & 1 or r in other.rules[seat] for r in range(MODIFIERS))
    assert max(used) <= state.config.rule_copies


@pytest.mark.parametrize("options", TEST_VARIANTS, ids=variant_id)
def test_moving_unseen_cards_and_rule_cards_changes_no_observation(options):
    # Two players: the opponent's colour cards are the deck minus my hand, only rule cards hide.
    episodes = {8: 2, 2: 40}.get(options.get("num_players", 4), 6)
    checks, changed = check_perturbations("haggle_v0", options, perturb, valid, episodes=episodes, seed=11)
    assert checks >= 300 and changed >= 0.9 * checks, (checks, changed)
