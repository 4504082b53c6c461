"""The list of finished envs and their registrations as ``cardgames/<game>_v0``.

PettingZoo: ``pettingzoo.make("aec", "cardgames/<env>")`` gives the AEC env. Gymnasium:
``gymnasium.make_vec("cardgames/<env>", num_envs=N, opponents=...)`` gives the learner's view
of ``N`` batched games (:class:`cardgames_env.wrappers.vector_env.CardGamesVectorEnv`, the
``vector_entry_point``), and ``gymnasium.make("cardgames/<env>", opponents=...)`` one game
(:class:`cardgames_env.wrappers.single_agent.SingleAgentEnv`).

A new game joins the package (CLI, env test-suite, benchmarks, docs checks) by adding one
line to ``_ENV_MODULES``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

NAMESPACE = "cardgames"

_ENV_MODULES: dict[str, str] = {
    "gongzhu_v0": "cardgames_env.gongzhu_v0",
    "jaipur_v0": "cardgames_env.jaipur_v0",
    "haggle_v0": "cardgames_env.haggle_v0",
    "haggis_v0": "cardgames_env.haggis_v0",
    "red7_v0": "cardgames_env.red7_v0",
}

ALL_ENVS: tuple[str, ...] = tuple(_ENV_MODULES)
"""Names of every finished env, e.g. ``"gongzhu_v0"``."""


def load(name: str) -> ModuleType:
    """Return the versioned env module ``name`` (it has ``env``, ``raw_env``, ``TEST_VARIANTS``).

    Raises:
        ValueError: for an unknown env name.
    """
    key = name.removeprefix(f"{NAMESPACE}/")
    if key not in _ENV_MODULES:
        raise ValueError(f"unknown env {name!r}; known: {', '.join(ALL_ENVS)}")
    return importlib.import_module(_ENV_MODULES[key])


def register() -> None:
    """Register every env with PettingZoo's registry (``pettingzoo.make("aec", "cardgames/<name>")``)."""
    import pettingzoo

    for name, module in _ENV_MODULES.items():
        env_id = f"{NAMESPACE}/{name}"
        try:
            pettingzoo.spec("aec", env_id)  # registered already (re-import): keep it
        except Exception:
            pettingzoo.register("aec", env_id, entry_point=f"{module}:env")


def register_gymnasium() -> None:
    """Register every env with gymnasium: ``make_vec("cardgames/<name>", num_envs=N, ...)`` (the
    batched vector env) and ``make("cardgames/<name>", ...)`` (one game)."""
    import gymnasium

    for name in _ENV_MODULES:
        env_id = f"{NAMESPACE}/{name}"
        if env_id not in gymnasium.registry:  # registered already (re-import): keep it
            gymnasium.register(
                env_id,
                entry_point="cardgames_env.wrappers.single_agent:SingleAgentEnv",
                vector_entry_point="cardgames_env.wrappers.vector_env:make_vector_env",
                kwargs={"env": name},
            )
