"""``legal_actions``: the legal action ids of a mask, shared by every agent (imports nothing
of the package, so ``base`` and ``model`` both use it without an import circle)."""

from __future__ import annotations

import numpy as np


def legal_actions(action_mask: np.ndarray) -> np.ndarray:
    """Return the legal action ids of a mask; raises ``ValueError`` if none is legal."""
    legal = np.flatnonzero(action_mask)
    if legal.size == 0:
        raise ValueError("the action mask allows no action: this agent is not to move")
    return legal


__all__ = ["legal_actions"]
