"""Jaipur scoring functions, table-driven from docs/rules/jaipur.md ("Cards and tokens", "A turn",
"End of a round and scoring") and hand-derived vectors."""

from __future__ import annotations

import pytest

from cardgames_env.envs.jaipur import scoring
from cardgames_env.envs.jaipur.cards import BONUS_TOKENS, GOODS_TOKENS

# Token stacks as docs/rules/jaipur.md, "Cards and tokens", lists them (top first).
DIAMOND = (7, 7, 5, 5, 5)
GOLD = (6, 6, 5, 5, 5)
SILVER = (5, 5, 5, 5, 5)
CLOTH = (5, 3, 3, 2, 2, 1, 1)
SPICE = (5, 3, 3, 2, 2, 1, 1)
LEATHER = (4, 3, 2, 1, 1, 1, 1, 1, 1)


def test_stacks_and_piles_match_the_reference():
    assert GOODS_TOKENS == (DIAMOND, GOLD, SILVER, CLOTH, SPICE, LEATHER)
    assert sum(map(len, GOODS_TOKENS)) == 38
    assert [sorted(p) for p in BONUS_TOKENS] == [[1, 1, 2, 2, 2, 3, 3], [4, 4, 5, 5, 6, 6], [8, 8, 9, 10, 10]]
    assert sum(map(len, BONUS_TOKENS)) == 18


@pytest.mark.parametrize(
    "stack, count, pile, value",
    [
        (DIAMOND, 2, (), 14),  # reference 9: 2 diamonds -> 7 + 7
        (LEATHER, 3, (3, 1), 4 + 3 + 2 + 3),  # reference 9: 3 leather -> 9 + a 3-card bonus
        (LEATHER, 3, (1,), 4 + 3 + 2 + 1),
        (LEATHER, 3, (), 9),  # empty bonus pile: no bonus
        (GOLD, 2, (9,), 12),  # fewer than 3 cards: no bonus, whatever the pile
        (CLOTH, 4, (6,), 5 + 3 + 3 + 2 + 6),
        (CLOTH, 5, (8,), 5 + 3 + 3 + 2 + 2 + 8),
        (LEATHER, 7, (10,), 4 + 3 + 2 + 1 + 1 + 1 + 1 + 10),  # 5+ cards: 5-card pile
        ((5,), 3, (3,), 5 + 3),  # more cards than tokens: take what is left, keep the bonus
        ((), 4, (6,), 6),  # A4: an empty stack still gives the bonus
        ((), 2, (), 0),
        (SPICE[5:], 1, (), 1),
    ],
)
def test_sale_value(stack, count, pile, value):
    assert scoring.sale_value(stack, count, pile) == value


def test_sell_takes_from_the_top():
    piles = ((2, 1), (5, 4), (10, 8))
    sale = scoring.sell(LEATHER, 4, piles)
    assert sale.goods_tokens == (4, 3, 2, 1) and sale.stack_after == (1, 1, 1, 1, 1)
    assert sale.bonus == 5 and sale.bonus_kind == 1 and sale.pile_after == (4,)
    assert sale.value == 15
    assert scoring.sell(DIAMOND, 2, piles).bonus is None
    with pytest.raises(ValueError):
        scoring.sell(DIAMOND, 0)


@pytest.mark.parametrize("count, kind", [(1, None), (2, None), (3, 0), (4, 1), (5, 2), (6, 2), (7, 2)])
def test_bonus_kind(count, kind):
    assert scoring.bonus_kind(count) == kind


@pytest.mark.parametrize(
    "herds, owner", [((3, 2), 0), ((2, 3), 1), ((2, 2), None), ((0, 0), None), ((1, 0), 0)]
)
def test_camel_majority(herds, owner):
    assert scoring.camel_majority(herds) == owner


@pytest.mark.parametrize(
    "goods, bonus, camel, total",
    [((7, 7), (2,), True, 21), ((7, 7), (2,), False, 16), ((), (), True, 5), ((), (), False, 0)],
)
def test_rupees(goods, bonus, camel, total):
    assert scoring.rupees(goods, bonus, camel) == total


@pytest.mark.parametrize(
    "totals, bonus_counts, goods_counts, seal",
    [
        ((60, 59), (0, 5), (0, 9), 0),  # rupees decide first
        ((59, 60), (5, 0), (9, 0), 1),
        ((60, 60), (3, 2), (1, 9), 0),  # tie -> more bonus tokens
        ((60, 60), (2, 3), (9, 1), 1),
        ((60, 60), (2, 2), (7, 8), 1),  # still tied -> more goods tokens
        ((60, 60), (2, 2), (8, 7), 0),
        ((60, 60), (2, 2), (8, 8), None),  # full tie: nobody (A7)
    ],
)
def test_seal_winner(totals, bonus_counts, goods_counts, seal):
    assert scoring.seal_winner(totals, bonus_counts, goods_counts) == seal
