"""Batched Red7 engine: ``num_envs`` games in Numba kernels, bit-exact with ``red7_v0``.

The readable reference is :mod:`cardgames_env.envs.red7.rules` (with :mod:`.scoring` and
:mod:`.encoding`); the kernels here restate the turn and the masks on card bitmasks and the
differential test (``tests/red7/test_red7_kernel.py``) holds the two together. The seven
rules' evaluation is not restated: the kernels call the compiled functions of
:mod:`.scoring` (``strength``, ``all_strengths``, ``qualifying``, ``points_of``) that the rules
engine calls. Quoted section
names cite the rules page ``docs/rules/red7.md``, labels A1-A7 the decisions listed in the rules
module.

Slot layout: one ``int64`` row per slot (:data:`ROW` fields, see the ``F_*`` offsets): the
state scalars, then each seat's hand, palette, known hand cards, unseen out-of-round cards and
score, then the deck as a stack (bottom first, so the top card is ``deck[deck_len - 1]``),
then a little work space of the mask search (888 bytes a slot in all).

Semantics of the batched API for Red7:

* no dead steps: a seat eliminated on a step (it gave up, or ended its turn not winning)
  gets its -1 in that step's ``rewards`` (as the AEC env pays it on the eliminating step)
  and is skipped afterwards; ``player[i]`` is always a seat with a decision;
* the phases of a turn under ``action_rule`` (a 1's take, a 5's extra card, a 7's card, the
  canvas discard after an effect) are separate decisions of the same seat, as in the AEC env;
* advanced game: a round that ends deals the next round inside the step from the slot's own
  random stream; rewards are paid only when the game ends.

For searches the engine also re-deals the cards hidden from a seat in compiled code
(``redeal_hidden``, the rules' ``resample_hidden``) and plays games out in one call by a
player whose choice is a fixed order of the actions (``play_out``, for a player with a
``fixed_order``, such as the heuristic under the strict rules: the turn of the step kernel
with :func:`cardgames_env.core.masks.first_in_order` on the mask the step would write).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from cardgames_env.core.bits import append_bits, bit_count, bit_length, lowest_bit
from cardgames_env.core.engine import BatchedEngine
from cardgames_env.core.kernel_rng import shuffle
from cardgames_env.core.masks import first_in_order
from cardgames_env.core.threads import aligned_zeros, borrow
from cardgames_env.envs.red7 import rules
from cardgames_env.envs.red7.cards import COLOUR_MASKS, NUM_CARDS
from cardgames_env.envs.red7.encoding import (
    CANVAS0,
    DECK0,
    DISCARD0,
    END_TURN,
    GIVE_UP,
    PAIR0,
    PLAY0,
    TAKE0,
)
from cardgames_env.envs.red7.env import Red7Env
from cardgames_env.envs.red7.rules import (
    CANVAS,
    DONE,
    EXTRA,
    GAME_OVER,
    MAIN,
    PLAYING,
    ROUND_OVER,
    SEVEN,
    TAKE,
)
from cardgames_env.envs.red7.scoring import all_strengths, points_of, qualifying, strength

# -- slot row layout -------------------------------------------------------------------------
F_ACTIVE, F_PLAYER, F_RULE, F_CANVAS, F_PHASE, F_EFFECT, F_KNOWN_TOP = 0, 1, 2, 3, 4, 5, 6
F_OUT_PUBLIC, F_SCORED, F_ROUND, F_STATUS, F_WINNER, F_GAME_WINNER, F_DECK_LEN = 7, 8, 9, 10, 11, 12, 13
F_HANDS, F_PALETTES, F_KNOWN, F_OUT_HIDDEN, F_SCORES = 14, 18, 22, 26, 30
F_DECK = 34
F_SCRATCH = F_DECK + NUM_CARDS
"""Work space of the mask kernels (per slot, so threads never share it): opponents'
thresholds, the mover's strengths, thresholds after a 1's take, one palette's strengths."""
S_THR, S_BASE, S_TAKE, S_TMP = F_SCRATCH, F_SCRATCH + 7, F_SCRATCH + 14, F_SCRATCH + 21
ROW = F_SCRATCH + 28
"""Fields per slot: 14 scalars, 5 per-seat blocks of 4, the 49-card deck stack, 28 of scratch."""

# -- configuration vector passed to the kernels ---------------------------------------------
C_N, C_STRICT, C_ADVANCED, C_ACTION, C_SEVEN_DECK, C_TARGET, C_MAX_STEPS = 0, 1, 2, 3, 4, 5, 6
CFG_SIZE = 7

# -- observation offsets (from the encoding's layout) ----------------------------------------
(O_HAND, O_PALETTES, O_CANVAS, O_KNOWN, O_DECK_KNOWN, O_OUT, O_SCORED, O_EFFECT, O_RULE, O_ACTIVE,
 O_WINNING, O_MOVE, O_PHASE, O_SIZES, O_DECK_SIZE, O_SCORES) = range(16)
_PIECES = (
    "hand", "palettes", "canvas", "known_hands", "deck_known", "out", "scored", "effect_card", "rule",
    "active", "winning", "to_move", "phase", "hand_sizes", "deck_size", "scores",
)

# -- card tables (cards.py, scoring.py) ------------------------------------------------------
_COLOUR_LOW = COLOUR_MASKS[6]  # the Violet cards: bits 0, 7, .., 42 (a colour group shifted down)
_MAX_FIVES = 64
"""Stack depth of the 5-chain search (at most 7 fives, each pushed once per subset)."""


# -- rule evaluation (the compiled rules of scoring.py: strength, all_strengths, qualifying, points_of)
@njit(cache=True)
def _strength_plus(rule: int, palette: int, card: int, base: int) -> int:
    """``strength(rule, palette | card)`` for a card outside the palette, whose own
    strength under ``rule`` is ``base``: only the card's number or colour group changes."""
    after = palette | 1 << card
    if rule == 0:
        return 63 + bit_length(after)
    if rule == 1:
        shift = 7 * (card // 7)
        group = after >> shift & 0x7F
        value = bit_count(group) * 64 + shift + bit_length(group) - 1
        return value if value > base else base
    if rule == 2:
        shift = card % 7
        group = after >> shift & _COLOUR_LOW
        value = bit_count(group) * 64 + bit_length(group) - 1 + shift
        return value if value > base else base
    return strength(rule, after)


@njit(cache=True)
def _winning_seat(row: np.ndarray, n: int) -> int:
    """``rules.winning_seat``: the strongest active palette under the rule, or -1."""
    rule = row[F_RULE]
    active = row[F_ACTIVE]
    best = 0
    seat = -1
    for s in range(n):
        if active >> s & 1:
            value = strength(rule, row[F_PALETTES + s])
            if value > best:
                best = value
                seat = s
    return seat


@njit(cache=True)
def _is_winning(row: np.ndarray, n: int, p: int) -> bool:
    """``rules.is_winning``: seat ``p`` is strictly the strongest under the rule."""
    rule = row[F_RULE]
    mine = strength(rule, row[F_PALETTES + p])
    if mine == 0:
        return False
    active = row[F_ACTIVE]
    for s in range(n):
        if s != p and active >> s & 1 and strength(rule, row[F_PALETTES + s]) >= mine:
            return False
    return True


@njit(cache=True)
def _thresholds(row: np.ndarray, n: int, p: int, removed: int, at: int) -> None:
    """``rules.opponent_thresholds`` into ``row[at:at + 7]``: per rule, the best strength among
    the other active seats (their palettes without the cards of ``removed``)."""
    active = row[F_ACTIVE]
    for r in range(7):
        row[at + r] = 0
    for s in range(n):
        if s != p and active >> s & 1:
            all_strengths(row[F_PALETTES + s] & ~removed, row, S_TMP)
            for r in range(7):
                if row[S_TMP + r] > row[at + r]:
                    row[at + r] = row[S_TMP + r]


# -- turn mechanics (rules.py) ---------------------------------------------------------------
@njit(cache=True)
def _draw(row: np.ndarray, seat: int) -> None:
    """``rules._draw``: the top card to ``seat``'s hand (known to all if an effect put it there)."""
    length = row[F_DECK_LEN]
    if length == 0:
        return
    card = row[F_DECK + length - 1]
    row[F_DECK_LEN] = length - 1
    row[F_HANDS + seat] |= 1 << card
    if row[F_KNOWN_TOP]:
        row[F_KNOWN + seat] |= 1 << card
        row[F_KNOWN_TOP] -= 1


@njit(cache=True)
def _push_deck(row: np.ndarray, card: int) -> None:
    """Put ``card`` face down on top of the deck, known to everybody (a 1's take, a 7 to the deck)."""
    length = row[F_DECK_LEN]
    row[F_DECK + length] = card
    row[F_DECK_LEN] = length + 1
    row[F_KNOWN_TOP] += 1


@njit(cache=True)
def _to_canvas(row: np.ndarray, advanced: bool, p: int, card: int) -> None:
    """``rules._to_canvas``: ``card`` becomes the rule; advanced draw rule (4.1); the actions end."""
    if advanced and row[F_DECK_LEN] and card // 7 + 1 > bit_count(row[F_PALETTES + p]):
        _draw(row, p)
    row[F_CANVAS] |= 1 << card
    row[F_RULE] = 6 - card % 7
    row[F_PHASE] = DONE
    row[F_EFFECT] = -1


@njit(cache=True)
def _take_targets(row: np.ndarray, n: int, p: int, mine: int) -> int:
    """``rules._take_targets``: palette cards of active opponents with at least ``mine`` cards."""
    targets = 0
    active = row[F_ACTIVE]
    for s in range(n):
        palette = row[F_PALETTES + s]
        if s != p and active >> s & 1 and palette and bit_count(palette) >= mine:
            targets |= palette
    return targets


@njit(cache=True)
def _after_palette_play(row: np.ndarray, cfg: np.ndarray, p: int, card: int, in_main: bool) -> None:
    """``rules._after_palette_play``: the phase after ``card`` went to the palette (4.2 effects)."""
    number = card // 7 + 1
    if not cfg[C_ACTION] or number % 2 == 0:
        row[F_PHASE] = DONE if in_main else CANVAS
        row[F_EFFECT] = -1
    elif number == 1:
        if _take_targets(row, cfg[C_N], p, bit_count(row[F_PALETTES + p])):
            row[F_PHASE] = TAKE
            row[F_EFFECT] = card
        else:
            row[F_PHASE] = CANVAS
            row[F_EFFECT] = -1
    elif number == 3:
        _draw(row, p)
        row[F_PHASE] = CANVAS
        row[F_EFFECT] = -1
    elif number == 5:
        row[F_PHASE] = EXTRA if row[F_HANDS + p] else CANVAS
        row[F_EFFECT] = card
    elif row[F_PALETTES + p] & ~(1 << card):  # a 7 with other palette cards (A7)
        row[F_PHASE] = SEVEN
        row[F_EFFECT] = card
    else:
        row[F_PHASE] = CANVAS
        row[F_EFFECT] = -1


@njit(cache=True)
def _eliminate(row: np.ndarray, seat: int) -> None:
    """``rules._eliminate`` (seed 3.2-3.3): the seat leaves the round with all its cards."""
    hand = row[F_HANDS + seat]
    known = row[F_KNOWN + seat]
    row[F_ACTIVE] &= ~(1 << seat)
    row[F_OUT_PUBLIC] |= row[F_PALETTES + seat] | known
    row[F_OUT_HIDDEN + seat] |= hand & ~known
    row[F_HANDS + seat] = 0
    row[F_PALETTES + seat] = 0
    row[F_KNOWN + seat] = 0


@njit(cache=True)
def _finish_round(row: np.ndarray, cfg: np.ndarray, winner: int) -> None:
    """``rules._finish_round`` (seed 3.5, "The advanced game"): the last player standing wins the round."""
    n = cfg[C_N]
    row[F_WINNER] = winner
    row[F_PHASE] = MAIN
    if not cfg[C_ADVANCED]:
        row[F_STATUS] = GAME_OVER
        row[F_GAME_WINNER] = winner
        return
    rule = row[F_RULE]
    palette = row[F_PALETTES + winner]
    row[F_SCORES + winner] += points_of(rule, palette)
    row[F_SCORED] |= qualifying(rule, palette)
    if row[F_SCORES + winner] >= cfg[C_TARGET]:
        row[F_STATUS] = GAME_OVER
        row[F_GAME_WINNER] = winner
    elif NUM_CARDS - bit_count(row[F_SCORED]) < 8 * n:
        # Decision ("The advanced game"): not enough cards for a new deal: the highest score wins.
        best = -1
        leader = -1
        tied = False
        for s in range(n):
            value = row[F_SCORES + s]
            if value > best:
                best = value
                leader = s
                tied = False
            elif value == best:
                tied = True
        row[F_STATUS] = GAME_OVER
        row[F_GAME_WINNER] = -1 if tied else leader
    else:
        row[F_STATUS] = ROUND_OVER


@njit(cache=True)
def _next_turn(row: np.ndarray, cfg: np.ndarray) -> None:
    """``rules._next_turn``: the next active seat moves, or the round ends with one seat left."""
    active = row[F_ACTIVE]
    if active & (active - 1) == 0:
        _finish_round(row, cfg, bit_length(active) - 1)
        return
    n = cfg[C_N]
    seat = row[F_PLAYER]
    for _ in range(n):
        seat = seat + 1 if seat + 1 < n else 0
        if active >> seat & 1:
            break
    row[F_PLAYER] = seat
    row[F_PHASE] = MAIN
    row[F_EFFECT] = -1


@njit(cache=True)
def _apply(row: np.ndarray, cfg: np.ndarray, action: int) -> None:
    """``rules.apply_legal_move`` of a legal action (encoding's action table) to the mover."""
    n = cfg[C_N]
    p = row[F_PLAYER]
    if action == GIVE_UP:  # "A turn": leave the round
        _eliminate(row, p)
        _next_turn(row, cfg)
        return
    advanced = cfg[C_ADVANCED] != 0
    if action < DISCARD0:  # play (also a 5's extra card)
        card = action - PLAY0
        bit = 1 << card
        in_main = row[F_PHASE] == MAIN
        row[F_HANDS + p] &= ~bit
        row[F_PALETTES + p] |= bit
        row[F_KNOWN + p] &= ~bit
        _after_palette_play(row, cfg, p, card, in_main)
    elif action < PAIR0:  # discard to the canvas (also after an effect)
        card = action - DISCARD0
        bit = 1 << card
        row[F_HANDS + p] &= ~bit
        row[F_KNOWN + p] &= ~bit
        _to_canvas(row, advanced, p, card)
    elif action < GIVE_UP:  # play, then discard
        k = action - PAIR0
        play = k // 48
        discard = k % 48
        if discard >= play:
            discard += 1
        bits = (1 << play) | (1 << discard)
        row[F_HANDS + p] &= ~bits
        row[F_KNOWN + p] &= ~bits
        row[F_PALETTES + p] |= 1 << play
        _to_canvas(row, advanced, p, discard)
    elif action < CANVAS0:  # a 1: an opponent's palette card to the top of the deck
        card = action - TAKE0
        bit = 1 << card
        for s in range(n):
            if row[F_PALETTES + s] & bit:
                row[F_PALETTES + s] &= ~bit
                break
        _push_deck(row, card)
        row[F_PHASE] = CANVAS
        row[F_EFFECT] = -1
    elif action < DECK0:  # a 7: another own palette card to the canvas
        card = action - CANVAS0
        row[F_PALETTES + p] &= ~(1 << card)
        _to_canvas(row, advanced, p, card)
    elif action < END_TURN:  # a 7 with seven_to_deck: another own palette card to the deck
        card = action - DECK0
        row[F_PALETTES + p] &= ~(1 << card)
        _push_deck(row, card)
        row[F_PHASE] = CANVAS
        row[F_EFFECT] = -1
    else:  # end turn
        row[F_PHASE] = DONE
        row[F_EFFECT] = -1
    if row[F_PHASE] == DONE:  # rules._end_turn: a player not winning is out
        if not _is_winning(row, n, p):
            _eliminate(row, p)
        _next_turn(row, cfg)


@njit(cache=True)
def _seat_return(row: np.ndarray, cfg: np.ndarray, seat: int) -> float:
    """``rules.returns`` of ``seat``: -1 once out (one round) or lost, +1 for the winner at the end."""
    finished = row[F_STATUS] == GAME_OVER
    if cfg[C_ADVANCED]:
        if not finished:
            return 0.0
        winner = row[F_GAME_WINNER]
        if winner >= 0:
            return 1.0 if seat == winner else -1.0
        best = 0
        for s in range(cfg[C_N]):
            best = max(best, row[F_SCORES + s])
        return 0.0 if row[F_SCORES + seat] == best else -1.0  # tied leaders at a stop for lack of cards
    if finished:
        return 1.0 if seat == row[F_GAME_WINNER] else -1.0
    return 0.0 if row[F_ACTIVE] >> seat & 1 else -1.0


@njit(cache=True)
def _deal_round(row: np.ndarray, cfg: np.ndarray, rng_state: np.ndarray, i: int) -> None:
    """``rules.sample_deal`` + ``rules._start_round``: 7 cards to each hand, 1 to each palette,
    the rest to the deck (unscored cards only); the player after the Red leader starts."""
    n = cfg[C_N]
    scored = row[F_SCORED]
    length = 0
    for card in range(NUM_CARDS):
        if not scored >> card & 1:
            row[F_DECK + length] = card
            length += 1
    deck = row[F_DECK : F_DECK + NUM_CARDS]
    shuffle(rng_state, i, deck, length)
    leader = 0
    top = -1
    for s in range(n):
        hand = 0
        for _ in range(7):
            length -= 1
            hand |= 1 << deck[length]
        length -= 1
        card = deck[length]
        row[F_HANDS + s] = hand
        row[F_PALETTES + s] = 1 << card
        row[F_KNOWN + s] = 0
        row[F_OUT_HIDDEN + s] = 0
        if card > top:  # "Setting up": the Red leader holds the highest palette card
            top = card
            leader = s
    row[F_DECK_LEN] = length
    row[F_ACTIVE] = (1 << n) - 1
    row[F_PLAYER] = leader + 1 if leader + 1 < n else 0
    row[F_RULE] = 0
    row[F_CANVAS] = 0
    row[F_PHASE] = MAIN
    row[F_EFFECT] = -1
    row[F_KNOWN_TOP] = 0
    row[F_OUT_PUBLIC] = 0
    row[F_STATUS] = PLAYING
    row[F_GAME_WINNER] = -1


@njit(cache=True)
def _new_game(row: np.ndarray, cfg: np.ndarray, rng_state: np.ndarray, i: int) -> None:
    """``rules.new_game`` of a fresh deal: round 1, no scores."""
    for s in range(4):
        row[F_SCORES + s] = 0
        row[F_HANDS + s] = 0
        row[F_PALETTES + s] = 0
        row[F_KNOWN + s] = 0
        row[F_OUT_HIDDEN + s] = 0
    row[F_SCORED] = 0
    row[F_ROUND] = 1
    row[F_WINNER] = -1
    _deal_round(row, cfg, rng_state, i)


# -- legality (rules.legal_moves, encoding.main_mask_actions) --------------------------------
@njit(cache=True)
def _canvas_succeeds(hand: int, palette: int, rule: int, thr: np.ndarray) -> bool:
    """Phase CANVAS can end winning: end the turn under ``rule``, or discard a hand card."""
    if strength(rule, palette) > thr[rule]:
        return True
    m = hand | hand >> 7
    m |= m >> 14
    m |= m >> 28
    m &= 0x7F  # in-group positions (6 - colour) of the hand's colours
    while m:
        colour = 6 - lowest_bit(m)
        m &= m - 1
        if strength(colour, palette) > thr[colour]:
            return True
    return False


@njit(cache=True)
def _take_succeeds(row: np.ndarray, n: int, p: int, hand: int, palette: int, rule: int, card: int) -> bool:
    """A 1's take of ``card`` can end winning: the owner's palette loses it, then phase CANVAS."""
    _thresholds(row, n, p, 1 << card, S_TAKE)
    return _canvas_succeeds(hand, palette, rule, row[S_TAKE : S_TAKE + 7])


@njit(cache=True)
def _seven_succeeds(
    hand: int, palette: int, rule: int, card: int, seven_to_deck: bool, thr: np.ndarray
) -> bool:
    """A 7's choice can end winning: another palette card to the canvas (or the deck, then CANVAS)."""
    others = palette & ~(1 << card)
    while others:
        c = lowest_bit(others)
        others &= others - 1
        rest = palette & ~(1 << c)
        colour = 6 - c % 7
        if strength(colour, rest) > thr[colour]:
            return True
        if seven_to_deck and _canvas_succeeds(hand, rest, rule, thr):
            return True
    return False


@njit(cache=True)
def _effect_succeeds(
    row: np.ndarray, cfg: np.ndarray, p: int, hand: int, palette: int, card: int, in_main: bool,
    thr: np.ndarray,
) -> bool:
    """A6 after ``card`` (not a 5) went to the palette (``hand``/``palette`` already updated):
    some completion of the turn leaves the mover winning; a 3 always counts."""
    rule = row[F_RULE]
    number = card // 7 + 1
    if number % 2 == 0:
        if in_main:
            return strength(rule, palette) > thr[rule]
        return _canvas_succeeds(hand, palette, rule, thr)
    if number == 3:
        return True
    if number == 1:
        targets = _take_targets(row, cfg[C_N], p, bit_count(palette))
        if not targets:
            return _canvas_succeeds(hand, palette, rule, thr)
        while targets:
            target = lowest_bit(targets)
            targets &= targets - 1
            if _take_succeeds(row, cfg[C_N], p, hand, palette, rule, target):
                return True
        return False
    # a 7: another palette card to the canvas (or the deck) if there is one (A7), else CANVAS
    if palette & ~(1 << card):
        return _seven_succeeds(hand, palette, rule, card, cfg[C_SEVEN_DECK] != 0, thr)
    return _canvas_succeeds(hand, palette, rule, thr)


@njit(cache=True)
def _extra_succeeds(
    row: np.ndarray, cfg: np.ndarray, p: int, hand: int, palette: int, thr: np.ndarray
) -> bool:
    """Phase EXTRA (a 5's extra card) can end winning. Chains of 5s are searched with a stack
    over the sets of 5s played (their order does not matter), each set once; no recursion
    (Numba's on-disk cache does not hold recursive functions)."""
    hands = np.empty(_MAX_FIVES, dtype=np.int64)
    palettes = np.empty(_MAX_FIVES, dtype=np.int64)
    floors = np.empty(_MAX_FIVES, dtype=np.int64)
    hands[0] = hand
    palettes[0] = palette
    floors[0] = -1
    depth = 1
    rule = row[F_RULE]
    while depth:
        depth -= 1
        h = hands[depth]
        pal = palettes[depth]
        floor = floors[depth]
        rest = h
        while rest:
            c = lowest_bit(rest)
            rest &= rest - 1
            number = c // 7 + 1
            if number == 3:
                return True
            bit = 1 << c
            if number == 5:
                if c > floor:  # each set of 5s once: in increasing card order
                    if h & ~bit:
                        hands[depth] = h & ~bit
                        palettes[depth] = pal | bit
                        floors[depth] = c
                        depth += 1
                    elif _canvas_succeeds(0, pal | bit, rule, thr):
                        return True
            elif _effect_succeeds(row, cfg, p, h & ~bit, pal | bit, c, False, thr):
                return True
    return False


@njit(cache=True)
def _played_succeeds(
    row: np.ndarray, cfg: np.ndarray, p: int, hand: int, palette: int, card: int, in_main: bool,
    thr: np.ndarray,
) -> bool:
    """A6 after ``card`` went to the palette: :func:`_effect_succeeds`, or for a 5 the phase
    EXTRA (another card from the hand) while the hand has cards, else CANVAS."""
    if card // 7 != 4:
        return _effect_succeeds(row, cfg, p, hand, palette, card, in_main, thr)
    if not hand:
        return _canvas_succeeds(hand, palette, row[F_RULE], thr)
    return _extra_succeeds(row, cfg, p, hand, palette, thr)


@njit(cache=True)
def _mask_rulebook(
    row: np.ndarray, cfg: np.ndarray, out: np.ndarray, p: int, phase: int, hand: int, palette: int
) -> None:
    """The rulebook's options (``strict=False``, ``rules._candidates``): every play, discard
    and pair the phase allows, whether it wins or not."""
    action_rule = cfg[C_ACTION] != 0
    if phase == MAIN or phase == EXTRA:
        rest = hand
        while rest:
            c = lowest_bit(rest)
            rest &= rest - 1
            out[PLAY0 + c] = True
    if phase == MAIN or phase == CANVAS:
        rest = hand
        while rest:
            c = lowest_bit(rest)
            rest &= rest - 1
            out[DISCARD0 + c] = True
    if phase == MAIN:
        rest = hand
        while rest:
            c = lowest_bit(rest)
            rest &= rest - 1
            if action_rule and (c // 7) % 2 == 0:
                continue  # an odd card's effect comes first ("The action rule")
            others = hand & ~(1 << c)
            while others:
                d = lowest_bit(others)
                others &= others - 1
                out[PAIR0 + 48 * c + (d if d < c else d - 1)] = True
    elif phase == TAKE:
        targets = _take_targets(row, cfg[C_N], p, bit_count(palette))
        while targets:
            c = lowest_bit(targets)
            targets &= targets - 1
            out[TAKE0 + c] = True
    elif phase == SEVEN:
        others = palette & ~(1 << row[F_EFFECT])
        while others:
            c = lowest_bit(others)
            others &= others - 1
            out[CANVAS0 + c] = True
            if cfg[C_SEVEN_DECK]:
                out[DECK0 + c] = True
    elif phase == CANVAS:
        out[END_TURN] = True


@njit(cache=True)
def _mask_main(
    row: np.ndarray, cfg: np.ndarray, out: np.ndarray, p: int, hand: int, palette: int, rule: int,
    thr: np.ndarray,
) -> None:
    """A turn's first decision under ``strict``: the plays, discards and pairs after which the
    mover's palette beats every opponent's threshold ``thr`` (per rule)."""
    action_rule = cfg[C_ACTION] != 0
    all_strengths(palette, row, S_BASE)
    base = row[S_BASE : S_BASE + 7]
    # Discard d: the palette wins under d's colour.
    rest = hand
    while rest:
        d = lowest_bit(rest)
        rest &= rest - 1
        colour = 6 - d % 7
        if base[colour] > thr[colour]:
            out[DISCARD0 + d] = True
    m = hand | hand >> 7
    m |= m >> 14
    m |= m >> 28
    m &= 0x7F  # in-group positions of the hand's colours
    rest = hand
    while rest:
        c = lowest_bit(rest)
        rest &= rest - 1
        bit = 1 << c
        after = palette | bit
        odd = (c // 7) % 2 == 0
        # Play c: wins under the rule (action rule: some completion of the turn does, a 3 always).
        if action_rule and odd:
            if _played_succeeds(row, cfg, p, hand & ~bit, after, c, True, thr):
                out[PLAY0 + c] = True
            continue  # no play-then-discard of an odd card under the action rule
        if _strength_plus(rule, palette, c, base[rule]) > thr[rule]:
            out[PLAY0 + c] = True
        # Play c, then discard d: c's addition wins under d's colour.
        colours = m
        pairs = PAIR0 + 48 * c
        while colours:
            shift = lowest_bit(colours)
            colours &= colours - 1
            colour = 6 - shift
            if _strength_plus(colour, palette, c, base[colour]) > thr[colour]:
                group = hand & (_COLOUR_LOW << shift) & ~bit
                while group:
                    d = lowest_bit(group)
                    group &= group - 1
                    out[pairs + (d if d < c else d - 1)] = True


@njit(cache=True)
def _mask_later_phase(
    row: np.ndarray, cfg: np.ndarray, out: np.ndarray, p: int, phase: int, hand: int, palette: int,
    rule: int, thr: np.ndarray,
) -> None:
    """The action rule's later phases under ``strict`` (A6: a choice is legal iff some
    completion of the turn wins): a 5's extra card, a 1's take, a 7's card, the canvas discard."""
    if phase == EXTRA:
        rest = hand
        while rest:
            c = lowest_bit(rest)
            rest &= rest - 1
            bit = 1 << c
            if c // 7 == 2 or _played_succeeds(row, cfg, p, hand & ~bit, palette | bit, c, False, thr):
                out[PLAY0 + c] = True
    elif phase == TAKE:
        targets = _take_targets(row, cfg[C_N], p, bit_count(palette))
        while targets:
            c = lowest_bit(targets)
            targets &= targets - 1
            if _take_succeeds(row, cfg[C_N], p, hand, palette, rule, c):
                out[TAKE0 + c] = True
    elif phase == SEVEN:
        others = palette & ~(1 << row[F_EFFECT])
        while others:
            c = lowest_bit(others)
            others &= others - 1
            rest_palette = palette & ~(1 << c)
            colour = 6 - c % 7
            if strength(colour, rest_palette) > thr[colour]:
                out[CANVAS0 + c] = True
            if cfg[C_SEVEN_DECK] and _canvas_succeeds(hand, rest_palette, rule, thr):
                out[DECK0 + c] = True
    elif phase == CANVAS:
        rest = hand
        while rest:
            d = lowest_bit(rest)
            rest &= rest - 1
            colour = 6 - d % 7
            if strength(colour, palette) > thr[colour]:
                out[DISCARD0 + d] = True
        if strength(rule, palette) > thr[rule]:
            out[END_TURN] = True


@njit(cache=True)
def _write_mask(row: np.ndarray, cfg: np.ndarray, out: np.ndarray) -> None:
    """``encoding.legal_action_mask``: the mask of ``rules.legal_moves`` of the mover."""
    out[:] = False
    out[GIVE_UP] = True  # giving up is always legal
    p = row[F_PLAYER]
    phase = row[F_PHASE]
    hand = row[F_HANDS + p]
    if phase == MAIN and hand == 0:
        return  # "A turn": no cards, only giving up
    palette = row[F_PALETTES + p]
    if not cfg[C_STRICT]:
        _mask_rulebook(row, cfg, out, p, phase, hand, palette)
        return
    _thresholds(row, cfg[C_N], p, 0, S_THR)
    thr = row[S_THR : S_THR + 7]
    if phase == MAIN:
        _mask_main(row, cfg, out, p, hand, palette, row[F_RULE], thr)
    else:
        _mask_later_phase(row, cfg, out, p, phase, hand, palette, row[F_RULE], thr)


# -- observation (encoding.observe) ----------------------------------------------------------
_BYTE_BITS = np.array([[b >> k & 1 for k in range(8)] for b in range(256)], dtype=np.float32)
"""``_BYTE_BITS[b]``: the 8 bits of byte ``b`` as 0/1 floats (lowest bit first)."""


@njit(cache=True)
def _put_bits(out: np.ndarray, offset: int, bits: int) -> None:
    """Write the 49 card bits of ``bits`` as 0/1 floats at ``out[offset:offset + 49]``."""
    for j in range(6):
        byte = bits >> (8 * j) & 0xFF
        for k in range(8):
            out[offset + 8 * j + k] = _BYTE_BITS[byte, k]
    out[offset + 48] = bits >> 48 & 1


@njit(cache=True)
def _write_obs(row: np.ndarray, cfg: np.ndarray, offs: np.ndarray, out: np.ndarray, p: int) -> None:
    """``encoding.observe`` of seat ``p``: seat-rotated pieces (relative seat 0 = ``p``); a
    finished game (status not ``PLAYING``) shows no mover, phase or effect card."""
    n = cfg[C_N]
    playing = row[F_STATUS] == PLAYING
    mover = row[F_PLAYER] if playing else -1
    _put_bits(out, offs[O_HAND], row[F_HANDS + p])
    for r in range(n):
        seat = p + r if p + r < n else p + r - n
        _put_bits(out, offs[O_PALETTES] + 49 * r, row[F_PALETTES + seat])
        _put_bits(out, offs[O_KNOWN] + 49 * r, row[F_KNOWN + seat])
    _put_bits(out, offs[O_CANVAS], row[F_CANVAS])
    length = row[F_DECK_LEN]
    known = 0
    for k in range(row[F_KNOWN_TOP]):  # the known cards on top of the deck
        known |= 1 << row[F_DECK + length - 1 - k]
    _put_bits(out, offs[O_DECK_KNOWN], known)
    _put_bits(out, offs[O_OUT], row[F_OUT_PUBLIC])
    _put_bits(out, offs[O_SCORED], row[F_SCORED])
    effect = row[F_EFFECT] if playing else -1
    _put_bits(out, offs[O_EFFECT], (1 << effect) if effect >= 0 else 0)
    for r in range(7):
        out[offs[O_RULE] + r] = 0.0
    out[offs[O_RULE] + row[F_RULE]] = 1.0
    winner = _winning_seat(row, n)
    active = row[F_ACTIVE]
    for r in range(n):
        seat = p + r if p + r < n else p + r - n
        out[offs[O_ACTIVE] + r] = (active >> seat) & 1
        out[offs[O_WINNING] + r] = 1.0 if seat == winner else 0.0
        out[offs[O_MOVE] + r] = 1.0 if seat == mover else 0.0
        # Fractions in float64, then float32, as the encoding builds them.
        out[offs[O_SIZES] + r] = np.float32(bit_count(row[F_HANDS + seat]) / 7.0)
        if cfg[C_ADVANCED]:
            out[offs[O_SCORES] + r] = np.float32(row[F_SCORES + seat] / cfg[C_TARGET])
        else:
            out[offs[O_SCORES] + r] = 0.0
    for k in range(5):
        out[offs[O_PHASE] + k] = 0.0
    if playing:
        out[offs[O_PHASE] + row[F_PHASE]] = 1.0
    out[offs[O_DECK_SIZE]] = np.float32(length / 49.0)


@njit(cache=True)
def _write_outputs(
    S: np.ndarray, i: int, cfg: np.ndarray, offs: np.ndarray, obs: np.ndarray, mask: np.ndarray,
    player: np.ndarray,
) -> None:
    """Write slot ``i``'s observation, mask and mover."""
    row = S[i]
    player[i] = row[F_PLAYER]
    _write_obs(row, cfg, offs, obs[i], row[F_PLAYER])
    _write_mask(row, cfg, mask[i])


@njit(cache=True)
def _write_final_obs(
    final: np.ndarray, slots: np.ndarray, seats: np.ndarray, cfg: np.ndarray, offs: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[k]``: seat ``seats[k]``'s observation of the finished game in ``final[slots[k]]``."""
    for k in range(slots.shape[0]):
        _write_obs(final[slots[k]], cfg, offs, out[k], seats[k])


# -- batched drivers -------------------------------------------------------------------------
DEAL = -2
"""Action that makes the step kernel deal a fresh game into a slot (``reset``)."""


@njit(cache=True)
def _step_slot(
    S: np.ndarray, final: np.ndarray, i: int, action: int, cfg: np.ndarray, offs: np.ndarray, obs: np.ndarray,
    mask: np.ndarray, player: np.ndarray, rewards: np.ndarray, done: np.ndarray, truncated: np.ndarray,
    steps: np.ndarray, rng_state: np.ndarray,
) -> None:
    """One decision in slot ``i``: apply, deal a due round, pay rewards, restart a finished game.
    ``action`` :data:`DEAL` (-2): deal a fresh game instead (``reset``); ``engine.STAY`` (-1): the
    slot sits the step out, with zero rewards and its outputs unchanged."""
    n = cfg[C_N]
    row = S[i]
    if action == DEAL:
        _new_game(row, cfg, rng_state, i)
        _write_outputs(S, i, cfg, offs, obs, mask, player)
        return
    if action < 0:
        for s in range(n):
            rewards[i, s] = 0.0
        done[i] = False
        truncated[i] = False
        return
    for s in range(n):  # the returns before the move (small integers: exact in float32)
        rewards[i, s] = _seat_return(row, cfg, s)
    _apply(row, cfg, action)
    steps[i] += 1
    if row[F_STATUS] == ROUND_OVER:  # advanced game: the next round, dealt from the slot's stream
        row[F_ROUND] += 1
        _deal_round(row, cfg, rng_state, i)
    for s in range(n):  # the change of the returns, as the AEC env computes it
        rewards[i, s] = np.float32(_seat_return(row, cfg, s) - rewards[i, s])
    terminal = row[F_STATUS] == GAME_OVER
    cut = not terminal and steps[i] >= cfg[C_MAX_STEPS]
    done[i] = terminal or cut
    truncated[i] = cut
    if terminal or cut:
        final[i, :] = row  # the finished game, for ``final_state``
        _new_game(row, cfg, rng_state, i)
        steps[i] = 0
    _write_outputs(S, i, cfg, offs, obs, mask, player)


@njit(cache=True)
def _step_block(
    lo: int, hi: int, actions: np.ndarray, S: np.ndarray, final: np.ndarray, cfg: np.ndarray,
    offs: np.ndarray, obs: np.ndarray, mask: np.ndarray, player: np.ndarray, rewards: np.ndarray,
    done: np.ndarray, truncated: np.ndarray, steps: np.ndarray, rng_state: np.ndarray,
) -> None:
    """Step slots ``lo..hi-1`` in order."""
    for i in range(lo, hi):
        _step_slot(S, final, i, actions[i], cfg, offs, obs, mask, player, rewards, done, truncated, steps,
                   rng_state)


@njit(cache=True)
def _step_one_thread(
    bounds: np.ndarray, actions: np.ndarray, S: np.ndarray, final: np.ndarray, cfg: np.ndarray,
    offs: np.ndarray, obs: np.ndarray, mask: np.ndarray, player: np.ndarray, rewards: np.ndarray,
    done: np.ndarray, truncated: np.ndarray, steps: np.ndarray, rng_state: np.ndarray,
) -> None:
    """Step every slot on the calling thread (the arrays borrowed: no reference counting)."""
    _step_block(
        0, S.shape[0],
        *borrow(actions, S, final, cfg, offs, obs, mask, player, rewards, done, truncated, steps, rng_state),
    )


@njit(cache=True, parallel=True)
def _step_threads(
    bounds: np.ndarray, actions: np.ndarray, S: np.ndarray, final: np.ndarray, cfg: np.ndarray,
    offs: np.ndarray, obs: np.ndarray, mask: np.ndarray, player: np.ndarray, rewards: np.ndarray,
    done: np.ndarray, truncated: np.ndarray, steps: np.ndarray, rng_state: np.ndarray,
) -> None:
    """Step every slot, chunk ``c`` of ``bounds`` on one thread."""
    for c in prange(bounds.shape[0] - 1):
        _step_block(
            bounds[c], bounds[c + 1], actions, S, final, cfg, offs, obs, mask, player, rewards, done,
            truncated, steps, rng_state,
        )


# -- determinizations (BatchedEngine.redeal_hidden) -------------------------------------------
@njit(cache=True)
def _redeal_hidden(
    slots: np.ndarray, seat: int, S: np.ndarray, cfg: np.ndarray, offs: np.ndarray, obs: np.ndarray,
    mask: np.ndarray, player: np.ndarray, rng_state: np.ndarray,
) -> None:
    """``rules.resample_hidden`` in each slot of ``slots`` from its own stream: the cards
    hidden from ``seat`` (the other hands' unknown cards, the other seats' unseen
    out-of-round cards, the deck below its known top) shuffled together and dealt back into
    the same places in the same numbers; then the slot's outputs."""
    n = cfg[C_N]
    pool = np.empty(NUM_CARDS, dtype=np.int64)
    for k in range(slots.shape[0]):
        i = slots[k]
        row = S[i]
        count = 0
        for s in range(n):
            if s == seat:
                continue
            count = append_bits(pool, count, row[F_HANDS + s] & ~row[F_KNOWN + s])
            count = append_bits(pool, count, row[F_OUT_HIDDEN + s])
        below_known = row[F_DECK_LEN] - row[F_KNOWN_TOP]  # the stack's bottom part (top card last)
        for d in range(below_known):
            pool[count] = row[F_DECK + d]
            count += 1
        shuffle(rng_state, i, pool, count)
        pos = 0
        for s in range(n):
            if s == seat:
                continue
            hand = row[F_KNOWN + s]
            for _ in range(bit_count(row[F_HANDS + s] & ~row[F_KNOWN + s])):
                hand |= 1 << pool[pos]
                pos += 1
            row[F_HANDS + s] = hand
            out = 0
            for _ in range(bit_count(row[F_OUT_HIDDEN + s])):
                out |= 1 << pool[pos]
                pos += 1
            row[F_OUT_HIDDEN + s] = out
        for d in range(below_known):
            row[F_DECK + d] = pool[pos]
            pos += 1
        _write_outputs(S, i, cfg, offs, obs, mask, player)


# -- playouts by a fixed order of the actions (BatchedEngine.play_out) ---------------------------
@njit(cache=True)
def _first_legal_in_order(
    row: np.ndarray, cfg: np.ndarray, legal: np.ndarray, words: np.ndarray, order: np.ndarray, fallback: int
) -> int:
    """:func:`~cardgames_env.core.masks.first_in_order` on the mover's mask of ``row``,
    written into ``legal`` (whose bytes ``words`` also views): a seat left with the fallback
    alone (giving up, the last move of most playouts) is found without scanning the order."""
    _write_mask(row, cfg, legal)
    allowed = legal[fallback]
    legal[fallback] = False
    other = 0
    for w in range(words.shape[0]):
        other |= words[w]
    legal[fallback] = allowed
    if other == 0:
        return fallback
    return first_in_order(legal, order, fallback)


@njit(cache=True)
def _play_out_in_order(
    slots: np.ndarray, S: np.ndarray, final: np.ndarray, cfg: np.ndarray, rewards: np.ndarray,
    done: np.ndarray, truncated: np.ndarray, steps: np.ndarray, rng_state: np.ndarray, legal: np.ndarray,
    words: np.ndarray, order: np.ndarray, fallback: int,
) -> None:
    """Play each slot of ``slots`` to the end of its game, every seat playing its first legal
    action in ``order`` (else ``fallback``): the decisions of :func:`_step_slot` with those
    actions, without writing observations or masks and without dealing a new game at the end."""
    n = cfg[C_N]
    start = np.zeros(n)
    for k in range(slots.shape[0]):
        i = slots[k]
        row = S[i]
        for s in range(n):
            start[s] = _seat_return(row, cfg, s)
        cut = False
        while True:
            _apply(row, cfg, _first_legal_in_order(row, cfg, legal, words, order, fallback))
            steps[i] += 1
            if row[F_STATUS] == ROUND_OVER:  # advanced game: the next round, as in a step
                row[F_ROUND] += 1
                _deal_round(row, cfg, rng_state, i)
            if row[F_STATUS] == GAME_OVER:
                break
            if steps[i] >= cfg[C_MAX_STEPS]:
                cut = True
                break
        for s in range(n):  # the sum of the steps' rewards (their changes of small integers)
            rewards[i, s] = np.float32(_seat_return(row, cfg, s) - start[s])
        done[i] = True
        truncated[i] = cut
        final[i, :] = row


class Red7Engine(BatchedEngine):
    """Batched ``red7_v0`` (see the module docstring and
    :class:`~cardgames_env.core.engine.BatchedEngine`)."""

    env_cls = Red7Env

    def _setup(self) -> None:
        config = self.config
        self.slots = aligned_zeros((self.num_envs, ROW), np.int64)
        """Slot state, one row per slot (``F_*`` field offsets)."""
        self.final_slots = aligned_zeros(self.slots.shape, np.int64)
        """Each slot's row as its last finished game ended (``final_state``)."""
        self._cfg = np.array(
            [config.num_players, config.strict, config.advanced, config.action_rule, config.seven_to_deck,
             config.target, self.max_steps],
            dtype=np.int64,
        )
        layout = self.encoding.layout
        self._offs = np.array([layout.slice(name).start for name in _PIECES], dtype=np.int64)
        self._playout_words = np.zeros(-(-self.action_size // 8), dtype=np.uint64)
        """Work space of :meth:`play_out`: one mask, read eight actions at a time."""
        self._playout_mask = self._playout_words.view(np.bool_)[: self.action_size]
        self._use_kernels(_step_one_thread, _step_threads, (
            self.slots, self.final_slots, self._cfg, self._offs, self.obs, self.mask, self.player,
            self.rewards, self.done, self.truncated, self.steps, self.rng_state,
        ))

    def _reset_all(self) -> None:
        # The step kernel deals a fresh game into every slot given action DEAL (one compiled kernel).
        deal = np.full(self.num_envs, DEAL, dtype=np.int64)
        _step_one_thread(self.chunks(), deal, *self._kernel_args)

    def _load(self, i: int, state: rules.State) -> None:
        if state.status != PLAYING or state.phase == DONE:
            raise ValueError("load needs a state with a player to move")
        pad = [0] * (4 - self.num_players)
        deck = state.deck
        # The row in field order (F_* offsets), built as one list: the deck a stack, top card last.
        row = [
            state.active, state.player, state.rule, state.canvas, state.phase, state.effect_card,
            state.known_top, state.out_public, state.scored, state.round_number, state.status, state.winner,
            state.game_winner, len(deck),
            *state.hands, *pad, *state.palettes, *pad, *state.known_hands, *pad, *state.out_hidden, *pad,
            *state.scores, *pad,
            *deck[::-1], *[0] * (ROW - F_DECK - len(deck)),
        ]
        self.slots[i] = row
        self.rewards[i] = 0.0
        self.done[i] = False
        self.truncated[i] = False
        _write_outputs(self.slots, i, self._cfg, self._offs, self.obs, self.mask, self.player)

    def redeal_hidden(self, slots: Any, seat: int) -> bool:
        """Re-deal the cards hidden from ``seat`` in ``slots`` from their own streams (see
        :meth:`BatchedEngine.redeal_hidden`): the other hands' unknown cards, the other
        seats' unseen out-of-round cards and the deck below its known top, as
        ``rules.resample_hidden`` re-deals them."""
        slots = self._redeal_slots(slots, seat)
        _redeal_hidden(
            slots, seat, self.slots, self._cfg, self._offs, self.obs, self.mask, self.player, self.rng_state,
        )
        return True

    def play_out(self, policy: Any, slots: Any) -> bool:
        """Play ``slots`` to the end of their games in one compiled call when ``policy``
        chooses by a fixed order of the actions whose fallback is giving up, always legal (its
        ``fixed_order``: the heuristic under the strict rules; see
        :meth:`BatchedEngine.play_out`); ``False`` for any other policy.

        Raises:
            ValueError: also for a ``fixed_order`` holding an action out of range.
        """
        slots = self._play_out_slots(slots)
        fixed = self._fixed_order(policy)
        if fixed is None or fixed[1] != GIVE_UP:
            return False
        _play_out_in_order(
            slots, self.slots, self.final_slots, self._cfg, self.rewards, self.done, self.truncated,
            self.steps, self.rng_state, self._playout_mask, self._playout_words, *fixed,
        )
        self.mask[slots] = False
        return True

    def _write_final_obs(self, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> bool:
        _write_final_obs(self.final_slots, slots, seats, self._cfg, self._offs, out)
        return True

    def _final_points(self, slots: np.ndarray) -> np.ndarray:
        rows = self.final_slots[slots]
        n = self.num_players
        if self.config.advanced:  # rules.points: the advanced game's scores, else 1 for the winner
            return rows[:, F_SCORES : F_SCORES + n].copy()
        return (np.arange(n) == rows[:, F_GAME_WINNER, None]).astype(np.int64)

    def _get_state(self, i: int) -> rules.State:
        row: list[int] = self.slots[i].tolist()
        n = self.num_players

        def seats(offset: int) -> tuple[int, ...]:
            return tuple(row[offset : offset + n])

        length = row[F_DECK_LEN]
        return rules.State(
            config=self.config,
            hands=seats(F_HANDS),
            palettes=seats(F_PALETTES),
            deck=tuple(row[F_DECK : F_DECK + length][::-1]),
            active=row[F_ACTIVE],
            player=row[F_PLAYER],
            rule=row[F_RULE],
            canvas=row[F_CANVAS],
            phase=row[F_PHASE],
            effect_card=row[F_EFFECT],
            known_top=row[F_KNOWN_TOP],
            known_hands=seats(F_KNOWN),
            out_public=row[F_OUT_PUBLIC],
            out_hidden=seats(F_OUT_HIDDEN),
            scores=seats(F_SCORES),
            scored=row[F_SCORED],
            round_number=row[F_ROUND],
            status=row[F_STATUS],
            winner=row[F_WINNER],
            game_winner=row[F_GAME_WINNER],
        )


__all__ = ["Red7Engine"]
