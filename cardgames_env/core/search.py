"""What the generic search agent (:mod:`cardgames_env.agents.search`) needs from a game.

A game's spec names a :class:`SearchHooks` object (``GameSpec.search``). Three hooks are
required:

* ``infoset(state, player)``: the canonical member of ``player``'s information set: the
  state with everything hidden from ``player`` re-dealt in a fixed order that depends only on
  what ``player`` knows. Two states of one information set give equal results, so it is the
  information set's key, and the search starts from it (the real hidden cards never reach it).
* ``resample(state, player, rng)``: a random state of the same information set (the rules'
  ``resample_hidden``).
* ``rollout(state, rng)``: the move of the light policy that plays the other seats and the
  rollouts (the game's heuristic in a fast form on the rules state, randomized as the game
  sees fit).

Everything else comes from the rules module of the env (``legal_moves``, ``apply_move``,
``current_player``, ``sample_deal``/``apply_deal``, ``returns``). A few optional hooks let a
game make the search stronger or faster where the generic default is weak; each has a
default that knows no game:

* ``moves(state)`` and ``max_children``: the searching seat's moves in the game's order of
  preference and how many of them to search (default: ``legal_moves``, all). Needed where the
  branching factor is in the hundreds (every exchange of cards with a market, every
  combination of a hand): the search budget is too small to try every move once.
* ``horizon(state, player)`` and ``value(root, state, player)``: where a simulation stops and
  how it is scored (default: the end of the game, ``returns``). Needed for multi-round games
  whose next round is a new deal: a round is what one decision changes, and a simulation to
  the end of a long game is both slow and mostly noise.
* ``apply(state, move)``: the rules' ``apply_move`` without its legality check, for moves the
  search took from the legal moves (default: ``apply_move``). Only speed: checking a move can
  cost as much as listing the legal moves.
* ``dealt_value(root, state, player)``: the value of a simulation that reached the horizon,
  read from the state the next deal starts from (the finished round's result is recorded in
  it). The compiled playouts (:mod:`cardgames_env.agents.playouts`) need it to stop at the
  horizon: a batched engine deals the next round in the same step that ends one. Without it
  they play on to the end of the game.
* ``points_value(root, points, player)``: the values of finished games from their rules
  ``points`` (one row per game), equal to ``value`` of those final states, or ``None`` where
  the variant's value needs more than the points. Only speed: the compiled playouts then
  score the games that ended in one call on the points the batched engine reads in compiled
  code, instead of reading each finished game back as a rules state.
* ``returns_value(root, returns, player)``: the same from the returns each simulation gained
  (the batched engine's rewards summed since its state was loaded), for a game whose
  returns are all paid at the end and whose points a batched engine does not keep (a final
  scoring with a random draw, which the engine deals in the step that ends the game). Only
  speed, as ``points_value``.
* ``engine_dealt_value(root, engine, slots, player)`` and ``engine_final_value(root,
  engine, slots, player)``: ``dealt_value`` of the slots where the batched engine just dealt
  a new round, and ``value`` of the slots' finished games, read from the game's own engine in
  one call (``None`` where they cannot be). Only speed, as ``points_value``.
* ``light_policy(encoding, seed)`` and ``playouts``: the light policy in compiled form, built
  for the batched engine's encoding (a :class:`~cardgames_env.core.masks.BatchPlayer`
  deciding every slot in one call), and which policy plays the compiled playouts by default:
  ``"heuristic"`` (the game's compiled heuristic, ``GameSpec.heuristic``) or ``"light"``.
  The light policy is worth it where it is the cheaper and no weaker playout (a light policy
  that passes where the heuristic trades ends a negotiation in a few steps); the search's
  ``rollout`` option picks either.
* ``prior``: where the compiled search's root priors come from by default: ``"none"`` (UCB1
  over the root's moves) or ``"pretrained"`` (PUCT with the env's shipped policy, where that
  policy plays the env's variant; else none). Worth it where the shipped policy is stronger
  than the search's own playouts.
* ``depth``: how many of the searching seat's later decisions the compiled search's tree
  follows below the root's moves (default 0: the root's moves alone). Deeper trees pay where
  a decision's worth shows only with the seat's next ones and the branching is small.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

REQUIRED_HOOKS = ("infoset", "resample", "rollout")
"""The hooks every game must supply."""

PRIORS = ("none", "pretrained")
"""Where the compiled search's root priors can come from (``none``: UCB1, no priors)."""

PLAYOUTS = ("heuristic", "light")
"""The compiled policies that can play a game's compiled playouts by default."""


@dataclass(frozen=True)
class SearchHooks:
    """What the search needs from one game (see the module docstring).

    Attributes:
        infoset: ``infoset(state, player)``, the canonical state of ``player``'s
            information set.
        resample: ``resample(state, player, rng)``, a random state of that information set.
        rollout: ``rollout(state, rng)``, the light policy's move for the seat to move.
        moves: ``moves(state)``, the searching seat's moves, best first (``None``: the rules'
            ``legal_moves``). Every move must be legal and playable by the env's encoding.
        max_children: most of those moves searched (``0``: all).
        horizon: ``horizon(state, player)``, true where a simulation stops before the game's
            end (``None``: play to the end, dealing chance outcomes with the rules).
        value: ``value(root, state, player)``, the searching seat's result where a simulation
            stopped, in about ``[-1, 1]``; ``root`` is the searched position (``None``: the
            rules' ``returns`` for ``player``).
        apply: ``apply(state, move)`` for a move known to be legal (``None``: ``apply_move``).
        dealt_value: ``dealt_value(root, state, player)``, ``value`` of the horizon just
            passed, read from the state at the start of the next deal (``None``: compiled
            playouts run to the end of the game).
        points_value: ``points_value(root, points, player)``, ``value`` of finished games
            from their ``rules.points`` (int ``[K, players]``): float ``[K]``, or ``None``
            where the variant needs the whole state (``None``: every finished game is read
            back as a state).
        returns_value: ``returns_value(root, returns, player)``, ``value`` of finished games
            from the returns their simulations gained (float64 ``[K, players]``, the engine's
            rewards summed since each state was loaded): float ``[K]``, or ``None`` where the
            variant needs the whole state.
        engine_dealt_value: ``engine_dealt_value(root, engine, slots, player)``,
            ``dealt_value`` of the engine's ``slots`` (int ``[K]``) where it just dealt a new
            round, from the engine's arrays: float ``[K]``, or ``None`` (each slot's state is
            then read back).
        engine_final_value: ``engine_final_value(root, engine, slots, player)``, ``value`` of
            the finished (not truncated) games of ``slots``, from the engine's arrays: float
            ``[K]``, or ``None``.
        light_policy: ``light_policy(encoding, seed)``, the light policy as a batch policy
            of the batched engine's encoding (``None``: none compiled).
        playouts: the compiled playouts' default policy, one of :data:`PLAYOUTS`
            (``"light"`` needs ``light_policy``).
        prior: the compiled search's default root priors, one of :data:`PRIORS`
            (``"pretrained"`` falls back to ``"none"`` where no shipped policy plays the
            env's variant).
        depth: the compiled search's default tree depth below the root's moves (``0``: flat).
    """

    infoset: Callable[[Any, int], Any] | None = None
    resample: Callable[[Any, int, np.random.Generator], Any] | None = None
    rollout: Callable[[Any, np.random.Generator], Any] | None = None
    moves: Callable[[Any], Sequence[Any]] | None = None
    max_children: int = 0
    horizon: Callable[[Any, int], bool] | None = None
    value: Callable[[Any, Any, int], float] | None = None
    apply: Callable[[Any, Any], Any] | None = None
    dealt_value: Callable[[Any, Any, int], float] | None = None
    points_value: Callable[[Any, np.ndarray, int], np.ndarray | None] | None = None
    returns_value: Callable[[Any, np.ndarray, int], np.ndarray | None] | None = None
    engine_dealt_value: Callable[[Any, Any, np.ndarray, int], np.ndarray | None] | None = None
    engine_final_value: Callable[[Any, Any, np.ndarray, int], np.ndarray | None] | None = None
    light_policy: Callable[[Any, int | None], Any] | None = None
    playouts: str = "heuristic"
    prior: str = "none"
    depth: int = 0

    def __post_init__(self) -> None:
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {', '.join(PRIORS)}, got {self.prior!r}")
        if self.playouts not in PLAYOUTS:
            raise ValueError(f"playouts must be one of {', '.join(PLAYOUTS)}, got {self.playouts!r}")
        if self.playouts == "light" and self.light_policy is None:
            raise ValueError("playouts='light' needs a light_policy")
        for name in ("max_children", "depth"):
            limit = getattr(self, name)
            if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {limit!r}")

    def missing(self) -> list[str]:
        """The names of the required hooks left empty."""
        return [name for name in REQUIRED_HOOKS if not callable(getattr(self, name))]
