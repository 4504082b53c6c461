"""The browser app of ``cardgames serve``: a small Starlette (ASGI) app and its JSON API.

Pages and card faces are static files of this package (``web/static``): nothing is fetched
from elsewhere. The API (all JSON; errors are ``{"error": message}`` with a 4xx or 503 status):

* ``GET /api/meta``: the envs with their variants (``Config`` fields and defaults), the agent
  names a client may use (:class:`~cardgames_env.web.catalog.AgentCatalog`), the operator's
  models and the search caps.
* ``POST /api/games`` ``{"env", "options", "seed", "agents": [one name per seat]}``: a new
  game; answers ``{"id", "token", "view"}``. The ``token`` is the game's secret: every move
  and step, and reading a game with a human seat, must send it as the ``X-Game-Token`` header.
* ``GET /api/games/{id}?viewer=k``: the view; with a human seat always that seat's, without
  one a seat's (``viewer``) or the spectator view that shows every card.
* ``POST /api/games/{id}/move`` ``{"move": notation}``: the human seat's move.
* ``POST /api/games/{id}/step``: one move of the agent to move (or the record's next move).
* ``GET /api/games/{id}/record``: the game record (JSON; with a human seat once the game is over),
  encoded on a worker once per version, kept with the game and sent in pieces.
* ``POST /api/replays`` ``{"record": record object or its JSON line, "game": N}``: a game
  that replays it (``{"id", "token", "view"}``).

Requests pass :mod:`.guard` first (Host, Origin, Content-Type, body size, JSON nesting).
Work that can take time (making a game, agents' moves, checking a replay) runs on a few
worker threads (:class:`WorkQueue`), never on the event loop; reads answer from the views a
game published after its last change, so they never wait for a thinking agent. A new game
or replay is stored only when its request still waits for it (a 503 leaves nothing behind).
:func:`serve` runs the app on uvicorn with the header deadline and per-client connection cap
of :mod:`.connections`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import hmac
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from cardgames_env.records import GameRecord, RecordError
from cardgames_env.registry import env_names, load

from . import views
from .catalog import MAX_NAME, AgentCatalog
from .guard import NoFraming, SameOrigin, allowed_hosts, parse_json, read_body, refusal
from .session import (
    MAX_MOVE,
    BadRequest,
    Conflict,
    Forbidden,
    GameSession,
    check_replay,
    check_seed,
    clip,
    random_seed,
)
from .store import MAX_BYTES, MAX_GAMES, GameStore, TooLarge, UnknownGame

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 5_000_000
"""Largest replay request body accepted (bytes)."""
SMALL_BODY = 16_384
"""Largest body of the other requests (bytes)."""
MAX_SEATS = 8
"""Most agents one request may name."""
TOKEN_HEADER = "X-Game-Token"
"""Header that carries a game's secret."""
MAX_RECORD = 16 * 2**20
"""Largest game record sent (bytes of JSON)."""
CHUNK = 65_536
"""Bytes of a large answer sent at a time."""

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class Settings:
    """How one server runs.

    Attributes:
        host: the address it binds (its name is one the ``Host`` header may give).
        port: the port it binds.
        allow_hosts: more host names the ``Host`` header may give (``--allow-host``).
        max_games: games kept at most.
        max_store_bytes: estimated bytes of all games kept at most (see :mod:`.store`).
        workers: threads that make games, play agents' moves and check replays.
        queue: jobs running or waiting for a worker at most; beyond it requests get 503.
        wait_seconds: how long a request waits for its job before answering 503 (a move or
            step goes on and the game shows it when done; a new game or replay is dropped).
        replay_seconds: how long a replay's check may take before the record is refused.
        max_record_bytes: the largest record ``/record`` sends (bytes of JSON; beyond it 413).
        header_seconds: how long a request's line and headers may take to come in (then 408).
        client_connections: connections one client address may hold at once (more: 503).
        connections: connections and requests at once (more: 503).
    """

    host: str = "127.0.0.1"
    port: int = 8000
    allow_hosts: tuple[str, ...] = ()
    max_games: int = MAX_GAMES
    max_store_bytes: int = MAX_BYTES
    workers: int = 4
    queue: int = 32
    wait_seconds: float = 15.0
    replay_seconds: float = 30.0
    max_record_bytes: int = MAX_RECORD
    header_seconds: float = 10.0
    client_connections: int = 16
    connections: int = 100


class Busy(RuntimeError):
    """The server cannot take the request now (HTTP 503): its work queue is full or the job is slow."""


class WorkQueue:
    """A few worker threads and a bounded number of jobs running or waiting for them.

    Args:
        workers: threads.
        limit: jobs running or waiting at most; :meth:`run` answers :class:`Busy` beyond it.
    """

    def __init__(self, workers: int, limit: int):
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="cardgames-web")
        self._slots = threading.BoundedSemaphore(limit)
        self._jobs: set[concurrent.futures.Future[Any]] = set()
        self._jobs_lock = threading.Lock()

    async def run(self, job: Callable[[], T], timeout: float) -> T:
        """Run ``job`` on a worker and return its result (or raise its exception).

        Raises:
            Busy: when the queue is full, or the job takes longer than ``timeout`` (it goes on).
        """
        if not self._slots.acquire(blocking=False):
            raise Busy("the server is busy; try again in a moment")
        try:
            future = self._pool.submit(job)
        except RuntimeError:
            self._slots.release()
            raise Busy("the server is stopping") from None
        with self._jobs_lock:
            self._jobs.add(future)
        future.add_done_callback(self._done)
        waited = asyncio.wrap_future(future)
        try:
            return await asyncio.wait_for(asyncio.shield(waited), timeout)
        except asyncio.TimeoutError:
            waited.add_done_callback(lambda done: done.cancelled() or done.exception())  # nobody waits now
            raise Busy(
                f"still working after {timeout:g} s; the game shows the result when it is done"
            ) from None

    def _done(self, future: concurrent.futures.Future[Any]) -> None:
        with self._jobs_lock:
            self._jobs.discard(future)
        self._slots.release()

    @property
    def pending(self) -> int:
        """Jobs running or waiting for a worker now."""
        with self._jobs_lock:
            return len(self._jobs)

    def drain(self, timeout: float | None = None) -> None:
        """Wait until every job taken so far has ended (or ``timeout`` seconds have passed)."""
        with self._jobs_lock:
            jobs = list(self._jobs)
        concurrent.futures.wait(jobs, timeout)

    def close(self) -> None:
        """Stop taking jobs; drop those still waiting."""
        self._pool.shutdown(wait=False, cancel_futures=True)


def _handle(func: Callable[[Request], Any]) -> Callable[[Request], Any]:
    """Turn the API's exceptions into JSON error answers (the server keeps running)."""

    async def endpoint(request: Request) -> Response:
        try:
            response: Response = await func(request)
            return response
        except BadRequest as error:
            return refusal(400, str(error))
        except Forbidden as error:
            return refusal(403, str(error))
        except UnknownGame as error:  # only this: a KeyError of a bug is a 500, not a missing game
            return refusal(404, str(error))
        except Conflict as error:
            return refusal(409, str(error))
        except TooLarge as error:
            return refusal(413, str(error))
        except Busy as error:
            answer = refusal(503, str(error))
            answer.headers["Retry-After"] = "1"
            return answer

    return endpoint


def env_meta() -> list[dict[str, Any]]:
    """Every env the browser can show: name, game, title, seats, its variants (``Config``
    fields with defaults) and the colours of its card faces."""
    out = []
    for name in filter(views.has_view, env_names()):
        env = load(name).raw_env()
        fields = [
            {"name": f.name, "default": getattr(env.config, f.name), "type": str(f.type)}
            for f in dataclasses.fields(env.rules.Config)
        ]
        out.append({"env": name, "game": env.info.name, "title": views.title(name),
                    "players": len(env.possible_agents), "options": fields,
                    "doc": (env.rules.__doc__ or "").strip().splitlines()[0],
                    "card_colours": views.card_colours(name)})
    return out


def _json(body: bytes, status: int = 200) -> Response:
    return Response(body, status_code=status, media_type="application/json")


def _answer(game_id: str, view: bytes, token: str | None = None, status: int = 200) -> Response:
    """``{"id", "view"}`` (and ``"token"`` for a new game) around a published view."""
    secret = f',"token":"{token}"' if token is not None else ""
    return _json(f'{{"id":"{game_id}"{secret},"view":'.encode() + view + b"}", status)


def _object(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    return data


def _viewer(request: Request) -> int | None:
    text = request.query_params.get("viewer")
    if text is None or text in ("", "all"):
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 2):
        raise BadRequest(f"viewer must be a seat number or 'all', got {clip(text, 20)!r}")
    return int(text)


def _check_token(request: Request, game: GameSession) -> None:
    """Refuse a request without the game's secret (compared in constant time)."""
    given = request.headers.get(TOKEN_HEADER.lower())
    if given is None:
        raise Forbidden(f"this game's token is missing: send it in the {TOKEN_HEADER} header")
    if not hmac.compare_digest(given.encode("utf-8", "replace"), game.token.encode()):
        raise Forbidden("wrong token for this game")


@contextlib.contextmanager
def _changing(game: GameSession) -> Iterator[None]:
    """Hold the game's lock for a change, refusing (409) while another change is under way."""
    if not game.lock.acquire(blocking=False):
        raise Conflict("the game is busy with another move; try again when it is done")
    try:
        yield
    finally:
        game.lock.release()


def read_record(data: dict[str, Any]) -> GameRecord:
    """The record a replay request holds: an object, or JSON Lines text and the 1-based ``game``.

    Raises:
        BadRequest: for a missing, malformed or too deeply nested record.
    """
    raw = data.get("record")
    try:
        if isinstance(raw, str):
            lines = [line for line in raw.splitlines() if line.strip()]
            if not lines:
                raise RecordError("the record is empty")
            index = data.get("game", 1)
            if isinstance(index, bool) or not isinstance(index, int) or not 1 <= index <= len(lines):
                raise BadRequest(f"game must be 1..{len(lines)}")
            return GameRecord.from_dict(parse_json(lines[index - 1], "the record"))
        return GameRecord.from_dict(raw)
    except RecordError as error:
        raise BadRequest(clip(f"bad record: {error}", 300)) from None


@dataclasses.dataclass(frozen=True)
class Server:
    """What the routes of one app share: its settings, agents, games, workers and meta answer."""

    settings: Settings
    catalog: AgentCatalog
    store: GameStore
    work: WorkQueue
    meta: dict[str, Any]

    async def small_object(self, request: Request) -> dict[str, Any]:
        """The body of a request other than a replay: a JSON object of at most :data:`SMALL_BODY` bytes."""
        return _object(parse_json(await read_body(request, SMALL_BODY)))

    async def run(self, job: Callable[[], T]) -> T:
        """Run ``job`` on a worker, waiting at most the settings' ``wait_seconds``."""
        return await self.work.run(job, self.settings.wait_seconds)


def page_routes(server: Server) -> list[BaseRoute]:
    """The page, its static files and ``/api/meta``."""

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    @_handle
    async def get_meta(request: Request) -> Response:
        return JSONResponse(server.meta)

    return [
        Route("/", index),
        Route("/api/meta", get_meta),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]


def _new_game_job(server: Server, data: dict[str, Any]) -> Callable[[], GameSession]:
    """Check a new game's request and return the job that makes the game (not yet stored)."""
    env_name = data.get("env")
    if not isinstance(env_name, str) or len(env_name) > 64:
        raise BadRequest(f"'env' must name an env, e.g. {env_names()[0]!r}")
    options = data.get("options")
    options = {} if options is None else options  # any other value is checked by GameSession
    seed = data.get("seed")
    seed = random_seed() if seed is None else check_seed(seed)
    agents = data.get("agents")
    if not isinstance(agents, list) or not all(isinstance(a, str) and a.strip() for a in agents):
        raise BadRequest("'agents' must be a list of agent names, one per seat")
    if len(agents) > MAX_SEATS:
        raise BadRequest(f"'agents' names {len(agents)} seats; games have at most {MAX_SEATS}")
    names = [a.strip() for a in agents]
    return lambda: GameSession(env_name, options, seed, names, catalog=server.catalog)


def game_routes(server: Server) -> list[BaseRoute]:
    """Making a game, reading it, and the human's and the agents' moves."""
    store = server.store

    @_handle
    async def new_game(request: Request) -> Response:
        game = await server.run(_new_game_job(server, await server.small_object(request)))
        game_id = store.add(game)  # only once its client waits for it: a 503 leaves nothing stored
        return _answer(game_id, game.published(None), game.token, 201)

    @_handle
    async def get_game(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        game = store.get(game_id)
        if game.human is not None:
            _check_token(request, game)
        return _answer(game_id, game.published(_viewer(request)))

    @_handle
    async def post_move(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        game = store.get(game_id)
        _check_token(request, game)
        data = await server.small_object(request)
        move = data.get("move")
        if not isinstance(move, str):
            raise BadRequest("'move' must be the move's notation, e.g. \"take leather\"")
        seat = data.get("seat")
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
            raise BadRequest("'seat' must be a seat number")
        job = _change(store, game_id, game, lambda: game.move(move, seat))
        return _answer(game_id, await server.run(job))

    @_handle
    async def post_step(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        game = store.get(game_id)
        _check_token(request, game)
        viewer = game.check_viewer(_viewer(request))
        await read_body(request, SMALL_BODY)  # a step takes no arguments
        return _answer(game_id, await server.run(_change(store, game_id, game, game.step, viewer)))

    return [
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", get_game),
        Route("/api/games/{game_id}/move", post_move, methods=["POST"]),
        Route("/api/games/{game_id}/step", post_step, methods=["POST"]),
    ]


def _change(
    store: GameStore, game_id: str, game: GameSession, change: Callable[[], None], viewer: int | None = None
) -> Callable[[], bytes]:
    """The job that makes ``change`` under the game's lock, publishes the views, counts the game's
    bytes again and returns ``viewer``'s view (the human's in a game with a human seat)."""

    def job() -> bytes:
        with _changing(game):
            change()
            snapshot = game.publish()
        store.resize(game_id)
        return snapshot.views[game.check_viewer(viewer)]

    return job


def _bytes_body(body: bytes) -> Response:
    """A JSON answer sent in :data:`CHUNK` pieces, each after the client has taken the one before
    (the server's send buffer holds one piece per connection, not the whole body)."""

    async def pieces() -> AsyncIterator[bytes]:
        for start in range(0, len(body), CHUNK):
            yield body[start:start + CHUNK]

    return StreamingResponse(pieces(), media_type="application/json",
                             headers={"Content-Length": str(len(body))})


def record_routes(server: Server) -> list[BaseRoute]:
    """Reading a game's record and replaying a record."""
    settings, store = server.settings, server.store

    @_handle
    async def get_record(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        game = store.get(game_id)

        def encode() -> bytes:
            body = game.record_bytes(settings.max_record_bytes)
            store.resize(game_id)  # the encoded record is kept with the game and counted
            return body

        return _bytes_body(await server.run(encode))

    @_handle
    async def new_replay(request: Request) -> Response:
        raw = await read_body(request, MAX_BODY)

        def make() -> GameSession:
            record = read_record(_object(parse_json(raw)))
            check_replay(record, settings.replay_seconds)
            return GameSession(record.env, record.options, record.seed, record=record, catalog=server.catalog)

        game = await server.work.run(make, settings.replay_seconds + settings.wait_seconds)
        game_id = store.add(game)  # only once its client waits for it: a 503 leaves nothing stored
        return _answer(game_id, game.published(None), game.token, 201)

    return [
        Route("/api/games/{game_id}/record", get_record),
        Route("/api/replays", new_replay, methods=["POST"]),
    ]


def create_app(settings: Settings | None = None, catalog: AgentCatalog | None = None) -> Starlette:
    """Build the ASGI app with its own, empty game store.

    Args:
        settings: how it runs (default :class:`Settings`).
        catalog: the agents clients may name (default: the built-in ones, no models).
    """
    settings = settings or Settings()
    catalog = catalog or AgentCatalog()
    limits = {"max_move": MAX_MOVE, "max_agent_name": MAX_NAME, "max_replay_body": MAX_BODY}
    server = Server(settings, catalog, GameStore(settings.max_store_bytes, settings.max_games),
                    WorkQueue(settings.workers, settings.queue),
                    {"envs": env_meta(), **catalog.describe(), "limits": limits})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        server.work.close()

    routes = [*page_routes(server), *game_routes(server), *record_routes(server)]
    hosts = allowed_hosts(settings.host, settings.allow_hosts)
    middleware = [Middleware(NoFraming), Middleware(SameOrigin, hosts=hosts)]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.store = server.store  # the games, for tests and embedding
    app.state.work = server.work
    app.state.catalog = catalog
    return app


def serve(settings: Settings | None = None, catalog: AgentCatalog | None = None) -> None:
    """Run the app with uvicorn until interrupted (binds to localhost unless told otherwise), as
    :func:`server_config` sets it up.

    Raises:
        OSError: when the address cannot be bound (port in use, unknown host), before serving.
    """
    import socket

    import uvicorn

    settings = settings or Settings()
    host, port = settings.host, settings.port
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:  # a clear error instead of uvicorn's exit
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
    app = create_app(settings, catalog)
    names = ", ".join(sorted(allowed_hosts(host, settings.allow_hosts)))
    print(f"cardgames: serving on http://{host}:{port}/ (Ctrl-C stops); Host names answered: {names}",
          flush=True)
    uvicorn.Server(server_config(app, settings)).run()


def server_config(app: Any, settings: Settings) -> Any:
    """The ``uvicorn.Config`` that serves ``app`` as ``settings`` say: HTTP/1.1 (h11) with the
    header deadline and the per-client connection cap of :mod:`.connections`."""
    import uvicorn

    from .connections import guarded_protocol

    protocol = guarded_protocol(settings.header_seconds, settings.client_connections)
    return uvicorn.Config(app, host=settings.host, port=settings.port, log_level="warning", http=protocol,
                          limit_concurrency=settings.connections, timeout_keep_alive=5)


__all__ = [
    "MAX_BODY", "TOKEN_HEADER", "Busy", "GameStore", "Settings", "WorkQueue", "create_app", "serve",
    "server_config",
]
