"""Imitation before PPO (``training/imitation.py``, ``cardgames train --imitation-games``)."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from cardgames_env.agents.base import make_agent
from cardgames_env.cli import main
from cardgames_env.training.evaluate import make_raw_env, play_game
from cardgames_env.training.imitation import (
    DEMO_SEED_OFFSET,
    Demonstrations,
    clone_policy,
    collect_demonstrations,
)


class _Spy:
    """Plays an agent's moves and keeps what it saw and did."""

    def __init__(self, agent):
        self.agent, self.seen = agent, []

    def act(self, observation, mask):
        action = self.agent.act(observation, mask)
        self.seen.append((observation.copy(), mask.copy(), action))
        return action

    def reset(self, seed=None):
        self.agent.reset(seed)


def test_demonstrations_replay_the_teachers_games():
    """Every row is the teacher seat's observation and mask at one of its decisions, the action it
    played there, and that seat's return; replaying the same deals with the same agents gives
    the same decisions, in order."""
    demos = collect_demonstrations("red7_v0", teacher="heuristic", opponents="random", games=3, seed=2,
                                   log=lambda _: None)
    assert demos.games == 3 and len(demos) > 0
    assert demos.masks[np.arange(len(demos)), demos.actions].all()  # every action legal where played

    raw = make_raw_env("red7_v0")
    rows: list[tuple[np.ndarray, np.ndarray, int, float]] = []
    for game in range(3):
        seat = game % 2
        spy = _Spy(make_agent("heuristic", raw, seed=2))
        agents = [spy if s == seat else make_agent("random", raw, seed=2 + 1 + s) for s in range(2)]
        record = play_game(raw, agents, DEMO_SEED_OFFSET + 100_000 * 2 + game)
        rows += [(o, m, a, record.returns[seat]) for o, m, a in spy.seen]
    assert len(rows) == len(demos)
    for i, (observation, mask, action, ret) in enumerate(rows):
        assert np.array_equal(demos.observations[i], observation)
        assert np.array_equal(demos.masks[i], mask.astype(bool))
        assert demos.actions[i] == action and demos.returns[i] == pytest.approx(ret)
    assert set(np.unique(demos.returns)) <= {-1.0, 1.0}  # Red7 pays +-1 at the end of a game


class _EngineSpy(_Spy):
    """A spy that also reads, at each decision, its seat's return so far from the rules engine
    (the env pays the changes of ``rules.returns``)."""

    def __init__(self, agent, raw, seat):
        super().__init__(agent)
        self.raw, self.seat, self.so_far = raw, seat, []

    def act(self, observation, mask):
        self.so_far.append(float(self.raw.rules.returns(self.raw.game_state())[self.seat]))
        return super().act(observation, mask)


def test_demonstration_rewards_are_what_each_decision_earned():
    """Gong Zhu played to -1000 pays each hand's points when the hand ends, so a seat earns
    rewards between its decisions. Each row's reward is the engine's return for that seat at
    its next decision (the game's end after the last) minus the return at this decision, read
    from the engine directly; ``last`` marks one decision per game, and each game's rewards sum
    to its return."""
    options = {"game_end": -1000}
    demos = collect_demonstrations("gongzhu_v0", options, teacher="heuristic", opponents="random", games=2,
                                   seed=3, log=lambda _: None)
    raw = make_raw_env("gongzhu_v0", options)
    expected_rewards, expected_last = [], []
    for game in range(2):
        seat = game % 4
        spy = _EngineSpy(make_agent("heuristic", raw, seed=3), raw, seat)
        agents = [spy if s == seat else make_agent("random", raw, seed=3 + 1 + s) for s in range(4)]
        record = play_game(raw, agents, DEMO_SEED_OFFSET + 100_000 * 3 + game)
        so_far = [*spy.so_far, record.returns[seat]]
        expected_rewards += [so_far[i + 1] - so_far[i] for i in range(len(spy.so_far))]
        expected_last += [i == len(spy.so_far) - 1 for i in range(len(spy.so_far))]
    assert np.allclose(demos.rewards, expected_rewards, atol=1e-5)
    assert demos.last.tolist() == expected_last and int(demos.last.sum()) == 2
    assert np.count_nonzero(demos.rewards[~demos.last]) > 0  # hands ended between decisions
    ends = np.flatnonzero(demos.last)
    starts = [0, ends[0] + 1]
    for start, end in zip(starts, ends):
        assert demos.rewards[start:end + 1].sum() == pytest.approx(demos.returns[start], abs=1e-4)


def test_worker_processes_give_the_same_demonstrations(terminal_stderr):
    one = collect_demonstrations("red7_v0", teacher="heuristic", opponents="random", games=6, seed=1,
                                 log=lambda _: None, progress=None)
    assert "6/6" in terminal_stderr.readouterr().err  # the games' bar, chunk by chunk
    two = collect_demonstrations("red7_v0", teacher="heuristic", opponents="random", games=6, seed=1,
                                 workers=2, log=lambda _: None, progress=None)
    assert "6/6" in terminal_stderr.readouterr().err
    for field in ("observations", "masks", "actions", "returns", "rewards", "last"):
        assert np.array_equal(getattr(one, field), getattr(two, field)), field


def _policy(observations: int, actions: int):
    """A small untrained MaskablePPO policy for a Box observation and Discrete action space."""
    import gymnasium as gym
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    return MaskableActorCriticPolicy(
        gym.spaces.Box(0.0, 1.0, (observations,), np.float32), gym.spaces.Discrete(actions),
        lambda _: 3e-4, net_arch=[32],
    )


def test_cloning_learns_a_rule_it_was_shown():
    """The teacher plays the legal action named by the first observation feature above 0.5
    (a rule the network can represent); after cloning, the policy's most likely legal action
    follows that rule on fresh inputs far more often than chance, and the critic has moved
    towards the returns."""
    import torch

    rng = np.random.default_rng(0)
    size, actions, rows = 8, 8, 4000

    def sample(n: int) -> Demonstrations:
        observations = rng.random((n, size), dtype=np.float32)
        masks = rng.random((n, actions)) < 0.6
        masks[np.arange(n), rng.integers(actions, size=n)] = True
        preferred = np.where(observations > 0.5, np.arange(size), actions)
        keys = np.where(masks, preferred, actions + 1)  # the first legal preferred action
        best = keys.argmin(axis=1)
        returns = np.where(observations[:, 0] > 0.5, 1.0, -1.0).astype(np.float32)
        return Demonstrations(observations, masks, best.astype(np.int64), returns, returns.copy(),
                              np.ones(n, bool), n)

    train, fresh = sample(rows), sample(1000)
    policy = _policy(size, actions)
    history = clone_policy(policy, train, epochs=30, batch_size=128, learning_rate=3e-3, log=lambda _: None)
    assert history[-1]["loss"] < history[0]["loss"]
    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(fresh.observations), action_masks=fresh.masks)
        chosen = dist.distribution.probs.argmax(dim=1).numpy()
        values = policy.predict_values(torch.as_tensor(fresh.observations)).numpy().ravel()
    chance = float(np.mean(1.0 / fresh.masks.sum(axis=1)))
    assert np.mean(chosen == fresh.actions) > max(0.8, chance + 0.4)
    assert np.corrcoef(values, fresh.returns)[0, 1] > 0.8


@pytest.mark.parametrize(("kwargs", "needle"), [
    ({"epochs": 0}, "imitation epochs must be positive"),
    ({"batch_size": -1}, "imitation batch_size must be positive"),
    ({"learning_rate": 0.0}, "imitation learning_rate must be positive"),
])
def test_bad_cloning_settings_are_named(kwargs, needle):
    demos = Demonstrations(np.zeros((4, 8), np.float32), np.ones((4, 8), bool), np.zeros(4, np.int64),
                           np.zeros(4, np.float32), np.zeros(4, np.float32), np.ones(4, bool), 4)
    with pytest.raises(ValueError, match=needle):
        clone_policy(_policy(8, 8), demos, **kwargs)


@pytest.mark.parametrize(("kwargs", "needle"), [
    ({"games": 0}, "imitation games must be positive"),
    ({"workers": 0}, "imitation workers must be positive"),
    ({"teacher": "nonsense"}, "unknown agent 'nonsense'"),
])
def test_bad_collection_settings_are_named(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        collect_demonstrations("red7_v0", **{"games": 1, **kwargs}, log=lambda _: None)


SMALL = {"ppo": {"n_steps": 64, "batch_size": 32, "n_epochs": 1, "net_arch": [16]},
         "imitation": {"teacher": "heuristic", "opponents": "random", "epochs": 2, "workers": 1}}


def test_train_imitation_only_keeps_the_clone(capsys, tmp_path):
    """``--timesteps 0 --imitation-games N``: no PPO step, the saved model is the clone, and the
    run folder records the fit."""
    overrides = tmp_path / "small.json"
    overrides.write_text(json.dumps(SMALL))
    out = tmp_path / "run"
    argv = ["train", "red7_v0", "--timesteps", "0", "--imitation-games", "4", "--n-envs", "1",
            "--opponents", "random", "--out", str(out), "--eval-games", "4", "--config", str(overrides),
            "--no-progress"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "imitation: heuristic played 4 games against random" in printed
    rows = list(csv.DictReader((out / "imitation.csv").open()))
    assert [int(r["epoch"]) for r in rows] == [1, 2]
    assert all(0 <= float(r["heldout_accuracy"]) <= 1 for r in rows)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["timesteps"] == 0 and summary["imitation_s"] > 0
    assert json.loads((out / "config.json").read_text())["imitation"]["games"] == 4
    sidecar = json.loads((out / "model.json").read_text())
    assert sidecar["imitation"] == {"games": 4, "teacher": "heuristic", "opponents": "random"}
    curve = list(csv.DictReader((out / "eval.csv").open()))
    assert curve and curve[0]["timesteps"] == "0"


@pytest.mark.parametrize(("argv", "needle"), [
    (["--timesteps", "0"], "0 only with --imitation-games"),
    (["--imitation-games", "-1"], "--imitation-games must be"),
    (["--imitation-games", "2", "--imitation-teacher", "genius"], "imitation teacher: unknown agent"),
])
def test_bad_imitation_command_lines_are_one_line_and_exit_2(capsys, tmp_path, argv, needle):
    code = main(["train", "red7_v0", "--out", str(tmp_path / "run"), "--no-progress", *argv])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and "Traceback" not in err
    assert not (tmp_path / "run").exists()


def test_imitation_teacher_option_overrides_the_config(capsys, tmp_path):
    overrides = tmp_path / "small.json"
    overrides.write_text(json.dumps(SMALL))  # the config's teacher is the heuristic
    out = tmp_path / "run"
    argv = ["train", "red7_v0", "--timesteps", "0", "--imitation-games", "2", "--imitation-teacher", "random",
            "--n-envs", "1", "--opponents", "random", "--out", str(out), "--eval-games", "2",
            "--config", str(overrides), "--no-progress"]
    assert main(argv) == 0
    assert "imitation: random played 2 games against random" in capsys.readouterr().out
    assert json.loads((out / "config.json").read_text())["imitation"]["teacher"] == "random"
