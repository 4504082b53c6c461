"""Agents: the random agent is uniform over legal actions; heuristics beat random play."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env.agents import RandomAgent, make_agent
from cardgames_env.agents.base import legal_actions
from cardgames_env.registry import ALL_ENVS, load
from cardgames_env.training.evaluate import play_game


def test_random_agent_only_picks_legal_actions_and_is_seeded():
    mask = np.zeros(10, dtype=np.int8)
    mask[[2, 5, 7]] = 1
    picks = [RandomAgent(seed=1).act(np.zeros(3), mask) for _ in range(3)]
    assert len(set(picks)) == 1  # same seed, same pick
    agent = RandomAgent(seed=0)
    seen = {agent.act(np.zeros(3), mask) for _ in range(200)}
    assert seen == {2, 5, 7}
    with pytest.raises(ValueError):
        legal_actions(np.zeros(4, dtype=np.int8))


def test_make_agent_rejects_unknown_kinds():
    env = load(ALL_ENVS[0]).raw_env()
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("genius", env)


@pytest.mark.parametrize("name", ALL_ENVS)
def test_heuristic_plays_legal_actions(name):
    env = load(name).raw_env()  # the raw env raises IllegalMoveError on an illegal action
    agents = [make_agent("heuristic", env, seed=i) for i in range(len(env.possible_agents))]
    for game in range(3):
        record = play_game(env, agents, seed=game)
        assert record.steps > 0 and not env.agents


def test_gongzhu_heuristic_scores_better_than_random_seats():
    """Over 200 seeded hands (heuristic in every seat position), the heuristic's mean hand
    points exceed the random seats' mean by a wide margin."""
    env = load("gongzhu_v0").raw_env()
    heuristic_points, random_points = [], []
    for game in range(200):
        seat = game % 4
        agents = [make_agent("random", env, seed=10 * game + i) for i in range(4)]
        agents[seat] = make_agent("heuristic", env, seed=game)
        points = play_game(env, agents, seed=game).points
        heuristic_points.append(points[seat])
        random_points.extend(p for s, p in enumerate(points) if s != seat)
    assert np.mean(heuristic_points) > np.mean(random_points) + 30


def test_legal_rows_gives_booleans_and_refuses_a_row_without_a_legal_action() -> None:
    from cardgames_env.core.masks import legal_rows

    rows = legal_rows(np.array([[0, 1, 1], [1, 0, 0]], dtype=np.int8))
    assert rows.dtype == bool and rows.tolist() == [[False, True, True], [True, False, False]]
    with pytest.raises(ValueError, match="every row of masks needs a legal action"):
        legal_rows(np.array([[0, 1], [0, 0]]))


@pytest.mark.parametrize("options", [{}, {"num_players": 3}, {"action_rule": True}])
def test_red7_heuristic_plays_the_most_preferred_legal_action(options: dict) -> None:
    """Under the strict rules the Red7 heuristic's batch pick is, row by row, the legal
    action (other than giving up) of lowest rank in ``PREFERENCE``, found here by a plain
    ``argmin`` over the whole mask, and giving up only when nothing else is legal."""
    from cardgames_env import vector
    from cardgames_env.agents.batch import random_legal
    from cardgames_env.envs.red7.heuristic import PREFERENCE

    probe = load("red7_v0").raw_env(**options)
    give_up = probe.encoding.actions.offset("give_up")
    heuristic = make_agent("heuristic", probe, seed=0)
    engine = vector.make("red7_v0", num_envs=64, seed=2, **options)
    rng = np.random.default_rng(1)
    gave_up = 0
    for _ in range(40):
        actions = heuristic.act_batch(engine.obs, engine.mask)
        for row, action in enumerate(actions.tolist()):
            options_left = engine.mask[row].copy()
            options_left[give_up] = False
            if options_left.any():
                ranks = np.where(options_left, PREFERENCE, PREFERENCE.size)
                assert action == int(ranks.argmin())
            else:
                assert action == give_up
                gave_up += 1
        engine.step(np.where(rng.random(64) < 0.7, actions, random_legal(engine.mask, rng)))
    assert gave_up > 0


@pytest.mark.parametrize(
    ("name", "options"),
    [("gongzhu_v0", {}), ("gongzhu_v0", {"game_end": -1000}), ("jaipur_v0", {}),
     ("jaipur_v0", {"reward": "points", "hidden_herd": True}),
     ("jaipur_v0", {"exchange_encoding": "substeps", "hidden_herd": True})],
)
def test_compiled_heuristics_play_their_python_reference(name: str, options: dict) -> None:
    """The Gong Zhu and Jaipur (flat and sub-step) heuristics decide a batch in one compiled
    loop; it plays exactly the moves of their plain-Python ``act_one`` on engine positions,
    Jaipur's random tie-breaks drawn in the same order from the same seed."""
    from cardgames_env import vector
    from cardgames_env.agents.batch import random_legal

    probe = load(name).raw_env(**options)
    compiled, reference = make_agent("heuristic", probe, seed=3), make_agent("heuristic", probe, seed=3)
    engine = vector.make(name, num_envs=128, seed=4, **options)
    rng = np.random.default_rng(5)
    layout = probe.encoding.layout
    names = [piece.name for piece in layout.pieces]
    partial = layout.piece("exchange_take").offset if "exchange_take" in names else None
    mid_exchange = 0  # rows of the sub-step encoding with an exchange under way (cards chosen)
    for _ in range(30):
        if partial is not None:
            mid_exchange += int((engine.obs[:, partial:].sum(axis=1) > 0).sum())
        actions = compiled.act_batch(engine.obs, engine.mask)
        assert actions.tolist() == [reference.act_one(o, m) for o, m in zip(engine.obs, engine.mask)]
        engine.step(np.where(rng.random(128) < 0.5, actions, random_legal(engine.mask, rng)))
    assert partial is None or mid_exchange > 50
