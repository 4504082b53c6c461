"""The search agent's hooks for Gong Zhu (:class:`~cardgames_env.core.search.GameAdapter`)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cardgames_env.core.cards import cards_of, mask_of
from cardgames_env.core.search import GameAdapter

from . import rules as gz
from .cards import HEARTS, PIG, SPADES
from .heuristic import follow_card

ACE_OF_SPADES = SPADES * 13 + 12
KING_OF_SPADES = SPADES * 13 + 11


def _gz_lead(legal: list[int], pig_out: bool) -> int:
    def danger(card: int) -> tuple[int, int, int]:
        risky = card == PIG or (pig_out and card in (ACE_OF_SPADES, KING_OF_SPADES))
        return (int(risky), int(card // 13 == HEARTS and card % 13 >= 3), card % 13)

    return min(legal, key=danger)


def _gz_choice(state: Any) -> int:
    """The Gong Zhu heuristic's card in ``state`` (it reads only public facts and its hand)."""
    seat = (state.leader + len(state.trick)) % 4
    legal = list(cards_of(gz.legal_mask(state)))
    pig_out = not (state.hands[seat] >> PIG & 1) and not any(p >> PIG & 1 for p in state.played)
    if not state.trick:
        return _gz_lead(legal, pig_out)
    return follow_card(legal, state.trick, state.trick[0] // 13, pig_out)


class GongZhuAdapter(GameAdapter):
    """Gong Zhu: searched to the end of the hand; the policy is the heuristic's card play."""

    rules: ClassVar[Any] = gz

    def canonical(self, state: Any, player: int) -> Any:
        others = [s for s in range(4) if s != player]
        hidden = 0
        for s in others:
            hidden |= state.hands[s]
        # Public fact ("Play of a hand"): in hand 1 the unplayed ♠2 is with the first leader.
        holder = gz.spade_two_holder(state)
        fixed = 1 << gz.SPADE_TWO if holder in others else 0
        hidden &= ~fixed
        by_suit = [list(cards_of(hidden & gz.SUIT_MASKS[suit])) for suit in range(4)]
        room = [state.hands[s].bit_count() - (s == holder and fixed != 0) for s in others]
        counts = _split_suits(
            [len(cards) for cards in by_suit],
            room,
            [[not state.voids[s] >> suit & 1 for s in others] for suit in range(4)],
        )
        if counts is None:  # pragma: no cover - the real deal is always a solution
            raise RuntimeError("no deal of the hidden cards fits the shown voids")
        hands = list(state.hands)
        for s in others:
            hands[s] = fixed if s == holder else 0
        for suit, cards in enumerate(by_suit):
            pos = 0
            for i, s in enumerate(others):
                k = counts[suit][i]
                hands[s] |= mask_of(cards[pos : pos + k])
                pos += k
        return state._replace(hands=tuple(hands))

    def legal(self, state: Any) -> list[Any]:
        cards = list(cards_of(gz.legal_mask(state)))
        if len(cards) > 1:
            first = _gz_choice(state)
            cards.remove(first)
            cards.insert(0, first)
        return [gz.Play(c) for c in cards]

    def apply(self, state: Any, move: Any) -> Any:
        return gz.play_checked_card(state, move.card)

    def random_move(self, state: Any, rng: np.random.Generator) -> Any:
        cards = list(cards_of(gz.legal_mask(state)))
        return gz.Play(cards[int(rng.integers(len(cards)))])

    def policy(self, state: Any, rng: np.random.Generator) -> Any:
        if rng.random() < self.epsilon:
            return self.random_move(state, rng)
        return gz.Play(_gz_choice(state))

    def value(self, root: Any, state: Any, player: int, rng: np.random.Generator) -> float:
        points = state.hand_points
        others = (sum(points) - points[player]) / 3
        return (points[player] - others) / 200


def _split_suits(sizes: list[int], room: list[int], allowed: list[list[bool]]) -> list[list[int]] | None:
    """First (in a fixed order) split of each suit's hidden cards among seats with ``room``
    places each, giving suit ``i`` only to seats ``allowed[i]``; ``None`` if none exists."""
    if not sizes:
        return [] if not any(room) else None
    size, rest = sizes[0], sizes[1:]
    seats = len(room)

    def splits(seat: int, left: int) -> Any:
        if seat == seats - 1:
            if left <= room[seat] and (left == 0 or allowed[0][seat]):
                yield [left]
            return
        top = min(left, room[seat]) if allowed[0][seat] else 0
        for k in range(top, -1, -1):
            for tail in splits(seat + 1, left - k):
                yield [k, *tail]

    for split in splits(0, size):
        remaining = [r - k for r, k in zip(room, split)]
        tail = _split_suits(rest, remaining, allowed[1:])
        if tail is not None:
            return [split, *tail]
    return None
