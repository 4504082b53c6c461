"""Haggis heuristic agent: legal actions only, and it beats random play."""

from __future__ import annotations

from cardgames_env import haggis_v0
from cardgames_env.agents.base import make_agent
from cardgames_env.agents.haggis import HaggisHeuristic


def test_heuristic_is_legal_and_beats_random():
    env = haggis_v0.raw_env(target_score=60)  # the raw env raises on an illegal action
    wins = 0
    games = 12
    for game in range(games):
        env.reset(seed=game)
        heuristic = make_agent("heuristic", env, seed=game)
        rand = make_agent("random", env, seed=game)
        seat = env.possible_agents[game % 2]
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                if agent == seat:
                    wins += reward > 0
                env.step(None)
                continue
            player = heuristic if agent == seat else rand
            action = player.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action]
            env.step(action)
    assert wins >= 9, wins


def test_heuristic_goes_out_when_it_can():
    from cardgames_env.envs.haggis import rules
    from cardgames_env.envs.haggis.cards import mask_of_strings
    from cardgames_env.envs.haggis.encoding import HaggisEncoding

    encoding = HaggisEncoding(rules.Config())
    agent = HaggisHeuristic(encoding, seed=0)
    hand = mask_of_strings("2S 3S 4S".split())
    decision = encoding.to_decision(rules.State(config=rules.Config(), hands=(hand, hand << 1), to_move=0))
    played = []
    while not decision.state.hand_over:
        action = agent.act(encoding.observe(decision, 0), encoding.legal_action_mask(decision))
        played.append(encoding.action_to_string(decision, action))
        decision = encoding.apply_action(decision, action)
    assert played == ["select 2S", "select 3S", "select 4S", "play 2S 3S 4S as run 2-4"]
    # going out with the run: the trick (3S = 1 point) and 5 x the opponent's 3 cards
    assert decision.state.totals == (1 + 15, 0)
