"""Jaipur rules: explicit deals and states, hand-derived vectors,
every rule of the issue (setup, four actions, hand limit, sales, round end, scoring, game end),
the state validators, notation and hidden-information resampling."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from cardgames_env.core.game import CHANCE, TERMINAL, IllegalMoveError
from cardgames_env.envs.jaipur import rules
from cardgames_env.envs.jaipur.cards import BONUS_TOKENS, CAMEL, GOODS_TOKENS, Good
from cardgames_env.envs.jaipur.rules import (
    Config,
    Deal,
    Exchange,
    RoundResult,
    Sell,
    TakeCamels,
    TakeOne,
    apply_move,
    legal_moves,
    parse_move,
)

from .jaipur_states import count7, make_state, with_stacks_left

D, G, S, CL, SP, L = (int(g) for g in list(Good)[:6])


def ex(take: str, give: str) -> Exchange:
    return Exchange.of(take, give)


# -- setup --------------------------------------------------------------------------------------


def test_setup_invariants_on_random_deals():
    rng = np.random.default_rng(3)
    for _ in range(50):
        deal = rules.sample_deal(Config(), rng)
        s = rules.new_game(Config(), deal)
        assert sum(s.market) == 5 and s.market[CAMEL] >= 3
        assert len(s.deck) == 40
        for p in range(2):
            dealt_camels = deal.hands[p].count(CAMEL)
            assert sum(s.hands[p]) == 5 - dealt_camels
            assert s.herds[p][CAMEL] == dealt_camels
        total = [
            sum(z[k] for z in (*s.hands, *s.herds, s.market, s.discard)) + s.deck.count(k) for k in range(7)
        ]
        assert sum(total) == 55 and total[CAMEL] == 11
        assert rules.state_is_valid(s)
        assert s.player == s.starter == deal.starter
        assert all(len(p) == n for p, n in zip(s.bonus_piles, (7, 6, 5)))


def test_explicit_deal_moves_camels_to_the_herd():
    deal = Deal.from_strings(
        ["camel camel diamond gold leather", "spice spice cloth silver leather"],
        market="camel diamond",
        deck_top="gold silver",
        starter=1,
    )
    s = rules.new_game(Config(), deal)
    assert s.hands[0] == count7("diamond gold leather") and s.herds[0][CAMEL] == 2
    assert s.hands[1] == count7("spice spice cloth silver leather") and s.herds[1][CAMEL] == 0
    assert s.market == count7("camel camel camel camel diamond")
    assert s.deck[:2] == (G, S) and len(s.deck) == 40
    assert rules.current_player(s) == 1
    assert rules.state_is_valid(s)


def test_bad_deals_are_rejected():
    good = Deal.from_strings(["leather " * 5, "spice " * 5], market="cloth cloth")
    rules.new_game(Config(), good)
    with pytest.raises(ValueError, match="52 cards"):
        rules.new_game(Config(), dataclasses.replace(good, deck=good.deck[:-1] + (Good.DIAMOND,)))
    with pytest.raises(ValueError, match="hands"):
        rules.new_game(Config(), dataclasses.replace(good, hands=good.hands[:1]))
    with pytest.raises(ValueError, match="bonus"):
        rules.new_game(Config(), dataclasses.replace(good, bonus_piles=((1,), (4,), (8,))))
    with pytest.raises(ValueError, match="starter"):
        rules.new_game(Config(), dataclasses.replace(good, starter=2))


# -- hand-derived exchange vectors -------------------------------------------------------------

REF_MARKET = "camel camel diamond gold leather"
REF_HAND = "leather spice spice cloth silver"


@pytest.fixture
def ref_state() -> rules.State:
    return make_state(hand=REF_HAND, market=REF_MARKET, herd=2)


def test_exchange_two_goods_for_two_spices(ref_state):
    move = ex("diamond,gold", "spice,spice")
    assert move in legal_moves(ref_state)
    s = apply_move(ref_state, move)
    assert s.market == count7("camel camel spice spice leather")
    assert s.hands[0] == count7("leather cloth silver diamond gold") and sum(s.hands[0]) == 5
    assert s.deck == ref_state.deck  # no refill after an exchange
    assert rules.state_is_valid(s)


def test_exchange_same_type_on_both_sides_is_illegal(ref_state):
    move = ex("diamond,leather", "leather,spice")
    assert move not in legal_moves(ref_state)
    with pytest.raises(IllegalMoveError, match="both taken and given"):
        apply_move(ref_state, move)


def test_one_for_one_exchange_is_illegal(ref_state):
    move = ex("diamond", "spice")
    assert move not in legal_moves(ref_state)
    with pytest.raises(IllegalMoveError, match="at least 2"):
        apply_move(ref_state, move)


def test_exchange_for_two_camels_fills_the_hand_to_seven(ref_state):
    move = ex("diamond,gold", "camel,camel")
    assert move in legal_moves(ref_state)
    s = apply_move(ref_state, move)
    assert sum(s.hands[0]) == 7 and s.herds[0][CAMEL] == 0
    assert s.market == count7("camel camel camel camel leather")
    assert rules.state_is_valid(s)


def test_exchange_for_camels_past_the_hand_limit_is_illegal():
    s = make_state(hand=REF_HAND + " cloth", market=REF_MARKET, herd=2)
    move = ex("diamond,gold", "camel,camel")
    assert move not in legal_moves(s)
    with pytest.raises(IllegalMoveError, match="more than 7"):
        apply_move(s, move)
    assert ex("diamond,gold", "camel,cloth") in legal_moves(s)  # hand stays 7: legal


def test_camels_cannot_be_taken_in_an_exchange(ref_state):
    with pytest.raises(ValueError, match="camel"):
        parse_move("exchange camel,diamond for spice,spice")
    with pytest.raises(ValueError):
        Exchange((1, 0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 2, 0, 0))  # a 7th take count is malformed
    assert not any(isinstance(m, Exchange) and sum(m.take) > 3 for m in legal_moves(ref_state))


def test_exchange_three_for_two_spices_and_a_camel(ref_state):
    move = ex("diamond,gold,leather", "spice,spice,camel")
    assert move in legal_moves(ref_state)
    s = apply_move(ref_state, move)
    assert sum(s.hands[0]) == 6 and s.herds[0][CAMEL] == 1
    assert s.market == count7("camel camel camel spice spice")
    assert rules.state_is_valid(s)


def test_exchange_needs_the_cards_it_names(ref_state):
    with pytest.raises(IllegalMoveError, match="market"):
        apply_move(ref_state, ex("diamond,diamond", "spice,spice"))
    with pytest.raises(IllegalMoveError, match="hand does not hold"):
        apply_move(ref_state, ex("diamond,gold", "cloth,cloth"))
    with pytest.raises(IllegalMoveError, match="herd"):
        apply_move(ref_state, ex("diamond,gold,leather", "camel,camel,camel"))
    with pytest.raises(IllegalMoveError, match="as many"):
        apply_move(ref_state, Exchange((1, 1, 0, 0, 0, 0), (0, 0, 0, 0, 1, 0, 0)))


# -- take one, camels ----------------------------------------------------------------------------


def test_take_one_with_seven_cards_is_illegal():
    s = make_state(hand="leather spice spice cloth silver cloth cloth", market=REF_MARKET)
    assert not any(isinstance(m, TakeOne) for m in legal_moves(s))
    with pytest.raises(IllegalMoveError, match="7 cards"):
        apply_move(s, TakeOne(D))


def test_take_one_with_six_cards_draws_one():
    s = make_state(hand="leather spice spice cloth silver cloth", market=REF_MARKET, deck_top="silver")
    assert TakeOne(D) in legal_moves(s)
    after = apply_move(s, TakeOne(D))
    assert sum(after.hands[0]) == 7 and after.hands[0][D] == 1
    assert len(after.deck) == len(s.deck) - 1
    assert after.market == count7("camel camel silver gold leather")
    assert rules.current_player(after) == 1
    assert rules.state_is_valid(after)


def test_take_one_camel_is_not_a_move():
    with pytest.raises(IllegalMoveError, match="only goods"):
        apply_move(make_state(hand="cloth"), TakeOne(CAMEL))
    assert parse_move("take camel") == TakeCamels()  # a camel is only ever taken with all the others


def test_take_camels_with_no_camel_is_illegal():
    s = make_state(hand="cloth", market="diamond gold silver leather leather")
    assert TakeCamels() not in legal_moves(s)
    with pytest.raises(IllegalMoveError, match="no camel"):
        apply_move(s, TakeCamels())


def test_take_two_camels_draws_two():
    s = make_state(hand="cloth", market=REF_MARKET, herd=1, deck_top="camel spice")
    after = apply_move(s, TakeCamels())
    assert after.herds[0][CAMEL] == 3
    assert after.market == count7("diamond gold leather camel spice")
    assert len(after.deck) == len(s.deck) - 2
    assert sum(after.hands[0]) == 1  # camels never enter the hand
    assert rules.state_is_valid(after)


def test_take_camels_takes_all_of_them():
    s = make_state(hand="cloth", market="camel camel camel camel diamond", deck_top="gold gold silver silver")
    after = apply_move(s, TakeCamels())
    assert after.herds[0][CAMEL] == 4 and after.market == count7("diamond gold gold silver silver")


# -- sales ---------------------------------------------------------------------------------------


def test_selling_one_diamond_is_illegal():
    s = make_state(hand="diamond diamond cloth", market="camel camel camel gold leather")
    assert Sell(D, 1) not in legal_moves(s)
    with pytest.raises(IllegalMoveError, match="at least 2"):
        apply_move(s, Sell(D, 1))


def test_selling_two_diamonds_earns_fourteen():
    s = make_state(hand="diamond diamond cloth", market="camel camel camel gold leather")
    after = apply_move(s, Sell(D, 2))
    assert after.goods_tokens[0][D] == (7, 7)
    assert after.goods_stacks[D] == (5, 5, 5)
    assert rules.rupees(after) == (14, 0)
    assert after.discard[D] == 2 and after.hands[0] == count7("cloth")
    assert not any(after.bonus_tokens[0])


def test_selling_three_leather_earns_nine_and_a_three_card_bonus():
    piles = ((2, 1, 1, 2, 2, 3, 3), BONUS_TOKENS[1], BONUS_TOKENS[2])
    s = make_state(hand="leather leather leather", market=REF_MARKET, bonus_piles=piles)
    after = apply_move(s, Sell(L, 3))
    assert after.goods_tokens[0][L] == (4, 3, 2)
    assert after.bonus_tokens[0] == ((2,), (), ())
    assert after.bonus_piles[0] == (1, 1, 2, 2, 3, 3)
    assert rules.rupees(after) == (9 + 2, 0)
    assert rules.state_is_valid(after)


@pytest.mark.parametrize("n, kind", [(4, 1), (5, 2), (6, 2)])
def test_bigger_sales_take_the_matching_bonus(n, kind):
    s = make_state(hand="leather " * n, market="camel camel camel diamond gold")
    after = apply_move(s, Sell(L, n))
    assert [len(p) for p in after.bonus_tokens[0]] == [int(k == kind) for k in range(3)]
    assert after.bonus_tokens[0][kind] == (BONUS_TOKENS[kind][0],)


def test_selling_more_cards_than_tokens_takes_what_is_left():
    s = with_stacks_left(make_state(hand="silver silver silver", market=REF_MARKET), {S: 1})
    after = apply_move(s, Sell(S, 3))
    assert after.goods_tokens[0][S] == (5,) and after.goods_stacks[S] == ()
    assert len(after.bonus_tokens[0][0]) == 1  # the bonus still applies


def test_selling_into_an_empty_stack_gives_only_the_bonus():  # A4
    s = with_stacks_left(make_state(hand="spice spice spice", market=REF_MARKET), {SP: 0})
    assert Sell(SP, 3) in legal_moves(s)
    after = apply_move(s, Sell(SP, 3))
    assert after.goods_tokens[0][SP] == () and after.bonus_tokens[0][0] == (BONUS_TOKENS[0][0],)


def test_precious_needs_two_even_with_one_token_left():
    s = with_stacks_left(make_state(hand="gold gold", market=REF_MARKET), {G: 1})
    assert Sell(G, 1) not in legal_moves(s) and Sell(G, 2) in legal_moves(s)
    assert apply_move(s, Sell(G, 2)).goods_tokens[0][G] == (5,)


def test_empty_bonus_pile_gives_no_bonus():
    s = make_state(
        hand="cloth cloth cloth", market=REF_MARKET, bonus_piles=((), BONUS_TOKENS[1], BONUS_TOKENS[2])
    )
    # the 7 three-card tokens must still be somewhere: give them to the opponent
    s = dataclasses.replace(s, bonus_tokens=(((), (), ()), (BONUS_TOKENS[0], (), ())))
    after = apply_move(s, Sell(CL, 3))
    assert after.bonus_tokens[0] == ((), (), ()) and rules.rupees(after)[0] == 5 + 3 + 3


def test_only_one_type_per_sale_and_not_more_than_held():
    s = make_state(hand="cloth cloth spice", market=REF_MARKET)
    sells = {m for m in legal_moves(s) if isinstance(m, Sell)}
    assert sells == {Sell(CL, 1), Sell(CL, 2), Sell(SP, 1)}
    with pytest.raises(IllegalMoveError, match="only 2"):
        apply_move(s, Sell(CL, 3))


# -- round end -----------------------------------------------------------------------------------


def test_third_empty_stack_ends_the_round_immediately():
    base = make_state(hand="cloth cloth", market=REF_MARKET)
    two_empty = with_stacks_left(base, {D: 0, G: 0, CL: 2})
    after = apply_move(two_empty, Sell(CL, 2))
    assert after.round_over and after.goods_stacks[CL] == ()
    assert len(after.history) == 1
    # with only two stacks emptied the round goes on
    one_empty = with_stacks_left(base, {D: 0, CL: 2})
    assert not apply_move(one_empty, Sell(CL, 2)).round_over


def test_refill_from_an_empty_deck_ends_the_round():
    s = make_state(hand="cloth", market=REF_MARKET, deck_rest=False)
    assert s.deck == ()
    after = apply_move(s, TakeOne(D))
    assert after.round_over and sum(after.market) == 4  # A3: the market may hold fewer than 5
    assert rules.current_player(after) == CHANCE


def test_refill_that_runs_out_midway_ends_the_round():
    s = make_state(hand="cloth", market=REF_MARKET, deck_top="spice", deck_rest=False)
    after = apply_move(s, TakeCamels())
    assert after.round_over and after.deck == () and sum(after.market) == 4


def test_refill_that_empties_the_deck_exactly_does_not_end_the_round():
    s = make_state(hand="cloth", market=REF_MARKET, deck_top="spice", deck_rest=False)
    after = apply_move(s, TakeOne(D))
    assert not after.round_over and after.deck == () and sum(after.market) == 5
    after2 = apply_move(after, TakeCamels())  # the next refill finds the deck empty
    assert after2.round_over


def test_exchange_never_ends_the_round_on_an_empty_deck():
    s = make_state(hand="cloth spice", market=REF_MARKET, deck_rest=False)
    after = apply_move(s, ex("diamond,gold", "cloth,spice"))
    assert not after.round_over


# -- scoring at the end of the round -------------------------------------------------------------


def _finish(s: rules.State) -> rules.State:
    return rules.end_round(s)


def test_camel_token_goes_to_the_bigger_herd():
    s = make_state(hand="cloth", herd=3, opp_herd=2)
    result = rules.round_result(s)
    assert result.camel_token == 0 and result.rupees == (5, 0) and result.seal == 0


def test_camel_tie_gives_the_token_to_nobody():
    s = make_state(hand="cloth", herd=2, opp_herd=2)
    result = rules.round_result(s)
    assert result.camel_token == -1 and result.rupees == (0, 0)


def _with_tokens(goods0=(), goods1=(), bonus0=(), bonus1=(), **kw) -> rules.State:
    """A state whose players hold the given leather tokens and 3-card bonus tokens."""
    stacks = list(GOODS_TOKENS)
    leather = list(stacks[L])
    for v in (*goods0, *goods1):
        leather.remove(v)
    stacks[L] = tuple(leather)
    pile = list(BONUS_TOKENS[0])
    for v in (*bonus0, *bonus1):
        pile.remove(v)
    empty6 = ((),) * 6
    g0 = list(empty6)
    g0[L] = tuple(goods0)
    g1 = list(empty6)
    g1[L] = tuple(goods1)
    return make_state(
        hand="cloth",
        goods_stacks=tuple(stacks),
        goods_tokens=(tuple(g0), tuple(g1)),
        bonus_piles=(tuple(pile), BONUS_TOKENS[1], BONUS_TOKENS[2]),
        bonus_tokens=((tuple(bonus0), (), ()), (tuple(bonus1), (), ())),
        **kw,
    )


def test_seal_to_the_richer_player():
    s = _with_tokens(goods0=(4,), goods1=(3, 2))
    assert rules.state_is_valid(s)
    r = rules.round_result(s)
    assert r.rupees == (4, 5) and r.seal == 1


def test_rupee_tie_broken_by_bonus_count():
    s = _with_tokens(goods0=(3,), goods1=(1, 1, 1), bonus0=(1, 1), bonus1=(2,))
    r = rules.round_result(s)
    assert r.rupees == (5, 5) and r.bonus_counts == (2, 1) and r.seal == 0


def test_then_by_goods_token_count():
    s = _with_tokens(goods0=(4,), goods1=(2, 1, 1), bonus0=(1,), bonus1=(1,))
    r = rules.round_result(s)
    assert r.rupees == (5, 5) and r.bonus_counts == (1, 1) and r.goods_counts == (1, 3) and r.seal == 1


def test_full_tie_gives_no_seal_and_the_other_starter_begins():
    s = _with_tokens(goods0=(4, 1), goods1=(3, 2), bonus0=(2,), bonus1=(2,), starter=1)
    r = rules.round_result(s)
    assert r.rupees == (7, 7) and r.goods_counts == (2, 2) and r.seal == -1
    ended = _finish(s)
    assert ended.seals == (0, 0) and rules.current_player(ended) == CHANCE
    nxt = rules.apply_deal(ended, rules.sample_deal(ended, np.random.default_rng(0)))
    assert nxt.starter == 0 and nxt.player == 0 and nxt.round == 2  # opponent of starter 1


def test_loser_starts_the_next_round_and_state_resets():
    s = _with_tokens(goods0=(4,), goods1=(3, 2), starter=1)  # player 1 wins the seal
    ended = _finish(s)
    assert ended.seals == (0, 1)
    deal = rules.sample_deal(ended, np.random.default_rng(5))
    nxt = rules.apply_deal(ended, dataclasses.replace(deal, starter=1))  # deal.starter is ignored
    assert nxt.starter == 0 and rules.current_player(nxt) == 0
    assert nxt.seals == (0, 1) and nxt.goods_stacks == GOODS_TOKENS and nxt.goods_tokens == (((),) * 6,) * 2
    assert len(nxt.deck) == 40 and rules.state_is_valid(nxt)


def test_apply_deal_only_between_rounds():
    s = make_state(hand="cloth")
    with pytest.raises(IllegalMoveError):
        rules.apply_deal(s, rules.sample_deal(s, np.random.default_rng(0)))


def test_two_seals_win_the_game():
    s = _with_tokens(goods0=(4,), goods1=(3, 2), seals=(1, 1), round_number=2)
    ended = _finish(s)
    assert ended.seals == (1, 2) and rules.is_terminal(ended)
    assert rules.current_player(ended) == TERMINAL
    assert rules.winner(ended) == 1 and rules.returns(ended) == (-1.0, 1.0)
    assert rules.points(ended) == (1, 2)


def test_one_seal_each_plays_on():
    s = _with_tokens(goods0=(4,), goods1=(3, 2), seals=(1, 0), round_number=2)
    ended = _finish(s)
    assert ended.seals == (1, 1) and not rules.is_terminal(ended)
    assert rules.returns(ended) == (0.0, 0.0)


def test_round_cap_after_full_ties_is_a_draw():
    tie = RoundResult((0, 0), -1, -1, (0, 0), (0, 0))
    s = make_state(hand="cloth", herd=1, opp_herd=1, seals=(1, 0), round_number=5, history=(tie,) * 4)
    ended = _finish(s)  # fifth round: full tie again
    assert ended.history[-1].seal == -1 and rules.is_terminal(ended)
    assert rules.winner(ended) is None and rules.returns(ended) == (0.0, 0.0)


def test_rounds_one_variant_ends_after_the_first_round():
    s = _with_tokens(goods0=(4,), goods1=(3, 2), config=Config(rounds=1))
    ended = _finish(s)
    assert rules.is_terminal(ended) and rules.winner(ended) == 1
    assert rules.returns(ended) == (-1.0, 1.0)


def test_points_reward_is_the_rupee_gap_per_round():
    cfg = Config(reward="points")
    s = _with_tokens(goods0=(4,), goods1=(3, 2), herd=2, config=cfg)  # 4 + 5 camel token vs 5
    before = rules.returns(s)
    ended = _finish(s)
    assert before == (0.0, 0.0)
    assert ended.history[-1].rupees == (9, 5)
    assert rules.returns(ended) == pytest.approx((0.04, -0.04))


def test_config_errors_name_the_field():
    for kwargs, name in [
        ({"hidden_herd": 1}, "hidden_herd"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"rounds": 0}, "rounds"),
        ({"reward": "money"}, "reward"),
    ]:
        with pytest.raises(ValueError, match=name):
            Config(**kwargs)


def test_game_info_bounds():
    assert rules.INFO.zero_sum and rules.INFO.num_players == 2
    assert (rules.INFO.min_return, rules.INFO.max_return) == (-1.0, 1.0)
    info = rules.game_info(Config(reward="points", rounds=1))
    # 130 goods-token rupees (29+27+25+17+17+15) + 89 bonus rupees (14+30+45) + 5 camel token
    assert info.max_reward == pytest.approx(2.24) and info.max_return == pytest.approx(2.24)


# -- whole games ---------------------------------------------------------------------------------


def _random_game(seed: int, config: Config | None = None) -> list[rules.State]:
    config = config or Config()
    rng = np.random.default_rng(seed)
    s = rules.new_game(config, rules.sample_deal(config, rng))
    seen = [s]
    while not rules.is_terminal(s):
        if rules.current_player(s) == CHANCE:
            s = rules.apply_deal(s, rules.sample_deal(s, rng))
        else:
            moves = legal_moves(s)
            s = apply_move(s, moves[rng.integers(len(moves))])
        seen.append(s)
    return seen


def test_random_games_keep_every_invariant_and_end_with_two_seals():
    for seed in range(6):
        states = _random_game(seed)
        for s in states:
            assert rules.state_is_valid(s), rules.invalid_reasons(s)
        final = states[-1]
        assert max(final.seals) == 2 or len(final.history) == 5
        w = rules.winner(final)
        assert rules.returns(final) == ((0.0, 0.0) if w is None else ((1.0, -1.0) if w == 0 else (-1.0, 1.0)))
        for r in final.history:
            full_tie = (
                r.rupees[0] == r.rupees[1]
                and r.bonus_counts[0] == r.bonus_counts[1]
                and r.goods_counts[0] == r.goods_counts[1]
            )
            assert (r.seal == -1) == full_tie


def test_known_goods_track_public_takes():
    s = make_state(hand="cloth spice", market=REF_MARKET, herd=2, deck_top="silver")
    s = apply_move(s, TakeOne(D))
    assert s.known[0] == count7("diamond")
    s = apply_move(s, TakeCamels())  # opponent moves
    s = apply_move(s, ex("gold,leather", "diamond,camel"))
    assert s.known[0] == count7("gold leather")
    assert rules.state_is_valid(s)


# -- exchanges against an independent brute force ------------------------------------------------


def _all_exchange_candidates() -> list[Exchange]:
    out = []
    for k in range(2, 6):
        for take in itertools.combinations_with_replacement(range(6), k):
            for give in itertools.combinations_with_replacement(range(7), k):
                t = [0] * 6
                for x in take:
                    t[x] += 1
                g = [0] * 7
                for x in give:
                    g[x] += 1
                out.append(Exchange(tuple(t), tuple(g)))
    return out


def test_legal_exchanges_equal_a_brute_force_filter():
    candidates = _all_exchange_candidates()
    take = np.array([m.take for m in candidates])
    give = np.array([m.give for m in candidates])
    checked = 0
    for seed in range(3):
        for s in _random_game(100 + seed)[::15]:
            if rules.current_player(s) < 0:
                continue
            p = s.player
            hand = np.array(s.hands[p][:6])
            herd = s.herds[p][CAMEL]
            market = np.array(s.market[:6])
            ok = ~((take > 0) & (give[:, :6] > 0)).any(axis=1)  # no type on both sides
            ok &= (take <= market).all(axis=1) & (give[:, :6] <= hand).all(axis=1)
            ok &= give[:, 6] <= herd
            ok &= hand.sum() - give[:, :6].sum(axis=1) + take.sum(axis=1) <= 7  # hand limit
            expected = {candidates[i] for i in np.flatnonzero(ok)}
            got = {m for m in legal_moves(s) if isinstance(m, Exchange)}
            assert got == expected
            checked += 1
    assert checked > 10


def test_every_other_move_is_rejected():
    s = make_state(hand=REF_HAND, market=REF_MARKET, herd=2)
    legal = set(legal_moves(s))
    others = (
        [TakeOne(g) for g in range(6)] + [TakeCamels()] + [Sell(g, n) for g in range(6) for n in range(1, 8)]
    )
    for m in _all_exchange_candidates() + others:
        if m in legal:
            apply_move(s, m)
        else:
            with pytest.raises(IllegalMoveError):
                apply_move(s, m)


def test_no_legal_move_ends_the_round():  # A8 safety rule
    s = make_state(hand="", market="", deck_rest=False, discard="")
    s = dataclasses.replace(s, market=(0,) * 7)
    assert not rules.has_legal_move(s) and legal_moves(s) == ()
    ok = make_state(hand="", market="diamond gold silver cloth spice")
    assert rules.has_legal_move(ok)


# -- notation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, move",
    [
        ("take diamond", TakeOne(D)),
        ("camels", TakeCamels()),
        ("sell 3 leather", Sell(L, 3)),
        ("exchange gold,silver for spice,camel", Exchange((0, 1, 1, 0, 0, 0), (0, 0, 0, 0, 1, 0, 1))),
        ("exchange diamond,diamond for camel,camel", Exchange((2, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0, 2))),
    ],
)
def test_notation_round_trips(text, move):
    assert parse_move(text) == move
    assert str(move) == text
    assert parse_move(str(move)) == move


def test_notation_accepts_variants():
    assert parse_move("  Take  Diamonds ") == TakeOne(D)
    assert parse_move("take camels") == TakeCamels()
    assert parse_move("exchange silver gold for camel spice") == parse_move(
        "exchange gold,silver for spice,camel"
    )
    assert parse_move("sell 2 silk") == Sell(CL, 2)


@pytest.mark.parametrize(
    "text",
    ["", "take", "take camel x", "sell leather", "sell 2 camel", "exchange gold for", "pass", "take ruby"],
)
def test_bad_notation_raises(text):
    with pytest.raises(ValueError, match="not a Jaipur move"):
        parse_move(text)


# -- hidden information --------------------------------------------------------------------------


def test_resample_hidden_keeps_what_the_player_knows():
    rng = np.random.default_rng(9)
    for s in _random_game(7)[5::7]:
        if rules.current_player(s) < 0:
            continue
        for viewer in (0, 1):
            r = rules.resample_hidden(s, viewer, rng)
            opp = 1 - viewer
            assert rules.state_is_valid(r), rules.invalid_reasons(r)
            assert r.hands[viewer] == s.hands[viewer]
            assert sum(r.hands[opp]) == sum(s.hands[opp]) and r.hands[opp][CAMEL] == 0
            assert all(a >= b for a, b in zip(r.hands[opp], s.known[opp]))
            assert r.market == s.market and r.herds == s.herds and r.discard == s.discard
            assert len(r.deck) == len(s.deck)
            assert r.bonus_tokens[viewer] == s.bonus_tokens[viewer]
            assert [len(x) for x in r.bonus_tokens[opp]] == [len(x) for x in s.bonus_tokens[opp]]
            assert r.goods_tokens == s.goods_tokens and r.known == s.known


def test_resample_hidden_actually_reshuffles():
    s = _random_game(11)[10]
    viewer = 1 - s.player
    decks = {rules.resample_hidden(s, viewer, np.random.default_rng(i)).deck for i in range(10)}
    assert len(decks) > 1


# -- validators: each rejects a state broken in exactly its way -----------------------------------


def _valid() -> rules.State:
    s = make_state(hand=REF_HAND, market=REF_MARKET, herd=2, opp_hand="gold gold")
    assert rules.state_is_valid(s) and rules.invalid_reasons(s) == ()
    return s


def _broken(name: str) -> rules.State:
    s = _valid()
    if name == "herds_hold_only_camels":  # a leather card moved from the hand into the herd
        return dataclasses.replace(
            s,
            hands=(count7("spice spice cloth silver"), s.hands[1]),
            herds=(count7("camel camel leather"), s.herds[1]),
        )
    if name == "hands_hold_no_camels":  # a camel moved from the herd into the hand
        return dataclasses.replace(
            s, hands=(count7(REF_HAND + " camel"), s.hands[1]), herds=(count7("camel"), s.herds[1])
        )
    if name == "hands_within_limit":  # three deck cards moved into a 5-card hand
        deck = list(s.deck)
        extra = [deck.pop(deck.index(k)) for k in (L, L, L)]
        hand = tuple(h + extra.count(k) for k, h in enumerate(s.hands[0]))
        return dataclasses.replace(s, hands=(hand, s.hands[1]), deck=tuple(deck))
    if name == "market_is_full":  # a market card moved onto the discard pile
        return dataclasses.replace(s, market=count7("camel camel diamond gold"), discard=count7("leather"))
    if name == "deck_camels_valid":  # the market camels moved into the deck, goods out of it
        deck = list(s.deck)
        for k in (CL, CL):
            deck.remove(k)
        return dataclasses.replace(
            s, deck=(CAMEL, CAMEL, *deck), market=count7("cloth cloth diamond gold leather")
        )
    if name == "goods_stacks_valid":  # the diamond stack reordered (same tokens)
        stacks = list(s.goods_stacks)
        stacks[D] = (5, 7, 5, 7, 5)
        return dataclasses.replace(s, goods_stacks=tuple(stacks))
    if name == "cards_conserved":  # a card vanished from the deck
        return dataclasses.replace(s, deck=s.deck[1:])
    if name == "tokens_conserved":  # a bonus token vanished from its pile
        return dataclasses.replace(s, bonus_piles=(s.bonus_piles[0][1:], *s.bonus_piles[1:]))
    if name == "known_within_hands":  # the opponent is said to know a diamond the hand lacks
        return dataclasses.replace(s, known=(count7("diamond"), s.known[1]))
    raise AssertionError(name)


@pytest.mark.parametrize("validator", rules.VALIDATORS, ids=lambda v: v.__name__)
def test_each_validator_rejects_its_broken_state(validator):
    broken = _broken(validator.__name__)
    assert not validator(broken)
    assert not rules.state_is_valid(broken)
    assert validator.__name__ in rules.invalid_reasons(broken)


def test_goods_stack_configurations():
    s = _valid()
    for n in range(6):  # the diamond stack may be any of its 6 suffixes
        assert rules.goods_stacks_valid(with_stacks_left(s, {D: n}))
    stacks = list(s.goods_stacks)
    stacks[D] = (7, 7, 5, 5)  # a bottom token missing is not a valid configuration
    assert not rules.goods_stacks_valid(dataclasses.replace(s, goods_stacks=tuple(stacks)))
