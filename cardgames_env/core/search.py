"""What the search agent (:mod:`cardgames_env.agents.search`) needs from a game: ``GameAdapter``.

Each game's ``search.py`` subclasses :class:`GameAdapter` (its spec's ``search``) with

* ``canonical(state, player)``: the state with everything hidden from ``player`` re-dealt in
  a fixed order that depends only on what ``player`` knows (two states of one information
  set give the same result), so the search cannot use the real hidden cards and a seeded
  search gives the same move in every state of an information set;
* ``moves(state, limit)``: the rules moves the env's encoding can play, in the game's order
  of preference, at most ``limit`` of them (the searched moves of the searching seat);
* ``policy(state, rng)``: the light policy of rollouts and of the other seats (a fast model
  of the game's heuristic agent on the rules state, with a little randomness);
* ``value(root, state, player, rng)``: the searching seat's result at the end of the searched
  horizon (the round, hand or game), in about ``[-1, 1]``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np


class GameAdapter:
    """What the search needs to know about one game (defaults: generic rules-module calls)."""

    rules: ClassVar[Any]
    max_rollout: ClassVar[int] = 2000
    """Most moves one simulation plays before it is scored as it stands."""
    default_children: ClassVar[int] = 0
    """Most moves searched at a decision of the searching seat (0 = all)."""
    default_epsilon: ClassVar[float] = 0.1
    """Chance that the light policy plays a uniformly random legal move instead of its choice."""

    def __init__(self, encoding: Any, epsilon: float | None = None):
        self.encoding = encoding
        self.config = encoding.config
        self.epsilon = self.default_epsilon if epsilon is None else epsilon

    def canonical(self, state: Any, player: int) -> Any:
        """Return the state with ``player``'s hidden information re-dealt in a fixed order."""
        raise NotImplementedError

    def legal(self, state: Any) -> list[Any]:
        """Legal moves the encoding can play, in order of preference."""
        return list(self.rules.legal_moves(state))

    def moves(self, state: Any, limit: int = 0) -> list[Any]:
        """The searched moves: the first ``limit`` of :meth:`legal` (0: the game's default)."""
        moves = self.legal(state)
        limit = limit or self.default_children
        return moves[:limit] if limit and len(moves) > limit else moves

    def apply(self, state: Any, move: Any) -> Any:
        """Apply a legal move."""
        return self.rules.apply_move(state, move)

    def random_move(self, state: Any, rng: np.random.Generator) -> Any:
        """A uniformly random legal move."""
        moves = self.rules.legal_moves(state)
        return moves[int(rng.integers(len(moves)))]

    def policy(self, state: Any, rng: np.random.Generator) -> Any:
        """The light policy's move (default: random)."""
        return self.random_move(state, rng)

    def stop(self, state: Any, player: int) -> bool:
        """True when the searched horizon ends early for ``player`` (e.g. it is out)."""
        return False

    def value(self, root: Any, state: Any, player: int, rng: np.random.Generator) -> float:
        """``player``'s result at the end of a simulation."""
        raise NotImplementedError
