"""Evaluation statistics: Wilson and mean intervals, Bradley-Terry/Elo, matches and leagues on
fixed agents whose results are derived by hand (toy game in toy_game.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cardgames_env.agents import RandomAgent
from cardgames_env.registry import ALL_ENVS, load
from cardgames_env.training.evaluate import evaluate, league, play_game
from cardgames_env.training.stats import bradley_terry, elo_from_strengths, mean_interval, wilson_interval

from .toy_game import ToyEnv, passer, striker


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # Wilson (1927) score interval, z = 1.96; e.g. 8/10: centre (0.8 + 1.9208/10) / 1.38415
        # = 0.71677, half-width 1.96 * sqrt(0.016 + 0.0096037) / 1.38415 = 0.22658.
        (8, 10, 0.4902, 0.9433),
        (5, 10, 0.2366, 0.7634),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (50, 100, 0.4038, 0.5962),
    ],
)
def test_wilson_interval_matches_hand_computed_values(successes, n, low, high):
    got = wilson_interval(successes, n)
    assert got[0] == pytest.approx(low, abs=1e-4)
    assert got[1] == pytest.approx(high, abs=1e-4)


def test_wilson_interval_rejects_impossible_counts():
    with pytest.raises(ValueError):
        wilson_interval(11, 10)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_mean_interval_by_hand():
    # mean 3, sample sd sqrt(2.5) = 1.5811, se = 0.70711, 1.95996 * se = 1.38590
    mean, low, high = mean_interval([1, 2, 3, 4, 5])
    assert (mean, low, high) == pytest.approx((3.0, 1.61410, 4.38590), abs=1e-4)
    assert mean_interval([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)
    assert all(math.isnan(x) for x in mean_interval([1.0])[1:])


def test_bradley_terry_recovers_an_exact_table():
    """Strengths 1 : 2 : 4. Observed wins match the model exactly (A-B 1-2 of 3, B-C 1-2 of 3,
    A-C 1-4 of 5), so the maximum likelihood fit is those strengths: Elo gaps 400*log10(2)."""
    wins = np.array([[0, 1, 1], [2, 0, 1], [4, 2, 0]], dtype=float)
    p = bradley_terry(wins, prior=0.0)
    assert p[1] / p[0] == pytest.approx(2.0, rel=1e-6)
    assert p[2] / p[0] == pytest.approx(4.0, rel=1e-6)
    elo = elo_from_strengths(p, anchor=0)
    assert elo == pytest.approx([1000.0, 1120.412, 1240.824], abs=1e-2)
    assert elo_from_strengths(p).mean() == pytest.approx(1500.0)


def test_bradley_terry_prior_keeps_a_clean_sweep_finite():
    """10-0 plus one virtual drawn game: 10.5 to 0.5 = odds 21, an Elo gap of 400*log10(21)."""
    p = bradley_terry(np.array([[0, 10], [0, 0]], dtype=float), prior=1.0)
    assert 400 * math.log10(p[0] / p[1]) == pytest.approx(528.88, abs=0.01)
    with pytest.raises(ValueError, match="scored nothing"):
        bradley_terry(np.array([[0, 10], [0, 0]], dtype=float), prior=0.0)


def test_two_player_match_striker_always_wins_in_both_seats():
    result = evaluate(ToyEnv(num_players=2), striker(), passer(), games=10,
                      agent_name="striker", opponent_name="passer")
    assert [seat for seat, _ in result.records] == [0, 1] * 5
    assert (result.wins, result.draws, result.losses) == (10, 0, 0)
    assert result.metric == "win_rate" and result.value == 1.0
    assert result.win_ci == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert result.points_diff == 1.0  # standing (1) minus eliminated (0)
    assert "win rate 1.000" in result.summary()


def test_draws_count_half():
    """Two passers: nobody is ever eliminated; the game stops at the turn limit, all draws."""
    result = evaluate(ToyEnv(num_players=2), passer(), passer(), games=10)
    assert (result.wins, result.draws, result.losses) == (0, 10, 0)
    assert result.win_rate == 0.5
    assert result.win_ci == pytest.approx((0.2366, 0.7634), abs=1e-4)


def test_multi_player_match_points_difference():
    """Three seats, one striker among passers: from any seat the striker eliminates the next
    two living players in turn and is the last one standing: points 1 vs 0, 0 -> diff +1."""
    result = evaluate(ToyEnv(num_players=3), striker(), passer(), games=6)
    assert [seat for seat, _ in result.records] == [0, 1, 2, 0, 1, 2]
    assert result.metric == "points_diff"
    assert result.value == 1.0 and result.ci == (1.0, 1.0)
    assert result.return_diff == 2.0  # +1 for the striker, -1 for each of the others
    assert result.wins == 6


def test_league_two_players_by_hand():
    """Striker beats passer 10-0; prior 1 -> 10.5 : 0.5 -> Elo gap 528.88 around 1500."""
    result = league(ToyEnv(num_players=2), {"striker": striker(), "passer": passer()}, games_per_pair=10)
    assert result.names == ["striker", "passer"]
    assert result.wins.tolist() == [[0, 10], [0, 0]]
    assert result.elo == pytest.approx([1500 + 264.44, 1500 - 264.44], abs=0.01)


def test_league_three_players_pairwise_scores_by_hand():
    """Seats A,B,A: A(0) strikes B(1), A(2) strikes A(0): seat 2 stands. A vs B pairs: seat 0
    vs 1 tie (both out) 0.5, seat 2 vs 1 win 1 -> 0.75. Seats B,A,B: the striker in seat 1
    eliminates both -> 1. Four games: 3.5 to 0.5, plus the prior's draw: 4 : 1 -> 400*log10(4)."""
    result = league(ToyEnv(num_players=3), {"striker": striker(), "passer": passer()}, games_per_pair=4)
    assert result.wins[0, 1] == pytest.approx(3.5) and result.wins[1, 0] == pytest.approx(0.5)
    assert result.elo[0] - result.elo[1] == pytest.approx(400 * math.log10(4), abs=0.01)


def test_league_anchors_random_at_1000_and_writes_csv(tmp_path):
    from cardgames_env.training.plots import plot_elo

    result = league(ToyEnv(num_players=2), {"random": RandomAgent(0), "striker": striker()}, games_per_pair=6)
    assert result.elo[0] == pytest.approx(1000.0)
    assert result.elo[1] > 1000.0
    path = result.write_csv(tmp_path / "elo.csv")
    lines = path.read_text().splitlines()
    assert lines[0] == "agent,elo,score,games" and lines[1].startswith("striker,")
    png = plot_elo(result, tmp_path / "elo.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("name", ALL_ENVS)
def test_play_game_is_reproducible_and_returns_sum_to_rules(name):
    env = load(name).raw_env()
    n = len(env.possible_agents)
    first = play_game(env, [RandomAgent() for _ in range(n)], seed=7)
    again = play_game(env, [RandomAgent() for _ in range(n)], seed=7)
    assert first == again
    assert first.returns == pytest.approx(env.rules.returns(env.game_state()))


VARIANTS = [
    pytest.param(name, options, id=f"{name}[{','.join(f'{k}={v}' for k, v in options.items()) or 'default'}]")
    for name in ALL_ENVS
    for options in load(name).TEST_VARIANTS
]


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_evaluate_gives_a_finite_headline_for_every_variant(name, options):
    """Random against random over one rotation of two deals: the headline figure and its
    interval are numbers (games whose points can be missing use returns), and the game count
    and seats follow the plan."""
    players = len(load(name).raw_env(**options).possible_agents)
    result = evaluate(name, "random", "random", games=2 * players, seed=1, options=options)
    assert result.games == 2 * players
    assert sorted(seat for seat, _ in result.records) == sorted(list(range(players)) * 2)
    assert math.isfinite(result.value)
    assert all(math.isfinite(x) for x in result.ci)
    assert result.wins + result.draws + result.losses == result.games


def test_evaluate_rejects_a_non_positive_count():
    with pytest.raises(ValueError, match="positive"):
        evaluate(ALL_ENVS[0], "random", "random", games=0)
