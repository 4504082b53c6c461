"""Rule-based Gong Zhu player that reads only its observation and mask.

Plan (docs/rules/gongzhu.md, "Scoring a hand"): avoid taking hearts and the pig, win the goat
when it is cheap, dump the pig and high hearts when void, lead low cards of safe suits.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardgames_env.core.masks import legal_actions
from cardgames_env.core.rng import make_rng
from cardgames_env.envs.gongzhu.cards import GOAT, HEARTS, PIG, SPADES
from cardgames_env.envs.gongzhu.encoding import LAYOUT, GongZhuEncoding

ACE_OF_SPADES = SPADES * 13 + 12
KING_OF_SPADES = SPADES * 13 + 11


def _rank(card: int) -> int:
    return card % 13


def _suit(card: int) -> int:
    return card // 13


class GongZhuHeuristic:
    """Follows low when a trick holds points, dumps the pig and high hearts when void,
    leads safe low cards; never plays a card that would win the pig for itself if it can
    avoid it."""

    def __init__(self, encoding: GongZhuEncoding | None = None, seed: int | None = None):
        self.rng = make_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed when ``seed`` is given (ties are broken at random)."""
        if seed is not None:
            self.rng = make_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the chosen card id."""
        legal = legal_actions(action_mask).tolist()
        view = LAYOUT.view(observation)
        pig_out = not view["hand"][PIG] and not view["played"][:, PIG].any()
        trick = view["trick"].any(axis=0).nonzero()[0].tolist()
        if not trick:
            return self._lead(legal, pig_out)
        led = int(view["led_suit"].nonzero()[0][0])
        return follow_card(legal, trick, led, pig_out)

    def _lead(self, legal: list[int], pig_out: bool) -> int:
        def danger(card: int) -> tuple[int, int, int]:
            risky = card == PIG or (pig_out and card in (ACE_OF_SPADES, KING_OF_SPADES))
            return (int(risky), int(_suit(card) == HEARTS and _rank(card) >= 3), _rank(card))

        return min(legal, key=danger)


def follow_card(legal: Sequence[int], trick: Sequence[int], led: int, pig_out: bool) -> int:
    """The heuristic's card when following suit ``led`` in ``trick`` (cards in any order):
    stay under a trick holding points, win a clean last trick or one with the goat, dump the
    pig under a higher spade; when void, shed the pig, the high spades once the pig is out,
    the highest heart, else the highest other card. The search agent's light policy plays it
    too."""
    following = [c for c in legal if _suit(c) == led]
    best = max(c for c in trick if _suit(c) == led)
    negative = any(_suit(c) == HEARTS and _rank(c) >= 3 for c in trick) or PIG in trick
    last = len(trick) == 3
    if following:
        if led == SPADES and PIG in following and best in (ACE_OF_SPADES, KING_OF_SPADES):
            return PIG  # dump the pig under a higher spade
        below = [c for c in following if c < best and c != PIG]
        winners = [c for c in following if c > best and c != PIG]
        if GOAT in trick and not negative and winners:
            return max(winners)
        if below and (negative or not last or led == SPADES):
            return max(below)
        if last and not negative and winners:
            return max(winners)
        safe = [c for c in following if c != PIG] or following
        return min(safe)
    # Void in the led suit: shed the most dangerous card.
    if PIG in legal:
        return PIG
    if pig_out:
        high_spades = [c for c in legal if c in (ACE_OF_SPADES, KING_OF_SPADES)]
        if high_spades:
            return max(high_spades)
    hearts = [c for c in legal if _suit(c) == HEARTS]
    if hearts:
        return max(hearts)
    others = [c for c in legal if c != GOAT] or legal
    return max(others, key=_rank)
