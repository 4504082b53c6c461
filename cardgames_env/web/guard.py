"""What every request of ``cardgames serve`` passes before the app acts on it.

* :class:`SameOrigin` (ASGI middleware): the ``Host`` header must name this server (the
  bound host, ``localhost``/``127.0.0.1``/``::1``, or a name given with ``--allow-host``),
  else 400: a DNS-rebinding page reaches the server under a foreign name. A request that
  changes something (any method but GET, HEAD, OPTIONS) must send ``Content-Type:
  application/json`` (else 415: a cross-site page can send ``text/plain`` without asking),
  and an ``Origin`` header, when sent, must be this server's scheme, host and port (else
  403), as must ``Sec-Fetch-Site`` (``same-origin`` or ``none``).
* :class:`NoFraming` (ASGI middleware): no answer may be shown in another page's frame.
* :func:`read_body` checks ``Content-Length`` before reading and stops reading at the limit
  (chunked bodies too): 413.
* :func:`parse_json` refuses what is not UTF-8 JSON, NaN/Infinity, integers of more digits
  than Python converts, and nesting deeper than :data:`MAX_DEPTH` (never a ``RecursionError``
  or a bare ``ValueError``): 400.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .session import BadRequest, clip
from .store import TooLarge

LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
"""Host names every server answers to."""
WILDCARD_HOSTS = ("", "0.0.0.0", "::")
"""Bind addresses that are not a name a client could use."""
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
"""Methods that change nothing (no Content-Type or Origin check)."""
MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted in JSON."""
DEFAULT_PORTS = {"http": 80, "https": 443}


def split_host(value: str) -> tuple[str, int | None]:
    """``"Example.org:8000"`` -> ``("example.org", 8000)``; ``"[::1]"`` -> ``("::1", None)``.

    An IPv6 address is written in its shortest form (``[0:0::1]`` -> ``::1``); brackets hold an
    IPv6 address only, and only ``:PORT`` may follow them.

    Raises:
        ValueError: for a malformed host or port.
    """
    value = value.strip().lower()
    if value.startswith("["):
        name, closed, rest = value[1:].partition("]")
        if not closed or (rest and not rest.startswith(":")):
            raise ValueError(f"bad host {value!r}: only :PORT may follow ']'")
        if ":" not in name:
            raise ValueError(f"bad host {value!r}: brackets hold an IPv6 address")
        port: str | None = rest[1:] if rest else None
    elif value.count(":") == 1:
        name, _, port = value.partition(":")
    else:
        name, port = value, None
    if port is not None and not (port.isascii() and port.isdigit() and int(port) <= 65535):
        raise ValueError(f"bad port in {value!r}")
    if ":" in name:
        try:
            name = ipaddress.IPv6Address(name).compressed
        except ValueError:
            raise ValueError(f"bad IPv6 address in {value!r}") from None
    elif "[" in name or "]" in name:
        raise ValueError(f"bad host {value!r}")
    return name.rstrip("."), int(port) if port is not None else None


def allowed_hosts(bound: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The host names a server bound to ``bound`` answers to (lowercase, without ports)."""
    names = set(LOCAL_NAMES)
    if bound.strip("[]") not in WILDCARD_HOSTS:
        try:
            names.add(split_host(bound if ":" not in bound or bound.startswith("[") else f"[{bound}]")[0])
        except ValueError:
            names.add(bound.strip("[]").lower())
    names.update(split_host(name)[0] for name in extra)
    return frozenset(names)


def same_origin(origin: str, host: str, scheme: str = "http") -> bool:
    """Whether the ``Origin`` header names this server: the ``scheme`` it is reached by (http or
    https), the host the ``Host`` header names and the same port (a port-less origin or host
    means the scheme's default port)."""
    parts = urlsplit(origin)
    if parts.scheme != scheme or scheme not in DEFAULT_PORTS:
        return False
    if not parts.netloc or parts.path not in ("", "/"):
        return False
    try:
        origin_name, origin_port = split_host(parts.netloc)
        host_name, host_port = split_host(host)
    except ValueError:
        return False
    default = DEFAULT_PORTS[scheme]
    origin_port = default if origin_port is None else origin_port
    host_port = default if host_port is None else host_port
    return origin_name == host_name and origin_port == host_port


def refusal(status: int, message: str) -> JSONResponse:
    """A JSON error answer."""
    return JSONResponse({"error": clip(message, 500)}, status_code=status)


def check_request(
    method: str, headers: Headers, hosts: frozenset[str], scheme: str = "http"
) -> JSONResponse | None:
    """The refusal a request earns by its Host, Origin, Sec-Fetch-Site or Content-Type, or ``None``
    (``scheme``: how the request reached the server, ``http`` or ``https``)."""
    host = headers.get("host")
    try:
        name = split_host(host)[0] if host else None
    except ValueError:
        name = None
    if name not in hosts:
        shown = clip(host, 60) if host else "(none)"
        return refusal(400, f"Host header {shown} is not a name of this server "
                            "(start it with --allow-host NAME to answer to another name)")
    if method in SAFE_METHODS:
        return None
    origin = headers.get("origin")
    if origin is not None and not same_origin(origin, host or "", scheme):
        return refusal(403, f"Origin {clip(origin, 60)} is not this server: "
                            "requests from other sites are refused")
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return refusal(403, f"a {clip(site, 20)} request: requests from other sites are refused")
    media = headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        return refusal(415, "requests that change something need Content-Type: application/json")
    return None


class SameOrigin:
    """ASGI middleware: the Host, Origin, Sec-Fetch-Site and Content-Type checks of the module docstring.

    Args:
        app: the app behind it.
        hosts: the host names the server answers to (:func:`allowed_hosts`).
    """

    def __init__(self, app: ASGIApp, hosts: frozenset[str]):
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scheme = scope.get("scheme", "http")
            answer = check_request(scope["method"], Headers(scope=scope), self.hosts, scheme)
            if answer is not None:
                await answer(scope, receive, send)
                return
        await self.app(scope, receive, send)


class NoFraming:
    """ASGI middleware: every answer forbids showing it in another page's frame
    (``X-Frame-Options: DENY`` and ``Content-Security-Policy: frame-ancestors 'none'``), so that
    no site can lay the page under its own and steer a player's clicks.

    Args:
        app: the app behind it.
    """

    HEADERS = ((b"x-frame-options", b"DENY"), (b"content-security-policy", b"frame-ancestors 'none'"))

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def framed(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.HEADERS]}
            await send(message)

        await self.app(scope, receive, framed)


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused before reading when ``Content-Length`` is over ``limit`` and as
    soon as more than ``limit`` bytes have come (a chunked body has no length).

    Raises:
        TooLarge: over the limit.
        BadRequest: for a malformed ``Content-Length``.
    """
    declared = request.headers.get("content-length")
    if declared is not None:
        if not (declared.strip().isascii() and declared.strip().isdigit()):
            raise BadRequest("malformed Content-Length")
        if int(declared) > limit:
            raise TooLarge(f"the request body is {int(declared)} bytes; this request takes at most {limit}")
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(f"the request body is over {limit} bytes, the most this request takes")
        chunks.append(chunk)
    return b"".join(chunks)


def _no_constant(name: str) -> Any:
    raise BadRequest(f"{name} is not a JSON number")


def check_depth(data: Any, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`BadRequest` if arrays and objects in ``data`` nest deeper than ``limit``."""
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if depth > limit:
            raise BadRequest(f"the JSON is nested deeper than {limit} levels")
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


def parse_json(raw: bytes | str, what: str = "the request body") -> Any:
    """Decode JSON from a client.

    Raises:
        BadRequest: for text that is not UTF-8 or not JSON, NaN or Infinity, an integer of
            more digits than Python converts, or nesting deeper than :data:`MAX_DEPTH`.
    """
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise BadRequest(f"{what} is not UTF-8 text") from None
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except BadRequest:
        raise
    except RecursionError:
        raise BadRequest(f"{what}: the JSON is nested deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        raise BadRequest(f"{what} is not JSON: {error.msg} at {where}") from None
    except ValueError as error:  # an integer longer than Python converts (sys.get_int_max_str_digits)
        raise BadRequest(clip(f"{what} holds a number this server does not read: {error}", 200)) from None
    if isinstance(data, (dict, list)):
        check_depth(data)
    return data


__all__ = [
    "LOCAL_NAMES", "MAX_DEPTH", "NoFraming", "SameOrigin", "allowed_hosts", "check_depth", "check_request",
    "parse_json", "read_body", "refusal", "same_origin", "split_host",
]
