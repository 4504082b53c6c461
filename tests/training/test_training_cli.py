"""``cardgames train / eval / league / curve``: bad input is one line and exit 2; small runs work."""

from __future__ import annotations

import csv
import json
import re

import pytest

from cardgames_env.cli import main
from cardgames_env.registry import ALL_ENVS, load

FIRST = ALL_ENVS[0]


def _fails_with(capsys, argv, needle):
    code = main(argv)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2, captured
    assert len(lines) == 1, lines
    assert lines[0].startswith("cardgames: error:") and needle in lines[0], lines[0]
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["eval", "nope_v0", "--agent", "random", "--vs", "random"], "unknown env"),
        (["league", "nope_v0", "--agents", "random,heuristic"], "unknown env"),
        (["train", "nope_v0", "--timesteps", "10"], "unknown env"),
        (["eval", FIRST, "--agent", "genius", "--vs", "random"], "unknown agent"),
        (["eval", FIRST, "--agent", "random", "--vs", "no/such/model.zip"], "no model file"),
        (["league", FIRST, "--agents", "random,genius"], "unknown agent"),
        (["eval", FIRST, "--agent", "random", "--vs", "random", "--games", "0"], "--games must be"),
        (["league", FIRST, "--agents", "random,heuristic", "--games", "-3"], "--games must be a positive"),
        (["train", FIRST, "--timesteps", "0"], "--timesteps must be a positive"),
        (["train", FIRST, "--n-envs", "0"], "--n-envs must be a positive"),
        (["train", FIRST, "--eval-games", "-1"], "--eval-games must be a positive"),
        (["train", FIRST, "--opponents", "everyone"], "invalid choice"),
        (["train", FIRST, "--engine", "gpu"], "invalid choice: 'gpu'"),
        (["train", FIRST, "--option", "nonsense=1"], "bad option"),
        (["league", FIRST, "--agents", "random"], "at least two agents"),
        (["eval", FIRST, "--agent", "random", "--vs", "random", "--games", "many"], "invalid int"),
        (["curve", "/no/such/run"], "no eval.csv"),
        (["train", "gongzhu_v0", "--algo", "dmc", "--engine", "aec"], "algo dmc trains on the batched"),
        (["train", "gongzhu_v0", "--algo", "dqn"], "invalid choice: 'dqn'"),
        (["train", "gongzhu_v0", "--algo", "dmc", "--backend", "rllib"], "--algo belongs to --backend sb3"),
        (["eval", "gongzhu_v0", "--agent", "random", "--vs", "random", "--games", "10"],
         "--games must be a multiple of 4, the seats of gongzhu_v0"),
        (["eval", "red7_v0", "--agent", "random", "--vs", "random", "--games", "4",
          "--option", "num_players=3"], "(got 4; try 3 or 6)"),
        (["eval", "jaipur_v0", "--agent", "random", "--vs", "random", "--games", "1"], "(got 1; try 2)"),
        (["league", FIRST, "--agents", "random,heuristic", "--games", "3"], "--games must be even"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, needle):
    _fails_with(capsys, argv, needle)


def test_a_model_for_another_env_is_refused_by_eval(capsys, other_model_dir):
    folder, _ = other_model_dir
    argv = ["eval", FIRST, "--agent", str(folder), "--vs", "random", "--games", "2"]
    _fails_with(capsys, argv, "trained for")


@pytest.mark.parametrize("name", ALL_ENVS)
def test_eval_prints_the_headline_figure(capsys, name):
    players = len(load(name).raw_env().possible_agents)
    assert main(["eval", name, "--agent", "heuristic", "--vs", "random", "--games", str(2 * players)]) == 0
    out = capsys.readouterr().out
    assert ("win rate" if players == 2 else "others' mean") in out
    assert "95% CI" in out and "nan" not in out


def test_league_prints_and_saves_the_elo_table(capsys, tmp_path, model_dir):
    agents = f"random,heuristic,{model_dir}"
    argv = ["league", FIRST, "--agents", agents, "--games", "4", "--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "elo" in out and "heuristic" in out
    with (tmp_path / f"elo_{FIRST}.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert {r["agent"] for r in rows} == {"random", "heuristic", model_dir.name}
    assert [r for r in rows if r["agent"] == "random"][0]["elo"] == "1000.0"
    assert all(int(r["games"]) == 8 for r in rows)
    assert (tmp_path / f"elo_{FIRST}.png").read_bytes()[:4] == b"\x89PNG"


def test_curve_redraws_a_learning_curve(capsys, tmp_path):
    run = tmp_path / "run"
    (run / "logs").mkdir(parents=True)
    (run / "eval.csv").write_text(
        "timesteps,opponent,games,metric,value,low,high,win_rate\n"
        "0,random,40,win_rate,0.5,0.35,0.65,0.5\n1000,random,40,win_rate,0.7,0.55,0.82,0.7\n"
    )
    (run / "logs" / "progress.csv").write_text(
        "time/total_timesteps,rollout/ep_rew_mean\n512,-0.2\n1024,0.1\n"
    )
    assert main(["curve", str(run)]) == 0
    assert (run / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"


def _png_width(path) -> int:
    """Width in pixels from a PNG's IHDR chunk (bytes 16-19, big-endian)."""
    return int.from_bytes(path.read_bytes()[16:20], "big")


def test_curve_adds_the_imitation_fit_as_a_panel(capsys, tmp_path):
    """With imitation.csv the chart has one more panel: each is 5.2 inches wide at 110 dpi."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "eval.csv").write_text(
        "timesteps,opponent,games,metric,value,low,high,win_rate\n0,random,40,win_rate,0.9,0.8,0.95,0.9\n"
    )
    assert main(["curve", str(run)]) == 0
    alone = _png_width(run / "learning_curve.png")
    (run / "imitation.csv").write_text(
        "epoch,decisions,loss,heldout_accuracy,seconds\n1,100,1.2,0.5,1.0\n2,100,0.9,0.6,1.0\n"
    )
    assert main(["curve", str(run)]) == 0
    assert (alone, _png_width(run / "learning_curve.png")) == (round(5.2 * 110), round(2 * 5.2 * 110))
    (run / "imitation.csv").write_text("epoch,decisions,loss,heldout_accuracy,seconds\n1,100,x,0.5,1.0\n")
    assert main(["curve", str(run)]) == 2
    assert "imitation.csv line 2: loss is not a number" in capsys.readouterr().err


def test_game_configs_are_valid_json_over_the_default():
    from cardgames_env.training.config import load_config

    for name in ALL_ENVS:
        config = load_config(load(name).raw_env().info.name)
        assert config["timesteps"] > 0 and config["n_envs"] > 0
        assert config["opponents"] in ("random", "heuristic", "selfplay")
        assert {"learning_rate", "n_steps", "batch_size"} <= set(config["ppo"])
    assert json.loads(json.dumps(load_config("no_such_game"))) == load_config("no_such_game")


THROUGHPUT = re.compile(
    r"^trained (\d+) learner steps(?: \(2000 asked for, [^)]*\))? in [\d.]+ s "
    r"\([\d.]+ s of it imitation\): (\d+) learner steps/s, "
    r"(\d+) env steps/s \(learner and opponents\) inside MaskablePPO, updates included, "
    r"evaluations and saves excluded$",
    re.M,
)


def _check_printed_run(printed: str, name: str, out, summary: dict, eval_games: int) -> None:
    """What ``cardgames train`` prints agrees with the run folder: the header, the throughput
    line (the same figures as summary.json), one line per final evaluation, the saved paths."""
    lines = printed.splitlines()
    # 2,000 steps asked for, collected in whole rollouts of n_steps 256 x 2 envs = 512 steps:
    # ceil(2000 / 512) = 4 rollouts, 2,048 steps.
    rounding = "2000 asked for, rounded up to whole rollouts of 512 steps: n_steps 256 x 2 envs"
    header = (f"training {name} for 2048 steps ({rounding}): opponents selfplay, 2 dummy envs, "
              f"seed 1, output {out}")
    assert header in lines, printed
    found = THROUGHPUT.search(printed)
    assert found, printed
    learner_steps, learner_rate, env_rate = (int(g) for g in found.groups())
    assert learner_steps == summary["timesteps"] == 2048
    assert f"trained 2048 learner steps ({rounding}) in " in printed
    # Printed to the unit, stored to a tenth: the same figure within rounding.
    assert abs(learner_rate - summary["steps_per_s"]) <= 0.55
    assert abs(env_rate - summary["env_steps_per_s"]) <= 0.55
    # Every learner step is an env step; self-play opponents' turns add more.
    assert summary["env_steps"] > learner_steps and env_rate > learner_rate
    # Every game ships a heuristic agent: the final evaluations face random play and it.
    assert [e["opponent"] for e in summary["final_evaluations"]] == ["random", "heuristic"]
    for evaluation in summary["final_evaluations"]:
        assert evaluation["games"] == eval_games
        assert f"trained vs {evaluation['opponent']} on {name} ({eval_games} games)" in printed
    assert lines[-1] == (
        f"saved {out / 'model.zip'} (+ model.json), learning curve {out / 'learning_curve.png'}"
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_ENVS)
def test_train_2000_steps_end_to_end(capsys, tmp_path, name):
    """``cardgames train`` for 2,000 steps with self-play: snapshots, checkpoints, logs, model,
    sidecar, learning curve and the final evaluations; then ``cardgames eval`` loads the model."""
    overrides = tmp_path / "small.json"
    overrides.write_text(json.dumps({
        "ppo": {"n_steps": 256, "batch_size": 128, "net_arch": [64, 64]},
        "checkpoint_every": 1000,
        "selfplay": {"snapshot_every": 1000},
        "eval": {"points": 2},
    }))
    out = tmp_path / "run"
    argv = ["train", name, "--timesteps", "2000", "--opponents", "selfplay", "--n-envs", "2",
            "--seed", "1", "--out", str(out), "--eval-games", "4", "--config", str(overrides),
            "--no-progress"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    for path in ("model.zip", "model.json", "eval.csv", "learning_curve.png", "summary.json",
                 "config.json", "logs/progress.csv"):
        assert (out / path).is_file(), path
    assert list((out / "logs").glob("events.out.tfevents.*"))
    assert list((out / "checkpoints").glob("model_*_steps.zip"))
    assert list((out / "checkpoints").glob("model_*_steps.json"))
    assert list((out / "snapshots").glob("snapshot_*.zip"))
    sidecar = json.loads((out / "model.json").read_text())
    assert sidecar["env"] == name and sidecar["timesteps"] >= 2000
    with (out / "eval.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert rows[0]["timesteps"] == "0" and int(rows[-1]["timesteps"]) >= 2000
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps_per_s"] > 0 and summary["final_evaluations"]
    _check_printed_run(printed, name, out, summary, eval_games=4)
    players = len(load(name).raw_env().possible_agents)
    assert main(["eval", name, "--agent", str(out), "--vs", "random", "--games", str(players)]) == 0


@pytest.mark.parametrize(
    "name",
    [n if n in ("gongzhu_v0", "red7_v0") else pytest.param(n, marks=pytest.mark.slow) for n in ALL_ENVS],
)
def test_train_dmc_end_to_end(terminal_stderr, tmp_path, name):
    """``cardgames train --algo dmc``: the batched run writes model.npz and its sidecar, the
    learning curve and summary.json, with bars of the steps and the final evaluations' games
    on stderr; ``cardgames eval`` plays the run folder."""
    capsys = terminal_stderr
    overrides = tmp_path / "small.json"
    overrides.write_text(json.dumps({"dmc": {"batch_size": 64, "net_arch": [32]}, "eval": {"points": 2}}))
    out = tmp_path / "run"
    argv = ["train", name, "--algo", "dmc", "--timesteps", "1000", "--opponents", "random",
            "--n-envs", "16", "--seed", "1", "--out", str(out), "--eval-games", "4",
            "--config", str(overrides)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    printed = captured.out
    # Every step is one decision in each of the 16 games: 63 steps make 1,008 decisions.
    why = "(1000 asked for, rounded up to whole steps of the 16 batched games)"
    assert f"training {name} with DMC for 1008 steps {why}" in printed
    assert f"trained 1008 learner steps {why}" in printed and "trained vs random" in printed
    assert "1008/1008" in captured.err and "final eval vs random" in captured.err  # the bars
    assert "/1000" not in captured.err
    for path in ("model.npz", "model.json", "eval.csv", "learning_curve.png", "summary.json", "config.json"):
        assert (out / path).is_file(), path
    assert json.loads((out / "model.json").read_text())["algo"] == "dmc"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["timesteps"] == 1008 and summary["timesteps_asked"] == 1000
    players = len(load(name).raw_env().possible_agents)
    assert main(["eval", name, "--agent", str(out), "--vs", "random", "--games", str(players)]) == 0
    assert "vs random" in capsys.readouterr().out


def test_train_bar_counts_the_steps_that_run_and_the_log_says_why(terminal_stderr, tmp_path):
    """PPO collects whole rollouts (n_steps 64 x 1 env): 100 steps asked for run as 128. The bar
    counts to 128, the log and summary.json say why, and the final evaluations show bars too."""
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({"ppo": {"n_steps": 64, "batch_size": 32, "n_epochs": 1, "net_arch": [8]},
                                  "eval": {"points": 1}}))
    out = tmp_path / "run"
    argv = ["train", "red7_v0", "--timesteps", "100", "--n-envs", "1", "--opponents", "random",
            "--eval-games", "2", "--config", str(config), "--out", str(out)]
    assert main(argv) == 0
    captured = terminal_stderr.readouterr()
    why = "(100 asked for, rounded up to whole rollouts of 64 steps: n_steps 64 x 1 envs)"
    assert f"training red7_v0 for 128 steps {why}" in captured.out
    assert f"trained 128 learner steps {why}" in captured.out
    assert "128/128" in captured.err and "steps/s" in captured.err and "/100 " not in captured.err
    for opponent in ("random", "heuristic"):
        assert f"final eval vs {opponent}" in captured.err
    assert captured.err.count("2/2") >= 2
    summary = json.loads((out / "summary.json").read_text())
    assert summary["timesteps"] == 128 and summary["timesteps_asked"] == 100


def test_eval_draws_its_bar_on_stderr_and_prints_one_line(terminal_stderr):
    assert main(["eval", "red7_v0", "--agent", "heuristic", "--vs", "random", "--games", "6"]) == 0
    captured = terminal_stderr.readouterr()
    assert captured.out.startswith("heuristic vs random on red7_v0 (6 games): win rate")
    assert captured.out.count("\n") == 1  # the summary line alone: the bar is not in it
    assert "6/6" in captured.err and "games/s" in captured.err


def test_no_bar_with_no_progress(terminal_stderr):
    assert main(["eval", "red7_v0", "--agent", "heuristic", "--vs", "random", "--games", "2",
                 "--no-progress"]) == 0
    assert terminal_stderr.readouterr().err == ""


def test_no_bar_when_stderr_is_not_a_terminal(capsys):
    assert main(["eval", "red7_v0", "--agent", "heuristic", "--vs", "random", "--games", "2"]) == 0
    assert main(["league", "red7_v0", "--agents", "random,heuristic", "--games", "2"]) == 0
    assert capsys.readouterr().err == ""


def test_league_counts_the_games_of_every_pair(terminal_stderr):
    assert main(["league", "red7_v0", "--agents", "random,heuristic,pretrained", "--games", "2"]) == 0
    captured = terminal_stderr.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].split() == ["agent", "elo", "score", "games"] and len(lines) == 4  # the table alone
    assert "6/6" in captured.err  # three pairs of two games
