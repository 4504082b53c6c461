"""The IS-MCTS search agent: options, information sets (no peeking), determinism, legality."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env.agents import make_agent
from cardgames_env.agents.search import SearchAgent, SearchOptions, parse_search_options
from cardgames_env.cli import main
from cardgames_env.core.game import CHANCE
from cardgames_env.envs.haggle.search import haggle_hand_value
from cardgames_env.envs.red7.cards import card_str, parse_cards
from cardgames_env.registry import ALL_ENVS, load, spec
from cardgames_env.training.evaluate import play_game

VARIANTS = [
    pytest.param(name, options, id=f"{name}-{i}")
    for name in ALL_ENVS
    for i, options in enumerate(load(name).TEST_VARIANTS)
]


def positions(name: str, options: dict, games: int = 2, every: int = 3, limit: int = 12) -> list:
    """Rules states where some seat is to move, from random play of a few seeded games."""
    raw = load(name).raw_env(**options)
    rules = raw.rules
    rng = np.random.default_rng(7)
    found = []
    for game in range(games):
        state = rules.new_game(raw.config, rules.sample_deal(raw.config, rng))
        step = 0
        while len(found) < limit * (game + 1):
            player = rules.current_player(state)
            if player == CHANCE:
                state = rules.apply_deal(state, rules.sample_deal(state, rng))
                continue
            if player < 0:
                break
            if step % every == 0:
                found.append(state)
            moves = rules.legal_moves(state)
            state = rules.apply_move(state, moves[int(rng.integers(len(moves)))])
            step += 1
    return found


# -- options --------------------------------------------------------------------------------------


def test_options_parse_from_the_agent_name():
    assert parse_search_options("search") == SearchOptions()
    assert parse_search_options("search:iterations=800").iterations == 800
    assert parse_search_options("search:time=0.2").time == 0.2
    both = parse_search_options("search:iterations=50:c=1.5:rollout=random:max_children=4")
    assert (both.iterations, both.c, both.rollout, both.max_children) == (50, 1.5, "random", 4)
    assert SearchOptions().budget("red7")[0] is not None  # the default is a count: reproducible
    assert SearchOptions(time=0.1).budget("red7") == (None, 0.1)


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("search:depth=3", "depth"),
        ("search:iterations=0", "iterations"),
        ("search:iterations=many", "iterations"),
        ("search:time=-1", "time"),
        ("search:rollout=smart", "rollout"),
        ("search:c=nan", "c"),
        ("search:iterations", "key=value"),
        ("search:iterations=5:iterations=6", "twice"),
    ],
)
def test_bad_options_raise_value_errors_naming_them(name, fragment):
    env = load("red7_v0").raw_env()
    with pytest.raises(ValueError, match=fragment):
        make_agent(name, env)


def test_cli_reports_bad_search_options_in_one_line(capsys):
    assert main(["eval", "red7_v0", "--agent", "search:bogus=1", "--vs", "heuristic", "--games", "2"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and "bogus" in captured.err


def test_cli_plays_a_game_with_search_options(capsys):
    argv = ["play", "red7_v0", "--agents", "search:iterations=20,heuristic", "--seed", "2", "--quiet"]
    assert main(argv) == 0
    assert "points" in capsys.readouterr().out


# -- information sets -----------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_canonical_state_depends_only_on_the_seats_information(name, options):
    """Re-dealing what the seat cannot see (twice, differently) gives the same canonical state,
    and the canonical state shows the seat exactly its own observation."""
    raw = load(name).raw_env(**options)
    rules, encoding = raw.rules, raw.encoding
    adapter = spec(raw.info.name).load("search")(encoding)
    rng = np.random.default_rng(3)
    for state in positions(name, options):
        player = rules.current_player(state)
        canonical = adapter.canonical(state, player)
        for _ in range(2):
            other = rules.resample_hidden(state, player, rng)
            assert adapter.canonical(other, player) == canonical
        seen = encoding.observe(encoding.to_decision(state), player)
        assert np.array_equal(encoding.observe(encoding.to_decision(canonical), player), seen)
        assert set(adapter.legal(canonical)) == set(adapter.legal(state))


@pytest.mark.parametrize("name", ALL_ENVS)
def test_no_peeking_same_move_when_only_hidden_cards_differ(name):
    """Two states that differ only in what the seat to move cannot see (its hidden cards
    re-dealt) give the same move under the same seed."""
    raw = load(name).raw_env()
    rules = raw.rules
    rng = np.random.default_rng(11)
    checked = 0
    for state in positions(name, {}, games=3, every=2, limit=3):
        player = rules.current_player(state)
        other = rules.resample_hidden(state, player, rng)
        if other == state:
            continue
        a = SearchAgent(raw, "search:iterations=16", seed=5).choose_move(state)
        b = SearchAgent(raw, "search:iterations=16", seed=5).choose_move(other)
        assert a == b
        checked += 1
    assert checked >= 2


# -- play -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_search_plays_only_legal_actions(name, options):
    """Whole (turn-limited) games in every variant: the raw env raises on an illegal action."""
    env = load(name).raw_env(max_steps=120, **options)
    n = len(env.possible_agents)
    agents = [
        make_agent("search:iterations=6" if s % 2 == 0 else "random", env, seed=s) for s in range(n)
    ]
    record = play_game(env, agents, seed=1)
    assert record.steps > 0 and not env.agents


@pytest.mark.parametrize("name", ["red7_v0", "jaipur_v0"])
def test_search_is_reproducible_under_a_seed(name):
    env = load(name).raw_env(max_steps=40)
    n = len(env.possible_agents)
    records = []
    for _ in range(2):
        agents = [make_agent("search:iterations=8", env, seed=s) for s in range(n)]
        records.append(play_game(env, agents, seed=4))
    assert records[0] == records[1]


def test_time_budget_runs_at_least_one_simulation():
    env = load("gongzhu_v0").raw_env()
    env.reset(seed=0)
    agent = SearchAgent(env, "search:time=0.01", seed=0)
    state = env.game_state()
    move = agent.choose_move(state)
    assert move in env.rules.legal_moves(state)
    assert agent.last_iterations >= 1


def test_search_takes_a_winning_red7_move_over_losing_ones():
    """A Red7 position where only one play keeps the mover in: the search finds a move that
    keeps it winning (every other legal move loses at once off strict)."""
    env = load("red7_v0").raw_env(strict=False)
    rules = env.rules
    # Red rule (highest card): P0 holds R7 (wins) and O1 (loses to P1's palette B6); every
    # other card is in the deck.
    dealt = set(parse_cards("R7 O1 V2 Y3 O2 B6"))
    deck = " ".join(card_str(c) for c in range(49) if c not in dealt)
    deal = rules.Deal.from_strings(["R7 O1", "V2 Y3"], ["O2", "B6"], deck)
    state = rules.new_game(env.config, deal)
    state = state._replace(player=0)
    move = SearchAgent(env, "search:iterations=60", seed=0).choose_move(state)
    after = rules.apply_move(state, move)
    assert after.active & 1  # still in the round


def test_haggle_hand_value_matches_the_heuristics_vector_version():
    from cardgames_env.envs.haggle.heuristic import hand_values

    rng = np.random.default_rng(0)
    hands = rng.integers(0, 8, size=(200, 5))
    expected = hand_values(hands, 4)
    got = [haggle_hand_value(tuple(int(v) for v in h), 4) for h in hands]
    assert np.allclose(got, expected)


@pytest.mark.parametrize(
    ("name", "options"),
    [("haggis_v0", {"target_score": 50}), ("jaipur_v0", {"exchange_encoding": "substeps"})],
)
def test_sub_step_encodings_play_the_whole_chosen_move(name, options):
    """With encodings that build a move over several actions, the agent's actions complete
    exactly the rules move its search chose."""
    env = load(name).raw_env(**options)
    rules = env.rules
    checked = 0
    for seed in range(4):
        env.reset(seed=seed)
        agent = SearchAgent(env, "search:iterations=8", seed=seed)
        chosen: list = []

        def recording(state, choose=agent.choose_move, chosen=chosen):
            chosen.append(choose(state))
            return chosen[-1]

        agent.choose_move = recording
        for _ in range(6):
            state = env.game_state()
            if rules.current_player(state) < 0:
                break
            while env.game_state() is state:
                env.step(agent.act(np.zeros(1), env.action_mask()))
            expected = rules.apply_move(state, chosen[-1])
            if rules.current_player(expected) >= 0:  # no new deal in between
                assert env.game_state() == expected
                checked += 1
    assert checked >= 10


# -- the garbage collector ------------------------------------------------------------------------


@pytest.mark.parametrize("enabled", [True, False])
def test_a_decision_pauses_the_collector_and_restores_its_setting(enabled, monkeypatch):
    import gc

    raw = load("red7_v0").raw_env()
    raw.reset(seed=3)
    agent = SearchAgent(raw, "search:iterations=20", seed=0)
    seen: list[bool] = []
    real_iterate = agent._iterate

    def watched(*args):
        seen.append(gc.isenabled())
        return real_iterate(*args)

    monkeypatch.setattr(agent, "_iterate", watched)
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        agent.choose_move(raw.game_state())
        after = gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
    assert seen and not any(seen)  # every simulation ran with the collector off
    assert after is enabled  # and the caller's setting is back afterwards
