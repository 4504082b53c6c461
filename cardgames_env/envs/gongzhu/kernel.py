"""Gong Zhu batched engine: ``N`` hands of Gong Zhu stepped by one compiled kernel call.

The kernels restate the rules of :mod:`cardgames_env.envs.gongzhu.rules` (the reference) and
the observation of :mod:`cardgames_env.envs.gongzhu.encoding`
over flat slot arrays; ``tests/gongzhu/test_gongzhu_kernel.py`` holds them to the AEC env
move by move.

Slot state: one ``int64`` row of :data:`STATE_WIDTH` columns per slot (card sets are 52-bit
masks, card id ``suit * 13 + rank`` with suits ♣♦♥♠), see the ``_C_*`` column constants.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from cardgames_env.core.bits import bit_count
from cardgames_env.core.engine import BatchedEngine
from cardgames_env.core.kernel_rng import below, shuffle
from cardgames_env.core.threads import aligned_zeros, borrow
from cardgames_env.envs.gongzhu import rules
from cardgames_env.envs.gongzhu.cards import GOAT, PIG, SPADE_TWO, TRANSFORMER
from cardgames_env.envs.gongzhu.encoding import LAYOUT
from cardgames_env.envs.gongzhu.env import GongZhuEnv

# -- slot state columns (int64) -----------------------------------------------------------------
_C_HANDS = 0  # 4 card masks: each seat's remaining cards
_C_PLAYED = 4  # 4 card masks: cards each seat played this hand
_C_CAPTURED = 8  # 4 card masks: cards each seat took this hand
_C_VOIDS = 12  # 4 suit masks: suits each seat showed void in
_C_POINTS_MASK = 16  # 4 16-bit masks of captured point cards (notation order 23456789TJQKAPGD)
_C_HAND_POINTS = 20  # 4 scores of the captured cards this hand
_C_TOTALS = 24  # 4 totals of completed hands
_C_TRICK = 28  # 4 card ids of the current trick in play order
_C_TRICK_LEN = 32  # cards in the current trick (0..3 at a decision)
_C_LEADER = 33  # seat that led the current trick
_C_HAND_NUMBER = 34  # 1 for the first hand
_C_PIG_TAKER = 35  # seat that took the pig this hand, -1 before
_C_LAST_POINTS = 36  # 4 points of the previous hand (rules.State.last_hand_points)
_C_HAS_LAST = 40  # 1 when last_hand_points is set (0 = None, hand 1)
_C_DECK = 41  # 52 columns of work space: the deck being shuffled by a deal
STATE_WIDTH = 93
"""int64 columns of one slot's state (its last 52 the deal's work space)."""

# -- observation offsets (encoding.LAYOUT; checked below so a layout change fails at import) -----
_O_HAND = 0
_O_TRICK = 52
_O_TRICK_LEADER = 260
_O_LED_SUIT = 264
_O_PLAYED = 268
_O_CAPTURED = 476
_O_VOIDS = 540
_O_SPADE2 = 556
_O_HAND_POINTS = 560
_O_TOTALS = 564
_OBS_SIZE = 568
assert [(p.name, p.offset) for p in LAYOUT.pieces] == [
    ("hand", _O_HAND), ("trick", _O_TRICK), ("trick_leader", _O_TRICK_LEADER),
    ("led_suit", _O_LED_SUIT), ("played", _O_PLAYED), ("captured", _O_CAPTURED),
    ("voids", _O_VOIDS), ("spade2_holder", _O_SPADE2), ("hand_points", _O_HAND_POINTS),
    ("totals", _O_TOTALS),
] and LAYOUT.size == _OBS_SIZE, "the Gong Zhu layout changed: update envs/gongzhu/kernel.py"

_SPADE_TWO = 39
_PIG = 49
_GOAT = 22
_TRANSFORMER = 8
_HEART_TWO = 26
assert (_SPADE_TWO, _PIG, _GOAT, _TRANSFORMER) == (SPADE_TWO, PIG, GOAT, TRANSFORMER)
_SUIT_BITS = (1 << 13) - 1
_ALL_HEARTS = (1 << 13) - 1
# Notation bits 3..14: ♥5..♥A, P, G ("Decisions this implementation takes": decided per card).
_NONZERO_POINTS = 0x7FF8
_HEART_VALUES = np.array([0, 0, 0, -10, -10, -10, -10, -10, -10, -20, -30, -40, -50], dtype=np.int64)


@njit(cache=True, inline="always")
def score_points(point_mask: int) -> int:
    """Score a 16-bit point-card mask (bit i = ``NOTATION[i]``): docs/rules/gongzhu.md, "Scoring a hand"."""
    hearts = point_mask & _ALL_HEARTS
    all_red = hearts == _ALL_HEARTS
    total = 0
    if all_red:  # step 2: all 13 hearts count +200
        total = 200
    else:  # step 1
        for r in range(13):
            if hearts >> r & 1:
                total += _HEART_VALUES[r]
    if point_mask >> 13 & 1:  # step 3: the pig
        total += 100 if (all_red and point_mask >> 14 & 1) else -100
    if point_mask >> 14 & 1:  # step 4: the goat
        total += 100
    if point_mask >> 15 & 1:  # step 5: the transformer doubles, or +50 alone
        total = total * 2 if point_mask & _NONZERO_POINTS else total + 50
    return total


@njit(cache=True, inline="always")
def _point_bit(card: int) -> int:
    """The notation bit of a point card (0 for any other card)."""
    if _HEART_TWO <= card < _HEART_TWO + 13:
        return 1 << (card - _HEART_TWO)
    if card == _PIG:
        return 1 << 13
    if card == _GOAT:
        return 1 << 14
    if card == _TRANSFORMER:
        return 1 << 15
    return 0


@njit(cache=True, inline="always")
def _bits(row: np.ndarray, offset: int, bits: int, width: int) -> None:
    """Write bits ``0..width-1`` of ``bits`` as 0.0/1.0 floats at ``row[offset:]``."""
    for k in range(width):
        row[offset + k] = np.float32((bits >> k) & 1)


@njit(cache=True)
def _write_obs(s: np.ndarray, row: np.ndarray, me: int) -> None:
    """Write seat ``me``'s observation of the slot state ``s`` into ``row`` (encoding.observe)."""
    leader = s[_C_LEADER]
    trick_len = s[_C_TRICK_LEN]
    _bits(row, _O_HAND, s[_C_HANDS + me], 52)
    for r in range(4):
        seat = (me + r) & 3
        _bits(row, _O_PLAYED + 52 * r, s[_C_PLAYED + seat], 52)
        _bits(row, _O_CAPTURED + 16 * r, s[_C_POINTS_MASK + seat], 16)
        _bits(row, _O_VOIDS + 4 * r, s[_C_VOIDS + seat], 4)
    for k in range(_O_TRICK, _O_PLAYED):  # trick, trick_leader, led_suit
        row[k] = 0.0
    if trick_len > 0:
        lead_rel = (leader - me) & 3
        row[_O_TRICK_LEADER + lead_rel] = 1.0
        row[_O_LED_SUIT + s[_C_TRICK] // 13] = 1.0
        for k in range(trick_len):
            row[_O_TRICK + 52 * ((lead_rel + k) & 3) + s[_C_TRICK + k]] = 1.0
    for r in range(4):
        row[_O_SPADE2 + r] = 0.0
    if s[_C_HAND_NUMBER] == 1:  # rules.spade_two_holder: the first leader holds the unplayed ♠2
        for seat in range(4):
            if s[_C_HANDS + seat] >> _SPADE_TWO & 1:
                row[_O_SPADE2 + ((seat - me) & 3)] = 1.0
    for r in range(4):
        seat = (me + r) & 3
        row[_O_HAND_POINTS + r] = np.float32(s[_C_HAND_POINTS + seat] / 100)
        row[_O_TOTALS + r] = np.float32(s[_C_TOTALS + seat] / 1000)


@njit(cache=True)
def _write_outputs(
    state: np.ndarray, i: int, obs: np.ndarray, mask: np.ndarray, player: np.ndarray, spade2_first: bool
) -> None:
    """Write slot ``i``'s mover, observation (encoding.observe) and mask (rules.legal_mask)."""
    s = state[i]
    trick_len = s[_C_TRICK_LEN]
    me = (s[_C_LEADER] + trick_len) & 3
    player[i] = me
    _write_obs(s, obs[i], me)
    # Legal cards ("Play of a hand"): follow suit if you can; the variant's first lead is the ♠2.
    hand = s[_C_HANDS + me]
    if trick_len > 0:
        legal = hand & (_SUIT_BITS << (13 * (s[_C_TRICK] // 13)))
        if legal == 0:
            legal = hand
    elif (
        spade2_first
        and s[_C_HAND_NUMBER] == 1
        and (s[_C_PLAYED] | s[_C_PLAYED + 1] | s[_C_PLAYED + 2] | s[_C_PLAYED + 3]) == 0
    ):
        legal = 1 << _SPADE_TWO
    else:
        legal = hand
    m = mask[i]
    for c in range(52):
        m[c] = (legal >> c) & 1


@njit(cache=True)
def _deal(state: np.ndarray, i: int, rng_state: np.ndarray) -> None:
    """Shuffle the deck with slot ``i``'s stream and give 13 cards to each seat ("Cards and deal")."""
    s = state[i]
    deck = s[_C_DECK : _C_DECK + 52]
    for k in range(52):
        deck[k] = k
    shuffle(rng_state, i, deck, 52)
    for seat in range(4):
        hand = 0
        for k in range(13 * seat, 13 * seat + 13):
            hand |= 1 << deck[k]
        s[_C_HANDS + seat] = hand
    for k in range(_C_PLAYED, _C_TOTALS):  # played, captured, voids, point masks, hand points
        s[k] = 0
    for k in range(4):
        s[_C_TRICK + k] = 0
    s[_C_TRICK_LEN] = 0
    s[_C_PIG_TAKER] = -1


@njit(cache=True)
def _new_game(state: np.ndarray, i: int, rng_state: np.ndarray) -> None:
    """rules.new_game: deal hand 1; the holder of ♠2 leads ("Play of a hand")."""
    _deal(state, i, rng_state)
    s = state[i]
    for seat in range(4):
        s[_C_TOTALS + seat] = 0
        s[_C_LAST_POINTS + seat] = 0
        if s[_C_HANDS + seat] >> _SPADE_TWO & 1:
            s[_C_LEADER] = seat
    s[_C_HAND_NUMBER] = 1
    s[_C_HAS_LAST] = 0


@njit(cache=True)
def _next_hand(state: np.ndarray, i: int, rng_state: np.ndarray) -> None:
    """rules.apply_deal: the next hand of a multi-hand game; the previous pig-taker leads."""
    s = state[i]
    leader = s[_C_PIG_TAKER]
    for seat in range(4):
        s[_C_LAST_POINTS + seat] = s[_C_HAND_POINTS + seat]
    s[_C_HAS_LAST] = 1
    _deal(state, i, rng_state)
    s[_C_LEADER] = leader
    s[_C_HAND_NUMBER] += 1


@njit(cache=True)
def _write_final_obs(final: np.ndarray, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
    """``out[k]``: seat ``seats[k]``'s observation of the finished game in ``final[slots[k]]``."""
    for k in range(slots.shape[0]):
        _write_obs(final[slots[k]], out[k], seats[k])


@njit(cache=True)
def _step_slot(
    state: np.ndarray, final: np.ndarray, i: int, action: int, rewards: np.ndarray, done: np.ndarray,
    truncated: np.ndarray, steps: np.ndarray, rng_state: np.ndarray, max_steps: int,
    game_end: int, game_end_upper: int,
) -> None:
    """Play ``action`` for slot ``i``'s mover (rules.play_checked_card), then deal on as needed."""
    s = state[i]
    leader = s[_C_LEADER]
    trick_len = s[_C_TRICK_LEN]
    seat = (leader + trick_len) & 3
    bit = 1 << action
    s[_C_HANDS + seat] ^= bit
    s[_C_PLAYED + seat] |= bit
    if trick_len > 0:
        led = s[_C_TRICK] // 13
        if action // 13 != led:
            s[_C_VOIDS + seat] |= 1 << led
    s[_C_TRICK + trick_len] = action
    trick_len += 1
    s[_C_TRICK_LEN] = trick_len
    steps[i] += 1
    for p in range(4):
        rewards[i, p] = 0.0
    ended = False
    hand_over = False
    if trick_len == 4:
        # rules._finish_trick: the highest card of the suit led wins the four cards ("Play of a hand").
        led = s[_C_TRICK] // 13
        best = 0
        for k in range(1, 4):
            card = s[_C_TRICK + k]
            if card // 13 == led and card > s[_C_TRICK + best]:
                best = k
        winner = (leader + best) & 3
        taken = 0
        points = 0
        for k in range(4):
            card = s[_C_TRICK + k]
            taken |= 1 << card
            points |= _point_bit(card)
            if card == _PIG:
                s[_C_PIG_TAKER] = winner
        s[_C_CAPTURED + winner] |= taken
        s[_C_POINTS_MASK + winner] |= points
        s[_C_HAND_POINTS + winner] = score_points(s[_C_POINTS_MASK + winner])
        s[_C_LEADER] = winner
        s[_C_TRICK_LEN] = 0
        if (s[_C_HANDS] | s[_C_HANDS + 1] | s[_C_HANDS + 2] | s[_C_HANDS + 3]) == 0:
            # Section 3: every seat scores its captured cards; rewards = change of returns.
            hand_over = True
            lowest = 1 << 62
            highest = -(1 << 62)
            for p in range(4):
                old = s[_C_TOTALS + p]
                new = old + s[_C_HAND_POINTS + p]
                s[_C_TOTALS + p] = new
                rewards[i, p] = np.float32(new / 100 - old / 100)
                lowest = min(lowest, new)
                highest = max(highest, new)
            # Section 4: one hand per episode, or play on until a total passes a threshold.
            ended = game_end == 0 or lowest <= game_end or (game_end_upper != 0 and highest >= game_end_upper)
    is_truncated = not ended and steps[i] >= max_steps
    done[i] = ended or is_truncated
    truncated[i] = is_truncated
    if ended or is_truncated:
        final[i, :] = s  # the finished game, for ``final_state``
        _new_game(state, i, rng_state)
        steps[i] = 0
    elif hand_over:
        _next_hand(state, i, rng_state)


@njit(cache=True)
def _step_and_write(
    state: np.ndarray, final: np.ndarray, i: int, action: int, obs: np.ndarray, mask: np.ndarray,
    player: np.ndarray,
    rewards: np.ndarray, done: np.ndarray, truncated: np.ndarray, steps: np.ndarray,
    rng_state: np.ndarray, max_steps: int, game_end: int, game_end_upper: int, spade2_first: bool,
) -> None:
    """One slot's whole step: play, deal on as needed, write its outputs (``engine.STAY``: the
    slot sits the step out, with zero rewards and its outputs unchanged)."""
    if action < 0:
        rewards[i, :] = 0.0
        done[i] = False
        truncated[i] = False
        return
    _step_slot(
        state, final, i, action, rewards, done, truncated, steps, rng_state, max_steps, game_end,
        game_end_upper
    )
    _write_outputs(state, i, obs, mask, player, spade2_first)


@njit(cache=True)
def _step_block(
    lo: int, hi: int, max_steps: int, game_end: int, game_end_upper: int, spade2_first: bool,
    actions: np.ndarray, state: np.ndarray, final: np.ndarray, obs: np.ndarray, mask: np.ndarray,
    player: np.ndarray, rewards: np.ndarray, done: np.ndarray, truncated: np.ndarray, steps: np.ndarray,
    rng_state: np.ndarray,
) -> None:
    """Step slots ``lo..hi-1`` in order."""
    for i in range(lo, hi):
        _step_and_write(state, final, i, actions[i], obs, mask, player, rewards, done, truncated, steps,
                        rng_state, max_steps, game_end, game_end_upper, spade2_first)


@njit(cache=True, parallel=True)
def _step_threads(
    bounds: np.ndarray, actions: np.ndarray, state: np.ndarray, final: np.ndarray, obs: np.ndarray,
    mask: np.ndarray, player: np.ndarray, rewards: np.ndarray, done: np.ndarray, truncated: np.ndarray,
    steps: np.ndarray, rng_state: np.ndarray, max_steps: int, game_end: int, game_end_upper: int,
    spade2_first: bool,
) -> None:
    """Step every slot, chunk ``c`` of ``bounds`` on one thread."""
    for c in prange(bounds.shape[0] - 1):
        _step_block(bounds[c], bounds[c + 1], max_steps, game_end, game_end_upper, spade2_first, actions,
                    state, final, obs, mask, player, rewards, done, truncated, steps, rng_state)


@njit(cache=True)
def _step_one_thread(
    bounds: np.ndarray, actions: np.ndarray, state: np.ndarray, final: np.ndarray, obs: np.ndarray,
    mask: np.ndarray, player: np.ndarray, rewards: np.ndarray, done: np.ndarray, truncated: np.ndarray,
    steps: np.ndarray, rng_state: np.ndarray, max_steps: int, game_end: int, game_end_upper: int,
    spade2_first: bool,
) -> None:
    """Step every slot on the calling thread (the arrays borrowed: no reference counting)."""
    _step_block(
        0, state.shape[0], max_steps, game_end, game_end_upper, spade2_first,
        *borrow(actions, state, final, obs, mask, player, rewards, done, truncated, steps, rng_state),
    )


@njit(cache=True)
def _reset_slots(
    state: np.ndarray, obs: np.ndarray, mask: np.ndarray, player: np.ndarray, rng_state: np.ndarray,
    spade2_first: bool,
) -> None:
    """Deal a fresh game into every slot and write its outputs."""
    for i in range(state.shape[0]):
        _new_game(state, i, rng_state)
        _write_outputs(state, i, obs, mask, player, spade2_first)


# -- determinizations (BatchedEngine.redeal_hidden) ------------------------------------------------
REDEAL_TRIES = 200
"""Attempts of one re-deal before it gives up (as ``rules.resample_hidden``)."""


@njit(cache=True)
def _redeal_slot(s: np.ndarray, i: int, seat: int, rng: np.ndarray, order: np.ndarray) -> bool:
    """``rules.resample_hidden`` of slot row ``s`` for ``seat`` from slot ``i``'s stream: the
    other hands' cards (but the ♠2 every seat knows the place of in hand 1) dealt back,
    the cards of the suits the fewest seats may hold first, in random order within those
    classes, each to a random seat not void in its suit with room left. ``False`` when no
    attempt deals every card."""
    holder = -1
    if s[_C_HAND_NUMBER] == 1:  # rules.spade_two_holder
        for t in range(4):
            if s[_C_HANDS + t] >> _SPADE_TWO & 1:
                holder = t
    fixed = np.zeros(4, dtype=np.int64)
    sizes = np.zeros(4, dtype=np.int64)
    hidden = 0
    for t in range(4):
        if t == seat:
            continue
        if t == holder:
            fixed[t] = 1 << _SPADE_TWO
        hidden |= s[_C_HANDS + t] & ~fixed[t]
        sizes[t] = bit_count(s[_C_HANDS + t] & ~fixed[t])
    width = np.zeros(4, dtype=np.int64)  # seats that may hold each suit
    for suit in range(4):
        for t in range(4):
            if t != seat and not s[_C_VOIDS + t] >> suit & 1:
                width[suit] += 1
    room = np.zeros(4, dtype=np.int64)
    hands = np.zeros(4, dtype=np.int64)
    seats = np.zeros(3, dtype=np.int64)  # the seats that may take the card being dealt
    for _ in range(REDEAL_TRIES):
        count = 0
        for w in range(5):  # the cards by their suit's width, each class in random order
            start = count
            for card in range(52):
                if hidden >> card & 1 and width[card // 13] == w:
                    order[count] = card
                    count += 1
            shuffle(rng, i, order[start:count], count - start)
        for t in range(4):
            room[t] = sizes[t]
            hands[t] = fixed[t]
        dealt = True
        for k in range(count):
            card = order[k]
            suit = card // 13
            choices = 0
            for t in range(4):
                if t != seat and room[t] > 0 and not s[_C_VOIDS + t] >> suit & 1:
                    seats[choices] = t
                    choices += 1
            if choices == 0:
                dealt = False
                break
            t = seats[below(rng, i, choices)] if choices > 1 else seats[0]
            hands[t] |= 1 << card
            room[t] -= 1
        if dealt:
            for t in range(4):
                if t != seat:
                    s[_C_HANDS + t] = hands[t]
            return True
    return False


@njit(cache=True)
def _redeal_hidden(
    slots: np.ndarray, seat: int, state: np.ndarray, obs: np.ndarray, mask: np.ndarray, player: np.ndarray,
    rng: np.ndarray, spade2_first: bool,
) -> int:
    """:func:`_redeal_slot` for each slot of ``slots``, then its outputs; the first slot that
    could not be re-dealt (unchanged), or -1."""
    order = np.empty(52, dtype=np.int64)
    for k in range(slots.shape[0]):
        i = slots[k]
        if not _redeal_slot(state[i], i, seat, rng, order):
            return i
        _write_outputs(state, i, obs, mask, player, spade2_first)
    return -1


class GongZhuEngine(BatchedEngine):
    """Batched ``gongzhu_v0`` (every variant of :class:`rules.Config`); see :mod:`.base`."""

    env_cls = GongZhuEnv

    def _setup(self) -> None:
        config = self.config
        self.slots = aligned_zeros((self.num_envs, STATE_WIDTH), np.int64)
        """Slot state, one int64 row per slot (see the ``_C_*`` columns)."""
        self.final_slots = aligned_zeros(self.slots.shape, np.int64)
        """Each slot's row as its last finished game ended (``final_state``)."""
        self._game_end = 0 if config.game_end is None else int(config.game_end)
        self._game_end_upper = 0 if config.game_end_upper is None else int(config.game_end_upper)
        self._spade2_first = bool(config.first_lead_must_be_spade2)
        self._use_kernels(_step_one_thread, _step_threads, (
            self.slots, self.final_slots, self.obs, self.mask, self.player, self.rewards, self.done,
            self.truncated, self.steps, self.rng_state, self.max_steps, self._game_end, self._game_end_upper,
            self._spade2_first,
        ))

    def _reset_all(self) -> None:
        _reset_slots(self.slots, self.obs, self.mask, self.player, self.rng_state, self._spade2_first)

    def _load(self, i: int, state: rules.State) -> None:
        row = np.zeros(STATE_WIDTH, dtype=np.int64)
        for seat in range(4):
            row[_C_HANDS + seat] = state.hands[seat]
            row[_C_PLAYED + seat] = state.played[seat]
            row[_C_CAPTURED + seat] = state.captured[seat]
            row[_C_VOIDS + seat] = state.voids[seat]
            row[_C_POINTS_MASK + seat] = state.point_masks[seat]
            row[_C_HAND_POINTS + seat] = state.hand_points[seat]
            row[_C_TOTALS + seat] = state.totals[seat]
        for k, card in enumerate(state.trick):
            row[_C_TRICK + k] = card
        row[_C_TRICK_LEN] = len(state.trick)
        row[_C_LEADER] = state.leader
        row[_C_HAND_NUMBER] = state.hand_number
        row[_C_PIG_TAKER] = state.pig_taker
        if state.last_hand_points is not None:
            row[_C_LAST_POINTS : _C_LAST_POINTS + 4] = state.last_hand_points
            row[_C_HAS_LAST] = 1
        self.slots[i] = row
        _write_outputs(self.slots, i, self.obs, self.mask, self.player, self._spade2_first)

    def redeal_hidden(self, slots: Any, seat: int) -> bool:
        """Re-deal the other hands' cards hidden from ``seat`` in ``slots`` from their own
        streams, as ``rules.resample_hidden`` re-deals them (see
        :meth:`BatchedEngine.redeal_hidden`): consistent with every void shown, the ♠2 of
        hand 1 left with the seat every player knows holds it.

        Raises:
            RuntimeError: as ``rules.resample_hidden``, where no attempt deals the cards
                consistently with the voids (never for a state of a real game); the slots
                before the one named are re-dealt.
        """
        slots = self._redeal_slots(slots, seat)
        failed = _redeal_hidden(slots, seat, self.slots, self.obs, self.mask, self.player, self.rng_state,
                                self._spade2_first)
        if failed >= 0:
            raise RuntimeError(
                f"slot {failed}: could not re-deal hidden cards consistently with the shown voids"
            )
        return True

    def _write_final_obs(self, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> bool:
        _write_final_obs(self.final_slots, slots, seats, out)
        return True

    def _final_points(self, slots: np.ndarray) -> np.ndarray:
        # rules.points: the totals
        return self.final_slots[slots, _C_TOTALS : _C_TOTALS + 4].copy()

    def _get_state(self, i: int) -> rules.State:
        s: list[int] = self.slots[i].tolist()

        def four(column: int) -> tuple[int, ...]:
            return tuple(s[column : column + 4])

        return rules.State(
            config=self.config,
            hands=four(_C_HANDS),
            leader=s[_C_LEADER],
            trick=tuple(s[_C_TRICK : _C_TRICK + s[_C_TRICK_LEN]]),
            captured=four(_C_CAPTURED),
            played=four(_C_PLAYED),
            voids=four(_C_VOIDS),
            point_masks=four(_C_POINTS_MASK),
            hand_points=four(_C_HAND_POINTS),
            totals=four(_C_TOTALS),
            hand_number=s[_C_HAND_NUMBER],
            pig_taker=s[_C_PIG_TAKER],
            last_hand_points=four(_C_LAST_POINTS) if s[_C_HAS_LAST] else None,
        )
