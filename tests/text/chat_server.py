"""A chat-completions server for the tests: a scripted model on 127.0.0.1 (stdlib only).

The model reads the legal moves listed as ``[move]`` lines in the last user message and answers
with one of them after some reasoning that names other moves; a script (a list of actions, one
per request, then ``default``) makes it answer junk, an illegal move, stall past the client's
timeout, or fail with 429 or 500 instead.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cardgames_env.text import LEGAL_MOVES_HEADER

STALL_SECONDS = 5.0
"""Longest a stalled answer waits (the server's stop event ends it sooner)."""


def listed_moves(text: str) -> list[str]:
    """The ``[move]`` lines after the legal-moves header of a user message."""
    if LEGAL_MOVES_HEADER not in text:
        return []
    tail = text.split(LEGAL_MOVES_HEADER, 1)[1]
    return [line[1:-1] for line in tail.splitlines() if line.startswith("[") and line.endswith("]")]


class ScriptedModel:
    """What the server answers: ``script`` actions first (one per request), then ``default``.

    Actions: ``"pick"`` (a listed move, after reasoning that names two other moves), ``"junk"``
    (no brackets), ``"illegal"`` (a bracketed move that is not listed), ``"stall"`` (no answer
    until the client gave up), ``"429"`` (with ``Retry-After: 0``; ``"429:S"`` with ``S``), ``"500"``.
    """

    def __init__(self, script: list[str] | None = None, default: str = "pick", seed: int = 0):
        self.script = list(script or [])
        self.default = default
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.answers: list[str] = []
        self.active = 0
        self.most_active = 0
        self.stop = threading.Event()

    def next_action(self, body: dict[str, Any]) -> str:
        with self.lock:
            self.requests.append(body)
            return self.script.pop(0) if self.script else self.default

    def reply(self, action: str, body: dict[str, Any]) -> str:
        user = [m["content"] for m in body["messages"] if m["role"] == "user"]
        moves = next((listed_moves(u) for u in reversed(user) if listed_moves(u)), [])
        if action == "junk":
            return "I would rather not say."
        if action == "illegal":
            return "My move: [fly to the moon]"
        with self.lock:
            choice = self.rng.choice(moves) if moves else "pass"
            others = [self.rng.choice(moves) for _ in range(2)] if moves else []
        thinking = " ".join(f"Maybe [{m}]?" for m in others)
        return f"{thinking} No, I play\n[{choice}]"


class Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:  # the client gave up (a stalled answer)
            pass

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        model: ScriptedModel = self.server.model
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length))
        if not self.path.endswith("/chat/completions"):
            self._send(404, {"error": "not found"})
            return
        action = model.next_action(body)
        with model.lock:
            model.active += 1
            model.most_active = max(model.most_active, model.active)
        headers: dict[str, str] = {}
        try:  # counted as active from the request's arrival until its answer is ready
            if action == "stall":
                model.stop.wait(STALL_SECONDS)
                return
            if action.startswith("429"):  # "429" or "429:SECONDS" (the Retry-After header)
                status, payload = 429, {"error": "slow down"}
                headers["Retry-After"] = action.partition(":")[2] or "0"
            elif action == "500":
                status, payload = 500, {"error": "boom"}
            else:
                text = model.reply(action, body)
                with model.lock:
                    model.answers.append(text)
                status, payload = 200, {
                    "id": "x", "object": "chat.completion", "model": body.get("model"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
                }
        finally:
            with model.lock:
                model.active -= 1
        # sent after the count went down: a client's next request (once it has read this
        # answer) can never overlap this one in the count
        self._send(status, payload, headers)


@contextmanager
def chat_server(model: ScriptedModel) -> Iterator[str]:
    """Serve ``model`` on 127.0.0.1 (a free port) in a thread; yields the base URL (``.../v1``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.model = model  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        model.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
