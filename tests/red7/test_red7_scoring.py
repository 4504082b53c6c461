"""Red7 rule evaluation and scoring, table-driven from hand-derived cases of docs/rules/red7.md,
"The seven rules"."""

from __future__ import annotations

import itertools
import random

import pytest

from cardgames_env.envs.red7.cards import card_id, card_str, parse_card
from cardgames_env.envs.red7.scoring import scored_points, winning_player

# Hand-derived: (rule, palettes P0 first, winner)
VECTORS = [
    ("R", [["G7", "R1"], ["O7"]], 1),  # Orange beats Green at 7
    ("O", [["R3", "G3", "V6"], ["B5", "I5"]], 1),  # size 2 each, B5 > R3
    ("O", [["V4", "I4", "Y2", "O2"], ["G3", "B3"]], 0),  # P0 picks the 4s, I4 > G3
    ("O", [["V2", "I2", "B2"], ["R7", "O7"]], 0),  # size beats height
    ("Y", [["R1", "R2"], ["V7", "V6"]], 1),  # size 2 each, V7 > R2
    ("G", [["R2", "O4", "Y7"], ["G6", "B6"]], 1),
]


@pytest.mark.parametrize(("rule", "palettes", "winner"), VECTORS)
def test_reference_vectors(rule: str, palettes: list[list[str]], winner: int) -> None:
    assert winning_player(rule, palettes) == winner


# Hand-derived: (rule, palette, points of Q)
POINTS = [
    ("R", ["G7", "R1"], 7),  # Q = {G7}
    ("O", ["V4", "I4", "Y2", "O2"], 8),  # the 4s win the tie (I4 > O2)
    ("Y", ["R1", "R2", "V7", "V6"], 13),  # violet group holds V7
    ("G", ["R2", "O4", "Y7"], 6),
    ("B", ["R1", "R5", "G2"], 7),  # best red R5 + G2
    ("I", ["Y3", "R4", "B4", "G5", "V1"], 12),  # A2: 3-4-4-5 is a run of 3: Y3 + R4 + G5
    ("I", ["R1", "O2", "Y5", "G6"], 11),  # two runs of 2: the higher one (5-6)
    ("V", ["R1", "V3", "B6"], 4),
    ("V", ["R7", "B6"], 0),  # no qualifying card
    ("G", [], 0),
]


@pytest.mark.parametrize(("rule", "palette", "points"), POINTS)
def test_scored_points(rule: str, palette: list[str], points: int) -> None:
    assert scored_points(rule, palette) == points


def test_nobody_qualifies_means_nobody_wins() -> None:
    assert winning_player("V", [["R7"], ["O6", "B5"]]) is None
    assert winning_player("G", [["R7"], ["G4"]]) == 1


def test_indigo_counts_distinct_numbers() -> None:
    # P0 has 3-4-4-5 (run of 3), P1 has 6-7 (run of 2): length wins.
    assert winning_player("I", [["V3", "I4", "B4", "V5"], ["R6", "R7"]]) == 0


def test_bad_input_raises() -> None:
    with pytest.raises(ValueError, match="ROYGBIV"):
        winning_player("X", [["R1"]])
    with pytest.raises(ValueError, match="not a Red7 card"):
        scored_points("R", ["R8"])
    with pytest.raises(ValueError, match="twice|two palettes"):
        winning_player("R", [["R1"], ["R1"]])


def test_card_ids_follow_card_order() -> None:
    names = [card_str(c) for c in range(49)]
    assert names[0] == "V1" and names[48] == "R7" and names[6] == "R1" and names[7] == "V2"
    assert all(parse_card(n) == i for i, n in enumerate(names))
    assert card_id(7, 0) == 48


# -- an independent brute force of "The seven rules" -----------------------------------------------

ORDER = "VIBGYOR"  # weakest colour first


def _key(card: str) -> tuple[int, int]:
    return int(card[1]), ORDER.index(card[0])


def _q(rule: str, palette: list[str]) -> list[str]:
    if not palette:
        return []
    if rule == "R":
        return [max(palette, key=_key)]
    if rule == "G":
        return [c for c in palette if int(c[1]) % 2 == 0]
    if rule == "V":
        return [c for c in palette if int(c[1]) < 4]
    if rule == "B":
        return [max((c for c in palette if c[0] == col), key=_key) for col in {c[0] for c in palette}]
    if rule in "OY":
        attr = 1 if rule == "O" else 0
        groups = [[c for c in palette if c[attr] == v] for v in {c[attr] for c in palette}]
        return max(groups, key=lambda g: (len(g), max(map(_key, g))))
    numbers = sorted({int(c[1]) for c in palette})
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    best = max(runs, key=lambda r: (len(r), r[-1]))
    return [max((c for c in palette if int(c[1]) == n), key=_key) for n in best]


def _brute_winner(rule: str, palettes: list[list[str]]) -> int | None:
    values = []
    for p in palettes:
        q = _q(rule, p)
        values.append((len(q), max(map(_key, q))) if q else (0, (0, 0)))
    best = max(values)
    return values.index(best) if best[0] else None


ALL = [c + str(n) for n in range(1, 8) for c in "ROYGBIV"]


def test_matches_brute_force_on_random_palettes() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        players = rng.randint(2, 4)
        cards = rng.sample(ALL, rng.randint(players, 24))
        cuts = sorted(rng.sample(range(1, len(cards)), players - 1))
        palettes = [cards[a:b] for a, b in itertools.pairwise([0, *cuts, len(cards)])]
        rule = rng.choice("ROYGBIV")
        assert winning_player(rule, palettes) == _brute_winner(rule, palettes), (rule, palettes)
        q = _q(rule, palettes[0])
        assert scored_points(rule, palettes[0]) == sum(int(c[1]) for c in q)


def test_strength_tables_agree_with_qualifying_sets() -> None:
    """strengths() (one pass, cached) = |Q| * 64 + highest card of Q for every rule."""
    from cardgames_env.envs.red7.scoring import qualifying, strength, strengths

    rng = random.Random(11)
    for _ in range(3000):
        palette = sum(1 << c for c in rng.sample(range(49), rng.randint(0, 12)))
        for rule in range(7):
            q = qualifying(rule, palette)
            expected = q.bit_count() * 64 + q.bit_length() - 1 if q else 0
            assert strength(rule, palette) == expected
            assert strengths(palette)[rule] == expected


def test_winning_cards_agree_with_adding_each_card() -> None:
    """winning_cards / WINNING_CARDS_BELOW = the hand cards whose addition beats the threshold,
    checked card by card with strength() of the bigger palette."""
    from cardgames_env.envs.red7.scoring import (
        WINNING_CARDS_BELOW,
        strength,
        winning_additions,
        winning_cards,
    )

    rng = random.Random(12)
    for _ in range(3000):
        cards = rng.sample(range(49), rng.randint(1, 16))
        split = rng.randint(0, len(cards) - 1)
        palette = sum(1 << c for c in cards[:split])
        hand = sum(1 << c for c in cards[split:])
        rule = rng.randrange(7)
        threshold = rng.choice([0, rng.randrange(64, 8 * 64), strength(rng.randrange(7), palette)])
        expected = sum(1 << c for c in cards[split:] if strength(rule, palette | 1 << c) > threshold)
        assert winning_cards(rule, palette, threshold, hand) == expected, (rule, palette, hand, threshold)
        thresholds = [threshold] * 7
        assert winning_additions(palette, thresholds)[rule] & hand == expected
        if strength(rule, palette) <= threshold:
            assert WINNING_CARDS_BELOW[rule](palette, threshold, hand) == expected
