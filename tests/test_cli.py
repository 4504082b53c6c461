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


def test_play_header_explains_the_pictures_abbreviations(capsys):
    """Gong Zhu's captured cards read P, G and D: the header says which cards they are (the pig
    is the ♠Q, the goat the ♦J, the transformer the ♣10: Gong Zhu rules), before the picture."""
    assert main(["play", "gongzhu_v0", "--agents", "random", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    head = out[: out.index("Gong Zhu — hand 1")]
    for explained in ("P = pig (QS)", "G = goat (JD)", "D = transformer (TC)", "T = 10"):
        assert explained in head, head
    assert main(["play", "gongzhu_v0", "--agents", "random", "--seed", "1", "--quiet"]) == 0
    assert "pig" not in capsys.readouterr().out  # --quiet: the final position only


def test_gongzhu_pictures_write_a_ten_as_the_moves_do():
    """Hands and tricks write the ten as the moves and the captures do (``T``), never ``10``."""
    import re

    env = make_env("gongzhu_v0", [])
    env.reset(seed=1)
    tens_seen = 0
    while not all(env.terminations.values()):
        picture = env.encoding.render(env.game_state(), None)
        for line in picture.splitlines():
            words = line.split()
            if "♠" in words:  # a hand: suit symbols, each followed by its ranks
                ranks = [w for w in words[1:] if w not in "♠♥♦♣-"]
                assert all(len(r) == 1 and r in "23456789TJQKA" for r in ranks), line
                tens_seen += ranks.count("T")
            if words and words[0] == "trick:" and "leads)" not in line and words[1:] != ["-"]:
                cards = words[2::2]  # "P0 2S  P1 TS ...": seat, card, seat, card
                assert all(re.fullmatch("[2-9TJQKA][CDHS]", c) for c in cards), line
                tens_seen += sum(c[0] == "T" for c in cards)
        move = env.legal_action_strings()[0]
        env.step(env.string_to_action(move))
    assert tens_seen > 4  # the four tens were in hands (and tricks) along the way
    env.reset(seed=1)
    assert env.string_to_action("play 10D") == env.string_to_action("play TD")  # both still read


def test_a_closed_output_pipe_ends_the_command_without_a_traceback():
    """``cardgames play ... | head -1``: the reader leaves early; no traceback on stderr."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "cardgames_env.cli", "play", "gongzhu_v0", "--agents", "random"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    proc.stdout.close()  # before the first line is written
    _, err = proc.communicate(timeout=120)
    assert b"Traceback" not in err and b"Exception ignored" not in err, err
    assert proc.returncode == 141


def test_play_quiet_counts_the_moves_on_stderr(terminal_stderr):
    """Quiet, a game between agents shows nothing until its end: a bar counts the moves (a
    Gong Zhu hand is 52 moves)."""
    assert main(["play", "gongzhu_v0", "--agents", "random", "--quiet"]) == 0
    captured = terminal_stderr.readouterr()
    assert "52 moves" in captured.err and "moves/s" in captured.err
    assert captured.out.splitlines()[-1].startswith("points:") and "moves" not in captured.out
    assert main(["play", "gongzhu_v0", "--agents", "random"]) == 0  # the moves printed are the progress
    assert terminal_stderr.readouterr().err == ""
