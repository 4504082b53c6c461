"""Haggle (Sid Sackson): the scorer, its CLI, and the turn-based negotiation env ``haggle_v0``."""

from cardgames_env.core.spec import GameSpec

SPEC = GameSpec(
    game="haggle",
    package=__name__,
    env=f"{__name__}.env:HaggleEnv",
    kernel=f"{__name__}.kernel:HaggleEngine",
    heuristic=f"{__name__}.heuristic:HaggleHeuristic",
    search=f"{__name__}.search:HOOKS",
    view=f"{__name__}.view",
    search_iterations=150,
)
"""Where the game's code lives; read by every registry of the package."""
