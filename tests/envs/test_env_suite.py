"""The shared env test-suite, parametrised over every registered env and its test variants.

Random-game counts: 200 games for each env's default options, 30 for every other variant.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import cardgames_env
from cardgames_env.core.game import IllegalMoveError

from .conftest import CASES
from .helpers import make_raw, make_wrapped, play_episode, random_legal

DEFAULT_GAMES = 200
VARIANT_GAMES = 30


@pytest.mark.parametrize("name,options,default", CASES)
def test_pettingzoo_api(name, options, default):
    api_test(make_wrapped(name, options), num_cycles=1000)


@pytest.mark.parametrize("name,options,default", CASES)
def test_pettingzoo_seed(name, options, default):
    seed_test(lambda: make_wrapped(name, options), num_cycles=500)


@pytest.mark.parametrize("name,options,default", CASES)
def test_pettingzoo_render(name, options, default, capsys):
    render_test(lambda render_mode=None: make_wrapped(name, options, render_mode=render_mode))
    env = make_raw(name, options, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and text.strip()


@pytest.mark.parametrize("name,options,default", CASES)
def test_registered_with_pettingzoo(name, options, default):
    env = pettingzoo.make("aec", f"cardgames/{name}", **options)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == name
    assert getattr(cardgames_env, name).raw_env is type(env.unwrapped) or callable(
        getattr(cardgames_env, name).raw_env
    )


@pytest.mark.parametrize("name,options,default", CASES)
def test_spaces_are_cached_and_consistent(name, options, default):
    env = make_raw(name, options)
    env.reset(seed=0)
    assert len(env.possible_agents) == env.info.num_players
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        obs = env.observe(agent)
        assert obs["observation"].dtype == np.float32
        assert obs["action_mask"].dtype == np.int8
        assert env.observation_space(agent).contains(obs)


@pytest.mark.parametrize("name,options,default", CASES)
def test_handed_out_masks_cannot_change_what_step_checks(name, options, default):
    env = make_raw(name, options)
    env.reset(seed=4)
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        with pytest.raises(ValueError):
            mask[0] = 1 - mask[0]


@pytest.mark.parametrize("name,options,default", CASES)
def test_unknown_option_is_a_value_error(name, options, default):
    with pytest.raises(ValueError, match="no_such_option"):
        make_raw(name, options, no_such_option=1)


@pytest.mark.parametrize("name,options,default", CASES)
def test_illegal_action_raises_in_raw_env(name, options, default):
    env = make_raw(name, options)
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    if illegal.size:
        with pytest.raises(IllegalMoveError):
            env.step(int(illegal[0]))


@pytest.mark.parametrize("name,options,default", CASES)
def test_random_games_respect_masks_rewards_and_bounds(name, options, default):
    """Masks: only the mover's is non-zero and never allows an illegal move (raw env raises);
    rewards and returns stay inside GameInfo; games end within max_game_length."""
    env = make_raw(name, options)
    info = env.info
    rng = np.random.default_rng(12345)
    games = DEFAULT_GAMES if default else VARIANT_GAMES
    for game in range(games):
        env.reset(seed=game)
        totals = {a: 0.0 for a in env.possible_agents}
        steps = 0
        for agent in env.agent_iter():
            for a in env.agents:
                r = env.rewards[a]
                assert info.min_reward - 1e-9 <= r <= info.max_reward + 1e-9, (a, r)
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                assert not obs["action_mask"].any()
                env.step(None)
                continue
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any(), f"{other} has a mask"
            if info.zero_sum:
                assert abs(sum(env.rewards.values())) < 1e-9
            env.step(random_legal(obs["action_mask"], rng))  # raw env raises on an illegal one
            steps += 1
            if info.max_game_length is not None:
                assert steps <= info.max_game_length
        assert env.agents == []
        for agent, total in totals.items():
            if info.min_return is not None:
                assert total >= info.min_return - 1e-9, (agent, total)
            if info.max_return is not None:
                assert total <= info.max_return + 1e-9, (agent, total)


@pytest.mark.parametrize("name,options,default", CASES)
def test_no_hidden_information_leaks(name, options, default):
    """Re-dealing what a player cannot see leaves that player's observation unchanged."""
    env = make_raw(name, options)
    rules, encoding = env.rules, env.encoding
    rng = np.random.default_rng(7)
    changed = 0
    checks = 0

    def check(env, agent, obs):
        nonlocal changed, checks
        decision = env._decision
        state = encoding.rules_state(decision)
        for player in range(len(env.possible_agents)):
            resampled = rules.resample_hidden(state, player, rng)
            changed += resampled != state
            checks += 1
            seen = encoding.observe(encoding.replace_rules_state(decision, resampled), player)
            np.testing.assert_array_equal(seen, encoding.observe(decision, player))

    for game in range(3):
        play_episode(env, seed=game, rng=rng, on_decision=check)
    assert changed > 0, "resample_hidden never changed a hidden card: the test would prove nothing"


@pytest.mark.parametrize("name,options,default", CASES)
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copy_mid_game_continues_identically(name, options, default, how):
    env = make_wrapped(name, options)
    rng = np.random.default_rng(3)
    env.reset(seed=3)
    for _ in range(7):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(random_legal(obs["action_mask"], rng))
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
    for agent_a, agent_b in zip(env.agent_iter(), twin.agent_iter()):
        assert agent_a == agent_b
        obs_a, rew_a, term_a, trunc_a, _ = env.last()
        obs_b, rew_b, term_b, trunc_b, _ = twin.last()
        np.testing.assert_array_equal(obs_a["observation"], obs_b["observation"])
        np.testing.assert_array_equal(obs_a["action_mask"], obs_b["action_mask"])
        assert (rew_a, term_a, trunc_a) == (rew_b, term_b, trunc_b)
        if term_a or trunc_a:
            env.step(None)
            twin.step(None)
        else:
            env.step(random_legal(obs_a["action_mask"], rng_a))
            twin.step(random_legal(obs_b["action_mask"], rng_b))


@pytest.mark.parametrize("name,options,default", CASES)
def test_replay_of_seed_and_actions_reproduces_every_observation(name, options, default):
    def record(actions=None):
        env = make_raw(name, options)
        seen: list[np.ndarray] = []
        taken = play_episode(
            env, seed=21, rng=np.random.default_rng(5), actions=actions,
            on_decision=lambda e, a, obs: seen.append(obs["observation"].copy()),
        )
        return taken, seen

    actions, first = record()
    replayed_actions, second = record(actions)
    assert replayed_actions == actions
    assert len(first) == len(second)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name,options,default", CASES)
def test_action_strings_round_trip(name, options, default):
    env = make_raw(name, options)
    rng = np.random.default_rng(11)

    def check(env, agent, obs):
        for action in np.flatnonzero(obs["action_mask"]):
            text = env.action_to_string(int(action))
            assert isinstance(text, str) and text
            assert env.string_to_action(text) == action, text

    play_episode(env, seed=2, rng=rng, on_decision=check)
    with pytest.raises(ValueError):
        env.reset(seed=0)
        env.string_to_action("this is not a move")


@pytest.mark.parametrize("name,options,default", CASES)
def test_final_infos_hold_each_agents_own_points(name, options, default):
    """At the end every agent still in the game reads its own game points in ``infos`` (through
    ``last()`` on its dead step): seat ``i``'s entry of ``rules.points``, never the mover's or
    seat 0's. Over the games some agents must end with different points, so a mix-up of seats
    cannot pass."""
    env = make_raw(name, options)
    rng = np.random.default_rng(99)
    distinct = 0
    for game in range(6):
        env.reset(seed=game)
        final: tuple | None = None
        seen: dict[str, object] = {}
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                if final is not None:
                    seen[agent] = info.get("points", "missing")
                env.step(None)
                continue
            env.step(random_legal(obs["action_mask"], rng))
            if final is None and env.terminations and all(env.terminations[a] for a in env.agents):
                final = tuple(env.rules.points(env.game_state()))
                at_end = list(env.agents)
                for a in at_end:
                    assert env.infos[a]["points"] == final[env.possible_agents.index(a)], (a, env.infos[a])
        if final is None:  # truncated by the turn limit: no final points to check
            continue
        assert set(seen) == set(at_end)
        for a, points in seen.items():
            assert points == final[env.possible_agents.index(a)], (a, points, final)
        distinct += len({final[env.possible_agents.index(a)] for a in at_end}) > 1
    assert distinct > 0, "every game ended with equal points for all agents: seats were not told apart"
