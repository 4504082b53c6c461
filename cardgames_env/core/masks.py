"""What every player does with action masks: ``legal_actions`` (the legal action ids of a
mask), ``legal_rows`` (a batch of masks checked row by row), ``move_actions`` (the actions
that play one rules move), ``first_in_order`` (a choice by a fixed order of the actions) and
:class:`BatchPlayer` (a player that decides a batch of rows at once), shared by the games'
heuristics, their batched engines and the agents."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .rng import make_rng

MAX_ACTIONS_PER_MOVE = 64
"""Most actions :func:`move_actions` spends on one move before it stops (a broken encoding)."""


def legal_actions(action_mask: np.ndarray) -> np.ndarray:
    """Return the legal action ids of a mask; raises ``ValueError`` if none is legal."""
    legal = np.asarray(action_mask).reshape(-1).nonzero()[0]
    if legal.size == 0:
        raise ValueError("the action mask allows no action: this agent is not to move")
    return legal


def legal_rows(masks: np.ndarray) -> np.ndarray:
    """Return a batch of action masks (rows) as booleans (``masks`` itself when it is a bool
    array: callers must not write to the result); raises ``ValueError`` when a row allows
    nothing (what every batched player checks before it picks)."""
    legal = np.asarray(masks, dtype=bool)
    if not legal.any(axis=1).all():
        raise ValueError("every row of masks needs a legal action")
    return legal


def move_actions(encoding: Any, state: Any, move: Any) -> list[int]:
    """Return the actions of ``encoding`` that play the rules ``move`` from the start of a move
    in the rules ``state``: one action, or several for an encoding that builds a move over
    sub-steps (e.g. choosing the cards of a move one at a time)."""
    decision = encoding.to_decision(state)
    actions: list[int] = []
    while True:
        action = int(encoding.encode(decision, move))
        actions.append(action)
        decision = encoding.apply_action(decision, action)
        if encoding.rules_state(decision) is not state or len(actions) > MAX_ACTIONS_PER_MOVE:
            return actions


__all__ = ["MAX_ACTIONS_PER_MOVE", "first_in_order", "legal_actions", "legal_rows", "move_actions"]


@njit(cache=True)
def first_in_order(allowed: np.ndarray, order: np.ndarray, fallback: int) -> int:
    """The first action of ``order`` that ``allowed`` (one bool row) allows, other than
    ``fallback``; ``fallback`` when there is none. The scan stops at the first allowed
    action."""
    for action in order:
        if allowed[action] and action != fallback:
            return action
    return fallback


class BatchPlayer:
    """Base of a player that decides a batch of rows at once (``act_batch``): ``act`` is a
    batch of one, so one decision and a batch of decisions play the same moves, and ``rng``
    is the player's random stream for its tie-breaks, re-seeded by ``reset(seed)``.

    Attributes:
        fixed_order: ``(order, fallback)`` where the player's every choice is
            :func:`first_in_order` of the row's mask (a fixed order of the actions, most
            preferred first), else ``None``. A batched engine can then play the player's
            games out in compiled code (``BatchedEngine.play_out``).
    """

    fixed_order: tuple[np.ndarray, int] | None = None

    def __init__(self, seed: int | None = None) -> None:
        self.rng = make_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the player's random stream when ``seed`` is given."""
        if seed is not None:
            self.rng = make_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the action chosen for one observation and its mask (a batch of one)."""
        return int(self.act_batch(np.asarray(observation)[None, :], np.asarray(action_mask)[None, :])[0])

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Return the chosen action of every row (``keys``: the rows' game seats, for players
        that keep state between decisions)."""
        raise NotImplementedError
