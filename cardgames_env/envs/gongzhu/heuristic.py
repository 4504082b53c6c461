"""Rule-based Gong Zhu player that reads only its observation and mask.

Plan (docs/rules/gongzhu.md, "Scoring a hand"): avoid taking hearts and the pig, win the goat
when it is cheap, dump the pig and high hearts when void, lead low cards of safe suits.

It decides for a batch of rows at once (:meth:`GongZhuHeuristic.act_batch`, what the batched
engines' opponents call; :meth:`~GongZhuHeuristic.act` is a batch of one): one compiled loop
over the rows plays :func:`follow_card`'s and :func:`lead_card`'s rules, which stay the
readable reference (the search agent's light policy plays them too, on the rules state:
:func:`choose_card`); a test holds the two to the same cards.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from cardgames_env.core.cards import cards_of
from cardgames_env.core.masks import BatchPlayer, legal_actions, legal_rows
from cardgames_env.envs.gongzhu import rules
from cardgames_env.envs.gongzhu.cards import GOAT, HEARTS, PIG, SPADES
from cardgames_env.envs.gongzhu.encoding import LAYOUT, GongZhuEncoding

ACE_OF_SPADES = SPADES * 13 + 12
KING_OF_SPADES = SPADES * 13 + 11


def _rank(card: int) -> int:
    return card % 13


def _suit(card: int) -> int:
    return card // 13


class GongZhuHeuristic(BatchPlayer):
    """Follows low when a trick holds points, dumps the pig and high hearts when void,
    leads safe low cards; never plays a card that would win the pig for itself if it can
    avoid it."""

    def __init__(self, encoding: GongZhuEncoding | None = None, seed: int | None = None):
        super().__init__(seed)

    def act_one(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the chosen card id, in plain Python (the reference of :meth:`act_batch`)."""
        legal = legal_actions(action_mask).tolist()
        view = LAYOUT.view(observation)
        pig_out = not view["hand"][PIG] and not view["played"][:, PIG].any()
        trick = view["trick"].any(axis=0).nonzero()[0].tolist()
        if not trick:
            return lead_card(legal, pig_out)
        led = int(view["led_suit"].nonzero()[0][0])
        return follow_card(legal, trick, led, pig_out)

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Return the chosen card of every row (one compiled loop; :meth:`act_one`'s rules).

        ``keys`` is accepted for :class:`~cardgames_env.agents.batch.BatchPolicy` and unused:
        the heuristic keeps no state between decisions.

        Raises:
            ValueError: when a row of ``masks`` allows nothing.
        """
        legal = legal_rows(masks)
        observations = np.ascontiguousarray(observations, dtype=np.float32)
        return _decide_observed(observations, np.ascontiguousarray(legal), _HAND + PIG, _PLAYED_PIG,
                                _TRICK.start, _LED.start)


def lead_card(legal: Sequence[int], pig_out: bool) -> int:
    """The heuristic's lead: the lowest card that is neither the pig (nor, once the pig is
    out, a high spade) nor a heart worth points, else the least dangerous."""

    def danger(card: int) -> tuple[int, int, int]:
        risky = card == PIG or (pig_out and card in (ACE_OF_SPADES, KING_OF_SPADES))
        return (int(risky), int(_suit(card) == HEARTS and _rank(card) >= 3), _rank(card))

    return min(legal, key=danger)


def choose_card(state: rules.State) -> int:
    """The heuristic's card for the seat to play in a rules ``state`` (it reads only public
    facts and that seat's hand): the search agent's light policy."""
    seat = (state.leader + len(state.trick)) % 4
    legal = list(cards_of(rules.legal_mask(state)))
    pig_out = not (state.hands[seat] >> PIG & 1) and not any(p >> PIG & 1 for p in state.played)
    if not state.trick:
        return lead_card(legal, pig_out)
    return follow_card(legal, state.trick, state.trick[0] // 13, pig_out)


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


_HAND = LAYOUT.slice("hand").start
_PLAYED_PIG = LAYOUT.slice("played").start + 52 * np.arange(4) + PIG
"""Columns of the ``played`` piece that hold the pig, one per seat."""
_TRICK = LAYOUT.slice("trick")
_LED = LAYOUT.slice("led_suit")


@njit(cache=True)
def _decide_observed(
    observations: np.ndarray, legal: np.ndarray, hand_pig: int, played_pig: np.ndarray, trick_start: int,
    led_start: int,
) -> np.ndarray:
    """:func:`_decide` of rows read from their observations: the pig is out when it is in no
    hand of ours and nobody has played it; the trick's cards are those any seat's row of the
    ``trick`` piece holds; the led suit is the first set column of ``led_suit`` (-1 without a
    trick)."""
    rows = legal.shape[0]
    trick = np.zeros((rows, 52), dtype=np.bool_)
    led = np.full(rows, -1, dtype=np.int64)
    pig_out = np.zeros(rows, dtype=np.bool_)
    for row in range(rows):
        obs = observations[row]
        out = obs[hand_pig] == 0
        for column in played_pig:
            if obs[column] != 0:
                out = False
        pig_out[row] = out
        any_card = False
        for seat in range(4):
            for card in range(52):
                if obs[trick_start + 52 * seat + card] != 0:
                    trick[row, card] = True
                    any_card = True
        if any_card:
            led[row] = 0
            for suit in range(4):
                if obs[led_start + suit] != 0:
                    led[row] = suit
                    break
    return _decide(legal, trick, led, pig_out)


@njit(cache=True)
def _decide(legal: np.ndarray, trick: np.ndarray, led: np.ndarray, pig_out: np.ndarray) -> np.ndarray:
    """Each row's card: the lead's rules without a trick (``led`` -1), else :func:`follow_card`'s."""
    actions = np.empty(legal.shape[0], dtype=np.int64)
    for row in range(legal.shape[0]):
        if led[row] < 0:
            actions[row] = _lead_card(legal[row], pig_out[row])
        else:
            actions[row] = _follow_card(legal[row], trick[row], led[row], pig_out[row])
    return actions


@njit(cache=True)
def _lead_card(legal: np.ndarray, pig_out: bool) -> int:
    """``GongZhuHeuristic._lead``: the least dangerous legal card (the lowest id among equals)."""
    best, best_key = -1, 1 << 30
    for card in range(52):
        if legal[card]:
            risky = card == PIG or (pig_out and (card == ACE_OF_SPADES or card == KING_OF_SPADES))
            high_heart = card // 13 == HEARTS and card % 13 >= 3
            key = (int(risky) * 2 + int(high_heart)) * 13 + card % 13
            if key < best_key:
                best, best_key = card, key
    return best


@njit(cache=True)
def _follow_card(legal: np.ndarray, trick: np.ndarray, led: int, pig_out: bool) -> int:
    """:func:`follow_card` on a row: ``legal`` and ``trick`` are bool over the 52 cards."""
    best = -1
    negative = False
    count = 0
    for card in range(52):
        if trick[card]:
            count += 1
            if card // 13 == led and card > best:
                best = card
            if (card // 13 == HEARTS and card % 13 >= 3) or card == PIG:
                negative = True
    last = count == 3
    lowest = lowest_safe = highest_below = highest_winner = -1
    for card in range(52):
        if legal[card] and card // 13 == led:
            if lowest < 0:
                lowest = card
            if card != PIG:
                if lowest_safe < 0:
                    lowest_safe = card
                if card < best:
                    highest_below = card
                elif card > best:
                    highest_winner = card
    if lowest >= 0:  # following suit
        if led == SPADES and legal[PIG] and (best == ACE_OF_SPADES or best == KING_OF_SPADES):
            return PIG
        if trick[GOAT] and not negative and highest_winner >= 0:
            return highest_winner
        if highest_below >= 0 and (negative or not last or led == SPADES):
            return highest_below
        if last and not negative and highest_winner >= 0:
            return highest_winner
        return lowest_safe if lowest_safe >= 0 else lowest
    if legal[PIG]:
        return PIG
    if pig_out:
        if legal[ACE_OF_SPADES]:
            return ACE_OF_SPADES
        if legal[KING_OF_SPADES]:
            return KING_OF_SPADES
    heart = -1
    for card in range(HEARTS * 13, HEARTS * 13 + 13):
        if legal[card]:
            heart = card
    if heart >= 0:
        return heart
    chosen, chosen_rank, others = -1, -1, False
    for card in range(52):  # the highest rank (the lowest id among equals), the goat last
        if legal[card] and card != GOAT:
            others = True
            if card % 13 > chosen_rank:
                chosen, chosen_rank = card, card % 13
    return chosen if others else GOAT
