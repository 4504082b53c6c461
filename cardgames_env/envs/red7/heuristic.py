"""Rule-based Red7 player that reads only its observation and mask.

Plan: stay in the round as cheaply as possible. Among the actions that keep it winning it
takes the one spending the fewest hand cards (effect choices and ``end turn`` spend none),
then the one giving away the lowest cards; it gives up only when nothing keeps it winning.
Under the strict rules every legal action except ``give up`` keeps the player winning; off
strict it checks each turn-start option itself on the observed palettes and rule.

It decides for a batch of rows at once (:meth:`Red7Heuristic.act_batch`, what the batched
engines' opponents call; :meth:`~Red7Heuristic.act` is a batch of one): the preference order
of the actions is one table (:data:`PREFERENCE`), so a batch is one compiled pass picking each row's
most preferred legal action.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numba import njit

from cardgames_env.core.masks import BatchPlayer, first_in_order, legal_rows
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


def _preference() -> np.ndarray:
    """Each action's place in the heuristic's order of preference (0 = first): the fewest hand
    cards spent, then the lowest cards given away (highest first), then the lowest id."""
    order = sorted(range(ACTIONS.size), key=lambda a: (len(_spent(a)), sorted(_spent(a), reverse=True), a))
    rank = np.empty(ACTIONS.size, dtype=np.int64)
    rank[order] = np.arange(ACTIONS.size)
    return rank


PREFERENCE = _preference()
"""``PREFERENCE[a]``: rank of action ``a`` in the heuristic's order of preference."""

BY_PREFERENCE = np.argsort(PREFERENCE).astype(np.int64)
"""The actions in the heuristic's order of preference (``BY_PREFERENCE[PREFERENCE[a]] == a``)."""


class Red7Heuristic(BatchPlayer):
    """Keeps winning with the fewest and lowest cards spent; gives up only when it must."""

    def __init__(self, encoding: Red7Encoding | None = None, seed: int | None = None):
        self.encoding = encoding if encoding is not None else Red7Encoding(_default_config())
        super().__init__(seed)
        if self.encoding.config.strict:  # every choice is the first legal action by preference
            self.fixed_order = (BY_PREFERENCE, _GIVE_UP)

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Return the chosen action of every row: the most preferred legal action that keeps
        the player winning, else ``give up``.

        ``keys`` is accepted for :class:`~cardgames_env.agents.batch.BatchPolicy` and unused:
        the heuristic keeps no state between decisions.

        Raises:
            ValueError: when a row of ``masks`` allows nothing.
        """
        legal = legal_rows(masks)
        if self.encoding.config.strict:
            return _most_preferred(np.ascontiguousarray(legal), BY_PREFERENCE, _GIVE_UP)
        options = legal.copy()
        options[:, _GIVE_UP] = False
        layout = self.encoding.layout
        turn_start = np.asarray(observations)[:, layout.slice("phase").start] != 0
        for row in np.flatnonzero(turn_start):  # keep only the options that leave us winning
            view = layout.view(observations[row])
            for action in np.flatnonzero(options[row, :_TAKE0]):
                options[row, action] = self._wins_after(view, int(action))
        return _most_preferred(options, BY_PREFERENCE, _GIVE_UP)

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


@njit(cache=True)
def _most_preferred(options: np.ndarray, by_preference: np.ndarray, give_up: int) -> np.ndarray:
    """Each row's allowed action (other than ``give_up``) that comes first in
    ``by_preference`` (:func:`~cardgames_env.core.masks.first_in_order`); ``give_up`` when
    there is none. The cheap single-card actions come first, so a scan stops early."""
    actions = np.empty(options.shape[0], dtype=np.int64)
    for row in range(options.shape[0]):
        actions[row] = first_in_order(options[row], by_preference, give_up)
    return actions


def _default_config():  # pragma: no cover - only when built without an encoding
    from cardgames_env.envs.red7.rules import Config

    return Config()
