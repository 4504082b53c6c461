"""Haggle scorer: hand-derived vectors for every rule of docs/rules/haggle.md, "Scoring".

Expected values are the reference's own hand derivations; the single-rule vectors come from
MysTrade's unit tests as quoted in the reference (scored here with only that modifier active).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardgames_env.envs.haggle.cards import hand_str, parse_hand
from cardgames_env.envs.haggle.scoring import (
    CARD_LIMIT,
    Config,
    cap_counts,
    score_counts,
    score_hands,
)

# --- multi-player vectors (all rules, default decisions) ----------------------------------
FULL_VECTORS = [
    pytest.param(
        {"Taylor": "YYR", "Tyler": "OWB", "OtherTaylor": "WBRO", "Dummy": "WWWWWWW"},
        {"Taylor": 9, "Tyler": 11, "OtherTaylor": 14, "Dummy": None},
        id="T0-scoring-example",
    ),
    pytest.param(
        {"p1": "YYBRRROOOWWWW", "p2": "YYYBBBBBRRRW", "p3": "YYYBROOOOOOOW", "p4": "BBBRRRROOW"},
        {"p1": 27, "p2": 41, "p3": None, "p4": 110},
        id="M2-mystrade-all-rules",
    ),
    pytest.param(
        {"A": "BBBBB", "B": "BBBBBBO", "C": "YYYYBBWWWW"}, {"A": 0, "B": 18, "C": 4}, id="H1-two-culprits"
    ),
    pytest.param(
        {"A": "BBBBB", "B": "BBBBBBRRR", "C": "YYBBRRRRRR"},
        {"A": 0, "B": 21, "C": 46},
        id="H2-red-protection",
    ),
    pytest.param(
        {"A": "YYYB", "B": "YYYRRR", "C": "YYOO"}, {"A": 5, "B": 21, "C": 6}, id="H3-yellow-tie-next"
    ),
    pytest.param({"A": "YRRR", "B": "BRRR", "C": "WWW"}, {"A": 11, "B": 11, "C": 15}, id="H5-red-tie"),
    pytest.param({"A": "YYYYWWWW", "B": "YWWW"}, {"A": 20, "B": 16}, id="H7-S1-kills-S10"),
    pytest.param({"A": "YYBBRROOWW", "B": "YBROW"}, {"A": 65, "B": 25}, id="H9-two-colour-sets"),
]


@pytest.mark.parametrize("hands, expected", FULL_VECTORS)
def test_reference_vectors_all_rules(hands: dict[str, str], expected: dict[str, int | None]) -> None:
    result = score_hands(hands, rng=np.random.default_rng(0))
    assert result == expected
    assert list(result) == list(hands)  # input order kept


# --- single-modifier vectors (MysTrade tests_haggle.py, per the reference) ----------------
# (scoring rule, hand, expected); the Sackson rule number is in the id.
SINGLE_RULE_VECTORS = [
    pytest.param(1, "WWW", 15, id="HAG04-W3"),
    pytest.param(1, "WWWW", 0, id="HAG04-W4"),
    pytest.param(2, "BBBOOO", 18, id="HAG05-B3O3"),
    pytest.param(2, "BBOOO", 12, id="HAG05-B2O3"),
    pytest.param(7, "YYYYBBBRRO", 20, id="HAG10-Y4B3R2O1"),
    pytest.param(7, "YYYYBBBRROW", 35, id="HAG10-Y4B3R2O1W1"),
    pytest.param(7, "YYYYBBBRROOOWWW", 63, id="HAG10-two-sets"),
    pytest.param(8, "YYYYBBBRRO", 40, id="HAG11-Y4B3R2O1"),
    pytest.param(8, "YBBOOOWWWW", 74, id="HAG11-Y1B2O3W4"),
    pytest.param(8, "YBBROOOWWWW", 40, id="HAG11-no-pyramid"),
    pytest.param(10, "WWW", 15, id="HAG13-W3"),
    pytest.param(10, "YWWW", 16, id="HAG13-Y1W3"),
    pytest.param(10, "YYWWW", 22, id="HAG13-Y2W3"),
    pytest.param(10, "YYYYYYWWW", 36, id="HAG13-Y6W3"),
    pytest.param(10, "YYYYYYYYWWW", 38, id="HAG13-Y8W3"),
    pytest.param(11, "OO", 8, id="HAG14-O2"),
    pytest.param(11, "BBOO", 12, id="HAG14-B2O2"),
    pytest.param(11, "BBBOO", 26, id="HAG14-B3O2"),
    pytest.param(11, "BBBBBBOO", 44, id="HAG14-B6O2"),
    pytest.param(11, "BBBBBBBBBOO", 50, id="HAG14-B9O2"),
]


@pytest.mark.parametrize("modifier, hand, expected", SINGLE_RULE_VECTORS)
def test_single_rule_vectors(modifier: int, hand: str, expected: int) -> None:
    config = Config(modifiers=frozenset({modifier}))
    assert score_hands({"p": hand}, config=config) == {"p": expected}


def test_hag09_elimination_penalty_variant() -> None:
    # MysTrade's rule 9: -10 per colour with >= 7 cards; Y7 B3 W1 = 7 + 6 + 5 - 10.
    config = Config(modifiers=frozenset({6}), elimination_penalty=-10)
    assert score_hands({"p": "YYYYYYYBBBW"}, config=config) == {"p": 8}


def test_hag15_cap_scores_13_of_35_cards() -> None:
    # Only modifier 12: the score is the base value of the 13 kept cards; 35 cards handed in.
    hand = "Y" * 7 + "B" * 7 + "R" * 7 + "O" * 7 + "W" * 7
    counts = parse_hand(hand)
    rng = np.random.default_rng(1)
    kept = cap_counts(counts, rng)
    assert sum(kept) == 13 and all(k <= c for k, c in zip(kept, counts))
    config = Config(modifiers=frozenset({12}))
    for seed in range(20):
        score = score_hands({"p": hand}, rng=np.random.default_rng(seed), config=config)["p"]
        assert score is not None and 13 * 1 <= score <= 13 * 5


# --- each remaining modifier alone (hand-derived) -----------------------------------------
def only(*modifiers: int, **options: object) -> Config:
    return Config(modifiers=frozenset(modifiers), **options)  # type: ignore[arg-type]


def test_base_values_without_modifiers() -> None:
    assert score_hands({"p": "YBROW"}, config=only()) == {"p": 1 + 2 + 3 + 4 + 5}
    assert score_hands({"p": "ybrow"}, config=only()) == {"p": 15}  # case-insensitive
    assert score_hands({"p": ""}, config=only()) == {"p": 0}


def test_modifier_3_blue_penalty_alone() -> None:
    # A (5 Blue) costs every other player 10; A itself is not penalised.
    assert score_hands({"A": "BBBBB", "B": "Y", "C": "RRR"}, config=only(3)) == {"A": 10, "B": -9, "C": -1}
    assert score_hands({"A": "BBBB", "B": "Y"}, config=only(3)) == {"A": 8, "B": 1}


def test_modifier_4_red_protection_with_3() -> None:
    # 3 Red cancel one penalty; 6 Red cancel two; two culprits penalise each other.
    hands = {"A": "BBBBB", "B": "BBBBB", "C": "RRR", "D": "RRRRRR"}
    assert score_hands(hands, config=only(3, 4)) == {"A": 0, "B": 0, "C": 9 - 10, "D": 18}
    assert score_hands(hands, config=only(3)) == {"A": 0, "B": 0, "C": 9 - 20, "D": 18 - 20}


def test_modifier_5_yellow_bonus_alone() -> None:
    assert score_hands({"A": "YYY", "B": "YY"}, config=only(5)) == {"A": 3 + 9, "B": 2}
    # 3,3,2,2,1: cascade to the only unique count, 1.
    hands = {"A": "YYY", "B": "YYY", "C": "YY", "D": "YY", "E": "Y"}
    assert score_hands(hands, config=only(5)) == {"A": 3, "B": 3, "C": 2, "D": 2, "E": 2}
    assert score_hands({"A": "YY", "B": "YY"}, config=only(5)) == {"A": 2, "B": 2}
    assert score_hands({"A": "W", "B": "W"}, config=only(5)) == {"A": 5, "B": 5}  # 0 Yellow wins nothing


def test_modifier_6_elimination_alone() -> None:
    assert score_hands({"A": "WWWWWWW", "B": "WWWWWW"}, config=only(6)) == {"A": None, "B": 30}
    assert score_hands({"A": "YYYYYYYYY"}, config=only(6)) == {"A": None}


def test_modifier_9_red_doubling_alone() -> None:
    assert score_hands({"A": "RR", "B": "R"}, config=only(9)) == {"A": 12, "B": 3}
    assert score_hands({"A": "RR", "B": "RR"}, config=only(9)) == {"A": 6, "B": 6}
    assert score_hands({"A": "Y", "B": "Y"}, config=only(9)) == {"A": 1, "B": 1}


def test_modifier_8_pyramid_must_have_no_other_cards() -> None:
    assert score_hands({"p": "WWWWOOORRB"}, config=only(8)) == {"p": 2 * (20 + 12 + 6 + 2)}
    assert score_hands({"p": "WWWWOOORRBY"}, config=only(8)) == {"p": 41}
    assert score_hands({"p": "WWWWOOORRBB"}, config=only(8)) == {"p": 42}


def test_pyramid_doubles_a_negative_total() -> None:
    # C hands in a pyramid: 4 Orange (no Blue: worth 0), 3 Yellow, 2 Red, 1 White.
    # C: base 3 + 6 + 5 = 14; modifier 10 (one Yellow pair doubles the White) +5 -> 19;
    # culprits A, B, D (5 Blue each) -> -30, 2 Red protect from none; Yellow 4,4,3,3 and
    # Red 3,3,2,0 give nobody a bonus. Final total 19 - 30 = -11, doubled -> -22.
    hands = {"A": "BBBBBYYYYRRR", "B": "BBBBBYYYYRRR", "C": "OOOOYYYRRW", "D": "BBBBBYYY"}
    assert score_hands(hands)["C"] == -22
    # Variant: only the subtotal is doubled, then the penalties apply: 2 * 19 - 30.
    assert score_hands(hands, pyramid_final=False)["C"] == 8


# --- variants -------------------------------------------------------------------------------
M2 = {"p1": "YYBRRROOOWWWW", "p2": "YYYBBBBBRRRW", "p3": "YYYBROOOOOOOW", "p4": "BBBRRRROOW"}
T0 = {"Taylor": "YYR", "Tyler": "OWB", "OtherTaylor": "WBRO", "Dummy": "WWWWWWW"}


def test_variant_eliminated_in_globals() -> None:
    # p3 (eliminated, 3 Yellow) ties p2's 3 Yellow: the bonus cascades to p1's 2 (+4);
    # p2 loses its +9. Red: p4's 4 stays the unique most. p3 has 1 Blue: no penalty.
    assert score_hands(M2, eliminated_in_globals=True) == {"p1": 31, "p2": 32, "p3": None, "p4": 110}


def test_variant_yellow_cascade_off() -> None:
    hands = {"A": "YYY", "B": "YYY", "C": "YY", "D": "YY", "E": "Y"}
    assert score_hands(hands, yellow_cascade=False) == {"A": 3, "B": 3, "C": 2, "D": 2, "E": 1}
    # H3: 3,3,2 -> the second-most count (2) is unique: same as the cascade.
    assert score_hands({"A": "YYYB", "B": "YYYRRR", "C": "YYOO"}, yellow_cascade=False) == {
        "A": 5,
        "B": 21,
        "C": 6,
    }


def test_variant_yellow_min_count() -> None:
    assert score_hands({"A": "Y", "B": "W"}) == {"A": 2, "B": 5}
    assert score_hands({"A": "Y", "B": "W"}, yellow_min_count=2) == {"A": 1, "B": 5}
    assert score_hands({"A": "YY", "B": "W"}, yellow_min_count=2) == {"A": 6, "B": 5}


def test_variant_elimination_penalty() -> None:
    # Dummy keeps playing: 7 White worth 0 (modifier 1), -10 for the colour with >= 7 cards.
    assert score_hands(T0, elimination_penalty=-10) == {
        "Taylor": 9,
        "Tyler": 11,
        "OtherTaylor": 14,
        "Dummy": -10,
    }


def test_variant_pyramid_subtotal() -> None:
    # p4 of M2: subtotal 43 doubled = 86, then the Red doubling +12 (penalty cancelled).
    assert score_hands(M2, pyramid_final=False)["p4"] == 98


def test_empty_hand_still_suffers_blue_penalty() -> None:
    assert score_hands({"A": "BBBBB", "B": ""}) == {"A": 10, "B": -10}


@pytest.mark.parametrize(
    "hands, message",
    [({"A": "YYX"}, "'X'"), ({"A": "Y", "Bo": "b1"}, "Bo")],
)
def test_invalid_letters_raise(hands: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        score_hands(hands)


@pytest.mark.parametrize(
    "options",
    [
        {"yellow_min_count": 0},
        {"yellow_cascade": "yes"},
        {"elimination_penalty": 1.5},
        {"modifiers": {13}},
        {"bogus": 1},
    ],
)
def test_bad_options_raise(options: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        score_hands({"A": "Y"}, **options)  # type: ignore[arg-type]


# --- modifier 12 (the cap) as a property ---------------------------------------------------
def kept_options(counts: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every way of keeping 13 cards of a hand (brute force)."""
    ranges = [range(c + 1) for c in counts]
    return [k for k in itertools.product(*ranges) if sum(k) == CARD_LIMIT]


big_hands = st.tuples(*[st.integers(0, 6)] * 5).filter(lambda c: 14 <= sum(c) <= 24)
small_hands = st.tuples(*[st.integers(0, 4)] * 5).filter(lambda c: sum(c) <= 13)


@settings(max_examples=60, deadline=None)
@given(big=big_hands, other=small_hands, seed=st.integers(0, 2**32 - 1))
def test_cap_keeps_13_cards_and_score_is_a_possible_one(
    big: tuple[int, ...], other: tuple[int, ...], seed: int
) -> None:
    kept = cap_counts(big, np.random.default_rng(seed))
    assert sum(kept) == CARD_LIMIT
    assert all(0 <= k <= c for k, c in zip(kept, big))
    hands = {"big": hand_str(big), "other": hand_str(other)}
    result = score_hands(hands, rng=np.random.default_rng(seed))
    possible = {tuple(score_counts([big, other], [option, other])) for option in kept_options(big)}
    assert (result["big"], result["other"]) in possible
    # Elimination looks at the handed-in cards, not the kept ones.
    assert (result["big"] is None) == (max(big) >= 7)


def test_cap_leaves_small_hands_alone_and_draws_nothing() -> None:
    rng = np.random.default_rng(5)
    before = rng.bit_generator.state
    assert cap_counts((4, 3, 2, 1, 3), rng) == (4, 3, 2, 1, 3)
    assert rng.bit_generator.state == before


def test_cap_removes_uniform_cards_not_uniform_colours() -> None:
    # 20 cards, 14 Yellow and 6 White, keep 13: White kept ~ hypergeometric(20, 6, 13), mean 3.9.
    # (A colour-first removal, as in MysTrade, would give a mean of about 6 - 7/2... far lower.)
    rng = np.random.default_rng(123)
    whites = np.array([cap_counts((14, 0, 0, 0, 6), rng)[4] for _ in range(4000)])
    assert abs(whites.mean() - 6 * 13 / 20) < 0.08
    # Hypergeometric variance: n K (N-K) (N-n) / (N^2 (N-1)) = 13*6*14*7 / (400*19) = 1.0058.
    assert abs(whites.var() - 13 * 6 * 14 * 7 / (400 * 19)) < 0.1


def test_seeded_cap_is_reproducible() -> None:
    hands = {"A": "YYYYYYBBBBBBRRRRRRWW", "B": "OOOOOOWWWWWWYYYY"}
    first = score_hands(hands, rng=np.random.default_rng(42))
    assert all(score_hands(hands, rng=np.random.default_rng(42)) == first for _ in range(5))
