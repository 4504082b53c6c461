"""Old public names kept for one version: a module's ``__getattr__`` that hands out the new
object under the old name with a ``DeprecationWarning``."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any


def renamed(module: str, names: Mapping[str, str], namespace: Mapping[str, Any]) -> Callable[[str], Any]:
    """Return a module ``__getattr__`` giving each old name of ``names`` its new name's object
    from ``namespace`` (the module's globals), with a ``DeprecationWarning``.

    Args:
        module: the module's name (for the messages).
        names: old name -> new name.
        namespace: where the new names live.
    """

    def __getattr__(name: str) -> Any:
        new = names.get(name)
        if new is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(f"{module}.{name} is deprecated: use {module}.{new}", DeprecationWarning, stacklevel=2)
        return namespace[new]

    return __getattr__


def moved(old: str, new: str) -> Callable[[str], Any]:
    """Return the ``__getattr__`` of a module that moved from ``old`` to ``new``: every public
    name is read from ``new`` (imported then, by name), with a ``DeprecationWarning``."""

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        warnings.warn(f"{old} is deprecated: import {name} from {new}", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(new), name)

    return __getattr__
