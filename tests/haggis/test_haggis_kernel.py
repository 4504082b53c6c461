"""Batched Haggis against the AEC env and the card-by-card encoding (the reference)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardgames_env import vector
from cardgames_env.envs.haggis import rules
from cardgames_env.envs.haggis.cards import FACE_MASK, card_id
from cardgames_env.envs.haggis.encoding import DECLARE0, LAYOUT, PASS, HaggisEncoding
from cardgames_env.envs.haggis.env import TEST_VARIANTS
from tests.vector.differential import run_differential


def _variant_id(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


@pytest.mark.parametrize("options", TEST_VARIANTS, ids=_variant_id)
def test_differential(options: dict[str, Any]) -> None:
    """200 random games per variant (the default variant: whole games to 350, ~900 decisions)."""
    compared = run_differential("haggis_v0", dict(options), games=200, seed=11)
    assert compared > 200 * 50


@pytest.mark.slow
@pytest.mark.parametrize("options", TEST_VARIANTS, ids=_variant_id)
def test_differential_many_games(options: dict[str, Any]) -> None:
    """500 more games per variant (2,000 in all)."""
    compared = run_differential("haggis_v0", dict(options), games=500, seed=12)
    assert compared > 500 * 50


# -- the whole action tree of positions random play rarely reaches -------------------------------


def _rich_deal(rng: np.random.Generator) -> rules.Deal:
    """Seat 0 gets 14 of the 16 cards of four consecutive ranks (many sets, runs, bombs)."""
    low = int(rng.integers(2, 8))
    window = [card_id(r, s) for r in range(low, low + 4) for s in range(4)]
    if rng.random() < 0.5:  # or a 3-5-7-9 bomb-rich hand
        window = [card_id(r, s) for r in (3, 5, 7, 9) for s in range(4)]
    mine = sorted(int(c) for c in rng.choice(window, 14, replace=False))
    rest = [c for c in range(36) if c not in mine]
    theirs = sorted(int(c) for c in rng.choice(rest, 14, replace=False))
    return rules.Deal((tuple(mine), tuple(theirs)), leader=0)


def _positions(config: rules.Config, rng: np.random.Generator, count: int) -> list[rules.State]:
    """Rich-hand positions: seat 0 leading, or responding to a play of seat 1 (bombs included)."""
    out = []
    while len(out) < count:
        deal = _rich_deal(rng)
        state = rules.new_game(config, deal)
        if len(out) % 2:
            # Seat 1 leads a random play (a bomb when it has one), seat 0 responds.
            state = rules.State(config=config, hands=state.hands[::-1], to_move=0)
            state = rules.apply_move(state, _pick(rules.legal_moves(state), rng))
        out.append(state)
    return out


def _pick(moves: tuple[rules.Move, ...], rng: np.random.Generator) -> rules.Move:
    bombs = [m for m in moves if isinstance(m, rules.Play) and m.reading[0] == "bomb"]
    long = [m for m in moves if isinstance(m, rules.Play) and m.cards.bit_count() >= 3]
    pool = bombs if bombs and rng.random() < 0.4 else long if long else list(moves)
    return pool[int(rng.integers(len(pool)))]


def _walk(vec: vector.BatchedEngine, encoding: HaggisEncoding, state: rules.State, budget: int,
          rng: np.random.Generator) -> int:
    """Compare masks and observations along every action path from ``state`` (up to ``budget``
    nodes, children visited in random order); declarations are compared by the state they reach."""
    stack: list[tuple[int, ...]] = [()]
    visited = 0
    while stack and visited < budget:
        path = stack.pop()
        vec.load(0, state)
        decision = encoding.to_decision(state)
        for action in path:
            vec.step(np.array([action]))
            decision = encoding.apply_action(decision, action)
        visited += 1
        where = f"{state} path {path}"
        expected = encoding.legal_action_mask(decision).astype(bool)
        differs = np.flatnonzero(vec.mask[0] ^ expected)
        assert not differs.size, f"{where}: mask differs at {differs}"
        assert vec.obs[0].tobytes() == encoding.observe(decision, decision.state.to_move).tobytes(), where
        assert vec.state(0) == decision.state, f"{where}: state(i) is the move's start"
        children = [int(a) for a in np.flatnonzero(expected)]
        rng.shuffle(children)
        for action in children:
            if action < DECLARE0:
                stack.append((*path, action))
                continue
            vec.load(0, state)
            for step in path:
                vec.step(np.array([step]))
            vec.step(np.array([action]))
            after = encoding.rules_state(encoding.apply_action(decision, action))
            if rules.current_player(after) >= 0:
                assert vec.state(0) == after, f"{where} then {action}"
            else:
                assert after.hand_over and action != PASS
    return visited


@pytest.mark.parametrize("options", TEST_VARIANTS[:3], ids=_variant_id)
def test_action_tree_of_rich_hands(options: dict[str, Any]) -> None:
    """Many sets, runs, wild faces and 3-5-7-9 bombs: every sub-step's mask equals the encoding's."""
    vec = vector.make("haggis_v0", num_envs=1, seed=0, **options)
    encoding = HaggisEncoding(vec.config)
    rng = np.random.default_rng(3)
    visited = sum(_walk(vec, encoding, s, 150, rng) for s in _positions(vec.config, rng, 12))
    assert visited > 12 * 20


def test_selection_is_part_of_the_decision_not_the_state() -> None:
    """After ``select`` the observation shows the selection; ``state(i)`` is still the move's start."""
    vec = vector.make("haggis_v0", num_envs=2, seed=4)
    deal = rules.Deal.from_strings(
        ["2S 2H 3S 4S 5S 6D 7D 8D 9C 10C 10H 10D 9S 9H", "2D 2C 3H 3D 4H 4D 5H 5D 6S 6H 7S 7H 8S 8H"], 0
    )
    state = rules.new_game(vec.config, deal)
    vec.load(1, state)
    assert vec.mask[1, :39].tolist() == [bool(state.hands[0] >> c & 1) for c in range(39)]
    assert not vec.mask[1, 39:].any(), "a leader declares nothing before selecting and may not pass"
    first = card_id(2, 0)
    vec.step(np.array([int(np.flatnonzero(vec.mask[0])[0]), first]))
    assert vec.state(1) == state
    selection, size = LAYOUT.slice("selection"), LAYOUT.slice("selection_size")
    assert vec.obs[1, selection].tolist() == [float(c == first) for c in range(39)]
    assert vec.obs[1, size.start] == np.float32(1 / 17)
    # 2S then: 2H (pair), 3S (run 2-4 needs 4S; also a wild run), J/Q/K (wild pair, runs); single 2S.
    assert vec.mask[1, DECLARE0 + 1], "2S alone is a single"
    assert vec.mask[1, card_id(2, 1)] and vec.mask[1, card_id(3, 0)] and vec.mask[1, 36]
    assert not vec.mask[1, card_id(6, 2)], "2S 6D (nothing between) is no combination, even with 3 wilds"
    assert state.hands[0] & FACE_MASK == FACE_MASK


def _trace(vec: vector.BatchedEngine, steps: int) -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    out = []
    for _ in range(steps):
        noise = rng.random(vec.mask.shape)
        vec.step(np.argmax(vec.mask * noise, axis=1))
        out += [vec.obs.copy(), vec.mask.copy(), vec.rewards.copy(), vec.done.copy(), vec.player.copy()]
    return out


# -- the engine's masks and declarations against its own play list -------------------------------


@pytest.mark.parametrize("flags", [(False, True), (True, True), (False, False)])
def test_masks_and_declarations_follow_the_compiled_play_list(flags: tuple[bool, bool]) -> None:
    """The engine's mask of a selection (prefixes of legal plays and random card sets) and a
    declaration's rank, read off ``kernel.legal_plays`` (the compiled play list, itself held to
    ``combos.legal_plays``): next card = the lowest card a play adds to the selection, declare
    ``k`` when a play of kind ``k`` is exactly the selection, at its listed rank."""
    from cardgames_env.envs.haggis import kernel
    from tests.haggis.test_haggis_heuristic import TABLES, _buffers, _kernel_table, _random_hands

    rng = np.random.default_rng(5 + 2 * flags[0] + flags[1])
    cfg = np.array([int(flags[0]), int(flags[1]), 350, 0], dtype=np.int64)
    tables = (kernel.TPL, kernel.SHAPE_ROWS, kernel.SHAPE_N, kernel.BY_CARD, kernel.BY_CARD_N)
    plays, hash_table, scratch = _buffers(1 << 13)
    st = np.zeros((1, kernel.NUM_FIELDS), dtype=np.int64)
    mask = np.zeros((1, PASS + 1), dtype=bool)
    checked = 0
    for hand in _random_hands(60, seed=int(rng.integers(1 << 30))):
        for table in TABLES:
            tkind, tlen, trank = _kernel_table(table)
            count = kernel.legal_plays(hand, tkind, tlen, trank, *flags, plays, hash_table, scratch)
            listed = plays[:count, :3].tolist()
            st[0, kernel.F_HAND], st[0, kernel.F_TO_MOVE] = hand, 0
            st[0, kernel.F_TKIND], st[0, kernel.F_TLEN], st[0, kernel.F_TRANK] = tkind, tlen, trank
            selections = {0}
            for cards, _kind, _rank in [listed[int(k)] for k in rng.integers(count, size=min(count, 8))]:
                ids = [c for c in range(39) if cards >> c & 1]
                selections.update(sum(1 << c for c in ids[:n]) for n in range(1, len(ids) + 1))
            in_hand = [c for c in range(39) if hand >> c & 1]
            for size in (1, 1, 2, 3):  # selections no play may extend, too
                picked = rng.choice(in_hand, min(size, len(in_hand)), replace=False)
                selections.add(sum(1 << int(c) for c in picked))
            for sel in selections:
                upto = (1 << sel.bit_length()) - 1
                expected = np.zeros(PASS + 1, dtype=bool)
                expected[PASS] = sel == 0 and tkind >= 0
                for cards, kind, rank in listed:
                    if cards & upto == sel:
                        rest = cards & ~upto
                        expected[(rest & -rest).bit_length() - 1 if rest else DECLARE0 + kind] = True
                    if cards == sel and kind >= 1:
                        declared = kernel._best_top(st, 0, sel, kind, cfg, *tables[:3])
                        assert declared == rank, (hand, table, sel)
                st[0, kernel.F_SELECTED] = sel
                kernel._write_mask(st, 0, mask, cfg, *tables)
                assert (mask[0] == expected).all(), (hand, table, sel)
                checked += 1
    assert checked > 60 * len(TABLES)


# -- determinizations drawn by the engine ------------------------------------------------------
def test_redealt_number_cards_land_uniformly() -> None:
    """At the first move seat 0 has seen its 14 cards: the opponent's 14 number cards come
    from the 22 unseen ones, so each lands in its hand with probability 14/22; counted over
    4,096 re-deals, every card within five standard deviations."""
    from cardgames_env.envs.haggis.kernel import HaggisEngine
    from cardgames_env.envs.haggis.search import canonical

    config = rules.Config()
    state = rules.new_game(config, rules.sample_deal(config, np.random.default_rng(8)))
    key = canonical(state, 0)
    unseen = [c for c in range(36) if rules.unseen_numbers(key, 0) >> c & 1]
    held = (key.hands[1] & ~FACE_MASK).bit_count()
    assert len(unseen) == 22 and held == 14
    draws = 4096
    engine = HaggisEngine(draws, seed=12)
    for i in range(draws):
        engine.load(i, key)
    engine.redeal_hidden(np.arange(draws), 0)
    counts = np.zeros(36)
    for i in range(draws):
        hand = engine.state(i).hands[1]
        assert hand & FACE_MASK == key.hands[1] & FACE_MASK
        counts += [hand >> c & 1 for c in range(36)]
    p = held / len(unseen)
    assert np.all(np.abs(counts[unseen] - draws * p) < 5 * np.sqrt(draws * p * (1 - p)))
    assert counts.sum() == draws * held
