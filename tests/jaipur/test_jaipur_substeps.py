"""Jaipur ``exchange_encoding="substeps"``: exchanges built card by card.

The central check enumerates the whole action tree of thousands of random states and
compares the exchanges it reaches with ``rules.legal_moves`` (an independent source)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cardgames_env.core.game import IllegalMoveError
from cardgames_env.envs.jaipur import rules
from cardgames_env.envs.jaipur.cards import Good
from cardgames_env.envs.jaipur.encoding import MOVES, JaipurEncoding
from cardgames_env.envs.jaipur.rules import Config, Exchange
from cardgames_env.envs.jaipur.substeps import (
    SUBSTEP_ACTIONS,
    SUBSTEP_LAYOUT,
    XDONE,
    XGIVE0,
    XTAKE0,
    Decision,
    JaipurSubstepEncoding,
    make_encoding,
)
from cardgames_env.jaipur_v0 import env as make_env

from .jaipur_states import make_state, random_states

FLAT = JaipurEncoding(Config())
SUB = make_encoding(Config(exchange_encoding="substeps"))
NON_EXCHANGE = XTAKE0  # take (6) + camels (1) + sell (42) keep their flat ids


def test_config_option_and_dispatch():
    assert type(FLAT) is JaipurEncoding and FLAT.num_actions == 25505
    assert isinstance(SUB, JaipurSubstepEncoding) and SUB.num_actions == 63
    assert type(make_encoding(Config())) is JaipurEncoding
    with pytest.raises(ValueError, match="make_encoding"):
        JaipurEncoding(Config(exchange_encoding="substeps"))
    with pytest.raises(ValueError, match="exchange_encoding"):
        Config(exchange_encoding="tree")
    with pytest.raises(ValueError, match="exchange_encoding"):
        make_env(exchange_encoding=1)


def test_action_table_layout():
    assert [(f.name, f.size) for f in SUBSTEP_ACTIONS.families] == [
        ("take", 6), ("camels", 1), ("sell", 42),
        ("exchange_take", 6), ("exchange_give", 7), ("exchange_done", 1),
    ]
    state = make_state(hand="spice leather", market="gold silver diamond camel camel", herd=2)
    decision = SUB.to_decision(state)
    for action in range(NON_EXCHANGE):
        assert SUB.decode(decision, action) == MOVES[action]
    assert SUBSTEP_LAYOUT.size == FLAT.observation_size + 13


def _reachable(state: rules.State) -> tuple[set, list[Exchange], int]:
    """Walk the whole action tree of ``state``: (moves at the root, exchanges completed by
    every ``exchange_done`` leaf, number of inner exchange nodes)."""
    root = SUB.to_decision(state)
    root_mask = SUB.legal_action_mask(root)
    root_moves = {MOVES[a] for a in np.flatnonzero(root_mask[:NON_EXCHANGE])}
    assert not root_mask[XGIVE0:].any()  # an exchange starts with a take
    done: list[Exchange] = []
    inner = 0
    stack = [SUB.apply_action(root, int(a)) for a in np.flatnonzero(root_mask[XTAKE0:]) + XTAKE0]
    while stack:
        decision = stack.pop()
        inner += 1
        mask = SUB.legal_action_mask(decision)
        legal = np.flatnonzero(mask)
        assert legal.size, f"dead end after taking {decision.take} / giving {decision.give}"
        assert legal.min() >= XTAKE0  # mid-exchange: only exchange sub-steps
        for action in legal.tolist():
            if action == XDONE:
                done.append(SUB.decode(decision, action))
            else:
                stack.append(SUB.apply_action(decision, action))
    return root_moves, done, inner


def test_every_legal_exchange_reachable_once_and_nothing_illegal():
    states = random_states(4000, seed=5, config=Config(exchange_encoding="substeps"))
    total = 0
    for state in states:
        legal = rules.legal_moves(state)
        root_moves, done, _ = _reachable(state)
        expected_exchanges = {m for m in legal if isinstance(m, Exchange)}
        assert len(done) == len(set(done))  # one action sequence per exchange
        assert set(done) == expected_exchanges
        assert root_moves == {m for m in legal if not isinstance(m, Exchange)}
        total += len(done)
    assert total > 60_000  # the states really exercise exchanges


def test_take_camels_sell_masks_equal_the_flat_ones():
    for state in random_states(2000, seed=8, config=Config()):
        sub = SUB.legal_action_mask(SUB.to_decision(state))
        flat = FLAT.legal_action_mask(state)
        assert np.array_equal(sub[:NON_EXCHANGE], flat[:NON_EXCHANGE])
        # an exchange can be started exactly when the flat mask holds one
        assert sub[NON_EXCHANGE:].any() == flat[NON_EXCHANGE:].any()


def test_exchange_done_applies_the_rules_move():
    for state in random_states(150, seed=11, config=Config())[::3]:
        for exchange in [m for m in rules.legal_moves(state) if isinstance(m, Exchange)][:20]:
            decision = SUB.to_decision(state)
            while True:
                action = SUB.encode(decision, exchange)
                assert SUB.legal_action_mask(decision)[action]
                decision = SUB.apply_action(decision, action)
                if action == XDONE:
                    break
            assert decision == SUB.to_decision(rules.apply_move(state, exchange))


def test_worked_example_by_hand():
    # Hand spice, leather; herd 2; market gold, silver, diamond, 2 camels; 5 cards of room.
    state = make_state(hand="spice leather", market="gold silver diamond camel camel", herd=2)
    d = SUB.to_decision(state)
    legal = [SUB.action_to_string(d, a) for a in np.flatnonzero(SUB.legal_action_mask(d))]
    # Exchanges take 2-3 of diamond, gold, silver (one each): the lowest type taken comes
    # first, so only diamond or gold can start one (silver alone has no partner above it).
    assert [t for t in legal if t.startswith("exchange")] == ["exchange: take diamond", "exchange: take gold"]
    steps = ["exchange: take gold", "exchange: take silver", "exchange: give spice", "exchange: give camel"]
    after = {
        "exchange: take gold": ["exchange: take silver"],
        "exchange: take silver": ["exchange: give spice", "exchange: give leather", "exchange: give camel"],
        "exchange: give spice": ["exchange: give leather", "exchange: give camel"],
        "exchange: give camel": ["exchange gold,silver for spice,camel"],
    }
    for text in steps:
        full = "exchange gold,silver for spice,camel"
        assert SUB.string_to_action(d, full) == SUB.string_to_action(d, text)
        d = SUB.apply_action(d, SUB.string_to_action(d, text))
        assert [SUB.action_to_string(d, a) for a in np.flatnonzero(SUB.legal_action_mask(d))] == after[text]
    assert d.take == (0, 1, 1, 0, 0, 0) and d.give == (0, 0, 0, 0, 1, 0, 1)
    assert SUB.string_to_action(d, "exchange gold,silver for spice,camel") == XDONE
    final = SUB.apply_action(d, XDONE)
    assert final.state == rules.apply_move(state, Exchange.of("gold,silver", "spice,camel"))


def test_illegal_sub_steps_raise():
    state = make_state(hand="spice leather", market="gold silver diamond camel camel", herd=2)
    d = SUB.to_decision(state)
    with pytest.raises(IllegalMoveError):
        SUB.apply_action(d, XTAKE0 + Good.SILVER)  # no exchange starts with silver here
    with pytest.raises(IllegalMoveError):
        SUB.apply_action(d, XDONE)
    d = SUB.apply_action(d, XTAKE0 + Good.GOLD)
    with pytest.raises(IllegalMoveError):
        SUB.apply_action(d, XTAKE0 + Good.DIAMOND)  # below gold: not canonical
    with pytest.raises(IllegalMoveError):
        SUB.apply_action(d, 0)  # take diamond mid-exchange
    with pytest.raises(IllegalMoveError):
        SUB.apply_action(d, XDONE)  # a 1-for-0 pair
    with pytest.raises(ValueError, match="continue"):
        SUB.string_to_action(d, "exchange diamond,gold for spice,leather")
    with pytest.raises(ValueError, match="finish the exchange"):
        SUB.string_to_action(d, "take diamond")
    with pytest.raises(ValueError):
        SUB.string_to_action(d, "exchange: take camel")


def test_string_round_trips_along_random_paths():
    rng = np.random.default_rng(4)
    checked = 0
    for state in random_states(300, seed=13, config=Config()):
        decision = SUB.to_decision(state)
        while True:
            legal = np.flatnonzero(SUB.legal_action_mask(decision))
            for action in legal.tolist():
                assert SUB.string_to_action(decision, SUB.action_to_string(decision, action)) == action
                checked += 1
            action = int(legal[rng.integers(legal.size)])
            if action < XTAKE0 or action == XDONE:
                break
            decision = SUB.apply_action(decision, action)
    assert checked > 2000


def test_observation_shows_the_partial_exchange_to_the_mover_only():
    state = make_state(hand="spice leather", market="gold silver diamond camel camel", herd=2)
    d = SUB.to_decision(state)
    for text in ("exchange: take gold", "exchange: take silver", "exchange: give camel"):
        d = SUB.apply_action(d, SUB.string_to_action(d, text))
    mover = SUBSTEP_LAYOUT.view(SUB.observe(d, 0))
    other = SUBSTEP_LAYOUT.view(SUB.observe(d, 1))
    assert mover["exchange_take"].tolist() == [0, 1, 1, 0, 0, 0]
    assert mover["exchange_give"].tolist() == [0, 0, 0, 0, 0, 0, 1]
    assert not other["exchange_take"].any() and not other["exchange_give"].any()
    for player in (0, 1):  # the rest is the flat observation
        assert np.array_equal(SUB.observe(d, player)[: FLAT.observation_size], FLAT.observe(state, player))
    assert "exchange so far: take 1 gold, 1 silver, give 1 camel" in SUB.render(d, 0)
    assert "exchange so far" not in SUB.render(d, 1)
    assert isinstance(d, Decision) and SUB.replace_rules_state(d, state) == d


def test_env_plays_an_exchange_from_its_notation():
    flat, sub = make_env(), make_env(exchange_encoding="substeps")
    flat.reset(seed=3)
    sub.reset(seed=3)
    rng = np.random.default_rng(0)
    exchanges = 0
    for _ in range(60):
        if flat.terminations[flat.agent_selection]:
            break
        moves = [m for m in rules.legal_moves(flat.unwrapped.game_state())]
        move = moves[int(rng.integers(len(moves)))]
        flat.step(flat.unwrapped.string_to_action(str(move)))
        steps = 0
        while True:  # the CLI's way: the full move's next action from the partial choice
            action = sub.unwrapped.string_to_action(str(move))
            sub.step(action)
            steps += 1
            if action < XTAKE0 or action == XDONE:
                break
        exchanges += isinstance(move, Exchange)
        assert steps == (1 if not isinstance(move, Exchange) else sum(move.take) + sum(move.give) + 1)
        assert dataclasses.replace(sub.unwrapped.game_state(), config=Config()) == flat.unwrapped.game_state()
    assert exchanges > 5
