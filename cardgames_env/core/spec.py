"""``GameSpec``: everything the package needs to find one game, declared once in its folder.

Each game's package (``envs/<game>/__init__.py``) declares ``SPEC = GameSpec(...)``; the
registry (:mod:`cardgames_env.registry`) lists the game packages, and every other registry of
the package (the batched engines, the heuristic agents, the search agent, the web views, the
training configs and the shipped policies) reads specs instead of a list of names.

The code a spec names is given as lazy ``"module:attribute"`` strings (``"module"`` alone for a
module), so reading a spec imports nothing beyond this file: no Numba, no torch.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable
from typing import Any

GAME_ID = re.compile(r"[a-z][a-z0-9]*")
"""A game id: one lowercase word (letters and digits)."""
TARGET = re.compile(r"[A-Za-z_][\w.]*(:[A-Za-z_]\w*)?")
"""A lazy target: ``"package.module:attribute"`` or ``"package.module"``."""
TARGET_FIELDS = ("env", "kernel", "heuristic", "search", "view")
"""The fields of :class:`GameSpec` that name code to import."""


@dataclass(frozen=True)
class GameSpec:
    """One game: its ids, where its code lives, and its defaults.

    Attributes:
        game: the game id, one lowercase word (``GameInfo.name`` of its rules).
        package: the game's package; its data files (``config.json``, the shipped policy
            ``pretrained.npz`` + ``pretrained.json``) are read from there.
        env: ``"module:Class"`` of the raw AEC env (a :class:`~cardgames_env.core.aec.CardGameEnv`
            subclass); its module also has ``env``, ``raw_env`` and ``TEST_VARIANTS``.
        version: the env's version; a change that alters a golden playthrough bumps it.
        kernel: ``"module:Class"`` of the batched engine (a
            :class:`~cardgames_env.core.engine.BatchedEngine` subclass), or ``None``.
        heuristic: ``"module:Class"`` of the rule-based agent, built as ``Class(encoding,
            seed=...)``, or ``None``.
        search: ``"module:attribute"`` of the search agent's game hooks (a
            :class:`~cardgames_env.core.search.SearchHooks` object), or ``None``.
        view: the module that describes a position for the browser (see
            :mod:`cardgames_env.core.view`), or ``None``.
        search_iterations: the search agent's iterations per decision by default.
    """

    game: str
    package: str
    env: str
    version: int = 0
    kernel: str | None = None
    heuristic: str | None = None
    search: str | None = None
    view: str | None = None
    search_iterations: int = 100

    def __post_init__(self) -> None:
        if not GAME_ID.fullmatch(self.game):
            raise ValueError(f"game id must be one lowercase word (letters, digits), got {self.game!r}")
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 0:
            raise ValueError(f"{self.game}: version must be a non-negative integer, got {self.version!r}")
        if not TARGET.fullmatch(self.package) or ":" in self.package:
            raise ValueError(f"{self.game}: package must be a dotted module name, got {self.package!r}")
        for name in TARGET_FIELDS:
            value = getattr(self, name)
            named = isinstance(value, str) and TARGET.fullmatch(value)
            if (value is not None or name == "env") and not named:
                raise ValueError(f"{self.game}: {name} must be 'module:attribute' or 'module', got {value!r}")
        if (
            isinstance(self.search_iterations, bool)
            or not isinstance(self.search_iterations, int)
            or self.search_iterations < 1
        ):
            raise ValueError(
                f"{self.game}: search_iterations must be a positive integer, got {self.search_iterations!r}"
            )

    @property
    def env_name(self) -> str:
        """The versioned env name, e.g. ``"<game>_v0"``."""
        return f"{self.game}_v{self.version}"

    @property
    def env_module(self) -> str:
        """The module of the env class (it also has ``env``, ``raw_env``, ``TEST_VARIANTS``)."""
        return self.env.partition(":")[0]

    def load(self, field: str) -> Any:
        """Import and return what ``field`` names (a class, or a module for ``view``).

        Raises:
            ValueError: for a field the spec leaves empty (``None``) or that names no code.
            ImportError: when the target cannot be imported (a missing dependency, a wrong
                module or attribute), naming the spec and the field.
        """
        target = self._target(field)
        if target is None:
            raise ValueError(f"{self.env_name} has no {field}")
        module_name, _, attribute = target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            message = f"{self.env_name}: cannot import {field} {target!r}: {error}"
            raise type(error)(message, name=error.name) from error
        if not attribute:
            return module
        try:
            return getattr(module, attribute)
        except AttributeError:
            message = f"{self.env_name}: {field} {target!r}: {module_name} has no {attribute!r}"
            raise ImportError(message) from None

    def resource(self, name: str) -> Traversable:
        """Return the data file ``name`` of the game's package (it may not exist)."""
        return resources.files(self.package) / name

    def _target(self, field: str) -> str | None:
        """The target string of a code field."""
        if field not in TARGET_FIELDS:
            raise ValueError(f"unknown spec field {field!r}; code fields: {', '.join(TARGET_FIELDS)}")
        value: str | None = getattr(self, field)
        return value

