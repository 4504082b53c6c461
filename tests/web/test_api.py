"""The JSON API of ``cardgames serve`` through the ASGI test client: every game end to end,
records and replays, hidden cards, and bad input (a 4xx with a message; the server goes on)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from cardgames_env.records import GameRecord, replay_record  # noqa: E402
from cardgames_env.registry import ALL_ENVS, load  # noqa: E402
from cardgames_env.web.app import create_app  # noqa: E402

from .conftest import page_client  # noqa: E402

OPTIONS = {"haggis_v0": {"target_score": 50}}


@pytest.fixture(scope="module")
def client():
    with page_client(create_app()) as c:
        yield c


def seats(name: str) -> int:
    return len(load(name).raw_env(**OPTIONS.get(name, {})).possible_agents)


def new_game(client, name, agents, seed=1, options=None):
    r = client.post("/api/games", json={"env": name, "agents": agents, "seed": seed,
                                        "options": OPTIONS.get(name, {}) if options is None else options})
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["view"]


def play_out(client, game_id, view, rng, responses=None):
    """Play a game to its end: the human picks random offered moves, agents step."""
    while not view["over"]:
        if view["human"] is not None and view["to_move"] == view["human"]:
            assert view["moves"], "the human is to move but no move is offered"
            move = view["moves"][int(rng.integers(len(view["moves"])))]["text"]
            r = client.post(f"/api/games/{game_id}/move", json={"move": move})
        else:
            assert view["moves"] == []
            r = client.post(f"/api/games/{game_id}/step", json={})
        assert r.status_code == 200, r.text
        if responses is not None:
            responses.append(r.text)
        view = r.json()["view"]
    return view


def test_page_script_and_meta(client):
    page = client.get("/")
    assert page.status_code == 200 and "<script src=\"/static/app.js\">" in page.text
    assert "http" not in re.sub(r"<!doctype html>", "", page.text.split("<body>")[0], flags=re.I)  # no CDN
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200
    meta = client.get("/api/meta").json()
    assert [e["env"] for e in meta["envs"]] == list(ALL_ENVS)
    from cardgames_env.agents.base import AGENT_KINDS

    assert meta["agents"] == ["human", *AGENT_KINDS]
    jaipur = next(e for e in meta["envs"] if e["env"] == "jaipur_v0")
    assert {"name": "hidden_herd", "default": False, "type": "bool"} in jaipur["options"]


@pytest.mark.parametrize("name", ALL_ENVS)
def test_human_game_end_to_end_with_record_and_replay(client, name):
    n = seats(name)
    human = n - 1
    agents = ["heuristic" if s == 0 else "random" for s in range(n)]
    agents[human] = "human"
    game_id, view = new_game(client, name, agents, seed=2)
    assert view["human"] == human and view["viewer"] == human and not view["spectator"]
    assert view["seed"] is None  # the seed would give the deal away
    assert client.get(f"/api/games/{game_id}/record").status_code == 403
    final = play_out(client, game_id, view, np.random.default_rng(0))
    assert final["over"] and final["scores"]["rows"]
    labels = [row[0] for row in final["scores"]["rows"]]
    assert labels[-2:] == ["Points", "Return (RL)"] and len(labels) > 2  # the game's own breakdown first
    record = client.get(f"/api/games/{game_id}/record").json()
    assert record["finished"] and record["agents"] == agents and record["seed"] == 2
    assert len(record["moves"]) == len(final["log"])
    env = replay_record(GameRecord.from_dict(record))
    points = final["scores"]["rows"][-2][1:]
    assert json.loads(json.dumps(list(env.rules.points(env.game_state())))) == points
    # the record opens as a replay that steps through the same moves
    r = client.post("/api/replays", json={"record": json.dumps(record)})
    assert r.status_code == 201, r.text
    replay_id, rview = r.json()["id"], r.json()["view"]
    assert rview["replay"] == {"index": 0, "total": len(record["moves"])} and rview["spectator"]
    for _ in range(len(record["moves"])):
        rview = client.post(f"/api/games/{replay_id}/step", json={}).json()["view"]
    assert rview["over"] and [e["move"] for e in rview["log"]] == [m for _, m in record["moves"]]
    assert rview["scores"]["rows"][-2] == final["scores"]["rows"][-2]


@pytest.mark.parametrize("name", ALL_ENVS)
def test_watch_agents_spectator_and_seat_views(client, name):
    n = seats(name)
    game_id, view = new_game(client, name, ["random"] * n, seed=4)
    assert view["spectator"] and view["human"] is None and view["seed"] == 4
    assert sum(z["hidden"] for z in view["zones"]) == 0  # spectator: every card face up
    seat_view = client.get(f"/api/games/{game_id}?viewer=0").json()["view"]
    assert seat_view["viewer"] == 0 and not seat_view["spectator"]
    assert sum(z["hidden"] for z in seat_view["zones"]) > 0  # others' hands face down
    for _ in range(5):
        r = client.post(f"/api/games/{game_id}/step", json={})
        assert r.status_code == 200
    assert len(r.json()["view"]["log"]) == 5
    final = play_out(client, game_id, r.json()["view"], np.random.default_rng(1))
    assert final["scores"] is not None


UNIQUE_CARD = {  # games whose cards are all different: a hidden card's name must appear nowhere
    "gongzhu_v0": r"\b[2-9TJQKA][SHDC]\b|[♠♥♦♣](?:10|[2-9JQKA])",
    "haggis_v0": r"\b(?:10|[2-9])[SHDC]\b",
    "red7_v0": r"\b[ROYGBIV][1-7]\b",
}


@pytest.mark.parametrize("name", sorted(UNIQUE_CARD))
def test_no_hidden_opponent_card_in_any_response(client, name):
    """Every response of a human game, checked for the names of the cards the human cannot see."""
    from cardgames_env.web.session import GameSession

    n = seats(name)
    agents = ["random"] * n
    agents[0] = "human"
    game_id, view = new_game(client, name, agents, seed=6)
    rng = np.random.default_rng(2)
    checked = 0
    # a twin session with the same seed and moves tells which cards are hidden at each point
    twin = GameSession(name, OPTIONS.get(name, {}), 6, agents)
    while not view["over"]:
        if view["to_move"] == 0:
            move = view["moves"][int(rng.integers(len(view["moves"])))]["text"]
            r = client.post(f"/api/games/{game_id}/move", json={"move": move})
            twin.move(move)
        else:
            r = client.post(f"/api/games/{game_id}/step", json={})
            twin.step()
        assert r.status_code == 200
        view = r.json()["view"]
        assert [e["move"] for e in twin.view()["log"]] == [e["move"] for e in view["log"]]
        state = twin.env.game_state()
        if view["over"] or getattr(state, "hand_number", 1) > 1:
            break  # a new deal: card names of the earlier hands are in the move log
        hidden = hidden_cards(name, state)
        shown = set(re.findall(UNIQUE_CARD[name], r.text.replace("♠", " ♠").replace("♥", " ♥")
                               .replace("♦", " ♦").replace("♣", " ♣")))
        leaked = shown & hidden
        assert not leaked, f"hidden cards {leaked} in a response"
        checked += 1
    assert checked > 3


def hidden_cards(name: str, state) -> set[str]:
    """Names of the cards in the other seats' hands that seat 0 does not know."""
    if name == "gongzhu_v0":
        from cardgames_env.core.cards import cards_of, french_card_str
        from cardgames_env.envs.gongzhu.cards import pretty

        cards = [c for s in range(1, 4) for c in cards_of(state.hands[s])]
        return {french_card_str(c) for c in cards} | {pretty(c) for c in cards}
    if name == "haggis_v0":
        from cardgames_env.envs.haggis.cards import NUMBER_MASK, card_str, ids_of

        return {card_str(c) for c in ids_of(state.hands[1] & NUMBER_MASK)}
    from cardgames_env.core.cards import cards_of
    from cardgames_env.envs.red7.cards import card_str

    known = state.known_hands[1] if state.known_hands else 0
    return {card_str(c) for s in range(1, state.num_players) for c in cards_of(state.hands[s] & ~known)}


def test_same_seed_games_are_isolated_and_deterministic(client):
    a, va = new_game(client, "gongzhu_v0", ["random"] * 4, seed=9)
    b, vb = new_game(client, "gongzhu_v0", ["random"] * 4, seed=9)
    assert a != b
    for _ in range(10):
        client.post(f"/api/games/{a}/step", json={})
    assert client.get(f"/api/games/{b}").json()["view"]["log"] == []  # b untouched
    fa = play_out(client, a, client.get(f"/api/games/{a}").json()["view"], np.random.default_rng(0))
    fb = play_out(client, b, vb, np.random.default_rng(0))
    assert fa["log"] == fb["log"] and fa["scores"] == fb["scores"]


@pytest.fixture
def human_game(client):
    game_id, view = new_game(client, "jaipur_v0", ["human", "random"], seed=3)
    if view["to_move"] != 0:
        view = client.post(f"/api/games/{game_id}/step", json={}).json()["view"]
    assert view["to_move"] == 0
    return game_id, view


@pytest.mark.parametrize(
    "body,status,message",
    [
        ({"move": "fly to the moon"}, 400, "not a move"),
        ({"move": "sell 7 diamond"}, 400, "illegal"),
        ({"move": ""}, 400, "non-empty"),
        ({"move": 12}, 400, "notation"),
        ({"move": "take leather", "seat": 1}, 403, "not the human seat"),
    ],
)
def test_bad_moves_are_4xx_and_change_nothing(client, human_game, body, status, message):
    game_id, before = human_game
    r = client.post(f"/api/games/{game_id}/move", json=body)
    assert r.status_code == status and message in r.json()["error"]
    assert client.get(f"/api/games/{game_id}").json()["view"] == before


def test_out_of_turn_and_wrong_endpoints(client, human_game):
    game_id, view = human_game
    r = client.post(f"/api/games/{game_id}/step", json={})
    assert r.status_code == 409 and "human" in r.json()["error"]
    client.post(f"/api/games/{game_id}/move", json={"move": view["moves"][0]["text"]})
    r = client.post(f"/api/games/{game_id}/move", json={"move": view["moves"][0]["text"]})
    assert r.status_code == 409 and "not your turn" in r.json()["error"]
    assert client.get(f"/api/games/{game_id}?viewer=1").status_code == 403
    assert client.get(f"/api/games/{game_id}?viewer=all").json()["view"]["viewer"] == 0  # never all cards
    watch, _ = new_game(client, "jaipur_v0", ["random", "random"])
    r = client.post(f"/api/games/{watch}/move", json={"move": "camels"})
    assert r.status_code == 409 and "no human seat" in r.json()["error"]
    assert client.get(f"/api/games/{watch}?viewer=7").status_code == 400
    assert client.get(f"/api/games/{watch}?viewer=x").status_code == 400


def test_partial_substep_moves_are_refused(client):
    game_id, view = new_game(client, "haggis_v0", ["human", "random"], seed=1)
    if view["to_move"] != 0:
        view = client.post(f"/api/games/{game_id}/step", json={}).json()["view"]
    card = view["moves"][0]["sel"]["hand"][0]
    r = client.post(f"/api/games/{game_id}/move", json={"move": f"select {card}"})
    assert r.status_code == 400 and "part of a move" in r.json()["error"]
    assert client.get(f"/api/games/{game_id}").json()["view"] == view


def test_a_finished_game_refuses_moves(client):
    game_id, view = new_game(client, "red7_v0", ["random", "random"], seed=2)
    play_out(client, game_id, view, np.random.default_rng(0))
    r = client.post(f"/api/games/{game_id}/step", json={})
    assert r.status_code == 409 and "over" in r.json()["error"]


@pytest.mark.parametrize(
    "body,message",
    [
        ({"env": "chess_v0", "agents": ["human", "random"]}, "unknown env"),
        ({"env": "jaipur_v0", "agents": ["human"]}, "2 seats"),
        ({"env": "jaipur_v0", "agents": ["human", "human"]}, "at most one seat"),
        ({"env": "jaipur_v0", "agents": ["human", "genius"]}, "not an agent of this server"),
        ({"env": "jaipur_v0", "agents": ["human", "random"], "options": {"colour": 3}}, "colour"),
        ({"env": "jaipur_v0", "agents": ["human", "random"], "options": {"max_rounds": "x"}}, "max_rounds"),
        ({"env": "jaipur_v0", "agents": ["human", "random"], "seed": "one"}, "seed"),
        ({"env": "jaipur_v0", "agents": ["human", "random"], "options": []}, "options"),
        ({"env": "jaipur_v0", "agents": ["human", "random"], "options": 0}, "options"),
        ({"env": "jaipur_v0", "agents": ["human", "random"], "options": ""}, "options"),
        ({"env": "jaipur_v0", "agents": ["human", "random"], "options": False}, "options"),
        ({"env": "jaipur_v0", "agents": "human"}, "agents"),
        ({"agents": ["human", "random"]}, "env"),
    ],
)
def test_bad_new_games_are_400(client, body, message):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400 and message in r.json()["error"]


def test_a_lookup_error_of_a_bug_is_no_missing_game(monkeypatch):
    """Only an unknown id is a 404: a KeyError raised by a bug reaches the server's error
    handling (a 500 there) instead of passing for a game that is gone."""
    from cardgames_env.web.store import GameStore

    with page_client(create_app()) as c:
        assert c.get("/api/games/nosuchgame").status_code == 404
        monkeypatch.setattr(GameStore, "get", lambda self, game_id: {}["a bug"])
        with pytest.raises(KeyError, match="a bug"):
            c.get("/api/games/nosuchgame")


def test_unknown_ids_bad_bodies_and_bad_records(client):
    assert client.get("/api/games/nosuchgame").status_code == 404
    assert client.post("/api/games/nosuchgame/step", json={}).status_code == 404
    r = client.post("/api/games", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "JSON" in r.json()["error"]
    assert client.post("/api/games", json=[1, 2]).status_code == 400
    for record in ('{"format": "cardgames-record/1", "env": "jaipur_v0"', '{"format": "other"}', "", 5):
        r = client.post("/api/replays", json={"record": record})
        assert r.status_code == 400 and r.json()["error"], record
    good = {"format": "cardgames-record/1", "env": "gongzhu_v0", "options": {}, "seed": 1,
            "moves": [[0, "play AS"]], "finished": False}
    r = client.post("/api/replays", json={"record": good})
    assert r.status_code == 400 and "move 1" in r.json()["error"]
    # the server is still serving
    assert client.get("/api/meta").status_code == 200


def test_serve_binds_to_localhost_by_default():
    import inspect

    from cardgames_env.cli import build_parser
    from cardgames_env.web.app import Settings, serve

    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port == 8000
    assert inspect.signature(serve).parameters["settings"].default is None
    assert Settings().host == "127.0.0.1"


def test_serve_errors_are_one_line_and_exit_2(capsys):
    import socket

    from cardgames_env.cli import main

    assert main(["serve", "--port", "0"]) == 2
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        assert main(["serve", "--port", str(busy.getsockname()[1])]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "--port" in err[0] and "cannot serve" in err[1]
    for value in ("nan", "inf", "-1"):
        assert main(["serve", "--port", "1", "--max-memory", value]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--max-memory" in err[0], (value, err)
    assert main(["serve", "--port", "1", "--allow-host", "example.org:abc"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--allow-host" in err[0] and "bad port" in err[0], err


def test_jaipur_substep_exchanges_are_whole_moves_for_the_human(client):
    """With exchanges built in sub-steps, the page still sends whole exchanges, checked and played."""
    game_id, view = new_game(client, "jaipur_v0", ["human", "random"], seed=5,
                             options={"exchange_encoding": "substeps", "rounds": 1})
    rng = np.random.default_rng(3)
    exchanges = 0
    while not view["over"]:
        if view["to_move"] == 0:
            offered = [m for m in view["moves"] if m["text"].startswith("exchange")] or view["moves"]
            move = offered[int(rng.integers(len(offered)))]["text"]
            exchanges += move.startswith("exchange")
            r = client.post(f"/api/games/{game_id}/move", json={"move": move})
            assert r.status_code == 200, r.text
            assert any(e["seat"] == 0 and e["move"] == move for e in r.json()["view"]["log"])
        else:
            r = client.post(f"/api/games/{game_id}/step", json={})
        view = r.json()["view"]
    assert exchanges > 3
    record = client.get(f"/api/games/{game_id}/record").json()
    assert not any("exchange:" in m for _, m in record["moves"])  # no sub-step entries
    replay_record(GameRecord.from_dict(record))


def test_a_move_is_posted_as_its_text_not_its_label(client):
    """As docs/web.md says: ``text`` is the notation ``/move`` takes; a ``label`` is for reading."""
    for seed in range(1, 40):
        game_id, view = new_game(client, "jaipur_v0", ["human", "random"], seed=seed)
        if view["to_move"] != 0:
            view = client.post(f"/api/games/{game_id}/step", json={}).json()["view"]
        exchanges = [m for m in view["moves"] if m["text"].startswith("exchange")]
        if exchanges:
            break
    move = exchanges[0]
    assert move["label"] != move["text"] and move["label"].startswith("take ")
    r = client.post(f"/api/games/{game_id}/move", json={"move": move["label"]})
    assert r.status_code == 400, r.text
    assert client.get(f"/api/games/{game_id}").json()["view"]["log"] == view["log"]  # nothing changed
    r = client.post(f"/api/games/{game_id}/move", json={"move": move["text"]})
    assert r.status_code == 200, r.text
