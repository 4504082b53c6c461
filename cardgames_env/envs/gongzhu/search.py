"""Gong Zhu's search hooks: searched to the end of the hand; the policy is the heuristic's
card play (see :mod:`cardgames_env.core.search`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardgames_env.core.cards import cards_of, mask_of
from cardgames_env.core.game import CHANCE
from cardgames_env.core.search import SearchHooks

from . import rules as gz
from .heuristic import choose_card

ROLLOUT_EPSILON = 0.1
"""Chance that the rollout policy plays a uniformly random legal card."""


def canonical(state: gz.State, player: int) -> gz.State:
    """``player``'s information set's canonical state: the other hands re-dealt, suit by
    suit in card order, in the first split that respects every shown void."""
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



def ordered_moves(state: gz.State) -> list[gz.Play]:
    """The legal cards, the heuristic's card first."""
    cards = list(cards_of(gz.legal_mask(state)))
    if len(cards) > 1:
        first = choose_card(state)
        cards.remove(first)
        cards.insert(0, first)
    return [gz.Play(c) for c in cards]


def rollout(state: gz.State, rng: np.random.Generator) -> gz.Play:
    """The heuristic's card, or one time in ten a uniformly random legal card."""
    if rng.random() < ROLLOUT_EPSILON:
        cards = list(cards_of(gz.legal_mask(state)))
        return gz.Play(cards[int(rng.integers(len(cards)))])
    return gz.Play(choose_card(state))


def hand_over(state: gz.State, player: int) -> bool:
    """The horizon: the hand is over (the next deal is chance)."""
    return gz.current_player(state) == CHANCE


def value(root: gz.State, state: gz.State, player: int) -> float:
    """The hand's points against the other seats' mean, scaled."""
    return float(_scaled(np.array(state.hand_points), player)[()])


def _scaled(points: np.ndarray, player: int) -> np.ndarray:
    """Hands' points of ``player`` against the other seats' mean, / 200 (the last axis holds
    the four seats' points of a hand)."""
    mine = points[..., player]
    return (mine - (points.sum(axis=-1) - mine) / 3) / 200


def dealt_value(root: gz.State, state: gz.State, player: int) -> float:
    """:func:`value` of the hand just finished, read from the state the next hand starts
    from: the hand's points are what the totals gained since ``root`` (a position of it)."""
    return float(_scaled(np.subtract(state.totals, root.totals), player)[()])


def points_value(root: gz.State, points: np.ndarray, player: int) -> np.ndarray | None:
    """:func:`value` of finished games from their points (the totals): in the one-hand game
    the totals are the hand's points. ``None`` for the game of several hands."""
    if root.config.game_end is not None:
        return None
    return _scaled(points.astype(np.float64), player)


def apply(state: gz.State, move: gz.Play) -> gz.State:
    """Play a card known to be legal."""
    return gz.play_checked_card(state, move.card)


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


HOOKS = SearchHooks(
    infoset=canonical,
    resample=gz.resample_hidden,
    rollout=rollout,
    moves=ordered_moves,
    horizon=hand_over,
    value=value,
    apply=apply,
    dealt_value=dealt_value,
    points_value=points_value,
)
"""Gong Zhu's search hooks."""
