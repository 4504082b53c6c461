"""Seat views hold only what the seat may know: re-dealing its unknown cards changes nothing.

The oracle is each game's own ``resample_hidden(state, player, rng)``, which keeps exactly
what ``player`` knows and re-deals everything else: a view built from hidden cards would
change under it.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

pytest.importorskip("starlette")

from cardgames_env.registry import ALL_ENVS, load  # noqa: E402
from cardgames_env.web import views  # noqa: E402
from cardgames_env.web.session import GameSession  # noqa: E402

VARIANTS = {
    "jaipur_v0": [{}, {"hidden_herd": True}],
    "red7_v0": [{"num_players": 3}, {"advanced": True, "action_rule": True, "num_players": 2}],
    "haggis_v0": [{"target_score": 50}],
    "gongzhu_v0": [{}],
    "haggle_v0": [{}, {"num_players": 3, "submission_phase": True}],
}


def test_variants_cover_every_env():
    assert set(VARIANTS) == set(ALL_ENVS)


def random_positions(name: str, options: dict, seed: int, every: int = 3):
    """Rules states with a player to move along a random game (every ``every``-th move)."""
    env = load(name).raw_env(**options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    step = 0
    while not all(env.terminations[a] or env.truncations[a] for a in env.agents):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        state = env.game_state()
        if step % every == 0 and env.rules.current_player(state) >= 0:
            out.append(state)
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
        step += 1
    return env, out


@pytest.mark.parametrize("name", ALL_ENVS)
def test_table_and_text_do_not_change_when_hidden_cards_are_redealt(name):
    rng = np.random.default_rng(5)
    checked = changed = 0
    for options in VARIANTS[name]:
        env, states = random_positions(name, options, seed=11)
        game = env.info.name
        for state in states[:60]:
            for viewer in range(len(env.possible_agents)):
                other = env.rules.resample_hidden(state, viewer, rng)
                changed += other != state
                assert views.table(game, other, viewer) == views.table(game, state, viewer)
                assert env.encoding.render(env.encoding.to_decision(other), viewer) == env.encoding.render(
                    env.encoding.to_decision(state), viewer
                )
                checked += 1
    assert checked > 20
    assert changed > checked // 4  # the re-deals really moved hidden cards


@pytest.mark.parametrize("name", ALL_ENVS)
def test_the_spectator_table_does_change(name):
    """The check above can fail: the view with every card shown moves with the re-deal."""
    rng = np.random.default_rng(6)
    env, states = random_positions(name, VARIANTS[name][0], seed=12)
    game = env.info.name
    assert any(
        views.table(game, env.rules.resample_hidden(s, 0, rng), None) != views.table(game, s, None)
        for s in states[:20]
    )


def _agents(name: str, options: dict, human: int) -> list[str]:
    n = len(load(name).raw_env(**options).possible_agents)
    return ["human" if seat == human else "random" for seat in range(n)]


@pytest.mark.parametrize("name", ALL_ENVS)
def test_whole_human_view_is_the_same_after_a_redeal(name):
    """The full JSON a human page gets (moves, log, zones, text) holds no hidden card."""
    options = VARIANTS[name][0]
    session = GameSession(name, options, seed=3, agents=_agents(name, options, human=1))
    rng = np.random.default_rng(7)
    turns = 0
    while not session.over and turns < 25:
        if session.to_move() == session.human:
            view = session.view()
            twin = copy.deepcopy(session)
            twin.env.set_game_state(twin.env.rules.resample_hidden(session.env.game_state(), 1, rng))
            assert twin.view() == view
            session.move(view["moves"][int(rng.integers(len(view["moves"])))]["text"])
            turns += 1
        else:
            session.step()
    assert turns > 0


def test_haggle_offers_between_others_are_not_in_the_log():
    session = GameSession("haggle_v0", {}, seed=4, agents=["human", "random", "random", "random"])
    rng = np.random.default_rng(1)
    while not session.over:
        if session.to_move() == 0:
            moves = session.view()["moves"]
            session.move(moves[int(rng.integers(len(moves)))]["text"])
        else:
            session.step()
    shown = [entry["move"] for entry in session.view()["log"]]
    full = [entry["move"] for entry in session.log]
    private = [
        (e, s) for e, s in zip(session.log, shown)
        if e["seat"] != 0 and e["move"].split()[0] in ("give", "ask", "terms")
    ]
    assert private and all(s.endswith("…") for _, s in private)
    assert shown != full
