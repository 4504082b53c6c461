"""CardGamesVectorEnv against SingleAgentEnv (the reference), seeding, bad input, registration."""

from __future__ import annotations

import zlib
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import cardgames_env  # noqa: F401  (registers the envs)
from cardgames_env.agents.batch import random_legal
from cardgames_env.agents.pool import OpponentPool
from cardgames_env.registry import ALL_ENVS, load
from cardgames_env.wrappers.single_agent import SingleAgentEnv
from cardgames_env.wrappers.vector_env import CardGamesVectorEnv

VARIANTS = [
    pytest.param(name, options, id=f"{name}[{','.join(f'{k}={v}' for k, v in options.items()) or 'default'}]")
    for name in ALL_ENVS
    for options in load(name).TEST_VARIANTS
]
CUT = {"red7_v0": 9, "gongzhu_v0": 30, "jaipur_v0": 25, "haggis_v0": 40, "haggle_v0": 12}
"""A turn limit that cuts many games of each env (``max_steps``)."""


class HashPlayer:
    """A deterministic opponent: the legal action picked by a hash of the observation bytes, so
    two envs agree on its moves exactly when they show it the same observations."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[zlib.crc32(np.asarray(observation, dtype=np.float32).tobytes()) % legal.size])

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset."""


def _game_over(raw: Any) -> bool:
    return not raw.agents or all(raw.terminations[a] or raw.truncations[a] for a in raw.agents)


def _compare_episodes(name: str, options: dict[str, Any], mode: AutoresetMode, episodes: int) -> int:
    """Play learner episodes from the same positions in slot 1 of the vector env and in a
    SingleAgentEnv (at least ``episodes``, and on until 20 learner steps were compared, at most
    10 times more); assert equal transitions; return the learner steps compared."""
    players = len(load(name).raw_env(**options).possible_agents)
    opponent = HashPlayer()
    venv = CardGamesVectorEnv(name, 3, opponents=opponent, seed=0, autoreset_mode=mode, **options)
    observations, _ = venv.reset(seed=0)
    rng = np.random.default_rng(1)
    compared = 0
    slot = 1
    others_ended = np.zeros(3, dtype=bool)  # DISABLED: the other slots' ended episodes wait for a reset
    for episode in range(10 * episodes):
        if episode >= episodes and compared >= 20:
            break
        seat = episode % players
        single = SingleAgentEnv(name, options, opponents=opponent, learner_seat=seat)
        obs, _ = single.reset(seed=episode)
        raw = single.raw
        raw.set_game_state(raw.game_state())  # the turn limit counts from here, as after load
        loaded = venv.load(slot, raw.game_state())
        assert loaded["observation"].tobytes() == obs.tobytes()
        where = f"{name} {options} episode {episode}"
        while True:
            row = venv.engine.obs[slot]
            assert row.tobytes() == obs.tobytes(), f"{where}: observation"
            assert np.array_equal(venv.action_masks()[slot], single.action_masks()), f"{where}: mask"
            if mode == AutoresetMode.DISABLED and others_ended.any():
                venv.reset(options={"reset_mask": others_ended})
                others_ended[:] = False
            masks = venv.action_masks()
            actions = random_legal(masks, rng)
            deals = raw.deals_dealt
            obs, reward, terminated, truncated, _ = single.step(int(actions[slot]))
            observations, rewards, terminations, truncations, infos = venv.step(actions)
            others_ended |= terminations | truncations
            others_ended[slot] = False
            if raw.deals_dealt != deals:  # the AEC env dealt; the engine's slot dealt its own cards
                if terminated or truncated:
                    break
                raw.set_game_state(raw.game_state())  # both go on from the AEC env's deal
                assert venv.load(slot, raw.game_state())["observation"].tobytes() == obs.tobytes()
                continue
            compared += 1
            # The engine pays float32 rewards (the AEC env's float64 values, rounded).
            assert rewards[slot] == pytest.approx(reward, rel=1e-6, abs=1e-6), f"{where}: reward"
            assert (bool(terminations[slot]), bool(truncations[slot])) == (terminated, truncated), where
            if not (terminated or truncated):
                assert observations["observation"][slot].tobytes() == obs.tobytes(), f"{where}: obs"
                continue
            if mode == AutoresetMode.SAME_STEP:
                assert infos["_final_obs"][slot]
                final = infos["final_obs"][slot]["observation"]
            else:  # NEXT_STEP, DISABLED: the final observation is the step's
                final = observations["observation"][slot]
                assert not observations["action_mask"][slot].any()
            eliminated_early = not _game_over(raw)  # a Red7 learner out before the game ends
            encoding = raw.encoding
            at_move_start = encoding.observe(encoding.to_decision(raw.game_state()), seat)
            if truncated and at_move_start.tobytes() != obs.tobytes():
                # Cut in the middle of a move built over sub-steps: the final observation is of
                # the position at the start of that move (a rules State holds no partial choice).
                assert final.tobytes() == at_move_start.tobytes(), f"{where}: final observation"
            elif not eliminated_early:
                assert final.tobytes() == obs.tobytes(), f"{where}: final observation"
            assert infos["episode"]["l"][slot] >= 1
            _check_autoreset(venv, slot, mode, rng, where, others_ended)
            break
    return compared


def _check_autoreset(
    venv: CardGamesVectorEnv, slot: int, mode: AutoresetMode, rng: Any, where: str, others_ended: np.ndarray
) -> None:
    """The slot holds a new game with the learner to move; ``NEXT_STEP`` shows it on the next
    step, whose action there is not read, with reward 0; ``DISABLED`` refuses to step until
    the slot is reset (``reset_mask``), which shows it."""
    engine = venv.engine
    seat = int(venv.seat[slot])
    assert int(engine.player[slot]) == seat
    encoding = venv.probe.encoding
    fresh = encoding.observe(encoding.to_decision(engine.state(slot)), seat)
    assert engine.obs[slot].tobytes() == fresh.tobytes(), f"{where}: the new game's observation"
    if mode == AutoresetMode.NEXT_STEP:
        actions = random_legal(venv.action_masks(), rng)
        actions[slot] = -5  # not read
        observations, rewards, terminations, truncations, _ = venv.step(actions)
        assert rewards[slot] == 0.0 and not terminations[slot] and not truncations[slot]
        assert observations["observation"][slot].tobytes() == fresh.tobytes()
    elif mode == AutoresetMode.DISABLED:
        with pytest.raises(ValueError, match="its episode has ended; reset it first"):
            venv.step(random_legal(venv.action_masks(), rng))
        mask = others_ended.copy()
        mask[slot] = True
        others_ended[:] = False
        observations, _ = venv.reset(options={"reset_mask": mask})
        assert observations["observation"][slot].tobytes() == fresh.tobytes()


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_transitions_equal_single_agent_env(name: str, options: dict[str, Any]) -> None:
    """Observations, masks, learner rewards (opponents' turns included), termination, the
    final observation and the autoreset, step by step from the same loaded positions."""
    assert _compare_episodes(name, options, AutoresetMode.SAME_STEP, episodes=6) >= 20


@pytest.mark.parametrize("name", ALL_ENVS)
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED])
def test_transitions_equal_single_agent_env_with_cuts_and_other_autoresets(
    name: str, mode: AutoresetMode
) -> None:
    """The same with a short turn limit (truncations) and ``NEXT_STEP``/``DISABLED`` autoreset."""
    options = {"max_steps": CUT[name], **({"target_score": 50} if name == "haggis_v0" else {})}
    assert _compare_episodes(name, options, mode, episodes=6) >= 20


def test_disabled_autoreset_restarts_a_slot_still_playing_and_refuses_bad_masks() -> None:
    """``reset_mask`` on a slot in mid-game deals it a new game (the learner to move, no step
    counted); the other slots keep their games; bad masks, seeds and modes are refused."""
    env = CardGamesVectorEnv("gongzhu_v0", 3, opponents="heuristic", autoreset_mode="Disabled", seed=0)
    observations, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(3):
        observations, *_ = env.step(random_legal(observations["action_mask"].astype(bool), rng))
    before = [env.engine.state(i) for i in range(3)]
    restarted, _ = env.reset(options={"reset_mask": np.array([False, True, False])})
    assert env.engine.state(0) == before[0] and env.engine.state(2) == before[2]
    state = env.engine.state(1)
    assert state != before[1] and sum(bin(hand).count("1") for hand in state.hands) + len(state.trick) == 52
    assert int(env.engine.player[1]) == int(env.seat[1]) and int(env.engine.steps[1]) == 0
    assert np.array_equal(restarted["observation"][0], observations["observation"][0])
    for options, message in (
        ({"reset_mask": np.array([True, False])}, "reset_mask"),
        ({"reset_mask": [1, 0, 0]}, "reset_mask"),
        ({"mask": np.ones(3, dtype=bool)}, "reset_mask"),
    ):
        with pytest.raises(ValueError, match=message):
            env.reset(options=options)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=1, options={"reset_mask": np.ones(3, dtype=bool)})
    same_step = CardGamesVectorEnv("gongzhu_v0", 3)
    same_step.reset(seed=0)
    with pytest.raises(ValueError, match="DISABLED"):
        same_step.reset(options={"reset_mask": np.ones(3, dtype=bool)})


def _rollout(env: CardGamesVectorEnv, seed: int, steps: int) -> list[bytes]:
    """A record of ``steps`` steps after ``reset(seed=seed)`` with seeded random actions."""
    observations, infos = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    record = [observations["observation"].tobytes(), infos["learner_seat"].tobytes()]
    for _ in range(steps):
        actions = random_legal(observations["action_mask"].astype(bool), rng)
        observations, rewards, terminations, truncations, infos = env.step(actions)
        record += [observations["observation"].tobytes(), rewards.tobytes(), terminations.tobytes(),
                   truncations.tobytes(), infos["learner_seat"].tobytes()]
    return record


@pytest.mark.parametrize("name", ALL_ENVS)
def test_reset_with_a_seed_reproduces_the_run(name: str) -> None:
    """Deals, drawn seats, pool draws and the opponents' own randomness all follow the seed."""
    pool = OpponentPool(base=("random", "heuristic"))
    options = {"target_score": 50} if name == "haggis_v0" else {}
    env = CardGamesVectorEnv(name, 4, opponents=pool, **options)
    first = _rollout(env, 7, 60)
    assert _rollout(env, 7, 60) == first  # the same env, re-seeded after a run
    other = CardGamesVectorEnv(name, 4, opponents=pool, seed=123, **options)
    assert _rollout(other, 7, 60) == first  # a fresh env: the constructor's seed is overridden
    assert _rollout(other, 8, 60) != first


def test_bad_input_is_refused_and_changes_nothing() -> None:
    """Each bad call raises ValueError naming the problem; a twin env stepped without it then
    gives identical outputs."""
    env = CardGamesVectorEnv("red7_v0", 3, opponents="heuristic", seed=0)
    twin = CardGamesVectorEnv("red7_v0", 3, opponents="heuristic", seed=0)
    observations, _ = env.reset(seed=2)
    twin.reset(seed=2)
    masks = observations["action_mask"].astype(bool)
    legal = random_legal(masks, np.random.default_rng(0))
    illegal = legal.copy()
    illegal[2] = int(np.flatnonzero(~masks[2])[0])
    for actions, message in (
        (legal[:2], r"shape \(3,\)"),
        (legal.astype(np.float64), "integers"),
        (np.array([legal[0], legal[1], 10**6]), "slot 2: action 1000000 is out of range"),
        (illegal, "slot 2: action .* is not legal"),
        (legal.reshape(3, 1), r"shape \(3,\)"),
    ):
        with pytest.raises(ValueError, match=message):
            env.step(actions)
    for one, two in zip(env.step(legal)[:4], twin.step(legal)[:4]):
        if isinstance(one, dict):
            assert all(np.array_equal(one[k], two[k]) for k in one)
        else:
            assert np.array_equal(one, two)
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"num_players": 3})
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": 2.5}, "num_envs"),
        ({"num_envs": True}, "num_envs"),
        ({"opponents": "nobody"}, "unknown agent"),
        ({"opponents": ["random", "random"]}, "1 opponent seats; got 2"),
        ({"opponents": 3}, "an opponent must be"),
        ({"learner_seat": 2}, "learner_seat"),
        ({"learner_seat": True}, "learner_seat"),
        ({"autoreset_mode": "Sometimes"}, "autoreset_mode"),
        ({"seed": 1.5}, "seed"),
        ({"num_players": 9}, "num_players"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, Any], message: str) -> None:
    arguments = {"num_envs": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        CardGamesVectorEnv("red7_v0", **arguments)


def test_step_before_reset_and_unknown_env() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        CardGamesVectorEnv("red7_v0", 2).step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="unknown env"):
        CardGamesVectorEnv("chess_v0", 2)


@pytest.mark.parametrize("name", ALL_ENVS)
def test_make_vec_gives_the_registered_vector_env(name: str) -> None:
    """``gymnasium.make_vec`` builds it through the vector entry point, with gymnasium's
    spaces and the autoreset mode declared; infos carry the masks."""
    env = gymnasium.make_vec(f"cardgames/{name}", num_envs=3, opponents="random", learner_seat=0)
    assert isinstance(env, CardGamesVectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    probe = load(name).raw_env()
    assert env.single_observation_space == probe.observation_space("player_0")
    assert env.single_action_space == probe.action_space("player_0")
    observations, infos = env.reset(seed=0)
    assert observations in env.observation_space
    assert np.array_equal(infos["action_mask"], observations["action_mask"])
    assert np.array_equal(observations["action_mask"].astype(bool), env.action_masks())
    actions = random_legal(env.action_masks(), np.random.default_rng(0))
    assert actions in env.action_space
    env.step(actions)
    assert gymnasium.make_vec(f"cardgames/{name}", num_envs=2, autoreset_mode="NextStep").metadata[
        "autoreset_mode"
    ] == AutoresetMode.NEXT_STEP


def test_opponents_per_seat_functions_and_state_readers() -> None:
    """One opponent per other seat; a plain function plays its seat (its actions checked); a
    search opponent plays from each row's state."""
    calls: list[int] = []

    def lowest(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append(len(masks))
        return masks.argmax(axis=1)

    env = CardGamesVectorEnv("red7_v0", 4, opponents=[lowest, "random", "search:iterations=4"],
                             learner_seat=0, num_players=4)
    observations, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(10):
        observations, *_ = env.step(random_legal(observations["action_mask"].astype(bool), rng))
    assert calls and env.opponents[0] is lowest
    assert set(env.opponent[:, 1].tolist()) == {0} and set(env.opponent[:, 3].tolist()) == {2}

    def cheat(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.full(len(masks), -1)

    bad = CardGamesVectorEnv("red7_v0", 2, opponents=cheat, learner_seat=0)
    with pytest.raises(ValueError, match="illegal action"):
        bad.reset(seed=0)
        for _ in range(5):
            bad.step(random_legal(bad.action_masks(), rng))


@pytest.mark.parametrize("name", ALL_ENVS)
def test_the_shipped_policy_plays_every_seat_in_batch(name: str) -> None:
    """``opponents="pretrained"``: one numpy pass per step (or, for a policy trained on another
    encoding, the rules state of each row); every move legal, games finish."""
    env = CardGamesVectorEnv(name, 4, opponents="pretrained", seed=1)  # the shipped files' variants
    observations, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(6):
        observations, *_ = env.step(random_legal(observations["action_mask"].astype(bool), rng))
    assert env.env_steps > 4 * 6  # the opponents moved inside (an illegal move would raise)
