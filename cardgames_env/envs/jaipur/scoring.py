"""Jaipur scoring as pure functions over token stacks, piles and herd sizes (no ``State``).

Stable API:

* :func:`bonus_kind` — which bonus pile a sale of ``n`` cards draws from (3 / 4 / 5+ cards).
* :func:`sell` — the tokens a sale takes (goods tokens from the top, then a bonus token).
* :func:`sale_value` — the rupees of a sale (goods tokens plus the bonus token's value).
* :func:`camel_majority` — who gets the camel token (a tie: nobody).
* :func:`rupees` — a player's round total.
* :func:`seal_winner` — who wins the Seal of Excellence (tie-breaks: bonus count, goods count).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import CAMEL_TOKEN


def bonus_kind(count: int) -> int | None:
    """Return the bonus pile of a sale of ``count`` cards: 0 (3 cards), 1 (4), 2 (5+), else None."""
    # Jaipur rulebook: 3 / 4 / 5 or more cards sold take the matching bonus token.
    if count >= 5:
        return 2
    if count >= 3:
        return count - 3
    return None


@dataclass(frozen=True)
class Sale:
    """The outcome of selling ``count`` cards of one type.

    Attributes:
        goods_tokens: token values taken from the top of the goods stack.
        stack_after: the goods stack left (top first).
        bonus: the bonus token value taken, ``None`` if none (< 3 cards or empty pile).
        bonus_kind: the bonus pile drawn from (0, 1, 2) or ``None``.
        pile_after: that bonus pile left (top first); the unchanged pile when nothing was drawn.
    """

    goods_tokens: tuple[int, ...]
    stack_after: tuple[int, ...]
    bonus: int | None
    bonus_kind: int | None
    pile_after: tuple[int, ...]

    @property
    def value(self) -> int:
        """Rupees earned by the sale."""
        return sum(self.goods_tokens) + (self.bonus or 0)


def sell(stack: Sequence[int], count: int, bonus_piles: Sequence[Sequence[int]] = ((), (), ())) -> Sale:
    """Take the tokens of a sale of ``count`` cards.

    Args:
        stack: the goods token stack of the sold type, top first.
        count: cards sold (>= 1).
        bonus_piles: the three bonus piles, top first (3-, 4-, 5-card).

    Returns:
        ``min(count, len(stack))`` tokens from the top, and the top bonus token of the matching
        pile when ``count >= 3`` and that pile is not empty (also when the goods stack is empty).

    Raises:
        ValueError: if ``count < 1``.
    """
    if count < 1:
        raise ValueError(f"a sale needs at least one card, got {count}")
    stack = tuple(stack)
    taken, rest = stack[:count], stack[count:]
    kind = bonus_kind(count)
    if kind is None or not bonus_piles[kind]:
        pile = tuple(bonus_piles[kind]) if kind is not None else ()
        return Sale(taken, rest, None, None, pile)
    pile = tuple(bonus_piles[kind])
    return Sale(taken, rest, pile[0], kind, pile[1:])


def sale_value(stack: Sequence[int], count: int, bonus_pile: Sequence[int] = ()) -> int:
    """Return the rupees of selling ``count`` cards into ``stack`` (``bonus_pile``: the matching pile)."""
    kind = bonus_kind(count)
    piles: list[Sequence[int]] = [(), (), ()]
    if kind is not None:
        piles[kind] = bonus_pile
    return sell(stack, count, piles).value


def camel_majority(herds: Sequence[int]) -> int | None:
    """Return the player with strictly more camels (gets the camel token), ``None`` on a tie."""
    # Seed: a tie in camels gives the camel token to nobody.
    if herds[0] == herds[1]:
        return None
    return 0 if herds[0] > herds[1] else 1


def rupees(goods_tokens: Sequence[int], bonus_tokens: Sequence[int], camel_token: bool) -> int:
    """Return a round total: goods tokens + bonus tokens + 5 for the camel token."""
    return sum(goods_tokens) + sum(bonus_tokens) + (CAMEL_TOKEN if camel_token else 0)


def seal_winner(
    totals: Sequence[int], bonus_counts: Sequence[int], goods_counts: Sequence[int]
) -> int | None:
    """Return who wins the round's Seal, ``None`` on a full tie.

    Higher rupee total wins; tie -> more bonus tokens; still tied -> more goods tokens
    (Jaipur rulebook, end of round). A full tie gives no Seal (decision A7 of :mod:`.rules`).
    """
    for a, b in (
        (totals[0], totals[1]),
        (bonus_counts[0], bonus_counts[1]),
        (goods_counts[0], goods_counts[1]),
    ):
        if a != b:
            return 0 if a > b else 1
    return None


__all__ = ["Sale", "bonus_kind", "camel_majority", "rupees", "sale_value", "seal_winner", "sell"]
