"""A command or example whose optional extra is missing says so in one line naming the command
that installs it, exits with status 2 and prints no traceback, before doing any work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cardgames_env.cli import main
from cardgames_env.core.extras import install_command

ROOT = Path(__file__).resolve().parents[1]


def _block(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``import MODULE`` fail as it does when the module is not installed."""
    for name in list(sys.modules):
        if any(name == m or name.startswith(m + ".") for m in modules):
            monkeypatch.delitem(sys.modules, name)
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


@pytest.mark.parametrize("command", ["league", "curve"])
def test_league_and_curve_without_matplotlib_say_so_before_playing(command, capsys, monkeypatch, tmp_path):
    import cardgames_env.training.evaluate as evaluate_module

    def no_games(*args, **kwargs):
        pytest.fail("games were played before the missing extra was reported")

    monkeypatch.setattr(evaluate_module, "league", no_games)
    _block(monkeypatch, "matplotlib")
    run = tmp_path / "run"
    run.mkdir()
    argv = {
        "league": ["league", "red7_v0", "--agents", "random,heuristic", "--games", "2",
                   "--out", str(tmp_path / "elo")],
        "curve": ["curve", str(run)],
    }[command]
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == 1 and "Traceback" not in captured.err, captured.err
    assert "'train' extra" in lines[0] and "matplotlib" in lines[0] and install_command("train") in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"] and not any(run.iterdir())


def test_league_without_out_needs_no_matplotlib(capsys, monkeypatch):
    _block(monkeypatch, "matplotlib")
    assert main(["league", "red7_v0", "--agents", "random,heuristic", "--games", "2", "--no-progress"]) == 0
    assert "random" in capsys.readouterr().out


@pytest.mark.parametrize(("script", "blocked", "extra"), [
    ("cleanrl_ppo_masked.py", "torch", "train"),
    ("rllib_vector.py", "ray", "rllib"),
    ("torchrl_collector.py", "torchrl", "torchrl"),
])
def test_an_example_without_its_extra_names_the_install_command(script, blocked, extra):
    path = ROOT / "examples" / script
    code = (f"import runpy, sys\nsys.modules[{blocked!r}] = None\nsys.argv = [{str(path)!r}]\n"
            f"runpy.run_path({str(path)!r}, run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and done.stdout == "", (done.returncode, done.stdout, done.stderr)
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"'{extra}' extra" in lines[0] and install_command(extra) in lines[0] and blocked in lines[0]
