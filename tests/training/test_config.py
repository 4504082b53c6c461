"""The typed settings of a run: one resolution from the config files and the command line."""

from __future__ import annotations

import inspect
import json
from dataclasses import fields
from pathlib import Path

import pytest

from cardgames_env.training.config import (
    Overrides,
    PPOConfig,
    TrainConfig,
    load_config,
    resolve_config,
)


def test_ppo_defaults_differ_from_maskable_ppos_only_where_the_docstring_says() -> None:
    """Every PPO setting is a MaskablePPO argument; the defaults are MaskablePPO's own except the
    ones PPOConfig's docstring names (``n_steps``, ``batch_size``, ``n_epochs``, ``ent_coef``)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    signature = inspect.signature(sb3_contrib.MaskablePPO.__init__).parameters
    arguments = PPOConfig().model_arguments()
    differ = {name for name, value in arguments.items() if signature[name].default != value}
    assert differ == {"n_steps", "batch_size", "n_epochs", "ent_coef"}
    for name in differ | {"net_arch"}:
        assert f"``{name}``" in (PPOConfig.__doc__ or ""), name


@pytest.mark.parametrize(
    ("overrides", "section"),
    [
        (Overrides(), None),
        (Overrides(engine="vector"), "vector"),
        (Overrides(algo="dmc"), "dmc"),
        (Overrides(algo="dmc", engine="vector"), "dmc"),
    ],
)
def test_n_envs_comes_from_the_engines_section(overrides: Overrides, section: str | None) -> None:
    raw = load_config("red7")
    config = resolve_config("red7", overrides=overrides)
    expected = raw[section]["n_envs"] if section else raw["n_envs"]
    assert config.n_envs == expected
    assert config.engine == ("aec" if section is None else "vector")
    if section == "vector":  # the batched engine's PPO settings replace the AEC path's
        assert config.ppo.n_steps == raw["vector"]["ppo"]["n_steps"]
        assert config.ppo.batch_size == raw["vector"]["ppo"]["batch_size"]
        assert config.ppo.gamma == raw["ppo"]["gamma"]
    else:
        assert config.ppo.n_steps == raw["ppo"]["n_steps"]


def test_command_line_values_win_over_every_section() -> None:
    config = resolve_config("red7", overrides=Overrides(
        algo="dmc", n_envs=12, timesteps=99, opponents="random", eval_games=6, imitation_games=3,
        imitation_teacher="heuristic",
    ))
    assert (config.n_envs, config.timesteps, config.opponents) == (12, 99, "random")
    assert (config.eval.games, config.eval.final_games) == (6, 6)
    assert config.imitation.source() == {"games": 3, "teacher": "heuristic",
                                         "opponents": load_config("red7")["imitation"]["opponents"]}


def test_a_file_overrides_the_games_settings(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"timesteps": 777, "dmc": {"epsilon": 0.25}, "eval": {"every": 50}}))
    config = resolve_config("gongzhu", path, Overrides(algo="dmc"))
    assert config.timesteps == 777 and config.dmc.epsilon == 0.25
    assert config.eval.interval(777) == 50
    assert resolve_config("gongzhu").eval.interval(1000) == 1000 // load_config("gongzhu")["eval"]["points"]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ({"timestep": 5}, "timestep"),
        ({"dmc": {"epsilon": 2}}, "dmc.epsilon"),
        ({"imitation": [1]}, "imitation"),
        ({"vector": {"n_envs": 0}}, "vector.n_envs"),
    ],
)
def test_a_bad_setting_is_one_value_error_naming_it(tmp_path: Path, content: dict, needle: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content))
    with pytest.raises(ValueError, match=needle.replace(".", r"\.")):
        resolve_config("red7", path, Overrides(imitation_games=2))


def test_a_runs_recorded_settings_give_the_same_run_again(tmp_path: Path) -> None:
    """``config.json`` of a run, given back as ``--config``, resolves to the same settings."""
    for overrides in (Overrides(), Overrides(engine="vector"), Overrides(algo="dmc")):
        config = resolve_config("haggis", overrides=overrides)
        path = tmp_path / "run.json"
        path.write_text(json.dumps({**config.as_dict(), "env": "haggis_v0", "options": {}, "seed": 3}))
        assert resolve_config("haggis", path, overrides) == config
        assert isinstance(config, TrainConfig)
        derived = {"n_envs_cuda"}  # from the engine's section, not a setting of its own
        assert {f.name for f in fields(TrainConfig)} - derived <= set(config.as_dict())


def test_a_gpu_learner_plays_its_sections_n_envs_cuda_games() -> None:
    raw = load_config("red7")
    for overrides, section in ((Overrides(algo="dmc"), "dmc"), (Overrides(engine="vector"), "vector")):
        config = resolve_config("red7", overrides=overrides)
        assert config.for_device("cpu").n_envs == raw[section]["n_envs"]
        assert config.for_device("cuda").n_envs == raw[section]["n_envs_cuda"]
    assert resolve_config("red7", overrides=Overrides(algo="dmc", n_envs=64)).for_device("cuda").n_envs == 64
    aec = resolve_config("red7")
    assert aec.for_device("cuda").n_envs == raw["n_envs"]
