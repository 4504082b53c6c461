"""cardgames_env: five card games as PettingZoo AEC environments with pure rules engines.

Usage::

    from cardgames_env import <game>_v0       # one module per env: cardgames_env.ALL_ENVS
    env = <game>_v0.env(render_mode="ansi")

or, after ``import cardgames_env``, ``pettingzoo.make("aec", "cardgames/<game>_v0")``; the
learner's view of N batched games is ``gymnasium.make_vec("cardgames/<game>_v0", num_envs=N)``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .core.kernel_cache import install_with_numba

install_with_numba()  # before any compiled kernel is decorated: see core/kernel_cache.py

from . import registry  # noqa: E402
from .registry import ALL_ENVS, register, register_gymnasium  # noqa: E402

__version__ = "0.1.0"
ENV_NAMES = ALL_ENVS

try:
    register()
except ImportError:  # pettingzoo missing: the rules engines and scorers still work
    pass
try:
    register_gymnasium()
except ImportError:  # gymnasium missing: likewise
    pass


def __getattr__(name: str) -> ModuleType:
    # Lazy `from cardgames_env import <game>_v0`: only the env asked for is imported; a game
    # registered at run time has no face module here and gives its env module.
    if name in ALL_ENVS:
        return importlib.import_module(f"{__name__}.{name}")
    if name in registry.env_names():
        return registry.load(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ALL_ENVS", "ENV_NAMES", "__version__", *ALL_ENVS]
