"""Red7: a card game where the rule changes every turn (``red7_v0``)."""

from cardgames_env.core.spec import GameSpec

SPEC = GameSpec(
    game="red7",
    package=__name__,
    env=f"{__name__}.env:Red7Env",
    kernel=f"{__name__}.kernel:Red7Engine",
    heuristic=f"{__name__}.heuristic:Red7Heuristic",
    search=f"{__name__}.search:HOOKS",
    view=f"{__name__}.view",
    search_iterations=450,
)
"""Where the game's code lives; read by every registry of the package."""
