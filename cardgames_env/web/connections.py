"""The connections of ``cardgames serve``: a deadline for a request's headers and a cap on the
connections one client holds, enforced below the ASGI app (uvicorn's HTTP/1.1 protocol, h11).

uvicorn closes a connection idle between requests (``timeout_keep_alive``) and answers 503 to
every request once ``limit_concurrency`` connections are open, but it never times out a
request whose headers come slowly: a client trickling one header byte at a time could hold
connections until every request, from anyone, was refused. :func:`guarded_protocol` makes a
protocol class that

* answers **408** and closes a connection whose request line and headers are not all in
  within ``header_seconds`` of their first byte (of the connection's opening for the first
  request), and
* answers **503** and closes a new connection from an address that already holds
  ``per_client`` connections.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


def _answer(status: str, message: str) -> bytes:
    """A whole HTTP/1.1 answer with a JSON error body that closes the connection."""
    body = json.dumps({"error": message}).encode()
    head = (f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n")
    return head.encode() + body


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a header deadline and a per-client connection cap (set on
    the subclass :func:`guarded_protocol` makes; one subclass per server)."""

    header_seconds: ClassVar[float] = 10.0
    per_client: ClassVar[int] = 16
    clients: ClassVar[Counter[str]] = Counter()
    """Open connections by client address."""
    refused: ClassVar[Counter[str]] = Counter()
    """Connections refused by client address (over :attr:`per_client`)."""
    timed_out: ClassVar[int] = 0
    """Connections closed for their headers' deadline."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._address: str | None = self.client[0] if self.client else None
        if self._address is not None:
            if self.clients[self._address] >= self.per_client:
                type(self).refused[self._address] += 1
                self._address = None
                transport.write(_answer("503 Service Unavailable", (
                    f"this address holds {self.per_client} connections to the server, the most it may"
                )))
                transport.close()
                return
            self.clients[self._address] += 1
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        address = getattr(self, "_address", None)
        if address is not None:
            self.clients[address] -= 1
            if self.clients[address] <= 0:
                del self.clients[address]
            self._address = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self._arm()  # a request has begun and its headers are not all in
        else:
            self._disarm()

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.header_seconds, self._too_slow)

    def _disarm(self) -> None:
        deadline = getattr(self, "_deadline", None)
        if deadline is not None:
            deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            type(self).timed_out += 1
            self.transport.write(_answer("408 Request Timeout", (
                f"the request's headers took longer than {self.header_seconds:g} s"
            )))
            self.transport.close()


def guarded_protocol(header_seconds: float, per_client: int) -> type[GuardedH11]:
    """A :class:`GuardedH11` subclass with these limits and counters of its own (pass it to
    ``uvicorn.Config(http=...)``)."""
    attributes: dict[str, Any] = {
        "header_seconds": header_seconds, "per_client": per_client,
        "clients": Counter(), "refused": Counter(), "timed_out": 0,
    }
    return type("GuardedH11Server", (GuardedH11,), attributes)


__all__ = ["GuardedH11", "guarded_protocol"]
