"""Gong Zhu (拱猪, "Chinese Hearts", "Chase the Pig"): four-player trick-taking game."""

from cardgames_env.core.spec import GameSpec

SPEC = GameSpec(
    game="gongzhu",
    package=__name__,
    env=f"{__name__}.env:GongZhuEnv",
    kernel=f"{__name__}.kernel:GongZhuEngine",
    heuristic=f"{__name__}.heuristic:GongZhuHeuristic",
    search=f"{__name__}.search:HOOKS",
    view=f"{__name__}.view",
    search_iterations=120,
)
"""Where the game's code lives; read by every registry of the package."""
