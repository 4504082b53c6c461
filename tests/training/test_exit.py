"""Expert iteration (``--algo exit``): the visit targets, the loss, a short run that must get
stronger, resuming, and the settings it refuses."""

from __future__ import annotations

import csv
import json
import math
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cardgames_env.agents.pretrained import NumpyPolicy, load_exported  # noqa: E402
from cardgames_env.cli import main  # noqa: E402
from cardgames_env.core.masks import move_actions  # noqa: E402
from cardgames_env.registry import load  # noqa: E402
from cardgames_env.training import exit as exit_module  # noqa: E402
from cardgames_env.training.config import (  # noqa: E402
    Overrides,
    TrainConfig,
    load_config,
    resolve_config,
    validate_config,
)
from cardgames_env.training.evaluate import evaluate  # noqa: E402
from cardgames_env.training.exit import (  # noqa: E402
    build_exit_network,
    exit_loss,
    policy_layers,
    root_targets,
    sharpen,
    step_targets,
)
from cardgames_env.training.stats import wilson_interval  # noqa: E402
from cardgames_env.training.train import run_folder_name, train  # noqa: E402

RED7 = "red7_v0"


# --- targets ------------------------------------------------------------------------------------


def test_step_targets_of_a_hand_built_root() -> None:
    """Five root moves over 9 actions: A = (3), B = (5), C = (3), D = (7, 1), E = (7, 2) with
    visits 10, 4, 6, 0, 20 (40 in all); E was played.

    First action: action 3 gets A + C = 16 of 40 = 0.4, action 5 gets 4/40 = 0.1, action 7
    gets D + E = 20/40 = 0.5. Second action (after 7): only D and E agree with E so far; D has
    no visit, so action 2 gets 20/20 = 1 and action 1 gets 0."""
    prefixes = [[3], [5], [3], [7, 1], [7, 2]]
    first, second = step_targets(prefixes, [10, 4, 6, 0, 20], [7, 2], 9)
    expected_first = np.zeros(9)
    expected_first[[3, 5, 7]] = [0.4, 0.1, 0.5]
    np.testing.assert_allclose(first, expected_first, rtol=1e-6)
    expected_second = np.zeros(9)
    expected_second[2] = 1.0
    np.testing.assert_allclose(second, expected_second)


def test_step_targets_without_visits_are_the_move_played() -> None:
    """A single searched move (an empty root) or a root without visits: the target is the
    played move's action, at each of its actions."""
    assert [t.tolist() for t in step_targets([], [], [2, 0], 3)] == [[0, 0, 1], [1, 0, 0]]
    assert step_targets([[1], [2]], [0, 0], [2], 3)[0].tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match="2 moves but 1 visit counts"):
        step_targets([[1], [2]], [3], [1], 3)
    with pytest.raises(ValueError, match="non-negative"):
        step_targets([[1]], [-1], [1], 3)


def test_sharpen_by_hand() -> None:
    """(0.2, 0.8) at temperature 0.5: squares 0.04 and 0.64, normalised 0.04/0.68 and 0.64/0.68;
    temperature 0 shares the largest entries (ties) equally; temperature 1 changes nothing."""
    np.testing.assert_allclose(sharpen(np.array([0.2, 0.8]), 0.5), [0.04 / 0.68, 0.64 / 0.68], rtol=1e-6)
    assert sharpen(np.array([0.4, 0.2, 0.4, 0.0]), 0.0).tolist() == [0.5, 0.0, 0.5, 0.0]
    same = np.array([0.25, 0.75])
    assert sharpen(same, 1.0) is same


def test_root_targets_of_a_red7_position() -> None:
    """On Red7's first position, a root with visits 5, 3, 2 on three legal moves (the others
    unsearched): each move's action gets its share of 10, read at the actions the env's
    encoding gives those moves."""
    raw = load(RED7).raw_env()
    raw.reset(seed=3)
    state = raw.game_state()
    moves = raw.rules.legal_moves(state)[:3]
    agent = SimpleNamespace(env=raw, last_root=list(zip(moves, [5, 3, 2])))
    (target,) = root_targets(agent, state, moves[0], raw.encoding.num_actions)  # type: ignore[arg-type]
    actions = [move_actions(raw.encoding, state, m)[0] for m in moves]
    assert len(set(actions)) == 3
    assert target[actions].tolist() == pytest.approx([0.5, 0.3, 0.2])
    assert target.sum() == pytest.approx(1.0)
    (sharp,) = root_targets(agent, state, moves[0], raw.encoding.num_actions, 0.0)  # type: ignore[arg-type]
    assert sharp[actions].tolist() == [1.0, 0.0, 0.0]


def test_exit_loss_by_hand() -> None:
    """Logits (0, ln 3, 5) with action 2 illegal: the legal softmax is (1/4, 3/4), so the
    cross-entropy to (1/2, 1/2) is -(ln 1/4 + ln 3/4) / 2 = 0.836988; value 0.5 against outcome 1
    is a squared error of 0.25, weighted 2 in the loss."""
    logits = torch.tensor([[0.0, math.log(3.0), 5.0]])
    masks = torch.tensor([[True, True, False]])
    targets = torch.tensor([[0.5, 0.5, 0.0]])
    values, outcomes = torch.tensor([0.5]), torch.tensor([1.0])
    loss, policy_loss, value_loss = exit_loss(logits, values, masks, targets, outcomes, 2.0)
    assert float(policy_loss) == pytest.approx(0.836988, abs=1e-5)
    assert float(value_loss) == pytest.approx(0.25)
    assert float(loss) == pytest.approx(0.836988 + 0.5, abs=1e-5)


def test_the_exported_policy_is_the_networks_policy_head() -> None:
    """The numpy policy of the trunk and policy head gives the torch network's logits."""
    torch.manual_seed(0)
    network = build_exit_network(6, 4, [5, 3])
    observations = np.random.default_rng(0).random((7, 6), dtype=np.float32)
    logits, values = network(torch.as_tensor(observations))
    np.testing.assert_allclose(NumpyPolicy.from_layers(policy_layers(network)).logits(observations),
                               logits.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert values.shape == (7,) and float(values.detach().abs().max()) < 1.0


# --- runs ---------------------------------------------------------------------------------------


def _config(timesteps: int, games: int, **exit_settings: object) -> TrainConfig:
    config = resolve_config("red7", None, Overrides(algo="exit", timesteps=timesteps))
    section = replace(config.exit, games=games, net_arch=[64], **exit_settings)  # type: ignore[arg-type]
    return replace(config, exit=section, eval=replace(config.eval, games=20, final_games=2),
                   checkpoint_every=200)


def _untrained_policy(config: TrainConfig, seed: int) -> NumpyPolicy:
    raw = load(RED7).raw_env()
    torch.manual_seed(seed)
    encoding = raw.encoding
    network = build_exit_network(encoding.observation_size, encoding.num_actions, config.exit.net_arch)
    return NumpyPolicy.from_layers(policy_layers(network))


def _improves(tmp_path: Path, config: TrainConfig, games: int = 400) -> tuple[float, float]:
    """Train, then play the untrained and the trained networks against random over the same
    ``games`` seeded games (seats rotated); return their win rates' Wilson intervals' bounds:
    (the trained one's lower bound, the untrained one's upper bound)."""
    result = train(RED7, config, seed=0, out=tmp_path / "run", progress=False, log=lambda _: None)
    trained = load_exported(result.model_path, load(RED7).env())
    rates = []
    for policy in (_untrained_policy(config, 0), trained):
        match = evaluate(RED7, policy, "random", games=games, seed=500_000)
        rates.append(match.wins + match.draws / 2)
    trained_low = wilson_interval(rates[1], games)[0]
    untrained_high = wilson_interval(rates[0], games)[1]
    return trained_low, untrained_high


def test_expert_iteration_beats_its_start_against_random(tmp_path: Path) -> None:
    """A short run (about 700 decisions of self-play by 64-simulation searches) makes the
    greedy network stronger against random: over 400 seeded games each, the trained network's
    95% interval lies wholly above the untrained one's (checked to fail when the targets are
    the legal actions' uniform distribution instead of the search's visits: see the next test)."""
    trained_low, untrained_high = _improves(tmp_path, _config(700, 30))
    assert trained_low > untrained_high, (trained_low, untrained_high)


def test_uniform_targets_do_not_make_it_stronger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control of the test above: the same run learning the uniform distribution over the
    legal actions (nothing of the search) does not pass its check."""

    def uniform(prefixes, visits, chosen, num_actions):  # type: ignore[no-untyped-def]
        targets = []
        for k in range(len(chosen)):
            target = np.zeros(num_actions, dtype=np.float32)
            for prefix in prefixes:
                if len(prefix) > k and list(prefix[:k]) == list(chosen[:k]):
                    target[prefix[k]] = 1.0
            if not target.any():
                target[chosen[k]] = 1.0
            targets.append(target / target.sum())
        return targets

    monkeypatch.setattr(exit_module, "step_targets", uniform)
    trained_low, untrained_high = _improves(tmp_path, _config(700, 30, temperature=1.0))
    assert trained_low <= untrained_high, (trained_low, untrained_high)


def test_a_run_writes_its_folder_and_resumes_as_if_never_stopped(tmp_path: Path) -> None:
    """One iteration, then ``resume=True`` with more timesteps, ends with the same weights, the
    same losses and evaluations as one run of two iterations; the folder holds the exported
    policy, checkpoints, the logs and the curve."""
    first = replace(_config(1, 4), checkpoint_every=10)
    stopped = train(RED7, first, seed=0, out=tmp_path / "a", progress=False, log=lambda _: None)
    assert stopped.timesteps > 1
    more = replace(first, timesteps=stopped.timesteps + 1)
    resumed = train(RED7, more, seed=0, out=tmp_path / "a", progress=False, log=lambda _: None, resume=True)
    whole = train(RED7, more, seed=0, out=tmp_path / "b", progress=False, log=lambda _: None)
    assert resumed.timesteps == whole.timesteps > stopped.timesteps
    for name in ("w0", "b0", "action_w", "action_b"):
        np.testing.assert_array_equal(np.load(tmp_path / "a" / "model.npz")[name],
                                      np.load(tmp_path / "b" / "model.npz")[name])

    def rows(folder: str, name: str, drop: int = 0) -> list[list[str]]:
        with (tmp_path / folder / name).open() as handle:
            return [row[:len(row) - drop] for row in csv.reader(handle)]

    assert rows("a", "exit.csv", drop=1) == rows("b", "exit.csv", drop=1)  # all but the seconds
    assert len(rows("a", "exit.csv")) == 3 and rows("a", "eval.csv") == rows("b", "eval.csv")
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["algo"] == "exit" and summary["iterations"] == 2 and summary["resumed"] is True
    sidecar = json.loads((tmp_path / "a" / "model.json").read_text())
    assert sidecar["algo"] == "exit" and sidecar["env"] == RED7 and sidecar["layers"] == [64]
    assert list((tmp_path / "b" / "checkpoints").glob("model_*_steps.npz"))
    assert (tmp_path / "b" / "checkpoints" / "exit_state.pt").is_file()
    assert (tmp_path / "b" / "learning_curve.png").is_file()
    assert main(["eval", RED7, "--agent", str(tmp_path / "b"), "--vs", "random", "--games", "2"]) == 0

    with pytest.raises(ValueError, match="net_arch"):
        train(RED7, replace(more, exit=replace(more.exit, net_arch=[32])), seed=0, out=tmp_path / "a",
              progress=False, log=lambda _: None, resume=True)
    (tmp_path / "d" / "checkpoints").mkdir(parents=True)
    torch.save({"network": {}}, tmp_path / "d" / "checkpoints" / "exit_state.pt")
    with pytest.raises(ValueError, match="not the state of an expert-iteration run"):
        train(RED7, more, seed=0, out=tmp_path / "d", progress=False, log=lambda _: None, resume=True)
    with pytest.raises(ValueError, match="nothing to resume"):
        train(RED7, more, seed=0, out=tmp_path / "c", progress=False, log=lambda _: None, resume=True)


# --- settings -----------------------------------------------------------------------------------


def test_exit_settings_are_checked() -> None:
    base = {**load_config("red7"), "algo": "exit"}
    validate_config(base)
    bad = [
        ({"engine": "vector"}, "use engine aec"),
        ({"opponents": "heuristic"}, "opponents selfplay"),
        ({"imitation": {"games": 10}}, "imitation games"),
        ({"exit": {"search": "search:time=0.1"}}, "exit.search must set iterations"),
        ({"exit": {"search": "search"}}, "exit.search must set iterations"),
        ({"exit": {"search": "heuristic"}}, "exit.search: not a search agent name"),
        ({"exit": {"search": "search:iterations=0"}}, "exit.search: search option iterations"),
        ({"exit": {"temperature": -1}}, "exit.temperature"),
        ({"exit": {"value_scale": 0}}, "exit.value_scale"),
        ({"exit": {"games": 0}}, "exit.games"),
        ({"exit": {"net_arch": [0]}}, "exit.net_arch"),
        ({"exit": {"sims": 3}}, "unknown exit setting 'sims'"),
    ]
    for change, needle in bad:
        with pytest.raises(ValueError, match=needle):
            validate_config({**base, **change})


def test_resolving_exit_settings() -> None:
    """``--algo exit`` asks for the rules env; the run folder is named after the algorithm."""
    config = resolve_config("red7", None, Overrides(algo="exit"))
    assert config.engine == "aec" and config.exit.search == "search:iterations=64:batch=8"
    assert run_folder_name(RED7, config, 3) == "red7_v0-exit-selfplay-s3"
    with pytest.raises(ValueError, match="use engine aec"):
        resolve_config("red7", None, Overrides(algo="exit", engine="vector"))
    with pytest.raises(ValueError, match="resume is for algo exit"):
        train(RED7, resolve_config("red7", None, Overrides(timesteps=10)), out=None, resume=True)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["train", RED7, "--algo", "exit", "--engine", "vector"], "use engine aec"),
        (["train", RED7, "--algo", "exit", "--opponents", "random"], "opponents selfplay"),
        (["train", RED7, "--algo", "exit", "--imitation-games", "5"], "imitation games"),
        (["train", RED7, "--algo", "dmc", "--resume"], "resume is for algo exit"),
    ],
)
def test_bad_exit_commands_are_one_line_and_exit_2(capsys, tmp_path, argv, needle) -> None:  # type: ignore[no-untyped-def]
    code = main([*argv, "--out", str(tmp_path / "run")])
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and needle in lines[0], captured.err
    assert "Traceback" not in captured.err


def test_resume_without_a_state_is_one_line_and_exit_2(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    code = main(["train", RED7, "--algo", "exit", "--resume", "--timesteps", "10", "--out", str(tmp_path)])
    captured = capsys.readouterr()
    assert code == 2 and "nothing to resume" in captured.err and "Traceback" not in captured.err
