"""The Haggle heuristic: always legal (every variant), and better than random play."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env import haggle_v0
from cardgames_env.agents.base import make_agent


def play(kinds: list[str], games: int, **options: object) -> dict[str, float]:
    """Mean return per seat of each agent kind (seats rotate between games)."""
    env = haggle_v0.raw_env(**options)
    totals = {k: 0.0 for k in kinds}
    seats = {k: 0 for k in kinds}
    for game in range(games):
        env.reset(seed=game)
        kind_of = {a: kinds[(i + game) % len(kinds)] for i, a in enumerate(env.possible_agents)}
        agents = {
            a: make_agent(kind_of[a], env, seed=game * 10 + i) for i, a in enumerate(env.possible_agents)
        }
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(agents[agent].act(obs["observation"], obs["action_mask"]))  # raw env raises if illegal
        returns = env.rules.returns(env.game_state())
        for i, a in enumerate(env.possible_agents):
            totals[kind_of[a]] += returns[i]
            seats[kind_of[a]] += 1
    return {k: totals[k] / seats[k] for k in kinds}


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"num_players": 2},
        {"num_players": 8, "trading_rounds": 2},
        {"num_players": 3, "submission_phase": True, "max_offer": 2},
    ],
)
def test_heuristic_only_plays_legal_actions(options: dict[str, object]) -> None:
    result = play(["heuristic", "random"], 4, **options)
    assert set(result) == {"heuristic", "random"}


def test_heuristic_beats_random_in_four_player_games() -> None:
    result = play(["heuristic", "random"], 20)
    assert result["heuristic"] > 1.0 > 0 > result["random"]


@pytest.mark.parametrize(("players", "max_offer"), [(2, 3), (4, 3), (8, 3), (3, 5)])
def test_the_value_table_gives_hand_values_bit_for_bit(players: int, max_offer: int) -> None:
    from cardgames_env.envs.haggle.heuristic import _value_table, hand_values

    table, weights, limit = _value_table(players, max_offer)
    assert limit == 2 * players + max_offer  # the deck's 2N of a colour plus an offer
    rng = np.random.default_rng(players)
    hands = rng.integers(0, limit + 1, size=(5000, 5))
    hands[:5] = np.eye(5, dtype=np.int64) * limit  # the corners of the table
    assert np.array_equal(table[hands @ weights], hand_values(hands, players))


def _recorded_rows(games: int, **options: object) -> tuple[np.ndarray, np.ndarray]:
    """Every (observation, mask) of seeded games between heuristics and random players."""
    env = haggle_v0.raw_env(**options)
    observations, masks = [], []
    for game in range(games):
        env.reset(seed=game)
        agents = {
            a: make_agent(("heuristic", "random")[i % 2], env, seed=game * 10 + i)
            for i, a in enumerate(env.possible_agents)
        }
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            observations.append(obs["observation"])
            masks.append(obs["action_mask"])
            env.step(agents[agent].act(obs["observation"], obs["action_mask"]))
    return np.array(observations), np.array(masks)


def _reference_action(heuristic: object, observation: np.ndarray, mask: np.ndarray, draws: np.ndarray) -> int:
    """The heuristic's documented decision for one row, written with numpy and
    :func:`hand_values` (no value table, no compiled loop). ``draws`` are the row's three
    uniform draws: the tie between equal trades, the pass 1 time in 10, a random legal action."""
    from cardgames_env.envs.haggle.cards import BASE_VALUES
    from cardgames_env.envs.haggle.heuristic import hand_values

    encoding = heuristic.encoding  # type: ignore[attr-defined]
    n, view = encoding.num_players, encoding.layout.view(observation)
    off = {f.name: f.offset for f in encoding.actions.families}
    sets = np.array(encoding.offer_sets)
    worth = sets @ np.array(BASE_VALUES)
    hand = np.rint(view["hand"] * 10).astype(np.int64)
    legal = np.flatnonzero(mask)
    tie, chance, anything = draws

    def value(*hands: np.ndarray) -> np.ndarray:
        return hand_values(np.array(hands), n)

    def any_of(actions: np.ndarray) -> int:
        return int(actions[int(anything * len(actions))])

    def pick(action: int) -> int:
        return action if mask[action] else any_of(legal)

    def plan() -> tuple[int, int, float]:
        fits = np.all(sets <= hand, axis=1)
        fair = (worth[None, :] <= worth[:, None]) & ~np.all(sets[:, None] == sets[None, :], axis=2)
        give, ask = np.nonzero(fits[:, None] & fair)  # row-major: gives in order, then asks
        if give.size == 0:
            return int(np.flatnonzero(fits)[0]), 0, -np.inf
        values = value(*(hand - sets[give] + sets[ask]))
        ties = np.flatnonzero(values >= values.max() - 1e-9)
        k = ties[int(tie * len(ties))]
        return int(give[k]), int(ask[k]), float(values.max() - value(hand)[0])

    stage = int(np.argmax(view["stage"])) if view["stage"].any() else -1
    if stage == 0:
        if plan()[2] < 1.0 - 1e-9 or chance < 0.1:
            return off["pass"]
        return any_of(legal[legal != off["pass"]])
    if stage == 1:
        return pick(off["give"] + plan()[0])
    if stage == 2:
        given = np.rint(view["offer_give"] * 3).astype(np.int64)
        allowed = (worth <= given @ np.array(BASE_VALUES)) & ~np.all(sets == given, axis=1)
        values = np.where(allowed, value(*(hand - given + sets)), -np.inf)
        return pick(off["ask"] + int(np.argmax(values)))
    if stage == 3:
        return pick(off["terms"] + 1)
    if stage == 4:
        give = np.rint(view["offer_give"] * 3).astype(np.int64)
        ask = np.rint(view["offer_ask"] * 3).astype(np.int64)
        accepts = legal[legal != off["reject"]]
        if accepts.size and value(hand + give - ask)[0] >= value(hand)[0]:
            return int(accepts[0])
        return off["reject"]
    if stage == 5:
        colour = int(np.argmax(view["submit_colour"]))
        counts = legal - off["submit"]
        kept = np.rint(view["submitted"] * 10) + np.where(np.arange(5) > colour, hand, 0)
        hands = np.repeat(kept[None], len(counts), 0)
        hands[:, colour] = counts
        return int(legal[int(np.argmax(hand_values(hands.astype(np.int64), n)))])
    return any_of(legal)


VARIANTS = [{}, {"num_players": 2}, {"num_players": 8, "trading_rounds": 2},
            {"num_players": 3, "submission_phase": True, "max_offer": 5}]


@pytest.mark.parametrize("options", VARIANTS)
def test_the_batched_decisions_follow_the_reference_row_by_row(options: dict) -> None:
    from cardgames_env.core.rng import make_rng

    observations, masks = _recorded_rows(4, **options)
    heuristic = make_agent("heuristic", haggle_v0.raw_env(**options), seed=7)
    actions = heuristic.act_batch(observations, masks)  # type: ignore[attr-defined]
    draws = make_rng(7).random((len(observations), 3))  # act_batch's draws: one row of three per row
    expected = [_reference_action(heuristic, o, m, d) for o, m, d in zip(observations, masks, draws)]
    assert actions.tolist() == expected
    stages = observations[:, heuristic.layout.slice("stage")].argmax(axis=1)  # type: ignore[attr-defined]
    assert len(set(stages.tolist())) >= 5  # every trading stage was decided


@pytest.mark.parametrize("options", VARIANTS[:2])
def test_one_row_at_a_time_plays_the_same_as_a_batch(options: dict) -> None:
    observations, masks = _recorded_rows(3, **options)
    env = haggle_v0.raw_env(**options)
    one = make_agent("heuristic", env, seed=3)
    batch = make_agent("heuristic", env, seed=3)
    alone = [one.act(o, m) for o, m in zip(observations, masks)]
    assert batch.act_batch(observations, masks).tolist() == alone  # type: ignore[attr-defined]


def test_the_batch_refuses_rows_without_a_legal_action_or_with_impossible_hands() -> None:
    observations, masks = _recorded_rows(1)
    heuristic = make_agent("heuristic", haggle_v0.raw_env(), seed=0)
    empty = masks[:2].copy()
    empty[1] = False
    with pytest.raises(ValueError, match="legal action"):
        heuristic.act_batch(observations[:2], empty)  # type: ignore[attr-defined]
    crowded = observations[:1].copy()
    crowded[0, heuristic.layout.slice("hand")][0] = 2.0  # 20 Yellow cards; the deck holds 8
    with pytest.raises(ValueError, match="0..8 cards"):
        heuristic.act_batch(crowded, masks[:1])  # type: ignore[attr-defined]
