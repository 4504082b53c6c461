"""Game records: writing while playing, reading back, and replays that rebuild the same states."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardgames_env.records import (
    GameRecord,
    Recorder,
    RecordError,
    append_record,
    game_over,
    make_env,
    read_records,
    replay,
    replay_record,
    skip_dead_steps,
)
from cardgames_env.registry import ALL_ENVS, load

# Every env with quick variants; the sub-step encodings (Haggis always, Jaipur "substeps") included.
CASES = [
    ("gongzhu_v0", {}),
    ("jaipur_v0", {}),
    ("jaipur_v0", {"exchange_encoding": "substeps", "rounds": 1}),
    ("haggle_v0", {}),
    ("haggle_v0", {"num_players": 3, "submission_phase": True}),
    ("haggis_v0", {"target_score": 50}),
    ("red7_v0", {"num_players": 4}),
    ("red7_v0", {"advanced": True, "action_rule": True, "num_players": 3, "strict": False}),
]


def play_random(name: str, options: dict, seed: int, max_steps: int | None = None):
    """Play a random game with a Recorder; return the record and the rules state after each move."""
    kwargs = dict(options) if max_steps is None else {**options, "max_steps": max_steps}
    env = load(name).raw_env(**kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed + 1000)
    recorder = Recorder(name, kwargs, seed, agents=["random"] * len(env.possible_agents))
    states = []
    while True:
        skip_dead_steps(env)
        if game_over(env):
            break
        legal = np.flatnonzero(env.action_mask())
        if recorder.step(env, int(rng.choice(legal))) is not None:
            states.append(env.game_state())
    return recorder.record, states, env


def test_cases_cover_every_env():
    assert {name for name, _ in CASES} == set(ALL_ENVS)


@pytest.mark.parametrize("name,options", CASES)
def test_replay_rebuilds_every_state(name, options, tmp_path):
    record, states, env = play_random(name, options, seed=7)
    assert record.finished and len(record.moves) == len(states) > 0
    path = tmp_path / "games.jsonl"
    append_record(path, record)
    (loaded,) = read_records(path)
    assert loaded.moves == record.moves and loaded.seed == 7 and loaded.options == options
    replayed = [step.after for step in replay(loaded)]
    assert replayed == states
    # the recorded results are the rules' own
    final = states[-1]
    assert loaded.points == json.loads(json.dumps(list(env.rules.points(final))))
    assert loaded.returns == pytest.approx(list(env.rules.returns(final)))


def test_multi_action_moves_are_one_entry_each():
    """A Haggis play chosen card by card is recorded once, as the full play."""
    record, _, env = play_random("haggis_v0", {"target_score": 50}, seed=3)
    texts = [text for _, text in record.moves]
    assert not any(t.startswith("select") for t in texts)
    assert any(" as " in t and len(t.split(" as ")[0].split()) > 2 for t in texts)  # a multi-card play
    for text in texts:
        assert str(env.rules.parse_move(text)) == text


def test_turn_limit_truncation_is_recorded_and_replays():
    record, states, env = play_random("jaipur_v0", {}, seed=2, max_steps=9)
    assert record.finished and record.truncated and len(record.moves) == 9
    end = replay_record(record)
    assert end.game_state() == states[-1] and game_over(end)


def test_cli_play_record_then_replay(tmp_path, capsys):
    from cardgames_env.cli import main

    path = tmp_path / "g.jsonl"
    for seed in (1, 2):
        assert main(["play", "gongzhu_v0", "--agents", "random", "--seed", str(seed), "--quiet",
                     "--record", str(path)]) == 0
    records = read_records(path)
    assert [r.seed for r in records] == [1, 2] and all(len(r.moves) == 52 for r in records)
    capsys.readouterr()
    assert main(["replay", str(path), "--game", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "points:" in out and str(records[1].points[0]) in out
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("player_0: play") == 13 * 2  # every move of both games is printed


def _write(tmp_path, text):
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def _wrong_first_seat(line: str) -> str:
    data = json.loads(line)
    data["moves"][0][0] = (data["moves"][0][0] + 1) % 4
    return json.dumps(data)


@pytest.fixture
def good_line():
    record, _, _ = play_random("gongzhu_v0", {}, seed=5)
    return record.to_json()


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda line: line[: len(line) // 2], "cut off"),  # a truncated file
        (lambda line: "", "no game record"),
        (lambda line: "[1, 2]", "JSON object"),
        (lambda line: line.replace('"gongzhu_v0"', '"nosuch_v0"'), "unknown env"),
        (lambda line: line.replace('"seed":5', '"seed":"five"'), "seed"),
        (lambda line: line.replace('"options":{}', '"options":{"bogus":1}'), "options"),
        (lambda line: line.replace("play ", "pley ", 1), "move 1"),
        (lambda line: _wrong_first_seat(line), "disagrees with the replay, where seat"),
    ],
)
def test_bad_records_fail_with_one_clear_line(tmp_path, capsys, good_line, mutate, message):
    from cardgames_env.cli import main

    path = _write(tmp_path, mutate(good_line) + "\n")
    assert main(["replay", str(path)]) == 2
    captured = capsys.readouterr()
    assert len(captured.err.strip().splitlines()) == 1
    assert message in captured.err


def test_moves_missing_from_a_finished_record_are_an_error(tmp_path, good_line):
    data = json.loads(good_line)
    data["moves"] = data["moves"][:-3]
    with pytest.raises(RecordError, match="goes on"):
        replay_record(GameRecord.from_dict(data))


def test_changed_results_are_detected(good_line):
    data = json.loads(good_line)
    data["points"] = [p + 1 if isinstance(p, int) else p for p in data["points"]]
    with pytest.raises(RecordError, match="points"):
        replay_record(GameRecord.from_dict(data))


def test_an_unfinished_record_replays_as_far_as_it_goes(good_line):
    data = json.loads(good_line)
    data["moves"] = data["moves"][:10]
    data["finished"] = False
    env = replay_record(GameRecord.from_dict(data))
    assert not game_over(env)
    assert env.game_state().trick or env.game_state().captured  # ten cards were played


def test_missing_file_is_a_record_error(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        read_records(tmp_path / "none.jsonl")


def test_make_env_resets_with_the_seed():
    record = GameRecord("jaipur_v0", {}, 11)
    a, b = make_env(record), load("jaipur_v0").raw_env()
    b.reset(seed=11)
    assert a.game_state() == b.game_state()


def _two_games(tmp_path, capsys):
    """Record two Gong Zhu games (52 moves each) with ``cardgames play --record``."""
    from cardgames_env.cli import main

    path = tmp_path / "g.jsonl"
    for seed in (1, 2):
        assert main(["play", "gongzhu_v0", "--agents", "random", "--seed", str(seed), "--quiet",
                     "--record", str(path)]) == 0
    capsys.readouterr()
    return path


def test_replay_quiet_prints_only_each_final_position(tmp_path, capsys):
    from cardgames_env.cli import main

    path = _two_games(tmp_path, capsys)
    assert main(["replay", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "==" not in out and "seed" not in out and "player_0: play" not in out  # no header, no moves
    assert out.count("points:") == 2 and out.count("Gong Zhu — hand") == 2


@pytest.mark.parametrize(
    "argv,stdout_terminal,bar",
    [
        (["--quiet"], True, True),  # nothing else shows the work going on
        ([], False, True),  # the moves go to a file or a pipe
        ([], True, False),  # the moves scrolling by are the progress
        (["--quiet", "--no-progress"], True, False),
    ],
)
def test_replay_shows_a_bar_of_the_moves_when_nothing_else_does(
    tmp_path, terminal_stderr, monkeypatch, argv, stdout_terminal, bar
):
    import sys

    from cardgames_env.cli import main

    path = _two_games(tmp_path, terminal_stderr)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: stdout_terminal)
    assert main(["replay", str(path), *argv]) == 0
    captured = terminal_stderr.readouterr()
    assert ("104/104" in captured.err and "moves/s" in captured.err) is bar, captured.err
    assert captured.out.count("points:") == 2  # the bar never lands in the results
    if not bar:
        assert captured.err == ""


def test_replay_names_the_field_that_disagrees(tmp_path, capsys, good_line):
    """A move whose seat is not the seat to move, and a record whose seed was changed: the error
    names the move (number, text, seat), what the replay found, and the record's env, options
    and seed."""
    from cardgames_env.cli import main

    data = json.loads(good_line)
    seat, text = data["moves"][2]
    data["moves"][2][0] = (seat + 1) % 4
    path = _write(tmp_path, json.dumps(data) + "\n")
    assert main(["replay", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"move 3 of 52 ({text!r} by seat {(seat + 1) % 4})" in err, err
    wrong = (seat + 1) % 4
    assert f"the record's seat {wrong} disagrees with the replay, where seat {seat} is to move" in err
    assert "env 'gongzhu_v0', options {} and seed 5" in err and len(err.splitlines()) == 1

    data = json.loads(good_line)
    data["seed"] = 6  # another deal: the first card played is not in that hand
    path = _write(tmp_path, json.dumps(data) + "\n")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"move 1 of 52 ({data['moves'][0][1]!r} by seat {data['moves'][0][0]})" in err, err
    assert "seed 6" in err and len(err.splitlines()) == 1
