"""The batched-engine API of every game: shapes, seeding, bad input, load/state, auto-reset."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env import registry, vector

ENGINES = vector.available()


def _random_actions(vec: vector.BatchedEngine, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in vec.mask])


def test_make_resolves_names_and_refuses_unknown() -> None:
    with pytest.raises(ValueError, match="unknown env"):
        vector.make("chess_v0", num_envs=2)
    for bad in (0, -1, 1.5, True, "4"):
        with pytest.raises(ValueError, match="num_envs"):
            vector.make(ENGINES[0], num_envs=bad)


@pytest.mark.parametrize("name", ENGINES)
def test_shapes_and_spaces(name: str) -> None:
    vec = vector.make(name, num_envs=5, seed=1)
    env = registry.load(name).raw_env()
    obs, mask, player = vec.reset(seed=2)
    assert obs.shape == (5, env.encoding.observation_size) and obs.dtype == np.float32
    assert mask.shape == (5, env.encoding.num_actions) and mask.dtype == np.bool_
    assert player.shape == (5,) and np.all((0 <= player) & (player < vec.num_players))
    assert vec.possible_agents == env.possible_agents
    assert vec.observation_space.shape == (vec.observation_size,)
    assert vec.action_space.n == vec.action_size
    assert mask.any(axis=1).all(), "every slot has a legal action"
    obs, mask, player, rewards, done = vec.step(_random_actions(vec, np.random.default_rng(0)))
    assert rewards.shape == (5, vec.num_players) and rewards.dtype == np.float32
    assert done.shape == (5,) and done.dtype == np.bool_


@pytest.mark.parametrize("name", ENGINES)
def test_same_seed_same_games(name: str) -> None:
    runs = []
    for _ in range(2):
        vec = vector.make(name, num_envs=4, seed=7)
        rng = np.random.default_rng(3)
        trace = [vec.obs.copy()]
        for _ in range(60):
            vec.step(_random_actions(vec, rng))
            trace.append(vec.obs.copy())
            trace.append(vec.rewards.copy())
        runs.append(trace)
    assert all(np.array_equal(a, b) for a, b in zip(runs[0], runs[1]))
    other = vector.make(name, num_envs=4, seed=8)
    assert not np.array_equal(other.obs, runs[0][0]), "another seed deals other games"


@pytest.mark.parametrize("name", ENGINES)
def test_bad_actions_change_nothing(name: str) -> None:
    vec = vector.make(name, num_envs=3, seed=5)
    rng = np.random.default_rng(0)
    for _ in range(5):
        vec.step(_random_actions(vec, rng))
    before = (vec.obs.copy(), vec.mask.copy(), vec.player.copy(), [vec.state(i) for i in range(3)])
    good = _random_actions(vec, rng)
    illegal_slot = 1
    illegal = int(np.flatnonzero(~vec.mask[illegal_slot])[0]) if (~vec.mask[illegal_slot]).any() else None
    bad_inputs: list[tuple[object, str]] = [
        (good[:2], "shape"),
        (good.reshape(3, 1), "shape"),
        (good.astype(np.float64), "integers"),
        (np.array([True, False, True]), "integers"),
        (np.array([good[0], good[1], vec.action_size]), "slot 2: action"),
        (np.array([good[0], good[1], -1]), "slot 2: action -1"),
    ]
    if illegal is not None:
        bad_inputs.append((np.array([good[0], illegal, good[2]]), f"slot 1: action {illegal} is not legal"))
    for actions, message in bad_inputs:
        with pytest.raises(ValueError, match=message):
            vec.step(actions)
        assert np.array_equal(vec.obs, before[0]) and np.array_equal(vec.mask, before[1])
        assert np.array_equal(vec.player, before[2])
        assert [vec.state(i) for i in range(3)] == before[3]


@pytest.mark.parametrize("name", ENGINES)
def test_load_refuses_bad_input(name: str) -> None:
    vec = vector.make(name, num_envs=2, seed=0)
    env = registry.load(name).raw_env()
    env.reset(seed=0)
    state = env.game_state()
    for slot in (-1, 2, 1.0, True):
        with pytest.raises(ValueError, match="slot"):
            vec.load(slot, state)
    with pytest.raises(ValueError, match="State"):
        vec.load(0, "not a state")
    before = vec.obs.copy()
    vec.load(1, state)
    assert vec.state(1) == state
    assert np.array_equal(vec.obs[0], before[0]), "loading slot 1 leaves slot 0 alone"
    assert vec.obs[1].tobytes() == env.observe(env.agent_selection)["observation"].tobytes()


@pytest.mark.parametrize("name", ENGINES)
def test_copied_slots_hold_the_loaded_game_and_step_like_it(name: str) -> None:
    """``copy_slots`` makes a slot what loading the same state there makes it: the same state,
    observation, mask and player, and the same next step; other slots are left alone."""
    env = registry.load(name).raw_env()
    env.reset(seed=3)
    state = env.game_state()
    copied = vector.make(name, num_envs=4, seed=5)
    loaded = vector.make(name, num_envs=4, seed=5)
    untouched = copied.obs[3].copy()
    copied.load(0, state)
    copied.copy_slots([0, 0], [1, 2])
    for slot in (0, 1, 2):
        loaded.load(slot, state)
    assert np.array_equal(copied.obs[3], untouched)
    for slot in (1, 2):
        assert copied.state(slot) == state
        assert copied.obs[slot].tobytes() == loaded.obs[slot].tobytes()
        assert np.array_equal(copied.mask[slot], loaded.mask[slot])
        assert copied.player[slot] == loaded.player[slot]
    actions = np.zeros(4, dtype=np.int64)
    actions[:3] = np.flatnonzero(loaded.mask[0])[-1]
    moving = np.array([True, True, True, False])
    copied.step(actions, moving)
    loaded.step(actions, moving)
    for slot in (1, 2):
        assert copied.state(slot) == loaded.state(slot)
    with pytest.raises(ValueError, match="slot indices"):
        copied.copy_slots([0], [4])


@pytest.mark.parametrize("name", ENGINES)
def test_bad_options_raise_like_the_aec_env(name: str) -> None:
    with pytest.raises(ValueError, match="unknown option") as vec_error:
        vector.make(name, num_envs=2, colour="blue")
    with pytest.raises(ValueError, match="unknown option") as env_error:
        registry.load(name).raw_env(colour="blue")
    assert str(vec_error.value) == str(env_error.value)
    with pytest.raises(ValueError, match="max_steps"):
        vector.make(name, num_envs=2, max_steps=0)


@pytest.mark.parametrize("name", ENGINES)
def test_games_end_and_restart_in_place(name: str) -> None:
    vec = vector.make(name, num_envs=8, seed=11, max_steps=40)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(200):
        _, mask, player, _, done = vec.step(_random_actions(vec, rng))
        ended += int(done.sum())
        assert mask.any(axis=1).all() and np.all(player < vec.num_players)
        assert np.all(vec.steps[done] == 0), "a restarted slot counts its new game from 0"
        assert np.all(vec.steps <= 40)
    assert ended >= 8 * (200 // 40), "every slot ends at the latest at max_steps decisions"


@pytest.mark.parametrize("name", ENGINES)
def test_active_slots_move_alone(name: str) -> None:
    """``step(actions, active)``: only the active slots move; the others keep their rows, get
    zero rewards, and their (possibly illegal) actions are not read; the moving slots play
    exactly as they would in a full step."""
    rng = np.random.default_rng(4)
    partial = vector.make(name, num_envs=4, seed=9)
    full = vector.make(name, num_envs=4, seed=9)
    for _ in range(30):
        actions = _random_actions(partial, rng)
        active = np.array([True, False, True, False])
        sitting = partial.obs[~active].copy(), partial.mask[~active].copy(), partial.player[~active].copy()
        given = actions.copy()
        given[~active] = partial.action_size + 5  # never read
        partial.step(given, active=active)
        assert np.array_equal(given[~active], [partial.action_size + 5] * 2), "actions are not modified"
        assert np.array_equal(partial.obs[~active], sitting[0])
        assert np.array_equal(partial.mask[~active], sitting[1])
        assert np.array_equal(partial.player[~active], sitting[2])
        assert not partial.rewards[~active].any() and not partial.done[~active].any()
        for i in (1, 3):  # the full engine's sitting slots replay the same move the partial one skips
            full.load(i, partial.state(i))
        actions_full = actions.copy()
        actions_full[~active] = _random_actions(full, rng)[~active]
        full.step(actions_full)
        assert np.array_equal(full.obs[active], partial.obs[active])
        assert np.array_equal(full.rewards[active], partial.rewards[active])
    with pytest.raises(ValueError, match="active"):
        partial.step(_random_actions(partial, rng), active=np.array([1, 0, 1, 0]))


@pytest.mark.parametrize("name", ENGINES)
def test_threaded_and_one_thread_kernels_play_the_same_games(name: str) -> None:
    """Slots draw from their own streams, so the threaded kernel (forced) plays exactly the
    one-thread kernel's games, slot for slot, whatever the thread schedule."""
    engines = [vector.make(name, num_envs=vector.PARALLEL_MIN_ENVS, seed=9) for _ in range(2)]
    engines[0].parallel = False
    engines[1].parallel = True
    rng = np.random.default_rng(4)
    for _ in range(60):
        actions = _random_actions(engines[0], rng)
        for vec in engines:
            vec.step(actions)
        for field in ("obs", "mask", "player", "rewards", "done", "truncated", "steps"):
            assert np.array_equal(getattr(engines[0], field), getattr(engines[1], field)), field
    assert not engines[0].parallel and engines[1].parallel, "a forced choice stays"


@pytest.mark.parametrize("name", ENGINES)
def test_any_split_into_chunks_plays_the_same_games(name: str) -> None:
    """The threaded kernel gives each chunk of slots to one thread; however the slots are split
    (uneven chunks, more chunks than threads, one chunk), every slot plays the same games as
    on one thread, state rows and outputs alike."""
    n = 300
    splits = [np.array(b, dtype=np.int64) for b in ([0, 300], [0, 128, 300], [0, 64, 128, 192, 256, 300],
                                                     [0, 5, 6, 150, 299, 300])]
    engines = [vector.make(name, num_envs=n, seed=3) for _ in range(len(splits) + 1)]
    rng = np.random.default_rng(8)
    for step in range(80):
        checked = engines[0].check_actions(_random_actions(engines[0], rng))
        engines[0].chooser.serial(engines[0].chunks(), checked, *engines[0]._kernel_args)
        for vec, bounds in zip(engines[1:], splits):
            vec.chooser.threaded(bounds, checked, *vec._kernel_args)
            for field in ("obs", "mask", "player", "rewards", "done", "truncated", "steps", "rng_state",
                          "slots", "final_slots"):
                assert np.array_equal(getattr(engines[0], field), getattr(vec, field)), (step, bounds, field)


def test_check_names_the_first_bad_slot_and_changes_nothing() -> None:
    """With bad actions in several chunks, on either kernel, the error names the first
    out-of-range slot (before any illegal one), else the first illegal slot."""
    n = 300
    for parallel in (False, True):
        vec = vector.make(ENGINES[0], num_envs=n, seed=1)
        vec.parallel = parallel
        rng = np.random.default_rng(2)
        good = _random_actions(vec, rng)
        illegal = [int(np.flatnonzero(~vec.mask[i])[0]) for i in range(n)]
        before = vec.obs.copy(), vec.mask.copy(), vec.slots.copy()
        cases = [((270, vec.action_size), (10, illegal[10])), ((200, -3), (250, illegal[250]))]
        for (far, big), (near, bad) in cases:
            actions = good.copy()
            actions[far], actions[near] = big, bad
            with pytest.raises(ValueError, match=f"slot {far}: action {big} is out of range"):
                vec.step(actions)
            actions[far] = good[far]
            with pytest.raises(ValueError, match=f"slot {near}: action {bad} is not legal"):
                vec.step(actions)
            actions[270] = illegal[270]
            with pytest.raises(ValueError, match=f"slot {near}: action"):
                vec.step(actions)
        assert np.array_equal(vec.obs, before[0]) and np.array_equal(vec.mask, before[1])
        assert np.array_equal(vec.slots, before[2]), "a rejected step changes no slot"
        sitting = np.zeros(n, dtype=np.bool_)
        sitting[::3] = True
        actions = good.copy()
        actions[~sitting] = -7  # never read
        checked = vec.check_actions(actions, sitting)
        assert np.array_equal(np.flatnonzero(checked == -1), np.flatnonzero(~sitting))
        vec.step(actions, active=sitting)


@pytest.mark.parametrize("threaded_seconds, expected", [(0.010, False), (0.0005, True)])
def test_kernel_chooser_keeps_the_faster_kernel(threaded_seconds: float, expected: bool) -> None:
    calls: list[str] = []
    chooser = vector.KernelChooser(lambda: calls.append("one"), lambda: calls.append("threads"), True)
    for _ in range(2000):  # one-thread steps take 1 ms; threaded ones threaded_seconds
        chooser.record(threaded_seconds if chooser.kernel() is chooser.threaded else 0.001)
    assert chooser.parallel is expected
    chooser.enabled = False  # no more probes: run() calls the kernel in use
    chooser.run()
    assert calls == ["threads" if expected else "one"]
    small = vector.make(ENGINES[0], num_envs=vector.PARALLEL_MIN_ENVS - 1, seed=0)
    assert not small.chooser.enabled and not small.parallel, "small batches stay on one thread"


@pytest.mark.parametrize(
    "preset, expected",
    [({}, ("PASSIVE", "1000")), ({"OMP_WAIT_POLICY": "ACTIVE"}, ("ACTIVE", None)),
     ({"GOMP_SPINCOUNT": "50"}, ("PASSIVE", "50"))],
)
def test_import_sets_a_short_openmp_spin_unless_a_policy_is_set(preset: dict, expected: tuple) -> None:
    """Importing the engines sets the OpenMP workers' wait (a short spin, then sleep) before the
    runtime loads, and leaves a wait policy or spin count given in the environment alone."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    script = ("import os, cardgames_env.vector; "
              "print(os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))")
    out = subprocess.run([sys.executable, "-c", script], env={**env, **preset}, capture_output=True,
                         text=True, check=True).stdout.split()
    assert tuple(None if v == "None" else v for v in out) == expected


FINAL_CASES = [
    (name, options, max_steps)
    for name in ENGINES
    for options in registry.load(name).TEST_VARIANTS
    for max_steps in (None, 25)
]


@pytest.mark.parametrize(("name", "options", "max_steps"), FINAL_CASES)
def test_final_observations_are_the_encodings_of_final_states(
    name: str, options: dict, max_steps: int | None
) -> None:
    """Random play to many game ends (terminal, or cut at the turn limit), every variant: every
    seat's final observation and the final points equal the AEC encoding's and the rules' of
    ``final_state``."""
    from tests.vector.differential import check_final_outputs

    vec = vector.make(name, num_envs=16, seed=5, max_steps=max_steps, **options)
    rng = np.random.default_rng(5)
    ended = 0
    for _ in range(3000):
        *_, done = vec.step(_random_actions(vec, rng))
        if done.any():
            slots = np.flatnonzero(done)
            ended += len(slots)
            check_final_outputs(vec, slots)
        if ended >= 24:
            break
    assert ended >= 24, f"{name}: only {ended} games ended"


def test_final_observations_refuse_bad_input() -> None:
    vec = vector.make("red7_v0", num_envs=4, seed=0)
    for slots, seats, message in (
        ([4], [0], "slots must lie in 0..3"),
        ([0], [9], "seats must lie in"),
        ([0, 1], [0], "same length"),
        ([0.5], [0], "integer array"),
    ):
        with pytest.raises(ValueError, match=message):
            vec.final_observations(slots, seats)
    with pytest.raises(ValueError, match="out must be a float32 array"):
        vec.final_observations([0], [0], out=np.zeros((2, vec.observation_size), dtype=np.float32))
