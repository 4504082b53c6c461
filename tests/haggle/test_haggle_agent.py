"""The Haggle heuristic: always legal (every variant), and better than random play."""

from __future__ import annotations

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
