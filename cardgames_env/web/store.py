"""The games of one server, capped by estimated bytes (and by count), least recently used dropped first.

How a game's bytes are estimated (:meth:`GameSession.estimated_bytes
<cardgames_env.web.session.GameSession.estimated_bytes>`): when the game is made,
:func:`deep_size` adds up ``sys.getsizeof`` of every object reachable from it (the env and
its state, the players, the record being replayed...), leaving out what every game shares:
modules, classes, functions and the loaded policies of the agent catalog. Each move then
adds the size of its log entry, and the page views published after it count by their JSON
length. Tables a game reaches but shares with other games through module globals are counted
in each game, so the estimate errs high.
"""

from __future__ import annotations

import gc
import secrets
import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any, Protocol

MAX_GAMES = 200
"""Games kept at most, whatever their size."""
MAX_BYTES = 256 * 1024 * 1024
"""Estimated bytes of all games kept at most (256 MiB)."""

_SHARED_KINDS = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                 types.CodeType)


def deep_size(obj: Any, exclude: Iterable[Any] = ()) -> int:
    """Bytes of ``obj`` and everything it reaches (``sys.getsizeof``, each object once).

    The walk stops at modules, classes, functions and code, and at the objects in ``exclude``
    (shared by many owners), so only what ``obj`` holds on its own is counted.
    """
    seen = {id(o) for o in exclude}
    size = 0
    todo = [obj]
    while todo:
        fresh = []
        for item in todo:
            if id(item) in seen or isinstance(item, _SHARED_KINDS):
                continue
            seen.add(id(item))
            size += sys.getsizeof(item)
            fresh.append(item)
        todo = gc.get_referents(*fresh)
    return size


class Sized(Protocol):
    """What the store needs of a game: its estimated size in bytes."""

    def estimated_bytes(self) -> int:
        """Estimated bytes the game holds."""
        ...


class TooLarge(ValueError):
    """A game that alone would pass the store's byte cap (HTTP 413)."""


class UnknownGame(LookupError):
    """No game with the id asked for: never made, or dropped for newer games (HTTP 404)."""


class GameStore:
    """The games of one app by id, thread-safe.

    Args:
        max_bytes: cap on the sum of the games' estimated bytes.
        max_games: cap on the number of games.

    Beyond either cap the least recently used games are dropped (a game is used when it is
    read, moved or stepped), so a game being played is the last to go.
    """

    def __init__(self, max_bytes: int = MAX_BYTES, max_games: int = MAX_GAMES):
        self.max_bytes = max_bytes
        self.max_games = max_games
        self._games: OrderedDict[str, Any] = OrderedDict()
        self._sizes: dict[str, int] = {}
        self._total = 0
        self._lock = threading.Lock()

    @property
    def total_bytes(self) -> int:
        """Sum of the estimated bytes of the games kept."""
        return self._total

    def __len__(self) -> int:
        return len(self._games)

    def add(self, game: Sized) -> str:
        """Store a game, dropping the least recently used ones beyond the caps; return its new id.

        Raises:
            TooLarge: when the game alone is over the byte cap.
        """
        size = game.estimated_bytes()
        if size > self.max_bytes:
            raise TooLarge(
                f"this game needs about {size / 2**20:.1f} MiB, over the server's "
                f"{self.max_bytes / 2**20:.1f} MiB for all games"
            )
        game_id = secrets.token_hex(8)
        with self._lock:
            self._games[game_id] = game
            self._sizes[game_id] = size
            self._total += size
            self._evict()
        return game_id

    def get(self, game_id: str) -> Any:
        """Return the game ``game_id`` (now the most recently used).

        Raises:
            UnknownGame: for an unknown id.
        """
        with self._lock:
            game = self._games.get(game_id)
            if game is not None:
                self._games.move_to_end(game_id)
        if game is None:
            shown = game_id if len(game_id) <= 40 else game_id[:40] + "…"
            raise UnknownGame(f"no game with id {shown!r} (unknown, or dropped to make room for newer games)")
        return game

    def bytes_of(self, game_id: str) -> int:
        """The estimated bytes counted for game ``game_id`` (0 if it is not kept)."""
        with self._lock:
            return self._sizes.get(game_id, 0)

    def resize(self, game_id: str) -> None:
        """Count the game's bytes again after it changed, dropping others beyond the caps."""
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                return
            size = game.estimated_bytes()
            self._total += size - self._sizes[game_id]
            self._sizes[game_id] = size
            self._evict()

    def _evict(self) -> None:
        """Drop the least recently used games until both caps hold (the lock is held)."""
        while self._games and (self._total > self.max_bytes or len(self._games) > self.max_games):
            game_id, _ = self._games.popitem(last=False)
            self._total -= self._sizes.pop(game_id)


__all__ = ["MAX_BYTES", "MAX_GAMES", "GameStore", "Sized", "TooLarge", "UnknownGame", "deep_size"]
