"""Jaipur: a two-player trading card game (rules engine, scoring, encoding, env)."""

from cardgames_env.core.spec import GameSpec

SPEC = GameSpec(
    game="jaipur",
    package=__name__,
    env=f"{__name__}.env:JaipurEnv",
    kernel=f"{__name__}.kernel:JaipurEngine",
    heuristic=f"{__name__}.heuristic:JaipurHeuristic",
    search=f"{__name__}.search:HOOKS",
    view=f"{__name__}.view",
    search_iterations=60,
)
"""Where the game's code lives; read by every registry of the package."""
