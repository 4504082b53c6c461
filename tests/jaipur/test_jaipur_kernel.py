"""Batched Jaipur against the AEC env (the reference): every variant of ``TEST_VARIANTS``
move by move (observation bytes, mask, rewards, game end), the turn limit, positions in and
out of a slot, and the two kernels (one thread, all threads) giving the same games."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cardgames_env import vector
from cardgames_env.core.game import random_positions
from cardgames_env.envs.jaipur import encoding, rules
from cardgames_env.envs.jaipur import env as jaipur_env
from cardgames_env.envs.jaipur import kernel as vjaipur
from cardgames_env.envs.jaipur.substeps import JaipurSubstepEncoding
from tests.vector.differential import run_differential

VARIANTS = jaipur_env.TEST_VARIANTS
MAIN_VARIANTS = ({}, {"exchange_encoding": "substeps"})
"""The two encodings of the standard game: 200 games each in the default run."""


def _name(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


@pytest.mark.parametrize("options", VARIANTS, ids=_name)
def test_differential_every_variant(options: dict) -> None:
    games = 200 if options in MAIN_VARIANTS else 40
    compared = run_differential("jaipur_v0", options, games=games, seed=1)
    assert compared >= games * 50  # whole games were compared (random games last 60-300 decisions)


@pytest.mark.slow
@pytest.mark.parametrize("options", VARIANTS, ids=_name)
def test_differential_every_variant_many_games(options: dict) -> None:
    compared = run_differential("jaipur_v0", options, games=500, seed=2)  # 2,500 games in all
    assert compared >= 500 * 50


ONE_ROUND = [{"rounds": 1}, {"rounds": 1, "exchange_encoding": "substeps"}]


@pytest.mark.parametrize("options", ONE_ROUND, ids=_name)
def test_turn_limit_truncates_like_the_aec_env(options: dict) -> None:
    # One round per game and no reload after the start: the two step counters stay equal, so
    # the truncation at max_steps decisions (mid-exchange too with sub-steps) is compared.
    options = {**options, "max_steps": 23}
    compared = run_differential("jaipur_v0", options, games=25, seed=3, reload_chance=0.0)
    assert compared >= 25 * 15
    vec = vector.make("jaipur_v0", num_envs=4, seed=0, **options)
    rng = np.random.default_rng(0)
    truncated = 0
    for _ in range(100):
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in vec.mask])
        before = vec.steps.copy()
        vec.step(actions)
        truncated += int(vec.truncated.sum())
        assert np.all(before[vec.truncated] == 22), "truncated at the 23rd decision exactly"
    assert truncated > 0


@pytest.mark.parametrize("substeps", [False, True])
def test_slot_state_follows_the_rules_engine(substeps: bool) -> None:
    # Start from a dealt game and replay each slot's moves on the rules engine: state(i) at
    # every move start equals the rules state (new rounds: re-read, as their deals differ).
    options = {"exchange_encoding": "substeps"} if substeps else {}
    vec = vector.make("jaipur_v0", num_envs=3, seed=5, **options)
    config = vec.config
    enc = JaipurSubstepEncoding(config) if substeps else encoding.JaipurEncoding(config)
    rng = np.random.default_rng(6)
    decisions = [enc.to_decision(vec.state(i)) for i in range(3)]
    checked = 0
    for _ in range(400):
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in vec.mask])
        vec.step(actions)
        for i in range(3):
            decision = enc.apply_action(decisions[i], int(actions[i]))
            state = enc.rules_state(decision)
            if vec.done[i] or rules.current_player(state) < 0:
                decisions[i] = enc.to_decision(vec.state(i))  # a deal of the slot's own stream
                continue
            decisions[i] = decision
            assert vec.state(i) == state
            assert vec.obs[i].tobytes() == enc.observe(decision, state.player).tobytes()
            assert np.array_equal(vec.mask[i], enc.legal_action_mask(decision).astype(bool))
            checked += 1
    assert checked > 1000


def test_load_takes_any_constructed_state() -> None:
    # A position built by dataclasses.replace (Seals, round, history changed: round 2, started
    # by the loser of round 1) loads and shows its own values, and comes back unchanged.
    env = jaipur_env.raw_env(reward="points")
    env.reset(seed=3)
    base = env.game_state()
    result = rules.RoundResult((61, 48), 1, 0, (2, 1), (9, 8))
    state = dataclasses.replace(base, seals=(1, 0), round=2, history=(result,), starter=1, player=1)
    vec = vector.make("jaipur_v0", num_envs=2, seed=0, reward="points")
    vec.load(0, state)
    assert vec.state(0) == state
    assert vec.obs[0].tobytes() == encoding.observe(state, state.player).tobytes()
    assert vec.obs[0][encoding.LAYOUT.piece("past_rupees").offset] == np.float32(
        (61 if state.player == 0 else 48) / 100
    )


def test_load_refuses_what_a_slot_cannot_hold() -> None:
    env = jaipur_env.raw_env(max_rounds=40)
    env.reset(seed=0)
    state = env.game_state()
    tie = rules.RoundResult((50, 50), -1, -1, (1, 1), (5, 5))
    long_history = dataclasses.replace(state, history=(tie,) * 20, round=21)
    vec = vector.make("jaipur_v0", num_envs=1, seed=0, max_rounds=40)
    before = vec.obs.copy()
    with pytest.raises(ValueError, match="finished rounds"):
        vec.load(0, long_history)
    assert np.array_equal(vec.obs, before)
    vec.load(0, dataclasses.replace(state, history=(tie,) * 16, round=17))
    assert vec.state(0).history == (tie,) * 16


def test_memory_per_slot_is_small() -> None:
    flat = vector.make("jaipur_v0", num_envs=2, seed=0)
    sub = vector.make("jaipur_v0", num_envs=2, seed=0, exchange_encoding="substeps")
    # The flat mask (25,505 bytes) dominates; the rules state is one int32 row per slot.
    assert flat.slot_nbytes() < 25_505 + 4_500
    assert sub.slot_nbytes() < 4_500
    assert flat.slots.shape[1] == vjaipur.WIDTH


@pytest.mark.parametrize("options", MAIN_VARIANTS, ids=_name)
def test_sparse_legal_actions_are_the_mask(options: dict) -> None:
    vec = vector.make("jaipur_v0", num_envs=6, seed=2, **options)
    rng = np.random.default_rng(1)
    for _ in range(150):
        for i in range(6):
            listed = vec.legal_index[i, : vec.legal_count[i]]
            assert len(set(listed.tolist())) == len(listed)
            assert sorted(listed.tolist()) == np.flatnonzero(vec.mask[i]).tolist()
        picks = (rng.random(6) * vec.legal_count).astype(np.int64)
        vec.step(vec.legal_index[np.arange(6), picks])
    with pytest.raises(ValueError):
        vec.legal_index[0, 0] = 1


# -- determinizations drawn by the engine ------------------------------------------------------
def test_redealt_goods_and_tokens_land_uniformly() -> None:
    """Seat 0 at the first move: the opponent's hand of ``u`` unknown goods is dealt from the
    ``G`` goods of the unseen pool (its hand and the deck), so a type with ``n`` of them has
    ``u n / G`` of them there on average (hypergeometric), and the deck's top card is a camel
    with probability ``C / (G - u + C)`` (``C`` camels in the deck). Later, with bonus tokens
    taken, the opponent's tokens of a kind average ``held`` times the mean value of that
    kind's unseen tokens. Every mean within five standard errors over 4,096 re-deals."""
    from cardgames_env.envs.jaipur.search import canonical

    draws = 4096
    engine = vjaipur.JaipurEngine(draws, seed=12)
    config = rules.Config()
    state = rules.new_game(config, rules.sample_deal(config, np.random.default_rng(8)))
    key = canonical(state, 0)
    opp = key.hands[1]
    pool = [opp[g] + key.deck.count(g) for g in range(rules.NUM_GOODS)]
    u, goods_total, camels = sum(opp), sum(pool), key.deck.count(rules.CAMEL)
    for i in range(draws):
        engine.load(i, key)
    engine.redeal_hidden(np.arange(draws), 0)
    states = [engine.state(i) for i in range(draws)]
    for g in range(rules.NUM_GOODS):
        p = pool[g] / goods_total
        got = np.mean([s.hands[1][g] for s in states])
        sd = np.sqrt(u * p * (1 - p) * (goods_total - u) / (goods_total - 1) / draws)
        assert abs(got - u * p) < 5 * sd + 1e-12
    p = camels / (goods_total - u + camels)
    got = np.mean([s.deck[0] == rules.CAMEL for s in states])
    assert abs(got - p) < 5 * np.sqrt(p * (1 - p) / draws)
    later = next(
        s for s in random_positions(rules, rules.Config(), seed=5, games=4, every=2, limit=100)
        if any(s.bonus_tokens[1 - rules.current_player(s)])
    )
    seat = rules.current_player(later)
    key = canonical(later, seat)
    for i in range(draws):
        engine.load(i, key)
    engine.redeal_hidden(np.arange(draws), seat)
    states = [engine.state(i) for i in range(draws)]
    for kind, held in enumerate(key.bonus_tokens[1 - seat]):
        if not held:
            continue
        values = np.array(held + key.bonus_piles[kind], dtype=float)
        sums = [sum(s.bonus_tokens[1 - seat][kind]) for s in states]
        k, n = len(held), len(values)
        sd = np.sqrt(k * values.var() * (n - k) / max(n - 1, 1) / draws)
        assert abs(np.mean(sums) - k * values.mean()) < 5 * sd + 1e-9


def test_redeal_refuses_a_slot_inside_an_exchanges_sub_steps() -> None:
    engine = vjaipur.JaipurEngine(2, seed=0, exchange_encoding="substeps")
    for _ in range(200):  # the last legal action: an exchange's sub-step where one is legal
        actions = [int(np.flatnonzero(engine.mask[i])[-1]) for i in range(2)]
        engine.step(np.array(actions))
        if engine.slots[:, vjaipur.DEPTH].any():
            break
    else:
        pytest.fail("no exchange under way")
    busy = int(np.flatnonzero(engine.slots[:, vjaipur.DEPTH])[0])
    before = engine.slots.copy()
    with pytest.raises(ValueError, match="sub-steps"):
        engine.redeal_hidden([busy], 0)
    assert np.array_equal(engine.slots, before)
