"""The ``cardgames`` command: list, play/watch, human play, and bad input (exit status 2)."""

from __future__ import annotations

import pytest

from cardgames_env.cli import HumanAgent, main, make_env
from cardgames_env.registry import ALL_ENVS, load


def test_list_prints_every_env_with_sizes(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ALL_ENVS:
        env = load(name).raw_env()
        line = next(line for line in out.splitlines() if line.startswith(name))
        assert str(env.encoding.num_actions) in line.split()
        assert str(env.encoding.observation_size) in line.split()


@pytest.mark.parametrize("name", ALL_ENVS)
def test_watch_a_game_with_built_in_agents(name, capsys):
    assert main(["play", name, "--agents", "heuristic", "--seed", "1", "--quiet"] + (
        ["--option", "target_score=50"] if name == "haggis_v0" else []
    )) == 0
    assert "points:" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "no_such_env"],
        ["play", "gongzhu_v0", "--option", "nonsense=1"],
        ["play", "gongzhu_v0", "--option", "novalue"],
        ["play", "gongzhu_v0", "--agents", "random,random"],
        ["play", "gongzhu_v0", "--agents", "genius"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and "error" in captured.err


def test_human_types_a_full_multi_action_move_once(monkeypatch, capsys):
    """Haggis plays take several actions; the typed move is carried out over the sub-steps."""
    env = make_env("haggis_v0", [])
    env.reset(seed=0)
    seat = env.possible_agents.index(env.agent_selection)
    start = env.game_state()
    move = max(env.rules.legal_moves(start), key=lambda m: len(str(m)))
    typed = iter([str(move)])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed))
    human = HumanAgent(env, seat)
    steps = 0
    while env.game_state() is start:
        obs = env.observe(env.agent_selection)
        env.step(human.act(obs["observation"], obs["action_mask"]))
        steps += 1
    assert steps > 1
    assert env.game_state().hands[seat] == start.hands[seat] & ~move.cards


def test_human_is_reprompted_after_an_illegal_or_garbled_move(monkeypatch, capsys):
    env = make_env("gongzhu_v0", [])
    env.reset(seed=0)
    seat = env.possible_agents.index(env.agent_selection)
    legal = env.legal_action_strings()
    not_in_hand = next(
        f"play {r}{s}" for r in "23456789TJQKA" for s in "CDHS" if f"play {r}{s}" not in legal
    )
    typed = iter(["garbage", not_in_hand, legal[0]])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed))
    obs = env.observe(env.agent_selection)
    action = HumanAgent(env, seat).act(obs["observation"], obs["action_mask"])
    assert env.action_to_string(action) == legal[0]
    out = capsys.readouterr().out
    assert "not understood" in out and "not legal now" in out
