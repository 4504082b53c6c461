"""``cardgames serve`` under attack: every attack below is refused, and the server goes on.

* No code or paths from clients: a planted pickle model named by a client never runs, and an
  existing and a missing path get the same answer.
* Same origin, own games: a foreign Host or Origin, a non-JSON body, a move without the
  game's token are refused.
* Nothing blocks the event loop: ``/api/meta`` answers while a large replay is checked,
  reading a game answers while its agent thinks, a full work queue answers 503 (each
  synchronised on events: the work in progress waits until the answer has come).
* Bounded everything: search over the cap, nested JSON, huge bodies, names and moves are
  refused with short answers; the game store is capped by estimated bytes.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import socket
import threading
import time
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from starlette.testclient import TestClient  # noqa: E402

from cardgames_env.records import Recorder, game_over, skip_dead_steps  # noqa: E402
from cardgames_env.registry import load  # noqa: E402
from cardgames_env.web.app import create_app  # noqa: E402

from .conftest import free_port, running  # noqa: E402

BASE = "http://127.0.0.1:8000"
TOKEN = "X-Game-Token"


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(), base_url=BASE) as c:
        yield c


def create(client, env: str, agents: list[str], seed: int = 1, options: dict | None = None):
    """Start a game; return its id, token (empty when the server gives none) and view."""
    r = client.post("/api/games", json={"env": env, "agents": agents, "seed": seed, "options": options or {}})
    assert r.status_code == 201, r.text
    data = r.json()
    return data["id"], data.get("token", ""), data["view"]


# -- 1. no file paths from clients --------------------------------------------------------
class _Payload:
    """Unpickling this object creates the folder ``marker`` (what a planted model would run)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (str(self.marker),))


def plant_model(folder: Path, marker: Path) -> Path:
    """A ``model.zip`` whose SB3 ``data`` holds a pickled payload, with a valid Jaipur sidecar."""
    from cardgames_env.agents.model import write_sidecar

    folder.mkdir(parents=True)
    payload = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    zip_path = folder / "model.zip"
    with zipfile.ZipFile(zip_path, "w") as archive:
        data = {"policy_class": {":type:": "<class 'type'>", ":serialized:": payload}}
        archive.writestr("data", json.dumps(data))
    write_sidecar(zip_path, load("jaipur_v0").raw_env())
    return zip_path


def test_the_planted_model_is_live(tmp_path):
    """The check below can fail: loading the planted file as a model runs its payload."""
    from cardgames_env.agents.base import make_agent

    marker = tmp_path / "ran"
    zip_path = plant_model(tmp_path / "model", marker)
    with pytest.raises(ValueError):
        make_agent(str(zip_path), load("jaipur_v0").raw_env(), seed=0)
    assert marker.exists()


def test_a_model_path_from_a_client_never_runs_nor_probes_files(client, tmp_path):
    marker = tmp_path / "ran"
    zip_path = plant_model(tmp_path / "model", marker)
    answers = []
    for name in (str(zip_path), str(zip_path.parent), str(tmp_path / "missing" / "model.zip"),
                 str(tmp_path / "model" / "model.json"), "/etc/passwd", "../../etc/passwd"):
        r = client.post("/api/games", json={"env": "jaipur_v0", "agents": ["human", name], "seed": 1})
        assert r.status_code == 400, r.text
        answers.append(r.json())
    assert not marker.exists(), "the planted model's payload ran"
    assert all(a == answers[0] for a in answers), answers  # nothing tells an existing file from a missing one
    assert "agent" in answers[0]["error"] and str(tmp_path) not in answers[0]["error"]


def test_meta_lists_the_agents_a_client_may_use(client):
    meta = client.get("/api/meta").json()
    assert meta["agents"] == ["human", "random", "heuristic", "search", "pretrained"]
    assert meta["search"]["max_time"] == 2.0
    assert meta["search"]["max_iterations"]["red7"] > 0
    assert meta["models"] == []


def test_operator_models_play_by_name_sharing_one_loaded_copy(tmp_path):
    from cardgames_env.web.catalog import AgentCatalog
    from tests.training.conftest import save_untrained_model

    from .conftest import page_client

    path = save_untrained_model(tmp_path / "run", "red7_v0")
    catalog = AgentCatalog({"mine": str(path.parent)})
    app = create_app(catalog=catalog)
    with page_client(app) as c:
        meta = c.get("/api/meta").json()
        assert "mine" in meta["agents"]
        assert meta["models"] == [{"name": "mine", "env": "red7_v0", "options": {}}]
        one, _, _ = create(c, "red7_v0", ["mine", "random"], seed=1)
        two, _, view = create(c, "red7_v0", ["mine", "mine"], seed=2)
        while not view["over"]:
            view = c.post(f"/api/games/{two}/step", json={}).json()["view"]
        store = app.state.store
        loaded = catalog.models["mine"].agent.policy
        players = [store.get(one).players[0], *store.get(two).players]
        assert all(p.policy is loaded for p in players)  # the weights are loaded once
        assert len({id(p) for p in players}) == 3  # each seat has its own randomness
        r = c.post("/api/games", json={"env": "jaipur_v0", "agents": ["mine", "random"]})
        assert r.status_code == 400 and "red7_v0" in r.json()["error"]


def test_serve_refuses_bad_models_in_one_line(tmp_path, capsys):
    from cardgames_env.cli import main

    for spec in ("nameonly", "=path", "random=" + str(tmp_path), "x=" + str(tmp_path / "missing.zip"),
                 "bad name=" + str(tmp_path)):
        assert main(["serve", "--port", "1", "--model", spec]) == 2, spec
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 5 and all(line.startswith("cardgames: error: --model") for line in err), err


def test_an_exported_policy_is_read_without_unpickling(tmp_path):
    """The ``.npz`` of an exported policy is read with ``allow_pickle=False``: an object array
    (a pickle) inside it is refused and never runs."""
    from cardgames_env.agents.pretrained import read_exported

    marker = tmp_path / "ran"
    npz = tmp_path / "policy.npz"
    np.savez(npz, w0=np.array([_Payload(marker)], dtype=object), b0=np.zeros(1), action_w=np.zeros((1, 1)),
             action_b=np.zeros(1))
    npz.with_suffix(".json").write_text(json.dumps({
        "format_version": 1, "env": "red7_v0", "options": {}, "observation_size": 1, "num_actions": 1,
        "layers": [1], "activation": "tanh"}))
    with pytest.raises(ValueError, match="not an exported policy"):
        read_exported(npz)
    assert not marker.exists()


# -- 2. same origin, own games ------------------------------------------------------------
def test_a_foreign_host_is_400(client):
    for path in ("/", "/api/meta", "/static/app.js"):
        r = client.get(path, headers={"Host": "attacker.example"})
        assert r.status_code == 400, path
    r = client.post("/api/games", json={"env": "red7_v0", "agents": ["random", "random"]},
                    headers={"Host": "attacker.example:8000"})
    assert r.status_code == 400 and "Host" in r.json()["error"]
    for host in ("localhost:8000", "127.0.0.1:8000", "LOCALHOST", "[::1]:8000"):
        assert client.get("/api/meta", headers={"Host": host}).status_code == 200, host


def test_allowed_hosts_are_the_bound_host_localhost_and_the_named_ones():
    from cardgames_env.web.app import Settings

    app = create_app(Settings(host="0.0.0.0", port=8000, allow_hosts=("cards.lan",)))
    with TestClient(app, base_url="http://cards.lan:8000") as c:
        assert c.get("/api/meta").status_code == 200
        assert c.get("/api/meta", headers={"Host": "0.0.0.0:8000"}).status_code == 400
        assert c.get("/api/meta", headers={"Host": "other.lan"}).status_code == 400
        assert c.get("/api/meta", headers={"Host": "localhost:8000"}).status_code == 200


def test_a_foreign_origin_is_403(client):
    body = {"env": "red7_v0", "agents": ["random", "random"], "seed": 1}
    for origin in ("http://attacker.example", "null", "http://127.0.0.1:9999", "http://localhost:8000"):
        r = client.post("/api/games", json=body, headers={"Origin": origin})
        assert r.status_code == 403 and "Origin" in r.json()["error"], origin
    r = client.post("/api/games", json=body, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    assert client.post("/api/games", json=body, headers={"Origin": BASE}).status_code == 201
    assert client.post("/api/games", json=body, headers={"Sec-Fetch-Site": "same-origin"}).status_code == 201


def test_state_changing_requests_need_a_json_content_type(client):
    """A cross-site page can send text/plain without a preflight; the server refuses it."""
    body = json.dumps({"env": "red7_v0", "agents": ["random", "random"], "seed": 1})
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None):
        headers = {"Content-Type": content_type} if content_type else {}
        r = client.post("/api/games", content=body, headers=headers)
        assert r.status_code == 415 and "application/json" in r.json()["error"], content_type
    game_id, token, _ = create(client, "red7_v0", ["random", "random"])
    r = client.post(f"/api/games/{game_id}/step", headers={TOKEN: token})  # no body, no type
    assert r.status_code == 415


def test_a_move_or_step_without_the_games_token_is_refused(client):
    game_id, token, view = create(client, "jaipur_v0", ["human", "random"], seed=3)
    assert len(token) >= 20
    if view["to_move"] != 0:
        view = client.post(f"/api/games/{game_id}/step", json={}, headers={TOKEN: token}).json()["view"]
    move = view["moves"][0]["text"]
    for headers in ({}, {TOKEN: ""}, {TOKEN: token[:-1]}, {TOKEN: token + "x"}):
        r = client.post(f"/api/games/{game_id}/move", json={"move": move}, headers=headers)
        assert r.status_code == 403 and "token" in r.json()["error"], headers
        r = client.get(f"/api/games/{game_id}", headers=headers)  # the human seat's cards
        assert r.status_code == 403
    r = client.post(f"/api/games/{game_id}/move", json={"move": move}, headers={TOKEN: token})
    assert r.status_code == 200
    watch, watch_token, _ = create(client, "red7_v0", ["random", "random"])
    assert client.post(f"/api/games/{watch}/step", json={}).status_code == 403
    assert client.post(f"/api/games/{watch}/step", json={}, headers={TOKEN: token}).status_code == 403
    assert client.post(f"/api/games/{watch}/step", json={}, headers={TOKEN: watch_token}).status_code == 200
    assert client.get(f"/api/games/{watch}").status_code == 200  # a watched game is read without it


def test_a_replay_has_its_own_token(client):
    game_id, token, _ = create(client, "red7_v0", ["random", "random"], seed=2)
    record = client.get(f"/api/games/{game_id}/record").json()
    r = client.post("/api/replays", json={"record": record})
    assert r.status_code == 201
    replay_id, replay_token = r.json()["id"], r.json().get("token", "")
    assert replay_token and replay_token != token
    assert client.post(f"/api/games/{replay_id}/step", json={}).status_code == 403


# -- 3. nothing blocks the event loop -----------------------------------------------------
def long_haggis_record(actions: int) -> dict:
    """A valid Haggis record of random play, ``actions`` sub-steps long (a long game, no end)."""
    options = {"max_steps": actions + 10, "target_score": 1_000_000}
    env = load("haggis_v0").raw_env(**options)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    recorder = Recorder("haggis_v0", options, 1)
    for _ in range(actions):
        if game_over(env):
            break
        recorder.step(env, int(rng.choice(np.flatnonzero(env.action_mask()))))
        skip_dead_steps(env)
    return recorder.record.to_dict()


def check_meta_while_replaying(record: dict, monkeypatch) -> None:
    """Post ``record`` as a replay to a real server; while it is checked, ask for /api/meta.

    The check (on a worker) does not return before /api/meta has answered: were the check on
    the event loop, or the loop waiting for it, /api/meta could never answer and the test
    would fail on its bounded waits instead of hanging.
    """
    from cardgames_env.web import app as web_app

    body = json.dumps({"record": record}).encode()
    checking, answered = threading.Event(), threading.Event()
    check = web_app.check_replay

    def held_check(record, seconds):
        checking.set()
        try:
            check(record, seconds)
        finally:
            assert answered.wait(60), "/api/meta never answered while the replay was checked"

    monkeypatch.setattr(web_app, "check_replay", held_check)
    done: dict[str, object] = {}
    with running(create_app(), free_port()) as base:
        def post_replay() -> None:
            with httpx.Client(base_url=base, timeout=300) as c:
                done["response"] = c.post("/api/replays", content=body,
                                          headers={"Content-Type": "application/json"})
        thread = threading.Thread(target=post_replay)
        with httpx.Client(base_url=base, timeout=20) as c:
            thread.start()
            assert checking.wait(120), "the replay's check never began"
            r = c.get("/api/meta")
            answered.set()
        thread.join()
    assert r.status_code == 200
    assert done["response"].status_code in (201, 400), done["response"].text  # 400: over the check's time cap


def test_meta_answers_while_a_long_replay_is_checked(monkeypatch):
    record = long_haggis_record(30_000)
    assert len(record["moves"]) > 10_000
    check_meta_while_replaying(record, monkeypatch)


@pytest.mark.slow
def test_meta_answers_while_a_2mb_replay_is_checked(monkeypatch):
    record = long_haggis_record(200_000)
    assert len(json.dumps({"record": record})) > 2_000_000
    check_meta_while_replaying(record, monkeypatch)


class GateAgent:
    """A random player that, before each move, says so (``entered``) and waits for ``release``."""

    def __init__(self, entered: threading.Semaphore, release: threading.Event, seed: int | None):
        from cardgames_env.agents.base import RandomAgent

        self.entered, self.release = entered, release
        self.inner = RandomAgent(seed)

    def act(self, observation, action_mask):
        self.entered.release()
        assert self.release.wait(60), "the test never let the agent move"
        return self.inner.act(observation, action_mask)

    def reset(self, seed=None):
        self.inner.reset(seed)


def gate_app(entered: threading.Semaphore, release: threading.Event, **settings):
    from cardgames_env.web.app import Settings
    from cardgames_env.web.catalog import AgentCatalog

    catalog = AgentCatalog(extra={"gate": lambda env, seed: GateAgent(entered, release, seed)})
    return create_app(Settings(**settings), catalog=catalog)


def test_reading_a_game_answers_while_its_agent_thinks():
    """The agent does not move before the reads have answered: were a read to wait for the
    thinking agent, it would never answer (and the test fails on its bounded waits)."""
    entered, release = threading.Semaphore(0), threading.Event()
    app = gate_app(entered, release)
    with running(app, free_port()) as base, httpx.Client(base_url=base, timeout=20) as c:
        r = c.post("/api/games", json={"env": "red7_v0", "agents": ["gate", "gate"], "seed": 1})
        game_id, token = r.json()["id"], r.json()["token"]
        result: dict[str, object] = {}

        def step() -> None:
            with httpx.Client(base_url=base, timeout=60) as own:
                result["step"] = own.post(f"/api/games/{game_id}/step", json={}, headers={TOKEN: token})

        thread = threading.Thread(target=step)
        thread.start()
        try:
            assert entered.acquire(timeout=60), "the agent never began its move"
            read = c.get(f"/api/games/{game_id}")
            meta = c.get("/api/meta")
        finally:
            release.set()
            thread.join()
    assert read.status_code == 200 and meta.status_code == 200
    assert read.json()["view"]["log"] == []  # the snapshot before the move
    assert len(result["step"].json()["view"]["log"]) == 1


def test_a_full_work_queue_answers_503_and_the_server_goes_on():
    entered, release = threading.Semaphore(0), threading.Event()
    app = gate_app(entered, release, workers=1, queue=2)
    work = app.state.work
    with running(app, free_port()) as base, httpx.Client(base_url=base, timeout=60) as c:
        games = []
        for seed in range(4):
            r = c.post("/api/games", json={"env": "red7_v0", "agents": ["gate", "gate"], "seed": seed})
            games.append((r.json()["id"], r.json()["token"]))
        answers: dict[int, int] = {}

        def step(index: int) -> None:
            game_id, token = games[index]
            with httpx.Client(base_url=base, timeout=60) as own:
                r = own.post(f"/api/games/{game_id}/step", json={}, headers={TOKEN: token})
            answers[index] = r.status_code

        threads = [threading.Thread(target=step, args=(i,)) for i in range(2)]
        try:
            threads[0].start()
            assert entered.acquire(timeout=60), "the first step never reached its agent"  # running
            threads[1].start()
            for _ in range(6000):  # until the second step waits in the queue (60 s at most)
                if work.pending == 2:
                    break
                time.sleep(0.01)
            assert work.pending == 2
            step(2)  # the queue is full: answered at once
            step(3)
        finally:
            release.set()
            for thread in threads:
                thread.join()
        assert answers == {0: 200, 1: 200, 2: 503, 3: 503}, answers
        assert c.get("/api/meta").status_code == 200
        r = c.post(f"/api/games/{games[3][0]}/step", json={}, headers={TOKEN: games[3][1]})
        assert r.status_code == 200  # the queue has room again


# -- 4. bounded everything ----------------------------------------------------------------
@pytest.mark.parametrize("name", ["search:time=10", "search:time=1e300", "search:time=2.5",
                                  "search:iterations=100000000", "search:iterations=400000:time=1",
                                  "search:batch=100000000", "search:batch=257"])
def test_search_over_the_cap_is_refused(client, name):
    r = client.post("/api/games", json={"env": "haggis_v0", "agents": [name, "random"], "seed": 1})
    assert r.status_code == 400 and "cap" in r.json()["error"], r.text


@pytest.mark.parametrize("asked", ["2.0000001", "2.000000000001", "1e300"])
def test_a_refused_search_time_is_quoted_as_asked(client, asked):
    r = client.post("/api/games", json={"env": "red7_v0", "agents": [f"search:time={asked}", "random"]})
    assert r.status_code == 400 and f"asked {float(asked)!r}" in r.json()["error"], r.text


def test_search_within_the_cap_plays_with_at_most_2_seconds(client):
    from cardgames_env.web.catalog import AgentCatalog

    env = load("red7_v0").raw_env()
    catalog = AgentCatalog()
    for name in ("search", "search:iterations=100", "search:time=2", "search:time=0.5"):
        agent = catalog.build(name, env, seed=0)
        assert agent.seconds is not None and agent.seconds <= 2.0
        assert agent.iterations is not None
    assert catalog.build("search:iterations=100", env, seed=0).iterations == 100
    game_id, token, _ = create(client, "red7_v0", ["search:time=0.1", "random"])
    assert client.post(f"/api/games/{game_id}/step", json={}, headers={TOKEN: token}).status_code == 200


NESTED = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("path,body", [
    ("/api/games", "[" * 5000 + "]" * 5000),  # a game's body is at most 16 kB
    ("/api/games", '{"env": "jaipur_v0", "agents": ["human", "random"], "options": {"x": '
                   + "[" * 4000 + "]" * 4000 + "}}"),
    ("/api/games", '{"env": "jaipur_v0", "options": {"a": ' + "[" * 40 + "]" * 40 + "}}"),
    ("/api/replays", NESTED),
    ("/api/replays", '{"record": ' + NESTED + "}"),
    ("/api/replays", json.dumps({"record": NESTED})),
    ("/api/replays", json.dumps({"record": '{"format": "cardgames-record/1", "env": "red7_v0", '
                                           '"options": {}, "seed": 1, "moves": ' + NESTED + "}"})),
])
def test_nested_json_is_400(client, path, body):
    r = client.post(path, content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text[:200]
    assert "nested" in r.json()["error"] and len(r.text) < 1000


def test_a_deeply_nested_record_line_is_a_record_error():
    from cardgames_env.records import GameRecord, RecordError

    with pytest.raises(RecordError, match="nested"):
        GameRecord.from_json('{"format": "cardgames-record/1", "moves": ' + NESTED + "}")


def test_malformed_json_and_constants_are_400(client):
    for body in ("{not json", "[1, 2]", '{"env": NaN}', b"\xff\xfe{}", '{"env": "red7_v0"} trailing'):
        r = client.post("/api/games", content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400, body


def test_an_integer_too_long_to_convert_is_400(client):
    # Python refuses to convert integers of more than 4300 digits with a plain ValueError
    body = '{"env": "jaipur_v0", "agents": ["random", "random"], "seed": ' + "1" * 5000 + "}"
    r = client.post("/api/games", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "number" in r.json()["error"] and len(r.content) < 1000
    r = client.post("/api/replays", json={"record": '{"seed": ' + "7" * 5000 + "}"})
    assert r.status_code == 400 and "number" in r.json()["error"]


def test_a_viewer_of_non_ascii_digits_is_400(client):
    game_id, _, _ = create(client, "jaipur_v0", ["random", "random"], seed=3)
    for viewer in ("\u00b2", "\u0661", "\uff11"):  # superscript two, Arabic-Indic one, fullwidth one
        r = client.get(f"/api/games/{game_id}", params={"viewer": viewer})
        assert r.status_code == 400 and r.json()["error"].startswith("viewer"), viewer


def test_long_input_is_refused_with_a_short_answer(client):
    game_id, token, view = create(client, "jaipur_v0", ["human", "random"], seed=3)
    big = "x" * 4_000_000
    r = client.post(f"/api/games/{game_id}/move", json={"move": big}, headers={TOKEN: token})
    assert r.status_code in (400, 413) and len(r.content) < 1000
    r = client.post(f"/api/games/{game_id}/move", json={"move": "take " + "y" * 5000}, headers={TOKEN: token})
    assert r.status_code == 400 and len(r.content) < 1000 and "characters" in r.json()["error"]
    for agents in (["human", "z" * 1000], ["human", "search:" + "c=0.5:" * 200]):
        r = client.post("/api/games", json={"env": "jaipur_v0", "agents": agents, "seed": 1})
        assert r.status_code == 400 and len(r.content) < 1000
    for options in ({"k" * 1000: 1}, {"reward": "r" * 10_000}, {"rounds": "r" * 100_000},
                    {f"o{i}": 1 for i in range(100)}):
        body = {"env": "jaipur_v0", "agents": ["human", "random"], "options": options}
        r = client.post("/api/games", json=body)
        assert r.status_code in (400, 413) and len(r.content) < 1000
    r = client.get(f"/api/games/{'g' * 5000}")
    assert r.status_code == 404 and len(r.content) < 1000
    r = client.get(f"/api/games/{game_id}?viewer={'v' * 5000}", headers={TOKEN: token})
    assert r.status_code == 400 and len(r.content) < 1000


def test_seed_must_be_a_non_negative_integer_and_is_named(client):
    for seed in (-1, -(2**70), 2**128, 1.5, "7"):
        r = client.post("/api/games", json={"env": "jaipur_v0", "agents": ["human", "random"], "seed": seed})
        error = r.json()["error"]
        assert r.status_code == 400 and error.startswith("seed") and "seat" not in error, (seed, error)


def raw_request(port: int, head: bytes, body_chunks: list[bytes], wait: float = 5.0) -> bytes:
    """Send a request by hand and return what the server answers within ``wait`` seconds."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(head)
        try:
            for chunk in body_chunks:
                sock.sendall(chunk)
        except OSError:
            pass  # the server answered and closed before the whole body was sent
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                piece = sock.recv(65536)
                if not piece:
                    break
                data += piece
        except TimeoutError:
            pass
    return data


def test_body_size_is_checked_before_and_while_reading():
    port = free_port()
    with running(create_app(), port):
        head = (b"POST /api/replays HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100000000\r\n\r\n")
        answer = raw_request(port, head, [], wait=3.0)  # no body sent: answered from the header alone
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        head = (b"POST /api/replays HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"%x\r\n%s\r\n" % (1_000_000, b" " * 1_000_000)
        answer = raw_request(port, head, [chunk] * 8, wait=10.0)  # 8 MB, never finished
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        head = (b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 200000\r\n\r\n")
        answer = raw_request(port, head, [], wait=3.0)  # a game's body is small
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


def test_the_game_store_is_capped_by_estimated_bytes():
    from cardgames_env.web.app import Settings

    probe = create_app()
    with TestClient(probe, base_url=BASE) as c:
        one, _, _ = create(c, "red7_v0", ["random", "random"])
        size = probe.state.store.bytes_of(one)
    assert size > 10_000
    cap = int(size * 3.5)
    app = create_app(Settings(max_store_bytes=cap, max_games=200))
    with TestClient(app, base_url=BASE) as c:
        ids = [create(c, "red7_v0", ["random", "random"], seed=s)[0] for s in range(10)]
        store = app.state.store
        assert store.total_bytes <= cap
        kept = [i for i in ids if c.get(f"/api/games/{i}").status_code == 200]
        assert kept == ids[-3:]  # the byte cap, not the count, dropped the oldest
        assert c.get(f"/api/games/{ids[0]}").status_code == 404
        assert store.total_bytes == sum(store.bytes_of(i) for i in kept)


def test_the_byte_estimate_is_not_below_what_a_game_really_holds():
    """An independent measure: memory a new game keeps, traced by tracemalloc."""
    from cardgames_env.web.catalog import AgentCatalog
    from cardgames_env.web.session import GameSession

    catalog = AgentCatalog()
    GameSession("jaipur_v0", {}, 1, ["heuristic", "random"], catalog=catalog)  # imports, caches
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        game = GameSession("jaipur_v0", {}, 2, ["heuristic", "random"], catalog=catalog)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert game.estimated_bytes() >= 0.5 * kept, (game.estimated_bytes(), kept)


def test_pretrained_weights_are_shared_between_games(client):
    from cardgames_env.agents.pretrained import load_policy, policy_files

    policy, _ = load_policy(*policy_files("red7_v0"))
    weights = sum(w.nbytes + b.nbytes for w, b in policy.layers)
    create(client, "red7_v0", ["pretrained", "random"], seed=0)  # the first game loads the file
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for seed in range(1, 5):
            create(client, "red7_v0", ["pretrained", "pretrained"], seed=seed)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < weights / 2, (grown, weights)


def test_static_files_never_reach_outside_the_static_folder():
    # the package's own source is one folder above the static files
    port = free_port()
    with running(create_app(), port):
        for path in (b"/static/../app.py", b"/static/..%2fapp.py", b"/static/%2e%2e/app.py",
                     b"/static/%2e%2e%2fapp.py", b"/static/..%5capp.py", b"/static//etc/passwd",
                     b"/static/%2fetc%2fpasswd"):
            answer = raw_request(port, b"GET " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", [])
            assert answer.startswith(b"HTTP/1.1 4"), (path, answer[:200])
        answer = raw_request(port, b"GET /static/app.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", [])
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]  # the check above can fail


QUOTED = 40
"""Characters of a client's text an error message quotes at most (docs: "a few dozen")."""


@pytest.mark.parametrize("env,others", [("jaipur_v0", 1), ("red7_v0", 1), ("haggis_v0", 1), ("gongzhu_v0", 3),
                                        ("haggle_v0", 3)])
def test_an_error_quotes_a_few_dozen_characters_of_a_move(client, env, others):
    game_id, token, view = create(client, env, ["human"] + ["random"] * others, seed=3)
    while view["to_move"] != 0:
        view = client.post(f"/api/games/{game_id}/step", json={}, headers={TOKEN: token}).json()["view"]
    for move in ("take " + "q" * 195, "q" * 200, "exchange " + "gold," * 38, "play " + "r1 " * 65,
                 "give " + "a'b\"c" * 39):
        move = move[:200]
        r = client.post(f"/api/games/{game_id}/move", json={"move": move}, headers={TOKEN: token})
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        runs = range(len(move) + 1)
        longest = max(n for n in runs if any(move[i:i + n] in error for i in range(len(move) - n + 1)))
        assert longest <= QUOTED + 10, (longest, error)  # the quote and a little of the game's own words
        assert len(error) <= 200, error


def test_no_page_of_the_server_can_be_framed(client):
    """Another site cannot show the page in a frame (clickjacking a human seat's moves)."""
    for path, headers in (("/", {}), ("/static/app.js", {}), ("/api/meta", {}),
                          ("/api/meta", {"Host": "attacker.example"})):
        r = client.get(path, headers=headers)
        assert r.headers.get("x-frame-options") == "DENY", path
        assert "frame-ancestors 'none'" in r.headers.get("content-security-policy", ""), path
