"""The scripts in ``examples/`` run end to end on tiny budgets (TorchRL and RLlib when installed)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from cardgames_env.agents import make_agent
from cardgames_env.registry import load

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def example(name: str) -> ModuleType:
    """Import ``examples/<name>.py`` as a module."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_cleanrl_script_trains_and_saves_a_policy_the_cli_plays(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "run"
    npz = example("cleanrl_ppo_masked").main([
        "--env-id", "red7_v0", "--total-timesteps", "256", "--num-envs", "8", "--num-steps", "8",
        "--num-minibatches", "2", "--update-epochs", "1", "--hidden", "16,16", "--out", str(out),
    ])
    assert npz == out / "policy.npz" and (out / "policy.json").is_file()
    assert len((out / "progress.csv").read_text().splitlines()) == 1 + 4  # 256 steps = 4 rollouts of 64
    env = load("red7_v0").raw_env()
    agent = make_agent(str(npz), env)  # what `cardgames eval --agent PATH` loads
    env.reset(seed=3)
    observed = env.observe(env.agent_selection)
    assert observed["action_mask"][agent.act(observed["observation"], observed["action_mask"])]


def test_cleanrl_script_draws_the_package_progress_bar_on_a_terminal(tmp_path: Path, terminal_stderr) -> None:
    """A short run shows its steps as ``cardgames train`` does (a bar on the terminal's stderr)."""
    pytest.importorskip("torch")
    example("cleanrl_ppo_masked").main([
        "--env-id", "red7_v0", "--total-timesteps", "128", "--num-envs", "8", "--num-steps", "8",
        "--num-minibatches", "2", "--update-epochs", "1", "--hidden", "8", "--out", str(tmp_path / "run"),
    ])
    err = terminal_stderr.readouterr().err
    assert "train: 100%" in err and "128/128" in err and "steps/s" in err, err


def test_cleanrl_script_refuses_bad_settings(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    script = example("cleanrl_ppo_masked")
    for argv in (["--num-envs", "0"], ["--hidden", "a,b"], ["--num-envs", "3", "--num-steps", "3"]):
        with pytest.raises(SystemExit) as stop:
            script.parse_args(argv)
        assert stop.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_torchrl_collector_collects_legal_learner_decisions() -> None:
    pytest.importorskip("torchrl")
    stats = example("torchrl_collector").main(
        ["--num-envs", "4", "--frames-per-batch", "64", "--frames", "128", "--hidden", "8"]
    )
    assert stats["frames"] == 128 and stats["episodes"] > 0 and np.isfinite(stats["mean_return"])


def test_rllib_script_trains_on_the_vector_env_runners() -> None:
    pytest.importorskip("ray.rllib")
    means = example("rllib_vector").main(
        ["--iterations", "1", "--envs-per-runner", "8", "--train-batch", "128", "--hidden", "8"]
    )
    assert len(means) == 1
