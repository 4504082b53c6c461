"""The env's input contract and positions: action and seed types, reset options, numpy option
values, use before reset, the global ``state()`` vector, ``game_state``/``set_game_state`` and
the ``max_steps`` turn limit (``docs/architecture.md``, "Env contract")."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test

from cardgames_env.core.aec import DEFAULT_MAX_STEPS
from cardgames_env.registry import load
from cardgames_env.wrappers.single_agent import SingleAgentEnv

from .conftest import CASES, ENV_NAMES
from .helpers import make_raw, make_wrapped, play_episode, random_legal

BEFORE_RESET = r"call reset\(\) first"


def snapshot(env) -> tuple:
    """What a rejected call must leave unchanged."""
    raw = env.unwrapped
    return (
        raw.game_state(),
        raw.agent_selection,
        raw.num_steps,
        dict(raw.terminations),
        dict(raw.truncations),
        raw.observe(raw.agent_selection)["observation"].tobytes(),
    )


def bad_actions(legal: int) -> list:
    """Values that are not actions, each next to (or standing for) the legal action ``legal``."""
    return [
        legal + 0.9,
        float(legal),
        np.float64(legal),
        str(legal),
        True,
        np.bool_(True),
        np.array([legal]),
        [legal],
        np.array(float(legal)),
    ]


# -- 1. action and seed types -------------------------------------------------------------------
@pytest.mark.parametrize("name", ENV_NAMES)
def test_raw_step_refuses_non_integer_actions_and_changes_nothing(name):
    env = make_raw(name, {})
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.action_mask())[0])
    before = snapshot(env)
    for action in bad_actions(legal):
        with pytest.raises(TypeError, match=type(action).__name__):
            env.step(action)
        assert snapshot(env) == before, action


@pytest.mark.parametrize("name", ENV_NAMES)
@pytest.mark.parametrize("kind", ["int64", "int8", "0-d array", "uint16"])
def test_numpy_integer_actions_play_like_ints(name, kind):
    plain, numpy_env = make_raw(name, {}), make_raw(name, {})
    plain.reset(seed=5)
    numpy_env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(6):
        if not plain.agents or plain.terminations[plain.agent_selection]:
            break
        action = random_legal(plain.action_mask(), rng)
        typed = {
            "int64": np.int64(action), "int8": np.int8(action) if action < 128 else np.int64(action),
            "0-d array": np.array(action), "uint16": np.uint16(action),
        }[kind]
        plain.step(action)
        numpy_env.step(typed)
        assert numpy_env.game_state() == plain.game_state()


@pytest.mark.parametrize("name", ENV_NAMES)
def test_wrapped_step_refuses_non_integer_actions_and_changes_nothing(name):
    env = make_wrapped(name, {})
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.unwrapped.action_mask())[0])
    before = snapshot(env)
    for action in bad_actions(legal):
        with pytest.raises(TypeError, match=type(action).__name__):
            env.step(action)
        assert snapshot(env) == before, action  # not played, and not ended as an illegal move
    env.step(np.int64(legal))
    assert env.unwrapped.num_steps == 1


@pytest.mark.parametrize("seed", [True, np.bool_(False), 1.5, "3", -1])
def test_reset_refuses_bad_seeds_and_changes_nothing(seed):
    env = make_raw("gongzhu_v0", {})
    env.reset(seed=0)
    before = snapshot(env)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=seed)
    assert snapshot(env) == before


def test_single_agent_env_refuses_bad_actions_seats_seeds_and_options():
    env = SingleAgentEnv("gongzhu_v0", learner_seat=0)
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.action_masks())[0])
    before = snapshot(env.raw)
    for action in bad_actions(legal):
        with pytest.raises(TypeError, match=type(action).__name__):
            env.step(action)
        assert snapshot(env.raw) == before
    env.step(np.int64(legal))
    assert env.raw.num_steps > before[2]
    for seat in (True, np.bool_(False), 1.0, "0"):
        with pytest.raises(ValueError, match="learner_seat"):
            SingleAgentEnv("gongzhu_v0", learner_seat=seat)
    assert SingleAgentEnv("gongzhu_v0", learner_seat=np.int64(2)).learner_seat == 2
    for seed in (True, 1.5):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)
    with pytest.raises(ValueError, match="constructor"):
        env.reset(options={"game_end": -100})
    with pytest.raises(ValueError, match="constructor"):
        env.reset(options="notadict")


# -- 2. reset options ---------------------------------------------------------------------------
def variant_options(env) -> list:
    """Reset options that try to change a variant or are not a dict."""
    first_field = dataclasses.fields(env.config)[0].name
    return [
        {first_field: getattr(env.config, first_field)}, {"max_steps": 10},
        {"render_mode": "ansi"}, "notadict", [("num_players", 3)], 7,
    ]


@pytest.mark.parametrize("name", ENV_NAMES)
def test_reset_refuses_variant_options_and_changes_nothing(name):
    env = make_raw(name, {})
    env.reset(seed=0)
    before = snapshot(env)
    wrapped = make_wrapped(name, {})
    refused = variant_options(env)
    if hasattr(env.config, "num_players"):
        refused.append({"num_players": 99})
    for options in refused:
        with pytest.raises(ValueError, match="variants are constructor arguments"):
            env.reset(seed=1, options=options)
        assert snapshot(env) == before, options
        with pytest.raises(ValueError, match="variants are constructor arguments"):
            wrapped.reset(seed=1, options=options)
    for unknown in ({"options": 1}, {"no_such_variant": 1}):  # PettingZoo's api_test passes the first
        with pytest.warns(UserWarning, match="ignores options"):
            env.reset(seed=0, options=unknown)
    assert snapshot(env) == before
    env.reset(seed=0, options={})  # no options at all: no warning, no error
    env.reset(seed=0, options=None)
    assert snapshot(env) == before


# -- 3. numpy values as options -----------------------------------------------------------------
@pytest.mark.parametrize("name,options,default", CASES)
def test_numpy_ints_and_bools_are_accepted_as_options(name, options, default):
    config = make_raw(name, options).config
    as_numpy = {}
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if isinstance(value, bool):
            as_numpy[field.name] = np.bool_(value)
        elif isinstance(value, int):
            as_numpy[field.name] = np.int64(value)
    assert as_numpy, "the config has no int or bool field: the test would prove nothing"
    every_field = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    env = make_raw(name, {**every_field, **as_numpy})
    assert env.config == config
    for field_name in as_numpy:
        assert type(getattr(env.config, field_name)) is type(getattr(config, field_name))
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["observation"].shape == env.observation_space(
        env.agent_selection
    )["observation"].shape


def test_red7_num_players_as_numpy_int():
    env = load("red7_v0").env(num_players=np.int64(3))
    env.reset(seed=0)
    assert env.unwrapped.config.num_players == 3 and len(env.possible_agents) == 3
    assert type(env.unwrapped.config.num_players) is int
    with pytest.raises(ValueError, match="num_players"):
        load("red7_v0").env(num_players=np.float64(3))


# -- 4. use before reset ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ENV_NAMES)
def test_use_before_reset_is_one_clear_error(name):
    env = make_raw(name, {}, render_mode="ansi")
    calls = {
        "step": lambda: env.step(0),
        "observe": lambda: env.observe("player_0"),
        "last": lambda: env.last(),
        "agent_iter": lambda: next(iter(env.agent_iter())),
        "render": lambda: env.render(),
        "state": lambda: env.state(),
        "game_state": lambda: env.game_state(),
        "action_mask": lambda: env.action_mask(),
        "legal_action_strings": lambda: env.legal_action_strings(),
        "action_to_string": lambda: env.action_to_string(0),
        "string_to_action": lambda: env.string_to_action("pass"),
    }
    for what, call in calls.items():
        with pytest.raises(RuntimeError, match=BEFORE_RESET):
            call()
        assert env._decision is None, what
    env.reset(seed=0)
    assert env.legal_action_strings()


# -- 11. the global state vector ----------------------------------------------------------------
@pytest.mark.parametrize("name,options,default", CASES)
def test_state_is_a_float32_vector_in_state_space(name, options, default):
    env = make_raw(name, options)
    space = env.state_space
    assert space.dtype == np.float32 and space.shape == (env.encoding.state_size,)
    layout = env.encoding.state_layout
    checks = 0

    def check(env, agent, obs):
        nonlocal checks
        state = env.state()
        assert state.dtype == np.float32 and state.shape == space.shape
        assert space.contains(state)
        # The documented layout: every seat's own observation, in seat order.
        view = layout.view(state)
        for seat in env.possible_agents:
            np.testing.assert_array_equal(view[seat], env.encoding.observe(env._decision, int(seat[7:])))
        checks += 1

    play_episode(env, seed=1, rng=np.random.default_rng(1), on_decision=check)
    assert checks > 0
    assert space.contains(env.state())  # at the end too


@pytest.mark.parametrize("name", ENV_NAMES)
def test_pettingzoo_state_tests_pass(name):
    env = make_wrapped(name, {})
    pettingzoo_state_space_test(env)
    pettingzoo_state_test(env, num_cycles=50)


def orderless(state):
    """``state`` with the order of its face-down stacks (deck, Jaipur's bonus piles) and of the
    bonus tokens taken forgotten."""
    changes = {}
    if hasattr(state, "deck"):
        changes["deck"] = tuple(sorted(state.deck))
    if hasattr(state, "bonus_piles"):  # Jaipur: bonus piles, and the order bonus tokens were taken in
        changes["bonus_piles"] = tuple(tuple(sorted(pile)) for pile in state.bonus_piles)
        changes["bonus_tokens"] = tuple(tuple(tuple(sorted(t)) for t in seat) for seat in state.bonus_tokens)
    if not changes:
        return state
    return state._replace(**changes) if hasattr(state, "_replace") else dataclasses.replace(state, **changes)


@pytest.mark.parametrize("name,options,default", CASES)
def test_state_tells_apart_states_the_observer_cannot(name, options, default):
    """Two positions that differ only in cards a seat cannot see look the same to that seat
    but not in ``state()``."""
    env = make_raw(name, options)
    rules, encoding = env.rules, env.encoding
    rng = np.random.default_rng(3)
    told_apart = 0

    def check(env, agent, obs):
        nonlocal told_apart
        decision = env._decision
        state = encoding.rules_state(decision)
        for player in range(len(env.possible_agents)):
            other = encoding.replace_rules_state(decision, rules.resample_hidden(state, player, rng))
            if orderless(encoding.rules_state(other)) == orderless(state):
                continue  # at most the order of face-down stacks changed (not in the state vector)
            np.testing.assert_array_equal(encoding.observe(other, player), encoding.observe(decision, player))
            assert not np.array_equal(encoding.state_vector(other), encoding.state_vector(decision))
            told_apart += 1

    play_episode(env, seed=4, rng=rng, on_decision=check)
    assert told_apart > 0, "no re-deal changed a hidden card: the test would prove nothing"


def test_red7_state_shows_the_deck_and_unseen_eliminated_hands():
    env = make_raw("red7_v0", {"num_players": 3})
    env.reset(seed=2)
    state = env.game_state()
    view = env.encoding.state_layout.view(env.state())
    assert sorted(np.flatnonzero(view["hidden_deck"]).tolist()) == sorted(state.deck)
    assert not view["hidden_out"].any()
    # Swap the deck's bottom card with a card of player_1's hand: every observation of a seat
    # other than player_1 is unchanged, the state vector is not.
    hand_card = next(c for c in range(49) if state.hands[1] >> c & 1)
    bottom = state.deck[-1]
    hands = list(state.hands)
    hands[1] = hands[1] & ~(1 << hand_card) | 1 << bottom
    swapped = state._replace(hands=tuple(hands), deck=state.deck[:-1] + (hand_card,))
    for seat in (0, 2):
        np.testing.assert_array_equal(env.encoding.observe(swapped, seat), env.encoding.observe(state, seat))
    assert not np.array_equal(env.encoding.state_vector(swapped), env.state())


# -- game_state / set_game_state ----------------------------------------------------------------
def _live(env) -> None:
    """Play the dead steps until a live agent is to move (or the game is over)."""
    while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(None)


@pytest.mark.parametrize("name,options,default", CASES)
def test_set_game_state_continues_like_the_original_env(name, options, default):
    rng = np.random.default_rng(8)
    original = make_raw(name, options)
    compared = 0
    for seed in range(6):
        original.reset(seed=seed)
        for step in range(60):
            _live(original)
            if not original.agents:
                break
            at_move_start = original._decision == original.encoding.to_decision(original.game_state())
            if step >= 3 and at_move_start:  # no sub-step choice pending (not part of a State)
                break
            original.step(random_legal(original.action_mask(), rng))
        _live(original)
        if not original.agents or original.deals_dealt != 1 or any(original.terminations.values()):
            continue  # a chance outcome since reset (the Generators would differ): next seed
        copy = make_raw(name, options)
        copy.reset(seed=seed)  # the same Generator state as the original's (no deal since reset)
        copy.set_game_state(original.game_state())
        assert copy.num_steps == 0 and copy.agents == original.agents
        while original.agents:
            _live(original)
            _live(copy)
            assert copy.agents == original.agents
            if not original.agents:
                break
            assert copy.agent_selection == original.agent_selection
            for agent in original.agents:
                a, b = original.observe(agent), copy.observe(agent)
                np.testing.assert_array_equal(a["observation"], b["observation"])
                np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
            action = random_legal(original.action_mask(), rng)
            original.step(action)
            copy.step(action)
            assert copy.rewards == original.rewards
            assert copy.terminations == original.terminations and copy.infos == original.infos
            compared += 1
        assert copy.game_state() == original.game_state()
    assert compared > 0


@pytest.mark.parametrize("name", ENV_NAMES)
def test_set_game_state_on_a_fresh_env(name):
    source = make_raw(name, {})
    source.reset(seed=3)
    source.step(random_legal(source.action_mask(), np.random.default_rng(0)))
    _live(source)
    env = make_raw(name, {})
    env.set_game_state(source.game_state())
    assert env.game_state() is source.game_state()
    # At the start of the move (a sub-step encoding's pending choice is not part of a State).
    at_move_start = source.encoding.to_decision(source.game_state())
    np.testing.assert_array_equal(env.state(), source.encoding.state_vector(at_move_start))
    env.step(random_legal(env.action_mask(), np.random.default_rng(1)))
    assert env.num_steps == 1


@pytest.mark.parametrize("name", ENV_NAMES)
def test_set_game_state_rejects_bad_states_and_changes_nothing(name):
    env = make_raw(name, {})
    env.reset(seed=0)
    before = snapshot(env)
    other_game = load("gongzhu_v0" if name != "gongzhu_v0" else "jaipur_v0").raw_env()
    other_game.reset(seed=0)
    for bad in (None, {"hands": ()}, other_game.game_state(), env.state()):
        with pytest.raises(TypeError, match="State"):
            env.set_game_state(bad)
        assert snapshot(env) == before
    variant_options = next(o for o in load(name).TEST_VARIANTS if make_raw(name, o).config != env.config)
    variant = make_raw(name, variant_options)
    variant.reset(seed=0)
    with pytest.raises(ValueError, match="built for"):
        env.set_game_state(variant.game_state())
    assert snapshot(env) == before
    finished = make_raw(name, {})
    play_episode(finished, seed=1, rng=np.random.default_rng(1))
    assert finished.rules.is_terminal(finished.game_state())
    with pytest.raises(ValueError, match="player to move"):
        env.set_game_state(finished.game_state())
    assert snapshot(env) == before


# -- 12. the turn limit -------------------------------------------------------------------------
@pytest.mark.parametrize("name,options,default", CASES)
def test_every_env_has_a_finite_documented_turn_limit(name, options, default):
    env = make_raw(name, options)
    bound = env.rules.game_info(env.config).max_game_length
    assert env.max_steps == env.info.max_game_length == (DEFAULT_MAX_STEPS if bound is None else bound)
    assert isinstance(env.info.max_game_length, int) and env.info.max_game_length > 0


@pytest.mark.parametrize("name", ENV_NAMES)
@pytest.mark.parametrize("limit", [1, 4])
def test_truncation_at_exactly_max_steps(name, limit):
    env = make_raw(name, {}, max_steps=np.int64(limit))
    assert env.info.max_game_length == limit
    rng = np.random.default_rng(0)
    for seed in range(20):
        env.reset(seed=seed)
        steps = 0
        while steps < limit and not any(env.terminations.values()):
            assert not any(env.truncations.values())
            env.step(random_legal(env.action_mask(), rng))
            steps += 1
        if not env.rules.is_terminal(env.game_state()) and not any(env.terminations.values()):
            break
    else:
        pytest.fail("every game ended before the limit: the test would prove nothing")
    assert env.num_steps == limit
    assert all(env.truncations.values()) and set(env.truncations) == set(env.agents)
    assert not any(env.terminations.values())
    for agent in env.agents:
        assert not env.observe(agent)["action_mask"].any()
    assert not env.action_mask().any()
    dead = 0
    for _agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert trunc and not term
        env.step(None)
        dead += 1
    assert env.agents == [] and dead >= 1


@pytest.mark.parametrize("bad", [0, -3, 1.5, "100", True, np.bool_(True), np.float64(10)])
def test_max_steps_bad_values_are_refused(bad):
    with pytest.raises(ValueError, match="max_steps"):
        make_raw("jaipur_v0", {}, max_steps=bad)


def test_single_agent_env_reports_the_turn_limit_as_truncation():
    env = SingleAgentEnv(load("jaipur_v0").raw_env(max_steps=6), learner_seat=0)
    env.reset(seed=0)
    terminated = truncated = False
    steps = 0
    while not (terminated or truncated):
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        steps += 1
    assert truncated and not terminated and steps == 3  # the learner plays every other step
    assert "episode_return" in info
