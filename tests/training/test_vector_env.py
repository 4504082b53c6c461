"""The batched SB3 VecEnv (a layer over ``CardGamesVectorEnv``): learner seats, batched
opponents, reward bookkeeping, MaskablePPO."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed (the 'train' extra)")

from cardgames_env import vector  # noqa: E402
from cardgames_env.agents.batch import AgentBatch, RandomBatch, batch_policy, random_legal  # noqa: E402
from cardgames_env.agents.pool import OpponentPool  # noqa: E402
from cardgames_env.registry import load  # noqa: E402
from cardgames_env.training.sb3_vec_env import SB3BatchedEnv  # noqa: E402

ENGINES = vector.available()
SHORT = {"haggis_v0": {"target_score": 50}}
"""Options that make a game short enough for a few hundred learner steps to finish several."""


StepRecord = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _record_engine_steps(env: SB3BatchedEnv) -> list[StepRecord]:
    """Make ``env.engine.step`` log (slots where the learner's seat moved, moving slots, learner
    seats, rewards, done) per call."""
    log: list[StepRecord] = []
    engine = env.engine
    step = engine.step

    def logged(actions, active=None):  # type: ignore[no-untyped-def]
        seats = env.venv.seat.copy()
        learner = engine.player == seats
        result = step(actions, active)
        moving = np.ones(engine.num_envs, dtype=bool) if active is None else active.copy()
        log.append((learner & moving, moving, seats, engine.rewards.copy(), engine.done.copy()))
        return result

    engine.step = logged  # type: ignore[method-assign]
    return log


@pytest.mark.parametrize("name", ENGINES)
def test_episode_returns_are_the_learner_seat_rewards_of_its_game(name: str) -> None:
    """Summing the engine's rewards of the learner's seat over each game (the test's own
    bookkeeping over every engine step) gives exactly the episodes the env reports, and the
    per-step rewards add up to the same totals."""
    env = SB3BatchedEnv(name, num_envs=6, options=SHORT.get(name), opponents="random", seed=3)
    log = _record_engine_steps(env)
    env.reset()
    rng = np.random.default_rng(0)
    reported: list[list[float]] = [[] for _ in range(6)]
    for _ in range(400):
        actions = random_legal(env.action_masks(), rng)
        obs, rewards, dones, infos = env.step(actions)
        for i in np.flatnonzero(dones):
            reported[i].append(infos[i]["episode"]["r"])
    expected: list[list[float]] = [[] for _ in range(6)]
    running = np.zeros(6)
    learner_moved = np.zeros(6, dtype=bool)
    for learner_step, moving, seats, rewards, done in log:
        for i in np.flatnonzero(moving):
            running[i] += rewards[i, seats[i]]
            learner_moved[i] |= learner_step[i]
            if done[i]:
                if learner_moved[i]:  # a game the learner never moved in is no episode of its
                    expected[i].append(running[i])
                running[i] = 0.0
                learner_moved[i] = False
    for i in range(6):
        assert reported[i], "every slot finished games"
        assert np.allclose(reported[i], expected[i][: len(reported[i])], atol=1e-9)


@pytest.mark.parametrize("name", ENGINES)
def test_the_learner_is_to_move_in_every_slot(name: str) -> None:
    for seat in range(load(name).raw_env().encoding.num_players):
        env = SB3BatchedEnv(name, num_envs=4, opponents="random", learner_seat=seat, seed=seat)
        env.reset()
        rng = np.random.default_rng(seat)
        for _ in range(50):
            assert np.all(env.engine.player == seat)
            assert env.action_masks().any(axis=1).all()
            env.step(random_legal(env.action_masks(), rng))
    env = SB3BatchedEnv(name, num_envs=64, opponents="random", seed=1)
    env.reset()
    assert set(env.venv.seat.tolist()) == set(range(env.engine.num_players)), "seats drawn per game"


def test_bad_arguments_are_refused() -> None:
    name = ENGINES[0]
    for seat in (-1, 99, True, 1.5):
        with pytest.raises(ValueError, match="learner_seat"):
            SB3BatchedEnv(name, num_envs=2, learner_seat=seat)
    with pytest.raises(ValueError):
        SB3BatchedEnv(name, num_envs=2, opponents="nobody")
    env = SB3BatchedEnv(name, num_envs=2, seed=0)
    env.reset()
    illegal = np.array([int(np.flatnonzero(~row)[0]) for row in env.action_masks()])
    before = env.engine.obs.copy()
    with pytest.raises(ValueError, match="not legal"):
        env.step(illegal)
    assert np.array_equal(env.engine.obs, before)


def test_it_is_built_without_warnings_and_renders_nothing() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SB3 warns when an env lacks render_mode
        env = SB3BatchedEnv(ENGINES[0], num_envs=2, seed=0)
    assert env.render_mode is None and env.get_attr("render_mode") == [None, None]


def test_random_legal_is_uniform_over_legal_actions() -> None:
    masks = np.zeros((20_000, 6), dtype=bool)
    masks[:, [1, 3, 4]] = True
    actions = random_legal(masks, np.random.default_rng(0))
    counts = np.bincount(actions, minlength=6)
    assert counts[[0, 2, 5]].sum() == 0
    assert np.all(np.abs(counts[[1, 3, 4]] / 20_000 - 1 / 3) < 0.02)
    # Rows of different widths: each row's own legal actions, uniformly.
    masks = np.zeros((30_000, 5), dtype=bool)
    masks[0::3, 4] = True
    masks[1::3, [0, 2]] = True
    masks[2::3, :] = True
    actions = random_legal(masks, np.random.default_rng(1))
    assert set(actions[0::3]) == {4}
    assert abs(np.mean(actions[1::3] == 0) - 1 / 2) < 0.02 and set(actions[1::3]) == {0, 2}
    assert np.all(np.abs(np.bincount(actions[2::3], minlength=5) / 10_000 - 1 / 5) < 0.02)
    masks[7] = False
    with pytest.raises(ValueError, match="needs a legal action"):
        random_legal(masks, np.random.default_rng(1))


@pytest.mark.parametrize("name", ENGINES)
def test_every_heuristic_decides_a_batch_as_it_decides_each_row(name: str) -> None:
    """Each game's heuristic decides a whole batch in one call (``act_batch``), playing exactly
    what row-by-row play (``act``) plays, its random tie-breaks included."""
    probe = load(name).raw_env(**SHORT.get(name, {}))
    batched, single = (batch_policy("heuristic", probe, seed=7) for _ in range(2))
    assert not isinstance(batched, AgentBatch)
    engine = vector.make(name, num_envs=64, seed=2, **SHORT.get(name, {}))
    rng = np.random.default_rng(0)
    keys = np.arange(64)
    for _ in range(40):
        actions = batched.act_batch(engine.obs, engine.mask, keys)
        assert engine.mask[np.arange(64), actions].all()
        rows = zip(engine.obs, engine.mask, keys)
        alone = [single.act_batch(o[None], m[None], k[None])[0] for o, m, k in rows]
        assert actions.tolist() == alone
        engine.step(np.where(rng.random(64) < 0.5, actions, random_legal(engine.mask, rng)))
    assert isinstance(batch_policy("random", probe), RandomBatch)


class _CountingAgent:
    """Plays its ``n``-th legal action at its ``n``-th decision of a game: a player whose moves
    depend on what it did before in the game."""

    keeps_game_state = True

    def __init__(self) -> None:
        self.decisions = 0

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        self.decisions += 1
        return int(legal[(self.decisions - 1) % legal.size])

    def reset(self, seed: int | None = None) -> None:
        self.decisions = 0


def test_a_row_by_row_agent_that_remembers_its_game_gets_one_copy_per_game_seat() -> None:
    policy = AgentBatch(_CountingAgent())  # type: ignore[arg-type]
    assert policy.per_seat
    masks = np.ones((2, 5), dtype=bool)
    observations = np.zeros((2, 3))
    first = policy.act_batch(observations, masks, np.array([7, 9]))
    second = policy.act_batch(observations[:1], masks[:1], np.array([7]))
    third = policy.act_batch(observations, masks, np.array([7, 9]))
    assert first.tolist() == [0, 0] and second.tolist() == [1] and third.tolist() == [2, 1]
    policy.end_games(np.array([7]))
    assert policy.act_batch(observations, masks, np.array([7, 9])).tolist() == [0, 2]
    with pytest.raises(ValueError, match="pass keys"):
        policy.act_batch(observations, masks)


def test_an_opponent_that_remembers_its_game_keeps_one_plan_per_game_seat() -> None:
    """The Haggis heuristic plans a play, then selects its cards over several decisions: in
    the batched env each game seat's decisions must follow that seat's plan, as in a game of
    its own, and a finished game's plans are forgotten."""
    from cardgames_env.agents.base import make_agent
    from cardgames_env.envs.haggis.heuristic import HaggisHeuristic

    name = "haggis_v0"
    env = SB3BatchedEnv(name, num_envs=6, options=SHORT[name], opponents="heuristic", seed=4)
    policy = env.venv.policy("heuristic")
    assert isinstance(policy, HaggisHeuristic)  # batched itself: one plan per key
    calls: list[tuple] = []
    act_batch, end_games = policy.act_batch, policy.end_games

    def spy_act(observations, masks, keys=None):  # type: ignore[no-untyped-def]
        actions = act_batch(observations, masks, keys)
        calls.append(("act", observations.copy(), masks.copy(), keys.copy(), actions.copy()))
        return actions

    def spy_end(keys):  # type: ignore[no-untyped-def]
        calls.append(("end", keys.copy()))
        end_games(keys)

    policy.act_batch, policy.end_games = spy_act, spy_end  # type: ignore[method-assign]
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(300):
        env.step(random_legal(env.action_masks(), rng))
    assert sum(call[0] == "end" for call in calls) > 2  # games ended and restarted in slots

    probe = load(name).raw_env(**SHORT[name])
    own: dict[int, object] = {}  # an independent heuristic per game seat, replaying its decisions
    decisions = 0
    for call in calls:
        if call[0] == "end":
            for key in call[1]:
                own.pop(int(key), None)
            continue
        _, observations, masks, keys, actions = call
        for obs, mask, key, action in zip(observations, masks, keys, actions):
            agent = own.setdefault(int(key), make_agent("heuristic", probe, seed=0))
            assert agent.act(obs, mask) == action  # type: ignore[attr-defined]
            decisions += 1
    assert decisions > 500


def test_agents_that_read_the_env_state_play_batched_on_each_rows_state() -> None:
    """A search opponent reads each row's rules state (``StateBatch``) and plays legal moves,
    one agent per game seat; a Haggis search agent keeps its planned card selections."""
    from cardgames_env.agents.batch import StateBatch

    probe = load("jaipur_v0").raw_env()
    assert isinstance(batch_policy("search:iterations=8", probe, seed=0), StateBatch)
    for name in ("jaipur_v0", "haggis_v0"):
        env = SB3BatchedEnv(
            name, num_envs=3, options=SHORT.get(name), opponents="search:iterations=8", seed=1
        )
        env.reset()
        rng = np.random.default_rng(0)
        for _ in range(12):
            env.step(random_legal(env.action_masks(), rng))  # an illegal opponent move would raise
        assert env.env_steps > 3 * 12
    with pytest.raises(ValueError, match="keeps state within a game"):
        batch_policy("heuristic", load("haggis_v0").raw_env()).act_batch(
            np.zeros((1, 287)), np.ones((1, 45), dtype=bool)
        )


@pytest.mark.parametrize("name", ENGINES)
def test_maskable_ppo_learns_on_it_and_snapshots_join_the_pool(name: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from sb3_contrib import MaskablePPO

    from cardgames_env.agents.model import ModelAgent, write_sidecar

    pool = OpponentPool(base=("random",), sampling="latest", snapshot_prob=1.0)
    env = SB3BatchedEnv(name, num_envs=16, opponents=pool, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    model.learn(total_timesteps=256)
    path = tmp_path / "snap.zip"
    model.save(str(path))
    write_sidecar(path, env.probe)
    env.env_method("add_opponent", str(path))
    assert pool.snapshots == [str(path)], "one snapshot joins, whatever the number of slots"
    env.reset()  # new games in every slot draw their opponents from the pool again
    assert str(path) in env.venv.opponents, "games now draw the snapshot"
    model.learn(total_timesteps=256, reset_num_timesteps=False)  # the snapshot plays in batch
    agent = ModelAgent.load(path, env=env.probe)
    batch = agent.act_batch(env.engine.obs, env.engine.mask)
    single = [agent.act(o, m) for o, m in zip(env.engine.obs, env.engine.mask)]
    assert batch.tolist() == single, "one forward pass plays what row-by-row play does"


PINNED_ROLLOUTS = [
    ("gongzhu_v0", "random", None, 0, "38724633784049b1", 184, 9612),
    ("gongzhu_v0", "heuristic", 1, 3, "c8dfe7867886bcea", 184, 9613),
    ("gongzhu_v0", "pool", None, 5, "5f0a19c8b4cc38b9", 184, 9614),
    ("jaipur_v0", "random", None, 0, "5f7398062ba6365d", 22, 4808),
    ("jaipur_v0", "heuristic", 1, 3, "fbed216166d7d1bf", 46, 4805),
    ("jaipur_v0", "pool", None, 5, "f237faa19b1cdb3c", 28, 4804),
    ("red7_v0", "random", None, 0, "b4c48e57ec8be86d", 777, 4769),
    ("red7_v0", "heuristic", 1, 3, "b0a504f41e4e29a9", 617, 4586),
    ("red7_v0", "pool", None, 5, "86f49fd7ec9861bf", 699, 4696),
    ("haggis_v0", "random", None, 0, "344dd2c8797d1176", 0, 4710),
    ("haggis_v0", "heuristic", 1, 3, "c2cdf8a55b1daf63", 8, 5166),
    ("haggis_v0", "pool", None, 5, "ed4f1a86b15df91e", 2, 4909),
    ("haggle_v0", "random", None, 0, "8306d3260efbc85e", 117, 9474),
    ("haggle_v0", "heuristic", 1, 3, "33d1100d00285732", 120, 9116),
    ("haggle_v0", "pool", None, 5, "8a7c49d40f3fbce7", 122, 9118),
]
"""(env, opponents, learner seat, seed, digest, episodes, env steps) of :func:`_rollout_digest`,
recorded with an independent implementation of the SB3 VecEnv's learner/opponent bookkeeping
(one that did not go through ``CardGamesVectorEnv``): the layer must reproduce its runs exactly."""
PINNED_PPO = {"red7_v0": (28.446998446, 2933), "gongzhu_v0": (31.918434669, 6169)}
"""Sum of the MaskablePPO parameters and env steps after the short run of
:func:`test_maskable_ppo_trains_to_the_reference_parameters`, recorded likewise."""


def _rollout_digest(name: str, opponents: str, seat: int | None, seed: int) -> tuple[str, int, int]:
    """SHA-256 (16 hex digits) of 300 steps of 8 slots with seeded random learner actions:
    observations, rewards, dones and each finished episode's slot, return and length."""
    import hashlib

    spec = OpponentPool(base=("random", "heuristic")) if opponents == "pool" else opponents
    env = SB3BatchedEnv(name, 8, {}, opponents=spec, learner_seat=seat, seed=seed)
    env.seed(seed)
    obs = env.reset()
    digest = hashlib.sha256(obs.tobytes())
    rng = np.random.default_rng(seed + 1)
    episodes = 0
    for _ in range(300):
        obs, rewards, dones, infos = env.step(random_legal(env.action_masks(), rng))
        digest.update(obs.tobytes())
        digest.update(rewards.tobytes())
        digest.update(dones.tobytes())
        for i in np.flatnonzero(dones):
            digest.update(repr((i, infos[i]["episode"]["r"], infos[i]["episode"]["l"])).encode())
            episodes += 1
    return digest.hexdigest()[:16], episodes, int(env.env_steps)


@pytest.mark.parametrize(
    ("name", "opponents", "seat", "seed", "digest", "episodes", "env_steps"), PINNED_ROLLOUTS
)
def test_the_layer_reproduces_the_reference_rollouts(
    name: str, opponents: str, seat: int | None, seed: int, digest: str, episodes: int, env_steps: int
) -> None:
    assert _rollout_digest(name, opponents, seat, seed) == (digest, episodes, env_steps)


FLOAT32_ROUNDOFF = 2.0**-24
"""Unit roundoff of float32, the dtype of the policy's parameters and of every product in it."""


def _reduction_order_tolerance(
    parameters: int, longest_reduction: int, optimiser_steps: int, learning_rate: float
) -> float:
    """How far the sum of a MaskablePPO policy's parameters may move between two correct CPUs.

    The maths library (MKL, OpenBLAS; its AVX2, AVX-512 or "compatible" code path) sums the
    terms of every matrix product in an order of its own. Two orders of an ``n``-term float32 sum
    differ by at most ``n * u`` of the sum of the terms' magnitudes (``u = 2**-24``; Higham,
    *Accuracy and Stability of Numerical Algorithms*, section 4.2), so ``n`` is the longest
    reduction of the network's forward and backward passes (the observation size, the action
    count or the minibatch). Adam moves a parameter by at most ``lr * (1 - b1) / sqrt(1 - b2)``
    (``3.16 * lr`` at SB3's ``b1 = 0.9``, ``b2 = 0.999``) per step, and a relative error ``e`` of
    the gradient changes that step by at most ``2 e`` of it (the first and second moments each
    carry ``e``); over ``T`` steps one parameter ends within ``T * 2 n u * 3.16 lr`` of the other
    CPU's. The ``N`` parameters' differences come from different reductions: taken as independent
    and centred, their sum moves by less than three standard deviations, ``3 sqrt(N)`` times one
    parameter's bound. (A model of the first-order effect, not a proof: later gradients also see
    the earlier differences.)

    For Red7 this is 0.010 (N = 243,112, n = 2,599 actions, T = 24, lr = 3e-4); the sums from
    MKL's default, ``MKL_CBWR=AVX2``, ``=AVX512`` and ``=COMPATIBLE`` paths lie within 2.6e-5 of
    each other, and the bugs this test is for move the sum by 0.2 (an observation column zeroed)
    to 6 (negative rewards dropped).
    """
    adam_step = learning_rate * (1 - 0.9) / (1 - 0.999) ** 0.5
    one_parameter = optimiser_steps * 2 * longest_reduction * FLOAT32_ROUNDOFF * adam_step
    return 3 * parameters**0.5 * one_parameter


@pytest.mark.parametrize("name", sorted(PINNED_PPO))
def test_maskable_ppo_trains_to_the_reference_parameters(name: str) -> None:
    """Three MaskablePPO rollouts and updates (seed 0, heuristic opponents, torch on one thread)
    take exactly the reference run's env steps (the games played: integers, equal on every CPU
    unless a sampled action sits on a float boundary) and end with a parameter sum within
    :func:`_reduction_order_tolerance` of the reference's: the float sum depends on the maths
    library's reduction order, which differs between CPUs."""
    import torch
    from sb3_contrib import MaskablePPO

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    num_envs, n_steps, batch_size, n_epochs, rollouts = 16, 32, 128, 2, 3
    try:
        env = SB3BatchedEnv(name, num_envs, {}, opponents="heuristic", seed=0)
        model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=batch_size, n_epochs=n_epochs,
                            seed=0, device="cpu", policy_kwargs={"net_arch": [64, 64]})
        model.learn(total_timesteps=num_envs * n_steps * rollouts)
    finally:
        torch.set_num_threads(threads)
    parameters = list(model.policy.parameters())
    total = float(sum(p.detach().double().sum() for p in parameters))
    expected, env_steps = PINNED_PPO[name]
    assert env.env_steps == env_steps
    longest = max(env.observation_space.shape[0], int(env.action_space.n), batch_size)
    steps = rollouts * n_epochs * (num_envs * n_steps // batch_size)
    tolerance = _reduction_order_tolerance(sum(p.numel() for p in parameters), longest, steps,
                                           float(model.learning_rate))
    assert abs(total - expected) <= tolerance, (total, expected, tolerance)
