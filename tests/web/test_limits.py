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
        assert started.wait(30), "the job never began"
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
        assert started.wait(30), "the job never began"
        release.set()
        app.state.work.drain()
        assert len(store) == 1 and c.get(f"/api/games/{kept}").status_code == 200


# -- large records read in parallel ------------------------------------------------------------
READERS = 30


def large_game(store, moves: int):
    """A watched Red7 game stored in ``store`` whose record holds ``moves`` made-up moves (the
    record endpoint encodes what the record holds; a real game this long takes minutes)."""
    from cardgames_env.web.session import GameSession

    game = GameSession("red7_v0", {}, 1, ["random", "random"])
    made_up = ([i % 2, f"play r{i % 7 + 1} discard b{i % 5 + 1}"] for i in range(moves))
    game.recorder.record.moves.extend(made_up)
    return store.add(game), game


def send_buffer_limit() -> int:
    """The most bytes the kernel buffers for one TCP sender (Linux's ``tcp_wmem``; else 4 MiB)."""
    from pathlib import Path

    try:
        return int(Path("/proc/sys/net/ipv4/tcp_wmem").read_text().split()[2])
    except (OSError, ValueError, IndexError):
        return 4 * 2**20


class Finished:
    """ASGI wrapper that counts the record requests the app has answered completely."""

    def __init__(self, app):
        self.app = app
        self.count = 0
        self.lock = __import__("threading").Lock()

    async def __call__(self, scope, receive, send):
        await self.app(scope, receive, send)
        if scope["type"] == "http" and scope["path"].endswith("/record"):
            with self.lock:
                self.count += 1


def test_meta_answers_within_1s_while_30_large_records_are_read():
    import json
    import socket
    import threading
    import time

    from cardgames_env.web.app import Settings

    from .conftest import free_port, running

    app = create_app(Settings(max_record_bytes=2**30))  # however large the buffers make it
    store = app.state.store
    game_id, game = large_game(store, max(200_000, 2 * send_buffer_limit() // 25))
    size = len(json.dumps(game.record(), separators=(",", ":")))
    assert size > max(4_900_000, send_buffer_limit())  # no read can end before its client reads
    arrived = threading.Semaphore(0)
    get = store.get

    def counting_get(key):
        if key == game_id:
            arrived.release()
        return get(key)

    store.get = counting_get
    wrapped = Finished(app)
    port = free_port()
    request = (f"GET /api/games/{game_id}/record HTTP/1.1\r\n"
               "Host: 127.0.0.1\r\nConnection: close\r\n\r\n").encode()
    with running(wrapped, port) as base:
        sockets = []
        try:
            for _ in range(READERS):
                sock = socket.socket()
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the server must wait for us
                sock.settimeout(60)
                sock.connect(("127.0.0.1", port))
                sock.sendall(request)
                sockets.append(sock)
            for _ in range(READERS):  # every read has reached the app
                assert arrived.acquire(timeout=60), "a record request never reached the app"
            with httpx.Client(base_url=base, timeout=60) as c:
                start = time.perf_counter()
                meta = c.get("/api/meta")
                waited = time.perf_counter() - start
            unfinished = READERS - wrapped.count  # nobody has read a record: they cannot be done
            bodies = []
            for sock in sockets[:2]:  # two whole answers (the others are dropped unread)
                pieces = []
                while piece := sock.recv(1 << 20):
                    pieces.append(piece)
                bodies.append(b"".join(pieces))
        finally:
            for sock in sockets:
                sock.close()
    assert meta.status_code == 200
    assert waited < 1.0, f"/api/meta waited {waited:.2f} s for the record reads"
    assert unfinished > 0, "every read ended before /api/meta was asked: make the record larger"
    last = game.record()["moves"][-1]
    for data in bodies:
        head, _, body = data.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head[:200]
        assert json.loads(body)["moves"][-1] == last


def test_a_record_is_encoded_once_counted_in_the_store_and_bounded():
    import json

    from cardgames_env.web.app import Settings

    app = create_app(Settings(max_record_bytes=1_000_000))
    store = app.state.store
    small_id, small = large_game(store, 1_000)
    large_id, _ = large_game(store, 40_000)
    with page_client(app) as c:
        before = store.bytes_of(small_id)
        first = c.get(f"/api/games/{small_id}/record")
        assert first.status_code == 200 and first.headers["content-type"] == "application/json"
        assert first.json() == json.loads(json.dumps(small.record()))
        grown = store.bytes_of(small_id) - before
        assert grown == len(first.content)  # the kept bytes count against the store's cap
        assert c.get(f"/api/games/{small_id}/record").content == first.content
        assert store.bytes_of(small_id) - before == grown  # kept once, not once per read
        r = c.get(f"/api/games/{large_id}/record")
        assert r.status_code == 413 and "MiB" in r.json()["error"] and len(r.content) < 300
        assert c.get("/api/meta").status_code == 200


def test_encode_json_is_json_dumps_in_pieces():
    import json

    from cardgames_env.web.session import encode_json

    data = {"format": "f", "moves": [[i % 3, f"m{i} é"] for i in range(5000)], "empty": [],
            "nested": {"a": [1, None, True]}, "ключ": "значение", "edge": list(range(2048))}
    for piece in (1, 7, 2048, 10_000):
        assert encode_json(data, piece) == json.dumps(data, separators=(",", ":")).encode()


# -- slow headers and many connections -------------------------------------------------------
def guarded(port: int, **settings):
    """An app and the uvicorn config ``cardgames serve`` runs it with, on 127.0.0.1:``port``."""
    from cardgames_env.web.app import Settings, server_config

    options = Settings(host="127.0.0.1", port=port, **settings)
    app = create_app(options)
    return app, server_config(app, options)


def test_a_client_sending_its_headers_slowly_is_cut_off():
    import socket

    from .conftest import free_port, running

    port = free_port()
    app, config = guarded(port, header_seconds=0.5)
    with running(app, port, config) as base, httpx.Client(base_url=base, timeout=30) as c:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as slow:
            slow.sendall(b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            assert c.get("/api/meta").status_code == 200  # others are answered meanwhile
            slow.settimeout(0.1)  # one header byte each 0.1 s, until the server answers
            answer = b""
            for _ in range(150):  # 15 s at most: the server should cut it off after 0.5 s
                try:
                    slow.sendall(b"a")
                    answer = slow.recv(4096)
                except TimeoutError:
                    continue
                except OSError:  # reset: the server closed it
                    answer = answer or b"(closed)"
                break
        assert answer.startswith(b"HTTP/1.1 408") or answer == b"(closed)", answer[:200]
        assert config.http_protocol_class.timed_out == 1
        assert c.get("/api/meta").status_code == 200


def test_many_slow_connections_from_one_client_do_not_starve_others():
    import select
    import socket
    import time

    from .conftest import free_port, running

    port = free_port()
    app, config = guarded(port, header_seconds=60, client_connections=4, connections=10)
    sockets = []
    with running(app, port, config) as base:
        protocol = config.http_protocol_class
        try:
            for _ in range(20):  # twice the server's connections, from another loopback address
                sock = socket.socket()
                sockets.append(sock)
                try:
                    sock.bind(("127.0.0.2", 0))
                except OSError:
                    pytest.skip("127.0.0.2 is not a loopback address of this machine")
                sock.settimeout(30)
                sock.connect(("127.0.0.1", port))
                sock.sendall(b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the end
            for _ in range(1000):  # until the server has taken or refused every one (10 s at most)
                if protocol.clients["127.0.0.2"] + protocol.refused["127.0.0.2"] == 20:
                    break
                time.sleep(0.01)
            assert protocol.clients["127.0.0.2"] == 4 and protocol.refused["127.0.0.2"] == 16
            with httpx.Client(base_url=base, timeout=30) as c:
                assert c.get("/api/meta").status_code == 200
                r = c.post("/api/games", json={"env": "red7_v0", "agents": ["random", "random"]})
                assert r.status_code == 201, r.text
            answers = {}
            for _ in range(100):  # the 16 refused ones have an answer waiting (10 s at most)
                readable, _, _ = select.select([s for s in sockets if s not in answers], [], [], 0.1)
                answers.update((s, s.recv(4096)) for s in readable)
                if len(answers) >= 16:
                    break
            assert len(answers) == 16
            assert all(answer.startswith(b"HTTP/1.1 503") for answer in answers.values())
        finally:
            for sock in sockets:
                sock.close()
