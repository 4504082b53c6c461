"""A sixth game defined only in the tests (High Card), to prove that a game is one folder
plus one registration: :data:`SPEC` names its code the way a shipped game's spec does, and
:func:`registered` adds it to every registry of the package for a while."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from cardgames_env import registry
from cardgames_env.core.spec import GameSpec

SPEC = GameSpec(
    game="highcard",
    package=__name__,
    env=f"{__name__}.env:HighCardEnv",
    heuristic=f"{__name__}.heuristic:HighCardHeuristic",
    search=f"{__name__}.search:HOOKS",
    view=f"{__name__}.view",
    search_iterations=40,
)
"""The sixth game's spec (no batched engine)."""


@contextmanager
def registered() -> Iterator[GameSpec]:
    """Register the sixth game for the ``with`` block, and remove it after."""
    registry.register_game(SPEC)
    try:
        yield SPEC
    finally:
        registry.unregister_game(SPEC.env_name)
