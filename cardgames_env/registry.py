"""The games of the package: one line per game, and the lookups every other registry uses.

A game is one folder, ``envs/<game>/``, whose ``__init__.py`` declares its
:class:`~cardgames_env.core.spec.GameSpec` as ``SPEC``; it joins the package (the CLI, the
batched engines, the agents, the web app, training, the env test-suite, the docs checks) by
adding its package to :data:`GAME_PACKAGES`. A game defined elsewhere joins at run time with
:func:`register_game`.

Env names are ``<game>_v<version>``. PettingZoo knows them as ``cardgames/<env>``:
``pettingzoo.make("aec", "cardgames/<env>")`` gives the AEC env. So does gymnasium:
``gymnasium.make_vec("cardgames/<env>", num_envs=N, opponents=...)`` gives the learner's view
of ``N`` batched games (:class:`cardgames_env.wrappers.vector_env.CardGamesVectorEnv`, the
``vector_entry_point``; games with a batched engine), and ``gymnasium.make("cardgames/<env>",
opponents=...)`` one game (:class:`cardgames_env.wrappers.single_agent.SingleAgentEnv`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from cardgames_env.core.spec import GameSpec

NAMESPACE = "cardgames"

GAME_PACKAGES: tuple[str, ...] = (
    "cardgames_env.envs.gongzhu",
    "cardgames_env.envs.jaipur",
    "cardgames_env.envs.haggle",
    "cardgames_env.envs.haggis",
    "cardgames_env.envs.red7",
)
"""The package of every game shipped here, in the order the CLI and the docs list them."""


def _package_spec(package: str) -> GameSpec:
    """Read ``SPEC`` from a game's package."""
    spec = getattr(importlib.import_module(package), "SPEC", None)
    if not isinstance(spec, GameSpec):
        raise TypeError(f"{package} must declare SPEC = GameSpec(...)")
    return spec


_SPECS: dict[str, GameSpec] = {}
"""Env name -> spec of every known game: the shipped ones, then those registered at run time."""
for _spec in map(_package_spec, GAME_PACKAGES):
    _SPECS[_spec.env_name] = _spec

ALL_ENVS: tuple[str, ...] = tuple(_SPECS)
"""Names of the envs shipped in the package, e.g. ``"<game>_v0"`` (see :func:`env_names` for
those registered at run time too)."""


def specs() -> tuple[GameSpec, ...]:
    """Every known game's spec: the shipped games in :data:`GAME_PACKAGES` order, then the
    registered ones."""
    return tuple(_SPECS.values())


def env_names() -> tuple[str, ...]:
    """Names of every known env (the shipped ones and those registered at run time)."""
    return tuple(_SPECS)


def spec(name: str) -> GameSpec:
    """Return the spec of a game, by game id (``"<game>"``), env name (``"<game>_v0"``) or
    PettingZoo id (``"cardgames/<game>_v0"``).

    Raises:
        ValueError: for an unknown name, listing the known env names.
    """
    key = name.removeprefix(f"{NAMESPACE}/") if isinstance(name, str) else None
    found = _SPECS.get(key) or next((s for s in _SPECS.values() if s.game == key), None)
    if found is None:
        raise ValueError(f"unknown env {name!r}; known: {', '.join(_SPECS)}")
    return found


def load(name: str) -> ModuleType:
    """Return the module of env ``name``'s env class (it has ``env``, ``raw_env``,
    ``TEST_VARIANTS``); ``name`` as :func:`spec` takes it.

    Raises:
        ValueError: for an unknown env name.
    """
    return importlib.import_module(spec(name).env_module)


def make_raw_env(env: str | Any, options: Mapping[str, Any] | None = None) -> Any:
    """Return a raw env (the unwrapped ``CardGameEnv``): built from a name as :func:`spec` takes it,
    with ``options``, or the unwrapped env of an env instance.

    Raises:
        ValueError: for an unknown env name, or options given with an env instance.
    """
    if isinstance(env, str):
        return load(env).raw_env(**dict(options or {}))
    if options:
        raise ValueError("options go with an env name, not with an env instance")
    return env.unwrapped


def register() -> None:
    """Register every known env with PettingZoo (``pettingzoo.make("aec", "cardgames/<env>")``)."""
    for game in specs():
        _register_pettingzoo(game)


def _register_pettingzoo(game: GameSpec) -> None:
    """Register one env with PettingZoo, keeping an existing registration (re-import)."""
    import pettingzoo

    env_id = f"{NAMESPACE}/{game.env_name}"
    if env_id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", env_id, entry_point=f"{game.env_module}:env")


def register_gymnasium() -> None:
    """Register every known env with gymnasium: ``make_vec("cardgames/<env>", num_envs=N, ...)``
    (the batched vector env, for games with a batched engine) and ``make("cardgames/<env>",
    ...)`` (one game)."""
    for game in specs():
        _register_gymnasium(game)


def _register_gymnasium(game: GameSpec) -> None:
    """Register one env with gymnasium, keeping an existing registration (re-import)."""
    import gymnasium

    env_id = f"{NAMESPACE}/{game.env_name}"
    if env_id not in gymnasium.registry:
        vector = "cardgames_env.wrappers.vector_env:make_vector_env" if game.kernel is not None else None
        gymnasium.register(
            env_id,
            entry_point="cardgames_env.wrappers.single_agent:SingleAgentEnv",
            vector_entry_point=vector,
            kwargs={"env": game.env_name},
        )


def register_game(game: GameSpec) -> None:
    """Add a game defined outside the package: every registry (the CLI, agents, batched
    engines, web views, PettingZoo, gymnasium) knows it from now on.

    Raises:
        ValueError: when its game id or env name is taken.
    """
    if not isinstance(game, GameSpec):
        raise ValueError(f"register_game needs a GameSpec, got {type(game).__name__}")
    taken = {s.game for s in _SPECS.values()}
    if game.env_name in _SPECS or game.game in taken:
        raise ValueError(f"game {game.game!r} ({game.env_name}) is registered already")
    _SPECS[game.env_name] = game
    for register_with in (_register_pettingzoo, _register_gymnasium):
        try:
            register_with(game)
        except ImportError:  # the library is missing: the package's own registries still know it
            pass


def unregister_game(name: str) -> None:
    """Remove a game added by :func:`register_game` (shipped games stay).

    Raises:
        ValueError: for an unknown name or a shipped game.
    """
    game = spec(name)
    if game.env_name in ALL_ENVS:
        raise ValueError(f"{game.env_name} is shipped with the package and cannot be removed")
    del _SPECS[game.env_name]
    env_id = f"{NAMESPACE}/{game.env_name}"
    try:
        import pettingzoo

        pettingzoo.aec_registry.pop(env_id, None)
    except ImportError:
        pass
    try:
        import gymnasium

        gymnasium.registry.pop(env_id, None)
    except ImportError:
        pass
