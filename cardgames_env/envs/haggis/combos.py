"""Haggis combinations: every reading of a set of cards, the beating order, legal plays of a hand.

The combination model (docs/rules/haggis.md, "Combinations"; decisions A1-A6 and A10 of
:mod:`.rules`):

* a **sequence** ``("sequence", m, l, rank)`` is ``l`` consecutive rank blocks, each holding one
  card of each of the same ``m`` suits; any ``(m, l)`` except ``(1, 2)``; rank = highest rank;
* J, Q, K are **wild** (any suit, any value 2..10, never duplicating a card already in the
  combination) or **natural** 11, 12, 13 in singles and ``m = 1`` runs (``10S J Q`` is a run of
  rank 12); a rank-11 slot can only be the natural J, 12 the Q, 13 the K (A5);
* two or three face cards without number cards are always a **bomb** (A2); the six bombs, in
  ascending order, are ``rainbow`` (3-5-7-9 in four suits), ``JQ``, ``JK``, ``QK``, ``JQK`` and
  ``suited`` (3-5-7-9 in one suit), natural cards only (A6).

Stable API: :func:`readings` and :func:`beats`. The bitmask functions below them serve the rules
engine and the env (card ids as in :mod:`cardgames_env.envs.haggis.cards`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

import numpy as np

from .cards import (
    FACE_MASK,
    NATURAL_RANK,
    NUM_NUMBER_CARDS,
    NUM_SUITS,
    NUMBER_MASK,
    J,
    K,
    Q,
    card_id,
    ids_of,
    mask_of_strings,
    rank_str,
)

Reading = tuple
"""``("sequence", m, l, rank)`` or ``("bomb", name)``."""

BOMB_ORDER: tuple[str, ...] = ("rainbow", "JQ", "JK", "QK", "JQK", "suited")
"""Bomb names, weakest first (3579 rainbow < JQ < JK < QK < JQK < 3579 suited)."""
BOMB_RANK: dict[str, int] = {name: i for i, name in enumerate(BOMB_ORDER)}
FACE_BOMB: dict[int, str] = {
    (1 << J) | (1 << Q): "JQ",
    (1 << J) | (1 << K): "JK",
    (1 << Q) | (1 << K): "QK",
    FACE_MASK: "JQK",
}
"""Bomb name of each set of two or three face cards (A2)."""
BOMB_KIND = 0
"""``kind`` of a bomb play; a sequence play's kind is its multiplicity 1..4."""
MAX_MULTIPLICITY = 4
NATURAL_PREFIX = (1 << J, (1 << J) | (1 << Q), FACE_MASK)
"""Faces a run of top 11, 12, 13 takes as naturals: J; J Q; J Q K (A5)."""

_RANK_MASK = {
    r: sum(1 << card_id(r, s) for s in range(NUM_SUITS)) for r in range(2, 11)
}


def _popcount(x: int) -> int:
    return x.bit_count()


def _single_bits(mask: int) -> list[int]:
    """Return the set bits of ``mask`` as one-bit masks, lowest first (``1 << c`` per card id)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


# -- readings ------------------------------------------------------------------------------


@lru_cache(maxsize=1 << 17)
def readings_of_mask(
    cards: int, lone_qk_wild: bool = False, natural_runs: bool = True
) -> frozenset[Reading]:
    """Return every reading of the card bitmask ``cards`` (empty = not a combination).

    Args:
        cards: bitmask over card ids 0..38 (36..38 = J, Q, K).
        lone_qk_wild: variant ``face_singles="J"``: a lone Q or K is a wild single (rank <= 10)
            instead of the natural single 12 / 13.
        natural_runs: natural J/Q/K may extend m = 1 runs past 10 (10-J-Q = rank 12).
    """
    numbers = cards & NUMBER_MASK
    faces = cards & FACE_MASK
    n, f = _popcount(numbers), _popcount(faces)
    if n == 0:
        if f == 0:
            return frozenset()
        if f >= 2:  # A2: two or three face cards alone are always a bomb
            return frozenset({("bomb", FACE_BOMB[faces])})
        face = faces.bit_length() - 1
        if face == J or not lone_qk_wild:  # A3: a lone face card is its natural single
            return frozenset({("sequence", 1, 1, NATURAL_RANK[face])})
        return frozenset(("sequence", 1, 1, r) for r in range(2, 11))
    ids = ids_of(numbers)
    ranks = [c // NUM_SUITS + 2 for c in ids]
    suits = {c % NUM_SUITS for c in ids}
    if f == 0 and n == 4 and sorted(ranks) == [3, 5, 7, 9]:
        # A6: natural 3-5-7-9; four suits = rainbow, one suit = suited, else nothing.
        if len(suits) == 4:
            return frozenset({("bomb", "rainbow")})
        if len(suits) == 1:
            return frozenset({("bomb", "suited")})
        return frozenset()
    low, high = min(ranks), max(ranks)
    total = n + f
    out: set[Reading] = set()
    for m in range(1, MAX_MULTIPLICITY + 1):
        if total % m:
            continue
        length = total // m
        if m == 1 and length == 2:  # seed: any (m, l) except m = 1, l = 2
            continue
        if m == 1 and length == 1:
            out.add(("sequence", 1, 1, high))
            continue
        if len(suits) > m:  # seed: exactly m suits; wilds can add suits, never remove them
            continue
        if high - low + 1 <= length:
            # All faces wild (values <= 10): every placement of the block window.
            for top in range(max(high, length + 1), min(10, low + length - 1) + 1):
                out.add(("sequence", m, length, top))
        if m == 1 and natural_runs:
            for k, naturals in enumerate(NATURAL_PREFIX, start=1):
                if faces & naturals != naturals:
                    break
                top = 10 + k
                lo = top - length + 1
                if 2 <= lo <= low and length - k >= 1:
                    out.add(("sequence", 1, length, top))
    return frozenset(out)


def readings(
    cards: Sequence[str], *, face_singles: str = "JQK", natural_faces_in_runs: bool = True
) -> set[Reading]:
    """Return every reading of exactly these cards (empty set = not a valid combination).

    >>> sorted(readings(["J", "5S", "6S"]))
    [('sequence', 1, 3, 6), ('sequence', 1, 3, 7)]
    >>> readings(["J", "Q"])
    {('bomb', 'JQ')}

    Args:
        cards: card names such as ``"5S"``, ``"10H"`` (or ``"TH"``), ``"J"``, ``"Q"``, ``"K"``.
        face_singles: ``"JQK"`` (default, A3) or ``"J"`` (the two-player text read literally:
            lone Q/K are wild).
        natural_faces_in_runs: whether J/Q/K may be 11/12/13 in runs (default: yes).

    Raises:
        ValueError: on an unknown or repeated card, or a bad option.
    """
    if face_singles not in ("JQK", "J"):
        raise ValueError(f"face_singles must be 'JQK' or 'J', got {face_singles!r}")
    mask = mask_of_strings(cards)
    return set(readings_of_mask(mask, face_singles == "J", bool(natural_faces_in_runs)))


def check_reading(reading: Reading) -> None:
    """Raise ``ValueError`` unless ``reading`` is a well-formed reading tuple."""
    if isinstance(reading, tuple) and len(reading) == 2 and reading[0] == "bomb":
        if reading[1] in BOMB_RANK:
            return
    elif isinstance(reading, tuple) and len(reading) == 4 and reading[0] == "sequence":
        _, m, length, rank = reading
        if (
            all(isinstance(x, int) for x in (m, length, rank))
            and 1 <= m <= MAX_MULTIPLICITY
            and length >= 1
            and (m, length) != (1, 2)
            and 2 <= rank <= 13
        ):
            return
    raise ValueError(
        f"not a Haggis reading: {reading!r} (expected ('sequence', m, l, rank) or ('bomb', name))"
    )


def beats(a: Reading, b: Reading) -> bool:
    """Return whether reading ``a`` may be played on top of reading ``b``.

    A sequence beats only a sequence of the same multiplicity and length and lower rank; a bomb
    beats any sequence and any lower bomb; nothing but a higher bomb follows a bomb.

    >>> beats(("sequence", 1, 1, 11), ("sequence", 1, 1, 10))
    True
    >>> beats(("bomb", "JQ"), ("bomb", "rainbow"))
    True
    """
    check_reading(a)
    check_reading(b)
    if a[0] == "bomb":
        return b[0] == "sequence" or BOMB_RANK[a[1]] > BOMB_RANK[b[1]]
    if b[0] == "bomb":
        return False
    return a[1] == b[1] and a[2] == b[2] and a[3] > b[3]


# -- notation of readings ------------------------------------------------------------------

_SET_NAMES = {1: "single", 2: "pair", 3: "triple", 4: "quad"}
_RUN_NAMES = {1: "run", 2: "pairs", 3: "triples", 4: "quads"}
_NAME_TO_M = {**{v: k for k, v in _SET_NAMES.items()}, **{v: k for k, v in _RUN_NAMES.items()}}


def reading_str(reading: Reading) -> str:
    """Return the notation of a reading: ``pair 3``, ``run 2-4``, ``pairs 5-6``, ``bomb JQ``."""
    check_reading(reading)
    if reading[0] == "bomb":
        return f"bomb {reading[1]}"
    _, m, length, top = reading
    if length == 1:
        return f"{_SET_NAMES[m]} {rank_str(top)}"
    return f"{_RUN_NAMES[m]} {rank_str(top - length + 1)}-{rank_str(top)}"


def _parse_rank(text: str) -> int:
    names = {"J": 11, "Q": 12, "K": 13, "T": 10}
    up = text.upper()
    if up in names:
        return names[up]
    if up.isdigit() and 2 <= int(up) <= 13:
        return int(up)
    raise ValueError(f"not a rank: {text!r}")


def parse_reading(text: str) -> Reading:
    """Parse the notation of :func:`reading_str` back into a reading tuple.

    Raises:
        ValueError: if the text is not a reading.
    """
    words = text.strip().split()
    if len(words) != 2:
        raise ValueError(f"not a reading: {text!r} (expected e.g. 'pair 3', 'run 2-4', 'bomb JQ')")
    kind, value = words[0].lower(), words[1]
    if kind == "bomb":
        for name in BOMB_ORDER:
            if name.lower() == value.lower():
                return ("bomb", name)
        raise ValueError(f"unknown bomb {value!r}; bombs: {', '.join(BOMB_ORDER)}")
    if kind in _SET_NAMES.values():
        reading: Reading = ("sequence", _NAME_TO_M[kind], 1, _parse_rank(value))
    elif kind in _RUN_NAMES.values():
        lo_text, sep, top_text = value.partition("-")
        if not sep:
            raise ValueError(f"{kind} needs a rank range such as 5-7, got {value!r}")
        lo, top = _parse_rank(lo_text), _parse_rank(top_text)
        reading = ("sequence", _NAME_TO_M[kind], top - lo + 1, top)
        if top - lo + 1 < (3 if kind == "run" else 2):
            raise ValueError(f"{kind} {value} is too short")
    else:
        raise ValueError(f"not a reading: {text!r} (expected e.g. 'pair 3', 'run 2-4', 'bomb JQ')")
    check_reading(reading)
    return reading


# -- legal plays of a hand -----------------------------------------------------------------

Template = tuple[int, int, int, int, int, int]
"""``(m, l, top, region, naturals, number_slots)``: a sequence shape and where its cards lie.

``region`` = the number cards that may fill it (ranks ``top - l + 1 .. min(top, 10)`` in the
template's suits), ``naturals`` = the face cards it takes as themselves (runs past 10),
``number_slots`` = the slots filled by number cards or wild faces.
"""


def _build_templates() -> tuple[Template, ...]:
    out: list[Template] = []
    for m in range(2, MAX_MULTIPLICITY + 1):
        for suit_set in combinations(range(NUM_SUITS), m):
            for length in range(1, 10):
                if m * length > 17:
                    break
                for top in range(length + 1, 11):
                    region = sum(
                        1 << card_id(r, s) for r in range(top - length + 1, top + 1) for s in suit_set
                    )
                    out.append((m, length, top, region, 0, m * length))
    for suit in range(NUM_SUITS):
        for length in range(3, 10):
            for top in range(length + 1, 11):
                region = sum(1 << card_id(r, suit) for r in range(top - length + 1, top + 1))
                out.append((1, length, top, region, 0, length))
        for k, naturals in enumerate(NATURAL_PREFIX, start=1):
            top = 10 + k
            for length in range(max(3, k + 1), top):
                lo = top - length + 1
                region = sum(1 << card_id(r, suit) for r in range(lo, 11))
                out.append((1, length, top, region, naturals, length - k))
    return tuple(out)


TEMPLATES: tuple[Template, ...] = _build_templates()
"""Every sequence shape of length >= 2 or multiplicity >= 2 (singles are handled apart)."""
_BY_SHAPE: dict[tuple[int, int], tuple[Template, ...]] = {}
for _t in TEMPLATES:
    _BY_SHAPE.setdefault((_t[0], _t[1]), ())
    _BY_SHAPE[(_t[0], _t[1])] += (_t,)
_BY_CARD: tuple[tuple[Template, ...], ...] = tuple(
    tuple(t for t in TEMPLATES if t[3] >> c & 1) for c in range(NUM_NUMBER_CARDS)
)
_FACE_SUBSETS: dict[int, tuple[tuple[int, ...], ...]] = {
    faces: tuple(
        tuple(sum(combo) for combo in combinations([b for b in (1 << J, 1 << Q, 1 << K) if faces & b], k))
        for k in range(4)
    )
    for faces in range(0, FACE_MASK + 1, 1 << J)
}
"""Face bitmask -> subsets of it by size."""
_TEMPLATE_REGION = np.array([t[3] for t in TEMPLATES], dtype=np.uint64)
_TEMPLATE_NATURALS = np.array([t[4] for t in TEMPLATES], dtype=np.uint64)
_TEMPLATE_SLOTS = np.array([t[5] for t in TEMPLATES], dtype=np.int64)
_BYTE_POPCOUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)


def _popcounts(values: np.ndarray) -> np.ndarray:
    """Return the number of set bits of each uint64 in ``values`` (NumPy 1.x has no bitwise_count)."""
    return _BYTE_POPCOUNT[values.view(np.uint8)].reshape(len(values), 8).sum(axis=1)


def _fillable_templates(numbers: int, faces: int, natural_runs: bool) -> list[Template]:
    """Return the templates of :data:`TEMPLATES` that ``legal_plays``' loop could fill from a
    hand of ``numbers`` and ``faces`` when leading: their natural faces in hand (and allowed),
    and enough number cards in the region to fill the slots the wild faces leave (the loop's
    own ``k_min <= k_max`` test, for all templates at once). The loop checks each survivor
    again, so this filter only saves time."""
    face_bits = np.uint64(faces)
    natural_ok = (_TEMPLATE_NATURALS & ~face_bits) == 0
    if not natural_runs:
        natural_ok &= _TEMPLATE_NATURALS == 0
    wild = _popcounts(face_bits & ~_TEMPLATE_NATURALS)
    have = _popcounts(_TEMPLATE_REGION & np.uint64(numbers))
    fillable = natural_ok & (have >= np.maximum(1, _TEMPLATE_SLOTS - wild))
    return [TEMPLATES[i] for i in np.flatnonzero(fillable).tolist()]

Play = tuple[int, int, Reading]
"""``(cards, kind, reading)``: kind 0 = bomb, else the multiplicity; reading = highest legal."""


def _sequence_bests(
    numbers: int, faces: int, templates: Sequence[Template], min_top: int, natural_runs: bool,
    lowest: int, best: dict[int, int],
) -> None:
    """Fill ``best`` (``cards << 3 | m`` -> highest top) with the sequences of ``templates``
    ranked above ``min_top``: number cards of the region and wild faces (at least one number
    card), each card set and kind once with its highest top, in the templates' order."""
    for m, _length, top, region, naturals, slots in templates:
        if top <= min_top or naturals & ~faces or (naturals and not natural_runs):
            continue
        wild = faces & ~naturals
        n_wild = wild.bit_count()
        if lowest >= 0:
            avail = numbers & region & ~((2 << lowest) - 1)
            fixed = 1 << lowest
        else:
            avail = numbers & region
            fixed = 0
        n_fixed = 1 if fixed else 0
        k_min = max(1, slots - n_wild)
        k_max = min(avail.bit_count() + n_fixed, slots)
        if k_max < k_min:
            continue
        bits = _single_bits(avail)
        wild_subsets = _FACE_SUBSETS[wild]
        for k in range(k_min, k_max + 1):
            face_choices = wild_subsets[slots - k]
            for combo in combinations(bits, k - n_fixed):
                base = (fixed | sum(combo) | naturals) << 3 | m
                for fw in face_choices:
                    key = base | fw << 3
                    if best.get(key, 0) < top:
                        best[key] = top


def _bomb_plays(numbers: int, faces: int, bomb_floor: int, lowest: int) -> list[Play]:
    """The bombs above ``BOMB_ORDER`` index ``bomb_floor`` (-1: any): two or three face cards
    (A2), then the natural 3-5-7-9s, rainbow or suited (A6)."""
    plays: list[Play] = []
    if lowest < 0 or lowest >= J:
        for size in (2, 3):
            for sub in _FACE_SUBSETS[faces][size]:
                if lowest >= 0 and (sub & -sub) != 1 << lowest:
                    continue
                name = FACE_BOMB[sub]
                if BOMB_RANK[name] > bomb_floor:
                    plays.append((sub, BOMB_KIND, ("bomb", name)))
    if lowest < 0 or lowest // NUM_SUITS == 1:  # the 3 is the lowest card of a 3-5-7-9
        threes = numbers & _RANK_MASK[3] if lowest < 0 else 1 << lowest
        for c3 in ids_of(threes):
            for c5 in ids_of(numbers & _RANK_MASK[5]):
                for c7 in ids_of(numbers & _RANK_MASK[7]):
                    for c9 in ids_of(numbers & _RANK_MASK[9]):
                        suits = {c3 % 4, c5 % 4, c7 % 4, c9 % 4}
                        name = "rainbow" if len(suits) == 4 else "suited" if len(suits) == 1 else ""
                        if name and BOMB_RANK[name] > bomb_floor:
                            cards = (1 << c3) | (1 << c5) | (1 << c7) | (1 << c9)
                            plays.append((cards, BOMB_KIND, ("bomb", name)))
    return plays


def legal_plays(
    hand: int,
    table: Reading | None = None,
    lone_qk_wild: bool = False,
    natural_runs: bool = True,
    lowest: int = -1,
) -> list[Play]:
    """Return every distinct legal play of ``hand`` on ``table`` (``None`` = leading).

    A play is ``(cards, kind, reading)``: one entry per card set and kind (bomb, or sequence of
    multiplicity m), with the highest-ranked reading of that kind that beats the table (any
    lower legal rank is the same cards and the same kind; the rules engine accepts those too).
    The order: singles, then the sequences in :data:`TEMPLATES` order, then the bombs.

    Args:
        hand: bitmask of the player's cards.
        table: the reading to beat, or ``None`` when leading.
        lone_qk_wild: variant ``face_singles="J"``.
        natural_runs: variant ``natural_faces_in_runs``.
        lowest: if >= 0, only plays whose lowest card id is ``lowest`` (must be in ``hand``).
    """
    numbers = hand & NUMBER_MASK
    faces = hand & FACE_MASK
    if lowest >= 0 and not hand >> lowest & 1:
        return []
    best: dict[int, int] = {}  # (cards << 3 | m) -> highest top
    min_top = 0
    templates: Sequence[Template]
    if table is None:
        templates = _BY_CARD[lowest] if 0 <= lowest < NUM_NUMBER_CARDS else (
            () if lowest >= NUM_NUMBER_CARDS else _fillable_templates(numbers, faces, natural_runs)
        )
        singles = True
        bomb_floor = -1
    elif table[0] == "sequence":
        _, tm, tl, min_top = table
        templates = _BY_SHAPE.get((tm, tl), ())
        singles = (tm, tl) == (1, 1)
        bomb_floor = -1
    else:
        templates = ()
        singles = False
        bomb_floor = BOMB_RANK[table[1]]

    if singles:  # A3: number cards by id, then J, Q, K
        for c in ids_of(numbers if lowest < 0 else numbers & (1 << lowest)):
            if c // NUM_SUITS + 2 > min_top:
                best[(1 << c) << 3 | 1] = c // NUM_SUITS + 2
        for face in (J, Q, K):
            if faces >> face & 1 and (lowest < 0 or lowest == face):
                rank = 10 if lone_qk_wild and face != J else NATURAL_RANK[face]
                if rank > min_top:
                    best[(1 << face) << 3 | 1] = rank
    _sequence_bests(numbers, faces, templates, min_top, natural_runs, lowest, best)
    plays: list[Play] = [
        (key >> 3, key & 7, ("sequence", key & 7, (key >> 3).bit_count() // (key & 7), top))
        for key, top in best.items()
    ]
    # Bombs (any bomb beats a sequence; after a bomb only higher bombs).
    return plays + _bomb_plays(numbers, faces, bomb_floor, lowest)
