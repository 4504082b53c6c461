"""``cardgames train`` end to end in the default run: a few hundred steps, every file it writes."""

from __future__ import annotations

import csv
import json

import numpy as np

from cardgames_env.agents.base import make_agent
from cardgames_env.cli import main
from cardgames_env.registry import load
from cardgames_env.training.evaluate import play_game

ENV = "gongzhu_v0"  # four players: the evaluation is the points-difference (interval) kind
STEPS = 256
SMALL = {
    "ppo": {"n_steps": 64, "batch_size": 32, "n_epochs": 1, "net_arch": [16]},
    "eval": {"points": 2, "seed": 7},
    "checkpoint_every": 128,
    "selfplay": {"snapshot_every": 128},
}


def _strict_json(text: str) -> dict:
    """Parse JSON refusing NaN and Infinity (not JSON; other readers fail on them)."""

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in a JSON file")

    return json.loads(text, parse_constant=refuse)


def test_train_writes_its_run_folder_and_the_model_plays(capsys, tmp_path):
    overrides = tmp_path / "small.json"
    overrides.write_text(json.dumps(SMALL))
    out = tmp_path / "run"
    argv = ["train", ENV, "--timesteps", str(STEPS), "--opponents", "selfplay", "--n-envs", "1",
            "--seed", "3", "--out", str(out), "--eval-games", "4", "--config", str(overrides),
            "--no-progress"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert f"training {ENV} for {STEPS} steps: opponents selfplay, 1 dummy envs, seed 3" in printed
    assert "trained vs random" in printed and "trained vs heuristic" in printed
    # Four games of a four-player game are one deal: no interval, and the summary says so.
    assert "nan" not in printed.lower() and "95% CI needs games on 2 deals or more" in printed

    expected = {"config.json", "model.zip", "model.json", "eval.csv", "summary.json", "learning_curve.png",
                "logs/progress.csv", "checkpoints/model_128_steps.zip", "checkpoints/model_128_steps.json",
                "snapshots/snapshot_128.zip", "snapshots/snapshot_128.json"}
    written = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    assert expected <= written, expected - written
    assert {p for p in written - expected if not p.startswith("logs/events.out.tfevents.")} == set()

    config = _strict_json((out / "config.json").read_text())  # the resolved settings
    assert config["env"] == ENV and config["seed"] == 3 and config["options"] == {}
    assert config["timesteps"] == STEPS and config["n_envs"] == 1 and config["opponents"] == "selfplay"
    assert config["ppo"]["n_steps"] == 64 and config["ppo"]["net_arch"] == [16]
    assert config["ppo"]["gamma"] == 1.0  # from envs/gongzhu/config.json, under the file's overrides
    assert config["eval"]["games"] == 4 and config["eval"]["final_games"] == 4

    raw = load(ENV).raw_env()
    sidecar = _strict_json((out / "model.json").read_text())
    assert sidecar["env"] == ENV and sidecar["timesteps"] == STEPS and sidecar["seed"] == 3
    assert sidecar["observation_size"] == raw.encoding.observation_size
    assert sidecar["num_actions"] == raw.encoding.num_actions
    assert (out / "model.zip").read_bytes()[:2] == b"PK"
    assert (out / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"

    with (out / "eval.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    # Evaluations at the start, every STEPS / eval.points steps and at the end.
    assert [int(r["timesteps"]) for r in rows] == [0, 128, 256]
    assert {r["opponent"] for r in rows} == {"random"} and {r["games"] for r in rows} == {"4"}
    assert {r["metric"] for r in rows} == {"points_diff"}

    summary = _strict_json((out / "summary.json").read_text())
    assert summary["timesteps"] == STEPS and summary["steps_per_s"] > 0
    # learn()'s time splits into rollouts (envs, opponents, the learner's forward passes) and updates.
    assert summary["rollout_s"] > 0 and summary["update_s"] > 0
    assert abs(summary["rollout_s"] + summary["update_s"] - summary["train_s"]) <= 0.02
    finals = summary["final_evaluations"]
    assert [f["opponent"] for f in finals] == ["random", "heuristic"]
    for final in finals:
        assert final["games"] == 4 and final["metric"] == "points_diff"
        assert final["ci"] == [None, None]  # one deal: no interval, written as JSON null

    # The saved model loads as an agent and plays whole legal games.
    agent = make_agent(str(out), raw, seed=0)
    others = [make_agent("random", raw, seed=s) for s in range(1, 4)]
    record = play_game(raw, [agent, *others], seed=11)
    assert record.steps == 52 and np.isfinite(record.points).all()
    assert main(["eval", ENV, "--agent", str(out), "--vs", "random", "--games", "8"]) == 0
    assert f"run vs random on {ENV} (8 games)" in capsys.readouterr().out
