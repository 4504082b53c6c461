"""Haggis: two-player climbing game with wild face cards and bombs (``haggis_v0``)."""

from cardgames_env.core.spec import GameSpec

SPEC = GameSpec(
    game="haggis",
    package=__name__,
    env=f"{__name__}.env:HaggisEnv",
    kernel=f"{__name__}.kernel:HaggisEngine",
    heuristic=f"{__name__}.heuristic:HaggisHeuristic",
    search=f"{__name__}.search:HOOKS",
    view=f"{__name__}.view",
    search_iterations=20,
)
"""Where the game's code lives; read by every registry of the package."""
