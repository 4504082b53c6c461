"""The Haggle heuristic: always legal (every variant), and better than random play."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env import haggle_v0
from cardgames_env.agents.base import make_agent


def play(kinds: list[str], games: int, **options: object) -> dict[str, float]:
    """Mean return per seat of each agent kind (seats rotate between games)."""
    env = haggle_v0.raw_env(**options)
    totals = {k: 0.0 for k in kinds}
    seats = {k: 0 for k in kinds}
    for game in range(games):
        env.reset(seed=game)
        kind_of = {a: kinds[(i + game) % len(kinds)] for i, a in enumerate(env.possible_agents)}
        agents = {
            a: make_agent(kind_of[a], env, seed=game * 10 + i) for i, a in enumerate(env.possible_agents)
        }
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(agents[agent].act(obs["observation"], obs["action_mask"]))  # raw env raises if illegal
        returns = env.rules.returns(env.game_state())
        for i, a in enumerate(env.possible_agents):
            totals[kind_of[a]] += returns[i]
            seats[kind_of[a]] += 1
    return {k: totals[k] / seats[k] for k in kinds}


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"num_players": 2},
        {"num_players": 8, "trading_rounds": 2},
        {"num_players": 3, "submission_phase": True, "max_offer": 2},
    ],
)
def test_heuristic_only_plays_legal_actions(options: dict[str, object]) -> None:
    result = play(["heuristic", "random"], 4, **options)
    assert set(result) == {"heuristic", "random"}


def test_heuristic_beats_random_in_four_player_games() -> None:
    result = play(["heuristic", "random"], 20)
    assert result["heuristic"] > 1.0 > 0 > result["random"]


@pytest.mark.parametrize("players", [2, 4, 8])
def test_the_value_table_gives_hand_values_bit_for_bit(players: int) -> None:
    from cardgames_env.agents.haggle import hand_values, hand_values_fast

    rng = np.random.default_rng(players)
    limit = 2 * players + 3
    inside = rng.integers(0, limit + 1, size=(5000, 5))
    inside[:5] = np.eye(5, dtype=np.int64) * limit  # the corners of the table
    assert np.array_equal(hand_values_fast(inside, players), hand_values(inside, players))
    beyond = inside.copy()
    beyond[:, 2] = limit + 1  # outside the table (a larger max_offer): computed directly
    assert np.array_equal(hand_values_fast(beyond, players), hand_values(beyond, players))


def _heuristic_moves(games: int, **options: object) -> list[int]:
    """Every action of four seeded heuristics over ``games`` seeded games."""
    env = haggle_v0.raw_env(**options)
    moves = []
    for game in range(games):
        env.reset(seed=game)
        agents = {
            a: make_agent("heuristic", env, seed=game * 10 + i) for i, a in enumerate(env.possible_agents)
        }
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            action = None if term or trunc else agents[agent].act(obs["observation"], obs["action_mask"])
            moves.append(-1 if action is None else action)
            env.step(action)
    return moves


@pytest.mark.parametrize("options", [{}, {"num_players": 3, "max_offer": 5}])
def test_the_value_table_changes_no_decision(monkeypatch: pytest.MonkeyPatch, options: dict) -> None:
    from cardgames_env.agents import haggle

    fast = _heuristic_moves(6, **options)
    table, weights, _ = haggle._value_table(4)
    monkeypatch.setattr(haggle, "_value_table", lambda players: (table, weights, -1))  # every hand direct
    assert _heuristic_moves(6, **options) == fast
