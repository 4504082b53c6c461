"""A loaded position is checked before anything changes (each game's ``rules.validate_state``).

For every game: each corrupted position of :mod:`.corruptions` is refused by
``set_game_state`` and by the batched engine's ``load`` with a ``ValueError`` naming the field,
and the env or slot then stands and plays on exactly as before; every position of random play
is accepted by both. Then the batched engine's argument errors (``vector.make``, ``active``),
the types of ``state(i)``, and ``env()`` refusing an action that is no action like the raw env,
with and without ``python -O``.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from cardgames_env import vector
from cardgames_env.envs.haggle.rules import Stage
from cardgames_env.registry import ALL_ENVS, load

from .corruptions import at_move_start, base_state, entries, live
from .helpers import make_raw, make_wrapped, random_legal

CORRUPTIONS = [
    pytest.param(name, label, options, corrupt, pattern, id=f"{name}-{label}")
    for name in ALL_ENVS
    for label, options, corrupt, pattern in entries(name)
]


def env_snapshot(env: Any) -> tuple:
    """What a refused ``set_game_state`` must leave as it was: the position, whose turn, every
    agent's observation and mask, the episode's bookkeeping."""
    views = tuple(
        (agent, env.observe(agent)["observation"].tobytes(), env.observe(agent)["action_mask"].tobytes())
        for agent in env.possible_agents
    )
    return (
        env.game_state(),
        env.agent_selection,
        tuple(env.agents),
        views,
        env.num_steps,
        dict(env.rewards),
        dict(env.terminations),
        dict(env.truncations),
        env.action_mask().tobytes(),
    )


def slot_snapshot(vec: vector.BatchedEngine) -> tuple:
    """What a refused ``load`` must leave as it was: every slot's position and outputs."""
    return (
        [vec.state(i) for i in range(vec.num_envs)],
        vec.obs.tobytes(),
        vec.mask.tobytes(),
        vec.player.tobytes(),
        vec.steps.tobytes(),
        vec.rewards.tobytes(),
        vec.done.tobytes(),
    )


@pytest.mark.parametrize(("name", "label", "options", "corrupt", "pattern"), CORRUPTIONS)
def test_corrupted_position_is_refused_and_changes_nothing(name, label, options, corrupt, pattern):
    base = base_state(name, options)
    bad = corrupt(base)
    assert repr(bad) != repr(base), "the corruption changed nothing"

    # The AEC env: refused with the field named, then it plays on as an env that never saw it.
    env, twin = make_raw(name, dict(options)), make_raw(name, dict(options))
    for e in (env, twin):
        e.reset(seed=4)
        e.set_game_state(base)
    before = env_snapshot(env)
    with pytest.raises(ValueError) as refused:
        env.set_game_state(bad)
    assert re.search(pattern, str(refused.value)), f"{label}: {refused.value}"
    assert env_snapshot(env) == before
    rng = np.random.default_rng(2)
    for _ in range(3):
        if not (live(env) and live(twin)):
            break
        action = random_legal(env.action_mask(), rng)
        env.step(action)
        twin.step(action)
        assert env_snapshot(env) == env_snapshot(twin)

    # The batched engine: the same refusal, slot 0 untouched, then the same steps as a twin.
    vec, vec_twin = (
        vector.make(name, 2, seed=5, **dict(options)),
        vector.make(name, 2, seed=5, **dict(options)),
    )
    for v in (vec, vec_twin):
        v.load(0, base)
    before = slot_snapshot(vec)
    with pytest.raises(ValueError) as refused:
        vec.load(0, bad)
    assert re.search(pattern, str(refused.value)), f"{label}: {refused.value}"
    assert slot_snapshot(vec) == before
    for _ in range(3):
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in vec.mask])
        vec.step(actions)
        vec_twin.step(actions)
        assert slot_snapshot(vec) == slot_snapshot(vec_twin)


def test_every_game_has_a_table_of_corruptions():
    for name in ALL_ENVS:
        labels = [label for label, *_ in entries(name)]
        assert len(labels) == len(set(labels)), f"{name}: labels repeat"
        assert {"card missing", "card doubled", "a finished game"} <= set(labels), name
        assert any("None" in label for label in labels) and any("'x'" in label for label in labels)


def _positions(name: str, options: dict[str, Any], games: int, seed: int) -> list[Any]:
    """Every position at the start of a move in ``games`` games of random play."""
    env = make_raw(name, options)
    rng = np.random.default_rng(seed)
    found = []
    for game in range(games):
        env.reset(seed=seed * 1000 + game)
        while live(env):
            if at_move_start(env):
                found.append(env.game_state())
            env.step(random_legal(env.action_mask(), rng))
    return found


def _accept_all(name: str, options: dict[str, Any], positions: list[Any]) -> None:
    """Each position passes ``validate_state`` and loads into an env and a slot, unchanged."""
    env = make_raw(name, options)
    vec = vector.make(name, 1, seed=0, **options)
    rules = env.rules
    for state in positions:
        rules.validate_state(state, env.config)
        env.set_game_state(state)
        assert env.game_state() is state
        vec.load(0, state)
        assert vec.state(0) == state


# Positions per game and variant in the default run: a few hundred per game.
GAMES_PER_VARIANT = {"red7_v0": 6, "jaipur_v0": 1, "haggis_v0": 1, "haggle_v0": 2, "gongzhu_v0": 1}


@pytest.mark.parametrize("name", ALL_ENVS)
def test_positions_of_random_play_are_accepted(name):
    total = 0
    for options in load(name).TEST_VARIANTS:
        positions = _positions(name, options, GAMES_PER_VARIANT[name], seed=1)
        positions = positions[:: max(1, len(positions) // 120)]  # spread over whole games
        _accept_all(name, options, positions)
        total += len(positions)
    assert total >= 200


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_ENVS)
def test_many_positions_of_random_play_are_accepted(name):
    for options in load(name).TEST_VARIANTS:
        _accept_all(name, options, _positions(name, options, 10 * GAMES_PER_VARIANT[name], seed=2))


@pytest.mark.parametrize("name", ALL_ENVS)
def test_rules_check_hidden_information_redeals(name):
    """A position with the hidden cards re-dealt for one seat (what search and the web app's
    checks load) is a position of the game too."""
    env = make_raw(name, {})
    rng = np.random.default_rng(3)
    for state in _positions(name, {}, 1, seed=3)[::7]:
        for seat in range(len(env.possible_agents)):
            env.rules.validate_state(env.rules.resample_hidden(state, seat, rng), env.config)


# -- the batched engine's arguments and outputs ---------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"seed": 1.5}, "seed"),
        ({"seed": -1}, "seed"),
        ({"seed": True}, "seed"),
        ({"seed": "3"}, "seed"),
        ({"name": None}, "name"),
        ({"name": 3}, "name"),
        ({"name": "chess_v0"}, "unknown env"),
        ({"num_envs": "4"}, "num_envs"),
        ({"num_envs": 2.0}, "num_envs"),
        ({"num_envs": None}, "num_envs"),
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": np.bool_(True)}, "num_envs"),
    ],
    ids=lambda value: repr(value),
)
def test_make_names_the_bad_argument(kwargs, named):
    arguments = {"name": "red7_v0", "num_envs": 4, "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=named):
        vector.make(**arguments)


def test_reset_refuses_a_bad_seed_and_changes_nothing():
    vec = vector.make("red7_v0", 2, seed=0)
    before = slot_snapshot(vec)
    for seed in (1.5, -1, True, "3"):
        with pytest.raises(ValueError, match="seed"):
            vec.reset(seed=seed)
        assert slot_snapshot(vec) == before


@pytest.mark.parametrize(
    ("active", "says"),
    [
        (np.ones(5, dtype=bool), "hold 4 flags.*got 5"),
        (np.ones(3, dtype=bool), "hold 4 flags.*got 3"),
        (np.ones((2, 2), dtype=bool), r"one-dimensional.*\(2, 2\)"),
        (np.ones(4, dtype=np.int64), "bool array.*int64"),
        ([1, 0, 1, 0], "bool array.*int64"),
        (np.ones(4, dtype=np.float32), "bool array.*float32"),
        (np.bool_(True), "one-dimensional.*\\(\\)"),
    ],
    ids=["too long", "too short", "2-D", "ints", "a list of ints", "floats", "a scalar"],
)
def test_active_errors_say_what_is_wrong(active, says):
    vec = vector.make("gongzhu_v0", 4, seed=0)
    actions = np.array([np.flatnonzero(row)[0] for row in vec.mask])
    before = slot_snapshot(vec)
    with pytest.raises(ValueError, match="active") as refused:
        vec.step(actions, active=active)
    assert re.search(says, str(refused.value)), refused.value
    assert slot_snapshot(vec) == before


def _types(value: Any) -> Any:
    """The type of a value and, inside tuples and dataclasses, of every item (the config aside)."""
    if isinstance(value, tuple):
        return (type(value).__name__, tuple(_types(v) for v in value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            tuple(
                (f.name, _types(getattr(value, f.name)))
                for f in dataclasses.fields(value)
                if f.name != "config"
            ),
        )
    return type(value).__name__


@pytest.mark.parametrize("name", ALL_ENVS)
def test_slot_states_have_the_aec_envs_types(name):
    """``state(i)`` of a stepped slot holds the same types as the AEC env's ``game_state()``
    (enums as enums: Haggle's ``stage`` is a ``Stage``), down to every tuple item."""
    options = load(name).TEST_VARIANTS[-1]
    vec = vector.make(name, 3, seed=2, **options)
    env = make_raw(name, options)
    rng = np.random.default_rng(0)
    for _ in range(40):
        for i in range(vec.num_envs):
            state = vec.state(i)
            env.set_game_state(state)
            for _ in range(3):  # the AEC env's own states from there (start of each move)
                if not live(env):
                    break
                if at_move_start(env):
                    own = env.game_state()
                    vec.load(i, own)
                    assert _types(vec.state(i)) == _types(own)
                env.step(random_legal(env.action_mask(), rng))
            vec.load(i, state)
        vec.step(np.array([rng.choice(np.flatnonzero(row)) for row in vec.mask]))
    if name == "haggle_v0":
        assert all(type(vec.state(i).stage) is Stage for i in range(vec.num_envs))


# -- env(): an action that is no action, as the raw env says it -----------------------------------
BAD_ACTIONS = "out of range", "negative", "None", "a float", "a numpy out-of-range int"


def _bad_action(kind: str, env: Any) -> Any:
    return {
        "out of range": env.encoding.num_actions,
        "negative": -1,
        "None": None,
        "a float": 1.5,
        "a numpy out-of-range int": np.int64(env.encoding.num_actions + 7),
    }[kind]


def _refusals(name: str) -> dict[str, list[str]]:
    """For each bad action: the error of the raw env and of ``env()``, and whether ``env()``
    was left as it was and then played on."""
    out: dict[str, list[str]] = {}
    for kind in BAD_ACTIONS:
        seen = []
        for wrapped in (False, True):
            env = make_wrapped(name, {}) if wrapped else make_raw(name, {})
            env.reset(seed=0)
            raw = env.unwrapped
            state, selection = raw.game_state(), raw.agent_selection
            try:
                env.step(_bad_action(kind, raw))
                seen.append("accepted")
            except Exception as error:  # noqa: BLE001 - the type and message are what is compared
                seen.append(f"{type(error).__name__}: {error}")
            unchanged = raw.game_state() is state and raw.agent_selection == selection
            env.step(int(np.flatnonzero(raw.action_mask())[0]))
            seen.append(f"unchanged={unchanged}, played on={raw.num_steps == 1}")
        out[kind] = seen
    return out


def _check_refusals(refusals: dict[str, list[str]]) -> None:
    for kind, (raw_error, raw_after, wrapped_error, wrapped_after) in refusals.items():
        assert wrapped_error == raw_error, kind
        assert wrapped_error.startswith(("IllegalMoveError", "ValueError", "TypeError")), (
            kind,
            wrapped_error,
        )
        assert wrapped_after == raw_after == "unchanged=True, played on=True", kind


@pytest.mark.parametrize("name", ALL_ENVS)
def test_wrapped_env_refuses_bad_actions_like_the_raw_env(name):
    _check_refusals(_refusals(name))


def test_wrapped_env_refuses_bad_actions_like_the_raw_env_under_python_O():
    code = (
        "import json\n"
        "from cardgames_env.registry import ALL_ENVS\n"
        "from tests.envs.test_state_validation import _refusals\n"
        "assert not __debug__\n"
        "print(json.dumps({name: _refusals(name) for name in ALL_ENVS}))\n"
    )
    done = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    for name, refusals in json.loads(done.stdout.splitlines()[-1]).items():
        assert set(refusals) == set(BAD_ACTIONS), name
        _check_refusals(refusals)


def test_wrapped_env_keeps_pettingzoo_order_checks():
    env = make_wrapped("red7_v0", {})
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    raw = env.unwrapped
    raw.terminations[raw.agent_selection] = True  # a dead agent's only action is None
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)
