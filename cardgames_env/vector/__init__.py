"""Batched engines: thousands of games of one env stepped at once, bit-exact with the AEC envs.

``make(name, num_envs, seed=0, **options)`` returns a :class:`BatchedEngine` whose ``reset`` and
``step`` work on every slot together (compiled kernels, on every thread Numba may use), with the same
observations, masks, rewards and game ends as the AEC env for the same state. Each game's
engine lives in its folder (its spec's ``kernel``); the driver they share is
:mod:`cardgames_env.core.engine`. See ``docs/vector.md``.
"""

from __future__ import annotations

import importlib
from typing import Any

from cardgames_env import registry
from cardgames_env.core.deprecation import renamed
from cardgames_env.core.engine import PARALLEL_MIN_ENVS, STAY, BatchedEngine, KernelChooser
from cardgames_env.core.spec import GameSpec


def available() -> list[str]:
    """Names of the envs whose game has a batched engine that imports here."""
    names = []
    for game in registry.specs():
        if game.kernel is None:
            continue
        try:
            importlib.import_module(game.kernel.partition(":")[0])
        except ModuleNotFoundError:
            continue
        names.append(game.env_name)
    return names


def make(
    name: str | GameSpec, num_envs: int, seed: int | None = 0, *, deal: bool = True, **options: Any
) -> BatchedEngine:
    """Return the batched engine of env ``name`` with ``num_envs`` slots, reset with ``seed``.

    Args:
        name: an env name (``"<game>_v0"``), its PettingZoo id (``"cardgames/<game>_v0"``), the
            game id (``"<game>"``), or the game's spec itself.
        num_envs: number of slots (games stepped together), at least 1.
        seed: seed of the slots' random streams (``None``: fresh entropy).
        deal: deal every slot now (``False``: the first ``reset`` deals; until then the
            outputs are zeros).
        **options: the AEC env's options (its ``Config`` fields) and ``max_steps``.

    Raises:
        ValueError: naming the argument, for an unknown env name or one without a batched
            engine, a bad ``num_envs`` or ``seed``, or a bad option (the AEC env's messages).
    """
    if isinstance(name, GameSpec):
        game = name
    elif isinstance(name, str):
        game = registry.spec(name)
    else:
        raise ValueError(f"name must be an env name such as {registry.ALL_ENVS[0]!r}, got {name!r}")
    if game.kernel is None:
        engines = ", ".join(s.env_name for s in registry.specs() if s.kernel is not None)
        raise ValueError(f"{game.env_name} has no batched engine; batched engines exist for: {engines}")
    cls: type[BatchedEngine] = game.load("kernel")
    return cls(num_envs, seed=seed, deal=deal, **options)


__all__ = ["PARALLEL_MIN_ENVS", "STAY", "KernelChooser", "BatchedEngine", "available", "make"]


__getattr__ = renamed(__name__, {"VectorEnv": "BatchedEngine"}, globals())
