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


# -- what the page reads besides the table: labels, round ends, the last trick, the winners ----
def test_an_exchange_reads_as_what_is_taken_and_what_is_given():
    from cardgames_env.envs.jaipur import cards as jp_cards
    from cardgames_env.envs.jaipur import rules as jp_rules

    text = "exchange gold,silver,silver for leather,camel,camel"
    assert views.move_label("jaipur", text) == "take gold + silver ×2, give leather + camel ×2"
    move = jp_rules.parse_move(text)  # the notation itself is unchanged
    assert str(move) == text and move.take[jp_cards.NAMES.index("silver")] == 2
    for other in ("take gold", "sell 3 leather", "camels"):
        assert views.move_label("jaipur", other) == other
    assert views.move_label("gongzhu", "play 10H") == "play 10H"


def play_out(session: GameSession, rng: np.random.Generator, after_each=None) -> None:
    """Play a session to its end (the human, if any, picks random offered moves)."""
    while not session.over:
        if session.human is not None and session.to_move() == session.human:
            moves = session.view()["moves"]
            session.move(moves[int(rng.integers(len(moves)))]["text"])
        else:
            session.step()
        if after_each is not None:
            after_each(session)


@pytest.mark.parametrize("name,options,what", [
    ("jaipur_v0", {}, "Round"),
    ("red7_v0", {"advanced": True}, "Round"),
    ("haggis_v0", {"target_score": 50}, "Hand"),
    ("gongzhu_v0", {"game_end": -1000, "max_steps": 5000}, "Hand"),
])
def test_every_round_or_hand_end_is_announced(name, options, what):
    seats = len(load(name).raw_env(**options).possible_agents)
    session = GameSession(name, options, seed=5, agents=["random"] * seats)
    seen: list[tuple[int, str]] = []

    def note(s: GameSession) -> None:
        if s.notice and (not seen or seen[-1][0] != s.notice["at"]):
            seen.append((s.notice["at"], s.notice["text"]))
            assert s.notice["at"] == len(s.log) - 1  # announced with the move that ended it

    play_out(session, np.random.default_rng(0), note)
    state = session.env.game_state()
    if name == "jaipur_v0":
        ends = len(state.history)
        for (_, text), result in zip(seen, state.history):
            assert f"rupees P0 {result.rupees[0]} · P1 {result.rupees[1]}" in text
            assert (f"P{result.seal} wins the round" in text) if result.seal >= 0 else ("no seal" in text)
    elif name == "red7_v0":
        finished = session.over and not session.view()["truncated"]
        ends = state.round_number if finished else state.round_number - 1
    else:
        ends = state.hand_number if state.hand_over else state.hand_number - 1
    assert ends >= 2 and len(seen) == ends
    assert [text.split(" over")[0] for _, text in seen] == [f"{what} {k}" for k in range(1, ends + 1)]
    if name in ("haggis_v0", "gongzhu_v0"):  # the last hand's message carries the final totals
        assert seen[-1][1].endswith("totals " + " · ".join(f"P{s} {v}" for s, v in enumerate(state.totals)))


def test_a_finished_gongzhu_trick_stays_until_the_next_lead():
    from cardgames_env.envs.gongzhu.rules import parse_move

    session = GameSession("gongzhu_v0", {"game_end": -200, "max_steps": 400}, seed=2, agents=["random"] * 4)
    checked = 0

    def check(s: GameSession) -> None:
        nonlocal checked
        trick = next(z for z in s.view()["zones"] if z["id"] == "trick")
        played = len(s.log) % 4
        if played == 0:  # a trick just ended: its four cards, in play order, until the next lead
            assert trick["label"] == "Last trick" and trick.get("done") and len(trick["cards"]) == 4
            shown = [parse_move("play " + c["code"]).card for c in trick["cards"]]
            assert shown == [parse_move(e["move"]).card for e in s.log[-4:]]
            checked += 1
        else:
            assert trick["label"] == "Trick" and len(trick["cards"]) == played

    play_out(session, np.random.default_rng(1), check)
    assert checked >= 13


def test_the_red7_canvas_shows_the_card_that_set_the_rule_first():
    from cardgames_env.envs.red7.cards import COLOURS

    session = GameSession("red7_v0", {"num_players": 3}, seed=4, agents=["random"] * 3)
    checked = 0

    def check(s: GameSession) -> None:
        nonlocal checked
        state = s.env.game_state()
        words = s.log[-1]["move"].split()
        canvas = next(z for z in s.view()["zones"] if z["id"] == "canvas")
        if ("discard" in words or "canvas" in words) and not s.over:
            placed = words[-1]  # the move's card that went to the canvas
            assert canvas["cards"][0]["code"] == placed and canvas["cards"][0].get("top")
            assert placed[0] == COLOURS[state.rule] and f"set by {placed}" in canvas["note"]
            checked += 1
        assert all(c["label"] == c["code"] and c["label"][0] in COLOURS for c in canvas["cards"])

    play_out(session, np.random.default_rng(2), check)
    assert checked >= 1


@pytest.mark.parametrize("name,options", [
    ("jaipur_v0", {}), ("red7_v0", {}), ("red7_v0", {"advanced": True}), ("haggis_v0", {"target_score": 50}),
    ("gongzhu_v0", {}), ("haggle_v0", {}),
])
def test_the_end_names_the_seats_with_the_best_points(name, options):
    for seed in range(3):
        n = len(load(name).raw_env(**options).possible_agents)
        session = GameSession(name, options, seed=seed, agents=["random"] * n)
        play_out(session, np.random.default_rng(seed))
        view = session.view()
        if view["truncated"]:
            assert view["result"].startswith("Cut off")
            continue
        points = session.env.rules.points(session.env.game_state())
        points = [float("-inf") if p is None else p for p in points]
        best = [s for s, p in enumerate(points) if p == max(points)]
        if len(best) == n and name != "gongzhu_v0":
            assert view["result"] == "A draw: nobody wins"
        elif len(best) == 1:
            assert view["result"] == f"P{best[0]} wins"
        else:
            assert view["result"] == " and ".join(f"P{s}" for s in best) + " share the win"


@pytest.mark.parametrize("name", ALL_ENVS)
def test_every_card_drawn_has_colours_from_its_game_view(name):
    """The page colours a card by its kind from the game's view module: every kind a table
    shows along random games has an entry, with a CSS colour."""
    colours = views.card_colours(name)
    kinds = set()
    for options in VARIANTS[name]:
        env, states = random_positions(name, options, seed=13, every=1)
        for state in states:
            for zone in views.table(env.info.name, state, None)["zones"]:
                kinds.update(card["kind"] for card in zone["cards"])
    assert kinds, "no card was shown"
    assert kinds <= set(colours), f"kinds without colours: {kinds - set(colours)}"
    for style in colours.values():
        assert "color" in style or "background" in style
        assert all(value.startswith("#") for value in style.values())


def test_the_page_knows_no_game():
    """Titles and card colours come from the games' view modules through /api/meta."""
    from pathlib import Path

    import cardgames_env.web

    static = Path(cardgames_env.web.__file__).parent / "static"
    text = "\n".join(p.read_text(encoding="utf-8").lower() for p in static.iterdir() if p.suffix != ".svg")
    for name in ALL_ENVS:
        game = load(name).raw_env().info.name
        assert game not in text and views.title(name).lower() not in text, name
