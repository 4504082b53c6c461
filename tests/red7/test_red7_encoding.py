"""Red7 encoding: action table round trips, the mask against an independent brute force on
thousands of random states, the fast apply path, and the seat-rotated observation."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env.core.cards import cards_of
from cardgames_env.envs.red7 import rules
from cardgames_env.envs.red7.cards import COLOURS, card_str
from cardgames_env.envs.red7.encoding import ACTIONS, DECODE, LAYOUT, Red7Encoding, layout_for, pair_action
from cardgames_env.envs.red7.rules import Config, GiveUp, Play, PlayDiscard, parse_move
from cardgames_env.envs.red7.scoring import winning_player


def random_states(config: Config, games: int, seed: int) -> list[rules.State]:
    """States met in random games (every decision point, all phases)."""
    rng = np.random.default_rng(seed)
    encoding = Red7Encoding(config)
    states = []
    for _ in range(games):
        state = rules.new_game(config, rules.sample_deal(config, rng))
        while not rules.is_terminal(state):
            if rules.current_player(state) == rules.CHANCE:
                state = rules.apply_deal(state, rules.sample_deal(state, rng))
                continue
            states.append(state)
            legal = np.flatnonzero(encoding.legal_action_mask(state))
            state = encoding.apply_action(state, int(legal[rng.integers(legal.size)]))
    return states


def test_action_table_layout() -> None:
    assert ACTIONS.size == 49 + 49 + 49 * 48 + 1 + 49 + 49 + 49 + 1
    assert pair_action(0, 1) == 98  # play V1, discard I1: first pair action
    assert pair_action(1, 0) == 98 + 48  # row of card 1, column 0
    assert pair_action(48, 47) == 98 + 48 * 49 - 1  # the last pair action
    assert ACTIONS.offset("give_up") == 2450


def test_decode_encode_round_trip_for_every_action() -> None:
    encoding = Red7Encoding(Config(action_rule=True, seven_to_deck=True))
    state = rules.new_game(encoding.config, rules.sample_deal(encoding.config, np.random.default_rng(0)))
    for action in range(ACTIONS.size):
        move = encoding.decode(state, action)
        assert encoding.encode(state, move) == action
        assert parse_move(str(move)) == move
        assert encoding.string_to_action(state, str(move)) == action
    assert str(DECODE[pair_action(48, 0)]) == "play R7 discard V1"
    with pytest.raises(ValueError):
        encoding.decode(state, ACTIONS.size)


def _brute_force_turn_start(state: rules.State) -> set:
    """Legal moves at a turn start without effects, from the name-based scorer only."""
    p = state.player
    hand = [card_str(c) for c in cards_of(state.hands[p])]
    if not hand:
        return {GiveUp()}
    seats = [s for s in range(state.num_players) if state.active >> s & 1]
    palettes = {s: [card_str(c) for c in cards_of(state.palettes[s])] for s in seats}

    def wins(extra: list[str], rule: str) -> bool:
        rows = [palettes[s] + (extra if s == p else []) for s in seats]
        return winning_player(rule, rows) == seats.index(p)

    rule = COLOURS[state.rule]
    legal = {GiveUp()}
    for c in hand:
        if wins([c], rule) or not state.config.strict:
            legal.add(parse_move(f"play {c}"))
        if wins([], c[0]) or not state.config.strict:
            legal.add(parse_move(f"discard {c}"))
        for d in hand:
            if d != c and (wins([c], d[0]) or not state.config.strict):
                legal.add(parse_move(f"play {c} discard {d}"))
    return legal


@pytest.mark.parametrize(
    "options",
    [{}, {"num_players": 3}, {"num_players": 4}, {"advanced": True}, {"strict": False, "num_players": 4}],
)
def test_mask_equals_brute_force_on_random_states(options: dict) -> None:
    config = Config(**options)
    encoding = Red7Encoding(config)
    states = random_states(config, 400 if not config.advanced else 60, seed=len(options))[:2000]
    assert len(states) >= 1500
    for state in states:
        expected = ACTIONS.mask(encoding.encode(state, m) for m in _brute_force_turn_start(state))
        np.testing.assert_array_equal(encoding.legal_action_mask(state), expected)
        assert set(rules.legal_moves(state)) == _brute_force_turn_start(state)


def _survives(state: rules.State, player: int, forced: bool, depth: int = 0) -> bool:
    """Does some continuation of ``player``'s turn keep it in the round (or play a 3)?

    ``forced`` explores every candidate decision, legal or not, through the unchecked
    ``apply_legal_move``: the end-of-turn check then removes a player who is not winning.
    """
    if rules.current_player(state) != player or state.phase == rules.MAIN and depth:
        return bool(state.active >> player & 1) or state.status != rules.PLAYING and state.winner == player
    moves = rules._candidates(state) if forced else [m for m in rules.legal_moves(state) if m != GiveUp()]
    for move in moves:
        if isinstance(move, Play) and move.card // 7 == 2:  # a 3 (ids 14..20): always allowed
            return True
        if _survives(rules.apply_legal_move(state, move), player, forced, depth + 1):
            return True
    return False


ACTION_CASES = [
    pytest.param({"action_rule": True}, 600),
    pytest.param({"action_rule": True, "num_players": 3, "advanced": True, "seven_to_deck": True}, 150),
    pytest.param({"action_rule": True, "num_players": 4, "advanced": True}, 3000, marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("options", "count"), ACTION_CASES)
def test_action_rule_mask_matches_turn_outcomes(options: dict, count: int) -> None:
    """A6: a decision is legal iff some completion keeps the player winning (3s excepted)."""
    config = Config(**options)
    encoding = Red7Encoding(config)
    states = random_states(config, 150, seed=5)
    checked = 0
    for state in states[:count]:
        player = state.player
        mask = encoding.legal_action_mask(state)
        legal = set(rules.legal_moves(state))
        np.testing.assert_array_equal(mask, ACTIONS.mask(encoding.encode(state, m) for m in legal))
        if state.phase == rules.MAIN and not state.hands[player]:
            assert legal == {GiveUp()}
            continue
        for move in rules._candidates(state):
            if isinstance(move, Play) and move.card // 7 == 2:
                assert move in legal
                continue
            after = rules.apply_legal_move(state, move)
            assert (move in legal) == _survives(after, player, forced=True, depth=1), (str(move), state)
            checked += 1
    assert checked > count // 2


@pytest.mark.parametrize("options", [{}, {"num_players": 4, "advanced": True}, {"strict": False}])
def test_fast_apply_equals_the_general_path(options: dict) -> None:
    config = Config(**options)
    for state in random_states(config, 100, seed=3)[:500]:
        for move in rules.legal_moves(state):
            if isinstance(move, GiveUp):
                continue
            general = rules._end_turn(rules._turn_action(state, move))
            assert rules.apply_legal_move(state, move) == general, str(move)


def test_observation_is_seat_rotated_and_hides_hands() -> None:
    config = Config(num_players=3, advanced=True)
    encoding = Red7Encoding(config)
    layout = layout_for(3)
    for state in random_states(config, 20, seed=9)[:200]:
        for player in range(3):
            view = layout.view(encoding.observe(state, player))
            assert set(np.flatnonzero(view["hand"])) == set(cards_of(state.hands[player]))
            for r in range(3):
                seat = (player + r) % 3
                assert set(np.flatnonzero(view["palettes"][r])) == set(cards_of(state.palettes[seat]))
                assert view["hand_sizes"][r] == pytest.approx(state.hands[seat].bit_count() / 7)
                assert view["active"][r] == (state.active >> seat & 1)
            assert view["rule"][state.rule] == 1 and view["rule"].sum() == 1
            assert view["to_move"][(state.player - player) % 3] == 1
            others = state.hands[(player + 1) % 3] | state.hands[(player + 2) % 3]
            visible = sum(1 << i for i, v in enumerate(encoding.observe(state, player)[: 49 * 12]) if v)
            hidden = others & ~(state.known_hands[(player + 1) % 3] | state.known_hands[(player + 2) % 3])
            # hidden cards of other hands appear in no 49-card piece
            for k in range(12):
                assert not (visible >> (49 * k)) & ((1 << 49) - 1) & hidden


def test_default_layout_and_mask_of_a_known_state() -> None:
    assert LAYOUT.size == layout_for(2).size
    # Hand-derived legality vector: exactly two turn actions and give up.
    state = rules.new_game(Config(), rules.Deal.from_strings(["V6 B1", ""], ["O5", "R6"]))
    mask = Red7Encoding(Config()).legal_action_mask(state)
    V6, B1 = rules.parse_card("V6"), rules.parse_card("B1")
    assert set(np.flatnonzero(mask)) == {pair_action(V6, B1), pair_action(B1, V6), ACTIONS.offset("give_up")}
    assert PlayDiscard(V6, B1) == DECODE[pair_action(V6, B1)]
