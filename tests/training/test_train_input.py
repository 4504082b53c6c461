"""Input hardening of ``cardgames train / league / curve / play / eval``.

A user's mistake (a bad config file, an unwritable destination, a malformed CSV, a negative
seed) is refused with one stderr line and exit status 2, before anything is written or played.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

import cardgames_env
from cardgames_env.cli import main
from cardgames_env.registry import ALL_ENVS, load

ENV = "gongzhu_v0"  # four players: one deal is four games, too few for an interval

# Settings of a run that would finish in seconds: each bad setting below is merged into them,
# so the mistake is the only thing wrong with the file.
TINY: dict[str, Any] = {
    "timesteps": 64,
    "n_envs": 1,
    "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "net_arch": [8]},
    "eval": {"points": 1, "games": 1, "final_games": 1},
    "checkpoint_every": 64,
    "selfplay": {"snapshot_every": 64},
}

# (the mistake, a word the error line must name: the setting as the user wrote it)
BAD_CONFIGS: list[tuple[dict[str, Any], str]] = [
    # wrong types
    ({"eval": 5}, "eval"),
    ({"timesteps": [1]}, "timesteps"),
    ({"timesteps": True}, "timesteps"),
    ({"n_envs": 1.5}, "n_envs"),
    ({"selfplay": "often"}, "selfplay"),
    ({"eval": {"games": "ten"}}, "games"),
    ({"selfplay": {"snapshot_prob": "half"}}, "snapshot_prob"),
    ({"ppo": [1, 2]}, "ppo"),
    # values out of range or not among the choices
    ({"opponents": "everyone"}, "opponents"),
    ({"vec_env": "threads"}, "vec_env"),
    ({"learner_seat": -1}, "learner_seat"),
    ({"eval": {"games": 0}}, "games"),
    ({"selfplay": {"snapshot_prob": 1.5}}, "snapshot_prob"),
    # unknown keys
    ({"timestep": 1000}, "timestep"),
    ({"eval": {"gmaes": 10}}, "gmaes"),
    # PPO: unknown names, bad values, names the trainer sets itself
    ({"ppo": {"bogus_key": 1}}, "bogus_key"),
    ({"ppo": {"learning_rate": "fast"}}, "learning_rate"),
    ({"ppo": {"batch_size": 0}}, "batch_size"),
    ({"ppo": {"gamma": 2}}, "gamma"),
    ({"ppo": {"n_steps": 12.5}}, "n_steps"),
    ({"ppo": {"net_arch": "big"}}, "net_arch"),
    ({"ppo": {"net_arch": [64, 0]}}, "net_arch"),
    ({"ppo": {"seed": 1}}, "seed"),
    ({"ppo": {"device": "cuda"}}, "device"),
    ({"ppo": {"policy_kwargs": {}}}, "policy_kwargs"),
    # the batched engine's settings
    ({"engine": "gpu"}, "engine"),
    ({"vector": 3}, "vector"),
    ({"vector": {"n_envs": 0}}, "n_envs"),
    ({"vector": {"n_envs": "many"}}, "n_envs"),
    ({"vector": {"ppo": {"bogus": 1}}}, "bogus"),
    ({"vector": {"ppo": {"learning_rate": "fast"}}}, "learning_rate"),
    ({"vector": {"speed": 1}}, "speed"),
]


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``override`` applied key by key into nested objects (as config files are)."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _config_file(folder: Path, bad: dict[str, Any], name: str = "bad.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(_merge(TINY, bad)))
    return path


def _one_error_line(capsys) -> str:
    """The message of a refused command's single stderr line (after ``cardgames: error:``); no stdout."""
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    prefix = "cardgames: error: "
    assert lines[0].startswith(prefix), lines[0]
    assert "Traceback" not in captured.err and captured.out == "", captured
    return lines[0][len(prefix):]


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (and every folder, as ``b''``)."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else b"") for p in folder.rglob("*")}


@pytest.mark.parametrize(("bad", "needle"), BAD_CONFIGS, ids=[json.dumps(b) for b, _ in BAD_CONFIGS])
def test_bad_training_config_is_one_line_and_writes_nothing(capsys, monkeypatch, tmp_path, bad, needle):
    monkeypatch.chdir(tmp_path)
    config = _config_file(tmp_path, bad)
    out = tmp_path / "out"
    before = _tree(tmp_path)
    assert main(["train", ENV, "--config", str(config), "--out", str(out), "--no-progress"]) == 2
    line = _one_error_line(capsys)
    assert needle in line, line
    assert not out.exists() and not (tmp_path / "runs").exists()
    assert _tree(tmp_path) == before


def test_the_tiny_config_itself_is_accepted():
    """The base every bad setting is merged into is valid: the refusals come from the mistakes."""
    from cardgames_env.training.config import load_config, validate_config
    from cardgames_env.training.ppo import ppo_parameters

    game = load(ENV).raw_env().info.name
    for engine in ("aec", "vector"):
        config = _merge(load_config(game), {**TINY, "engine": engine})
        validate_config(config, ppo_parameters())


def test_config_mistakes_are_found_before_torch_is_imported(tmp_path):
    """One fresh interpreter runs every bad config: none of them may load torch."""
    configs = [str(_config_file(tmp_path, bad, f"bad{i}.json")) for i, (bad, _) in enumerate(BAD_CONFIGS)]
    script = textwrap.dedent(f"""
        import sys
        from cardgames_env.cli import main
        for config in {configs!r}:
            code = main(["train", {ENV!r}, "--config", config, "--out", "out", "--no-progress"])
            if code != 2 or "torch" in sys.modules:
                print("FAILED", config, code, "torch" in sys.modules)
                sys.exit(1)
        print("ok")
    """)
    root = str(Path(cardgames_env.__file__).resolve().parent.parent)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": root, "PATH": "/usr/bin:/bin"}, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", (done.stdout, done.stderr[-2000:])
    assert not (tmp_path / "out").exists() and not (tmp_path / "runs").exists()


def test_shipped_configs_pass_validation_for_every_game():
    from cardgames_env.training.config import game_config_file, load_config, validate_config
    from cardgames_env.training.ppo import ppo_parameters

    names = ppo_parameters()
    games = {load(env).raw_env().info.name for env in ALL_ENVS}
    # The defaults are TrainConfig's fields; a game's own settings live in its folder.
    assert not (resources.files("cardgames_env.training") / "configs").is_dir()
    for game in games:
        assert game_config_file(game) is not None, game
    for game in sorted(games | {"no_such_game"}):
        config = load_config(game)
        validate_config(config, names)
        # --engine vector: the batched section applies over the settings (n_envs, ppo)
        batched = config.get("vector", {})
        vector = {**config, "engine": "vector", "n_envs": batched.get("n_envs", config["n_envs"]),
                  "ppo": {**config["ppo"], **batched.get("ppo", {})}}
        validate_config(vector, names)


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_unwritable_train_out_is_refused_before_anything_is_written(capsys, monkeypatch, tmp_path, where):
    """Tests run as root (every folder writable), so the unwritable destination is a file's path."""
    monkeypatch.chdir(tmp_path)
    config = _config_file(tmp_path, {}, "tiny.json")
    blocker = tmp_path / "notes.txt"
    blocker.write_text("keep me\n")
    out = blocker if where == "a file" else blocker / "run"
    before = _tree(tmp_path)
    assert main(["train", ENV, "--config", str(config), "--out", str(out), "--no-progress"]) == 2
    line = _one_error_line(capsys)
    assert str(out) in line, line
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_league_checks_out_before_playing(capsys, monkeypatch, tmp_path, where):
    import cardgames_env.training.evaluate as evaluate_module

    def no_games(*args, **kwargs):
        pytest.fail("the league was played before --out was checked")

    monkeypatch.setattr(evaluate_module, "league", no_games)
    blocker = tmp_path / "table.csv"
    blocker.write_text("keep me\n")
    out = blocker if where == "a file" else blocker / "elo"
    argv = ["league", ENV, "--agents", "random,heuristic", "--games", "100", "--out", str(out)]
    assert main(argv) == 2
    line = _one_error_line(capsys)
    assert str(out) in line, line
    assert _tree(tmp_path) == {"table.csv": b"keep me\n"}


NEEDS_PROC = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
"""Nothing can be created in ``/proc``, even by root (for whom permission bits allow all)."""
UNWRITABLE_COMMANDS = {
    "league": ["league", ENV, "--agents", "random,heuristic", "--out", "/proc/cardgames-elo"],
    "play": ["play", ENV, "--agents", "random", "--record", "/proc/cardgames-games.jsonl"],
    "train": ["train", ENV, "--out", "/proc/cardgames-run", "--no-progress"],
    "export": ["export", "run", "/proc/cardgames-policy/policy", "--command", "cardgames train"],
    "curve": ["curve", "run", "--out", "/proc/cardgames-curve.png"],
}


@NEEDS_PROC
@pytest.mark.parametrize("command", sorted(UNWRITABLE_COMMANDS))
def test_an_output_that_cannot_be_made_is_refused_before_any_work(capsys, monkeypatch, command):
    import cardgames_env.cli as cli
    import cardgames_env.training.evaluate as evaluate_module

    def no_work(*args, **kwargs):
        pytest.fail(f"{command} started its work before checking where it writes")

    for module, name in ((cli, "env_options"), (cli, "make_env"), (evaluate_module, "league")):
        monkeypatch.setattr(module, name, no_work)
    argv = UNWRITABLE_COMMANDS[command]
    assert main(argv) == 2
    line = _one_error_line(capsys)
    assert "cannot be written" in line and "/proc/cardgames-" in line, line


def test_output_checks_leave_nothing_behind(tmp_path):
    from cardgames_env.training.output import check_output_file, check_output_folder

    assert check_output_folder(tmp_path / "a" / "b") == tmp_path / "a" / "b"
    assert check_output_file(tmp_path / "new.csv") == tmp_path / "new.csv"
    kept = tmp_path / "kept.csv"
    kept.write_text("keep me\n")
    stamp = kept.stat().st_mtime_ns
    check_output_file(kept)
    check_output_folder(tmp_path)
    assert _tree(tmp_path) == {"kept.csv": b"keep me\n"} and kept.stat().st_mtime_ns == stamp


EVAL_HEADER = "timesteps,opponent,games,metric,value,low,high,win_rate\n"
EVAL_ROW = "0,random,40,win_rate,0.5,0.35,0.65,0.5\n"
PROGRESS_OK = "time/total_timesteps,rollout/ep_rew_mean\n512,-0.2\n"

# (eval.csv, logs/progress.csv or None, the file the error line must name)
MALFORMED_RUNS: list[tuple[bytes, bytes | None, str]] = [
    (b"timesteps,opponent,games,metric,low,high\n0,random,40,win_rate,0.35,0.65\n", None, "eval.csv"),
    ((EVAL_HEADER + "0,random,40,win_rate,abc,0.35,0.65,0.5\n").encode(), None, "eval.csv"),
    ((EVAL_HEADER + "0,random,40\n").encode(), None, "eval.csv"),
    (EVAL_HEADER.encode(), None, "eval.csv"),
    (b"", None, "eval.csv"),
    (b"\xff\xfe\x00\x81binary\x00\n", None, "eval.csv"),
    ((EVAL_HEADER + EVAL_ROW).encode(), (PROGRESS_OK + "1024,high\n").encode(), "progress.csv"),
    ((EVAL_HEADER + EVAL_ROW).encode(), b"time/total_timesteps,rollout/ep_rew_mean\n\xff\xfe,\x81\n",
     "progress.csv"),
]


@pytest.mark.parametrize(
    ("eval_csv", "progress_csv", "named"), MALFORMED_RUNS,
    ids=["no value column", "value not a number", "short row", "header only", "empty", "binary",
         "progress not a number", "progress binary"],
)
def test_curve_on_a_malformed_csv_is_one_line(capsys, tmp_path, eval_csv, progress_csv, named):
    run = tmp_path / "run"
    (run / "logs").mkdir(parents=True)
    (run / "eval.csv").write_bytes(eval_csv)
    if progress_csv is not None:
        (run / "logs" / "progress.csv").write_bytes(progress_csv)
    assert main(["curve", str(run)]) == 2
    line = _one_error_line(capsys)
    assert named in line, line
    assert not (run / "learning_curve.png").exists()


def test_curve_out_under_a_file_is_one_line(capsys, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "eval.csv").write_text(EVAL_HEADER + EVAL_ROW)
    blocker = tmp_path / "notes.txt"
    blocker.write_text("keep me\n")
    assert main(["curve", str(run), "--out", str(blocker / "curve.png")]) == 2
    assert str(blocker / "curve.png") in _one_error_line(capsys)
    assert blocker.read_text() == "keep me\n"


@pytest.mark.parametrize("command", ["play", "eval", "league", "train"])
def test_negative_seed_is_named_as_typed(capsys, monkeypatch, tmp_path, command):
    monkeypatch.chdir(tmp_path)
    argv = {
        "play": ["play", ENV, "--agents", "random"],
        "eval": ["eval", ENV, "--agent", "random", "--vs", "random", "--games", "4"],
        "league": ["league", ENV, "--agents", "random,heuristic", "--games", "4"],
        "train": ["train", ENV, "--config", str(_config_file(tmp_path, {}, "tiny.json")),
                  "--out", str(tmp_path / "out"), "--no-progress"],
    }[command]
    assert main([*argv, "--seed", "-1"]) == 2
    line = _one_error_line(capsys)
    assert "--seed" in line, line
    assert re.search(r"(?<![\w.-])-1(?![\w.])", line), line  # the value typed, not a derived seed
    assert not (tmp_path / "out").exists() and not (tmp_path / "runs").exists()


def test_an_evaluation_on_one_deal_has_no_nan_interval(capsys):
    """Four games of a four-player game are one deal (seats rotated): no spread to measure."""
    from cardgames_env.training.evaluate import evaluate, match_json

    players = len(load(ENV).raw_env().possible_agents)
    assert main(["eval", ENV, "--agent", "heuristic", "--vs", "random", "--games", str(players)]) == 0
    printed = capsys.readouterr().out
    assert "nan" not in printed.lower(), printed
    assert re.search(r"needs .*more", printed), printed

    # What train writes into summary.json for such an evaluation is strict JSON.
    result = evaluate(ENV, "heuristic", "random", games=players, seed=0)
    assert math.isfinite(result.value)

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in summary JSON")

    figures = json.loads(json.dumps(match_json(result)), parse_constant=refuse)
    assert figures["value"] == pytest.approx(result.value) and figures["games"] == players
