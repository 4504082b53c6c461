"""Gong Zhu encoding: actions <-> moves, masks == legal moves, observation pieces by hand."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env.core.cards import mask_of
from cardgames_env.envs.gongzhu import rules
from cardgames_env.envs.gongzhu.cards import parse_card, point_mask_of
from cardgames_env.envs.gongzhu.encoding import ACTIONS, LAYOUT, GongZhuEncoding
from cardgames_env.envs.gongzhu.rules import Config, Play

ENC = GongZhuEncoding(Config())


def C(text: str) -> int:
    return parse_card(text)


def test_action_space_is_52_cards():
    assert ACTIONS.size == 52 and ENC.num_actions == 52
    for card in range(52):
        assert ENC.encode(None, ENC.decode(None, card)) == card
    with pytest.raises(ValueError):
        ENC.decode(None, 52)


def _follow_suit_legal(
    hand: list[int], trick: list[int], first_trick_of_game: bool, spade2_rule: bool
) -> list[int]:
    """The legal cards by the rules file, written from scratch over card lists (suit = id // 13).

    §2: follow the led suit if you can, otherwise any card; any card may be led, except that
    with ``first_lead_must_be_spade2`` the first lead of hand 1 is the ♠2 itself (§7).
    """
    if not trick:
        if first_trick_of_game and spade2_rule:
            return [39]  # ♠2 = spades (3) * 13 + rank 2 (0)
        return sorted(hand)
    led_suit = trick[0] // 13
    following = [c for c in hand if c // 13 == led_suit]
    return sorted(following or hand)


@pytest.mark.parametrize("seed", range(30))
def test_mask_equals_an_independent_follow_suit_filter(seed):
    rng = np.random.default_rng(seed)
    spade2_rule = bool(seed % 2)
    config = Config(first_lead_must_be_spade2=spade2_rule)
    enc = GongZhuEncoding(config)
    state = rules.new_game(config, rules.sample_deal(config, rng))
    hands = [[c for c in range(52) if state.hands[p] >> c & 1] for p in range(4)]
    # Hand 1 is led by the holder of ♠2 (§2); play goes in seat order.
    to_move = next(p for p in range(4) if 39 in hands[p])
    trick: list[int] = []
    cards_played = 0
    while rules.current_player(state) >= 0:
        assert rules.current_player(state) == to_move
        expected = _follow_suit_legal(hands[to_move], trick, cards_played == 0, spade2_rule)
        assert np.flatnonzero(enc.legal_action_mask(state)).tolist() == expected
        assert sorted(enc.encode(state, m) for m in rules.legal_moves(state)) == expected
        card = int(expected[rng.integers(len(expected))])
        state = rules.apply_move(state, Play(card))
        hands[to_move].remove(card)
        trick.append(card)
        cards_played += 1
        if len(trick) == 4:  # the highest card of the led suit wins and leads (§2)
            leader = (to_move + 1) % 4
            led = trick[0] // 13
            best = max(range(4), key=lambda i: trick[i] % 13 if trick[i] // 13 == led else -1)
            to_move = (leader + best) % 4
            trick = []
        else:
            to_move = (to_move + 1) % 4
    assert cards_played == 52


def test_observation_pieces_from_an_explicit_state():
    # P3 led ♠3, P0 played ♠Q; P1 (the observer) is to move. P2 earlier showed a club void.
    state = rules.State(
        config=Config(),
        hands=(mask_of([C("2D")]), mask_of([C("AS"), C("5H")]), mask_of([C("9D")]), mask_of([C("KD")])),
        leader=3,
        trick=(C("3S"), C("QS")),
        captured=(0, 0, mask_of([C("JD"), C("AH")]), 0),
        point_masks=(0, 0, point_mask_of(mask_of([C("JD"), C("AH")])), 0),
        played=(mask_of([C("QS")]), 0, 0, mask_of([C("3S")])),
        voids=(0, 0, 1, 0),
        hand_points=(0, 0, 50, 0),
        totals=(0, 0, 0, 0),
    )
    view = LAYOUT.view(ENC.observe(state, 1))
    assert np.flatnonzero(view["hand"]).tolist() == sorted([C("AS"), C("5H")])
    # Relative seats from P1: P1=0, P2=1, P3=2, P0=3.
    assert np.flatnonzero(view["trick"][2]).tolist() == [C("3S")]
    assert np.flatnonzero(view["trick"][3]).tolist() == [C("QS")]
    assert not view["trick"][0].any() and not view["trick"][1].any()
    assert view["trick_leader"].tolist() == [0, 0, 1, 0]
    assert view["led_suit"].tolist() == [0, 0, 0, 1]  # spades
    assert np.flatnonzero(view["played"][3]).tolist() == [C("QS")]
    # Captured point cards, notation order 23456789TJQKA P G D: P2 (relative 1) has A and G.
    assert np.flatnonzero(view["captured"][1]).tolist() == [12, 14]
    assert view["hand_points"].tolist() == [0, 0.5, 0, 0]
    assert view["voids"][1].tolist() == [1, 0, 0, 0]
    assert not view["voids"][0].any()


@pytest.mark.parametrize("observer", range(4))
def test_trick_leader_one_seat_after_the_observer_and_scaled_totals(observer):
    """The leader sits one seat after the observer (relative seat 1, not 3): the trick's cards
    rotate from there. Non-zero totals and hand points are scaled by 1/1000 and 1/100 and
    rotated like every other piece (relative seat r = seat ``(observer + r) % 4``)."""
    leader = (observer + 1) % 4
    second = (observer + 2) % 4
    hands = [0, 0, 0, 0]
    hands[observer] = mask_of([C("2H"), C("KC")])
    hands[leader] = mask_of([C("9C")])
    hands[second] = mask_of([C("3D")])
    hands[(observer + 3) % 4] = mask_of([C("4D"), C("5D")])
    totals = (-250, 120, 0, -600)
    hand_points = (0, -30, 100, -10)
    state = rules.State(
        config=Config(game_end=-1000),
        hands=tuple(hands),
        leader=leader,
        trick=(C("7C"), C("JC")),  # leader played ♣7, the next seat ♣J
        played=tuple(
            mask_of([C("7C")]) if s == leader else mask_of([C("JC")]) if s == second else 0 for s in range(4)
        ),
        hand_points=hand_points,
        totals=totals,
        hand_number=3,
    )
    view = LAYOUT.view(ENC.observe(state, observer))
    assert view["trick_leader"].tolist() == [0, 1, 0, 0]
    assert np.flatnonzero(view["trick"][1]).tolist() == [C("7C")]
    assert np.flatnonzero(view["trick"][2]).tolist() == [C("JC")]
    assert not view["trick"][0].any() and not view["trick"][3].any()
    assert view["led_suit"].tolist() == [1, 0, 0, 0]  # clubs
    expected_totals = [totals[(observer + r) % 4] / 1000 for r in range(4)]
    expected_points = [hand_points[(observer + r) % 4] / 100 for r in range(4)]
    np.testing.assert_allclose(view["totals"], expected_totals, rtol=1e-6)
    np.testing.assert_allclose(view["hand_points"], expected_points, rtol=1e-6)
    if observer == 0:  # written out once: P0 sees itself, P1, P2, P3
        np.testing.assert_allclose(view["totals"], [-0.25, 0.12, 0.0, -0.6], rtol=1e-6)
        np.testing.assert_allclose(view["hand_points"], [0.0, -0.3, 1.0, -0.1], rtol=1e-6)


def test_other_hands_do_not_change_the_observation():
    rng = np.random.default_rng(1)
    state = rules.new_game(Config(), rules.sample_deal(Config(), rng))
    swapped = rules.State(
        config=state.config,
        hands=(state.hands[0], state.hands[2], state.hands[1], state.hands[3]),
        leader=state.leader,
    )
    np.testing.assert_array_equal(ENC.observe(state, 0), ENC.observe(swapped, 0))
    assert not np.array_equal(ENC.observe(state, 1), ENC.observe(swapped, 1))


def test_string_round_trip():
    state = rules.new_game(Config(), rules.sample_deal(Config(), np.random.default_rng(2)))
    for action in np.flatnonzero(ENC.legal_action_mask(state)):
        text = ENC.action_to_string(state, int(action))
        assert text.startswith("play ")
        assert ENC.string_to_action(state, text) == action
    assert ENC.string_to_action(state, "♥A") == C("AH") == ENC.encode(state, Play(C("AH")))


def test_watching_narrates_tricks_and_hand_ends():
    import contextlib
    import io

    from cardgames_env.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["play", "gongzhu_v0", "--agents", "heuristic,random,random,random", "--seed", "3"]) == 0
    text = out.getvalue()
    assert text.count("takes the trick") == 13
    assert text.count("play ") == 52
    assert "points: player_0" in text


SPADE_TWO = C("2S")


def _first_hand_positions(seed: int, config: Config):
    """Yield (first leader, state) at every decision of hand 1 of a random game."""
    from cardgames_env.envs.gongzhu import env as gongzhu_env

    env = gongzhu_env.raw_env(**config.__dict__)
    env.reset(seed=seed)
    first_leader = env.possible_agents.index(env.agent_selection)
    rng = np.random.default_rng(seed)
    while not any(env.terminations.values()) and env.game_state().hand_number == 1:
        yield first_leader, env.game_state()
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))


@pytest.mark.parametrize("config", [Config(), Config(game_end=-1000), Config(first_lead_must_be_spade2=True)])
def test_spade2_holder_is_the_first_leader_while_the_spade2_is_unplayed(config):
    # docs/rules/gongzhu.md, "Play of a hand": the holder of ♠2 leads hand 1, so every seat
    # knows who holds the ♠2 until it is played. Derivation: the seat seen to lead the first trick.
    seen = 0
    for seed in range(6):
        for first_leader, state in _first_hand_positions(seed, config):
            unplayed = not any(p >> SPADE_TWO & 1 for p in state.played)
            for observer in range(4):
                piece = LAYOUT.view(GongZhuEncoding(config).observe(state, observer))["spade2_holder"]
                expected = np.zeros(4, dtype=np.float32)
                if unplayed:
                    expected[(first_leader - observer) % 4] = 1.0
                    seen += 1
                assert piece.tolist() == expected.tolist()
    assert seen > 0


def test_moving_the_unplayed_spade2_changes_the_observation():
    # Seed 1000, actions [0, 11, 1, 2]: player_1 led trick 1 (so it holds the ♠2), the trick is
    # over. Giving the ♠2 to another seat is a position every seat can tell apart.
    from cardgames_env.envs.gongzhu import env as gongzhu_env

    env = gongzhu_env.raw_env()
    env.reset(seed=1000)
    assert env.agent_selection == "player_1"
    for action in (0, 11, 1, 2):
        env.step(action)
    state = env.game_state()
    assert not state.trick and state.hands[1] >> SPADE_TWO & 1
    # Swap the ♠2 with a spade of seat 3 (no voids shown yet, so the swap is otherwise invisible).
    swap = next(c for c in range(39, 52) if state.hands[3] >> c & 1)
    hands = list(state.hands)
    hands[1] ^= 1 << SPADE_TWO | 1 << swap
    hands[3] ^= 1 << SPADE_TWO | 1 << swap
    moved = state._replace(hands=tuple(hands))
    assert not any(state.voids)
    for observer in (0, 2):
        assert ENC.observe(state, observer).tobytes() != ENC.observe(moved, observer).tobytes()
