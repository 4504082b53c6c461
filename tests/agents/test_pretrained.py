"""Agent kind ``pretrained``: ``cardgames export`` files played in numpy, exactly as the model plays.

The export tests train or save tiny models, export them into a temporary folder and point the
agent's lookup of the shipped files there. The shipped-agent tests read the package's own files
(``pretrained.npz`` + ``pretrained.json`` in each game's folder): they fail until a policy is
shipped for every env.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from cardgames_env.agents import pretrained
from cardgames_env.agents.base import AGENT_KINDS, make_agent
from cardgames_env.agents.model import ModelAgent, env_signature
from cardgames_env.agents.pretrained import MAX_BYTES, NumpyPolicy, PretrainedAgent
from cardgames_env.cli import main
from cardgames_env.registry import load
from cardgames_env.training.evaluate import evaluate
from cardgames_env.training.export import export_policy
from tests.training.conftest import save_untrained_model

SHIPPED_ENVS = ("red7_v0", "gongzhu_v0", "jaipur_v0", "haggis_v0", "haggle_v0")
TINY = {"ppo": {"n_steps": 64, "batch_size": 32, "n_epochs": 1, "net_arch": [24, 16]}, "eval": {"points": 1}}
SUBSTEPS = {"exchange_encoding": "substeps"}
COMMAND = "cardgames train red7_v0 --timesteps 128 --n-envs 1 --config tiny.json"


@pytest.fixture(scope="module")
def red7_run(tmp_path_factory) -> Path:
    """A Red7 model trained for a few steps with ``train`` (two hidden layers)."""
    from cardgames_env.training.config import Overrides, resolve_config
    from cardgames_env.training.train import train

    folder = tmp_path_factory.mktemp("red7_run")
    config = folder / "tiny.json"
    config.write_text(json.dumps(TINY))
    overrides = Overrides(timesteps=128, n_envs=1, eval_games=2, opponents="random")
    settings = resolve_config("red7_v0", config, overrides)
    train("red7_v0", settings, out=folder / "run", progress=False, log=lambda line: None)
    return folder / "run"


@pytest.fixture(scope="module")
def red7_sharp(red7_run, tmp_path_factory) -> Path:
    """The Red7 model with its action head scaled by 100: logits spread like a trained policy's
    (a freshly initialised head has logits within about 0.01 of each other)."""
    import shutil

    import torch
    from sb3_contrib import MaskablePPO

    folder = tmp_path_factory.mktemp("red7_sharp")
    model = MaskablePPO.load(str(red7_run / "model.zip"), device="cpu")
    with torch.no_grad():
        model.policy.action_net.weight.mul_(100.0)
        model.policy.action_net.bias.mul_(100.0)
    model.save(str(folder / "model.zip"))
    shutil.copy(red7_run / "model.json", folder / "model.json")
    return folder


@pytest.fixture(scope="module")
def jaipur_substeps_model(tmp_path_factory) -> Path:
    """A (randomly initialised) MaskablePPO for Jaipur's sub-step exchange encoding."""
    folder = tmp_path_factory.mktemp("jaipur_substeps")
    save_untrained_model(folder, "jaipur_v0", SUBSTEPS)
    return folder


@pytest.fixture()
def shipped(tmp_path, monkeypatch) -> Path:
    """An empty folder standing in for the games' shipped policies (``<env>.npz`` + ``<env>.json``)."""
    folder = tmp_path / "shipped"
    folder.mkdir()

    def pair(game):
        return folder / f"{game.env_name}.npz", folder / f"{game.env_name}.json"

    monkeypatch.setattr(pretrained, "_shipped_pair", pair)
    return folder


def _random_inputs(
    rng: np.random.Generator, size: int, actions: int, rows: int
) -> tuple[np.ndarray, np.ndarray]:
    """Random observations (0/1 and small counts, like the encodings') and masks with a legal action."""
    obs = rng.integers(0, 3, size=(rows, size)).astype(np.float32) * (rng.random((rows, size)) < 0.3)
    masks = (rng.random((rows, actions)) < 0.4).astype(np.int8)
    masks[np.arange(rows), rng.integers(0, actions, size=rows)] = 1
    return obs, masks


def _torch_logits(agent: ModelAgent, obs: np.ndarray) -> np.ndarray:
    """The model's actor logits, computed by torch (as ``ModelAgent.act`` does)."""
    import torch

    policy = agent.policy
    with torch.no_grad():
        features = policy.extract_features(torch.as_tensor(obs), policy.pi_features_extractor)
        return policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()


# -- export round trip ------------------------------------------------------------------------
def test_export_writes_actor_only_and_the_sidecar(red7_run, tmp_path):
    npz, sidecar = export_policy(red7_run, tmp_path / "red7_v0", command=COMMAND, results={"vs_random": 0.6})
    assert (npz.name, sidecar.name) == ("red7_v0.npz", "red7_v0.json")
    source = json.loads((red7_run / "model.json").read_text())
    meta = json.loads(sidecar.read_text())
    for key in ("env", "options", "observation_size", "num_actions", "timesteps", "opponents", "seed"):
        assert meta[key] == source[key], key
    assert meta["format_version"] == 1 and meta["layers"] == [24, 16] and meta["activation"] == "tanh"
    assert meta["dtype"] == "float32" and meta["command"] == COMMAND and meta["results"] == {"vs_random": 0.6}
    with np.load(npz) as arrays:  # two hidden layers and the head; no critic
        assert sorted(arrays.files) == ["action_b", "action_w", "b0", "b1", "w0", "w1"]
        assert arrays["w0"].shape == (source["observation_size"], 24) and arrays["w1"].shape == (24, 16)
        assert arrays["action_w"].shape == (16, source["num_actions"])


@pytest.mark.parametrize("which", ["red7_run", "red7_sharp"])
def test_numpy_policy_plays_exactly_as_the_model(which, request, tmp_path):
    run = request.getfixturevalue(which)
    model = ModelAgent.load(run)
    npz, _ = export_policy(run, tmp_path / "p32", command=COMMAND)
    policy = NumpyPolicy.from_npz(npz.read_bytes())
    obs, masks = _random_inputs(np.random.default_rng(0), policy.observation_size, policy.num_actions, 400)
    torch_logits = _torch_logits(model, obs)
    np.testing.assert_allclose(policy.logits(obs), torch_logits, rtol=1e-5, atol=1e-5)
    # The two maths libraries agree to that tolerance, not to the bit: where the best two legal
    # logits are closer than twice it, either may be chosen on some CPU; every other row is exact.
    legal = np.where(masks.astype(bool), torch_logits, -np.inf)
    best = legal.max(axis=1)
    slack = 2 * (1e-5 + 1e-5 * np.abs(best))
    near_best = legal >= (best - slack)[:, None]
    expected = [model.act(o, m) for o, m in zip(obs, masks)]
    for played in ([policy.act(o, m) for o, m in zip(obs, masks)], policy.act_batch(obs, masks).tolist(),
                   model.act_batch(obs, masks).tolist()):
        for row, (got, want) in enumerate(zip(played, expected)):
            assert got == want if near_best[row].sum() == 1 else near_best[row, got], (row, got, want)
    assert (near_best.sum(axis=1) == 1).mean() > 0.9  # nearly every row is compared exactly


def test_float16_export_agrees_where_the_top_two_logits_are_apart(red7_sharp, tmp_path):
    model = ModelAgent.load(red7_sharp)
    npz16, _ = export_policy(red7_sharp, tmp_path / "p16", command=COMMAND, dtype="float16")
    npz32, _ = export_policy(red7_sharp, tmp_path / "p32", command=COMMAND)
    assert npz16.stat().st_size < npz32.stat().st_size
    policy = NumpyPolicy.from_npz(npz16.read_bytes())
    obs, masks = _random_inputs(np.random.default_rng(1), policy.observation_size, policy.num_actions, 400)
    logits = np.where(masks.astype(bool), _torch_logits(model, obs), -np.inf)
    top2 = np.sort(logits, axis=1)[:, -2:]
    clear = (top2[:, 1] - top2[:, 0]) > 1e-2  # a single legal action counts as clear (inf gap)
    assert clear.sum() >= 100  # the check compares many rows
    ours = policy.act_batch(obs, masks)
    theirs = np.array([model.act(o, m) for o, m in zip(obs, masks)])
    assert (ours[clear] == theirs[clear]).all()


def test_pretrained_agent_plays_the_env_observation_at_equal_options(red7_run, shipped):
    export_policy(red7_run, shipped / "red7_v0", command=COMMAND)
    env = load("red7_v0").raw_env()
    agent = make_agent("pretrained", env, seed=0)
    model = ModelAgent.load(red7_run, env=env)
    assert isinstance(agent, PretrainedAgent) and agent.needs_observation
    env.reset(seed=5)
    for _ in range(3):
        obs, mask = env.observe(env.agent_selection)["observation"], env.action_mask()
        # Exact unless the best two legal logits tie within the two maths libraries' agreement.
        legal = np.where(mask.astype(bool), _torch_logits(model, obs[None])[0], -np.inf)
        near_best = np.flatnonzero(legal >= legal.max() - 2 * (1e-5 + 1e-5 * abs(legal.max())))
        chosen = agent.act(obs, mask)
        assert chosen == model.act(obs, mask) if len(near_best) == 1 else chosen in near_best
        env.step(model.act(obs, mask))


# -- Jaipur: the sub-step model on the flat encoding -------------------------------------------
def _rules_fields(state) -> dict:
    """A rules state's fields without its config (which names the encoding)."""
    return {f.name: getattr(state, f.name) for f in dataclasses.fields(state) if f.name != "config"}


def _play_moves(env, choose) -> list[dict]:
    """Play a game with ``choose(env)`` for every seat; return the rules state after every move."""
    states = [_rules_fields(env.game_state())]
    while env.agents:
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            env.step(None)
            continue
        env.step(choose(env))
        if env.game_state() is not None and _rules_fields(env.game_state()) != states[-1]:
            states.append(_rules_fields(env.game_state()))
    return states


def test_jaipur_substeps_policy_plays_the_same_moves_on_the_flat_encoding(jaipur_substeps_model, shipped):
    export_policy(jaipur_substeps_model, shipped / "jaipur_v0", command="cardgames train jaipur_v0 ...")
    jaipur = load("jaipur_v0")
    flat, substeps = jaipur.raw_env(), jaipur.raw_env(**SUBSTEPS)
    assert env_signature(flat)["num_actions"] == 25505 and env_signature(substeps)["num_actions"] == 63
    agent = make_agent("pretrained", flat, seed=0)
    assert isinstance(agent, PretrainedAgent) and not agent.needs_observation
    # The reference plays the same numpy policy on the sub-step encoding itself, so both sides
    # compute the same floats in the same order on any CPU (torch against numpy is compared,
    # near ties aside, by test_numpy_policy_plays_exactly_as_the_model).
    native = make_agent("pretrained", substeps, seed=0)
    assert isinstance(native, PretrainedAgent) and native.env is None  # its own encoding
    actions: list[int] = []  # the flat agent's actions

    def pick(e):
        actions.append(agent.act(np.zeros(1, dtype=np.float32), e.action_mask()))
        return actions[-1]

    first_exchange = load("jaipur_v0").raw_env().encoding.actions.offset("exchange")
    for seed in (0, 1):
        substeps.reset(seed=seed)
        native.reset()
        expected = _play_moves(substeps, lambda e: native.act(e.observe(e.agent_selection)["observation"],
                                                              e.action_mask()))
        flat.reset(seed=seed)
        agent.reset()
        played = _play_moves(flat, pick)
        assert len(played) > 10
        assert played == expected
    assert sum(a >= first_exchange for a in actions) > 0  # multi-sub-step moves were translated too
    assert main(["play", "jaipur_v0", "--agents", "pretrained,random", "--quiet"]) == 0
    flat.reset(seed=2)
    agent.reset()
    mask = flat.action_mask()
    chosen = agent.act(np.zeros(1, dtype=np.float32), mask)
    other = np.zeros_like(mask)
    other[next(a for a in np.flatnonzero(mask) if a != chosen)] = 1
    agent.reset()
    with pytest.raises(ValueError, match="not legal under this mask"):  # never a silently changed move
        agent.act(np.zeros(1, dtype=np.float32), other)


# -- errors -----------------------------------------------------------------------------------
def test_missing_file_names_the_env_and_what_is_shipped(shipped, red7_run):
    with pytest.raises(ValueError, match=r"no pretrained agent for jaipur_v0; shipped: none"):
        make_agent("pretrained", load("jaipur_v0").raw_env())
    export_policy(red7_run, shipped / "red7_v0", command=COMMAND)
    with pytest.raises(ValueError, match=r"no pretrained agent for jaipur_v0; shipped: red7_v0"):
        make_agent("pretrained", load("jaipur_v0").raw_env())


def test_other_game_options_are_refused(shipped, red7_run, jaipur_substeps_model):
    export_policy(red7_run, shipped / "red7_v0", command=COMMAND)
    with pytest.raises(ValueError, match=r"pretrained agent for red7_v0 plays options default.*num_players"):
        make_agent("pretrained", load("red7_v0").raw_env(num_players=3))
    export_policy(jaipur_substeps_model, shipped / "jaipur_v0", command=COMMAND)
    with pytest.raises(ValueError, match=r"exchange_encoding.*differs in rounds"):
        make_agent("pretrained", load("jaipur_v0").raw_env(rounds=1))
    PretrainedAgent(load("jaipur_v0").raw_env(**SUBSTEPS))  # same options: direct play


def test_corrupt_oversized_and_inconsistent_files_are_clear_errors(shipped, red7_run):
    npz, sidecar = export_policy(red7_run, shipped / "red7_v0", command=COMMAND)
    good_npz, good_meta = npz.read_bytes(), sidecar.read_text()
    env = load("red7_v0").raw_env()
    npz.write_bytes(b"not a zip at all")
    with pytest.raises(ValueError, match="red7_v0.npz: not an exported policy"):
        PretrainedAgent(env)
    npz.write_bytes(good_npz + b"\0" * MAX_BYTES)
    with pytest.raises(ValueError, match="over the 2097152-byte limit"):
        PretrainedAgent(env)
    npz.write_bytes(good_npz)
    sidecar.write_text("{broken")
    with pytest.raises(ValueError, match="unreadable pretrained sidecar red7_v0.json"):
        PretrainedAgent(env)
    meta = json.loads(good_meta)
    sidecar.write_text(json.dumps({**meta, "layers": [24, 17]}))
    with pytest.raises(ValueError, match="its sidecar says"):
        PretrainedAgent(env)
    sidecar.write_text(json.dumps({**meta, "format_version": 2}))
    with pytest.raises(ValueError, match="format_version 2"):
        PretrainedAgent(env)
    sidecar.write_text(json.dumps({**meta, "env": "jaipur_v0"}))
    with pytest.raises(ValueError, match="trained for jaipur_v0, not red7_v0"):
        PretrainedAgent(env)
    sidecar.write_text(good_meta)
    assert PretrainedAgent(env).policy.widths == [24, 16]


@pytest.fixture(scope="module")
def big_jaipur_run(tmp_path_factory) -> Path:
    """A Jaipur model whose exported policy is over 2 MiB: 32 x 25,505 flat actions, 816k head
    weights, 3.1 MiB in float32."""
    from sb3_contrib import MaskablePPO

    from cardgames_env.agents.model import write_sidecar
    from cardgames_env.wrappers.single_agent import SingleAgentEnv

    folder = tmp_path_factory.mktemp("big")
    env = SingleAgentEnv("jaipur_v0")
    MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, seed=0, device="cpu",
                policy_kwargs={"net_arch": [32]}).save(str(folder / "model.zip"))
    write_sidecar(folder / "model.zip", env.raw)
    return folder


def test_export_writes_a_policy_of_any_size(tmp_path, big_jaipur_run):
    """An ordinary export has no size limit; the policy plays."""
    npz, _ = export_policy(big_jaipur_run, tmp_path / "big32", command="x")
    assert npz.stat().st_size > MAX_BYTES
    env = load("jaipur_v0").raw_env()
    agent = make_agent(str(npz), env, seed=0)
    env.reset(seed=0)
    assert env.action_mask()[agent.act(env.encoding.observe(env._decision, 0), env.action_mask())]


def test_the_shipping_limit_guards_the_package_folder_and_on_request(tmp_path, shipped, big_jaipur_run):
    over = r"bytes \(.* MiB\), over the 2 MiB shipping limit: try --dtype float16"
    with pytest.raises(ValueError, match=over):  # into the package: always
        export_policy(big_jaipur_run, shipped / "jaipur_v0", command="x")
    with pytest.raises(ValueError, match=over):  # elsewhere: when asked
        export_policy(big_jaipur_run, tmp_path / "big32", command="x", max_bytes=MAX_BYTES)
    assert not list(shipped.iterdir()) and not list(tmp_path.glob("big32*"))  # nothing written
    npz, _ = export_policy(big_jaipur_run, shipped / "jaipur_v0", command="x", dtype="float16")
    assert npz.stat().st_size <= MAX_BYTES


def test_cli_export_of_a_large_policy_and_its_limit_option(tmp_path, big_jaipur_run, terminal_stderr):
    argv = ["export", str(big_jaipur_run), str(tmp_path / "big32"), "--command", "x"]
    assert main(argv) == 0
    captured = terminal_stderr.readouterr()
    assert captured.out.startswith(f"saved {tmp_path / 'big32.npz'}") and captured.out.count("\n") == 1
    assert "3/3" in captured.err  # the bar of the export's stages
    assert main([*argv, "--shipping-limit", "--no-progress"]) == 2
    err = terminal_stderr.readouterr().err
    assert "over the 2 MiB shipping limit" in err and err.count("\n") == 1


def test_export_input_errors(tmp_path, red7_run):
    with pytest.raises(ValueError, match="no model file"):
        export_policy(tmp_path / "nothing", tmp_path / "x", command="c")
    with pytest.raises(ValueError, match="dtype must be one of"):
        export_policy(red7_run, tmp_path / "x", command="c", dtype="int8")
    with pytest.raises(ValueError, match="command must be"):
        export_policy(red7_run, tmp_path / "x", command=" ")
    assert not list(tmp_path.glob("x*"))


def test_cli_export_and_its_errors(tmp_path, red7_run, shipped, capsys):
    assert main(["export", str(red7_run), str(shipped / "red7_v0"), "--command", COMMAND]) == 0
    assert "saved" in capsys.readouterr().out and (shipped / "red7_v0.npz").is_file()
    for argv, message in (
        (["export", str(tmp_path / "none"), str(tmp_path / "x"), "--command", "c"], "no model file"),
        (["export", str(red7_run), str(tmp_path / "x")], "--command"),
        (["export", str(red7_run), str(tmp_path / "x"), "--command", "c", "--dtype", "int8"], "--dtype"),
        (["eval", "jaipur_v0", "--agent", "pretrained", "--vs", "random"], "no pretrained agent for jaipur"),
        (["play", "red7_v0", "--agents", "pretrained", "--option", "num_players=3"], "num_players"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
    assert main(["eval", "red7_v0", "--agent", "pretrained", "--vs", "random", "--games", "2"]) == 0
    assert main(["play", "red7_v0", "--agents", "pretrained,random", "--quiet"]) == 0
    assert "pretrained" in AGENT_KINDS


# -- the policies shipped in the package ------------------------------------------------------
@pytest.mark.parametrize("env_name", SHIPPED_ENVS)
def test_shipped_policy_loads_and_beats_random(env_name):
    env = load(env_name).raw_env()
    agent = make_agent("pretrained", env, seed=0)
    npz, sidecar = pretrained.policy_files(env_name)
    assert len(npz.read_bytes()) <= MAX_BYTES
    meta = json.loads(sidecar.read_text(encoding="utf-8"))
    assert isinstance(meta["command"], str) and meta["command"].strip()
    assert isinstance(agent, PretrainedAgent)
    players = len(env.possible_agents)
    # Gong Zhu's hand points vary most (a deal swings by up to 200 points): 100 deals there.
    games = 40 if players == 2 else (100 if env_name == "gongzhu_v0" else 15) * players
    result = evaluate(env_name, "pretrained", "random", games=games, seed=11)
    low, _ = result.ci  # two players: the win rate's; more: the points difference's
    assert low > (0.5 if players == 2 else 0.0), result.summary()


def _dense_logits(layers: list, observations: np.ndarray) -> np.ndarray:
    """The MLP computed layer by layer with full matrix products (tanh between layers)."""
    h = observations
    for i, (w, b) in enumerate(layers):
        h = h @ w + b
        h = np.tanh(h) if i < len(layers) - 1 else h
    return h


def test_side_by_side_networks_multiply_only_their_blocks() -> None:
    from cardgames_env.agents.pretrained import diagonal_blocks
    from cardgames_env.training.export import sum_of_networks

    rng = np.random.default_rng(0)

    def network(sizes: list[int]) -> list:
        return [(rng.standard_normal((a, b)).astype(np.float32), rng.standard_normal(b).astype(np.float32))
                for a, b in zip(sizes[:-1], sizes[1:])]

    layers = sum_of_networks(network([30, 16, 12, 8, 5]), network([30, 8, 6, 10, 5]), 0.5)
    policy = NumpyPolicy.from_layers(layers)
    blocks = [diagonal_blocks(w) for w, _ in layers]
    assert blocks[0] is None and blocks[-1] is None  # both halves read every input; the heads add up
    assert [b[:2] for b in blocks[1:-1]] == [(16, 12), (12, 8)]  # type: ignore[index]
    observations = rng.standard_normal((7, 30)).astype(np.float32)
    assert np.allclose(policy.logits(observations), _dense_logits(layers, observations), atol=1e-5)


def test_diagonal_blocks_need_exact_zeros_and_a_real_saving() -> None:
    from cardgames_env.agents.pretrained import diagonal_blocks

    rng = np.random.default_rng(1)
    weights = np.zeros((6, 7), dtype=np.float32)
    weights[:3, :3] = rng.standard_normal((3, 3))
    weights[3:, 4:] = rng.standard_normal((3, 3))  # column 3 is all zero: either block may take it
    rows, columns, top, bottom = diagonal_blocks(weights)  # type: ignore[misc]
    assert rows == 3 and 3 <= columns <= 4
    x = rng.standard_normal((4, 6)).astype(np.float32)
    assert np.allclose(np.hstack([x[:, :rows] @ top, x[:, rows:] @ bottom]), x @ weights)
    weights[5, 0] = 1e-30  # one weight off the blocks: no split
    assert diagonal_blocks(weights) is None
    assert diagonal_blocks(rng.standard_normal((6, 7))) is None
    lopsided = np.zeros((8, 8))
    lopsided[:7, :7], lopsided[7:, 7:] = 1.0, 1.0  # saves under a quarter of the products
    assert diagonal_blocks(lopsided) is None
