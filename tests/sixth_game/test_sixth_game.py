"""A game defined only here (High Card) joins every registry by one registration.

The env suite (``tests/envs``) runs on it too; this file checks the rest of the package: the
registry lookups, ``cardgames list`` and ``play``, records and their replay, the agents
(heuristic, search), training settings, the browser view, and that registering leaks nothing.
High Card's outcomes are derived by hand in the tests below.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import gymnasium
import numpy as np
import pettingzoo
import pytest

import cardgames_env
from cardgames_env import registry, vector
from cardgames_env.agents import make_agent
from cardgames_env.cli import main
from cardgames_env.records import read_records
from cardgames_env.training.config import load_config

from . import SPEC, registered
from . import rules as highcard

NAME = SPEC.env_name


@pytest.fixture()
def sixth() -> Iterator[None]:
    with registered():
        yield


def test_registration_reaches_every_registry_and_leaves_with_the_game(sixth):
    assert registry.spec("highcard") is registry.spec(NAME) is registry.spec(f"cardgames/{NAME}") is SPEC
    assert NAME in registry.env_names() and NAME not in registry.ALL_ENVS
    assert getattr(cardgames_env, NAME).raw_env().info.name == "highcard"
    assert pettingzoo.make("aec", f"cardgames/{NAME}").unwrapped.metadata["name"] == NAME
    single = gymnasium.make(f"cardgames/{NAME}", opponents="heuristic")
    observation, _ = single.reset(seed=0)
    assert observation.shape == single.observation_space.shape
    assert gymnasium.spec(f"cardgames/{NAME}").vector_entry_point is None  # no batched engine
    with pytest.raises(ValueError, match="highcard_v0 has no batched engine"):
        vector.make(NAME, 4)
    assert NAME not in vector.available()
    assert load_config("highcard") == load_config("no_such_game")  # no config.json: the defaults


def test_registering_does_not_leak():
    with registered():
        pass
    assert NAME not in registry.env_names()
    assert f"cardgames/{NAME}" not in pettingzoo.aec_registry
    assert f"cardgames/{NAME}" not in gymnasium.registry
    with pytest.raises(ValueError, match="unknown env"):
        registry.spec(NAME)
    with pytest.raises(AttributeError):
        getattr(cardgames_env, NAME)


def test_cli_lists_the_game_with_its_sizes(sixth, capsys):
    assert main(["list"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(NAME))
    # 2 players, one action per card of the 9-card deck, observation 9 + 9 + 2 * 9 + 2 + 1.
    assert row.split()[1:4] == ["2", "9", "39"]


def test_cli_plays_records_and_replays_a_game(sixth, capsys, tmp_path):
    record = tmp_path / "games.jsonl"
    assert main(["play", NAME, "--agents", "heuristic,random", "--seed", "4", "--record", str(record)]) == 0
    shown = capsys.readouterr().out
    assert "play" in shown
    (game,) = read_records(record)
    assert game.env == NAME and len(game.moves) == 2 * highcard.Config().hand_size
    assert json.loads(record.read_text(encoding="utf-8").splitlines()[0])["env"] == NAME
    assert main(["replay", str(record), "--quiet"]) == 0
    assert "error" not in capsys.readouterr().err.lower()


def test_heuristic_takes_a_trick_with_the_lowest_winning_card(sixth):
    raw = registry.load(NAME).raw_env()
    agent = make_agent("heuristic", raw, seed=0)
    config = highcard.Config()
    # P0 leads 5 (card id 4); P1 holds 3, 6, 8 (ids 2, 5, 7): the lowest card that wins is the 6.
    state = highcard.new_game(config, highcard.Deal((0b1_0001_0001, 0b1010_0100)))
    state = highcard.apply_move(state, highcard.Play(4))
    raw.set_game_state(state)
    action = agent.act(raw.observe("player_1")["observation"], raw.action_mask())
    assert raw.action_to_string(action) == "play 6"


def test_search_agent_plays_from_the_seats_information_and_finds_the_only_hope(sixth):
    """Trick 1: P0 led 9, P1 answered 1. Trick 2: P0 leads 5; P1 holds 3 and 8. Playing 3 hands
    P0 its second trick (P0 wins); playing 8 wins the trick, and P1 then wins the game if P0's
    last card, one of the unseen 2, 4, 6, 7, is the 2. So the 8 is the move."""
    raw = registry.load(NAME).raw_env()
    agent = make_agent("search", raw, seed=0)
    assert agent.iterations == SPEC.search_iterations
    config = highcard.Config()
    ids = {number: 1 << (number - 1) for number in range(1, 10)}
    state = highcard.new_game(config, highcard.Deal((ids[9] | ids[5] | ids[4], ids[1] | ids[3] | ids[8])))
    for number in (9, 1, 5):
        state = highcard.apply_move(state, highcard.Play(number - 1))
    assert highcard.current_player(state) == 1 and state.tricks == (1, 0)
    rng = np.random.default_rng(1)
    for _ in range(5):  # the canonical state depends only on what seat 1 knows
        other = highcard.resample_hidden(state, 1, rng)
        assert agent.hooks.infoset(other, 1) == agent.hooks.infoset(state, 1)
    raw.set_game_state(state)
    action = agent.act(raw.observe("player_1")["observation"], raw.action_mask())
    assert raw.action_to_string(action) == "play 8"


def test_the_browser_view_shows_only_the_seats_cards(sixth):
    pytest.importorskip("starlette")
    from cardgames_env.web import views
    from cardgames_env.web.app import env_meta
    from cardgames_env.web.session import GameSession

    assert any(env["env"] == NAME and env["title"] == "High Card" for env in env_meta())
    session = GameSession(NAME, {}, seed=2, agents=["human", "random"])
    view = session.view()
    hands = {zone["id"]: zone for zone in view["zones"]}
    assert len(hands["hand"]["cards"]) == 3
    assert hands["hand1"]["cards"] == [] and hands["hand1"]["hidden"] == 3
    assert view["title"] == "High Card"
    assert {m["text"] for m in view["moves"]} == {f"play {c['code']}" for c in hands["hand"]["cards"]}
    state = session.env.game_state()
    other = highcard.resample_hidden(state, 0, np.random.default_rng(0))
    assert views.table("highcard", other, 0) == views.table("highcard", state, 0)
