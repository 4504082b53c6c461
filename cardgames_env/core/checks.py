"""Field checks for a game position given from outside (a loaded rules ``State``).

Every game's ``rules.validate_state`` is written with these: each check raises a
``ValueError`` whose message starts with the path of the field it checked (``state.player``,
``state.hands[1]``) and says what is wrong with it, e.g. ``"state.player: 9 is not a seat of
a 2-player game"``. They know no game: card names come from the caller.

Integers must be Python ints (``IntEnum`` members count; ``bool`` and numpy scalars do not:
the rules engines use ``int`` methods such as ``bit_count`` on them), flags Python bools,
sequences tuples (a ``State`` is immutable and hashable).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NoReturn

CardName = Callable[[int], str]
"""Returns the printed name of a card id (or of a card type)."""


def describe(value: Any) -> str:
    """Return a short description of a value for an error message: its type and its repr."""
    kind = type(value)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{name} {text}"


def need_type(value: Any, field: str, kind: type | tuple[type, ...], what: str) -> Any:
    """Return ``value`` if it is an instance of ``kind`` (described as ``what``)."""
    if not isinstance(value, kind):
        raise ValueError(f"{field}: must be {what}, got {describe(value)}")
    return value


def need_int(value: Any, field: str, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` if it is an int (not a bool) in ``low..high`` (either bound optional)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{field}: must be an int, got {describe(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        if high is None:
            raise ValueError(f"{field}: {value} is below {low}")
        if low is None:
            raise ValueError(f"{field}: {value} is above {high}")
        raise ValueError(f"{field}: {value} is outside {low}..{high}")
    return value


def need_bool(value: Any, field: str) -> bool:
    """Return ``value`` if it is a bool."""
    if not isinstance(value, bool):
        raise ValueError(f"{field}: must be a bool, got {describe(value)}")
    return value


def need_seat(value: Any, field: str, num_players: int) -> int:
    """Return ``value`` if it is a seat of a ``num_players``-player game."""
    need_int(value, field)
    if not 0 <= value < num_players:
        raise ValueError(f"{field}: {value} is not a seat of a {num_players}-player game")
    return int(value)


def need_tuple(value: Any, field: str, length: int | None = None, max_length: int | None = None) -> tuple:
    """Return ``value`` if it is a tuple of ``length`` items (or at most ``max_length``)."""
    if not isinstance(value, tuple):
        raise ValueError(f"{field}: must be a tuple, got {describe(value)}")
    if length is not None and len(value) != length:
        raise ValueError(f"{field}: must hold {length} items, got {len(value)}")
    if max_length is not None and len(value) > max_length:
        raise ValueError(f"{field}: must hold at most {max_length} items, got {len(value)}")
    return value


def need_ints(
    value: Any,
    field: str,
    length: int | None = None,
    low: int | None = None,
    high: int | None = None,
    max_length: int | None = None,
) -> tuple[int, ...]:
    """Return ``value`` if it is a tuple of ints in ``low..high`` (``length`` of them if given)."""
    need_tuple(value, field, length, max_length)
    for i, item in enumerate(value):
        need_int(item, f"{field}[{i}]", low, high)
    return value


def need_mask(value: Any, field: str, universe: int) -> int:
    """Return ``value`` if it is a card bitmask whose cards all belong to ``universe``."""
    need_int(value, field)
    if value < 0:
        raise ValueError(f"{field}: {value} is not a card set (a non-negative bitmask)")
    stray = value & ~universe
    if stray:
        card = (stray & -stray).bit_length() - 1
        raise ValueError(f"{field}: bit {card} is not a card of this game")
    return value


def need_masks(value: Any, field: str, length: int, universe: int) -> tuple[int, ...]:
    """Return ``value`` if it is a tuple of ``length`` card bitmasks over ``universe``."""
    need_tuple(value, field, length)
    for i, mask in enumerate(value):
        need_mask(mask, f"{field}[{i}]", universe)
    return value


def mask_of_ids(value: Any, field: str, num_cards: int, card_name: CardName) -> int:
    """Return the bitmask of a tuple of card ids ``0..num_cards-1``, each at most once."""
    need_ints(value, field, low=0, high=num_cards - 1)
    mask = 0
    for card in value:
        bit = 1 << card
        if mask & bit:
            raise ValueError(f"{field}: card {card_name(card)} appears twice")
        mask |= bit
    return mask


def need_disjoint(zones: Sequence[tuple[str, int]], card_name: CardName) -> int:
    """Return the union of the card bitmasks ``(field, mask)`` if no card is in two of them."""
    seen = 0
    for i, (field, mask) in enumerate(zones):
        both = seen & mask
        if both:
            card = (both & -both).bit_length() - 1
            other = next(name for name, earlier in zones[:i] if earlier >> card & 1)
            raise ValueError(f"{field}: card {card_name(card)} is also in {other}")
        seen |= mask
    return seen


def need_each_card_once(
    zones: Sequence[tuple[str, int]], universe: int, card_name: CardName, where: str = "state"
) -> None:
    """Check that every card of ``universe`` is in exactly one of the bitmask ``zones``.

    A card in two zones is reported with the later zone's field, a card in none with
    ``where`` and the zones' names.
    """
    seen = need_disjoint(zones, card_name)
    missing = universe & ~seen
    if missing:
        card = (missing & -missing).bit_length() - 1
        names = ", ".join(dict.fromkeys(name.split("[")[0] for name, _ in zones))
        raise ValueError(f"{where}: card {card_name(card)} is missing (it is in none of {names})")


def need_counts(value: Any, field: str, size: int) -> tuple[int, ...]:
    """Return ``value`` if it is a multiset of ``size`` kinds: a tuple of ``size`` counts >= 0."""
    return need_ints(value, field, size, low=0)


def need_count_totals(
    zones: Sequence[tuple[str, Sequence[int]]],
    expected: Sequence[int],
    kind_name: CardName,
    where: str = "state",
) -> None:
    """Check that the count tuples of ``zones`` add up to ``expected`` for every kind of card."""
    for kind, wanted in enumerate(expected):
        total = sum(counts[kind] for _, counts in zones)
        if total != wanted:
            names = ", ".join(dict.fromkeys(name.split("[")[0] for name, _ in zones))
            change = "missing" if total < wanted else "too many"
            raise ValueError(
                f"{where}: {total} {kind_name(kind)} cards in {names}; the game has {wanted} ({change})"
            )


def fail(field: str, problem: str) -> NoReturn:
    """Raise the ``ValueError`` of a check written in a game's validator: ``field: problem``."""
    raise ValueError(f"{field}: {problem}")


def need_state(state: Any, state_cls: type, config_cls: type, config: Any = None) -> Any:
    """Check that ``state`` is a ``state_cls`` holding a ``config_cls`` (equal to ``config`` if
    given); return its config."""
    game = state_cls.__module__
    if not isinstance(state, state_cls):
        raise ValueError(f"state: must be a {game}.State, got {describe(state)}")
    own = getattr(state, "config")  # noqa: B009 (isinstance narrowed state to object)
    if not isinstance(own, config_cls):
        raise ValueError(f"state.config: must be a {game}.Config, got {describe(own)}")
    if config is not None and own != config:
        raise ValueError(f"state.config: the state was built for {own}, this game plays {config}")
    return own


def fail_finished(field: str, why: str) -> NoReturn:
    """Raise the ``ValueError`` of a position in which no player is to move (``why`` says how
    ``field`` shows it): a finished game or a pending chance outcome is no position to load."""
    raise ValueError(f"{field}: {why}: no player to move (a finished position or a pending deal)")
