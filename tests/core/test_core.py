"""Core building blocks: card helpers, rng, ActionTable, ObservationLayout."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env.core.actions import ActionTable
from cardgames_env.core.cards import (
    cards_of,
    counts_of,
    expand_counts,
    french_card_str,
    mask_of,
    mask_to_array,
    parse_french_card,
)
from cardgames_env.core.game import GameInfo, config_from_kwargs
from cardgames_env.core.observation import ObservationLayout
from cardgames_env.core.rng import make_rng, shuffled


def test_french_cards_round_trip_and_spellings():
    for card in range(52):
        assert parse_french_card(french_card_str(card)) == card
    assert parse_french_card("10h") == parse_french_card("TH") == parse_french_card("♥10") == 2 * 13 + 8
    assert french_card_str(0) == "2C" and french_card_str(51) == "AS"
    for bad in ["", "1H", "QX", "ZZ", "11S"]:
        with pytest.raises(ValueError):
            parse_french_card(bad)


def test_bitmask_helpers():
    cards = [0, 5, 51, 13]
    mask = mask_of(cards)
    assert list(cards_of(mask)) == sorted(cards)
    array = mask_to_array(mask, 52)
    assert array.shape == (52,) and np.flatnonzero(array).tolist() == sorted(cards)
    assert mask_to_array(1 << 207, 208)[207] == 1
    assert counts_of([0, 0, 2], 3) == (2, 0, 1)
    assert expand_counts((2, 0, 1)) == [0, 0, 2]


def test_rng_is_reproducible_and_validated():
    a, b = make_rng(3), make_rng(3)
    assert shuffled(list(range(10)), a) == shuffled(list(range(10)), b)
    g = np.random.default_rng(1)
    assert make_rng(g) is g
    with pytest.raises(ValueError):
        make_rng(-1)
    with pytest.raises(ValueError):
        make_rng("seed")  # type: ignore[arg-type]


def test_action_table_offsets_and_masks():
    table = ActionTable([("take", 6, "take a good"), ("camels", 1, "take camels"), ("sell", 30, "sell")])
    assert table.size == 37
    assert table.offset("camels") == 6 and table.offset("sell") == 7
    assert table.family_of(0) == ("take", 0)
    assert table.family_of(6) == ("camels", 0)
    assert table.family_of(36) == ("sell", 29)
    with pytest.raises(ValueError):
        table.family_of(37)
    assert np.flatnonzero(table.mask([1, 36])).tolist() == [1, 36]
    assert table.mask([]).dtype == np.int8
    assert "| 7–36 | `sell` | 30 |" in table.markdown_table()
    with pytest.raises(ValueError):
        ActionTable([("a", 0, "empty")])
    with pytest.raises(ValueError):
        ActionTable([("a", 1, ""), ("a", 1, "")])


def test_observation_layout_views():
    layout = ObservationLayout([("hand", 52, "cards"), ("trick", (4, 52), "trick"), ("x", 1, "flag")])
    assert layout.size == 52 + 208 + 1
    vector = np.arange(layout.size, dtype=np.float32)
    view = layout.view(vector)
    assert view["trick"].shape == (4, 52) and view["trick"][1, 0] == 52 + 52
    assert view["x"][0] == layout.size - 1
    assert layout.slice("trick") == slice(52, 260)
    assert list(view) == ["hand", "trick", "x"] and len(view) == 3
    assert {name: piece.shape for name, piece in view.items()} == {"hand": (52,), "trick": (4, 52), "x": (1,)}
    vector[60] = -7.0  # the pieces are views of the vector, read when asked for
    assert view["trick"][0, 8] == -7.0 and np.shares_memory(view["hand"], vector)
    with pytest.raises(KeyError):
        view["nope"]
    with pytest.raises(ValueError):
        layout.view(np.zeros(3, dtype=np.float32))
    assert "| `trick` | 4×52 | 52 |" in layout.markdown_table()


def test_config_from_kwargs_names_unknown_fields():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Config:
        a: int = 1

    assert config_from_kwargs(Config, {"a": 2}).a == 2
    with pytest.raises(ValueError, match="bogus"):
        config_from_kwargs(Config, {"bogus": 1})


def test_game_info_is_frozen():
    info = GameInfo("g", 2, 10, -1.0, 1.0, -1.0, 1.0, True, "win/loss")
    with pytest.raises(AttributeError):
        info.name = "h"  # type: ignore[misc]


def test_win_loss_contract_and_returns() -> None:
    """The shared win/loss contract: one reward in [-1, 1] at the end; +1 to the winner, -1 to
    every other seat, zeros in a draw."""
    from cardgames_env.core.game import win_loss_info, win_loss_returns

    info = win_loss_info("g", 3, "+1 / -1 at the end", max_game_length=9, zero_sum=False)
    assert (info.min_reward, info.max_reward, info.min_return, info.max_return) == (-1.0, 1.0, -1.0, 1.0)
    assert (info.name, info.num_players, info.max_game_length, info.zero_sum) == ("g", 3, 9, False)
    assert win_loss_info("g", 2, "x").zero_sum and win_loss_info("g", 2, "x").max_game_length is None
    assert win_loss_returns(1, 3) == (-1.0, 1.0, -1.0)
    assert win_loss_returns(None, 2) == (0.0, 0.0)


def test_first_in_order_takes_the_first_allowed_action_but_the_fallback() -> None:
    from cardgames_env.core.masks import first_in_order

    order = np.array([4, 2, 0, 3, 1], dtype=np.int64)
    allowed = np.array([True, True, False, False, True])  # 4 (the fallback) first, then 0
    assert first_in_order(allowed, order, 4) == 0
    assert first_in_order(allowed, order, 3) == 4
    only_fallback = np.array([False, False, False, True, False])
    assert first_in_order(only_fallback, order, 3) == 3
    assert first_in_order(np.zeros(5, dtype=np.bool_), order, 1) == 1
