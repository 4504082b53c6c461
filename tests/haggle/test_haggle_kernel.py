"""Haggle's batched engine against the AEC env (the reference), move by move, and its scorer."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env import vector
from cardgames_env.envs.haggle import kernel as kernels
from cardgames_env.envs.haggle import rules, scoring
from cardgames_env.envs.haggle.env import TEST_VARIANTS
from tests.vector.differential import run_differential


def _capped(state: rules.State) -> bool:
    """Whether scoring ``state``'s hands draws the random 13-card cap (rule S12)."""
    return any(sum(hand) > scoring.CARD_LIMIT for hand in state.handed_in())


@pytest.mark.parametrize("options", TEST_VARIANTS, ids=str)
def test_matches_the_aec_env_move_by_move(options: dict) -> None:
    compared = run_differential("haggle_v0", options, games=200, seed=1, rewards_need_the_deal=_capped)
    assert compared > 200 * 10


@pytest.mark.slow
@pytest.mark.parametrize("options", TEST_VARIANTS, ids=str)
def test_matches_the_aec_env_move_by_move_long(options: dict) -> None:
    run_differential("haggle_v0", options, games=2000, seed=2, rewards_need_the_deal=_capped)


SCORING_VARIANTS = (
    {},
    {"eliminated_in_globals": True},
    {"yellow_cascade": False, "yellow_min_count": 2},
    {"elimination_penalty": -10, "pyramid_final": False},
    {"num_players": 2, "eliminated_margin": 3},
    {"num_players": 7},
)


def _random_hands(rng: np.random.Generator, n: int) -> list[tuple[int, ...]]:
    """Hands of 0..13 cards leaning to the rare cases: 7+ of a colour, pyramids, 5 Blue."""
    hands = []
    for _ in range(n):
        kind = rng.integers(4)
        if kind == 0:
            hand = tuple(int(c) for c in rng.permutation([0, 1, 2, 3, 4]))
        elif kind == 1:
            hand = tuple(int(c) for c in rng.multinomial(int(rng.integers(7, 14)), [0.6, 0.1, 0.1, 0.1, 0.1]))
        else:
            hand = tuple(int(c) for c in rng.multinomial(int(rng.integers(0, 14)), [0.2] * 5))
        hands.append(hand)
    return hands


@pytest.mark.parametrize("options", SCORING_VARIANTS, ids=str)
def test_kernel_scoring_equals_the_scorer(options: dict) -> None:
    """The kernel's scoring and reward formula equal ``scoring.score_counts`` + ``rules.returns``
    on hands of at most 13 cards (no cap draw), with the rare modifiers forced often."""
    vec = vector.make("haggle_v0", num_envs=1, seed=0, **options)
    config = vec.config
    n = config.num_players
    rng = np.random.default_rng(5)
    out = np.zeros(n, dtype=np.float32)
    work = np.full(kernels.WORK_SIZE, 99, dtype=np.int64)  # stale work space must not matter
    for _ in range(3000):
        hands = _random_hands(rng, n)
        row = vec.slots[0].copy()
        lay = vec._layout
        row[lay.hands : lay.rules] = np.ravel(hands)
        params = vec.params.copy()
        params[kernels.P_SUBMISSION] = 0
        kernels._score(row, params, vec.rng_state.copy(), 0, out, work)
        scores = scoring.score_counts(hands, None, config.scoring)
        state = rules.State(config=config, hands=tuple(hands), rules=((0, 1),) * n, scores=tuple(scores))
        expected = np.array(rules.returns(state), dtype=np.float32)
        assert np.array_equal(out, expected), (hands, scores, out, expected)


def test_cap_keeps_a_uniform_thirteen_card_subset() -> None:
    """Rule S12 (decision A7: every card equally likely to go): a 20-card hand keeps
    13 cards, never more of a colour than it holds, and each colour's mean kept count is the
    hypergeometric mean 13 x count / 20 (within 5 standard errors over 20,000 draws)."""
    hand = np.array([8, 6, 4, 2, 0], dtype=np.int64)
    state = np.array([12345], dtype=np.uint64)
    cards = np.empty(20, dtype=np.int64)
    kept = np.empty(5, dtype=np.int64)
    trials = 20_000
    totals = np.zeros(5)
    for _ in range(trials):
        kernels.cap_hand(hand, state, 0, cards, kept)
        assert kept.sum() == 13 and np.all(kept <= hand)
        totals += kept
    total, draws = hand.sum(), 13
    p = hand / total
    variance = draws * p * (1 - p) * (total - draws) / (total - 1)
    error = 5 * np.sqrt(variance / trials)
    assert np.all(np.abs(totals / trials - draws * p) <= error + 1e-12)
    small = np.array([3, 3, 3, 2, 2], dtype=np.int64)
    kernels.cap_hand(small, state, 0, cards, kept)
    assert np.array_equal(kept, small), "a hand of 13 cards is kept whole"
