"""The RLlib integration: env runners on the batched engines, the multi-agent adapter against the
AEC env, masked modules, training.

Skipped when ray[rllib] is not installed (``pip install -e ".[rllib]"``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed (the 'rllib' extra)")

import gymnasium as gym  # noqa: E402
import torch  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402
from ray.rllib.env.multi_agent_episode import MultiAgentEpisode  # noqa: E402

from cardgames_env import cli  # noqa: E402
from cardgames_env.agents import make_agent  # noqa: E402
from cardgames_env.core.extras import install_command  # noqa: E402
from cardgames_env.integrations.rllib import (  # noqa: E402
    MaskedCategorical,
    MaskedPPOModule,
    RandomModule,
    RLlibCardGameEnv,
    build_config,
)
from cardgames_env.registry import ALL_ENVS, load  # noqa: E402

CASES = [
    pytest.param(name, options, id=f"{name}[{','.join(f'{k}={v}' for k, v in options.items()) or 'default'}]")
    for name in ALL_ENVS
    for options in load(name).TEST_VARIANTS
]


def aec_game(name: str, options: dict, seed: int) -> tuple[list[int], dict[str, float], list[np.ndarray]]:
    """Play one seeded random game in the AEC env; return its actions, the returns and the observations.

    The returns are PettingZoo's: the sum of ``last()``'s reward over every visit of each agent.
    """
    env = load(name).raw_env(**options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions: list[int] = []
    observations: list[np.ndarray] = []
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        observations.append(obs["observation"].copy())
        env.step(action)
    return actions, returns, observations


def adapter_game(
    name: str, options: dict, seed: int, actions: list[int]
) -> tuple[MultiAgentEpisode, dict, list, set]:
    """Replay ``actions`` in the adapter, recording them in an RLlib ``MultiAgentEpisode``.

    Returns the episode, the summed rewards per agent, the movers' observations and the movers.
    """
    env = RLlibCardGameEnv({"env": name, "options": options})
    obs, infos = env.reset(seed=seed)
    episode = MultiAgentEpisode(observation_space=env.observation_spaces, action_space=env.action_spaces)
    episode.add_env_reset(observations=obs, infos=infos)
    summed = dict.fromkeys(env.possible_agents, 0.0)
    seen: list[np.ndarray] = []
    moved: set[str] = set()
    for action in actions:
        assert not episode.is_done
        movers = [a for a, o in obs.items() if o["action_mask"].any()]
        assert len(movers) == 1, f"exactly one agent to move, got {movers}"
        (mover,) = movers
        assert obs[mover]["action_mask"][action] == 1.0
        seen.append(obs[mover]["observations"])
        moved.add(mover)
        obs, rewards, terminateds, truncateds, infos = env.step({mover: action})
        for agent, reward in rewards.items():
            summed[agent] += reward
        episode.add_env_step(
            observations=obs, actions={mover: action}, rewards=rewards,
            terminateds=terminateds, truncateds=truncateds, infos=infos,
        )
    assert terminateds["__all__"] or truncateds["__all__"]
    return episode, summed, seen, moved


@pytest.mark.parametrize("name,options", CASES)
def test_adapter_returns_equal_the_aec_env(name, options):
    for seed in range(2):
        actions, expected, aec_observations = aec_game(name, options, seed)
        episode, summed, observations, moved = adapter_game(name, options, seed, actions)
        assert episode.is_done
        assert len(observations) == len(aec_observations)
        for ours, theirs in zip(observations, aec_observations):
            np.testing.assert_array_equal(ours, theirs)
        for agent, value in expected.items():
            assert summed[agent] == pytest.approx(value, abs=1e-9), (agent, seed)
            if agent not in moved:  # RLlib leaves a seat out that never moved (a game over before its turn)
                assert agent not in episode.agent_episodes
                continue
            # What RLlib's episode books for the agent: every reward reaches a transition.
            assert episode.agent_episodes[agent].get_return() == pytest.approx(value, abs=1e-9), (agent, seed)
            assert episode.agent_episodes[agent].is_done


def test_red7_elimination_leaves_with_a_final_observation():
    env = RLlibCardGameEnv({"env": "red7_v0", "options": {"num_players": 4}})
    probe = load("red7_v0").raw_env(num_players=4)
    probe.reset(seed=3)
    give_up = probe.string_to_action("give up")
    obs, infos = env.reset(seed=3)
    episode = MultiAgentEpisode(observation_space=env.observation_spaces, action_space=env.action_spaces)
    episode.add_env_reset(observations=obs, infos=infos)
    (first,) = obs
    # The first mover gives up at once: no other seat has been seen yet, so the adapter
    # reports the elimination with the next step (RLlib would otherwise end the episode).
    obs, rewards, terminateds, truncateds, infos = env.step({first: give_up})
    assert first not in obs and not terminateds["__all__"]
    episode.add_env_step(observations=obs, actions={first: give_up}, rewards=rewards,
                         terminateds=terminateds, truncateds=truncateds, infos=infos)
    assert not episode.is_done
    rng = np.random.default_rng(0)
    reported: list[str] = []
    while not episode.is_done:
        (mover,) = [a for a, o in obs.items() if o["action_mask"].any()]
        action = int(rng.choice(np.flatnonzero(obs[mover]["action_mask"])))
        obs, rewards, terminateds, truncateds, infos = env.step({mover: action})
        gone = [a for a, done in terminateds.items() if done and a != "__all__"]
        if not terminateds["__all__"]:
            for agent in gone:
                assert obs[agent]["action_mask"].sum() == 0  # a final observation, nothing to play
            reported += gone
        else:
            assert not set(obs) & set(reported)  # a seat that left gets nothing more
        episode.add_env_step(observations=obs, actions={mover: action}, rewards=rewards,
                             terminateds=terminateds, truncateds=truncateds, infos=infos)
    assert reported[0] == first
    assert episode.agent_episodes[first].is_done


def masked_module(num_actions: int = 40, observation_size: int = 12) -> MaskedPPOModule:
    space = gym.spaces.Dict({
        "observations": gym.spaces.Box(-np.inf, np.inf, (observation_size,), np.float32),
        "action_mask": gym.spaces.Box(0.0, 1.0, (num_actions,), np.float32),
    })
    spec = RLModuleSpec(module_class=MaskedPPOModule, observation_space=space,
                        action_space=gym.spaces.Discrete(num_actions), model_config={"fcnet_hiddens": [16]})
    module = spec.build()
    assert isinstance(module, MaskedPPOModule)
    return module


def random_batch(rng: np.random.Generator, rows: int, num_actions: int, observation_size: int) -> dict:
    masks = (rng.random((rows, num_actions)) < rng.random((rows, 1)) * 0.3).astype(np.float32)
    masks[np.arange(rows), rng.integers(num_actions, size=rows)] = 1.0  # at least one legal action
    masks[:4] = 0.0
    masks[:4, :: num_actions // 2] = 1.0  # a few rows with exactly two legal actions
    observations = rng.normal(size=(rows, observation_size)).astype(np.float32)
    return {"obs": {"observations": torch.as_tensor(observations), "action_mask": torch.as_tensor(masks)}}


@pytest.mark.parametrize("dtype", [torch.float32, torch.int8, torch.bool])
def test_masked_module_never_samples_an_illegal_action(dtype):
    rng = np.random.default_rng(0)
    module = masked_module()
    dist_cls = module.get_exploration_action_dist_cls()
    for _ in range(5):
        batch = random_batch(rng, 256, 40, 12)
        # The adapter's float masks, the engine's int8 ones.
        batch["obs"]["action_mask"] = batch["obs"]["action_mask"].to(dtype)
        mask = batch["obs"]["action_mask"].numpy().astype(bool)
        for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
            logits = forward(batch)["action_dist_inputs"]
            dist = dist_cls.from_logits(logits)
            for _ in range(10):
                actions = dist.sample().numpy()
                assert mask[np.arange(len(actions)), actions].all()
            assert mask[np.arange(len(actions)), logits.argmax(dim=1).numpy()].all()
            assert torch.isfinite(dist.entropy()).all()


def test_masked_categorical_draws_by_the_softmax_and_matches_torch_categorical():
    torch.manual_seed(0)
    lowest = torch.finfo(torch.float32).min
    logits = torch.tensor([[0.0, 1.0, 2.0, lowest, 0.5, lowest],
                           [lowest, lowest, 3.0, lowest, lowest, lowest]])
    dist = MaskedCategorical.from_logits(logits)
    draws = 40_000
    counts = np.stack([np.bincount(row, minlength=6) for row in dist.sample(sample_shape=(draws,)).T.numpy()])
    # The first row's probabilities, worked out here: exp(l) / sum(exp(l)) over its legal entries.
    legal = np.exp(np.array([0.0, 1.0, 2.0, 0.0, 0.5, 0.0])) * np.array([1, 1, 1, 0, 1, 0])
    expected = draws * legal / legal.sum()
    chi_square = (((counts[0] - expected) ** 2)[legal > 0] / expected[legal > 0]).sum()
    assert chi_square < 16.3  # 3 degrees of freedom: P(chi2 > 16.3) < 0.001
    assert counts[0, [3, 5]].sum() == 0 and counts[1, 2] == draws
    reference = torch.distributions.Categorical(logits=logits)
    actions = torch.tensor([4, 2])
    assert torch.allclose(dist.logp(actions), reference.log_prob(actions))
    assert torch.allclose(dist.entropy(), reference.entropy())
    other = MaskedCategorical.from_logits(torch.tensor([[1.0, 0.0, 0.0, lowest, 0.0, lowest]] * 2))
    expected_kl = torch.distributions.kl_divergence(reference, other._dist)
    assert torch.allclose(dist.kl(other), expected_kl, atol=1e-6)


def test_masked_categorical_draws_the_last_legal_action_at_the_top_of_the_uniform(monkeypatch):
    lowest = torch.finfo(torch.float32).min
    logits = torch.tensor([[0.3, lowest, 1.2, lowest, lowest], [lowest, 2.0, lowest, lowest, lowest]])
    dist = MaskedCategorical.from_logits(logits)
    monkeypatch.setattr(torch, "rand", lambda shape, **kw: torch.full(shape, 1.0 - 2.0**-24, **kw))
    assert dist.sample().tolist() == [2, 1]
    monkeypatch.setattr(torch, "rand", lambda shape, **kw: torch.zeros(shape, **kw))
    assert dist.sample().tolist() == [0, 1]


def test_random_module_plays_only_legal_actions():
    rng = np.random.default_rng(1)
    space = masked_module(30, 5).observation_space
    module = RandomModule(
        observation_space=space, action_space=gym.spaces.Discrete(30), model_config={"seed": 0}
    )
    batch = random_batch(rng, 500, 30, 5)
    actions = module.forward_exploration(batch)["actions"]
    mask = batch["obs"]["action_mask"].numpy()
    assert mask[np.arange(500), actions].all()
    assert len(set(actions[:4].tolist())) == 2  # both legal actions of the two-action rows appear


def test_build_config_rejects_a_bad_setup_and_env():
    with pytest.raises(ValueError, match="setup"):
        build_config("gongzhu_v0", setup="league")
    with pytest.raises(ValueError, match="unknown env"):
        build_config("chess_v0")
    with pytest.raises(ValueError, match="unknown env"):
        build_config("chess_v0", setup="heuristic")
    with pytest.raises(ValueError, match="engine='aec'"):
        build_config("red7_v0", setup="selfplay", engine="vector")
    with pytest.raises(ValueError, match="engine"):
        build_config("red7_v0", setup="heuristic", engine="gpu")


@pytest.mark.parametrize("name", ["red7_v0", "gongzhu_v0"])
def test_vector_env_runner_samples_the_learners_decisions_against_batched_opponents(name):
    """A fixed-opponent config runs RLlib's single-agent env runner on the batched engine:
    every recorded action is legal under its observation's mask, each finished episode ends
    with the final observation (no legal action), its learner decisions are the episode's
    length, and the opponents' decisions are played inside the env."""
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    from cardgames_env.wrappers.vector_env import CardGamesVectorEnv

    config = build_config(name, setup="heuristic", envs_per_runner=8, hidden=(16,), seed=3)
    runner = SingleAgentEnvRunner(config=config)
    env = runner.env.unwrapped
    assert isinstance(env, CardGamesVectorEnv)
    assert env.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    episodes = runner.sample(num_timesteps=400, random_actions=False)
    finished = [e for e in episodes if e.is_done]
    assert finished
    for episode in finished:
        observations = episode.get_observations()
        masks = np.asarray(observations["action_mask"])
        actions = np.asarray(episode.get_actions())
        assert masks[np.arange(len(actions)), actions].all()
        assert not masks[-1].any()
        assert len(actions) == len(episode)
    learner_steps = sum(len(e) for e in episodes)
    assert env.env_steps > learner_steps  # the heuristic seats moved inside
    runner.stop()


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    """One RLlib training iteration on Red7 (a learner against a random seat, on the batched engine)."""
    import ray

    from cardgames_env.integrations.rllib import train

    out = tmp_path_factory.mktemp("rllib")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        summary = train(
            "red7_v0", setup="random", iterations=1, out=out, envs_per_runner=2, hidden=(32,),
            train_batch=256, minibatch=128, epochs=1, log=lambda message: None,
        )
    finally:
        ray.shutdown()
    assert summary["env_steps_sampled"] >= 256
    return Path(summary["checkpoint"])


def test_training_leaves_a_checkpoint_that_eval_loads(checkpoint, capsys):
    sidecar = json.loads((checkpoint / "cardgames.json").read_text())
    assert sidecar["env"] == "red7_v0" and sidecar["module"] == "default_policy"  # the vector runners' module
    assert (checkpoint / "learner_group" / "learner" / "rl_module" / "default_policy").is_dir()
    code = cli.main(["eval", "red7_v0", "--agent", str(checkpoint), "--vs", "random", "--games", "4"])
    assert code == 0
    assert "vs random on red7_v0 (4 games)" in capsys.readouterr().out
    agent = make_agent(str(checkpoint), load("red7_v0").raw_env(), seed=0)
    env = load("red7_v0").raw_env()
    env.reset(seed=5)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"])] == 1


def test_play_and_league_take_the_checkpoint(checkpoint, tmp_path, capsys):
    assert cli.main(["play", "red7_v0", "--agents", f"{checkpoint},random", "--quiet", "--seed", "2"]) == 0
    assert "points:" in capsys.readouterr().out
    assert cli.main(["league", "red7_v0", "--agents", f"random,{checkpoint}", "--games", "2"]) == 0
    assert "checkpoint" in capsys.readouterr().out


def test_checkpoint_for_another_variant_is_refused(checkpoint, capsys):
    with pytest.raises(ValueError, match="options"):
        make_agent(str(checkpoint), load("red7_v0").raw_env(num_players=3), seed=0)
    code = cli.main(["eval", "gongzhu_v0", "--agent", str(checkpoint), "--vs", "random", "--games", "2"])
    assert code == 2
    err = capsys.readouterr().err
    assert "red7_v0" in err and len(err.strip().splitlines()) == 1


def test_missing_ray_is_one_clear_error(checkpoint, monkeypatch, capsys):
    monkeypatch.setitem(__import__("sys").modules, "ray.rllib.core.rl_module.rl_module", None)
    with pytest.raises(ValueError, match=r"rllib' extra"):
        make_agent(str(checkpoint), load("red7_v0").raw_env(), seed=0)
    monkeypatch.setitem(__import__("sys").modules, "cardgames_env.integrations.rllib", None)
    assert cli.main(["train", "red7_v0", "--backend", "rllib", "--iterations", "1"]) == 2
    assert install_command("rllib") in capsys.readouterr().err


@pytest.mark.parametrize("argv,message", [
    (["--backend", "rllib", "--address", "nowhere"], "--address"),
    (["--backend", "rllib", "--timesteps", "10"], "--timesteps belongs to --backend sb3"),
    (["--iterations", "2"], "--iterations belongs to --backend rllib"),
    (["--backend", "rllib", "--iterations", "0"], "--iterations"),
    (["--backend", "rllib", "--num-env-runners", "-1"], "--num-env-runners"),
    (["--backend", "rllib", "--rllib-setup", "league"], "--rllib-setup"),
    (["--backend", "jax"], "--backend"),
])
def test_train_cli_rejects_bad_rllib_arguments(argv, message, capsys):
    assert cli.main(["train", "red7_v0", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
