"""Gong Zhu batched engine: move-by-move equal to ``gongzhu_v0`` in every variant, and its parts."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env import vector
from cardgames_env.core.game import random_positions
from cardgames_env.envs.gongzhu import env as gongzhu_env
from cardgames_env.envs.gongzhu import rules
from cardgames_env.envs.gongzhu.cards import POINT_CARD_IDS
from cardgames_env.envs.gongzhu.env import TEST_VARIANTS
from cardgames_env.envs.gongzhu.kernel import score_points
from cardgames_env.envs.gongzhu.scoring import score
from tests.vector.differential import run_differential

NAME = "gongzhu_v0"

# Default-run games per variant (the multi-hand game to -1000 averages about 520 decisions).
DEFAULT_GAMES = {(): 200, (("game_end", -1000),): 200, (("first_lead_must_be_spade2", True),): 200}


def _key(options: dict) -> tuple:
    return tuple(sorted(options.items()))


def test_every_test_variant_has_a_default_budget() -> None:
    assert {_key(o) for o in TEST_VARIANTS} == set(DEFAULT_GAMES)


@pytest.mark.parametrize("options", TEST_VARIANTS, ids=lambda o: ",".join(o) or "default")
def test_differential(options: dict) -> None:
    games = DEFAULT_GAMES[_key(options)]
    compared = run_differential(NAME, options, games=games, seed=20 + len(options))
    assert compared >= 52 * games


@pytest.mark.slow
@pytest.mark.parametrize(
    "options,games",
    [({}, 2000), ({"first_lead_must_be_spade2": True}, 500), ({"game_end": -1000}, 200),
     ({"game_end": -1000, "game_end_upper": 1000}, 200)],
)
def test_differential_slow(options: dict, games: int) -> None:
    assert run_differential(NAME, options, games=games, seed=77, num_envs=5) >= 52 * games


def test_differential_with_a_turn_limit() -> None:
    # max_steps truncates mid-hand exactly where the AEC env does (loads only at game starts,
    # which restart the slot's turn counter like the AEC env's reset).
    compared = run_differential(NAME, {"max_steps": 30}, games=20, seed=5, reload_chance=0.0)
    assert compared == 20 * 30


def test_turn_limit_truncates_the_multi_hand_game_in_its_second_hand() -> None:
    vec = vector.make(NAME, num_envs=6, seed=2, game_end=-1000, max_steps=70)
    rng = np.random.default_rng(0)
    for step in range(1, 141):
        hands = [vec.state(i).hand_number for i in range(6)]
        vec.step(np.argmax(vec.mask * rng.random(vec.mask.shape), axis=1))
        if step in (52, 122):  # the end of each game's first hand: paid, not over
            assert not vec.done.any() and np.all(vec.rewards.sum(axis=1) != 0)
            assert all(vec.state(i).hand_number == 2 for i in range(6))
        expect_end = step in (70, 140)
        assert np.all(vec.done == expect_end) and np.all(vec.truncated == expect_end), step
        if expect_end:
            assert hands == [2] * 6 and np.all(vec.steps == 0)
            assert all(vec.state(i).hand_number == 1 for i in range(6))


def test_kernel_scoring_equals_the_seed_scorer_on_every_point_set() -> None:
    # Every one of the 2**16 sets of the 16 point cards, scored by scoring.score (the scorer's
    # notation) and by the kernel's restatement.
    notation = "23456789TJQKAPGD"
    for point_mask in range(1 << 16):
        cards = "".join(sym for k, sym in enumerate(notation) if point_mask >> k & 1)
        assert score_points(point_mask) == score(cards), cards


def test_fresh_deals_are_legal_games() -> None:
    # Every auto-reset deal gives 13 distinct cards to each seat; the ♠2 holder leads hand 1,
    # and the previous pig-taker leads the next hand (docs/rules/gongzhu.md, "Play of a hand").
    vec = vector.make(NAME, num_envs=16, seed=9, game_end=-1000)
    rng = np.random.default_rng(2)
    checked = 0
    previous = [vec.state(i) for i in range(16)]
    for _ in range(400):
        actions = np.argmax(vec.mask * rng.random(vec.mask.shape), axis=1)
        vec.step(actions)
        for i in range(16):
            state = vec.state(i)
            if state.tricks_played == 0 and not state.trick:
                assert [h.bit_count() for h in state.hands] == [13] * 4
                assert sum(state.hands) == (1 << 52) - 1
                if state.hand_number == 1:
                    assert state.hands[state.leader] >> 39 & 1
                else:
                    finished = rules.play_checked_card(previous[i], int(actions[i]))
                    assert state.leader == finished.pig_taker >= 0
                    assert state.totals == finished.totals and state.last_hand_points == finished.hand_points
                    assert state.hand_number == previous[i].hand_number + 1
                checked += 1
            previous[i] = state
    assert checked > 16


def test_deals_are_uniform_enough() -> None:
    # Each seat holds the ♠Q about a quarter of the time over many fresh deals.
    vec = vector.make(NAME, num_envs=4000, seed=1)
    holders = np.array([next(s for s in range(4) if vec.state(i).hands[s] >> 49 & 1) for i in range(4000)])
    counts = np.bincount(holders, minlength=4)
    assert np.all(np.abs(counts - 1000) < 120), counts


def test_point_card_ids_match_the_kernel_notation() -> None:
    # The kernel maps hearts 26..38 to bits 0..12, ♠Q, ♦J, ♣10 to 13, 14, 15.
    assert POINT_CARD_IDS == (*range(26, 39), 49, 22, 8)


def test_positions_move_between_the_aec_env_and_a_slot() -> None:
    env = gongzhu_env.raw_env(game_end=-1000)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(30):
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    vec = vector.make(NAME, num_envs=2, seed=0, game_end=-1000)
    vec.load(0, env.game_state())
    for _ in range(17):
        vec.step(np.argmax(vec.mask * rng.random(vec.mask.shape), axis=1))
    state = vec.state(0)
    other = gongzhu_env.raw_env(game_end=-1000)
    other.reset(seed=0)
    other.set_game_state(state)
    agent = other.agent_selection
    assert other.possible_agents.index(agent) == int(vec.player[0])
    assert other.observe(agent)["observation"].tobytes() == vec.obs[0].tobytes()
    assert rules.current_player(state) == int(vec.player[0])


def test_the_docs_examples_run() -> None:
    # docs/vector.md's examples, run in order in one namespace (the second uses the first's
    # ``vec`` and ``np``; the third is the gymnasium face's).
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "vector.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 3
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/vector.md", "exec"), namespace)
    assert len(namespace["finished"]) == 256 * (1000 // 52)  # a one-hand game is 52 decisions
    assert len(namespace["returns"]) == len(namespace["finals"]) > 0  # the gymnasium face's ended games
    assert all(len(row) == 4 for row in namespace["finished"])


# -- determinizations drawn by the engine ------------------------------------------------------
def test_redealt_hands_follow_the_rules_resample() -> None:
    """The engine's re-deal draws as the rules' ``resample_hidden`` (the reference): in a
    position where seats have shown voids, how often each hidden card lands with each seat
    agrees between 4,096 draws of each, within five standard errors of the difference."""
    from cardgames_env.envs.gongzhu.kernel import GongZhuEngine
    from cardgames_env.envs.gongzhu.search import canonical

    state = next(
        s for s in random_positions(rules, rules.Config(), seed=9, games=6, every=3, limit=100)
        if sum(bin(v).count("1") for v in s.voids) >= 3 and sum(map(int.bit_count, s.hands)) >= 24
    )
    seat = rules.current_player(state)
    key = canonical(state, seat)
    draws = 4096
    engine = GongZhuEngine(draws, seed=6)
    for i in range(draws):
        engine.load(i, key)
    engine.redeal_hidden(np.arange(draws), seat)
    rng = np.random.default_rng(6)
    ours = np.zeros((4, 52))
    theirs = np.zeros((4, 52))
    for i in range(draws):
        got = engine.state(i).hands
        ref = rules.resample_hidden(key, seat, rng).hands
        for t in range(4):
            ours[t] += [got[t] >> c & 1 for c in range(52)]
            theirs[t] += [ref[t] >> c & 1 for c in range(52)]
    p, q = ours / draws, theirs / draws
    mean = (p + q) / 2
    spread = 5 * np.sqrt(2 * mean * (1 - mean) / draws) + 1e-9
    assert np.all(np.abs(p - q) <= spread)
    assert ((0 < mean) & (mean < 1)).sum() >= 20  # enough hidden cards in play for a test
