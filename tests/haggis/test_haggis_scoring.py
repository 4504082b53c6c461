"""Haggis scoring, table-driven from docs/rules/haggis.md, "Play of a hand" (hand-derived values)."""

from __future__ import annotations

import pytest

from cardgames_env.envs.haggis.cards import mask_of_strings
from cardgames_env.envs.haggis.scoring import card_points, going_out_bonus, points_of_mask, trick_award


@pytest.mark.parametrize(
    "cards,points",
    [
        ("3S 3H 5D 5C", 4),  # 9.3 vector 1
        ("8S 9S 10S", 1),  # 9.3 vector 2, the run
        ("J Q", 5),  # 9.3 vector 2, the bomb
        ("2S 4H 6D 8C 10S", 0),  # even cards are worth nothing
        ("3S 5S 7S 9S", 4),
        ("J", 2),
        ("Q", 3),
        ("K", 5),
        ("J Q K", 10),
        ("", 0),
    ],
)
def test_card_points(cards, points):
    assert card_points(cards.split()) == points
    assert points_of_mask(mask_of_strings(cards.split())) == points


def test_full_two_player_deck_is_36_points():
    numbers = [f"{r}{s}" for r in range(2, 11) for s in "SHDC"]
    assert card_points(numbers) == 16
    assert card_points(numbers + ["J", "Q", "K", "J", "Q", "K"]) == 36


def test_trick_award():
    assert trick_award(1, False, 4) == (0, 4)  # 9.3 vector 1: B wins +4
    assert trick_award(1, True, 6) == (6, 0)  # 9.3 vector 2: won with a bomb -> A +6


@pytest.mark.parametrize("left,bonus", [(0, 0), (1, 5), (7, 35), (17, 85)])
def test_going_out_bonus(left, bonus):
    assert going_out_bonus(left) == bonus


def test_bad_input():
    with pytest.raises(ValueError):
        card_points(["5S", "5S"])
    with pytest.raises(ValueError):
        going_out_bonus(-1)
