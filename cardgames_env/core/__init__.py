"""Game-agnostic building blocks shared by every game (imports no game)."""
