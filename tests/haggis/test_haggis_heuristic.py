"""Haggis heuristic agent: legal actions only, it beats random play, and its compiled decisions
are those of its readable statement (``legal_plays`` and ``choose_play``)."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env import haggis_v0
from cardgames_env.agents.base import make_agent
from cardgames_env.envs.haggis.heuristic import HaggisHeuristic


def test_heuristic_is_legal_and_beats_random():
    env = haggis_v0.raw_env(target_score=60)  # the raw env raises on an illegal action
    wins = 0
    games = 12
    for game in range(games):
        env.reset(seed=game)
        heuristic = make_agent("heuristic", env, seed=game)
        rand = make_agent("random", env, seed=game)
        seat = env.possible_agents[game % 2]
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                if agent == seat:
                    wins += reward > 0
                env.step(None)
                continue
            player = heuristic if agent == seat else rand
            action = player.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action]
            env.step(action)
    assert wins >= 9, wins


def test_heuristic_goes_out_when_it_can():
    from cardgames_env.envs.haggis import rules
    from cardgames_env.envs.haggis.cards import mask_of_strings
    from cardgames_env.envs.haggis.encoding import HaggisEncoding

    encoding = HaggisEncoding(rules.Config())
    agent = HaggisHeuristic(encoding, seed=0)
    hand = mask_of_strings("2S 3S 4S".split())
    decision = encoding.to_decision(rules.State(config=rules.Config(), hands=(hand, hand << 1), to_move=0))
    played = []
    while not decision.state.hand_over:
        action = agent.act(encoding.observe(decision, 0), encoding.legal_action_mask(decision))
        played.append(encoding.action_to_string(decision, action))
        decision = encoding.apply_action(decision, action)
    assert played == ["select 2S", "select 3S", "select 4S", "play 2S 3S 4S as run 2-4"]
    # going out with the run: the trick (3S = 1 point) and 5 x the opponent's 3 cards
    assert decision.state.totals == (1 + 15, 0)


# -- the compiled heuristic against its readable statement ----------------------------------------

VARIANTS = [{}, {"face_singles": "J"}, {"natural_faces_in_runs": False}]
"""Variants whose flags change the plays (a lone Q or K wild; no natural faces in runs)."""
TABLES = [None, ("sequence", 1, 1, 5), ("sequence", 1, 1, 10), ("sequence", 2, 1, 4), ("sequence", 3, 1, 2),
          ("sequence", 1, 3, 6), ("sequence", 2, 2, 5), ("sequence", 1, 4, 12), ("sequence", 1, 5, 13),
          ("bomb", "rainbow"), ("bomb", "JQ"), ("bomb", "JQK"), ("bomb", "suited")]


def _random_hands(count: int, seed: int) -> list[int]:
    """Hands of 1..14 number cards and any face cards, a few of them dense (many plays)."""
    rng = np.random.default_rng(seed)
    hands = []
    for _ in range(count):
        ids = rng.choice(36, int(rng.integers(1, 15)), replace=False)
        hands.append(sum(1 << int(c) for c in ids) | int(rng.integers(8)) << 36)
    hands += [(((1 << 14) - 1) << low) | 7 << 36 for low in (0, 8, 22)]  # 14 adjacent cards + J Q K
    return hands


def _kernel_table(table: tuple | None) -> tuple[int, int, int]:
    from cardgames_env.envs.haggis.combos import BOMB_RANK

    if table is None:
        return -1, 0, 0
    if table[0] == "bomb":
        return 0, 0, BOMB_RANK[table[1]]
    return table[1], table[2], table[3]


def _kernel_plays(hand: int, table: tuple | None, flags: tuple[bool, bool]) -> tuple[list, np.ndarray]:
    """The compiled play list as ``legal_plays`` tuples, and its play array."""
    from cardgames_env.envs.haggis import heuristic_kernel as haggis_kernel
    from cardgames_env.envs.haggis.combos import BOMB_ORDER

    plays, table_buffer, scratch = _buffers(1 << 13)
    count = haggis_kernel.legal_plays(hand, *_kernel_table(table), *flags, plays, table_buffer, scratch)
    assert count >= 0 and not table_buffer[:, 0].any(), "the hash table is left empty"
    listed = []
    for cards, kind, rank in plays[:count, :3].tolist():
        if kind == 0:
            listed.append((cards, kind, ("bomb", BOMB_ORDER[rank])))
        else:
            listed.append((cards, kind, ("sequence", kind, cards.bit_count() // kind, rank)))
    return listed, plays[:count]


def _buffers(capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from cardgames_env.envs.haggis.heuristic import _buffers as buffers

    return buffers(capacity)


@pytest.mark.parametrize("flags", [(False, True), (True, True), (False, False)])
def test_compiled_plays_are_legal_plays_in_order(flags: tuple[bool, bool]) -> None:
    from cardgames_env.envs.haggis.combos import legal_plays

    for hand in _random_hands(150, seed=int(flags[0]) * 2 + int(flags[1])):
        for table in TABLES:
            assert _kernel_plays(hand, table, flags)[0] == legal_plays(hand, table, *flags), (hand, table)


def test_compiled_choice_is_choose_play() -> None:
    from cardgames_env.envs.haggis import heuristic_kernel as haggis_kernel
    from cardgames_env.envs.haggis.combos import legal_plays
    from cardgames_env.envs.haggis.heuristic import choose_play

    for hand in _random_hands(200, seed=7):
        for table in TABLES:
            plays, array = _kernel_plays(hand, table, (False, True))
            for opponent_cards in (2, 4, 5, 12):
                for trick_points in (0.0, 2.0, 3.0):
                    facts = (opponent_cards, trick_points)
                    expected = choose_play(legal_plays(hand, table), hand, table, *facts)
                    row = haggis_kernel.choose(array, len(plays), hand, table is None, *facts)
                    assert (plays[row][:2] if row >= 0 else None) == (expected and expected[:2])


class ReferenceHeuristic:
    """The heuristic's moves restated on ``legal_plays`` and :func:`choose_play`, no kernel:
    plan a play at the start of a move (or one extending a selection it did not make), select
    its cards lowest first, then declare its kind; pass without a plan."""

    def __init__(self, flags: tuple[bool, bool]):
        self.flags, self.plan = flags, None

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        from cardgames_env.envs.haggis.combos import legal_plays
        from cardgames_env.envs.haggis.encoding import DECLARE0, LAYOUT, PASS
        from cardgames_env.envs.haggis.heuristic import choose_play

        view = LAYOUT.view(observation)
        bits = lambda vector: sum(1 << int(i) for i in np.flatnonzero(vector))  # noqa: E731
        hand, selected = bits(view["hand"][:39]), bits(view["selection"])
        table = None
        if not view["table_empty"][0]:
            kind = int(np.argmax(view["table_kind"]))
            length, rank = int(np.argmax(view["table_length"])) + 1, int(np.argmax(view["table_rank"])) + 2
            bombs = ("rainbow", "JQ", "JK", "QK", "JQK", "suited")
            table = ("bomb", bombs[kind - 4]) if kind >= 4 else ("sequence", kind + 1, length, rank)
        if not selected or self.plan is None or self.plan[0] & selected != selected:
            plays = legal_plays(hand, table, *self.flags)
            if not selected:
                opponent = round(float(view["opponent_hand_size"][0]) * 17)
                self.plan = choose_play(plays, hand, table, opponent, float(view["trick_points"][0]) * 36)
            else:
                low = (1 << selected.bit_length()) - 1
                options = [p for p in plays if p[0] & low == selected]
                self.plan = min(options, key=lambda p: (p[0].bit_count(), p[0])) if options else None
        first = int(np.flatnonzero(mask)[0])
        if self.plan is None:
            return PASS if mask[PASS] else first
        rest = self.plan[0] & ~selected
        action = DECLARE0 + self.plan[1] if not rest else (rest & -rest).bit_length() - 1
        if not mask[action] or action >= DECLARE0:
            self.plan = None
        return action if mask[action] else first


def _reference_games(options: dict, games: int) -> tuple[int, int]:
    """Play seeded games in which both seats are the compiled heuristic, one move in five
    replaced by a random legal action (so selections it did not make occur too), and check each
    decision against :class:`ReferenceHeuristic`. Returns (decisions, selections extended)."""
    env = haggis_v0.raw_env(target_score=150, **options)
    decisions = extended = 0
    for game in range(games):
        env.reset(seed=game)
        agent = make_agent("heuristic", env, seed=game)
        config = env.unwrapped.encoding.config
        flags = (config.lone_qk_wild, config.natural_faces_in_runs)
        references = [ReferenceHeuristic(flags) for _ in range(2)]
        rng = np.random.default_rng(game)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.possible_agents.index(name)
            observation, mask = obs["observation"], obs["action_mask"]
            plan, selected = references[seat].plan, _selected(observation)
            extended += bool(selected and (plan is None or plan[0] & selected != selected))
            action = int(agent.act_batch(observation[None], mask[None], np.array([seat]))[0])
            assert action == references[seat].act(observation, mask), (game, decisions)
            decisions += 1
            env.step(int(rng.choice(np.flatnonzero(mask))) if rng.random() < 0.2 else action)
    return decisions, extended


def _selected(observation: np.ndarray) -> int:
    return sum(1 << int(i) for i in np.flatnonzero(observation[LAYOUT_SELECTION]))


def _selection_slice() -> slice:
    from cardgames_env.envs.haggis.encoding import LAYOUT

    return LAYOUT.slice("selection")


LAYOUT_SELECTION = _selection_slice()


@pytest.mark.parametrize("options", VARIANTS)
def test_heuristic_moves_are_the_reference_moves(options: dict) -> None:
    decisions, extended = _reference_games(options, games=3)
    assert decisions > 1000 and extended > 20, (decisions, extended)


def test_a_batch_decides_as_rows_one_at_a_time() -> None:
    """Rows of many games in one call equal the same rows asked one by one, game seat by seat,
    also when a hand has more plays than the buffers first hold (they grow)."""
    env = haggis_v0.raw_env(target_score=150)
    rows: list[tuple[np.ndarray, np.ndarray, int]] = []
    for game in range(6):
        env.reset(seed=100 + game)
        player = make_agent("heuristic", env, seed=game)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            key = game * 2 + env.possible_agents.index(name)
            rows.append((obs["observation"], obs["action_mask"], key))
            action = int(player.act_batch(rows[-1][0][None], rows[-1][1][None], np.array([key]))[0])
            env.step(action)
    one_by_one = make_agent("heuristic", env, seed=0)
    single = [int(one_by_one.act_batch(o[None], m[None], np.array([k]))[0]) for o, m, k in rows]
    batched = make_agent("heuristic", env, seed=0)
    batched._buffers = _buffers(16)  # type: ignore[attr-defined]  # forces the buffers to grow
    # Interleave the games: the i-th decision of every game seat in one call.
    order: dict[int, list[int]] = {}
    for index, (_, _, key) in enumerate(rows):
        order.setdefault(key, []).append(index)
    together = [0] * len(rows)
    for step in range(max(len(v) for v in order.values())):
        chunk = [v[step] for v in order.values() if step < len(v)]
        observations, masks = np.stack([rows[i][0] for i in chunk]), np.stack([rows[i][1] for i in chunk])
        actions = batched.act_batch(observations, masks, np.array([rows[i][2] for i in chunk]))
        for i, action in zip(chunk, actions):
            together[i] = int(action)
    assert together == single
    assert len(batched._buffers[0]) > 16  # type: ignore[attr-defined]


def test_bad_input_is_refused_without_changing_plans() -> None:
    env = haggis_v0.raw_env()
    env.reset(seed=0)
    agent = make_agent("heuristic", env, seed=0)
    obs = env.observe(env.agent_selection)
    observation, mask = obs["observation"][None], obs["action_mask"][None]
    agent.act_batch(observation, mask, np.array([3]))
    plans = agent.plans.copy()  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="pass keys"):
        agent.act_batch(observation, mask)
    with pytest.raises(ValueError, match="legal action"):
        agent.act_batch(observation, np.zeros_like(mask), np.array([0]))
    with pytest.raises(ValueError, match="distinct game seats"):
        agent.act_batch(np.repeat(observation, 2, 0), np.repeat(mask, 2, 0), np.array([1, 1]))
    with pytest.raises(ValueError, match="distinct game seats"):
        agent.act_batch(observation, mask, np.array([-1]))
    with pytest.raises(ValueError, match="rows of 287 values"):
        agent.act_batch(observation[:, :10], mask, np.array([0]))
    with pytest.raises(ValueError, match="rows of 45 actions"):
        agent.act_batch(observation, mask[:, :10], np.array([0]))
    assert np.array_equal(agent.plans, plans)  # type: ignore[attr-defined]
    assert plans[3, 0] >= 0  # a lead: the plan was made
    agent.end_games(np.array([3]))
    assert agent.plans[3, 0] == -1  # type: ignore[attr-defined]
