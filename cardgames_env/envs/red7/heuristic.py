"""Rule-based Red7 player that reads only its observation and mask.

Plan: stay in the round as cheaply as possible. Among the actions that keep it winning it
takes the one spending the fewest hand cards (effect choices and ``end turn`` spend none),
then the one giving away the lowest cards; it gives up only when nothing keeps it winning.
Under the strict rules every legal action except ``give up`` keeps the player winning; off
strict it checks each turn-start option itself on the observed palettes and rule.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cardgames_env.core.masks import legal_actions
from cardgames_env.core.rng import make_rng
from cardgames_env.envs.red7.cards import CARD_COLOUR
from cardgames_env.envs.red7.encoding import ACTIONS, PAIR0, Red7Encoding
from cardgames_env.envs.red7.scoring import strength

_GIVE_UP = ACTIONS.offset("give_up")
_DISCARD0 = ACTIONS.offset("discard")
_TAKE0 = ACTIONS.offset("take")


def _spent(action: int) -> tuple[int, ...]:
    """Hand cards an action gives away (card ids)."""
    if action < _DISCARD0:
        return (action,)
    if action < PAIR0:
        return (action - _DISCARD0,)
    if action < _GIVE_UP:
        play, rest = divmod(action - PAIR0, 48)
        return (play, rest if rest < play else rest + 1)
    return ()


class Red7Heuristic:
    """Keeps winning with the fewest and lowest cards spent; gives up only when it must."""

    def __init__(self, encoding: Red7Encoding | None = None, seed: int | None = None):
        self.encoding = encoding if encoding is not None else Red7Encoding(_default_config())
        self.rng = make_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed when ``seed`` is given (this agent is deterministic; kept for the protocol)."""
        if seed is not None:
            self.rng = make_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the chosen action."""
        legal = [int(a) for a in legal_actions(action_mask)]
        options = [a for a in legal if a != _GIVE_UP]
        if not self.encoding.config.strict:
            view = self.encoding.layout.view(observation)
            if view["phase"][0]:  # turn start: keep only the options that leave us winning
                options = [a for a in options if a >= _TAKE0 or self._wins_after(view, a)]
        if not options:
            return _GIVE_UP
        return min(options, key=lambda a: (len(_spent(a)), sorted(_spent(a), reverse=True), a))

    def _wins_after(self, view: Mapping[str, np.ndarray], action: int) -> bool:
        """Would we be winning after this turn-start action (observed palettes and rule)?"""
        palettes = [int(sum(1 << int(c) for c in np.flatnonzero(row))) for row in view["palettes"]]
        rule = int(np.flatnonzero(view["rule"])[0])
        if action < _DISCARD0:
            palettes[0] |= 1 << action
        elif action < PAIR0:
            rule = CARD_COLOUR[action - _DISCARD0]
        else:
            play, discard = _spent(action)
            palettes[0] |= 1 << play
            rule = CARD_COLOUR[discard]
        mine = strength(rule, palettes[0])
        others = [strength(rule, p) for r, p in enumerate(palettes) if r and view["active"][r]]
        return mine > 0 and all(mine > o for o in others)


def _default_config():  # pragma: no cover - only when built without an encoding
    from cardgames_env.envs.red7.rules import Config

    return Config()
