"""Helpers of the web tests: the app served by uvicorn on a free localhost port, in a thread."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running(app: Any, port: int, config: Any = None) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1:``port`` in a thread (or as ``config`` says, a
    ``uvicorn.Config``); yield its base URL."""
    import uvicorn

    config = config or uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        assert thread.is_alive(), "the server stopped while starting"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)



def page_client(app: Any) -> Any:
    """A test client of ``app`` at http://127.0.0.1:8000 that keeps the token of every game it
    made and sends it with each request for that game, as the page does."""
    from starlette.testclient import TestClient

    class PageClient(TestClient):
        def __init__(self) -> None:
            super().__init__(app, base_url="http://127.0.0.1:8000")
            self.tokens: dict[str, str] = {}

        def request(self, method: str, url: Any, **kwargs: Any) -> Any:  # type: ignore[override]
            parts = str(url).split("?")[0].split("/")
            if len(parts) > 3 and parts[1:3] == ["api", "games"] and parts[3] in self.tokens:
                headers = dict(kwargs.get("headers") or {})
                headers.setdefault("X-Game-Token", self.tokens[parts[3]])
                kwargs["headers"] = headers
            response = super().request(method, url, **kwargs)
            if response.headers.get("content-type", "").startswith("application/json"):
                data = response.json()
                if isinstance(data, dict) and "token" in data:
                    self.tokens[data["id"]] = data["token"]
            return response

    return PageClient()
