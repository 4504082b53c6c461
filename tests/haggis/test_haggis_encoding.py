"""Haggis encoding: every legal play reachable by one action path, nothing illegal, masks exact."""

from __future__ import annotations

import dataclasses
import itertools
import random

import numpy as np
import pytest

from cardgames_env.core.game import CHANCE, IllegalMoveError
from cardgames_env.envs.haggis import rules
from cardgames_env.envs.haggis.cards import FACE_MASK, ids_of, mask_of_strings
from cardgames_env.envs.haggis.combos import beats, readings_of_mask
from cardgames_env.envs.haggis.encoding import (
    ACTIONS,
    DECLARE0,
    LAYOUT,
    PASS,
    HaggisEncoding,
    Select,
)
from cardgames_env.envs.haggis.rules import Config, Deal, Pass, Play, parse_move

DEAL = Deal.from_strings(
    ["3S 3H 8S 9S 10S 2S 2H 4S 4H 6S 6H 5S 7H 7S", "5D 5C 2D 2C 4D 4C 6D 6C 8D 8C 10D 10C 9D 9C"]
)


def reachable(encoding: HaggisEncoding, decision) -> tuple[set, bool]:
    """Walk the whole action tree below ``decision``: completed plays, and whether pass is offered.

    Also asserts that no node is a dead end (every allowed card leads somewhere).
    """
    plays: set = set()
    can_pass = False
    stack = [decision]
    while stack:
        node = stack.pop()
        mask = encoding.legal_action_mask(node)
        assert mask.any(), "a selection with no way to complete it"
        for action in np.flatnonzero(mask):
            action = int(action)
            if action == PASS:
                assert node.selected == 0
                can_pass = True
            elif action >= DECLARE0:
                move = encoding.decode(node, action)
                assert isinstance(move, Play) and move.cards == node.selected
                plays.add((move.cards, move.reading))
            else:
                assert action > (node.selected.bit_length() - 1)  # increasing ids
                stack.append(encoding.apply_action(node, action))
    return plays, can_pass


def best_per_kind(moves) -> set:
    """Collapse legal plays to the highest reading per (cards, kind), as the env declares them."""
    best: dict = {}
    for move in moves:
        if isinstance(move, Pass):
            continue
        kind = 0 if move.reading[0] == "bomb" else move.reading[1]
        key = (move.cards, kind)
        if key not in best or move.reading > best[key]:
            best[key] = move.reading
    return {(cards, reading) for (cards, _), reading in best.items()}


def brute_plays(state) -> set:
    """Independent: every subset of the mover's hand x every reading that beats the table."""
    config = state.config
    ids = ids_of(state.hands[state.to_move])
    moves = []
    for size in range(1, len(ids) + 1):
        for subset in itertools.combinations(ids, size):
            cards = sum(1 << c for c in subset)
            for reading in readings_of_mask(cards, config.lone_qk_wild, config.natural_faces_in_runs):
                if state.table is None or beats(reading, state.table):
                    moves.append(Play(cards, reading))
    return best_per_kind(moves)


def random_states(config: Config, games: int, seed: int, shrink: int | None = None):
    """States met in random games (hands optionally cut to at most ``shrink`` cards)."""
    rng = random.Random(seed)
    for game in range(games):
        state = rules.new_game(config, rules.sample_deal(config, np.random.default_rng(seed + game)))
        if shrink is not None:
            hands = tuple(
                sum(1 << c for c in rng.sample(ids_of(h), rng.randint(1, shrink))) for h in state.hands
            )
            state = dataclasses.replace(state, hands=hands)
        while rules.current_player(state) >= 0:
            yield state
            moves = rules.legal_moves(state)
            state = rules.apply_move(state, moves[rng.randrange(len(moves))])


@pytest.mark.parametrize(
    "config", [Config(), Config(face_singles="J"), Config(natural_faces_in_runs=False)],
    ids=["default", "face_singles=J", "no_natural_runs"],
)
def test_small_hands_reach_exactly_the_legal_plays(config):
    encoding = HaggisEncoding(config)
    checked = 0
    for state in random_states(config, 25, seed=10, shrink=9):
        plays, can_pass = reachable(encoding, encoding.to_decision(state))
        assert plays == brute_plays(state)
        assert can_pass == (state.table is not None)
        checked += 1
    assert checked > 80


def test_full_hands_reach_exactly_the_legal_plays():
    config = Config()
    encoding = HaggisEncoding(config)
    for i, state in enumerate(random_states(config, 3, seed=50)):
        if i % 7:
            continue
        plays, can_pass = reachable(encoding, encoding.to_decision(state))
        moves = rules.legal_moves(state)
        assert plays == best_per_kind(moves)
        assert can_pass == (Pass() in moves)
        # nothing illegal: every reachable play is a legal move of the rules engine
        legal = {(m.cards, m.reading) for m in moves if isinstance(m, Play)}
        assert plays <= legal


def test_root_masks_match_legal_moves_on_many_states():
    encoding = HaggisEncoding(Config())
    count = 0
    for state in random_states(Config(target_score=60), 40, seed=99):
        mask = encoding.legal_action_mask(encoding.to_decision(state))
        moves = rules.legal_moves(state)
        first_cards = {(m.cards & -m.cards).bit_length() - 1 for m in moves if isinstance(m, Play)}
        assert set(np.flatnonzero(mask[:DECLARE0]).tolist()) == first_cards
        assert not mask[DECLARE0:PASS].any()
        assert bool(mask[PASS]) == (Pass() in moves)
        count += 1
    assert count > 1000


def test_every_legal_move_follows_its_encode_path():
    config = Config()
    encoding = HaggisEncoding(config)
    for i, state in enumerate(random_states(config, 2, seed=5)):
        if i % 5:
            continue
        for move in best_per_kind(rules.legal_moves(state)):
            target = Play(*move)
            decision = encoding.to_decision(state)
            for _ in range(20):
                action = encoding.encode(decision, target)
                assert encoding.legal_action_mask(decision)[action]
                if action >= DECLARE0:
                    assert encoding.decode(decision, action) == target
                    after = encoding.apply_action(decision, action)
                    assert after.state == rules.apply_move(state, target)
                    break
                decision = encoding.apply_action(decision, action)
            else:
                pytest.fail(f"no declaration reached for {target}")


def test_wild_card_worked_example():
    # docs/envs/haggis.md: on the lead, play J 5S 6S as run 5-7 (the J is a wild 7).
    encoding = HaggisEncoding(Config())
    state = rules.new_game(Config(), DEAL)
    decision = encoding.to_decision(state)
    path = [encoding.string_to_action(decision, "play 5S 6S J as run 5-7")]
    assert path == [12]  # 5S = (5 - 2) * 4 + 0
    decision = encoding.apply_action(decision, 12)
    assert encoding.action_to_string(decision, 16) == "select 6S"
    decision = encoding.apply_action(decision, 16)
    mask = encoding.legal_action_mask(decision)
    # 5S 6S can only become a run with one face card (the J, Q or K as a wild) or a 5S 6S 7S...
    assert mask[36] and mask[37] and mask[38] and mask[20 + 0]
    assert not mask[DECLARE0:].any()  # 5S 6S alone is no combination
    decision = encoding.apply_action(decision, 36)
    mask = encoding.legal_action_mask(decision)
    assert np.flatnonzero(mask).tolist() == [37, 38, DECLARE0 + 1]  # add Q or K, or declare m = 1
    assert encoding.action_to_string(decision, DECLARE0 + 1) == "play 5S 6S J as run 5-7"
    with_q = encoding.apply_action(decision, 37)
    mask = encoding.legal_action_mask(with_q)
    assert np.flatnonzero(mask).tolist() == [38, DECLARE0 + 1, DECLARE0 + 2]
    assert encoding.action_to_string(with_q, DECLARE0 + 1) == "play 5S 6S J Q as run 5-8"
    assert encoding.action_to_string(with_q, DECLARE0 + 2) == "play 5S 6S J Q as pairs 5-6"
    after = encoding.apply_action(decision, DECLARE0 + 1)
    assert after.state.table == ("sequence", 1, 3, 7)
    assert after.state.hands[0] & FACE_MASK == FACE_MASK ^ (1 << 36)
    with pytest.raises(ValueError, match="highest"):
        encoding.encode(decision, parse_move("play 5S 6S J as run 4-6"))


def test_strings_round_trip_and_errors():
    encoding = HaggisEncoding(Config())
    state = rules.apply_move(rules.new_game(Config(), DEAL), parse_move("play 3S 3H as pair 3"))
    decision = encoding.to_decision(state)
    for action in np.flatnonzero(encoding.legal_action_mask(decision)):
        text = encoding.action_to_string(decision, int(action))
        assert encoding.string_to_action(decision, text) == action
    assert encoding.string_to_action(decision, "pass") == PASS
    assert isinstance(encoding.decode(decision, 0), Select)
    with pytest.raises(ValueError):
        encoding.string_to_action(decision, "select 1S")
    with pytest.raises(IllegalMoveError):
        encoding.apply_action(decision, DECLARE0)  # nothing selected
    with pytest.raises(IllegalMoveError):
        encoding.apply_action(decision, 0)  # 2S is the opponent's card


def test_observation_is_seat_rotated_and_hides_the_selection():
    encoding = HaggisEncoding(Config())
    state = rules.apply_move(rules.new_game(Config(), DEAL), parse_move("play 3S 3H as pair 3"))
    decision = encoding.apply_action(encoding.to_decision(state), 14)  # P1 selects 5D
    mover, other = 1, 0
    seen = LAYOUT.view(encoding.observe(decision, mover))
    theirs = LAYOUT.view(encoding.observe(decision, other))
    assert seen["selection"].sum() == 1 and seen["selection"][14] == 1  # 5D = (5-2)*4 + 2
    assert theirs["selection"].sum() == 0 and theirs["selection_size"][0] == 0
    assert seen["hand"][:36].sum() == 14 and theirs["hand"][:36].sum() == 12
    assert seen["hand"][36:].tolist() == [1] * 6
    # table pair 3 played by P0: relative seat 1 for P1, 0 for P0
    assert seen["table_player"].tolist() == [0, 1] and theirs["table_player"].tolist() == [1, 0]
    assert seen["table_kind"][1] == 1 and seen["table_rank"][3 - 2] == 1 and seen["table_length"][0] == 1
    assert theirs["played"][0][4] == 1 and theirs["played"][0][5] == 1  # 3S, 3H
    assert seen["played"][1][4] == 1 and seen["played"][0].sum() == 0
    assert seen["opponent_hand_size"][0] == pytest.approx(15 / 17)
    assert seen["trick_points"][0] == pytest.approx(2 / 36)


def test_actions_table_size():
    assert ACTIONS.size == 45 and LAYOUT.size == 287
    assert rules.current_player(rules.new_game(Config(), DEAL)) != CHANCE
    assert mask_of_strings(["J"]) == 1 << 36
