"""ModelAgent (sidecar and space checks), make_agent with model paths, the opponent pool and
self-play snapshots joining the pool through VecEnv.env_method."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from cardgames_env.agents import make_agent
from cardgames_env.agents.model import ModelAgent, read_sidecar
from cardgames_env.agents.pool import OpponentPool
from cardgames_env.registry import ALL_ENVS, load
from cardgames_env.wrappers.single_agent import SingleAgentEnv


def test_model_agent_plays_legal_actions(model_dir):
    env = load(ALL_ENVS[0]).raw_env()
    agent = make_agent(str(model_dir), env, seed=0)
    assert isinstance(agent, ModelAgent)
    sampler = ModelAgent.load(model_dir / "model.zip", env=env, seed=1, deterministic=False)
    for player in (agent, sampler):
        env.reset(seed=0)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = player.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            env.step(action)


def test_deterministic_model_picks_the_best_legal_logit(model_dir):
    import torch

    env = load(ALL_ENVS[0]).raw_env()
    agent = ModelAgent.load(model_dir, env=env)
    env.reset(seed=2)
    obs = env.observe(env.agent_selection)
    with torch.no_grad():
        dist = agent.policy.get_distribution(torch.as_tensor(obs["observation"][None]),
                                             action_masks=obs["action_mask"][None].astype(bool))
        probs = dist.distribution.probs[0].numpy()
    assert agent.act(obs["observation"], obs["action_mask"]) == int(np.argmax(probs))


def test_a_model_for_another_env_is_refused(model_dir, other_model_dir):
    folder, _ = other_model_dir
    env = load(ALL_ENVS[0]).raw_env()
    with pytest.raises(ValueError, match="trained for"):
        make_agent(str(folder / "model.zip"), env)


def test_space_shapes_are_checked_even_when_the_sidecar_lies(tmp_path, model_dir, other_model_dir):
    folder, _ = other_model_dir
    liar = tmp_path / "liar"
    shutil.copytree(folder, liar)
    sidecar = json.loads((model_dir / "model.json").read_text())
    (liar / "model.json").write_text(json.dumps(sidecar))  # claims the first env
    env = load(ALL_ENVS[0]).raw_env()
    with pytest.raises(ValueError, match="observation shape"):
        ModelAgent.load(liar, env=env)


def test_missing_sidecar_and_missing_file_are_clear_errors(tmp_path, model_dir):
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copy(model_dir / "model.zip", bare / "model.zip")
    env = load(ALL_ENVS[0]).raw_env()
    with pytest.raises(ValueError, match="no sidecar"):
        ModelAgent.load(bare, env=env)
    with pytest.raises(ValueError, match="no model file"):
        make_agent(str(tmp_path / "missing.zip"), env)
    assert read_sidecar(model_dir / "model.zip")["env"] == ALL_ENVS[0]


def test_pool_probabilities_by_mode():
    pool = OpponentPool(base=("random", "heuristic"), sampling="snapshots", snapshot_prob=0.8, window=2)
    for snap in ("a.zip", "b.zip", "c.zip"):
        pool.add_snapshot(snap)
    assert pool.entries == ("random", "heuristic", "b.zip", "c.zip")  # a.zip left the window
    expected = {"random": 0.1, "heuristic": 0.1, "b.zip": 0.4, "c.zip": 0.4}
    assert pool.probabilities() == pytest.approx(expected)
    pool.sampling = "latest"
    assert pool.probabilities() == pytest.approx({"random": 0.1, "heuristic": 0.1, "c.zip": 0.8})
    pool.sampling = "uniform"
    assert pool.probabilities() == pytest.approx(dict.fromkeys(pool.entries, 0.25))
    rng = np.random.default_rng(0)
    pool.sampling = "snapshots"
    draws = [pool.sample(rng) for _ in range(4000)]
    assert draws.count("b.zip") / 4000 == pytest.approx(0.4, abs=0.04)
    assert OpponentPool(base=("random",)).probabilities() == {"random": 1.0}
    with pytest.raises(ValueError, match="sampling"):
        OpponentPool(sampling="best")


@pytest.mark.parametrize("sampling", ["uniform", "snapshots", "latest"])
def test_pool_draws_are_numpys_choice_with_the_pools_probabilities(sampling):
    """``sample`` and a ``sampler`` draw exactly what ``rng.choice`` draws with the pool's
    probabilities, from the same random stream."""
    pool = OpponentPool(base=("random", "heuristic"), sampling=sampling, snapshot_prob=0.3, window=3,
                        snapshots=["a.zip", "b.zip", "c.zip"])
    probs = pool.probabilities()
    specs, weights = list(probs), np.array(list(probs.values()))
    expected_rng, rng = np.random.default_rng(7), np.random.default_rng(7)
    expected = [specs[int(expected_rng.choice(len(specs), p=weights / weights.sum()))] for _ in range(500)]
    draw = pool.sampler()
    got = [draw(rng) if k % 2 else pool.sample(rng) for k in range(500)]
    assert got == expected
    assert set(got) == set(specs)


def test_snapshots_join_the_pool_through_env_method(model_dir):
    from stable_baselines3.common.vec_env import DummyVecEnv

    pool = OpponentPool(base=("random",), sampling="latest", snapshot_prob=1.0)
    venv = DummyVecEnv([lambda: SingleAgentEnv(ALL_ENVS[0], opponents=pool, seed=0)])
    venv.env_method("add_opponent", str(model_dir / "model.zip"))
    assert venv.env_method("opponent_probabilities") == [{"random": 0.0, str(model_dir / "model.zip"): 1.0}]
    env = venv.envs[0]
    env.reset()
    done = False
    while not done:
        _, _, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert set(info["opponents"]) == {str(model_dir / "model.zip")}


def test_snapshots_join_the_pool_in_subprocess_envs(model_dir):
    from stable_baselines3.common.vec_env import SubprocVecEnv

    pool = OpponentPool(base=("random",), sampling="latest", snapshot_prob=1.0)
    venv = SubprocVecEnv([lambda s=s: SingleAgentEnv(ALL_ENVS[0], opponents=pool, seed=s) for s in range(2)])
    try:
        path = str(model_dir / "model.zip")
        venv.env_method("add_opponent", path)
        assert [p[path] for p in venv.env_method("opponent_probabilities")] == [1.0, 1.0]
        venv.reset()
        for _ in range(30):
            masks = np.stack(venv.env_method("action_masks"))
            venv.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    finally:
        venv.close()
