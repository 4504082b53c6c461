"""Haggle encoding: action <-> move, mask == legal moves on thousands of states, observation privacy."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env.core.game import CHANCE
from cardgames_env.envs.haggle import rules
from cardgames_env.envs.haggle.encoding import ACTIONS, LAYOUT, HaggleEncoding, build_actions
from cardgames_env.envs.haggle.rules import Config, Deal, Stage, parse_move

CONFIGS = [
    Config(),
    Config(num_players=2),
    Config(num_players=8),
    Config(num_players=3, submission_phase=True, max_offer=2, trading_rounds=2),
]


def random_states(config: Config, games: int, seed: int):  # type: ignore[no-untyped-def]
    """Yield the decision states of random games (biased towards offers that get accepted)."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = rules.new_game(config, rules.sample_deal(config, rng))  # type: ignore[arg-type]
        while not rules.is_terminal(state):
            if rules.current_player(state) == CHANCE:
                state = rules.apply_deal(state, rules.sample_deal(state, rng))
                continue
            yield state
            moves = rules.legal_moves(state)
            pick = moves[-1] if rng.random() < 0.3 else moves[rng.integers(len(moves))]
            state = rules.apply_move(state, pick)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p")
def test_mask_equals_legal_moves_and_actions_round_trip(config: Config) -> None:
    encoding = HaggleEncoding(config)
    checked = 0
    for state in random_states(config, 60, config.num_players):
        moves = rules.legal_moves(state)
        actions = [encoding.encode(state, m) for m in moves]
        assert len(set(actions)) == len(moves)
        expected = np.zeros(encoding.num_actions, dtype=np.int8)
        expected[actions] = 1
        mask = encoding.legal_action_mask(state)
        assert mask.dtype == np.int8
        np.testing.assert_array_equal(mask, expected)
        for action, move in zip(actions, moves):
            assert encoding.decode(state, action) == move
            assert parse_move(str(move)) == move
            assert encoding.string_to_action(state, encoding.action_to_string(state, action)) == action
        checked += 1
    assert checked > 1000  # thousands of states over the four configurations


def test_action_space_sizes_stay_small() -> None:
    assert ACTIONS.size == 1 + 3 + 56 + 56 + 26 + 1 + 1 + 12 == 156
    largest = build_actions(Config(num_players=8, max_offer=5, submission_phase=True))
    assert largest.size == 1 + 7 + 252 + 252 + 26 + 1 + 1 + 12 + 17 < 20_000


def _deal4() -> Deal:
    return Deal.from_strings(
        ["YYYYYYBBRR", "YYBBBBBBRR", "RRRROOOOOO", "OOWWWWWWWW"], ["S1 S2", "S3 S4", "S5 S6", "S7 S8"]
    )


def test_observation_shows_the_offer_to_its_parties_only() -> None:
    encoding = HaggleEncoding(Config())
    view = LAYOUT.view
    state = rules.new_game(Config(), _deal4())
    for text in ("offer P2", "give YB", "ask RR"):
        state = rules.apply_move(state, parse_move(text))
    # Building: the proposer sees its target and cards; the target sees nothing yet.
    mine = view(encoding.observe(state, 0))
    assert mine["offer_target"].tolist() == [0, 0, 1, 0]
    assert mine["offer_give"].tolist() == pytest.approx([1 / 3, 1 / 3, 0, 0, 0])
    assert not view(encoding.observe(state, 2))["offer_target"].any()
    state = rules.apply_move(state, parse_move("terms show S2 request yes"))
    target = view(encoding.observe(state, 2))
    assert target["offer_target"].tolist() == [1, 0, 0, 0]  # me
    assert target["proposer"].tolist() == [0, 0, 1, 0]  # P0 is two seats after P2
    assert target["offer_ask"].tolist() == pytest.approx([0, 0, 2 / 3, 0, 0])
    assert target["offer_terms"].tolist() == [1, 1]
    assert target["stage"].tolist() == [0, 0, 0, 0, 1, 0]
    bystander = view(encoding.observe(state, 1))
    assert bystander["offer_target"].tolist() == [0, 1, 0, 0]  # public: P0 offers to P2
    assert not bystander["offer_give"].any() and not bystander["offer_ask"].any()
    assert not bystander["offer_terms"].any()
    state = rules.apply_move(state, parse_move("accept show S6"))
    p0, p2, p1 = (view(encoding.observe(state, s)) for s in (0, 2, 1))
    assert p0["shown_to_me"][1].tolist() == [1 if r == 5 else 0 for r in range(12)]  # from P2
    assert p2["shown_to_me"][1].tolist() == [1 if r == 1 else 0 for r in range(12)]  # from P0
    assert p0["shown_by_me"][1].tolist() == [1 if r == 1 else 0 for r in range(12)]
    assert p0["gave"][1].tolist() == pytest.approx([0.1, 0.1, 0, 0, 0])
    assert p2["received"][1].tolist() == pytest.approx([0.1, 0.1, 0, 0, 0])
    assert not p1["gave"].any() and not p1["received"].any() and not p1["shown_to_me"].any()
    # Everyone sees that P0 and P2 traded: rotated for P1, P0 is relative seat 3, P2 seat 1.
    assert p1["trades"][3, 1] == pytest.approx(0.2) and p1["trades"].sum() == pytest.approx(0.2)
    assert p1["hand_sizes"].tolist() == pytest.approx([1.0, 1.0, 1.0, 1.0])
    assert p0["hand"].tolist() == pytest.approx([0.5, 0.1, 0.4, 0, 0])
    assert p0["my_rules"].tolist() == [1, 1] + [0] * 10


def test_observation_never_depends_on_hidden_cards() -> None:
    config = Config()
    encoding = HaggleEncoding(config)
    rng = np.random.default_rng(0)
    for count, state in enumerate(random_states(config, 10, 5)):
        player = count % 4
        other = rules.resample_hidden(state, player, rng)
        np.testing.assert_array_equal(encoding.observe(other, player), encoding.observe(state, player))
        if rules.current_player(state) == player:
            np.testing.assert_array_equal(
                encoding.legal_action_mask(other), encoding.legal_action_mask(state)
            )


def test_render_hides_other_hands() -> None:
    encoding = HaggleEncoding(Config())
    state = rules.new_game(Config(), _deal4())
    text = encoding.render(state, 1)
    assert "YYBBBBBBRR" in text and "YYYYYYBBRR" not in text and "S3 S4" in text and "S1 S2" not in text
    assert "YYYYYYBBRR" in encoding.render(state, None)
    assert state.stage == Stage.PROPOSE
