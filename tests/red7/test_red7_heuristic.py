"""The Red7 heuristic: legal, cheapest winning choice, and far better than random play."""

from __future__ import annotations

from cardgames_env.agents import make_agent
from cardgames_env.envs.red7 import rules
from cardgames_env.envs.red7.encoding import ACTIONS, Red7Encoding, pair_action
from cardgames_env.registry import load
from cardgames_env.training.evaluate import play_game


def test_prefers_one_card_over_two_and_low_cards_over_high() -> None:
    encoding = Red7Encoding(rules.Config())
    agent = make_agent("heuristic", load("red7_v0").raw_env())
    state = rules.new_game(encoding.config, rules.Deal.from_strings(["R7 O7 V6 B1", ""], ["O5", "R6"]))
    # Legal: play R7, play O7 (both beat R6), pairs, give up: O7 is the lower of the one-card plays.
    obs, mask = encoding.observe(state, 0), encoding.legal_action_mask(state)
    assert agent.act(obs, mask) == rules.parse_card("O7")
    # Section 9 vector: only two pairs, both spending V6 and B1: the lower action id wins the tie.
    state = rules.new_game(encoding.config, rules.Deal.from_strings(["V6 B1", ""], ["O5", "R6"]))
    V6, B1 = rules.parse_card("V6"), rules.parse_card("B1")
    chosen = agent.act(encoding.observe(state, 0), encoding.legal_action_mask(state))
    assert chosen == min(pair_action(V6, B1), pair_action(B1, V6))
    # Only give up left: gives up.
    state = rules.new_game(encoding.config, rules.Deal.from_strings(["V2", ""], ["O5", "R6"]))
    give_up = ACTIONS.offset("give_up")
    assert agent.act(encoding.observe(state, 0), encoding.legal_action_mask(state)) == give_up


def test_heuristic_beats_random_players() -> None:
    env = load("red7_v0").raw_env()
    wins = 0
    games = 200
    for game in range(games):
        seat = game % 2
        agents = [make_agent("random", env, seed=10 * game + i) for i in range(2)]
        agents[seat] = make_agent("heuristic", env, seed=game)
        play_game(env, agents, seed=game)
        wins += env.game_state().game_winner == seat
    assert wins / games > 0.7  # random against random wins half of the games
