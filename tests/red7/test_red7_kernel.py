"""The batched Red7 engine against the AEC env ``red7_v0`` (the reference), move by move."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardgames_env import vector
from cardgames_env.core.game import random_positions
from cardgames_env.envs.red7 import rules
from cardgames_env.envs.red7.cards import parse_cards
from cardgames_env.envs.red7.encoding import DISCARD0, GIVE_UP, PLAY0, pair_action
from cardgames_env.envs.red7.env import TEST_VARIANTS, raw_env
from cardgames_env.envs.red7.heuristic import Red7Heuristic
from cardgames_env.envs.red7.kernel import Red7Engine
from cardgames_env.envs.red7.search import canonical
from tests.vector.differential import run_differential

MAIN_VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"num_players": 4},
    {"advanced": True},
    {"action_rule": True},
    {"num_players": 4, "advanced": True, "action_rule": True, "seven_to_deck": True},
)
"""The default game, 4 players, the advanced game, the action rule (masks from a completion
search) and every rule at once: 200 games each in the default run."""
OTHER_VARIANTS = tuple(v for v in TEST_VARIANTS if v not in MAIN_VARIANTS) + (
    {"num_players": 2, "strict": False, "advanced": True, "action_rule": True},
    {"num_players": 3, "advanced": True, "target_score": 12},
)


def _name(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


def test_every_test_variant_is_covered() -> None:
    assert all(v in MAIN_VARIANTS + OTHER_VARIANTS for v in TEST_VARIANTS)


@pytest.mark.parametrize("options", MAIN_VARIANTS, ids=_name)
def test_differential_main_variants(options: dict[str, Any]) -> None:
    compared = run_differential("red7_v0", options, games=200, seed=1)
    assert compared >= 200 * 3


@pytest.mark.parametrize("options", OTHER_VARIANTS, ids=_name)
def test_differential_other_variants(options: dict[str, Any]) -> None:
    assert run_differential("red7_v0", options, games=60, seed=2) > 0


@pytest.mark.parametrize(
    "options", [{"action_rule": True, "max_steps": 6}, {"num_players": 4, "max_steps": 9}], ids=_name
)
def test_differential_turn_limit(options: dict[str, Any]) -> None:
    # Loaded only at game start (no reloads, no new rounds), so the slot's turn-limit counter
    # runs with the AEC env's: truncation, its rewards and the restart are compared too.
    assert run_differential("red7_v0", options, games=80, seed=6, reload_chance=0.0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("options", MAIN_VARIANTS + OTHER_VARIANTS, ids=_name)
def test_differential_many_games(options: dict[str, Any]) -> None:
    assert run_differential("red7_v0", options, games=2000, seed=3, num_envs=5) > 0


def _play_along(options: dict[str, Any], games: int, seed: int) -> int:
    """Follow AEC games in slot 0 and compare the whole rules state after every decision.

    Checks hidden state the observation does not show (deck order, unseen hands, the 5's
    pending effect, scores): ``vec.state(0)`` must equal the AEC env's ``game_state()``.
    """
    env = raw_env(**options)
    vec = vector.make("red7_v0", num_envs=1, seed=seed, **options)
    rng = np.random.default_rng(seed)
    checked = 0
    for game in range(games):
        env.reset(seed=seed + game)
        vec.load(0, env.game_state())
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                if all(env.terminations[a] or env.truncations[a] for a in env.agents):
                    break
                env.step(None)
                continue
            assert vec.state(0) == env.game_state(), f"{options} game {game} step {env.num_steps}"
            checked += 1
            action = int(rng.choice(np.flatnonzero(env.action_mask())))
            deals = env.deals_dealt
            env.step(action)
            vec.step(np.array([action]))
            playing = any(not (env.terminations[a] or env.truncations[a]) for a in env.agents)
            if env.deals_dealt != deals and playing:
                vec.load(0, env.game_state())  # a new round: the slot dealt its own
    return checked


@pytest.mark.parametrize(
    "options",
    [{}, {"num_players": 3, "strict": False}, {"num_players": 4, "advanced": True, "action_rule": True,
                                               "seven_to_deck": True}],
    ids=_name,
)
def test_full_state_follows_the_aec_env(options: dict[str, Any]) -> None:
    assert _play_along(options, games=30, seed=5) > 0


def _state(config: rules.Config, hands: list[str], palettes: list[str], **fields: Any) -> rules.State:
    """A hand-built state: ``hands``/``palettes`` as card names, every other card in the deck,
    the rest rules.State fields."""
    n = config.num_players

    def mask(text: str) -> int:
        return sum(1 << c for c in parse_cards(text))

    held = mask(" ".join(hands + palettes))
    base = rules.State(
        config=config, hands=tuple(mask(h) for h in hands), palettes=tuple(mask(p) for p in palettes),
        deck=tuple(c for c in range(49) if not held >> c & 1), active=(1 << n) - 1, player=0,
        known_hands=(0,) * n, out_hidden=(0,) * n, scores=(0,) * n,
    )
    return base._replace(**fields)


def test_elimination_pays_on_its_step_and_skips_the_seat() -> None:
    # Rulebook play (strict=False), 3 players, rule Red. P0 (palette G2) plays B3: B3 < R6 of
    # P1 under Red, so P0 is not winning at the end of its turn and is out: -1 to P0 on that
    # step, and the next decision is P1's (no dead step).
    config = rules.Config(num_players=3, strict=False)
    state = _state(config, ["B3 Y4", "V1", "O2"], ["G2", "R6", "V5"])
    vec = vector.make("red7_v0", num_envs=1, seed=0, num_players=3, strict=False)
    vec.load(0, state)
    card = parse_cards("B3")[0]
    _, _, player, rewards, done = vec.step(np.array([PLAY0 + card]))
    assert rewards[0].tolist() == [-1.0, 0.0, 0.0]
    assert not done[0] and int(player[0]) == 1
    assert vec.state(0).active == 0b110
    # P1 gives up: P2 is the last player standing, +1 to P2, -1 to P1, and the game restarts.
    _, _, _, rewards, done = vec.step(np.array([GIVE_UP]))
    assert rewards[0].tolist() == [0.0, -1.0, 1.0]
    assert done[0]
    assert vec.state(0).round_number == 1 and vec.state(0).active == 0b111


def test_strict_mask_of_a_hand_built_position() -> None:
    # Strict rules, 2 players, rule Red; P0 palette O3, P1 palette Y5; P0 holds R6, V2, B4.
    # Under Red P1 leads (Y5 > O3): playing R6 wins (R6 > Y5); V2 and B4 do not. Discarding
    # V2 makes Violet the rule (cards below 4: P0 has O3, P1 none): winning; B4 makes Blue the
    # rule (one colour each, highest card Y5 > O3): losing. Play R6 then discard B4: Blue,
    # two colours against one: winning; play B4 then discard V2: Violet, O3 alone: winning.
    config = rules.Config()
    state = _state(config, ["R6 V2 B4", "G7"], ["O3", "Y5"])
    vec = vector.make("red7_v0", num_envs=1, seed=0)
    vec.load(0, state)
    r6, v2, b4 = parse_cards("R6 V2 B4")
    expected = {GIVE_UP, PLAY0 + r6, DISCARD0 + v2}
    expected |= {pair_action(r6, b4), pair_action(r6, v2)}  # R6 wins under Blue and Violet
    expected |= {pair_action(b4, v2)}  # O3 + B4 under Violet: O3 alone, P1 none
    expected |= {pair_action(v2, b4)}  # O3 + V2 under Blue: two colours against one
    assert set(np.flatnonzero(vec.mask[0]).tolist()) == expected
    env = raw_env()
    env.reset(seed=0)
    env.set_game_state(state)
    assert set(np.flatnonzero(env.action_mask()).tolist()) == expected


# -- playouts by the heuristic and determinizations drawn by the engine ----------------------
PLAYOUT_VARIANTS: tuple[dict[str, Any], ...] = MAIN_VARIANTS + (
    {"num_players": 3, "advanced": True, "target_score": 12},
    {"strict": False},
)


@pytest.mark.parametrize("max_steps", [None, 6], ids=["to-the-end", "turn-limit-6"])
@pytest.mark.parametrize("options", PLAYOUT_VARIANTS, ids=_name)
def test_a_played_out_slot_plays_the_game_that_stepping_the_heuristic_plays(
    options: dict[str, Any], max_steps: int | None
) -> None:
    """``play_out`` with the strict heuristic (a ``fixed_order`` player) ends every slot's
    game where stepping the slot with the heuristic's actions ends it: the same final state,
    rewards summed over the steps, decisions and truncation; the played-out slots then allow
    no action. Off the strict rules the heuristic has no fixed order: nothing is played and
    nothing changes."""
    states = random_positions(rules, rules.Config(**options), seed=11, games=6, every=3, limit=5)
    count = len(states)
    fused = Red7Engine(count, seed=5, max_steps=max_steps, **options)
    stepped = Red7Engine(count, seed=5, max_steps=max_steps, **options)
    policy = Red7Heuristic(fused.encoding)
    for i, state in enumerate(states):
        fused.load(i, state)
        stepped.load(i, state)
    slots = np.arange(count)
    if not fused.config.strict:
        assert policy.fixed_order is None
        before = fused.slots.copy()
        assert not fused.play_out(policy, slots)
        assert np.array_equal(fused.slots, before) and not fused.done.any()
        return
    assert fused.play_out(policy, slots)
    live = np.ones(count, dtype=np.bool_)
    gained = np.zeros((count, fused.num_players))
    decisions = np.zeros(count, dtype=np.int64)
    finals: list[Any] = [None] * count
    cut = np.zeros(count, dtype=np.bool_)
    while live.any():
        moving = live.copy()
        stepped.step(policy.act_batch(stepped.obs, stepped.mask), moving)
        gained[moving] += stepped.rewards[moving]
        decisions[moving] += 1
        for i in np.flatnonzero(moving & stepped.done):
            finals[i] = stepped.final_state(int(i))
            cut[i] = stepped.truncated[i]
            live[i] = False
    assert fused.done.all()
    assert np.array_equal(fused.truncated, cut)
    assert np.array_equal(fused.steps, decisions)
    assert np.array_equal(fused.rewards, gained)  # sums of -1, 0 and +1: exact
    for i in range(count):
        assert fused.final_state(i) == finals[i]
    assert not fused.mask.any()
    with pytest.raises(ValueError, match="not legal"):
        fused.step(np.full(count, GIVE_UP))
    if max_steps is not None:
        assert cut.any()
    elif fused.config.advanced:
        assert any(final.round_number > state.round_number for final, state in zip(finals, states))


class _Ordered:
    """A player given only as a fixed order of the actions."""

    def __init__(self, order: Any, fallback: Any):
        self.fixed_order = (order, fallback)


def test_play_out_checks_its_slots_and_the_players_order() -> None:
    """Bad slots or a fixed order naming no action are ``ValueError``s; a fallback other
    than giving up (which may be illegal) plays nothing; nothing changes either way."""
    engine = Red7Engine(4, seed=0)
    before = engine.slots.copy()
    policy = Red7Heuristic(engine.encoding)
    for bad in ([4], [[0]], [-1], np.array([0.5])):
        with pytest.raises(ValueError, match="slots"):
            engine.play_out(policy, bad)
    for order, fallback, message in (([0, 5000], GIVE_UP, "order"), ([0, 1], 2599, "fallback"),
                                     ([0, 1], True, "fallback")):
        with pytest.raises(ValueError, match=message):
            engine.play_out(_Ordered(np.array(order), fallback), [0])
    assert not engine.play_out(_Ordered(np.arange(engine.action_size), DISCARD0), [0])
    assert not engine.done.any() and np.array_equal(engine.slots, before)


def test_redealt_hidden_cards_land_uniformly() -> None:
    """At the first move of the basic game, seat 0 sees its hand and the palettes: the 40
    other cards (the other hand's 7, the deck's 33) are hidden. A uniform re-deal puts each
    of them in the other hand with probability 7/40 and at each place of the deck with
    probability 1/40: counted over 5,120 re-deals, every card within five standard deviations."""
    config = rules.Config()
    state = rules.new_game(config, rules.sample_deal(config, np.random.default_rng(8)))
    state = state._replace(player=0)
    key = canonical(state, 0)
    hidden = sorted(set(range(49)) - {c for c in range(49) if key.hands[0] >> c & 1}
                    - {c for p in key.palettes for c in range(49) if p >> c & 1})
    assert len(hidden) == 40 and len(key.deck) == 33
    engine = Red7Engine(256, seed=12)
    in_hand = np.zeros(49)
    on_top = np.zeros(49)
    rounds = 20
    for _ in range(rounds):
        for i in range(256):
            engine.load(i, key)
        engine.redeal_hidden(np.arange(256), 0)
        for i in range(256):
            got = engine.state(i)
            in_hand += [got.hands[1] >> c & 1 for c in range(49)]
            on_top[got.deck[0]] += 1
    draws = 256 * rounds
    for counts, p in ((in_hand, 7 / 40), (on_top, 1 / 40)):
        expected = draws * p
        spread = 5 * np.sqrt(draws * p * (1 - p))
        assert np.all(np.abs(counts[hidden] - expected) < spread)
        assert counts.sum() == pytest.approx(draws * p * 40)

