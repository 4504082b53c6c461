"""``cardgames serve``'s limits that need a running server or a clock-free handshake with one:
server-chosen seeds, jobs whose client gave up, large records read in parallel, and clients
that send their headers slowly or hold many connections.

Nothing here measures speed by the clock except the one bound the server promises
(``/api/meta`` within 1 s while large records are read); every other wait is on an event.
"""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from cardgames_env.web.app import create_app  # noqa: E402

from .conftest import page_client  # noqa: E402


def play_out(client, game_id: str, view: dict) -> dict:
    while not view["over"]:
        r = client.post(f"/api/games/{game_id}/step", json={})
        assert r.status_code == 200, r.text
        view = r.json()["view"]
    return view


# -- server-chosen seeds --------------------------------------------------------------------
def test_a_server_chosen_seed_has_128_bits_and_its_record_replays():
    with page_client(create_app()) as c:
        seeds = []
        for _ in range(3):
            r = c.post("/api/games", json={"env": "red7_v0", "agents": ["heuristic", "random"]})
            assert r.status_code == 201, r.text
            seeds.append(r.json()["view"]["seed"])
        # a 128-bit draw is below 2**96 with probability 2**-32
        assert all(isinstance(s, int) and 2**96 <= s < 2**128 for s in seeds), seeds
        assert len(set(seeds)) == 3
        game_id = r.json()["id"]
        view = play_out(c, game_id, r.json()["view"])
        assert view["seed_text"] == str(seeds[-1])  # exact for a page (a JS number is not)
        record = c.get(f"/api/games/{game_id}/record").json()
        assert record["seed"] == seeds[-1]
        # the record replays to the same end
        r = c.post("/api/replays", json={"record": record})
        assert r.status_code == 201, r.text
        replayed = play_out(c, r.json()["id"], r.json()["view"])
        assert [e["move"] for e in replayed["log"]] == [e["move"] for e in view["log"]]
        assert replayed["scores"] == view["scores"]
        # and the seed, chosen by a client, deals the same game to the same agents
        body = {"env": "red7_v0", "agents": ["heuristic", "random"], "seed": seeds[-1]}
        r = c.post("/api/games", json=body)
        assert r.status_code == 201, r.text
        again = play_out(c, r.json()["id"], r.json()["view"])
        assert [e["move"] for e in again["log"]] == [e["move"] for e in view["log"]]


# -- jobs whose client gave up ---------------------------------------------------------------
def blocking_app(release, started, **settings):
    """An app whose agent ``blocked`` waits for ``release`` while its game is being made."""
    from cardgames_env.agents.base import RandomAgent
    from cardgames_env.web.app import Settings
    from cardgames_env.web.catalog import AgentCatalog

    def blocked(env, seed):
        started.set()
        assert release.wait(30), "the test never released the job"
        return RandomAgent(seed)

    catalog = AgentCatalog(extra={"blocked": blocked})
    return create_app(Settings(**settings), catalog=catalog)


def test_a_game_whose_client_got_503_is_not_stored():
    import threading

    from cardgames_env.web.session import GameSession

    release, started = threading.Event(), threading.Event()
    app = blocking_app(release, started, wait_seconds=0.2, max_games=1)
    store = app.state.store
    kept = store.add(GameSession("red7_v0", {}, 1, ["random", "random"]))  # another user's game
    with page_client(app) as c:
        r = c.post("/api/games", json={"env": "red7_v0", "agents": ["blocked", "random"], "seed": 2})
        assert r.status_code == 503 and "still working" in r.json()["error"], r.text
        assert started.is_set()
        release.set()
        app.state.work.drain()  # the orphaned job has ended
        assert len(store) == 1 and c.get(f"/api/games/{kept}").status_code == 200


def test_a_replay_whose_client_got_503_is_not_stored(monkeypatch):
    import threading

    from cardgames_env.web import app as web_app
    from cardgames_env.web.session import GameSession

    release, started = threading.Event(), threading.Event()
    check = web_app.check_replay

    def slow_check(record, seconds):
        started.set()
        assert release.wait(30), "the test never released the job"
        check(record, seconds)

    monkeypatch.setattr(web_app, "check_replay", slow_check)
    app = blocking_app(release, started, wait_seconds=0.1, replay_seconds=0.1, max_games=1)
    store = app.state.store
    game = GameSession("red7_v0", {}, 1, ["random", "random"])
    kept = store.add(game)
    with page_client(app) as c:
        record = c.get(f"/api/games/{kept}/record").json()
        r = c.post("/api/replays", json={"record": record})
        assert r.status_code == 503 and "still working" in r.json()["error"], r.text
        assert started.is_set()
        release.set()
        app.state.work.drain()
        assert len(store) == 1 and c.get(f"/api/games/{kept}").status_code == 200
