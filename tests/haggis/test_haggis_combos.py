"""Haggis combinations: hand-derived vectors (docs/rules/haggis.md, "Combinations"; decisions
A1-A10), bomb order, brute force."""

from __future__ import annotations

import itertools
import random

import pytest

from cardgames_env.envs.haggis.cards import FACE_MASK, J, K, Q, card_id, ids_of, mask_of_strings
from cardgames_env.envs.haggis.combos import (
    BOMB_ORDER,
    beats,
    legal_plays,
    parse_reading,
    reading_str,
    readings,
    readings_of_mask,
)

S = "sequence"

# Hand-derived: cards -> expected readings.
RECOGNITION_VECTORS = [
    ("5S", {(S, 1, 1, 5)}),
    ("J", {(S, 1, 1, 11)}),
    ("K", {(S, 1, 1, 13)}),
    ("2S 2H", {(S, 2, 1, 2)}),
    ("J 2H", {(S, 2, 1, 2)}),
    ("J Q", {("bomb", "JQ")}),
    ("J Q K", {("bomb", "JQK")}),
    ("2S 3H", set()),
    ("2S 3S", set()),
    ("2S 2H 2D", {(S, 3, 1, 2)}),
    ("2S 3S 4S", {(S, 1, 3, 4)}),
]

# Hand-derived from the combination model and decisions A1-A6 of the rules module.
DECISION_VECTORS = [
    ("J 5S 6S", {(S, 1, 3, 6), (S, 1, 3, 7)}),  # A1: run 4-5-6 or 5-6-7
    # 10-J-Q natural (rank 12, seed), 9(Q wild)-10-J (11), 8-9-10 with two wilds, three 10s.
    ("10S J Q", {(S, 1, 3, 12), (S, 1, 3, 11), (S, 1, 3, 10), (S, 3, 1, 10)}),
    ("Q", {(S, 1, 1, 12)}),  # A3
    ("K Q", {("bomb", "QK")}),
    ("J K", {("bomb", "JK")}),
    ("3S 5H 7D 9C", {("bomb", "rainbow")}),  # A6
    ("3S 5S 7S 9S", {("bomb", "suited")}),
    ("3S 5S 7S 9H", set()),  # neither four suits nor one suit
    ("3S 5H 7D J", set()),  # A6: natural cards only; no sequence either
    ("9S 10S J", {(S, 1, 3, 11), (S, 1, 3, 10)}),  # A10: natural J at 11, or wild 8
    ("5S 5H 6S 6H", {(S, 2, 2, 6)}),
    ("5S 5H 6S 6D", set()),  # the same suits in every block
    ("5S 5H 6S J", {(S, 2, 2, 6)}),  # wild J is 6H
    ("2S 2H 2D 2C", {(S, 4, 1, 2)}),
    ("2S 2H 2D 2C J", set()),  # A4: a wild may not duplicate a card -> no five-of-a-kind
    ("2S 3S J Q K", {(S, 1, 5, 6)}),  # three wilds; no rank below 2, so only 2-3-4-5-6
    # 8S J Q K: 8-9-10-J with J natural and Q, K wild is rank 11.
    ("8S J Q K", {(S, 1, 4, 8), (S, 1, 4, 9), (S, 1, 4, 10), (S, 1, 4, 11),
                  (S, 2, 2, 8), (S, 2, 2, 9), (S, 4, 1, 8)}),
]


@pytest.mark.parametrize("cards,expected", RECOGNITION_VECTORS + DECISION_VECTORS)
def test_reference_readings(cards, expected):
    assert readings(cards.split()) == expected


def test_ten_and_wild_pair():
    # "10S Q" is a pair of 10s (wild Q takes another suit): m = 2, l = 1.
    assert readings(["10S", "Q"]) == {(S, 2, 1, 10)}


def test_t_is_ten_and_lowercase():
    assert readings(["ts", "TH"]) == {(S, 2, 1, 10)}


def test_face_singles_variant():
    wild_singles = {(S, 1, 1, r) for r in range(2, 11)}
    assert readings(["Q"], face_singles="J") == wild_singles
    assert readings(["K"], face_singles="J") == wild_singles
    assert readings(["J"], face_singles="J") == {(S, 1, 1, 11)}


def test_no_natural_faces_in_runs_variant():
    assert readings(["10S", "J", "Q"], natural_faces_in_runs=False) == {(S, 1, 3, 10), (S, 3, 1, 10)}


@pytest.mark.parametrize("bad", [["5S", "5S"], ["1S"], ["11S"], ["5X"], ["JJ"]])
def test_bad_cards_raise(bad):
    with pytest.raises(ValueError):
        readings(bad)


# Hand-derived: may a be played on b?
@pytest.mark.parametrize(
    "a,b,expected",
    [
        ((S, 1, 1, 11), (S, 1, 1, 10), True),
        ((S, 2, 1, 9), (S, 2, 1, 9), False),
        ((S, 1, 3, 7), (S, 1, 4, 5), False),
        ((S, 2, 2, 6), (S, 1, 4, 5), False),
        ((S, 1, 3, 11), (S, 1, 3, 10), True),  # A10: 9-10-J beats 8-9-10
        ((S, 2, 1, 3), (S, 3, 1, 2), False),
    ],
)
def test_beating_vectors(a, b, expected):
    assert beats(a, b) is expected


@pytest.mark.parametrize(
    "low,high", list(itertools.combinations(BOMB_ORDER, 2))
)
def test_bomb_order(low, high):
    # Seed: 3579 rainbow < JQ < JK < QK < JQK < 3579 suited.
    expected = ["rainbow", "JQ", "JK", "QK", "JQK", "suited"]
    assert expected.index(low) < expected.index(high)
    assert beats(("bomb", high), ("bomb", low))
    assert not beats(("bomb", low), ("bomb", high))


@pytest.mark.parametrize("name", BOMB_ORDER)
def test_bombs_against_sequences(name):
    for seq in [(S, 1, 1, 13), (S, 4, 1, 10), (S, 1, 12, 13), (S, 2, 3, 5)]:
        assert beats(("bomb", name), seq)
        assert not beats(seq, ("bomb", name))
    assert not beats(("bomb", name), ("bomb", name))


def test_beats_rejects_malformed():
    with pytest.raises(ValueError):
        beats(("bomb", "nuke"), (S, 1, 1, 5))
    with pytest.raises(ValueError):
        beats((S, 1, 2, 5), (S, 1, 1, 5))


@pytest.mark.parametrize(
    "reading,text",
    [
        ((S, 2, 1, 3), "pair 3"),
        ((S, 1, 1, 11), "single J"),
        ((S, 1, 3, 12), "run 10-Q"),
        ((S, 2, 3, 7), "pairs 5-7"),
        ((S, 4, 1, 9), "quad 9"),
        (("bomb", "JQ"), "bomb JQ"),
        (("bomb", "rainbow"), "bomb rainbow"),
    ],
)
def test_reading_notation(reading, text):
    assert reading_str(reading) == text
    assert parse_reading(text) == reading


@pytest.mark.parametrize("text", ["pair", "run 5-6", "bomb big", "pairs 5", "trio 5", "single 14"])
def test_bad_reading_notation(text):
    with pytest.raises(ValueError):
        parse_reading(text)


# -- independent brute force ---------------------------------------------------------------


def brute_readings(numbers: list[tuple[int, int]], faces: list[str]) -> set:
    """Try every value of every face card (wild: rank 2..10 x suit; natural: its own value)."""
    natural = {"J": 11, "Q": 12, "K": 13}
    options = [[(r, s) for r in range(2, 11) for s in range(4)] + [(natural[f], None)] for f in faces]
    out = set()
    for chosen in itertools.product(*options):
        cards = numbers + list(chosen)
        suited = [c for c in cards if c[1] is not None]
        if len(set(suited)) != len(suited):
            continue  # A4: no duplicated card
        ranks = sorted({r for r, _ in cards})
        if ranks != list(range(ranks[0], ranks[0] + len(ranks))):
            continue
        length = len(ranks)
        if any(s is None for _, s in cards):  # natural faces: m = 1 runs only (A5)
            if len(cards) != length or len({s for _, s in suited}) > 1 or length < 3:
                continue
            m = 1
        else:
            blocks = [frozenset(s for r, s in cards if r == rank) for rank in ranks]
            if len(set(blocks)) != 1:
                continue
            m = len(blocks[0])
        if (m, length) == (1, 2):
            continue
        out.add((S, m, length, ranks[-1]))
    return out


def _random_sets(seed: int, count: int, max_faces: int):
    rng = random.Random(seed)
    for _ in range(count):
        n = rng.randint(1, 6)
        numbers = rng.sample([(r, s) for r in range(2, 11) for s in range(4)], n)
        faces = rng.sample(["J", "Q", "K"], rng.randint(0, max_faces))
        yield numbers, faces


def _name(rank: int, suit: int) -> str:
    return f"{rank}{'SHDC'[suit]}"


def test_readings_match_brute_force():
    cases = list(_random_sets(1, 600, 2)) + list(_random_sets(2, 25, 3))
    # plus structured near-misses: runs and blocks with a face or two
    for r in range(2, 9):
        cases.append(([(r, 0), (r + 1, 0)], ["J"]))
        cases.append(([(r, 0), (r, 1), (r + 2, 0)], ["Q"]))
        cases.append(([(9, 0), (10, 0)], ["J", "Q"]))
    for numbers, faces in cases:
        names = [_name(r, s) for r, s in numbers] + faces
        got = readings(names)
        rs = sorted(r for r, _ in numbers)
        is_bomb_shape = not faces and rs == [3, 5, 7, 9]
        expected = set() if is_bomb_shape else brute_readings(numbers, faces)
        if is_bomb_shape:
            suits = {s for _, s in numbers}
            names_by_suits = {4: {("bomb", "rainbow")}, 1: {("bomb", "suited")}}
            expected = names_by_suits.get(len(suits), set())
        assert got == expected, names


def test_face_only_sets():
    # A2/A3: face cards alone are singles (one) or bombs (two, three).
    assert readings_of_mask(1 << J) == {(S, 1, 1, 11)}
    assert readings_of_mask(FACE_MASK) == {("bomb", "JQK")}
    assert readings_of_mask(0) == frozenset()


def brute_plays(hand: int, table, lone_qk_wild=False, natural_runs=True):
    """Every subset of the hand, read with ``readings``; keep the best legal rank per kind."""
    ids = ids_of(hand)
    out = {}
    for size in range(1, len(ids) + 1):
        for subset in itertools.combinations(ids, size):
            cards = sum(1 << c for c in subset)
            for rd in readings_of_mask(cards, lone_qk_wild, natural_runs):
                if table is not None and not beats(rd, table):
                    continue
                kind = 0 if rd[0] == "bomb" else rd[1]
                key = (cards, kind)
                if key not in out or (rd[0] == S and rd[3] > out[key][3]):
                    out[key] = rd
    return out


@pytest.mark.parametrize("lone_qk_wild,natural_runs", [(False, True), (True, True), (False, False)])
def test_legal_plays_match_brute_force(lone_qk_wild, natural_runs):
    rng = random.Random(5)
    for _ in range(150):
        hand = sum(1 << c for c in rng.sample(range(36), rng.randint(1, 8)))
        hand |= sum(1 << f for f in (J, Q, K) if rng.random() < 0.6)
        tables = [
            None,
            (S, 1, 1, rng.randint(2, 13)),
            (S, 2, 1, rng.randint(2, 10)),
            (S, 1, 3, rng.randint(4, 12)),
            (S, 2, 2, rng.randint(3, 10)),
            ("bomb", rng.choice(BOMB_ORDER)),
        ]
        for table in tables:
            plays = legal_plays(hand, table, lone_qk_wild, natural_runs)
            got = {(c, k): r for c, k, r in plays}
            assert len(got) == len(plays)
            assert got == brute_plays(hand, table, lone_qk_wild, natural_runs)
            if table is None:  # the per-lowest-card split covers the same plays exactly once
                flags = (lone_qk_wild, natural_runs)
                split = [p for c in ids_of(hand) for p in legal_plays(hand, None, *flags, lowest=c)]
                assert sorted(split) == sorted(plays)


def test_legal_plays_of_a_bomb_hand():
    hand = mask_of_strings("3S 5S 7S 9S 5H".split()) | FACE_MASK
    bombs = {r[1] for _, k, r in legal_plays(hand, ("bomb", "JQK")) if k == 0}
    assert bombs == {"suited"}
    bombs = {r[1] for _, k, r in legal_plays(hand, (S, 1, 1, 13)) if k == 0}
    assert bombs == {"JQ", "JK", "QK", "JQK", "suited"}
    assert card_id(3, 0) == 4


@pytest.mark.parametrize("natural_runs", [True, False])
def test_fillable_templates_are_the_ones_the_loop_would_try(natural_runs):
    """The vectorised lead filter keeps exactly the templates that pass ``legal_plays``' own
    per-template tests (naturals in hand and allowed; ``k_min <= k_max`` with every number card
    of the region available and the other faces wild), written here with ``int.bit_count``."""
    from cardgames_env.envs.haggis.cards import NUMBER_MASK
    from cardgames_env.envs.haggis.combos import TEMPLATES, _fillable_templates

    rng = random.Random(11)
    for _ in range(300):
        hand = sum(1 << c for c in rng.sample(range(36), rng.randint(0, 14)))
        hand |= sum(1 << f for f in (J, Q, K) if rng.random() < 0.5)
        numbers, faces = hand & NUMBER_MASK, hand & FACE_MASK
        expected = [
            t for t in TEMPLATES
            if not t[4] & ~faces and (natural_runs or not t[4])
            and min((numbers & t[3]).bit_count(), t[5]) >= max(1, t[5] - (faces & ~t[4]).bit_count())
        ]
        assert _fillable_templates(numbers, faces, natural_runs) == expected
