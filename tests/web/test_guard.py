"""The Host, Origin and Sec-Fetch-Site checks of :mod:`cardgames_env.web.guard`, case by case.

The server below is ``http://127.0.0.1:8765``: every row says what a request carrying those
headers gets, derived from the same-origin rule (scheme, host and port all equal; a port-less
origin means the scheme's default port) and the Host rule (a name of this server, an IPv6
address only inside brackets, nothing after the closing bracket but a port).
"""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")

from starlette.datastructures import Headers  # noqa: E402

from cardgames_env.web.guard import allowed_hosts, check_request, same_origin, split_host  # noqa: E402

HOSTS = allowed_hosts("127.0.0.1")
HOST = "127.0.0.1:8765"
JSON = {"content-type": "application/json"}


def status(method: str = "POST", scheme: str = "http", **headers: str) -> int:
    """The status ``check_request`` answers (200 when it lets the request through)."""
    raw = {"host": HOST, **JSON, **{k.replace("_", "-"): v for k, v in headers.items()}}
    answer = check_request(method, Headers(raw), HOSTS, scheme)
    return 200 if answer is None else answer.status_code


@pytest.mark.parametrize("origin,expected", [
    ("http://127.0.0.1:8765", 200),          # this server
    ("http://127.0.0.1:8765/", 200),         # a trailing slash is still the origin
    ("HTTP://127.0.0.1:8765", 200),          # the scheme is case-blind
    ("http://127.0.0.1", 403),               # port-less: port 80, not 8765
    ("http://127.0.0.1:80", 403),
    ("https://127.0.0.1:8765", 403),         # other scheme, same host and port
    ("https://127.0.0.1", 403),
    ("http://127.0.0.1:8766", 403),          # other port
    ("http://localhost:8765", 403),          # another name of the same machine is another origin
    ("http://attacker.example:8765", 403),
    ("http://127.0.0.1.attacker.example:8765", 403),
    ("null", 403),                           # sandboxed frames, file: pages
    ("", 403),
    ("ws://127.0.0.1:8765", 403),
    ("http://127.0.0.1:8765/path", 403),
    ("http://user@127.0.0.1:8765", 403),
])
def test_origin(origin, expected):
    assert status(origin=origin) == expected


@pytest.mark.parametrize("host,origin,expected", [
    ("127.0.0.1", "http://127.0.0.1", 200),          # both port-less: both port 80
    ("127.0.0.1", "http://127.0.0.1:80", 200),
    ("127.0.0.1:80", "http://127.0.0.1", 200),
    ("127.0.0.1", "http://127.0.0.1:8765", 403),
    ("[::1]:8765", "http://[::1]:8765", 200),
    ("[::1]:8765", "http://[::1]", 403),
    ("[::1]:8765", "http://[::1]:8766", 403),
    ("[::1]:8765", "http://127.0.0.1:8765", 403),
])
def test_origin_against_the_host_it_came_with(host, origin, expected):
    assert status(host=host, origin=origin) == expected


def test_origin_on_an_https_server():
    """Behind TLS the server's scheme is https: an http origin is another origin."""
    assert status(scheme="https", origin="https://127.0.0.1:8765") == 200
    assert status(scheme="https", origin="http://127.0.0.1:8765") == 403


@pytest.mark.parametrize("site,expected", [
    ("same-origin", 200),
    ("none", 200),            # typed in the address bar, a bookmark
    ("same-site", 403),       # another port or subdomain of the same site is not this server
    ("cross-site", 403),
    ("", 403),
    ("SAME-ORIGIN", 403),     # the header's values are lowercase tokens
])
def test_sec_fetch_site(site, expected):
    assert status(sec_fetch_site=site) == expected


@pytest.mark.parametrize("host,expected", [
    ("127.0.0.1:8765", 200),
    ("127.0.0.1", 200),
    ("LOCALHOST:8765", 200),
    ("localhost.", 200),
    ("[::1]:8765", 200),
    ("[::1]", 200),
    ("[0:0:0:0:0:0:0:1]:8765", 200),   # another spelling of ::1
    ("::1", 200),                      # a bare IPv6 address (no port can follow)
    ("[::1]evil.com", 400),            # text after the bracket
    ("[::1]evil.com:8765", 400),
    ("[::1]:8765evil", 400),
    ("[::1]:", 400),
    ("[localhost]", 400),              # brackets hold an IPv6 address only
    ("[localhost]:8765", 400),
    ("[127.0.0.1]", 400),
    ("[::1", 400),
    ("::1]", 400),
    ("[]", 400),
    ("127.0.0.1:", 400),
    ("127.0.0.1:port", 400),
    ("127.0.0.1:99999999999999999999", 400),
    ("attacker.example", 400),
    ("127.0.0.1.attacker.example", 400),
    ("localhost:8765@attacker.example", 400),
    ("", 400),
])
def test_host(host, expected):
    assert status(method="GET", host=host) == expected


def test_no_host_header_is_400():
    assert check_request("GET", Headers({}), HOSTS, "http").status_code == 400


def test_safe_methods_skip_the_origin_checks_but_not_the_host():
    assert status(method="GET", origin="http://attacker.example", sec_fetch_site="cross-site") == 200
    assert status(method="GET", host="attacker.example", origin="http://127.0.0.1:8765") == 400


@pytest.mark.parametrize("value,expected", [
    ("Example.org:8000", ("example.org", 8000)),
    ("[::1]", ("::1", None)),
    ("[::1]:8000", ("::1", 8000)),
    ("[0:0::1]:80", ("::1", 80)),
    ("::1", ("::1", None)),
    ("name.", ("name", None)),
])
def test_split_host(value, expected):
    assert split_host(value) == expected


@pytest.mark.parametrize("value", ["[::1]evil", "[localhost]", "[::1]:x", "a:b", "[::1", "[]", "a:"])
def test_split_host_refuses(value):
    with pytest.raises(ValueError):
        split_host(value)


def test_same_origin_needs_the_scheme():
    assert same_origin("http://127.0.0.1:8765", HOST, "http")
    assert not same_origin("https://127.0.0.1:8765", HOST, "http")
    assert not same_origin("http://127.0.0.1", HOST, "http")
