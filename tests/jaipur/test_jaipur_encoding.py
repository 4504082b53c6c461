"""Jaipur encoding: the action table, the vectorised mask (= legal_moves exactly), the
observation (seat rotation, hidden information) and notation round-trips."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from cardgames_env.envs.jaipur import encoding, rules
from cardgames_env.envs.jaipur.cards import CAMEL, Good
from cardgames_env.envs.jaipur.encoding import ACTIONS, LAYOUT, MOVES, JaipurEncoding
from cardgames_env.envs.jaipur.rules import Config, Exchange, Sell, TakeCamels, TakeOne

from .jaipur_states import count7, make_state, random_states

ENC = JaipurEncoding(Config())


def test_action_table_sizes():
    assert [f.size for f in ACTIONS.families] == [6, 1, 42, 25456]
    assert ACTIONS.size == 25505 == len(MOVES)


def test_exchange_table_is_every_pair_exactly_once():
    # Independent enumeration: all (take, give) count vectors with |take| = |give| in 2..5,
    # camels only given, and no goods type on both sides.
    expected = set()
    for k in range(2, 6):
        takes = [c for c in itertools.product(range(k + 1), repeat=6) if sum(c) == k]
        gives = [c for c in itertools.product(range(k + 1), repeat=7) if sum(c) == k]
        for take in takes:
            for give in gives:
                if not any(take[g] and give[g] for g in range(6)):
                    expected.add((take, give))
    exchanges = [(m.take, m.give) for m in MOVES if isinstance(m, Exchange)]
    assert len(exchanges) == len(set(exchanges)) == 25456
    assert set(exchanges) == expected


def test_encode_decode_round_trip_and_notation():
    for action, move in enumerate(MOVES):
        assert ENC.encode(None, move) == action
        assert ENC.decode(None, action) == move
    for action in range(0, ACTIONS.size, 7):  # every 7th action: string round-trip
        text = str(MOVES[action])
        assert rules.parse_move(text) == MOVES[action]
        assert ENC.string_to_action(None, text) == action


def test_family_layout():
    assert ENC.decode(None, ACTIONS.offset("take") + Good.SPICE) == TakeOne(Good.SPICE)
    assert ENC.decode(None, ACTIONS.offset("camels")) == TakeCamels()
    assert ENC.decode(None, ACTIONS.offset("sell") + Good.LEATHER * 7 + 2) == Sell(Good.LEATHER, 3)
    assert isinstance(ENC.decode(None, ACTIONS.offset("exchange")), Exchange)


def test_moves_without_an_action_raise():
    with pytest.raises(ValueError, match="not a Jaipur action"):
        ENC.encode(None, Exchange.of("diamond", "spice"))  # 1-for-1
    with pytest.raises(ValueError, match="not a Jaipur action"):
        ENC.encode(None, Sell(Good.CLOTH, 8))
    with pytest.raises(ValueError):
        ENC.decode(None, ACTIONS.size)


def _mask_of_legal_moves(state: rules.State) -> np.ndarray:
    mask = np.zeros(ACTIONS.size, dtype=np.int8)
    for move in rules.legal_moves(state):
        mask[encoding.ACTION_OF[move]] = 1
    return mask


def test_mask_equals_legal_moves_on_thousands_ofrandom_states():
    states = random_states(2500, seed=1)
    families = set()
    for s in states:
        mask = ENC.legal_action_mask(s)
        assert mask.dtype == np.int8 and mask.shape == (ACTIONS.size,)
        expected = _mask_of_legal_moves(s)
        if not np.array_equal(mask, expected):
            diff = np.flatnonzero(mask != expected)[:5]
            raise AssertionError(f"mask differs on {[str(MOVES[a]) for a in diff]} in {s}")
        families.update(ACTIONS.family_of(int(a))[0] for a in np.flatnonzero(mask))
    assert families == {"take", "camels", "sell", "exchange"}
    assert len({(s.market, s.hands[s.player]) for s in states}) > 1000  # many distinct states


def test_mask_edge_cases():
    full = make_state(
        hand="leather spice spice cloth silver cloth cloth", market="camel camel diamond gold leather", herd=3
    )
    mask = ENC.legal_action_mask(full)
    assert np.array_equal(mask, _mask_of_legal_moves(full))
    assert not mask[ACTIONS.offset("take") : ACTIONS.offset("take") + 6].any()  # hand of 7
    assert not any(isinstance(MOVES[a], Exchange) and MOVES[a].give[CAMEL] for a in np.flatnonzero(mask))
    camels_only = make_state(hand="", market="camel camel camel camel camel", herd=0)
    assert np.flatnonzero(ENC.legal_action_mask(camels_only)).tolist() == [ACTIONS.offset("camels")]
    over = dataclasses.replace(full, round_over=True)
    assert not ENC.legal_action_mask(over).any()


# -- observation ---------------------------------------------------------------------------------


def test_observation_pieces_from_an_explicit_state():
    s = make_state(
        hand="leather spice spice cloth silver",
        market="camel camel diamond gold leather",
        herd=2,
        opp_hand="gold gold cloth",
        opp_herd=1,
        player=0,
    )
    s = dataclasses.replace(s, known=(count7(""), count7("gold")))
    obs = LAYOUT.view(ENC.observe(s, 0))
    assert obs["hand"].tolist() == [0, 0, 1, 1, 2, 1]
    assert obs["market"].tolist() == [1, 1, 0, 0, 0, 1, 2]
    assert obs["herds"].tolist()[0] == 2
    assert obs["hand_sizes"].tolist() == [5, 3]
    assert obs["opponent_known"].tolist() == [0, 1, 0, 0, 0, 0]
    assert obs["camel_standing"].tolist() == (
        [1, 0, 0] if s.herds[0][CAMEL] > s.herds[1][CAMEL] else [0, 1, 0]
    )
    assert obs["to_move"].tolist() == [1]
    assert obs["tokens_left"].tolist() == [5, 5, 5, 7, 7, 9]
    assert obs["goods_stacks"][0].tolist() == [7, 7, 5, 5, 5, 0, 0, 0, 0]
    assert obs["goods_stacks"][5].tolist() == [4, 3, 2, 1, 1, 1, 1, 1, 1]
    assert obs["bonus_left"].tolist() == [7, 6, 5]
    assert obs["round"].tolist() == [1] and obs["starter"].tolist() == [1]
    other = LAYOUT.view(ENC.observe(s, 1))  # seat-rotated: the opponent sees its own hand first
    assert other["hand"].tolist() == [0, 2, 0, 1, 0, 0]
    assert other["hand_sizes"].tolist() == [3, 5]
    assert other["to_move"].tolist() == [0] and other["starter"].tolist() == [0]


def test_observation_tracks_sales_and_bonus_values():
    s = make_state(hand="leather leather leather", market="camel camel camel diamond gold", opp_hand="cloth")
    s = rules.apply_move(s, Sell(Good.LEATHER, 3))
    mine = LAYOUT.view(ENC.observe(s, 0))
    theirs = LAYOUT.view(ENC.observe(s, 1))
    bonus = s.bonus_tokens[0][0][0]
    assert mine["goods_rupees"].tolist() == pytest.approx([0.09, 0.0])
    assert mine["goods_counts"].tolist() == [3, 0]
    assert mine["my_bonus_values"][bonus - 1] == 1 and mine["my_bonus_values"].sum() == 1
    assert mine["bonus_counts"].tolist() == [[1, 0, 0], [0, 0, 0]]
    assert theirs["bonus_counts"].tolist() == [[0, 0, 0], [1, 0, 0]]
    assert theirs["my_bonus_values"].sum() == 0  # the opponent's bonus value is hidden
    assert mine["discard"].tolist() == [0, 0, 0, 0, 0, 3]
    assert mine["goods_stacks"][5].tolist() == [1, 1, 1, 1, 1, 1, 0, 0, 0]


def test_observation_hides_the_opponent_hand_deck_and_bonus_values():
    rng = np.random.default_rng(4)
    for s in random_states(300, seed=3)[::10]:
        for viewer in (0, 1):
            r = rules.resample_hidden(s, viewer, rng)
            assert np.array_equal(ENC.observe(s, viewer), ENC.observe(r, viewer))
    # a change in the opponent's unknown hand cards is invisible
    a = make_state(hand="cloth", opp_hand="gold spice", market="camel camel camel diamond leather")
    b = make_state(hand="cloth", opp_hand="silver spice", market="camel camel camel diamond leather")
    assert np.array_equal(ENC.observe(a, 0), ENC.observe(b, 0))
    assert not np.array_equal(ENC.observe(a, 1), ENC.observe(b, 1))


def test_hidden_herd_variant_shows_only_whether_the_herd_is_empty():
    s = make_state(hand="cloth", herd=1, opp_herd=4, config=Config(hidden_herd=True))
    enc = JaipurEncoding(Config(hidden_herd=True))
    obs = LAYOUT.view(enc.observe(s, 0))
    assert obs["herds"].tolist() == [1, 1] and obs["camel_standing"].tolist() == [0, 0, 0]
    visible = LAYOUT.view(ENC.observe(dataclasses.replace(s, config=Config()), 0))
    assert visible["herds"][1] == s.herds[1][CAMEL] and visible["camel_standing"].tolist() == [0, 1, 0]


def _herd_from_public_counts(obs: dict) -> int:
    """The opponent's herd from the public card counts alone: every one of the 55 cards is in
    my hand, the market, my herd, the opponent's hand, the deck, the discard pile or the
    opponent's herd (docs/rules/jaipur.md, "Cards and tokens"; decision A6 makes all but the last public)."""
    return int(
        55
        - obs["hand"].sum()
        - obs["market"].sum()
        - obs["herds"][0]
        - obs["hand_sizes"][1]
        - obs["deck_size"][0]
        - obs["discard"].sum()
    )


def test_hidden_herd_size_still_follows_from_the_public_card_counts():
    # hidden_herd removes the opponent's herd size from the herd piece only: the documented
    # behaviour (docs/envs/jaipur.md) is that counting the public zones gives it back.
    config = Config(hidden_herd=True)
    enc = JaipurEncoding(config)
    sizes = set()
    for s in random_states(300, seed=21, config=config)[::3]:
        for viewer in (0, 1):
            obs = LAYOUT.view(enc.observe(s, viewer))
            opp_herd = s.herds[1 - viewer][CAMEL]
            assert obs["herds"][1] == (1 if opp_herd else 0)
            assert _herd_from_public_counts(obs) == opp_herd
            sizes.add(opp_herd)
    assert len(sizes) > 3  # herds of several sizes were met, not only 0 and 1
    # The position of the report: seed 1000, no move, seen by player_1.
    from cardgames_env.envs.jaipur import env as jaipur_env

    env = jaipur_env.raw_env(hidden_herd=True)
    env.reset(seed=1000)
    obs = LAYOUT.view(env.observe("player_1")["observation"])
    assert _herd_from_public_counts(obs) == env.game_state().herds[0][CAMEL]


def test_observation_of_a_state_built_by_replace_shows_its_own_values():
    # The token pieces are cached; a state differing only in fields the cache reads
    # (seals, round, starter, history, stacks) must not get the cached values of another.
    s = make_state(hand="cloth spice")
    base = LAYOUT.view(ENC.observe(s, 0))
    assert base["seals"].tolist() == [0, 0] and base["round"][0] == 1 and base["starter"][0] == 1
    obs = LAYOUT.view(ENC.observe(dataclasses.replace(s, seals=(1, 0)), 0))
    assert obs["seals"].tolist() == [1, 0]
    obs = LAYOUT.view(ENC.observe(dataclasses.replace(s, round=2, starter=1), 0))
    assert obs["round"][0] == 2 and obs["starter"][0] == 0
    result = rules.RoundResult((40, 30), 0, 0, (1, 0), (5, 4))
    obs = LAYOUT.view(ENC.observe(dataclasses.replace(s, seals=(1, 0), round=2, history=(result,)), 0))
    assert obs["seals"].tolist() == [1, 0] and obs["round"][0] == 2
    assert obs["past_rupees"].tolist() == [np.float32(0.4), np.float32(0.3)]
    seen_by_1 = LAYOUT.view(ENC.observe(dataclasses.replace(s, seals=(0, 1)), 1))
    assert seen_by_1["seals"].tolist() == [1, 0]
    # Stacks that are not suffixes of the full stacks (a hand-built position) show as they are.
    odd = dataclasses.replace(s, goods_stacks=((5,), *s.goods_stacks[1:]))
    assert LAYOUT.view(ENC.observe(odd, 0))["goods_stacks"][0].tolist() == [5, 0, 0, 0, 0, 0, 0, 0, 0]
    # And back: the original state still gets its own values.
    assert np.array_equal(ENC.observe(s, 0), ENC.observe(make_state(hand="cloth spice"), 0))
    assert LAYOUT.view(ENC.observe(s, 0))["seals"].tolist() == [0, 0]


def test_observation_cache_is_not_stale():
    # Token pieces are cached per seat; alternating unrelated states must still be exact.
    states = random_states(200, seed=8)
    fresh = []
    for s in states:
        encoding._TOKEN_VIEWS[:] = [None, None]
        fresh.append(ENC.observe(s, s.player))
    for i in np.random.default_rng(0).permutation(len(states)):
        for viewer in (0, 1, states[i].player):
            got = ENC.observe(states[i], viewer)
            if viewer == states[i].player:
                assert np.array_equal(got, fresh[i])


def test_render_hides_the_other_hand():
    s = make_state(hand="diamond gold", opp_hand="silver silver silver")
    text = ENC.render(s, 0)
    assert "Di Go" in text and "3 cards" in text and "Si Si Si" not in text
    assert "Si Si Si" in ENC.render(s, None)
