"""The browser app of ``cardgames serve``: a small Starlette (ASGI) app and its JSON API.

Pages and card faces are static files of this package (``web/static``): nothing is fetched
from elsewhere. The API (all JSON; errors are ``{"error": message}`` with a 4xx status):

* ``GET /api/meta``: the envs with their variants (``Config`` fields and defaults) and the
  agent kinds (``human`` plus :data:`cardgames_env.agents.base.AGENT_KINDS`; any other name
  ``make_agent`` accepts, such as a model path, works too).
* ``POST /api/games`` ``{"env", "options", "seed", "agents": [one per seat]}``: a new game;
  answers ``{"id", "view"}``.
* ``GET /api/games/{id}?viewer=k``: the view; with a human seat always that seat's, without
  one a seat's (``viewer``) or the spectator view that shows every card.
* ``POST /api/games/{id}/move`` ``{"move": notation}``: the human seat's move.
* ``POST /api/games/{id}/step``: one move of the agent to move (or the record's next move).
* ``GET /api/games/{id}/record``: the game record (JSON; with a human seat once the game is over).
* ``POST /api/replays`` ``{"record": record object or its JSON line}``: a game that replays it.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from cardgames_env.agents.base import AGENT_KINDS
from cardgames_env.records import GameRecord, RecordError, replay
from cardgames_env.registry import ALL_ENVS, load

from .session import HUMAN, BadRequest, Conflict, Forbidden, GameSession, random_seed

STATIC = Path(__file__).resolve().parent / "static"
MAX_GAMES = 200
"""Games kept in memory; the oldest is dropped beyond this."""
MAX_BODY = 5_000_000
"""Largest request body accepted (bytes)."""


class GameStore:
    """The games of one app, by id, thread-safe, oldest dropped beyond ``limit``."""

    def __init__(self, limit: int = MAX_GAMES):
        self.limit = limit
        self._games: OrderedDict[str, GameSession] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, game: GameSession) -> str:
        """Store a game and return its new id."""
        game_id = uuid.uuid4().hex[:12]
        with self._lock:
            self._games[game_id] = game
            while len(self._games) > self.limit:
                self._games.popitem(last=False)
        return game_id

    def get(self, game_id: str) -> GameSession:
        """Return the game ``game_id``.

        Raises:
            LookupError: for an unknown id.
        """
        with self._lock:
            game = self._games.get(game_id)
        if game is None:
            raise LookupError(
                f"no game with id {game_id!r} (unknown, or dropped after {self.limit} newer games)"
            )
        return game


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _handle(func: Callable[..., Any]) -> Callable[[Request], Any]:
    """Turn the API's exceptions into 4xx JSON answers (the server keeps running)."""

    async def endpoint(request: Request) -> Response:
        try:
            return await func(request)
        except BadRequest as error:
            return _error(400, str(error))
        except Forbidden as error:
            return _error(403, str(error))
        except LookupError as error:
            return _error(404, str(error))
        except Conflict as error:
            return _error(409, str(error))

    return endpoint


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise BadRequest(f"request body over {MAX_BODY} bytes")
    try:
        data = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BadRequest(f"the request body is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    return data


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"{what} must be an integer, got {value!r}")
    return value


def env_meta() -> list[dict[str, Any]]:
    """Every env: name, game, seats, and its variants (``Config`` fields with defaults)."""
    out = []
    for name in ALL_ENVS:
        env = load(name).raw_env()
        fields = [
            {"name": f.name, "default": getattr(env.config, f.name), "type": str(f.type)}
            for f in dataclasses.fields(env.rules.Config)
        ]
        out.append({"env": name, "game": env.info.name, "players": len(env.possible_agents),
                    "options": fields, "doc": (env.rules.__doc__ or "").strip().splitlines()[0]})
    return out


def create_app() -> Starlette:
    """Build the ASGI app with its own, empty game store."""
    store = GameStore()
    meta = {"envs": env_meta(), "agents": [HUMAN, *AGENT_KINDS]}

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    @_handle
    async def get_meta(request: Request) -> Response:
        return JSONResponse(meta)

    def answer(game: GameSession, game_id: str, viewer: int | None = None, status: int = 200) -> JSONResponse:
        with game.lock:
            view = game.view(viewer)
        return JSONResponse({"id": game_id, "view": view}, status_code=status)

    @_handle
    async def new_game(request: Request) -> Response:
        data = await _body(request)
        env_name = data.get("env")
        if not isinstance(env_name, str):
            raise BadRequest("'env' must name an env, e.g. \"jaipur_v0\"")
        options = data.get("options") or {}
        if not isinstance(options, dict):
            raise BadRequest("'options' must be an object of variant values")
        seed = data.get("seed")
        seed = random_seed() if seed is None else _int(seed, "seed")
        agents = data.get("agents")
        if not isinstance(agents, list) or not all(isinstance(a, str) and a.strip() for a in agents):
            raise BadRequest("'agents' must be a list of agent names, one per seat")
        game = GameSession(env_name, options, seed, [a.strip() for a in agents])
        return answer(game, store.add(game), status=201)

    def viewer_of(request: Request) -> int | None:
        text = request.query_params.get("viewer")
        if text is None or text in ("", "all"):
            return None
        try:
            return int(text)
        except ValueError:
            raise BadRequest(f"viewer must be a seat number or 'all', got {text!r}") from None

    @_handle
    async def get_game(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        return answer(store.get(game_id), game_id, viewer_of(request))

    @_handle
    async def post_move(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        game = store.get(game_id)
        data = await _body(request)
        move = data.get("move")
        if not isinstance(move, str):
            raise BadRequest("'move' must be the move's notation, e.g. \"take leather\"")
        seat = data.get("seat")
        seat = None if seat is None else _int(seat, "seat")

        def play() -> None:
            with game.lock:
                game.move(move, seat)

        await run_in_threadpool(play)
        return answer(game, game_id)

    @_handle
    async def post_step(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        game = store.get(game_id)
        viewer = viewer_of(request)

        def step() -> None:  # an agent may think for a while: off the event loop
            with game.lock:
                game.step()

        await run_in_threadpool(step)
        return answer(game, game_id, viewer)

    @_handle
    async def get_record(request: Request) -> Response:
        game = store.get(request.path_params["game_id"])
        with game.lock:
            record = game.record()
        return JSONResponse(record)

    @_handle
    async def new_replay(request: Request) -> Response:
        data = await _body(request)
        raw = data.get("record")
        try:
            if isinstance(raw, str):
                lines = [line for line in raw.splitlines() if line.strip()]
                if not lines:
                    raise RecordError("the record is empty")
                index = data.get("game", 1)
                index = _int(index, "game")
                if not 1 <= index <= len(lines):
                    raise BadRequest(f"game must be 1..{len(lines)}")
                record = GameRecord.from_json(lines[index - 1])
            else:
                record = GameRecord.from_dict(raw)
            game = GameSession(record.env, record.options, record.seed, record=record)
            check = GameSession(record.env, record.options, record.seed, record=record)
            for _ in replay(record, check.env):  # the whole record must replay before it is shown
                pass
        except RecordError as error:
            raise BadRequest(f"bad record: {error}") from None
        return answer(game, store.add(game), status=201)

    routes = [
        Route("/", index),
        Route("/api/meta", get_meta),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", get_game),
        Route("/api/games/{game_id}/move", post_move, methods=["POST"]),
        Route("/api/games/{game_id}/step", post_step, methods=["POST"]),
        Route("/api/games/{game_id}/record", get_record),
        Route("/api/replays", new_replay, methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.store = store  # the games, for tests and embedding
    return app


def serve(host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the app with uvicorn until interrupted (binds to localhost unless told otherwise).

    Raises:
        OSError: when the address cannot be bound (port in use, unknown host), before serving.
    """
    import socket

    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:  # a clear error instead of uvicorn's exit
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
    print(f"cardgames: serving on http://{host}:{port}/ (Ctrl-C stops)")
    uvicorn.run(create_app(), host=host, port=port, log_level="warning")


__all__ = ["GameStore", "create_app", "serve"]
