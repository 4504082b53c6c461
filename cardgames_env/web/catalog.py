"""The agents a ``cardgames serve`` client may name: built-in kinds and the operator's models.

A client names each seat's player with a short string. The server plays only:

* ``human`` (the page's seat), ``random``, ``heuristic`` and ``pretrained`` (the policy shipped
  in the package, read once per env and shared by every game);
* ``search`` with options (``search:iterations=200``), within the server's caps: at most
  :data:`SEARCH_MAX_SECONDS` seconds and :func:`search_iteration_cap` simulations a move.
  Asking for more is refused (a 400), never silently lowered; every search also stops at
  the time cap, whichever comes first;
* models the operator named when starting the server (``cardgames serve --model
  NAME=PATH``), loaded once at start and played by ``NAME``: every game gets its own
  shallow copy (own randomness) of the one loaded policy.

Any other name is refused without looking at the file system, with one answer whatever the
name is, so a client can neither load a file nor learn whether a path exists.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cardgames_env.agents.base import Agent, make_agent
from cardgames_env.agents.model import check_sidecar, read_sidecar, resolve_model_path
from cardgames_env.agents.pretrained import (
    NumpyPolicy,
    PretrainedAgent,
    exported_policy_file,
    load_policy,
    policy_files,
)
from cardgames_env.agents.rllib_agent import looks_like_rllib_checkpoint, read_rllib_sidecar
from cardgames_env.agents.search import SearchAgent, SearchOptions, is_search_kind, parse_search_options
from cardgames_env.registry import load, spec, specs

HUMAN = "human"
"""Agent name of the seat played from the page."""
BUILT_IN = ("random", "heuristic", "search", "pretrained")
"""Agent kinds every server plays (``search`` also with ``:key=value`` options)."""
MAX_NAME = 64
"""Longest agent name accepted (characters)."""
SEARCH_MAX_SECONDS = 2.0
"""Most seconds a search agent may think about one move."""
SEARCH_MAX_BATCH = SearchOptions.batch
"""Most simulations a search may play out at once (its batched engine's slots: memory per game)."""
SEARCH_ITERATION_FACTOR = 20
"""A search may run this many times its game's default simulations (the default is sized to
about 0.1 s a move, so the cap is about the 2 s of :data:`SEARCH_MAX_SECONDS`)."""
MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
"""What an operator's model name looks like (letters, digits, ``_.-``; at most 32)."""

AgentFactory = Callable[[Any, int], Agent]
"""Builds a player for an env (raw) and a seed."""


class UnknownAgent(ValueError):
    """An agent name this server does not play (or a bad option of one it does)."""


def search_iteration_cap(game: str) -> int:
    """Most simulations a move a search agent may run for ``game`` on this server."""
    return SEARCH_ITERATION_FACTOR * spec(game).search_iterations


@dataclasses.dataclass(frozen=True)
class LoadedModel:
    """A model the operator named: its name, where it was read, what it plays, the loaded agent."""

    name: str
    path: str
    sidecar: dict[str, Any]
    agent: Any

    @property
    def env(self) -> str:
        """The env the model was trained for."""
        return str(self.sidecar["env"])

    @property
    def options(self) -> dict[str, Any]:
        """The env options the model was trained with (those that differ from the defaults)."""
        return dict(self.sidecar.get("options") or {})


def model_sidecar(path: str | Path) -> dict[str, Any]:
    """Read the sidecar of any saved model: an MaskablePPO zip or run folder, an exported
    ``.npz`` (or a ``--algo dmc`` run folder), or an RLlib checkpoint folder.

    Raises:
        ValueError: when no model or no readable sidecar is there.
    """
    exported = exported_policy_file(path)
    if exported is not None:
        sidecar = exported.with_suffix(".json")
        try:
            data = json.loads(sidecar.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"unreadable sidecar {sidecar}: {error}") from None
        if not isinstance(data, dict) or not isinstance(data.get("env"), str):
            raise ValueError(f"sidecar {sidecar} does not name an env")
        return data
    if looks_like_rllib_checkpoint(str(path)):
        return read_rllib_sidecar(path)
    return read_sidecar(resolve_model_path(path))


def load_model(name: str, path: str) -> LoadedModel:
    """Load the model at ``path`` (read by the operator's command line) for the env its sidecar names.

    A saved MaskablePPO zip and an RLlib checkpoint hold pickles: only trusted files.

    Raises:
        ValueError: for a bad name, no model at ``path``, or one that does not load.
    """
    if not MODEL_NAME.fullmatch(name) or name == HUMAN or name in BUILT_IN or is_search_kind(name):
        raise ValueError(
            f"model name {name!r}: use 1-32 letters, digits, '_', '.' or '-', not a built-in agent name"
        )
    sidecar = model_sidecar(path)
    try:
        env = load(str(sidecar["env"])).raw_env(**dict(sidecar.get("options") or {}))
    except (ValueError, TypeError) as error:
        raise ValueError(f"model {name}: its sidecar names an env that cannot be built: {error}") from None
    agent = make_agent(str(path), env, seed=0)
    return LoadedModel(name, str(path), dict(sidecar), agent)


class AgentCatalog:
    """The agents one server plays (see the module docstring).

    Args:
        models: operator's models, ``{name: path}``; each is loaded now.
        extra: more named agents for an embedding application, ``{name: factory(env, seed)}``.

    Raises:
        ValueError: for a model that does not load or a name that clashes with another.
    """

    def __init__(
        self, models: Mapping[str, str] | None = None, extra: Mapping[str, AgentFactory] | None = None
    ):
        self.models: dict[str, LoadedModel] = {}
        for name, path in (models or {}).items():
            self.models[name] = load_model(name, path)
        self.extra = dict(extra or {})
        for name in self.extra:
            if name in self.models or name in BUILT_IN or name == HUMAN or is_search_kind(name):
                raise ValueError(f"agent name {name!r} is taken")
        self._pretrained: dict[str, tuple[NumpyPolicy, dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        """Every agent name a client may use (``search`` also takes options)."""
        return [HUMAN, *BUILT_IN, *self.models, *self.extra]

    def describe(self) -> dict[str, Any]:
        """What ``/api/meta`` tells clients: the names, the models' envs, the search caps."""
        return {
            "agents": self.names(),
            "models": [{"name": m.name, "env": m.env, "options": m.options} for m in self.models.values()],
            "search": {"max_time": SEARCH_MAX_SECONDS,
                       "max_iterations": {s.game: search_iteration_cap(s.game) for s in specs() if s.search}},
        }

    def shared_objects(self) -> list[Any]:
        """The objects every game shares (loaded policies), left out of a game's size estimate."""
        shared: list[Any] = [m.agent for m in self.models.values()]
        shared += [getattr(m.agent, "policy", None) for m in self.models.values()]
        shared += [policy for policy, _ in self._pretrained.values()]
        return [obj for obj in shared if obj is not None]

    def build(self, name: str, env: Any, seed: int) -> Agent:
        """Build the player ``name`` for a game of ``env`` (a raw env) with ``seed``.

        Raises:
            UnknownAgent: for a name this server does not play (without touching any file),
                search options over the caps, or a model or policy that does not fit the env.
        """
        if name in ("random", "heuristic"):
            return self._checked(lambda: make_agent(name, env, seed=seed))
        if is_search_kind(name):
            if len(name) > MAX_NAME:
                raise UnknownAgent(f"agent names are at most {MAX_NAME} characters, got {len(name)}")
            return self._search(name, env, seed)
        if name == "pretrained":
            return self._checked(lambda: self._pretrained_agent(env, seed))
        model = self.models.get(name)
        if model is not None:
            return self._model_agent(model, env, seed)
        factory = self.extra.get(name)
        if factory is not None:
            return factory(env, seed)
        raise UnknownAgent(
            "not an agent of this server; use one of " + ", ".join(self.names()[1:])
            + " (search takes options, e.g. search:iterations=200)"
        )

    @staticmethod
    def _checked(build: Callable[[], Agent]) -> Agent:
        try:
            return build()
        except ValueError as error:
            raise UnknownAgent(str(error)) from None

    def _search(self, name: str, env: Any, seed: int) -> Agent:
        """A search agent within the caps: refused above them, always stopped at the time cap."""
        game = env.unwrapped.info.name
        try:
            options = parse_search_options(name)
        except ValueError as error:
            raise UnknownAgent(str(error)) from None
        if spec(game).search is None:
            raise UnknownAgent(f"no search agent for game {game!r}")
        cap = search_iteration_cap(game)
        if options.time is not None and options.time > SEARCH_MAX_SECONDS:
            raise UnknownAgent(
                f"search time is capped at {SEARCH_MAX_SECONDS:g} s a move on this server, "
                f"asked {options.time!r}"
            )
        if options.iterations is not None and options.iterations > cap:
            raise UnknownAgent(
                f"search iterations are capped at {cap} a move for {game} on this server, "
                f"asked {options.iterations}"
            )
        if options.batch > SEARCH_MAX_BATCH:
            raise UnknownAgent(
                f"search batches are capped at {SEARCH_MAX_BATCH} simulations on this server, "
                f"asked {options.batch}"
            )
        iterations = options.iterations
        if iterations is None:  # a time alone runs up to the cap; nothing: the game's default
            iterations = cap if options.time is not None else spec(game).search_iterations
        seconds = SEARCH_MAX_SECONDS if options.time is None else options.time
        capped = dataclasses.replace(options, iterations=iterations, time=seconds)
        return SearchAgent(env, capped, seed=seed)

    def _pretrained_agent(self, env: Any, seed: int) -> Agent:
        """The shipped policy of the env, read once per env and shared by every game."""
        name = env.unwrapped.metadata["name"]
        with self._lock:
            loaded = self._pretrained.get(name)
            if loaded is None:
                loaded = load_policy(*policy_files(name))
                self._pretrained[name] = loaded
        return PretrainedAgent(env, seed=seed, loaded=loaded)

    def _model_agent(self, model: LoadedModel, env: Any, seed: int) -> Agent:
        """The operator's model for this game: checked against the env, sharing the loaded weights."""
        try:
            check_sidecar(model.sidecar, env, model.name)
        except ValueError as error:
            raise UnknownAgent(str(error)) from None
        agent = copy.copy(model.agent)
        agent.reset(seed)
        return agent


__all__ = [
    "BUILT_IN", "HUMAN", "MAX_NAME", "SEARCH_ITERATION_FACTOR", "SEARCH_MAX_BATCH", "SEARCH_MAX_SECONDS",
    "AgentCatalog", "AgentFactory", "LoadedModel", "UnknownAgent", "load_model", "model_sidecar",
    "search_iteration_cap",
]
