"""Haggis rules engine: explicit deals, readable moves, the reference's scenarios and decisions."""

from __future__ import annotations

import dataclasses
import itertools
import random

import numpy as np
import pytest

from cardgames_env.core.game import CHANCE, TERMINAL, IllegalMoveError
from cardgames_env.envs.haggis import rules
from cardgames_env.envs.haggis.cards import FACE_MASK, NUMBER_MASK, ids_of, mask_of_strings
from cardgames_env.envs.haggis.combos import beats, readings_of_mask
from cardgames_env.envs.haggis.rules import Config, Deal, Pass, Play, State, parse_move

# Hand A (seat 0) and hand B (seat 1): 14 number cards each; the other 8 are out of play.
HAND_A = "3S 3H 8S 9S 10S 2S 2H 4S 4H 6S 6H 5S 7H 7S"
HAND_B = "5D 5C 2D 2C 4D 4C 6D 6C 8D 8C 10D 10C 9D 9C"
DEAL = Deal.from_strings([HAND_A, HAND_B], leader=0)


def play(text: str) -> Play:
    move = parse_move(text)
    assert isinstance(move, Play)
    return move


def start(config: Config | None = None) -> State:
    return rules.new_game(config or Config(), DEAL)


def run(state: State, *moves: str) -> State:
    for text in moves:
        state = rules.apply_move(state, parse_move(text))
    return state


def with_hands(state: State, a: str, b: str, to_move: int = 0) -> State:
    """Replace both hands (face cards named explicitly)."""
    return dataclasses.replace(
        state, hands=(mask_of_strings(a.split()), mask_of_strings(b.split())), to_move=to_move
    )


def test_deal_gives_14_cards_plus_own_jqk():
    state = start()
    for seat in range(2):
        assert (state.hands[seat] & NUMBER_MASK).bit_count() == 14
        assert state.hands[seat] & FACE_MASK == FACE_MASK
    assert rules.current_player(state) == 0
    # 36 - 28 = 8 cards out of play
    assert (NUMBER_MASK & ~(state.hands[0] | state.hands[1])).bit_count() == 8


@pytest.mark.parametrize(
    "hands",
    [
        ["2S 3S", HAND_B],
        [HAND_A, HAND_A],
        [HAND_A.replace("3S", "3S 3S").replace(" 7S", ""), HAND_B],
    ],
)
def test_bad_deals_raise(hands):
    with pytest.raises(ValueError):
        rules.new_game(Config(), Deal.from_strings(hands))


def test_sample_deal_is_seeded():
    a = rules.sample_deal(Config(), np.random.default_rng(4))
    b = rules.sample_deal(Config(), np.random.default_rng(4))
    assert a == b
    rules.new_game(Config(), a)  # valid


def test_leader_cannot_pass():
    state = start()
    assert Pass() not in rules.legal_moves(state)
    with pytest.raises(IllegalMoveError):
        rules.apply_move(state, Pass())


def test_scoring_vector_1_pass_ends_trick():
    # Hand-derived: A leads 3S 3H, B plays 5D 5C, A passes -> B wins, +4 (3, 3, 5, 5).
    state = run(start(), "play 3S 3H as pair 3", "play 5D 5C as pair 5", "pass")
    assert state.hand_points == (0, 4)
    assert state.table is None and state.to_move == 1  # B leads the next trick
    assert state.last_trick_winner == 1


def test_scoring_vector_2_bomb_gives_points_away():
    # Hand-derived: A leads 8S 9S 10S (1 pt), B bombs J-Q (5 pts), A passes -> A +6; B leads.
    state = run(start(), "play 8S 9S 10S as run 8-10", "play J Q as bomb JQ", "pass")
    assert state.hand_points == (6, 0)
    assert state.to_move == 1


def test_after_a_bomb_only_higher_bombs():
    state = run(start(), "play 8S 9S 10S as run 8-10", "play J Q as bomb JQ")
    moves = rules.legal_moves(state)
    assert all(isinstance(m, Pass) or m.reading[0] == "bomb" for m in moves)
    names = {m.reading[1] for m in moves if isinstance(m, Play)}
    assert names == {"JK", "QK", "JQK"}  # A holds J Q K; no 3-5-7-9 suited or rainbow
    with pytest.raises(IllegalMoveError):
        rules.apply_move(state, play("play 2S 2H as pair 2"))


def test_sequences_need_same_shape_and_higher_rank():
    state = run(start(), "play 3S 3H as pair 3")
    for text in ["play 5D as single 5", "play 2D 2C as pair 2", "play 4D 4C 5D 5C as pairs 4-5"]:
        with pytest.raises(IllegalMoveError):
            rules.apply_move(state, play(text))
    plays = {str(m) for m in rules.legal_moves(state)}
    assert "play 5D 5C as pair 5" in plays and "play 10D 10C as pair 10" in plays
    assert "play 2D 2C as pair 2" not in plays and "pass" in plays


def test_declared_reading_must_fit_the_cards():
    state = start()
    with pytest.raises(IllegalMoveError):
        rules.apply_move(state, play("play 3S 3H as pair 4"))
    with pytest.raises(IllegalMoveError):
        rules.apply_move(state, play("play 5D as single 5"))  # not A's card
    # A1: J 5S 6S may be declared run 4-6 or run 5-7; both are legal moves.
    texts = {str(m) for m in rules.legal_moves(state)}
    assert {"play 5S 6S J as run 4-6", "play 5S 6S J as run 5-7"} <= texts


def test_seed_10_j_q_beats_8_9_10():
    state = with_hands(start(), "8S 9S 10S 2H", "10H J Q 2D", to_move=0)
    state = run(state, "play 8S 9S 10S as run 8-10")
    texts = {str(m) for m in rules.legal_moves(state)}
    assert "play 10H J Q as run 10-Q" in texts  # seed: 10-J-Q is rank 12
    assert "play 10H J Q as run 9-J" in texts
    assert "play 10H J Q as run 8-10" not in texts  # rank 10 does not beat rank 10


def test_going_out_scores_trick_and_bonus():
    state = with_hands(start(), "4S", "5D 9C J", to_move=1)
    state = run(state, "play 5D as single 5", "pass")  # B wins its own 5 (1 point)
    assert state.hand_points == (0, 1) and state.to_move == 1
    state = with_hands(start(), "4S 7S", "5D 9C J", to_move=0)
    state = run(state, "play 4S as single 4", "play 5D as single 5", "play 7S as single 7")
    # A went out: wins the trick (4S 5D 7S = 2 points) and 5 x 2 cards left to B.
    assert state.hand_over
    assert state.hand_points == (2 + 10, 0)
    assert state.totals == (12, 0)
    assert rules.current_player(state) == CHANCE  # 12 < 350: another hand


def test_going_out_with_a_bomb_gives_trick_away():
    state = with_hands(start(), "J Q", "5D 9C 2S", to_move=1)
    state = run(state, "play 9C as single 9", "play J Q as bomb JQ")
    # A8: won with a bomb -> 9C + J + Q = 6 points to B; A still scores 5 x 2 cards.
    assert state.hand_over
    assert state.hand_points == (10, 6)


def test_game_end_and_rewards():
    config = Config(target_score=10)
    state = with_hands(rules.new_game(config, DEAL), "4S 7S", "5D 9C J", to_move=0)
    state = run(state, "play 4S as single 4", "play 5D as single 5", "play 7S as single 7")
    assert rules.is_terminal(state) and rules.current_player(state) == TERMINAL
    assert rules.returns(state) == (1.0, -1.0)
    assert rules.winner(state) == 0
    points_cfg = dataclasses.replace(state, config=Config(target_score=10, reward="points"))
    assert rules.returns(points_cfg) == (0.12, -0.12)


def test_tied_totals_play_another_hand_and_a7_leader():
    state = with_hands(start(Config(target_score=10)), "4S 7S", "5D 9C J", to_move=0)
    state = dataclasses.replace(state, totals=(0, 12))
    state = run(state, "play 4S as single 4", "play 5D as single 5", "play 7S as single 7")
    assert state.totals == (12, 12)
    assert rules.current_player(state) == CHANCE  # A9: tie at or above the target
    # A7: tie -> the player who did not win the last trick of the previous hand (A won it).
    nxt = rules.apply_deal(state, DEAL)
    assert nxt.to_move == 1 and nxt.hand_number == 2 and nxt.totals == (12, 12)
    big = Config(target_score=100)
    lower = rules.apply_deal(dataclasses.replace(state, totals=(30, 12), config=big), DEAL)
    assert lower.to_move == 1  # A7: the lower total leads
    lower = rules.apply_deal(dataclasses.replace(state, totals=(3, 12), config=big), DEAL)
    assert lower.to_move == 0


def test_returns_zero_before_the_end():
    assert rules.returns(start()) == (0.0, 0.0)
    assert rules.returns(start(Config(reward="points"))) == (0.0, 0.0)


@pytest.mark.parametrize(
    "text",
    ["pass", "play 3S 3H as pair 3", "play J Q as bomb JQ", "play 10S J Q as run 10-Q",
     "play 5S 5H 6S 6H as pairs 5-6", "play 3S 5H 7D 9C as bomb rainbow", "play K as single K"],
)
def test_move_notation_round_trips(text):
    assert str(parse_move(text)) == text


def test_parse_accepts_t_and_lowercase():
    assert parse_move("PLAY ts th as Pair 10") == play("play 10S 10H as pair 10")


@pytest.mark.parametrize("text", ["", "play", "play 3S", "play 3S 3S as pair 3", "play as pair 3",
                                  "fold", "play 3S as pear 3", "play 3Z as single 3"])
def test_bad_notation_raises(text):
    with pytest.raises(ValueError):
        parse_move(text)


@pytest.mark.parametrize(
    "field,value",
    [("face_singles", "Q"), ("target_score", 0), ("target_score", "350"), ("reward", "money"),
     ("natural_faces_in_runs", 1)],
)
def test_bad_config_names_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        Config(**{field: value})


def _brute_legal(state: State) -> set:
    """Every subset of the mover's hand with every reading that beats the table, plus pass."""
    config = state.config
    ids = ids_of(state.hands[state.to_move])
    out = set()
    for size in range(1, len(ids) + 1):
        for subset in itertools.combinations(ids, size):
            cards = sum(1 << c for c in subset)
            for reading in readings_of_mask(cards, config.lone_qk_wild, config.natural_faces_in_runs):
                if state.table is None or beats(reading, state.table):
                    out.add(str(Play(cards, reading)))
    if state.table is not None:
        out.add("pass")
    return out


@pytest.mark.parametrize("face_singles", ["JQK", "J"])
def test_legal_moves_equal_brute_force_on_random_small_hands(face_singles):
    rng = random.Random(3)
    config = Config(face_singles=face_singles)
    checked = 0
    for game in range(40):
        state = rules.new_game(config, rules.sample_deal(config, np.random.default_rng(game)))
        # shrink both hands to <= 8 cards so the brute force stays cheap
        hands = []
        for seat in range(2):
            ids = ids_of(state.hands[seat])
            hands.append(sum(1 << c for c in rng.sample(ids, rng.randint(1, 8))))
        state = dataclasses.replace(state, hands=(hands[0], hands[1]))
        while rules.current_player(state) >= 0:
            moves = rules.legal_moves(state)
            assert len(set(moves)) == len(moves)
            assert {str(m) for m in moves} == _brute_legal(state)
            checked += 1
            state = rules.apply_move(state, moves[rng.randrange(len(moves))])
    assert checked > 100


def test_random_games_keep_invariants():
    rng = np.random.default_rng(0)
    config = Config(target_score=60)
    for _ in range(5):
        state = rules.new_game(config, rules.sample_deal(config, rng))
        while rules.current_player(state) != TERMINAL:
            if rules.current_player(state) == CHANCE:
                state = rules.apply_deal(state, rules.sample_deal(state, rng))
                continue
            moves = rules.legal_moves(state)
            move = moves[int(rng.integers(len(moves)))]
            assert parse_move(str(move)) == move
            before = state
            state = rules.apply_move(state, move)
            assert not (state.hands[0] & state.hands[1] & ~FACE_MASK)
            if not state.hand_over:
                # points of a hand in progress never exceed the cards played
                assert sum(state.hand_points) <= 36
            if state.hand_number == before.hand_number and not before.hand_over:
                assert state.totals == before.totals or state.hand_over
        assert max(state.totals) >= 60 and state.totals[0] != state.totals[1]


def test_resample_hidden_keeps_public_information():
    rng = np.random.default_rng(1)
    state = run(start(), "play 3S 3H as pair 3", "play 5D 5C as pair 5")
    changed = False
    for _ in range(20):
        other = rules.resample_hidden(state, 0, rng)
        assert other.hands[0] == state.hands[0]
        assert other.played == state.played and other.trick == state.trick
        assert other.hands[1] & FACE_MASK == state.hands[1] & FACE_MASK
        assert other.hands[1].bit_count() == state.hands[1].bit_count()
        assert not (other.hands[1] & (state.hands[0] | state.played[0] | state.played[1]) & NUMBER_MASK)
        changed |= other.hands[1] != state.hands[1]
    assert changed


def test_info():
    assert rules.INFO.num_players == 2 and rules.INFO.zero_sum
    info = rules.game_info(Config(reward="points", target_score=50))
    assert info.max_reward == pytest.approx(1.21) and info.max_return == pytest.approx(1.71)
