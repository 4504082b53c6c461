"""The IS-MCTS search agent: options, hooks, information sets (no peeking), determinism,
legality, pinned decisions, and that the algorithm knows no game."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from cardgames_env import registry
from cardgames_env.agents import make_agent
from cardgames_env.agents.search import SearchAgent, SearchOptions, load_hooks, parse_search_options
from cardgames_env.cli import main
from cardgames_env.core.game import random_positions
from cardgames_env.core.search import SearchHooks
from cardgames_env.envs.haggle.heuristic import hand_value
from cardgames_env.envs.red7.cards import card_str, parse_cards
from cardgames_env.registry import ALL_ENVS, load
from cardgames_env.training.evaluate import play_game

VARIANTS = [
    pytest.param(name, options, id=f"{name}-{i}")
    for name in ALL_ENVS
    for i, options in enumerate(load(name).TEST_VARIANTS)
]


DECISIONS = Path(__file__).parent / "data" / "search_decisions.json"


def positions(name: str, options: dict, games: int = 2, every: int = 3, limit: int = 12) -> list:
    """Rules states where some seat is to move, from random play of a few seeded games."""
    raw = load(name).raw_env(**options)
    return random_positions(raw.rules, raw.config, games=games, every=every, limit=limit)


# -- options --------------------------------------------------------------------------------------


def test_options_parse_from_the_agent_name():
    assert parse_search_options("search") == SearchOptions()
    assert parse_search_options("search:iterations=800").iterations == 800
    assert parse_search_options("search:time=0.2").time == 0.2
    both = parse_search_options("search:iterations=50:c=1.5:rollout=random:max_children=4")
    assert (both.iterations, both.c, both.rollout, both.max_children) == (50, 1.5, "random", 4)
    # The Python engine's default is a count (reproducible), the compiled one's a time cap.
    assert SearchOptions(engine="python").budget("red7")[0] is not None
    assert SearchOptions().budget("red7") == (None, 0.1)
    assert parse_search_options("search:engine=python:batch=7") == SearchOptions(engine="python", batch=7)
    assert SearchOptions(time=0.1).budget("red7") == (None, 0.1)


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("search:width=3", "width"),
        ("search:depth=-1", "depth"),
        ("search:depth=two", "depth"),
        ("search:iterations=0", "iterations"),
        ("search:iterations=many", "iterations"),
        ("search:time=-1", "time"),
        ("search:rollout=smart", "rollout"),
        ("search:c=nan", "c"),
        ("search:iterations", "key=value"),
        ("search:iterations=5:iterations=6", "twice"),
        ("search:engine=gpu", "engine"),
        ("search:batch=0", "batch"),
        ("search:prior=oracle", "prior"),
        ("search:c_puct=-1", "c_puct"),
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
    hooks = load_hooks(raw.info.name)
    agent = SearchAgent(raw, "search:iterations=1")
    rng = np.random.default_rng(3)
    for state in positions(name, options):
        player = rules.current_player(state)
        canonical = hooks.infoset(state, player)
        for _ in range(2):
            other = hooks.resample(state, player, rng)
            assert hooks.infoset(other, player) == canonical
        seen = encoding.observe(encoding.to_decision(state), player)
        assert np.array_equal(encoding.observe(encoding.to_decision(canonical), player), seen)
        assert agent.searched_moves(canonical) == agent.searched_moves(state)
        assert set(agent.searched_moves(state)) <= set(rules.legal_moves(state))


@pytest.mark.parametrize("engine", ["python", "compiled"])
@pytest.mark.parametrize("name", ALL_ENVS)
def test_no_peeking_same_move_when_only_hidden_cards_differ(name, engine):
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
        spec = f"search:engine={engine}:iterations=16:batch=8"
        a = SearchAgent(raw, spec, seed=5).choose_move(state)
        b = SearchAgent(raw, spec, seed=5).choose_move(other)
        assert a == b
        checked += 1
    assert checked >= 2


# -- play -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["python", "compiled", "compiled:depth=3"])
@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_search_plays_only_legal_actions(name, options, engine):
    """Whole (turn-limited) games in every variant: the raw env raises on an illegal action."""
    env = load(name).raw_env(max_steps=120, **options)
    n = len(env.possible_agents)
    spec = f"search:engine={engine}:iterations=6:batch=4"
    agents = [make_agent(spec if s % 2 == 0 else "random", env, seed=s) for s in range(n)]
    record = play_game(env, agents, seed=1)
    assert record.steps > 0 and not env.agents


@pytest.mark.parametrize("engine", ["python", "compiled"])
@pytest.mark.parametrize("name", ["red7_v0", "jaipur_v0"])
def test_search_is_reproducible_under_a_seed(name, engine):
    env = load(name).raw_env(max_steps=40)
    n = len(env.possible_agents)
    records = []
    for _ in range(2):
        agents = [make_agent(f"search:engine={engine}:iterations=8", env, seed=s) for s in range(n)]
        records.append(play_game(env, agents, seed=4))
    assert records[0] == records[1]


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_time_budget_runs_at_least_one_simulation(engine):
    env = load("gongzhu_v0").raw_env()
    env.reset(seed=0)
    agent = SearchAgent(env, f"search:engine={engine}:time=0.01", seed=0)
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
    got = [hand_value(tuple(int(v) for v in h), 4) for h in hands]
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
    agent = SearchAgent(raw, "search:engine=python:iterations=20", seed=0)
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


# -- pinned decisions -----------------------------------------------------------------------------


def search_decisions() -> dict[str, list[str]]:
    """The moves of ``search:engine=python:iterations=40`` (seed = the position's index) in
    :func:`positions` (up to 12) of every test variant, keyed ``"<env>-<variant index>"``."""
    decisions = {}
    for name in ALL_ENVS:
        for i, options in enumerate(load(name).TEST_VARIANTS):
            raw = load(name).raw_env(**options)
            found = positions(name, options, limit=6)
            spec = "search:engine=python:iterations=40"
            agents = [SearchAgent(raw, spec, seed=k) for k in range(len(found))]
            decisions[f"{name}-{i}"] = [str(agent.choose_move(state)) for agent, state in zip(agents, found)]
    return decisions


def test_decisions_match_the_pinned_ones():
    """The search's moves in fixed positions of every test variant, pinned in
    ``data/search_decisions.json``: any change of the search or of a game's hooks that alters
    a decision shows here. Regenerate the file (``python -m tests.agents.test_search``) only
    for a change meant to alter the search's play."""
    pinned = json.loads(DECISIONS.read_text())
    got = search_decisions()
    assert set(got) == set(pinned)
    for key, moves in got.items():
        assert moves == pinned[key], key


# -- the algorithm knows no game ------------------------------------------------------------------


def test_the_search_module_names_no_game():
    import cardgames_env.agents.search as search_module
    import cardgames_env.core.search as hooks_module

    for module in (search_module, hooks_module):
        text = Path(module.__file__).read_text().lower()
        for game in ALL_ENVS:
            assert registry.spec(game).game not in text, (module.__name__, game)


def test_a_game_with_only_the_three_required_hooks_is_searched():
    """High Card (defined in the tests) supplies only its information set, resampler and
    rollout: the search plays whole games from either seat, always legally (the raw env raises
    on an illegal action), and finds the one move that can still win a position (derived by
    hand in ``tests/sixth_game``: P0 led 9 and 5 after winning 9-1, P1 holds 3 and 8; only
    the 8 keeps P1's chance of winning the game)."""
    from tests.sixth_game import SPEC, registered
    from tests.sixth_game import rules as highcard
    from tests.sixth_game.search import HOOKS

    optional = (HOOKS.moves, HOOKS.horizon, HOOKS.value, HOOKS.apply, HOOKS.max_children)
    assert optional == (None, None, None, None, 0)
    with registered():
        env = registry.load(SPEC.env_name).raw_env()
        for game in range(6):
            seat = game % 2
            agents = [make_agent("search" if s == seat else "random", env, seed=game) for s in range(2)]
            record = play_game(env, agents, seed=game)
            assert record.steps > 0 and not env.agents
        ids = {number: 1 << (number - 1) for number in range(1, 10)}
        deal = highcard.Deal((ids[9] | ids[5] | ids[4], ids[1] | ids[3] | ids[8]))
        state = highcard.new_game(highcard.Config(), deal)
        for number in (9, 1, 5):
            state = highcard.apply_move(state, highcard.Play(number - 1))
        for seed in range(3):
            assert SearchAgent(env, seed=seed).choose_move(state) == highcard.Play(7)


def test_missing_hooks_are_named(monkeypatch):
    from tests.sixth_game import SPEC, registered
    from tests.sixth_game import search as highcard_search

    with registered():
        env = registry.load(SPEC.env_name).raw_env()
        no_rollout = dataclasses.replace(highcard_search.HOOKS, rollout=None)
        monkeypatch.setattr(highcard_search, "HOOKS", no_rollout)
        with pytest.raises(ValueError, match="lack the required rollout"):
            SearchAgent(env)
        monkeypatch.setattr(highcard_search, "HOOKS", SearchHooks(infoset=highcard_search.canonical))
        with pytest.raises(ValueError, match="lack the required resample, rollout"):
            SearchAgent(env)
        monkeypatch.setattr(highcard_search, "HOOKS", object())
        with pytest.raises(ValueError, match="not a SearchHooks"):
            SearchAgent(env)


def test_a_game_without_search_hooks_has_no_search_agent():
    from tests.sixth_game import SPEC

    bare = dataclasses.replace(SPEC, search=None)
    registry.register_game(bare)
    try:
        with pytest.raises(ValueError, match="no search agent for game 'highcard'"):
            SearchAgent(registry.load(bare.env_name).raw_env())
    finally:
        registry.unregister_game(bare.env_name)


def test_bad_max_children_in_hooks_is_a_value_error():
    with pytest.raises(ValueError, match="max_children"):
        SearchHooks(max_children=-1)


def test_epsilon_mixes_uniform_legal_moves_into_the_policy():
    """``epsilon=1`` replaces every light-policy move by a uniformly random legal one: the
    same draws as ``rollout=random`` after one ``random()`` each, so over many draws both see
    every legal move; ``epsilon=0`` calls the game's policy alone."""
    raw = load("gongzhu_v0").raw_env()
    raw.reset(seed=0)
    state = raw.game_state()
    legal = set(raw.rules.legal_moves(state))
    policy = SearchAgent(raw, "search:epsilon=1", seed=0).light_policy()
    rng = np.random.default_rng(0)
    drawn = {policy(state, rng) for _ in range(400)}
    assert drawn == legal and len(legal) > 1
    assert SearchAgent(raw, "search", seed=0).light_policy() is load_hooks("gongzhu").rollout


if __name__ == "__main__":
    DECISIONS.write_text(json.dumps(search_decisions(), indent=1) + "\n")
    print(f"wrote {DECISIONS}")
