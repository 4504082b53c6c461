"""Deep Monte-Carlo training: returns, ε-greedy, the gathered Q, the episode store, the run folder."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cardgames_env.agents.base import make_agent  # noqa: E402
from cardgames_env.agents.batch import batch_policy, random_legal  # noqa: E402
from cardgames_env.agents.pretrained import NumpyPolicy, load_exported  # noqa: E402
from cardgames_env.registry import load  # noqa: E402
from cardgames_env.training.config import Overrides, load_config, resolve_config, validate_config  # noqa: E402
from cardgames_env.training.dmc import (  # noqa: E402
    ActingScores,
    CloneLoss,
    DemonstrationLoss,
    EpisodeStore,
    SampleQueue,
    build_q_network,
    demonstration_loss,
    demonstration_returns,
    dmc_update,
    epsilon_greedy,
    fit_demonstrations,
    greedy_policy,
    network_layers,
    q_taken,
    returns_to_go,
)
from cardgames_env.training.evaluate import evaluate  # noqa: E402
from cardgames_env.training.export import export_policy, sum_of_networks, write_policy  # noqa: E402
from cardgames_env.training.imitation import Demonstrations  # noqa: E402
from cardgames_env.training.sb3_vec_env import SB3BatchedEnv  # noqa: E402
from cardgames_env.training.train import train  # noqa: E402


def test_returns_to_go_discount_later_rewards() -> None:
    """Worked by hand: rewards 1, 0, 2 with gamma 0.5 give 2 (last), 0 + 0.5*2 = 1, 1 + 0.5*1 = 1.5."""
    assert returns_to_go(np.array([1.0, 0.0, 2.0]), 0.5).tolist() == [1.5, 1.0, 2.0]
    assert returns_to_go(np.array([0.0, 0.0, -1.0]), 1.0).tolist() == [-1.0, -1.0, -1.0]
    assert returns_to_go(np.array([]), 1.0).size == 0


def test_demonstration_returns_restart_at_each_games_end() -> None:
    """Worked by hand, gamma 0.5: game one pays 1, 2, 3 -> 3, 2 + 1.5 = 3.5, 1 + 1.75 = 2.75;
    game two pays 4, 5 -> 5, 4 + 2.5 = 6.5; nothing carries over from game two into game one."""
    rewards = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    last = np.array([False, False, True, False, True])
    assert demonstration_returns(rewards, last, 0.5).tolist() == [2.75, 3.5, 3.0, 6.5, 5.0]
    assert demonstration_returns(rewards, last, 1.0).tolist() == [6.0, 5.0, 3.0, 9.0, 5.0]


def test_demonstration_loss_worked_by_hand() -> None:
    """One row, Q = (1, 3, 0, 2), legal actions 0, 1 and 3, teacher's action 0, return 2, margin
    0.5, scale 2: the squared error (1 - 2)^2 / 4 = 0.25; the largest legal Q plus the margin
    (1 for every action but the teacher's) is 3 + 1 = 4, so the margin term is (4 - 1) / 2 = 1.5.
    With the teacher's action far ahead, only the squared error is left."""
    q = torch.tensor([[1.0, 3.0, 0.0, 2.0]])
    mask = torch.tensor([[True, True, False, True]])
    loss = demonstration_loss(q, mask, torch.tensor([0]), torch.tensor([2.0]), 0.5, 2.0)
    assert float(loss) == pytest.approx(0.25 + 1.5)
    q_ahead = torch.tensor([[9.0, 3.0, 20.0, 2.0]])  # the illegal action 2 does not count
    loss = demonstration_loss(q_ahead, mask, torch.tensor([0]), torch.tensor([2.0]), 0.5, 2.0)
    assert float(loss) == pytest.approx((9.0 - 2.0) ** 2 / 4.0)


def _rule_teacher(rng: np.random.Generator, n: int, size: int = 8) -> Demonstrations:
    """``n`` decisions of a teacher that plays the legal action named by the first observation
    feature above 0.5 (of ``size`` features and actions) and earns +3 when feature 0 is above
    0.5, else -3."""
    observations = rng.random((n, size), dtype=np.float32)
    masks = rng.random((n, size)) < 0.6
    masks[np.arange(n), rng.integers(size, size=n)] = True
    preferred = np.where(observations > 0.5, np.arange(size), size)
    best = np.where(masks, preferred, size + 1).argmin(axis=1)
    returns = np.where(observations[:, 0] > 0.5, 3.0, -3.0).astype(np.float32)
    return Demonstrations(observations, masks, best.astype(np.int64), returns, returns.copy(),
                          np.ones(n, bool), n)


def test_fitting_demonstrations_plays_the_teacher_with_values_on_the_returns_scale() -> None:
    """The teacher plays the legal action named by the first observation feature above 0.5 and
    earns +3 when feature 0 is above 0.5, else -3. After the fit the greedy action is the
    teacher's on fresh inputs far more often than chance, the teacher's action's Q tracks the
    return, and the other legal actions sit below it."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    train_rows, fresh = _rule_teacher(rng, 4000), _rule_teacher(rng, 1000)
    network = build_q_network(8, 8, [64])
    history = fit_demonstrations(network, DemonstrationLoss(train_rows, 1.0, 0.5), epochs=30, batch_size=128,
                                 learning_rate=3e-3, log=lambda _: None)
    assert history[-1]["loss"] < history[0]["loss"] and history[-1]["accuracy"] > 0.8
    with torch.no_grad():
        q = network(torch.as_tensor(fresh.observations)).numpy()
    greedy = np.where(fresh.masks, q, -np.inf).argmax(axis=1)
    chance = float(np.mean(1.0 / fresh.masks.sum(axis=1)))
    assert np.mean(greedy == fresh.actions) > max(0.8, chance + 0.4)
    taken = q[np.arange(len(fresh)), fresh.actions]
    assert np.corrcoef(taken, fresh.returns)[0, 1] > 0.8
    assert np.abs(taken - fresh.returns).mean() < 1.5  # half the best constant's error (3)


def test_the_anchor_keeps_the_teachers_moves_that_the_updates_alone_would_drop() -> None:
    """The teacher plays action 0 of 4 in both kinds of observation and earns 1. After the fit,
    Monte-Carlo updates see only action 0, with returns of -5: on their own they pull its Q below
    the other actions' (which no update touches), so the greedy action leaves the teacher's;
    with the anchor (the teacher's decisions' loss in every update) the margin keeps it."""
    n = 400
    observations = np.eye(2, dtype=np.float32)[np.arange(n) % 2]
    demos = Demonstrations(observations, np.ones((n, 4), bool), np.zeros(n, np.int64), np.ones(n, np.float32),
                           np.ones(n, np.float32), np.ones(n, bool), n)
    loss_of = DemonstrationLoss(demos, 1.0, 0.5)
    greedy = {}
    for anchored in (False, True):
        torch.manual_seed(0)
        network = build_q_network(2, 4, [16])
        fit_demonstrations(network, loss_of, epochs=40, batch_size=64, learning_rate=1e-2, validation=0.0,
                           log=lambda _: None)
        assert network(torch.eye(2)).argmax(dim=1).tolist() == [0, 0]
        optimizer = torch.optim.Adam(network.parameters(), lr=1e-2)
        rng = np.random.default_rng(0)
        anchor = (lambda net=network, draw=rng: loss_of(net, draw.integers(n, size=64))) if anchored else None
        for _ in range(200):
            batch = (observations[:64], np.zeros(64, np.int64), np.full(64, -5.0))
            squared_error = dmc_update(network, optimizer, batch, 40.0, anchor)
        assert squared_error >= 0.0
        greedy[anchored] = network(torch.eye(2)).argmax(dim=1).tolist()
    assert greedy[True] == [0, 0]
    assert 0 not in greedy[False]


@pytest.mark.parametrize(("kwargs", "needle"), [
    ({"epochs": 0}, "imitation epochs must be positive"),
    ({"learning_rate": 0.0}, "imitation learning_rate must be positive"),
    ({"margin": -0.1}, "imitation margin must be at least 0"),
])
def test_bad_fit_settings_are_named(kwargs: dict, needle: str) -> None:
    demos = Demonstrations(np.zeros((4, 3), np.float32), np.ones((4, 2), bool), np.zeros(4, np.int64),
                           np.zeros(4, np.float32), np.zeros(4, np.float32), np.ones(4, bool), 4)
    settings = {key: value for key, value in kwargs.items() if key != "margin"}
    with pytest.raises(ValueError, match=needle):
        loss_of = DemonstrationLoss(demos, 1.0, kwargs.get("margin", 0.5))
        fit_demonstrations(build_q_network(3, 2, [4]), loss_of, **settings)


def test_clone_loss_worked_by_hand() -> None:
    """Logits (0, ln 3, 50) with action 2 illegal: the legal softmax is (1/4, 3/4), so the
    cross-entropy is -ln(3/4) for the teacher's action 1 and -ln(1/4) for action 0; the two rows
    together average them."""
    demos = Demonstrations(np.eye(2, dtype=np.float32), np.array([[True, True, False]] * 2),
                           np.array([1, 0]), np.zeros(2, np.float32), np.zeros(2, np.float32),
                           np.ones(2, bool), 2)
    loss_of = CloneLoss(demos, 1.0)

    def logits(observations: torch.Tensor) -> torch.Tensor:
        return torch.tensor([[0.0, float(np.log(3.0)), 50.0]]).repeat(len(observations), 1)

    assert float(loss_of(logits, np.array([0]))) == pytest.approx(-np.log(0.75))
    assert float(loss_of(logits, np.array([1]))) == pytest.approx(-np.log(0.25))
    assert float(loss_of(logits, np.array([0, 1]))) == pytest.approx(-(np.log(0.75) + np.log(0.25)) / 2)
    assert loss_of.accuracy(logits, np.array([0, 1])) == 0.5  # the legal argmax is action 1


def test_the_clone_loss_fit_plays_the_teacher() -> None:
    """The teacher plays the legal action named by the first observation feature above 0.5: a
    network fitted with the cross-entropy plays it on fresh inputs far more often than chance."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    train_rows, fresh = _rule_teacher(rng, 4000), _rule_teacher(rng, 1000)
    network = build_q_network(8, 8, [64])
    history = fit_demonstrations(network, CloneLoss(train_rows, 1.0), epochs=30, batch_size=128,
                                 learning_rate=3e-3, log=lambda _: None)
    assert history[-1]["loss"] < history[0]["loss"] and history[-1]["accuracy"] > 0.8
    greedy = greedy_policy(network).act_batch(fresh.observations, fresh.masks)
    chance = float(np.mean(1.0 / fresh.masks.sum(axis=1)))
    assert np.mean(greedy == fresh.actions) > max(0.8, chance + 0.4)


def _random_layers(rng: np.random.Generator, widths: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(rng.normal(size=(a, b)).astype(np.float32), rng.normal(size=b).astype(np.float32))
            for a, b in zip(widths[:-1], widths[1:])]


def test_sum_of_networks_outputs_the_weighted_sum() -> None:
    """Two tanh MLPs of different widths (6 -> 5 -> 3 -> 4 and 6 -> 2 -> 7 -> 4), each run on
    its own, against the one merged MLP: its logits are the first's plus 0.3 times the second's,
    and its hidden widths are the sums (7 and 10)."""
    rng = np.random.default_rng(0)
    first, second = _random_layers(rng, [6, 5, 3, 4]), _random_layers(rng, [6, 2, 7, 4])
    merged = NumpyPolicy.from_layers(sum_of_networks(first, second, 0.3))
    x = rng.normal(size=(20, 6)).astype(np.float32)
    expected = NumpyPolicy.from_layers(first).logits(x) + 0.3 * NumpyPolicy.from_layers(second).logits(x)
    np.testing.assert_allclose(merged.logits(x), expected, rtol=1e-5, atol=1e-5)
    assert merged.widths == [7, 10]
    with pytest.raises(ValueError, match="at least its action head"):
        NumpyPolicy.from_layers([])
    with pytest.raises(ValueError, match="differ in depth"):
        sum_of_networks(first, _random_layers(rng, [6, 3, 4]), 1.0)
    with pytest.raises(ValueError, match="map 6 -> 4 and 6 -> 5"):
        sum_of_networks(first, _random_layers(rng, [6, 2, 7, 5]), 1.0)


def test_acting_scores_add_the_weighted_prior_and_save_as_one_policy() -> None:
    """The scores are Q plus the weight times the prior's logits; the saved policy computes the
    same numbers, so its greedy moves are the learner's. Without a prior they are Q alone."""
    torch.manual_seed(0)
    network, prior = build_q_network(5, 3, [8, 4]), build_q_network(5, 3, [8, 4])
    x = np.random.default_rng(1).normal(size=(30, 5)).astype(np.float32)
    with torch.no_grad():
        q, logits = network(torch.as_tensor(x)).numpy(), prior(torch.as_tensor(x)).numpy()
    scores = ActingScores(network, prior, 2.5)
    np.testing.assert_allclose(scores(x), q + 2.5 * logits, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(scores.policy().logits(x), q + 2.5 * logits, rtol=1e-4, atol=1e-4)
    masks = np.ones((30, 3), bool)
    assert np.array_equal(scores.policy().act_batch(x, masks), (q + 2.5 * logits).argmax(axis=1))
    np.testing.assert_allclose(ActingScores(network)(x), q, rtol=1e-6)


@pytest.mark.parametrize("dmc_start", ["prior", "fit"])
def test_train_dmc_can_start_from_a_teacher(tmp_path: Path, dmc_start: str) -> None:
    """``--algo dmc --imitation-games N --timesteps 0``: the run starts from the teacher's games
    and is saved as it is; the run folder records the fit and the sidecar names the teacher.
    With a prior the saved MLP has both halves (twice the widths), the Q half's head is zero
    (the first moves are the prior's), and the sidecar gives the prior's weight."""
    out = tmp_path / "run"
    path = _config(tmp_path, {"imitation": {"opponents": "random", "epochs": 2, "workers": 1,
                                            "dmc_start": dmc_start},
                              "dmc": {"net_arch": [16]}})
    overrides = Overrides(algo="dmc", timesteps=0, opponents="random", n_envs=8, eval_games=4,
                          imitation_games=4, imitation_teacher="heuristic")
    result = train("red7_v0", resolve_config("red7_v0", path, overrides), seed=0, out=out, progress=False,
                   log=lambda _: None)
    assert result.timesteps == 0
    rows = (out / "imitation.csv").read_text().splitlines()
    assert rows[0] == "epoch,decisions,loss,heldout_accuracy,seconds" and len(rows) == 3
    summary = json.loads((out / "summary.json").read_text())
    assert summary["timesteps"] == 0 and summary["imitation_s"] > 0 and summary["updates"] == 0
    sidecar = json.loads((out / "model.json").read_text())
    assert sidecar["imitation"] == {"games": 4, "teacher": "heuristic", "opponents": "random"}
    assert sidecar["algo"] == "dmc"
    assert (out / "eval.csv").read_text().splitlines()[1].startswith("0,")
    fitted = np.load(out / "checkpoints" / "model_0_steps.npz")  # the start is kept as a checkpoint
    model = np.load(out / "model.npz")
    assert all(np.array_equal(fitted[key], value) for key, value in model.items())
    if dmc_start == "prior":
        assert sidecar["layers"] == [32] and sidecar["prior_weight"] > 0
        assert not model["action_w"][:16].any() and model["action_w"][16:].any()
    else:
        assert sidecar["layers"] == [16] and "prior_weight" not in sidecar


def test_train_dmc_keeps_the_prior_frozen(tmp_path: Path) -> None:
    """After Monte-Carlo updates the prior's half of the saved MLP is still the step-0 one, and
    only the Q half has moved."""
    out = tmp_path / "run"
    path = _config(tmp_path, {"imitation": {"opponents": "random", "epochs": 1, "workers": 1},
                              "dmc": {"net_arch": [8], "batch_size": 64}})
    overrides = Overrides(algo="dmc", timesteps=2048, opponents="random", n_envs=16, eval_games=4,
                          imitation_games=2, imitation_teacher="heuristic")
    train("gongzhu_v0", resolve_config("gongzhu_v0", path, overrides), seed=0, out=out, progress=False,
          log=lambda _: None)
    start, end = np.load(out / "checkpoints" / "model_0_steps.npz"), np.load(out / "model.npz")
    assert json.loads((out / "summary.json").read_text())["updates"] > 0
    for key, prior_half in (("w0", np.s_[:, 8:]), ("b0", np.s_[8:]), ("action_w", np.s_[8:])):
        assert np.array_equal(start[key][prior_half], end[key][prior_half])
    assert not np.array_equal(start["w0"][:, :8], end["w0"][:, :8]) and end["action_w"][:8].any()
    assert not np.array_equal(start["action_b"], end["action_b"])  # the Q half's bias has moved


def test_q_taken_equals_the_full_heads_column() -> None:
    """The gathered Q of each row's action is the full forward pass's value at that action."""
    torch.manual_seed(0)
    network = build_q_network(7, 300, [16, 8])
    obs = torch.randn(32, 7)
    actions = torch.randint(0, 300, (32,))
    full = network(obs).gather(1, actions[:, None])[:, 0]
    assert torch.allclose(q_taken(network, obs, actions), full, atol=1e-6)


def test_greedy_policy_is_the_network_in_numpy() -> None:
    """The exported greedy policy computes the network's Q values (its logits) in numpy."""
    torch.manual_seed(1)
    network = build_q_network(5, 9, [12])
    obs = np.random.default_rng(0).normal(size=(10, 5)).astype(np.float32)
    policy = greedy_policy(network)
    assert isinstance(policy, NumpyPolicy) and policy.widths == [12]
    expected = network(torch.as_tensor(obs)).detach().numpy()
    assert np.allclose(policy.logits(obs), expected, atol=1e-5)


def test_dmc_updates_fit_the_mean_return_of_each_action() -> None:
    """Returns drawn with a known mean per (observation, action): after the updates each Q is
    close to its mean, so the greedy action is the best one in each observation."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    means = np.array([[0.0, 0.5, -0.5, 1.0], [1.0, -1.0, 0.25, 0.0]])  # best: action 3, then action 0
    network = build_q_network(2, 4, [16])
    optimizer = torch.optim.Adam(network.parameters(), lr=0.01)
    for _ in range(400):
        kinds = rng.integers(0, 2, 256)
        actions = rng.integers(0, 4, 256)
        returns = means[kinds, actions] + rng.normal(0.0, 0.3, 256)
        dmc_update(network, optimizer, (np.eye(2, dtype=np.float32)[kinds], actions, returns), 40.0)
    q = network(torch.eye(2)).detach().numpy()
    assert np.abs(q - means).max() < 0.1
    assert q.argmax(axis=1).tolist() == [3, 0]


def test_epsilon_zero_plays_the_largest_legal_q() -> None:
    """With epsilon 0 every row plays its legal action of largest Q, even when an illegal one is larger."""
    q = np.array([[5.0, 1.0, 2.0], [0.0, 3.0, -1.0], [9.0, 9.5, -4.0]])
    masks = np.array([[False, True, True], [True, False, True], [True, False, True]])
    actions = epsilon_greedy(q, masks, 0.0, np.random.default_rng(0))
    assert actions.tolist() == [2, 0, 0]


def test_epsilon_one_plays_uniformly_among_legal_actions() -> None:
    """With epsilon 1 the Q values are ignored: each legal action about equally often, no illegal one."""
    rows = 6000
    q = np.tile(np.array([100.0, 0.0, 0.0, 0.0]), (rows, 1))
    masks = np.tile(np.array([True, True, False, True]), (rows, 1))
    actions = epsilon_greedy(q, masks, 1.0, np.random.default_rng(0))
    counts = np.bincount(actions, minlength=4)
    assert counts[2] == 0
    assert all(abs(c / rows - 1 / 3) < 0.03 for c in counts[[0, 1, 3]])


def test_epsilon_explores_about_that_share_of_rows() -> None:
    """With epsilon 0.2 about a fifth of the rows draw a random legal action (two legal actions,
    so about a tenth of the rows leave the greedy one)."""
    rows = 20000
    q = np.tile(np.array([1.0, 0.0]), (rows, 1))
    masks = np.ones((rows, 2), dtype=bool)
    actions = epsilon_greedy(q, masks, 0.2, np.random.default_rng(3))
    assert abs(actions.mean() - 0.1) < 0.01


def test_epsilon_greedy_refuses_a_row_without_legal_actions() -> None:
    with pytest.raises(ValueError, match="legal action"):
        epsilon_greedy(np.zeros((2, 3)), np.array([[True, False, False], [False, False, False]]), 0.0,
                       np.random.default_rng(0))


def test_sample_queue_is_first_in_first_out() -> None:
    queue = SampleQueue()
    queue.put((np.arange(3)[:, None] * 1.0, np.arange(3), np.arange(3) * 10.0))
    queue.put((np.arange(3, 5)[:, None] * 1.0, np.arange(3, 5), np.arange(3, 5) * 10.0))
    assert queue.size == 5
    obs, actions, returns = queue.take(4)
    assert actions.tolist() == [0, 1, 2, 3] and returns.tolist() == [0.0, 10.0, 20.0, 30.0]
    assert obs[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert queue.size == 1
    with pytest.raises(ValueError, match="only 1"):
        queue.take(2)
    assert queue.take(1)[1].tolist() == [4]


@pytest.mark.parametrize("name", ["gongzhu_v0", "red7_v0", "haggle_v0"])
def test_episode_store_returns_are_the_episodes_returns(name: str) -> None:
    """Every finished game hands out exactly its learner decisions, in order, and the first
    decision's return (gamma 1) is the episode return the env reports; each later return is the
    first minus the rewards before it."""
    n = 8
    env = SB3BatchedEnv(name, num_envs=n, opponents="random", seed=5)
    store = EpisodeStore(n, 1.0)
    rng = np.random.default_rng(0)
    obs = env.reset()
    seen: list[list[tuple[np.ndarray, int, float]]] = [[] for _ in range(n)]
    checked = 0
    for _ in range(300):
        actions = random_legal(env.action_masks(), rng)
        following, rewards, dones, infos = env.step(actions)
        for i in range(n):
            seen[i].append((obs[i].copy(), int(actions[i]), float(rewards[i])))
        finished = store.add(obs, actions, rewards, dones)
        if finished is not None:
            got_obs, got_actions, got_returns = finished
            offset = 0
            for i in np.flatnonzero(dones):
                episode = seen[i]
                length = infos[i]["episode"]["l"]
                assert len(episode) == length
                part = slice(offset, offset + length)
                assert got_actions[part].tolist() == [a for _, a, _ in episode]
                assert np.array_equal(got_obs[part], np.stack([o for o, _, _ in episode]))
                assert got_returns[offset] == pytest.approx(infos[i]["episode"]["r"])
                before = np.cumsum([0.0] + [r for _, _, r in episode[:-1]])
                assert np.allclose(got_returns[part], got_returns[offset] - before)
                offset += length
                seen[i] = []
                checked += 1
            assert offset == len(got_actions)
        obs = following
    assert checked >= n


def test_dmc_config_checks() -> None:
    base = load_config("gongzhu")
    validate_config({**base, "algo": "dmc", "engine": "vector"})
    with pytest.raises(ValueError, match="algo must be one of"):
        validate_config({**base, "algo": "dqn"})
    with pytest.raises(ValueError, match="engine vector"):
        validate_config({**base, "algo": "dmc", "engine": "aec"})
    validate_config({**base, "algo": "dmc", "engine": "vector", "imitation": {"games": 10, "margin": 0.0}})
    with pytest.raises(ValueError, match="imitation.anchor"):
        validate_config({**base, "imitation": {"anchor": -0.5}})
    validate_config({**base, "imitation": {"dmc_start": "fit", "prior_weight": 0.0}})
    with pytest.raises(ValueError, match="imitation.dmc_start must be one of"):
        validate_config({**base, "imitation": {"dmc_start": "q"}})
    with pytest.raises(ValueError, match="imitation.prior_weight"):
        validate_config({**base, "imitation": {"prior_weight": -0.1}})
    with pytest.raises(ValueError, match="imitation.margin"):
        validate_config({**base, "algo": "dmc", "engine": "vector", "imitation": {"games": 10, "margin": -1}})
    with pytest.raises(ValueError, match="dmc.epsilon"):
        validate_config({**base, "dmc": {**base["dmc"], "epsilon": 1.5}})
    with pytest.raises(ValueError, match="unknown dmc setting 'lr'"):
        validate_config({**base, "dmc": {"lr": 0.1}})
    with pytest.raises(ValueError, match="dmc.net_arch"):
        validate_config({**base, "dmc": {"net_arch": []}})


def test_train_dmc_writes_a_playable_run(tmp_path: Path) -> None:
    """A short self-play DMC run: the run folder, the throughput split, snapshots that joined
    the pool, and a model.npz that loads as an agent, plays batched and exports."""
    out = tmp_path / "run"
    path = _config(tmp_path, {"selfplay": {"snapshot_every": 1000}, "checkpoint_every": 2000,
                              "dmc": {"batch_size": 64, "net_arch": [32]}})
    overrides = Overrides(algo="dmc", timesteps=3000, opponents="selfplay", n_envs=32, eval_games=4)
    result = train("gongzhu_v0", resolve_config("gongzhu_v0", path, overrides), seed=0, out=out,
                   progress=False, log=lambda _: None)
    assert result.model_path == out / "model.npz" and result.timesteps >= 3000
    summary = json.loads((out / "summary.json").read_text())
    assert summary["algo"] == "dmc" and summary["engine"] == "vector" and summary["n_envs"] == 32
    assert summary["updates"] > 0
    assert summary["rollout_s"] + summary["update_s"] == pytest.approx(summary["train_s"], abs=0.02)
    assert summary["env_steps"] >= 4 * summary["timesteps"] - 4 * 32  # three opponents move per learner move
    assert [e["opponent"] for e in summary["final_evaluations"]] == ["random", "heuristic"]
    assert len(list((out / "snapshots").glob("*.npz"))) == 3
    assert list((out / "checkpoints").glob("*.npz"))
    assert (out / "learning_curve.png").is_file()
    config = json.loads((out / "config.json").read_text())
    assert config["algo"] == "dmc" and config["dmc"]["net_arch"] == [32]
    rows = (out / "eval.csv").read_text().splitlines()
    assert rows[0].startswith("timesteps,") and len(rows) >= 3

    env = load("gongzhu_v0").env()
    agent = make_agent(str(out), env)
    assert isinstance(agent, NumpyPolicy) and agent.name == "run" and agent.widths == [32]
    batched = batch_policy(str(out / "snapshots" / "snapshot_1024.npz"), env.unwrapped)
    assert hasattr(batched, "act_batch")
    match = evaluate("gongzhu_v0", agent, "random", games=4, seed=0)
    assert match.games == 4
    npz, sidecar = export_policy(out, tmp_path / "shipped", command="cardgames train gongzhu_v0 --algo dmc")
    meta = json.loads(sidecar.read_text())
    assert meta["command"] == "cardgames train gongzhu_v0 --algo dmc" and meta["algo"] == "dmc"
    assert meta["layers"] == [32] and meta["env"] == "gongzhu_v0"
    assert np.array_equal(np.load(npz)["action_w"], np.load(out / "model.npz")["action_w"])


def test_an_exported_policy_of_another_env_is_refused(tmp_path: Path) -> None:
    """A policy file names its env: another env's agent spec is a ValueError naming both."""
    red7 = load("red7_v0").raw_env()
    layers = network_layers(build_q_network(red7.encoding.observation_size, red7.encoding.num_actions, [3]))
    write_policy(tmp_path / "red7", layers, red7, timesteps=0)
    with pytest.raises(ValueError, match="trained for red7_v0, not gongzhu_v0"):
        make_agent(str(tmp_path / "red7.npz"), load("gongzhu_v0").env())
    with pytest.raises(ValueError, match="no exported policy"):
        load_exported(tmp_path / "missing.npz", load("red7_v0").env())
    assert isinstance(make_agent(str(tmp_path / "red7.npz"), load("red7_v0").env()), NumpyPolicy)


def _config(folder: Path, overrides: dict) -> Path:
    path = folder / "config.json"
    path.write_text(json.dumps(overrides))
    return path
