"""A name is resolved once at the edge and objects travel down; every setting has one source.

Constructions are counted by spies on the AEC env's ``__init__`` and the batched engine's deal
(``_reset_all`` deals every slot at once), so the counts come from what runs, not from the code.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import gymnasium
import pytest

pytest.importorskip("sb3_contrib")

import cardgames_env  # noqa: E402,F401  (registers the gymnasium ids)
from cardgames_env import registry  # noqa: E402
from cardgames_env.cli import build_parser, main  # noqa: E402
from cardgames_env.core.aec import CardGameEnv  # noqa: E402
from cardgames_env.training.config import (  # noqa: E402
    NOTE_KEYS,
    OVERRIDES,
    EvalConfig,
    Overrides,
    TrainConfig,
    default_of,
    default_settings,
    resolve_config,
)
from cardgames_env.training.evaluate import final_evaluations  # noqa: E402

RED7 = registry.spec("red7_v0")
TINY = ["--engine", "vector", "--timesteps", "64", "--n-envs", "8", "--eval-games", "2", "--no-progress"]


class Spy:
    """Counts AEC envs built and engine deals, and the AEC envs built before the engine's first step."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.envs = 0
        self.deals = 0
        self.envs_before_first_step: int | None = None
        engine_cls = RED7.load("kernel")
        env_init, deal, step = CardGameEnv.__init__, engine_cls._reset_all, engine_cls.step

        def counting_init(env: Any, *args: Any, **kwargs: Any) -> None:
            self.envs += 1
            env_init(env, *args, **kwargs)

        def counting_deal(engine: Any) -> None:
            self.deals += 1
            deal(engine)

        def first_step(engine: Any, *args: Any, **kwargs: Any) -> Any:
            if self.envs_before_first_step is None:
                self.envs_before_first_step = self.envs
            return step(engine, *args, **kwargs)

        monkeypatch.setattr(CardGameEnv, "__init__", counting_init)
        monkeypatch.setattr(engine_cls, "_reset_all", counting_deal)
        monkeypatch.setattr(engine_cls, "step", first_step)


def test_train_on_the_batched_engine_builds_one_aec_env_before_its_first_step(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spy = Spy(monkeypatch)
    assert main(["train", "red7_v0", *TINY]) == 0
    assert spy.envs_before_first_step == 1
    assert spy.deals >= 1  # the engine did deal and step


def test_make_vec_deals_once_per_slot(monkeypatch):
    spy = Spy(monkeypatch)
    venv = gymnasium.make_vec("cardgames/red7_v0", num_envs=4, opponents="random")
    venv.reset(seed=3)
    assert spy.deals == 1  # one deal of every slot: construction deals nothing, reset deals
    assert spy.envs == 1  # the probe, built from the engine's env class
    venv.close()


def test_a_namespaced_name_runs_under_the_canonical_name_and_the_config_files_metric_is_read(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "return.json"
    config.write_text(json.dumps({"eval": {"metric": "return"}}), encoding="utf-8")
    three = ["--option", "num_players=3"]  # a multi-player game: the metric picks the headline
    assert main(["train", "cardgames/red7_v0", *TINY, *three, "--config", str(config)]) == 0
    runs = [p.name for p in (tmp_path / "runs").iterdir()]
    assert runs == ["red7_v0-selfplay-s0"]
    summary = json.loads((tmp_path / "runs" / runs[0] / "summary.json").read_text(encoding="utf-8"))
    assert {e["metric"] for e in summary["final_evaluations"]} == {"return_diff"}  # red7's own: points


@pytest.mark.parametrize(("metric", "reported"), [("points", "points_diff"), ("return", "return_diff")])
def test_final_evaluations_compare_by_the_metric_they_are_given(metric, reported):
    env = RED7.load("env")(num_players=3)  # two-player games report the win rate
    evals = EvalConfig(final_games=2, metric=metric)
    results = final_evaluations(env, "random", evals, False, lambda _: None)
    assert {r.metric for r in results} == {reported}


def _leaves(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every ``section.key`` of a settings object with its value (notes left out)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if not prefix and key in NOTE_KEYS:
            continue
        if isinstance(value, dict) and key != "net_arch":
            out.update(_leaves(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


@pytest.mark.parametrize("game", [s for s in registry.specs() if s.resource("config.json").is_file()],
                         ids=lambda s: s.game)
def test_a_games_file_names_only_what_differs_from_the_defaults_and_says_why(game):
    data = json.loads(game.resource("config.json").read_text(encoding="utf-8"))
    assert isinstance(data.get("_why"), str) and data["_why"].strip(), "a game's settings say why they differ"
    defaults = _leaves(default_settings())
    for key, value in _leaves(data).items():
        assert key in defaults or key.startswith("vector.ppo."), key
        assert defaults.get(key) != value, f"{game.game}/config.json restates the default of {key}"


def test_the_defaults_are_the_dataclasses_fields():
    """No defaults file beside the dataclasses: a game without a file gets TrainConfig()."""
    config = resolve_config("no_such_game")
    assert config == dataclasses.replace(TrainConfig(), n_envs_cuda=None)
    assert config.ppo.n_steps == 1024 and config.ppo.net_arch == [256, 256]


def test_every_command_line_override_is_a_train_flag_and_sets_its_settings():
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    train = commands["train"]
    flags = {action.dest: action for action in train._actions}
    samples = {"timesteps": 7, "opponents": "random", "n_envs": 3, "vec_env": "subproc", "engine": "aec",
               "algo": "ppo", "eval_games": 5, "imitation_games": 4, "imitation_teacher": "heuristic",
               "device": "cpu", "threads": 2}
    assert set(Overrides.names()) == set(OVERRIDES) == set(samples)
    for name in Overrides.names():
        assert f"--{name.replace('_', '-')}" in flags[name].option_strings, name
        config = resolve_config("red7", overrides=Overrides(**{name: samples[name]}))
        for path in OVERRIDES[name]:
            default_of(path)  # names a TrainConfig field
            value: Any = config
            for part in path.split("."):
                value = getattr(value, part)
            assert value == samples[name], (name, path)


def test_train_takes_a_config_and_warns_on_the_old_keywords(tmp_path: Path):
    from cardgames_env.training.train import train

    with pytest.raises(ValueError, match="not as keywords"):
        train("red7_v0", TrainConfig(), out=tmp_path / "a", timesteps=5)
    with pytest.deprecated_call(), pytest.raises(ValueError, match="timesteps"):
        train("red7_v0", out=tmp_path / "b", timesteps=-1)


SECTIONS = ("ppo", "dmc", "vector", "imitation", "eval", "selfplay")
THROUGH_CONFIG = {"n_envs_cuda"}  # read by resolve_config and TrainConfig.for_device


def test_every_setting_is_read_outside_the_settings_module():
    """Each field of TrainConfig and its sections is read (``.name``) by a consumer in the
    training package; PPO's go to MaskablePPO through ``model_arguments`` (next test)."""
    import re

    folder = Path(__file__).resolve().parents[2] / "cardgames_env" / "training"
    code = "\n".join(p.read_text(encoding="utf-8") for p in folder.glob("*.py") if p.name != "config.py")
    config = TrainConfig()
    for owner in (config, *(getattr(config, s) for s in SECTIONS if s != "ppo")):
        for f in dataclasses.fields(owner):
            if f.name not in SECTIONS and f.name not in THROUGH_CONFIG:
                assert re.search(rf"\.{f.name}\b", code), f"{type(owner).__name__}.{f.name} is read nowhere"


def test_every_ppo_setting_reaches_maskable_ppo():
    from cardgames_env.training import ppo
    from cardgames_env.training.config import PPOConfig
    from cardgames_env.training.target import TrainingTarget

    changed = {"learning_rate": 1e-3, "n_steps": 16, "batch_size": 32, "n_epochs": 3, "gamma": 0.9,
               "gae_lambda": 0.8, "clip_range": 0.3, "clip_range_vf": 0.4, "normalize_advantage": False,
               "ent_coef": 0.05, "vf_coef": 0.25, "max_grad_norm": 0.7, "target_kl": 0.02,
               "stats_window_size": 7, "net_arch": [8]}
    assert set(changed) == {f.name for f in dataclasses.fields(PPOConfig)}
    target = TrainingTarget.resolve("red7_v0")
    venv = target.vector_env(2, target.opponent_pool("random", TrainConfig().selfplay), None, 0)
    model = ppo._model(venv, TrainConfig(engine="vector", n_envs=2, ppo=PPOConfig(**changed)), 0, "cpu")
    for name, value in changed.items():
        if name == "net_arch":
            assert model.policy.net_arch == value
            continue
        found = getattr(model, name, getattr(model, f"_{name}", None))
        found = found(1.0) if callable(found) else found
        assert found == pytest.approx(value), name
    venv.close()
