"""Haggle rules engine: explicit deals, readable moves, the trading protocol of the rules
reference "The game in the env", scoring through the chance node, returns, hidden-information resampling."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env.core.game import CHANCE, TERMINAL, IllegalMoveError
from cardgames_env.envs.haggle import rules
from cardgames_env.envs.haggle.cards import hand_str, parse_hand
from cardgames_env.envs.haggle.rules import (
    Accept,
    Ask,
    CapDraw,
    Config,
    Deal,
    Give,
    Pass,
    Reject,
    Stage,
    Submit,
    Target,
    Terms,
    apply_move,
    legal_moves,
    new_game,
    parse_move,
)
from cardgames_env.envs.haggle.scoring import score_hands

TWO = Config(num_players=2)
# 2 players: 4 cards of each colour, 10 each. P0 Y4 B2 R2 O1 W1, P1 B2 R2 O3 W3.
DEAL2 = Deal.from_strings(["YYYYBBRROW", "BBRROOOWWW"], ["S1 S5", "S3 S9"])


def play(state: rules.State, *moves: str) -> rules.State:
    for text in moves:
        state = apply_move(state, parse_move(text))
    return state


def finish(state: rules.State, rng: np.random.Generator | None = None) -> rules.State:
    assert rules.current_player(state) == CHANCE
    return rules.apply_deal(state, rules.sample_deal(state, rng or np.random.default_rng(0)))


def test_accepted_trade_moves_cards_and_reveals_rules() -> None:
    state = new_game(TWO, DEAL2)
    assert rules.current_player(state) == 0 and state.stage == Stage.PROPOSE
    state = play(state, "offer P1", "give YY", "ask O", "terms show S5 request yes")
    assert rules.current_player(state) == 1 and state.stage == Stage.RESPOND
    # The target holds O; the request makes it name the rule card it reveals (S3 or S9).
    assert set(legal_moves(state)) == {Reject(), Accept(2), Accept(8)}
    state = play(state, "accept show S9")
    assert state.hands == (parse_hand("YYBBRROOW"), parse_hand("YYBBRROOWWW"))
    assert state.shown[1 * 2 + 0] == 1 << 4  # P1 saw P0's S5
    assert state.shown[0 * 2 + 1] == 1 << 8  # P0 saw P1's S9
    assert state.trades == (0, 1, 0, 0)
    assert state.flows[0 * 2 + 1] == parse_hand("YY") and state.flows[1 * 2 + 0] == parse_hand("O")
    assert rules.current_player(state) == 1 and state.stage == Stage.PROPOSE and state.round == 0


def test_two_passes_end_trading_and_scoring_uses_all_rules() -> None:
    state = play(new_game(TWO, DEAL2), "offer P1", "give YY", "ask O", "terms show S5 request yes")
    state = play(state, "accept show S9", "pass", "pass")  # P1 passes, P0 passes: N = 2 in a row
    assert state.stage == Stage.SCORE and rules.current_player(state) == CHANCE
    state = finish(state)
    assert rules.is_terminal(state) and rules.current_player(state) == TERMINAL
    # P0 Y2 B2 R2 O2 W1: base 25, five-colour set +10, 2 Yellow double the White +5 = 40.
    # P1 Y2 B2 R2 O2 W3: base 35, two five-colour sets +20, +5 = 60. Yellow and Red tied.
    assert state.scores == (40, 60)
    assert rules.points(state) == (40, 60)
    assert rules.returns(state) == pytest.approx((-2.0, 2.0))
    assert rules.winners(state) == (1,)
    # The same hands through the public scorer.
    assert score_hands({"a": hand_str(state.hands[0]), "b": hand_str(state.hands[1])}) == {"a": 40, "b": 60}


def test_rejected_offer_changes_no_card_and_resets_passes() -> None:
    state = play(new_game(TWO, DEAL2), "pass")
    assert state.passes == 1 and rules.current_player(state) == 1
    state = play(state, "offer P0", "give W", "ask -", "terms show - request no", "reject")
    assert state.hands == new_game(TWO, DEAL2).hands and state.passes == 0
    assert state.round == 1 and rules.current_player(state) == 0 and sum(state.trades) == 0


def test_gift_accept_and_plain_accept() -> None:
    state = play(new_game(TWO, DEAL2), "offer P1", "give Y", "ask -", "terms show - request no")
    assert set(legal_moves(state)) == {Reject(), Accept()}
    state = play(state, "accept")
    assert state.hands[1] == parse_hand("YBBRROOOWWW") and state.shown == (0, 0, 0, 0)


def test_proposer_gives_only_cards_it_holds_and_at_most_three() -> None:
    state = play(new_game(TWO, DEAL2), "offer P1")
    gives = {m.cards for m in legal_moves(state)}  # type: ignore[union-attr]
    hand = state.hands[0]
    assert all(sum(g) <= 3 and all(a <= b for a, b in zip(g, hand)) for g in gives)
    assert parse_hand("OO") not in gives and parse_hand("YYY") in gives and parse_hand("") in gives
    # Brute force: every multiset of <= 3 cards drawn from the hand.
    expected = {
        (y, b, r, o, w)
        for y in range(4)
        for b in range(4)
        for r in range(4)
        for o in range(4)
        for w in range(4)
        if y + b + r + o + w <= 3 and all(c <= h for c, h in zip((y, b, r, o, w), hand))
    }
    assert gives == expected
    with pytest.raises(IllegalMoveError):
        apply_move(state, Give(parse_hand("OO")))
    # Asks are unconstrained: all 56 multisets.
    assert len(legal_moves(play(state, "give -"))) == 56


def test_offer_may_not_be_empty() -> None:
    state = play(new_game(TWO, DEAL2), "offer P1", "give -", "ask -")
    terms = set(legal_moves(state))
    assert Terms(None, False) not in terms
    assert terms == {Terms(None, True), Terms(0, False), Terms(0, True), Terms(4, False), Terms(4, True)}
    # A pure information trade: show S1 for a glimpse.
    state = play(state, "terms show S1 request yes", "accept show S3")
    assert state.shown[1 * 2 + 0] == 1 << 0 and state.shown[0 * 2 + 1] == 1 << 2
    assert state.hands == new_game(TWO, DEAL2).hands


def test_accept_needs_the_asked_cards() -> None:
    state = play(new_game(TWO, DEAL2), "offer P1", "give -", "ask YY", "terms show - request no")
    assert legal_moves(state) == (Reject(),)  # P1 has no Yellow
    with pytest.raises(IllegalMoveError):
        apply_move(state, Accept())


def test_cannot_offer_to_oneself_or_move_out_of_turn() -> None:
    state = new_game(
        Config(),
        Deal.from_strings(
            ["YYYYYYYYBB", "BBBBBBRRRR", "RRRROOOOOO", "OOWWWWWWWW"], ["S1 S2", "S3 S4", "S5 S6", "S7 S8"]
        ),
    )
    assert set(legal_moves(state)) == {Pass(), Target(1), Target(2), Target(3)}
    for move in (Target(0), Give((1, 0, 0, 0, 0)), Reject(), Accept(), Submit(0, 1)):
        with pytest.raises(IllegalMoveError):
            apply_move(state, move)


def test_trading_ends_after_the_last_round() -> None:
    config = Config(num_players=2, trading_rounds=2)
    state = new_game(config, DEAL2)
    for _ in range(4):  # every turn an offer that is rejected: no passes
        assert state.stage == Stage.PROPOSE
        state = play(
            state, f"offer P{1 - state.proposer}", "give -", "ask Y", "terms show - request no", "reject"
        )
    assert state.stage == Stage.SCORE and state.round == 2


def test_four_players_four_passes_end_trading() -> None:
    state = new_game(Config(), rules.sample_deal(Config(), np.random.default_rng(3)))  # type: ignore[arg-type]
    state = play(state, "pass", "pass", "pass")
    assert state.stage == Stage.PROPOSE and state.proposer == 3
    state = play(state, "pass")
    assert state.stage == Stage.SCORE


def test_cap_draw_scores_13_random_cards_and_elimination_on_handed_in() -> None:
    # 4 players; P0 collects 14 cards. Deal: P0 YYYYYYBBBB? Build a hand then gift cards to P0.
    deal = Deal.from_strings(
        ["YYYYYYBBRR", "YYBBBBBBRR", "RRRROOOOOO", "OOWWWWWWWW"], ["S1 S2", "S3 S4", "S5 S6", "S7 S8"]
    )
    state = new_game(Config(), deal)
    state = play(state, "offer P1", "give -", "ask YYB", "terms show - request no", "accept")
    state = play(state, "pass", "pass", "offer P0", "give W", "ask -", "terms show - request no", "accept")
    state = play(state, "pass", "pass", "pass", "pass")
    assert state.stage == Stage.SCORE
    assert state.hands[0] == parse_hand("YYYYYYYYBBBRRW")  # 14 cards, 8 Yellow -> ELIMINATED
    for seed in range(5):
        done = finish(state, np.random.default_rng(seed))
        assert sum(done.kept[0]) == 13 and done.kept[1:] == done.hands[1:]  # type: ignore[index]
        assert done.scores[0] is None  # type: ignore[index]
    with pytest.raises(ValueError):
        rules.apply_deal(state, CapDraw(state.hands))  # keeps 14 cards


def test_returns_with_an_eliminated_player() -> None:
    state = new_game(Config(), rules.sample_deal(Config(), np.random.default_rng(0)))  # type: ignore[arg-type]
    done = rules.dataclasses.replace(state, stage=Stage.DONE, scores=(10, None, 20, 30))
    # ELIMINATED counts as 10 - 10 = 0: values 10, 0, 20, 30 (total 60).
    expected = [(10 - 50 / 3) / 10, (0 - 60 / 3) / 10, (20 - 40 / 3) / 10, (30 - 30 / 3) / 10]
    assert rules.returns(done) == pytest.approx(expected)
    assert sum(rules.returns(done)) == pytest.approx(0.0)
    assert rules.points(done) == (10, None, 20, 30)
    assert rules.returns(state) == (0.0,) * 4


def test_submission_phase_hands_in_chosen_counts() -> None:
    config = Config(num_players=2, submission_phase=True)
    state = play(new_game(config, DEAL2), "pass", "pass")
    assert state.stage == Stage.SUBMIT and rules.current_player(state) == 0
    assert legal_moves(state) == tuple(Submit(0, k) for k in range(5))  # 0..4 Yellow
    state = play(state, "submit 4 Y", "submit 2 B", "submit 2 R", "submit 1 O", "submit 0 W")
    assert rules.current_player(state) == 1
    state = play(state, "submit 0 Y", "submit 1 B", "submit 2 R", "submit 3 O", "submit 3 W")
    state = finish(state)
    # P0 hands in Y4 B2 R2 O1 (keeping back its White): base 4+4+6+4 = 18; P1 has no Yellow:
    # P0 unique most Yellow +16 -> 34; Red tied 2/2. P1 B1 R2 O3 W3: only 1 Orange scores
    # -> base 2+6+4+15 = 27.
    assert state.scores == (34, 27)
    assert score_hands({"a": "YYYYBBRRO", "b": "BRROOOWWW"}) == {"a": 34, "b": 27}


@pytest.mark.parametrize(
    "text, move",
    [
        ("pass", Pass()),
        ("offer P3", Target(3)),
        ("give YyB", Give((2, 1, 0, 0, 0))),
        ("give -", Give((0, 0, 0, 0, 0))),
        ("ask W", Ask((0, 0, 0, 0, 1))),
        ("terms show S12 request no", Terms(11, False)),
        ("terms show - request yes", Terms(None, True)),
        ("reject", Reject()),
        ("accept", Accept()),
        ("accept show S1", Accept(0)),
        ("submit 3 r", Submit(2, 3)),
    ],
)
def test_parse_move_and_round_trip(text: str, move: rules.Move) -> None:
    assert parse_move(text) == move
    assert parse_move(str(move)) == move


@pytest.mark.parametrize("text", ["", "offer", "give Q", "terms show S13 request no", "accept show", "dance"])
def test_parse_move_rejects_nonsense(text: str) -> None:
    with pytest.raises(ValueError):
        parse_move(text)


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 1},
        {"num_players": 9},
        {"trading_rounds": 0},
        {"max_offer": 0},
        {"submission_phase": 1},
        {"yellow_min_count": 0},
        {"elimination_penalty": "x"},
    ],
)
def test_bad_config_raises(options: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=next(iter(options))):
        Config(**options)  # type: ignore[arg-type]


def test_bad_deals_raise() -> None:
    with pytest.raises(ValueError):
        new_game(TWO, Deal.from_strings(["YYYYYBRROW", "BBRROOOWWW"], ["S1 S5", "S3 S9"]))  # 5 Y
    with pytest.raises(ValueError):
        new_game(TWO, Deal.from_strings(["YYYYBBRROW", "BBRROOOWWW"], ["S1 S1", "S3 S9"]))
    with pytest.raises(ValueError):
        new_game(TWO, Deal.from_strings(["YYYYBBRROW", "BBRROOOWWW"], ["S1 S5", "S5 S9"]))  # 1 copy


@pytest.mark.parametrize("n", [2, 4, 6, 7, 8])
def test_sample_deal_follows_section_9(n: int) -> None:
    config = Config(num_players=n)
    rng = np.random.default_rng(n)
    for _ in range(30):
        deal = rules.sample_deal(config, rng)
        assert isinstance(deal, Deal)
        new_game(config, deal)  # validates 10 each, 2N of each colour, rule copies
        assert all(a != b for a, b in deal.rules)


def _random_states(config: Config, games: int, seed: int):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = new_game(config, rules.sample_deal(config, rng))  # type: ignore[arg-type]
        while not rules.is_terminal(state):
            if rules.current_player(state) == CHANCE:
                state = rules.apply_deal(state, rules.sample_deal(state, rng))
                continue
            yield state, rng
            moves = legal_moves(state)
            # Bias towards offers and acceptances so that trades happen.
            state = apply_move(state, moves[-1] if rng.random() < 0.3 else moves[rng.integers(len(moves))])


@pytest.mark.parametrize("config", [Config(), Config(num_players=8, trading_rounds=2)], ids=["4p", "8p"])
def test_resample_hidden_keeps_what_the_player_knows(config: Config) -> None:
    n = config.num_players
    for count, (state, rng) in enumerate(_random_states(config, 8, 11)):
        if count % 3:
            continue
        player = int(rng.integers(n))
        new = rules.resample_hidden(state, player, rng)
        assert new.hands[player] == state.hands[player] and new.rules[player] == state.rules[player]
        assert [sum(h) for h in new.hands] == [sum(h) for h in state.hands]
        assert tuple(map(sum, zip(*new.hands))) == (2 * n,) * 5
        for seat in range(n):
            assert new.shown[player * n + seat] == state.shown[player * n + seat]
            assert new.shown[seat * n + player] == state.shown[seat * n + player]
            assert new.rules[seat][0] != new.rules[seat][1]
            known = rules.known_cards(state, player, seat)
            assert all(k <= h for k, h in zip(known, new.hands[seat]))
            # Every seen rule of another seat is one it holds.
            for viewer in range(n):
                bits = new.shown[viewer * n + seat]
                assert all(r in new.rules[seat] for r in range(12) if bits >> r & 1)
        used = [0] * 12
        for a, b in new.rules:
            used[a] += 1
            used[b] += 1
        assert max(used) <= config.rule_copies
        assert legal_moves(new) == legal_moves(state) or rules.current_player(state) != player


def test_apply_move_accepts_exactly_the_legal_moves() -> None:
    from cardgames_env.envs.haggle.encoding import HaggleEncoding

    for config in (Config(), Config(num_players=3, submission_phase=True, max_offer=2, trading_rounds=1)):
        encoding = HaggleEncoding(config)
        candidates_extra = [Give((4, 0, 0, 0, 0)), Ask((0, 0, 0, 0, 4)), Target(9), Accept(11), Submit(4, 0)]
        for count, (state, _) in enumerate(_random_states(config, 6, 2)):
            if count % 2:
                continue
            legal = set(legal_moves(state))
            candidates = {encoding.decode(state, a) for a in range(encoding.num_actions)}
            for move in candidates | set(candidates_extra) | {Target(s) for s in range(config.num_players)}:
                if move in legal:
                    apply_move(state, move)
                else:
                    with pytest.raises(IllegalMoveError):
                        apply_move(state, move)
