"""Jaipur heuristic agent: legal, seeded, and clearly stronger than random play."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env import jaipur_v0, vector
from cardgames_env.agents.base import make_agent
from cardgames_env.envs.jaipur.encoding import ACTIONS, LAYOUT
from cardgames_env.envs.jaipur.heuristic import JaipurHeuristic


def _play(env, agents, seed: int, cap: int = 5000) -> int:
    env.reset(seed=seed)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = agents[env.possible_agents.index(agent)].act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1
        env.step(action)
        steps += 1
        assert steps < cap, "the game does not end"
    return steps


def test_heuristic_wins_most_rounds_against_random():
    """40 one-round games, the heuristic in each seat half the time: it takes the Seal in at
    least 80% of them (random play sells singles, takes camels at random, gives goods away)."""
    env = jaipur_v0.raw_env(rounds=1)
    wins = 0
    for game in range(40):
        seat = game % 2
        agents = [make_agent("random", env, seed=10 * game + i) for i in range(2)]
        agents[seat] = make_agent("heuristic", env, seed=game)
        _play(env, agents, seed=game)
        wins += env.game_state().history[-1].seal == seat
    assert wins >= 32


def test_heuristic_plays_the_substeps_encoding_as_well():
    """Same bar with exchanges built in sub-steps (the agent plays whole exchanges, sub-step by
    sub-step, always legal: _play checks the mask)."""
    env = jaipur_v0.raw_env(rounds=1, exchange_encoding="substeps")
    wins = exchange_steps = 0
    for game in range(40):
        seat = game % 2
        agents = [make_agent("random", env, seed=10 * game + i) for i in range(2)]
        heuristic = make_agent("heuristic", env, seed=game)
        agents[seat] = heuristic
        act = heuristic.act

        def counting_act(observation, mask, act=act):
            nonlocal exchange_steps
            action = act(observation, mask)
            exchange_steps += action >= ACTIONS.offset("exchange")
            return action

        heuristic.act = counting_act
        _play(env, agents, seed=game)
        wins += env.game_state().history[-1].seal == seat
    assert wins >= 32
    assert exchange_steps > 40


def test_heuristic_self_play_games_end():
    env = jaipur_v0.raw_env()
    for game in range(5):
        _play(env, [make_agent("heuristic", env, seed=game + i) for i in range(2)], seed=game)
        assert max(env.game_state().seals) == 2 or len(env.game_state().history) == 5


def test_heuristic_prefers_a_big_sale_and_camel_heavy_markets():
    agent = JaipurHeuristic(seed=0)
    obs = np.zeros(LAYOUT.size, dtype=np.float32)
    view = LAYOUT.view(obs)
    view["hand"][:] = [0, 0, 0, 0, 0, 5]  # five leather
    view["market"][:] = [1, 1, 1, 1, 1, 0, 0]
    view["goods_stacks"][5][:] = [4, 3, 2, 1, 1, 1, 1, 1, 1]
    view["bonus_left"][:] = [7, 6, 5]
    mask = np.zeros(ACTIONS.size, dtype=np.int8)
    sell5 = ACTIONS.offset("sell") + 5 * 7 + 4
    mask[[ACTIONS.offset("take") + 0, ACTIONS.offset("sell") + 5 * 7 + 0, sell5]] = 1
    assert agent.act(obs, mask) == sell5
    view["hand"][:] = [0, 0, 0, 1, 0, 0]
    view["market"][:] = [0, 0, 0, 0, 1, 0, 4]
    view["goods_stacks"][4][:] = [5, 3, 3, 2, 2, 1, 1, 0, 0]
    mask[:] = 0
    mask[[ACTIONS.offset("take") + 4, ACTIONS.offset("camels")]] = 1
    assert agent.act(obs, mask) == ACTIONS.offset("camels")


def test_act_legal_on_the_engines_lists_plays_like_act_batch_on_masks():
    """The engine's legal-action lists (any order) give the moves and random draws of the dense
    masks: two heuristics seeded alike stay in step over many positions of 128 games, asked
    for random subsets of the slots (random play moves the games on)."""
    vec = vector.make("jaipur_v0", num_envs=128, seed=3)
    dense, listed = JaipurHeuristic(seed=9), JaipurHeuristic(seed=9)
    rng = np.random.default_rng(3)
    for _ in range(150):
        rows = rng.random(vec.num_envs) < 0.5
        expected = dense.act_batch(vec.obs[rows], vec.mask[rows])
        actions = listed.act_legal(vec.obs[rows], vec.legal_index[rows], vec.legal_count[rows])
        assert actions.tolist() == expected.tolist()
        vec.step(np.array([rng.choice(np.flatnonzero(row)) for row in vec.mask]))
    rows = np.arange(3)
    with pytest.raises(ValueError, match="legal_count > 0"):
        listed.act_legal(vec.obs[rows], vec.legal_index[rows], np.array([1, 0, 2]))
    substeps = vector.make("jaipur_v0", num_envs=8, seed=4, exchange_encoding="substeps")
    for _ in range(30):
        expected = dense.act_batch(substeps.obs, substeps.mask)
        actions = listed.act_legal(substeps.obs, substeps.legal_index, substeps.legal_count)
        assert actions.tolist() == expected.tolist()
        substeps.step(actions)


def test_without_exchanges_it_plays_the_reference_choice_among_the_other_moves():
    """``exchanges=False`` (the search's playouts): on the engine's lists and on masks alike it
    plays what the reference ``act_one`` picks from the mask with the exchanges removed (every
    row has another legal move), with the same random draws; exchanges were legal in most of
    the positions, so the filter matters."""
    vec = vector.make("jaipur_v0", num_envs=64, seed=5)
    exchange0 = ACTIONS.offset("exchange")
    dense, listed = JaipurHeuristic(seed=2, exchanges=False), JaipurHeuristic(seed=2, exchanges=False)
    reference = JaipurHeuristic(seed=2)
    rng = np.random.default_rng(5)
    rows_with_exchanges = rows_seen = 0
    for _ in range(40):
        simple = vec.mask.copy()
        simple[:, exchange0:] = 0
        assert simple.any(axis=1).all()
        expected = [reference.act_one(obs, row) for obs, row in zip(vec.obs, simple)]
        assert dense.act_batch(vec.obs, vec.mask).tolist() == expected
        assert listed.act_legal(vec.obs, vec.legal_index, vec.legal_count).tolist() == expected
        rows_with_exchanges += int(vec.mask[:, exchange0:].any(axis=1).sum())
        rows_seen += vec.num_envs
        vec.step(np.array([rng.choice(np.flatnonzero(row)) for row in vec.mask]))
    assert rows_with_exchanges > rows_seen // 2
