"""Haggle scoring, in the order of docs/rules/haggle.md, "Scoring".

The stable entry point is :func:`score_hands`: player name -> hand letters in, player name ->
score (``None`` = ELIMINATED) out. The same scorer works on count tuples for the env
(:func:`cap_counts` draws the random 13-card cap, :func:`score_counts` does the rest).

Scoring rules (numbered 1..12, "S<n>" in docs/rules/haggle.md):

1. more than 3 White -> every White is worth 0;
2. score only as many Orange as Blue;
3. 5 or more Blue -> 10 points off every *other* player;
4. each set of 3 Red protects from one such penalty;
5. most Yellow -> bonus of that count squared (a tie passes the bonus down);
6. 7 or more cards of one colour handed in -> ELIMINATED;
7. each set of 5 different colours -> +10;
8. a pyramid (4/3/2/1 of four colours, no other card) -> the hand's value is doubled;
9. unique most Red -> Red's value doubled (a tie: nobody);
10. each 2 Yellow double the value of one White;
11. each 3 Blue quadruple the value of one Orange;
12. at most 13 cards are scored; the excess is removed at random.

Decisions (docs/rules/haggle.md, "Decisions this implementation takes"; each with a :class:`Config`
variant): eliminated players are left out of the cross-player rules 3, 5 and 9; the Yellow bonus
cascades down the distinct counts; the pyramid doubles the final total; the cap removes uniformly
random cards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .cards import BASE_VALUES, EMPTY, NUM_MODIFIERS, Counts, parse_hand

ALL_MODIFIERS: frozenset[int] = frozenset(range(1, NUM_MODIFIERS + 1))
"""Scoring rule numbers 1..12 (all active in the real game)."""
CARD_LIMIT = 13
"""Rule S12: no more than 13 cards in a hand can be scored."""
ELIMINATION_COUNT = 7
"""Rule S6: 7 or more cards of one colour handed in."""
PYRAMID = (0, 1, 2, 3, 4)
"""Rule S8: sorted handed-in counts of a pyramid (no other cards)."""

Y, B, R, O, W = range(5)  # noqa: E741 (the colour letters)


@dataclass(frozen=True)
class Config:
    """Scoring variants (defaults: docs/rules/haggle.md, "Decisions this implementation takes").

    Attributes:
        eliminated_in_globals: eliminated players still take part in modifiers 3, 5 and 9
            (inflict Blue penalties, hold Yellow/Red majorities).
        yellow_cascade: a tie for most Yellow passes the bonus down the distinct counts until
            one is held by a single player; ``False`` tries only the second-most count.
        yellow_min_count: fewest Yellow that can win the bonus (MysTrade: 2).
        elimination_penalty: ``None`` = modifier 6 eliminates; an int (MysTrade: -10) is added
            once per colour with 7 or more cards instead.
        pyramid_final: the pyramid doubles the final total (penalties and bonuses included);
            ``False`` doubles the subtotal before modifiers 3, 5 and 9.
        modifiers: the scoring rules (1..12) in force; a subset scores a hand under the base
            values and those modifiers only (the single-rule examples of docs/rules/haggle.md).
    """

    eliminated_in_globals: bool = False
    yellow_cascade: bool = True
    yellow_min_count: int = 1
    elimination_penalty: int | None = None
    pyramid_final: bool = True
    modifiers: frozenset[int] = field(default=ALL_MODIFIERS)

    def __post_init__(self) -> None:
        for name in ("eliminated_in_globals", "yellow_cascade", "pyramid_final"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")
        if not _is_int(self.yellow_min_count) or self.yellow_min_count < 1:
            raise ValueError(f"yellow_min_count must be an int >= 1, got {self.yellow_min_count!r}")
        if self.elimination_penalty is not None and not _is_int(self.elimination_penalty):
            raise ValueError(f"elimination_penalty must be None or an int, got {self.elimination_penalty!r}")
        try:
            modifiers = frozenset(self.modifiers)
        except TypeError:
            raise ValueError(f"modifiers must be a set of ints 1..12, got {self.modifiers!r}") from None
        if not modifiers <= ALL_MODIFIERS:
            raise ValueError(f"modifiers must be a set of ints 1..12, got {sorted(modifiers)!r}")
        object.__setattr__(self, "modifiers", modifiers)


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


DEFAULT = Config()


def cap_counts(counts: Sequence[int], rng: np.random.Generator, limit: int = CARD_LIMIT) -> Counts:
    """Rule S12: keep a uniformly random ``limit``-card subset of a hand's cards.

    Every card is equally likely to be removed (decision A7), so the kept counts follow the
    multivariate hypergeometric law. Hands of ``limit`` cards or fewer come back unchanged and
    draw nothing from ``rng``.
    """
    total = sum(counts)
    if total <= limit:
        return tuple(counts)  # type: ignore[return-value]
    kept = rng.choice(total, size=limit, replace=False)
    # Cards are laid out colour by colour: card k is of the first colour c with k < bounds[c].
    bounds = np.cumsum(counts)
    colours = np.searchsorted(bounds, kept, side="right")
    return tuple(int(n) for n in np.bincount(colours, minlength=len(counts)))  # type: ignore[return-value]


def _subtotal(counts: Counts, mods: frozenset[int]) -> int:
    """Base values plus the one-hand modifiers 1, 2, 7, 10, 11 ("Scoring" steps 3-5)."""
    y, b, r, o, w = counts
    white_value = 0 if (1 in mods and w > 3) else BASE_VALUES[W]  # modifier 1
    orange = min(o, b) if 2 in mods else o  # modifier 2
    total = y * BASE_VALUES[Y] + b * BASE_VALUES[B] + r * BASE_VALUES[R]
    total += orange * BASE_VALUES[O] + w * white_value
    if 7 in mods:  # each set of 5 different colours (cards count even when worth 0)
        total += 10 * min(counts)
    if 10 in mods:  # each 2 Yellow double one White's current value
        total += white_value * min(y // 2, w)
    if 11 in mods:  # each 3 Blue quadruple one (scored) Orange: +3x on top of the base
        total += 3 * BASE_VALUES[O] * min(b // 3, orange)
    return total


def _unique_winner(values: Mapping[int, int], candidates: Sequence[int], minimum: int) -> int | None:
    """First value in ``candidates`` (>= ``minimum``) held by exactly one player; that player."""
    for value in candidates:
        if value < minimum:
            return None
        holders = [p for p, v in values.items() if v == value]
        if len(holders) == 1:
            return holders[0]
    return None


def yellow_winner(yellows: Mapping[int, int], config: Config = DEFAULT) -> int | None:
    """Rule S5: the player who earns the Yellow bonus, or ``None`` (decision A2)."""
    distinct = sorted(set(yellows.values()), reverse=True)
    if not config.yellow_cascade:
        distinct = distinct[:2]  # the most, then only the "next most"
    return _unique_winner(yellows, distinct, config.yellow_min_count)


def red_winner(reds: Mapping[int, int]) -> int | None:
    """Rule S9: the player with the unique most Red (at least one), else ``None`` (A3)."""
    if not reds:
        return None
    return _unique_winner(reds, [max(reds.values())], 1)


def score_counts(
    handed: Sequence[Sequence[int]],
    scored: Sequence[Sequence[int]] | None = None,
    config: Config = DEFAULT,
) -> list[int | None]:
    """Score every player's hand given as colour counts (docs/rules/haggle.md, "Scoring").

    Args:
        handed: each player's handed-in counts (Y, B, R, O, W); modifiers 6 and 8 look at these.
        scored: the counts left after the 13-card cap (:func:`cap_counts`); ``None`` = ``handed``
            (callers must cap hands of more than 13 cards themselves).
        config: scoring variants.

    Returns:
        Each player's score, ``None`` for an ELIMINATED player.
    """
    mods = config.modifiers
    handed_t = [tuple(h) for h in handed]
    scored_t: list[Counts] = [tuple(s) for s in (handed if scored is None else scored)]  # type: ignore[misc]
    if len(scored_t) != len(handed_t):
        raise ValueError("handed and scored need one hand per player")
    n = len(handed_t)
    penalty = config.elimination_penalty
    # Step 2 (modifier 6): ELIMINATED, or the penalty variant per colour with >= 7 cards.
    eliminated = [6 in mods and penalty is None and max(h, default=0) >= ELIMINATION_COUNT for h in handed_t]
    subtotal = [_subtotal(scored_t[i], mods) for i in range(n)]
    if 6 in mods and penalty is not None:
        for i, h in enumerate(handed_t):
            subtotal[i] += penalty * sum(1 for c in h if c >= ELIMINATION_COUNT)
    cross = [0] * n
    # Players in the global comparisons of modifiers 3, 5, 9 (decision A6).
    field_ = [i for i in range(n) if config.eliminated_in_globals or not eliminated[i]]
    if 3 in mods:  # one -10 from every *other* culprit with >= 5 Blue (decision A1)
        culprits = [i for i in field_ if scored_t[i][B] >= 5]
        for i in range(n):
            hits = sum(1 for c in culprits if c != i)
            protection = scored_t[i][R] // 3 if 4 in mods else 0  # modifier 4
            cross[i] -= 10 * max(0, hits - protection)
    if 5 in mods:
        winner = yellow_winner({i: scored_t[i][Y] for i in field_}, config)
        if winner is not None:
            cross[winner] += scored_t[winner][Y] ** 2
    if 9 in mods:
        winner = red_winner({i: scored_t[i][R] for i in field_})
        if winner is not None:  # doubles Red's base value: +3 per Red
            cross[winner] += BASE_VALUES[R] * scored_t[winner][R]
    result: list[int | None] = []
    for i in range(n):
        if eliminated[i]:
            result.append(None)
            continue
        pyramid = 8 in mods and tuple(sorted(handed_t[i])) == PYRAMID
        if not pyramid:
            result.append(subtotal[i] + cross[i])
        elif config.pyramid_final:  # decision A5: double the final total
            result.append(2 * (subtotal[i] + cross[i]))
        else:
            result.append(2 * subtotal[i] + cross[i])
    return result


def score_hands(
    hands: Mapping[str, str],
    rng: np.random.Generator | None = None,
    config: Config | None = None,
    **options: Any,
) -> dict[str, int | None]:
    """Score the hands of a game: player name -> hand letters in, name -> score out.

    >>> score_hands({"Taylor": "YYR", "Tyler": "OWB", "OtherTaylor": "WBRO", "Dummy": "WWWWWWW"})
    {'Taylor': 9, 'Tyler': 11, 'OtherTaylor': 14, 'Dummy': None}

    Args:
        hands: each player's hand as letters ``Y B R O W`` (case-insensitive, any order).
        rng: draws the cards removed from hands of more than 13 (rule S12); ``None``
            uses fresh entropy.
        config: scoring variants (:class:`Config`); ``options`` are its fields as keywords
            (e.g. ``yellow_cascade=False``), applied on top.

    Returns:
        Each player's score in input order; ``None`` means ELIMINATED.

    Raises:
        ValueError: for a letter outside ``YBROW`` (naming the player) or a bad option.
    """
    if options:
        base = config or DEFAULT
        fields = {f: getattr(base, f) for f in base.__dataclass_fields__}
        unknown = sorted(set(options) - set(fields))
        if unknown:
            raise ValueError(f"unknown scoring option(s) {', '.join(unknown)}; known: {', '.join(fields)}")
        config = Config(**{**fields, **options})
    config = config or DEFAULT
    names = list(hands)
    handed: list[Counts] = []
    for name in names:
        try:
            handed.append(parse_hand(hands[name]))
        except ValueError as error:
            raise ValueError(f"{name}: {error}") from None
    if 12 in config.modifiers and any(sum(h) > CARD_LIMIT for h in handed):
        generator = rng if rng is not None else np.random.default_rng()
        scored = [cap_counts(h, generator) for h in handed]  # step 1, in input order
    else:
        scored = handed
    return dict(zip(names, score_counts(handed, scored, config)))


__all__ = [
    "ALL_MODIFIERS",
    "CARD_LIMIT",
    "Config",
    "EMPTY",
    "cap_counts",
    "red_winner",
    "score_counts",
    "score_hands",
    "yellow_winner",
]
