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


@pytest.mark.parametrize("seed", range(30))
def test_mask_equals_legal_moves_on_random_states(seed):
    rng = np.random.default_rng(seed)
    config = Config(first_lead_must_be_spade2=bool(seed % 2))
    state = rules.new_game(config, rules.sample_deal(config, rng))
    while rules.current_player(state) >= 0:
        moves = rules.legal_moves(state)
        expected = sorted(ENC.encode(state, m) for m in moves)
        assert np.flatnonzero(ENC.legal_action_mask(state)).tolist() == expected
        state = rules.apply_move(state, moves[rng.integers(len(moves))])


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
    # gongzhu.md section 2: the holder of ♠2 leads hand 1, so every seat knows who holds the
    # ♠2 until it is played. Derivation: the seat seen to lead the first trick.
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
