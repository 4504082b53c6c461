"""The compiled search's playouts: a playout in the batched engine is the rules engine's playout
of the same determinization and the same choices, the engine only ever holds states of the
searching seat's information set, and the search keeps to its time cap."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from cardgames_env import vector
from cardgames_env.agents import playouts as playouts_module
from cardgames_env.agents import search as search_module
from cardgames_env.agents.playouts import BatchedPlayouts
from cardgames_env.agents.search import SearchAgent, load_hooks
from cardgames_env.core.game import CHANCE
from cardgames_env.registry import ALL_ENVS, load

from .test_search import VARIANTS, positions


def _rules_value(hooks, rules, root, state, player):
    return hooks.value(root, state, player) if hooks.value is not None else rules.returns(state)[player]


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_a_compiled_playout_is_the_rules_playout_move_by_move(name, options):
    """From determinizations of the seat to move, the engine's playout (the compiled heuristic
    choosing for every seat) and the rules engine fed the same actions pass through the same
    states with the same legal actions; at the end of the game they agree on the final state
    and its value (also as the hooks' ``points_value`` scores it from the points alone), and
    at a new deal the engine's ``dealt_value`` equals the rules' ``value`` of the state where
    the round ended."""
    raw = load(name).raw_env(**options)
    rules, encoding = raw.rules, raw.encoding
    hooks = load_hooks(raw.info.name)
    rng = np.random.default_rng(5)
    playouts = BatchedPlayouts(raw, hooks, slots=1, seed=3)
    engine = playouts.engine
    live = np.ones(1, dtype=np.bool_)
    endings = {"end": 0, "deal": 0, "points": 0}
    for root in positions(name, options, games=2, every=2, limit=3):
        me = rules.current_player(root)
        determinization = hooks.resample(hooks.infoset(root, me), me, rng)
        engine.load(0, determinization)
        if hasattr(playouts.policy, "end_games"):
            playouts.policy.end_games(np.arange(engine.num_players))
        decision = encoding.to_decision(determinization)
        stream = engine.rng_state.copy()
        for _ in range(3000):
            assert engine.state(0) == encoding.rules_state(decision)
            assert np.array_equal(engine.mask[0], encoding.legal_action_mask(decision).astype(bool))
            action = int(playouts.policy_actions(live)[0])
            decision = encoding.apply_action(decision, action)
            engine.step(np.array([action]))
            state = encoding.rules_state(decision)
            if engine.done[0]:
                assert rules.current_player(state) < 0 or engine.truncated[0]
                final = engine.final_state(0)
                assert final == state
                # The playouts score it as the Python search does: a pending chance event
                # (a scoring draw) dealt by the rules, then the value hook.
                seed = int(rng.integers(1 << 30))
                playouts.rng = np.random.default_rng(seed)
                got = playouts.finished_value(determinization, final, me)
                deal_rng = np.random.default_rng(seed)
                while rules.current_player(state) == CHANCE:
                    state = rules.apply_deal(state, rules.sample_deal(state, deal_rng))
                assert rules.current_player(state) < 0 and rules.current_player(state) != CHANCE
                assert got == _rules_value(hooks, rules, determinization, state, me)
                if hooks.points_value is not None and not engine.truncated[0]:
                    # The same value from the points alone, where the hook scores the variant.
                    scored = hooks.points_value(determinization, engine.final_points([0]), me)
                    if scored is not None:
                        assert scored.shape == (1,) and scored[0] == pytest.approx(got)
                        endings["points"] += 1
                if hooks.engine_final_value is not None and not engine.truncated[0]:
                    # The same value read from the engine's arrays.
                    scored = hooks.engine_final_value(determinization, engine, np.array([0]), me)
                    if scored is not None:
                        assert scored.shape == (1,) and scored[0] == pytest.approx(got)
                        endings["points"] += 1
                endings["end"] += 1
                break
            if rules.current_player(state) == CHANCE:
                assert (engine.rng_state != stream).all()  # the engine dealt the next round
                if hooks.dealt_value is not None:
                    expected = hooks.value(determinization, state, me)
                    assert hooks.dealt_value(determinization, engine.state(0), me) == pytest.approx(expected)
                    if hooks.engine_dealt_value is not None:
                        scored = hooks.engine_dealt_value(determinization, engine, np.array([0]), me)
                        assert scored is not None and scored[0] == pytest.approx(expected)
                endings["deal"] += 1
                break
            assert (engine.rng_state == stream).all()  # no chance event inside a round
        else:
            pytest.fail("a playout did not end")
    assert endings["end"] + endings["deal"] >= 2


def _recording_loads(monkeypatch, agent):
    """Record every state the agent's batched engine is given, and every determinization it
    draws itself (``redeal_hidden``)."""
    loaded: list = []
    engine = agent.playouts().engine
    real_load = engine._load
    real_redeal = engine.redeal_hidden

    def recording(i, state):
        loaded.append(state)
        return real_load(i, state)

    def recording_redeal(slots, seat):
        redealt = real_redeal(slots, seat)
        if redealt:
            loaded.extend(engine.state(int(i)) for i in slots)
        return redealt

    monkeypatch.setattr(engine, "_load", recording)
    monkeypatch.setattr(engine, "redeal_hidden", recording_redeal)
    return loaded


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_the_engine_only_holds_states_of_the_seats_information_set(name, options, monkeypatch):
    """Every state the compiled search loads into its engine is in the searching seat's
    information set (same canonical state as the position searched): a determinization
    never contradicts what the seat has seen."""
    raw = load(name).raw_env(**options)
    rules = raw.rules
    hooks = load_hooks(raw.info.name)
    checked = 0
    for state in positions(name, options, games=1, every=3, limit=3):
        me = rules.current_player(state)
        agent = SearchAgent(raw, "search:iterations=24:batch=8", seed=1)
        loaded = _recording_loads(monkeypatch, agent)
        move = agent.choose_move(state)
        assert move in rules.legal_moves(state)
        canonical = hooks.infoset(state, me)
        for determinization in loaded:
            assert rules.current_player(determinization) == me
            assert hooks.infoset(determinization, me) == canonical
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("name", ALL_ENVS)
def test_the_real_hidden_cards_never_reach_the_engine(name, monkeypatch):
    """The engine's states are the same whichever consistent hidden cards the real position
    holds (two positions of one information set, the same seed)."""
    raw = load(name).raw_env()
    rules = raw.rules
    rng = np.random.default_rng(2)
    compared = 0
    for state in positions(name, {}, games=2, every=3, limit=2):
        player = rules.current_player(state)
        other = rules.resample_hidden(state, player, rng)
        if other == state:
            continue
        runs = []
        for position in (state, other):
            agent = SearchAgent(raw, "search:iterations=16:batch=8", seed=4)
            loaded = _recording_loads(monkeypatch, agent)
            runs.append((agent.choose_move(position), loaded))
        assert runs[0][0] == runs[1][0]
        assert runs[0][1] == runs[1][1]
        compared += 1
    assert compared >= 1


class _Clock:
    """A CPU clock that advances a fixed step at every reading."""

    def __init__(self, step: float):
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_the_time_cap_bounds_the_simulations(monkeypatch):
    """With a clock that advances 10 ms at each reading, a 50 ms cap allows a first batch
    and then only batches that the measured cost per simulation fits in the time left."""
    env = load("red7_v0").raw_env()
    env.reset(seed=0)
    clock = _Clock(0.01)
    monkeypatch.setattr(search_module.time, "thread_time", clock)
    agent = SearchAgent(env, "search:time=0.05:batch=64", seed=0)
    agent.playouts()
    state = env.game_state()
    move = agent.choose_move(state)
    assert move in env.rules.legal_moves(state)
    # Readings: the decision's start (0.01; deadline 0.01 + 0.05 * 0.97 = 0.0585), the
    # batches' starts and ends (10 ms apart): the first batch (32) starts at 0.02 and costs
    # 10 ms; the second starts at 0.04 with 18.5 ms left, sized to fill 60% of it (11.1 ms:
    # 1.11 times the first batch's time, 35 simulations); the third would start at 0.06,
    # past the deadline.
    assert search_module.FIRST_TIMED_BATCH == 32 and search_module.TIMED_SHARE == 0.6
    assert search_module.CAP_RESERVE == 0.03
    assert agent.last_iterations == 32 + 35


def test_a_timed_batch_is_sized_from_the_last_one():
    """Linear in the time above the last batch's, quadratic below it (a smaller batch costs
    more per simulation), none once the time is up: 100 simulations took 20 ms, so 40 ms fit
    200, 10 ms fit 100 * (1/2)^2 = 25, and 0 or less fit none."""
    assert search_module._timed_batch(100, 0.02, 0.04) == 200
    assert search_module._timed_batch(100, 0.02, 0.01) == 25
    assert search_module._timed_batch(100, 0.02, 0.0) == 0
    assert search_module._timed_batch(100, 0.02, -0.01) == 0


@pytest.mark.parametrize(
    ("name", "options", "fast_hooks"),
    [
        ("red7_v0", {}, ("points_value",)),
        ("gongzhu_v0", {}, ("points_value",)),
        ("jaipur_v0", {}, ("engine_dealt_value", "engine_final_value")),
    ],
)
def test_finished_games_scored_from_their_points_score_as_their_states(
    name, options, fast_hooks, monkeypatch
):
    """Where the hooks score the variant from the points (``points_value``) or from the
    engine's arrays (``engine_dealt_value``, ``engine_final_value``), the playouts score every
    finished game and every finished round without reading it back as a state, and the values
    are those of the same playouts scored state by state (the hooks removed)."""
    raw = load(name).raw_env(**options)
    hooks = load_hooks(raw.info.name)
    assert all(getattr(hooks, hook) is not None for hook in fast_hooks)
    rng = np.random.default_rng(0)
    states = []
    for root in positions(name, options, games=2, every=2, limit=4):
        me = raw.rules.current_player(root)
        states.append((root, me, [hooks.resample(hooks.infoset(root, me), me, rng) for _ in range(6)]))
    fast = BatchedPlayouts(raw, hooks, slots=8, seed=3)
    slow = BatchedPlayouts(raw, dataclasses.replace(hooks, **dict.fromkeys(fast_hooks)), slots=8, seed=3)
    read_back = []
    for reader in ("final_state", "state"):
        real = getattr(fast.engine, reader)
        monkeypatch.setattr(fast.engine, reader, lambda i, real=real: read_back.append(i) or real(i))
    for root, me, determinizations in states:
        got = fast.play(determinizations, root, me)
        assert got == pytest.approx(slow.play(determinizations, root, me), abs=1e-12)
        assert np.unique(got).size > 1  # real results, not one constant
    assert read_back == []


def test_finished_games_scored_from_their_returns_score_as_their_states(monkeypatch):
    """Where the hooks' ``returns_value`` scores the variant (Haggle), the playouts score every
    finished game from the returns its simulation gained, without reading it back as a state,
    and the values are those of the same playouts scored state by state. The positions hold
    hands of at most 10 cards and the playouts make at most the one trade under way, so no
    hand reaches the 13-card cap and its random draw: the two scorings must agree exactly."""
    raw = load("haggle_v0").raw_env()
    hooks = load_hooks("haggle_v0")
    assert hooks.returns_value is not None
    rng = np.random.default_rng(0)
    cases = []
    for root in positions("haggle_v0", {}, games=3, every=1, limit=40):
        if max(sum(hand) for hand in root.hands) <= 10:
            me = raw.rules.current_player(root)
            cases.append((root, me, [hooks.resample(hooks.infoset(root, me), me, rng) for _ in range(6)]))
    assert len(cases) >= 10
    fast = BatchedPlayouts(raw, hooks, slots=8, policy="light", seed=3)
    slow_hooks = dataclasses.replace(hooks, returns_value=None)
    slow = BatchedPlayouts(raw, slow_hooks, slots=8, policy="light", seed=3)
    read_back = []
    real_final_state = fast.engine.final_state
    monkeypatch.setattr(fast.engine, "final_state", lambda i: read_back.append(i) or real_final_state(i))
    values = []
    for root, me, determinizations in cases:
        got = fast.play(determinizations, root, me)
        assert got == pytest.approx(slow.play(determinizations, root, me), abs=1e-6)  # float32 rewards
        values.extend(got.tolist())
    assert np.unique(np.round(values, 6)).size > 3  # real results, not one constant
    assert read_back == []


def test_haggles_playouts_pass_as_its_light_policy():
    """Haggle's hooks give its compiled playouts a policy that passes where its heuristic
    trades: from a proposal's start every seat passes, and the game ends once ``N`` seats in a
    row have passed or the last round's proposers have (the heuristic proposes trades there,
    so its playouts run longer)."""
    raw = load("haggle_v0").raw_env()
    hooks = load_hooks("haggle_v0")
    assert hooks.light_policy is not None and hooks.playouts == "light"
    starts = [state for state in positions("haggle_v0", {}, games=2, every=1, limit=30)
              if state.stage == state.stage.PROPOSE]
    assert len(starts) >= 5
    n, rounds = raw.config.num_players, raw.config.trading_rounds
    passes_to_end = sum(
        min(n - state.passes, (rounds - state.round) * n - state.proposer) for state in starts
    )
    steps = {}
    for label, policy in (("passing", "light"), ("heuristic", "heuristic")):
        playouts = BatchedPlayouts(raw, hooks, slots=8, policy=policy, seed=1)
        for state in starts:
            playouts.play([state] * 8, state, raw.rules.current_player(state))
        steps[label] = playouts.steps
    assert steps["passing"] == 8 * passes_to_end
    assert steps["heuristic"] > steps["passing"]


def test_a_playout_past_the_step_limit_is_scored_where_it_stands(monkeypatch):
    """A playout cut at the step limit gets the value of the position it reached."""
    raw = load("gongzhu_v0").raw_env()
    raw.reset(seed=1)
    hooks = load_hooks("gongzhu_v0")
    monkeypatch.setattr(playouts_module, "MAX_PLAYOUT_STEPS", 3)
    playouts = BatchedPlayouts(raw, hooks, slots=2, seed=0)
    root = raw.game_state()
    me = raw.rules.current_player(root)
    values = playouts.play([root, root], root, me)
    assert values.shape == (2,)
    assert np.allclose(values, hooks.value(root, playouts.engine.state(0), me))


@pytest.mark.parametrize("name", ALL_ENVS)
def test_slots_copied_from_one_load_play_as_slots_loaded_one_by_one(name):
    """Several slots given one state object are filled by copying the first slot's rows; they
    play exactly as slots loaded one by one from equal states (same seeds)."""
    raw = load(name).raw_env()
    hooks = load_hooks(raw.info.name)
    root = positions(name, {}, games=1, every=3, limit=2)[-1]
    me = raw.rules.current_player(root)
    state = hooks.resample(hooks.infoset(root, me), me, np.random.default_rng(0))
    copies = [pickle.loads(pickle.dumps(state)) for _ in range(4)]
    assert all(copy is not state and copy == state for copy in copies)
    shared = BatchedPlayouts(raw, hooks, slots=4, seed=9)
    separate = BatchedPlayouts(raw, hooks, slots=4, seed=9)
    a = shared.play([state] * 4, root, me)
    b = separate.play(copies, root, me)
    assert np.array_equal(a, b)
    assert shared.steps == separate.steps


@pytest.mark.parametrize("name", ALL_ENVS)
def test_playouts_in_one_engine_call_score_as_stepped_playouts(name):
    """Where the engine plays a batch out in one call (``fused``), the playouts' values and
    steps are those of stepping the same slots one decision at a time."""
    raw = load(name).raw_env()
    hooks = load_hooks(raw.info.name)
    rng = np.random.default_rng(3)
    fused = BatchedPlayouts(raw, hooks, slots=24, seed=9)
    stepped = BatchedPlayouts(raw, hooks, slots=24, seed=9)
    stepped.fused = False
    assert fused.fused == (fused.engine.play_out(fused.policy, np.zeros(0, dtype=np.int64)))
    for root in positions(name, {}, games=1, every=3, limit=3):
        me = raw.rules.current_player(root)
        states = [hooks.resample(hooks.infoset(root, me), me, rng) for _ in range(24)]
        prefixes = [[int(np.flatnonzero(fused.engine.encoding.legal_action_mask(
            fused.engine.encoding.to_decision(state)))[0])] for state in states]
        expected = stepped.play(states, root, me, prefixes)
        assert np.array_equal(fused.play(states, root, me, prefixes), expected)
        assert fused.steps == stepped.steps


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_redealt_slots_hold_states_of_the_seats_information_set(name, options):
    """Where the engine re-deals hidden cards itself (``redeal_hidden``), every re-dealt slot
    holds a valid state of the seat's information set (the same canonical state: the
    determinization never contradicts what the seat has seen), with the outputs a load of
    that state writes; the hidden cards move between re-deals; the slots left out do not
    change. Elsewhere ``redeal_hidden`` returns ``False`` and changes nothing."""
    raw = load(name).raw_env(**options)
    rules = raw.rules
    infoset = load_hooks(raw.info.name).infoset
    engine = vector.make(name, num_envs=16, seed=3, **options)
    reference = vector.make(name, num_envs=1, seed=0, **options)
    states = positions(name, options, games=2, every=3, limit=8)
    moved = 0
    for state in states:
        mover = rules.current_player(state)
        for seat in (mover, (mover + 1) % engine.num_players):
            key = infoset(state, seat)
            for i in range(16):
                engine.load(i, key)
            if not engine.redeal_hidden(np.arange(0, 16, 2), seat):
                assert all(engine.state(i) == key for i in range(16))
                continue
            redealt = [engine.state(i) for i in range(16)]
            for i, got in enumerate(redealt):
                if i % 2:
                    assert got == key
                    continue
                rules.validate_state(got, engine.config)
                assert infoset(got, seat) == key
                reference.load(0, got)
                assert np.array_equal(reference.obs[0], engine.obs[i])
                assert np.array_equal(reference.mask[0], engine.mask[i])
                assert reference.player[0] == engine.player[i]
            moved += len(set(redealt[::2])) > 1
    assert moved > 0 or not BatchedPlayouts(raw, load_hooks(raw.info.name), slots=1, seed=0).redeals


def test_redeal_checks_its_seat_and_slots():
    engine = vector.make("red7_v0", num_envs=4, seed=0)
    before = engine.slots.copy()
    for seat in (2, -1, True, 0.0):
        with pytest.raises(ValueError, match="seat"):
            engine.redeal_hidden([0], seat)
    with pytest.raises(ValueError, match="slots"):
        engine.redeal_hidden([7], 0)
    assert np.array_equal(engine.slots, before)


def test_red7s_engine_plays_its_heuristics_playouts_in_one_call():
    raw = load("red7_v0").raw_env()
    assert BatchedPlayouts(raw, load_hooks("red7_v0"), slots=4, seed=0).fused


def test_determinizations_redealt_by_the_engine_play_as_loaded_ones():
    """``play_redealt`` loads the information set's canonical state, lets the engine re-deal
    every ``shared``-th slot and copies each re-deal to the slots after it: the values are
    those of ``play`` on the same determinizations read back from an engine with the same
    streams (Red7's basic game: the playouts draw nothing from the streams)."""
    raw = load("red7_v0").raw_env()
    hooks = load_hooks("red7_v0")
    root = positions("red7_v0", {}, games=1, every=3, limit=2)[-1]
    me = raw.rules.current_player(root)
    infoset = hooks.infoset(root, me)
    redealt = BatchedPlayouts(raw, hooks, slots=12, seed=4)
    assert redealt.redeals
    values = redealt.play_redealt(infoset, 10, 4, root, me)
    twin = BatchedPlayouts(raw, hooks, slots=12, seed=4).engine
    for i in range(10):
        twin.load(i, infoset)
    twin.redeal_hidden(np.array([0, 4, 8]), me)
    states = [twin.state(i - i % 4) for i in range(10)]
    assert len(set(states)) == 3
    assert all(hooks.infoset(state, me) == infoset for state in states)
    assert np.array_equal(values, BatchedPlayouts(raw, hooks, slots=12, seed=4).play(states, root, me))
    with pytest.raises(ValueError, match="count"):
        redealt.play_redealt(infoset, 13, 4, root, me)
    haggle = load("haggle_v0").raw_env()
    other = BatchedPlayouts(haggle, load_hooks("haggle_v0"), slots=4, seed=0)
    assert not other.redeals
    with pytest.raises(ValueError, match="cannot re-deal"):
        other.play_redealt(None, 4, 4, None, 0)


def test_batched_selection_tries_every_move_then_follows_ucb_with_virtual_losses():
    """Hand-checked: three root moves with (visits, total) A (1, 1.0), B (1, 0.0), C (2, 0.0)
    after 4 simulations, c = 1, a batch of 2: log n = log 6 = 1.792 (the batch's end). Scores:
    A 1 + sqrt(1.792) = 2.339, B 0 + 1.339, C 0 + sqrt(1.792 / 2) = 0.947: A first; then A,
    with a virtual loss, is (2, 0.0): 0.947, so B (1.339) is next."""
    children = [search_module._Node() for _ in range(3)]
    for child, (visits, total) in zip(children, [(1, 1.0), (1, 0.0), (2, 0.0)]):
        child.visits, child.total = visits, total
    assert search_module._select_batch(children, done=4, size=2, c=1.0) == [0, 1]
    assert [(child.visits, child.total) for child in children] == [(2, 0.0), (2, -1.0), (2, 0.0)]
    # Untried moves come first, in order, then UCB: four moves, two tried, a batch of three.
    fresh = [search_module._Node() for _ in range(4)]
    fresh[0].visits, fresh[0].total = 1, -1.0
    fresh[1].visits, fresh[1].total = 1, 1.0
    assert search_module._select_batch(fresh, done=2, size=3, c=0.0) == [2, 3, 1]


def test_playouts_step_on_one_thread(monkeypatch):
    """The search's engine is large enough for the threaded step kernel but never runs it:
    the search plays on one core, its time cap being its own thread's CPU time."""
    from cardgames_env.core import engine as engine_module

    raw = load("red7_v0").raw_env()
    raw.reset(seed=1)
    slots = 2 * engine_module.PARALLEL_MIN_ENVS
    playouts = BatchedPlayouts(raw, load_hooks(raw.info.name), slots=slots, seed=0)
    chooser = playouts.engine.chooser
    monkeypatch.setattr(chooser, "threaded", lambda *args: pytest.fail("the threaded kernel ran"))
    root = raw.game_state()
    me = raw.rules.current_player(root)
    for _ in range(20):  # enough steps for a chooser that times kernels to probe the other one
        playouts.play([root] * slots, root, me)
    assert not playouts.engine.parallel and not chooser.enabled


@pytest.mark.parametrize("name", ALL_ENVS)
def test_playouts_score_their_simulations(name):
    """Playouts from the start of a game give values that are not all zero (a game whose
    finished state still waits for a scoring draw is scored after it)."""
    raw = load(name).raw_env()
    raw.reset(seed=1)
    hooks = load_hooks(raw.info.name)
    playouts = BatchedPlayouts(raw, hooks, slots=8, seed=0)
    root = raw.game_state()
    me = raw.rules.current_player(root)
    rng = np.random.default_rng(0)
    states = [hooks.resample(hooks.infoset(root, me), me, rng) for _ in range(8)]
    values = playouts.play(states, root, me)
    assert np.any(values != 0)


@pytest.mark.parametrize("name", ALL_ENVS)
def test_random_playouts_play_legal_actions_to_the_end(name):
    """``rollout=random`` playouts: uniformly random legal actions (the engine refuses an
    illegal one) until every simulation has ended."""
    raw = load(name).raw_env()
    raw.reset(seed=2)
    hooks = load_hooks(raw.info.name)
    playouts = BatchedPlayouts(raw, hooks, slots=4, policy="random", seed=0)
    root = raw.game_state()
    me = raw.rules.current_player(root)
    values = playouts.play([root] * 4, root, me)
    assert values.shape == (4,) and np.isfinite(values).all()
    assert playouts.steps >= 4


def test_priors_change_the_visits_as_puct_says():
    """Hand-checked PUCT picks (Q + c_puct * P * sqrt(N) / (1 + n), a virtual loss of 1 per
    pick). Three moves with (visits, total) (2, 1.0), (1, 0.0), (1, 0.0), c_puct = 2, N = 4
    (c_puct * sqrt(N) = 4):

    * priors (0.1, 0.8, 0.1): scores 0.5 + 4 * 0.1 / 3 = 0.633, 0 + 4 * 0.8 / 2 = 1.6,
      4 * 0.1 / 2 = 0.2: the second move; it becomes (2, -1.0), N = 5 (4.472): 0.5 + 0.447 / 3
      = 0.649, -0.5 + 3.578 / 3 = 0.693, 0.447 / 2 = 0.224: the second again; (3, -2.0),
      N = 6 (4.899): 0.5 + 0.490 / 3 = 0.663, -0.667 + 3.919 / 4 = 0.313, 0.490 / 2 = 0.245:
      the first.
    * uniform priors (1/3 each): 0.5 + 1.333 / 3 = 0.944, 1.333 / 2 = 0.667, 0.667: the first.
    """
    def children():
        nodes = [search_module._Node() for _ in range(3)]
        for node, (visits, total) in zip(nodes, [(2, 1.0), (1, 0.0), (1, 0.0)]):
            node.visits, node.total = visits, total
        return nodes

    guided = children()
    assert search_module._select_batch_puct(guided, [0.1, 0.8, 0.1], size=3, c_puct=2.0) == [1, 1, 0]
    assert [node.visits for node in guided] == [3, 3, 1]
    assert search_module._select_batch_puct(children(), [1 / 3] * 3, size=1, c_puct=2.0) == [0]


@pytest.mark.parametrize("name", ["red7_v0", "gongzhu_v0", "haggis_v0", "haggle_v0"])
def test_pretrained_priors_are_a_distribution_over_the_root_moves(name):
    """The shipped policy's priors: one per root move, positive, summing to 1; the guided
    search returns a legal move."""
    raw = load(name).raw_env()
    raw.reset(seed=0)
    state = raw.game_state()
    agent = SearchAgent(raw, "search:iterations=16:batch=8:prior=pretrained:c_puct=2", seed=0)
    me = raw.rules.current_player(state)
    root = agent.infoset(state, me)
    moves = agent.searched_moves(root)
    prefixes = [search_module.move_actions(raw.encoding, root, move) for move in moves]
    priors = agent.root_priors(root, me, prefixes)
    assert len(priors) == len(moves) and min(priors) > 0
    assert sum(priors) == pytest.approx(1.0)
    assert agent.choose_move(state) in raw.rules.legal_moves(state)


def test_a_games_default_prior_applies_where_its_shipped_policy_plays_the_variant(monkeypatch):
    """Haggle's hooks ask for the shipped policy's priors: the default search takes them (and
    PUCT's picks call for them at every decision), an explicit ``prior=none`` and the Python
    engine do not, and a variant no policy is shipped for falls back to UCB1 instead of
    failing. Red7's hooks ask for none."""
    assert load_hooks("haggle_v0").prior == "pretrained" and load_hooks("red7_v0").prior == "none"
    raw = load("haggle_v0").raw_env()
    raw.reset(seed=0)
    agent = SearchAgent(raw, "search:iterations=16:batch=8", seed=0)
    assert agent.prior == "pretrained"
    asked = []
    real = agent.root_priors
    monkeypatch.setattr(agent, "root_priors", lambda *args: asked.append(1) or real(*args))
    state = raw.game_state()
    assert agent.choose_move(state) in raw.rules.legal_moves(state)
    assert asked == [1]
    assert SearchAgent(raw, "search:prior=none", seed=0).prior == "none"
    assert SearchAgent(raw, "search:engine=python", seed=0).prior == "none"
    two = load("haggle_v0").raw_env(num_players=2)
    two.reset(seed=0)
    assert SearchAgent(two, "search", seed=0).prior == "none"
    named = SearchAgent(two, "search:iterations=16:batch=8:prior=pretrained", seed=0)
    with pytest.raises(ValueError, match="pretrained"):  # asked for by name: an error, no fallback
        named.choose_move(two.game_state())
    assert SearchAgent(load("red7_v0").raw_env(), "search", seed=0).prior == "none"
    with pytest.raises(ValueError, match="prior must be one of none, pretrained"):
        dataclasses.replace(load_hooks("red7_v0"), prior="network")


def test_the_rollout_option_picks_the_compiled_playouts_policy():
    """``rollout=policy`` takes the hooks' default playouts (Haggle: its light policy, Jaipur
    and Red7: the compiled heuristic); ``heuristic``, ``light`` and ``random`` name one; a
    light policy the game does not compile and the compiled heuristic on the rules engine are
    errors when the agent is made; the hooks refuse an unknown default or a light default
    without a light policy."""
    from cardgames_env.envs.haggle.heuristic import HaggleHeuristic
    from cardgames_env.envs.jaipur.heuristic import JaipurHeuristic

    haggle, jaipur, red7 = (load(name).raw_env() for name in ("haggle_v0", "jaipur_v0", "red7_v0"))

    def policy(env, name):
        return SearchAgent(env, name, seed=0).playouts().policy

    default = policy(haggle, "search")
    assert isinstance(default, HaggleHeuristic) and default.min_gain == np.inf
    assert policy(haggle, "search:rollout=heuristic").min_gain == 1.0
    assert policy(jaipur, "search").exchanges and not policy(jaipur, "search:rollout=light").exchanges
    assert isinstance(policy(jaipur, "search:rollout=heuristic"), JaipurHeuristic)
    assert policy(red7, "search:rollout=random") is None
    with pytest.raises(ValueError, match="rollout=light: red7 has no compiled light policy"):
        SearchAgent(red7, "search:rollout=light", seed=0)
    with pytest.raises(ValueError, match="rollout=heuristic"):
        SearchAgent(red7, "search:engine=python:rollout=heuristic", seed=0)
    with pytest.raises(ValueError, match="playouts must be one of heuristic, light"):
        dataclasses.replace(load_hooks("red7_v0"), playouts="fast")
    with pytest.raises(ValueError, match="needs a light_policy"):
        dataclasses.replace(load_hooks("red7_v0"), playouts="light")


def test_the_tree_walk_adds_the_suggested_move_then_widens_then_follows_ucb():
    """Hand-checked walk of a node below the root (c = 1, widening 2 * sqrt(visits)):

    * a node with 1 visit and no children adds the playout policy's action (5), a new child
      that ends the walk; with 1 visit and that child the widening allows 2 children: the
      suggested action is tried already, so an untried legal one (3) is added;
    * a node with 4 visits and children 3 (visits 2, total 2.0, avail 2) and 5 (visits 2,
      total 0.0, avail 2), legal (3, 5): the widening would allow 4 children, but both legal
      actions are tried, so UCB picks; their availabilities become 3:
      3 scores 1 + sqrt(log 3 / 2) = 1.741, 5 scores 0 + 0.741: action 3, kept in the tree
      (depth 2), a visit counted with a virtual loss (visits 3, total 1.0);
    * the back-up adds each value to the path, undoing the virtual losses.
    """
    rng = np.random.default_rng(0)
    start = search_module._Node()
    start.visits = 1
    walk = search_module._TreeWalk([start], depth=2, c=1.0, rng=rng)
    assert walk.select(0, np.array([3, 5]), suggested=5) == (5, False)
    assert set(start.children) == {5}
    walk2 = search_module._TreeWalk([start], depth=2, c=1.0, rng=rng)
    assert walk2.select(0, np.array([3, 5]), suggested=5) == (3, False)
    assert set(start.children) == {3, 5} and start.children[5].avail == 2

    node = search_module._Node()
    node.visits = 4
    for action, total in ((3, 2.0), (5, 0.0)):
        child = search_module._Node()
        child.visits, child.total, child.avail = 2, total, 2
        node.children[action] = child
    walk3 = search_module._TreeWalk([node], depth=2, c=1.0, rng=rng)
    assert walk3.select(0, np.array([3, 5]), suggested=5) == (3, True)
    picked = node.children[3]
    assert (picked.visits, picked.total, picked.avail) == (3, 1.0, 3)
    assert node.children[5].avail == 3
    walk3.backup(np.array([0.5]))
    assert picked.total == pytest.approx(2.5)


def test_the_tree_walk_ends_at_its_depth_and_without_legal_children():
    """A walk of depth 1 leaves the tree after its first decision even on a known child; a
    node whose children are all illegal in the slot adds a legal one."""
    rng = np.random.default_rng(0)
    node = search_module._Node()
    node.visits = 100
    child = search_module._Node()
    child.visits, child.total = 10, 5.0
    node.children[7] = child
    assert search_module._TreeWalk([node], depth=1, c=1.0, rng=rng).select(
        0, np.array([7]), suggested=7) == (7, False)
    assert search_module._TreeWalk([node], depth=3, c=1.0, rng=rng).select(
        0, np.array([2]), suggested=2) == (2, False)
    assert set(node.children) == {2, 7}


class _RecordingTree:
    """A tree policy that plays the suggested action and records what it was asked."""

    def __init__(self, playouts, player):
        self.playouts, self.player, self.asked = playouts, player, []

    def select(self, slot, legal, suggested):
        engine = self.playouts.engine
        assert int(engine.player[slot]) == self.player
        assert np.array_equal(legal, np.flatnonzero(engine.mask[slot]))
        assert suggested in legal
        self.asked.append(slot)
        return suggested, self.asked.count(slot) < 2  # two decisions a slot


@pytest.mark.parametrize("name", ALL_ENVS)
def test_a_tree_policy_is_asked_only_for_the_searching_seats_legal_decisions(name):
    """The tree policy decides the searching seat's actions only, gets the slot's legal
    actions, and stops being asked once it lets a slot go; a tree that plays the playout
    policy's own action leaves the values as they were without it."""
    raw = load(name).raw_env()
    raw.reset(seed=3)
    hooks = load_hooks(raw.info.name)
    root = raw.game_state()
    me = raw.rules.current_player(root)
    states = [hooks.resample(hooks.infoset(root, me), me, np.random.default_rng(k)) for k in range(4)]
    plain = BatchedPlayouts(raw, hooks, slots=4, seed=0).play(states, root, me)
    walked = BatchedPlayouts(raw, hooks, slots=4, seed=0)
    tree = _RecordingTree(walked, me)
    values = walked.play(states, root, me, tree=tree)
    assert tree.asked and max(tree.asked.count(slot) for slot in range(4)) <= 2
    assert np.array_equal(values, plain)


@pytest.mark.parametrize(("iterations", "sizes"), [(64, [16, 16, 16, 16]), (20, [8, 8, 4]), (4, [4])])
def test_a_fixed_number_of_simulations_runs_in_several_batches(monkeypatch, iterations, sizes):
    """A count of simulations is split into at least four batches of at least eight (64: four
    of 16; 20: 8, 8, 4), even with 256 slots, so that later picks see earlier results."""
    env = load("red7_v0").raw_env()
    env.reset(seed=0)
    agent = SearchAgent(env, f"search:iterations={iterations}", seed=0)
    playouts = agent.playouts()
    seen = []
    run = playouts._run

    def recording(count, *args, **kwargs):
        seen.append(count)
        return run(count, *args, **kwargs)

    monkeypatch.setattr(playouts, "_run", recording)
    agent.choose_move(env.game_state())
    assert seen == sizes and agent.last_iterations == iterations


def test_the_policy_sees_one_array_type_whether_every_slot_plays_or_some():
    """Jaipur's heuristic reads the engine's lists of legal actions: all the slots' (the
    engine's read-only array) or some slots' rows (a copy, made read-only too). Its compiled
    kernel has one signature for both, so no search decision stops to compile one."""
    from cardgames_env.envs.jaipur import heuristic

    raw = load("jaipur_v0").raw_env()
    playouts = BatchedPlayouts(raw, load_hooks("jaipur_v0"), slots=8, seed=0)
    every = np.ones(8, dtype=np.bool_)
    some = every.copy()
    some[3] = False
    playouts.policy_actions(every)
    compiled = set(heuristic._tied_listed.signatures)
    playouts.policy_actions(some)
    assert set(heuristic._tied_listed.signatures) == compiled
