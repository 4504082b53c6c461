"""High Card's rule-based agent, reading only the observation: win a trick as cheaply as
possible, else throw the weakest card; lead the strongest."""

from __future__ import annotations

import numpy as np

from cardgames_env.core.masks import legal_actions

from .encoding import HighCardEncoding


class HighCardHeuristic:
    """Leads its strongest card; answers with the weakest card that wins, else its weakest."""

    def __init__(self, encoding: HighCardEncoding, seed: int | None = None):
        self.layout = encoding.layout
        self.lowest_wins = encoding.config.lowest_wins

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the chosen card's action."""
        cards = [int(a) for a in legal_actions(action_mask)]
        strength = sorted(cards, key=lambda c: -c if self.lowest_wins else c)  # weakest first
        led = np.flatnonzero(observation[self.layout.slice("led")])
        if led.size == 0:
            return strength[-1]
        beats = [c for c in strength if (c < led[0] if self.lowest_wins else c > led[0])]
        return beats[0] if beats else strength[0]

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget."""
