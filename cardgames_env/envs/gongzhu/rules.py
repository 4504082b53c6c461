"""Gong Zhu rules engine: four players, thirteen tricks, score the captured point cards.

Each player gets 13 cards; players must follow the suit led when they can, the highest card of
the led suit wins the trick, and at the end of the hand each player scores the hearts, pig,
goat and transformer they captured. Source: the play rules of Gong Zhu as pagat.com gives them,
with the scoring of :mod:`.scoring`.

Notes on this implementation:

* Episode = one hand (default). ``game_end=-1000`` plays hands until some total is <= -1000
  (optionally also >= ``game_end_upper``); the highest total wins, ties shared.
* Hand 1 is led by the holder of ♠2, any card (``first_lead_must_be_spade2`` forces the ♠2);
  later hands by the player who took the pig in the previous hand.
* No passing, no "hearts broken" rule, no exposure ("selling"); play order is seat 0->1->2->3.
* Card sets are int bitmasks (see :mod:`cardgames_env.core.cards`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from cardgames_env.core import checks
from cardgames_env.core.cards import cards_of, mask_of
from cardgames_env.core.game import CHANCE, TERMINAL, GameInfo, IllegalMoveError, plain_fields

from .cards import (
    DECK_SIZE,
    FULL_DECK,
    HAND_SIZE,
    NOTATION,
    NUM_PLAYERS,
    PIG,
    SPADE_TWO,
    SUIT_MASKS,
    card_str,
    parse_card,
    point_mask_of,
)
from .scoring import score


@dataclass(frozen=True)
class Config:
    """Gong Zhu variants (defaults: docs/rules/gongzhu.md, "Decisions this implementation takes").

    Attributes:
        first_lead_must_be_spade2: the first trick of hand 1 must be led with the ♠2.
        game_end: ``None`` = one hand per episode; a negative total (e.g. -1000) plays hands
            until some player's total is at or below it.
        game_end_upper: with ``game_end``, also end when a total reaches this positive value.
    """

    first_lead_must_be_spade2: bool = False
    game_end: int | None = None
    game_end_upper: int | None = None

    def __post_init__(self) -> None:
        plain_fields(self)  # numpy ints and bools are accepted as ints and bools
        if not isinstance(self.first_lead_must_be_spade2, bool):
            raise ValueError("first_lead_must_be_spade2 must be a bool")
        if self.game_end is not None and (
            not isinstance(self.game_end, int) or isinstance(self.game_end, bool) or self.game_end >= 0
        ):
            raise ValueError(f"game_end must be None or a negative int, got {self.game_end!r}")
        if self.game_end_upper is not None:
            if self.game_end is None:
                raise ValueError("game_end_upper needs game_end (the multi-hand game)")
            if not isinstance(self.game_end_upper, int) or self.game_end_upper <= 0:
                raise ValueError(
                    f"game_end_upper must be None or a positive int, got {self.game_end_upper!r}"
                )


@dataclass(frozen=True)
class Play:
    """Play one card (the only move family of Gong Zhu)."""

    card: int

    def __str__(self) -> str:
        return f"play {card_str(self.card)}"


Move = Play


def parse_move(text: str) -> Move:
    """Parse ``"play QS"`` (or just ``"QS"``, ``"♠Q"``, ``"10H"``) into a :class:`Play`.

    Raises:
        ValueError: if the text is no card.
    """
    words = text.strip().split()
    if len(words) == 2 and words[0].lower() == "play":
        words = words[1:]
    if len(words) != 1:
        raise ValueError(f"not a Gong Zhu move: {text!r} (expected e.g. 'play QS')")
    return Play(parse_card(words[0]))


@dataclass(frozen=True)
class Deal:
    """One shuffle: the 13 card ids of each seat."""

    hands: tuple[tuple[int, ...], ...]

    @staticmethod
    def from_strings(hands: list[str]) -> Deal:
        """Build a deal from four space-separated card lists, e.g. ``["2S 3S ...", ...]``."""
        return Deal(tuple(tuple(parse_card(c) for c in h.split()) for h in hands))


class State(NamedTuple):
    """Full Gong Zhu state (perfect information, immutable). Card sets are bitmasks.

    A ``NamedTuple`` rather than a frozen dataclass: it is built on every card played, and
    tuple construction is several times faster; ``state._replace(...)`` gives a changed copy.

    Attributes:
        hands: each seat's remaining cards.
        leader: seat that led the current trick.
        trick: cards of the current trick in play order (seat ``(leader + i) % 4``).
        captured: cards each seat has taken in this hand.
        played: cards each seat has played in this hand (the current trick included).
        voids: per seat, bit ``s`` set once it failed to follow suit ``s``.
        point_masks: per seat, the captured point cards as a 16-bit mask in notation order
            (bit ``i`` = ``NOTATION[i]``), kept for fast observations.
        hand_points: each seat's score of its captured cards so far in this hand.
        totals: each seat's total over the completed hands.
        hand_number: 1 for the first hand.
        pig_taker: seat that took the pig in this hand (``-1`` until taken).
        last_hand_points: points of the previous completed hand (for display).
    """

    config: Config
    hands: tuple[int, ...]
    leader: int
    trick: tuple[int, ...] = ()
    captured: tuple[int, ...] = (0, 0, 0, 0)
    played: tuple[int, ...] = (0, 0, 0, 0)
    voids: tuple[int, ...] = (0, 0, 0, 0)
    point_masks: tuple[int, ...] = (0, 0, 0, 0)
    hand_points: tuple[int, ...] = (0, 0, 0, 0)
    totals: tuple[int, ...] = (0, 0, 0, 0)
    hand_number: int = 1
    pig_taker: int = -1
    last_hand_points: tuple[int, ...] | None = None

    @property
    def hand_over(self) -> bool:
        """True once all 52 cards of the hand have been played."""
        return not any(self.hands)

    @property
    def tricks_played(self) -> int:
        """Completed tricks in this hand."""
        return (sum(c.bit_count() for c in self.played) - len(self.trick)) // NUM_PLAYERS


StateOrConfig = State | Config


def _check_deal(deal: Deal) -> tuple[int, ...]:
    if len(deal.hands) != NUM_PLAYERS:
        raise ValueError(f"a deal needs {NUM_PLAYERS} hands, got {len(deal.hands)}")
    masks = []
    for seat, hand in enumerate(deal.hands):
        if len(hand) != HAND_SIZE or len(set(hand)) != HAND_SIZE:
            raise ValueError(f"hand {seat} must hold {HAND_SIZE} distinct cards, got {len(hand)}")
        masks.append(mask_of(hand))
    if sum(masks) != FULL_DECK or any(a & b for i, a in enumerate(masks) for b in masks[i + 1 :]):
        raise ValueError("a deal must give out every one of the 52 cards exactly once")
    return tuple(masks)


def new_game(config: Config, deal: Deal) -> State:
    """Start hand 1 from a deal; the holder of ♠2 leads ("Play of a hand")."""
    hands = _check_deal(deal)
    leader = next(seat for seat in range(NUM_PLAYERS) if hands[seat] >> SPADE_TWO & 1)
    return State(config=config, hands=hands, leader=leader)


def apply_deal(state: State, deal: Deal) -> State:
    """Start the next hand of a multi-hand game; the previous pig-taker leads ("Play of a hand")."""
    if current_player(state) != CHANCE:
        raise IllegalMoveError("a new hand can only be dealt when the previous hand is over")
    return State(
        config=state.config,
        hands=_check_deal(deal),
        leader=state.pig_taker,
        totals=state.totals,
        hand_number=state.hand_number + 1,
        last_hand_points=state.hand_points,
    )


def sample_deal(state_or_config: StateOrConfig, rng: np.random.Generator) -> Deal:
    """Shuffle the deck with ``rng`` and deal 13 cards to each seat."""
    order = rng.permutation(DECK_SIZE).tolist()
    return Deal(tuple(tuple(sorted(order[13 * s : 13 * s + 13])) for s in range(NUM_PLAYERS)))


def is_terminal(state: State) -> bool:
    """True when the episode is over ("End of the game": one hand, or a total past ``game_end``)."""
    if not state.hand_over:
        return False
    config = state.config
    if config.game_end is None:
        return True
    if min(state.totals) <= config.game_end:
        return True
    return config.game_end_upper is not None and max(state.totals) >= config.game_end_upper


def current_player(state: State) -> int:
    """Seat to play, ``CHANCE`` between hands of a multi-hand game, ``TERMINAL`` at the end."""
    if state.hand_over:
        return TERMINAL if is_terminal(state) else CHANCE
    return (state.leader + len(state.trick)) % NUM_PLAYERS


def legal_mask(state: State) -> int:
    """Bitmask of the cards the player to move may play ("Play of a hand": follow suit if you can)."""
    seat = (state.leader + len(state.trick)) % NUM_PLAYERS
    hand = state.hands[seat]
    if state.trick:
        following = hand & SUIT_MASKS[state.trick[0] // 13]
        return following or hand
    if state.config.first_lead_must_be_spade2 and state.hand_number == 1 and not any(state.played):
        return 1 << SPADE_TWO
    return hand


def legal_moves(state: State) -> tuple[Move, ...]:
    """Every legal move of the player to move (empty when nobody is to move)."""
    if state.hand_over:
        return ()
    return tuple(Play(card) for card in cards_of(legal_mask(state)))


def trick_winner(leader: int, trick: tuple[int, ...]) -> int:
    """Seat that wins a complete trick: highest card of the suit led ("Play of a hand")."""
    led_suit = trick[0] // 13
    best = max((card, i) for i, card in enumerate(trick) if card // 13 == led_suit)[1]
    return (leader + best) % NUM_PLAYERS


def apply_move(state: State, move: Move) -> State:
    """Play a card; completes the trick (and the hand's scoring) when it is the fourth card.

    Raises:
        IllegalMoveError: when the card is not in the legal set.
    """
    if state.hand_over:
        raise IllegalMoveError("the hand is over: no card can be played")
    card = move.card
    if not (0 <= card < DECK_SIZE and legal_mask(state) >> card & 1):
        raise IllegalMoveError(f"{move} is not legal here")
    return play_checked_card(state, card)


def play_checked_card(state: State, card: int) -> State:
    """Play ``card`` for the player to move; the caller has checked it is in :func:`legal_mask`.

    The env's step validates actions against the mask already, so it plays through here.
    """
    seat = (state.leader + len(state.trick)) % NUM_PLAYERS
    bit = 1 << card
    hands = list(state.hands)
    hands[seat] ^= bit
    played = list(state.played)
    played[seat] |= bit
    voids = state.voids
    if state.trick and card // 13 != state.trick[0] // 13:
        vs = list(voids)
        vs[seat] |= 1 << (state.trick[0] // 13)
        voids = tuple(vs)
    trick = (*state.trick, card)
    if len(trick) < NUM_PLAYERS:
        return State(
            state.config, tuple(hands), state.leader, trick, state.captured, tuple(played),
            voids, state.point_masks, state.hand_points, state.totals, state.hand_number,
            state.pig_taker, state.last_hand_points,
        )
    return _finish_trick(state, tuple(hands), tuple(played), voids, trick)


def _finish_trick(
    state: State,
    hands: tuple[int, ...],
    played: tuple[int, ...],
    voids: tuple[int, ...],
    trick: tuple[int, ...],
) -> State:
    """The trick winner captures the four cards and leads next; score the hand at its end."""
    winner = trick_winner(state.leader, trick)
    captured = list(state.captured)
    captured[winner] |= mask_of(trick)
    point_masks = list(state.point_masks)
    point_masks[winner] |= point_mask_of(mask_of(trick))
    hand_points = list(state.hand_points)
    hand_points[winner] = score_point_mask(point_masks[winner])
    pig_taker = winner if PIG in trick else state.pig_taker
    totals = state.totals
    if not any(hands):  # "Scoring a hand": score every player's captured cards at the end of the hand
        totals = tuple(t + p for t, p in zip(totals, hand_points))
    return State(
        state.config, hands, winner, (), tuple(captured), played, voids, tuple(point_masks),
        tuple(hand_points), totals, state.hand_number, pig_taker, state.last_hand_points,
    )


@functools.lru_cache(maxsize=1 << 16)
def score_point_mask(point_mask: int) -> int:
    """Score a 16-bit point-card mask (bit ``i`` = ``NOTATION[i]``) with :func:`scoring.score`."""
    return score("".join(sym for i, sym in enumerate(NOTATION) if point_mask >> i & 1))


def points(state: State) -> tuple[int, ...]:
    """Game score: each seat's total over the completed hands."""
    return state.totals


def returns(state: State) -> tuple[float, ...]:
    """RL return accrued so far: completed hands' points / 100 (per-hand reward model)."""
    t = state.totals
    return (t[0] / 100, t[1] / 100, t[2] / 100, t[3] / 100)


def winners(state: State) -> tuple[int, ...]:
    """Seats with the highest total (ties shared), once the game is over."""
    best = max(state.totals)
    return tuple(s for s in range(NUM_PLAYERS) if state.totals[s] == best)


def spade_two_holder(state: State) -> int:
    """Seat every player knows to hold the unplayed ♠2, or ``-1`` when no seat is known.

    Section 2: the holder of ♠2 leads the first trick of hand 1, so from the first lead on
    every seat knows where the ♠2 is until it is played. In later hands the pig-taker leads
    and nothing about the ♠2 is public.
    """
    if state.hand_number != 1:
        return -1
    hands = state.hands
    for seat in range(NUM_PLAYERS):
        if hands[seat] >> SPADE_TWO & 1:
            return seat
    return -1


def resample_hidden(state: State, player: int, rng: np.random.Generator) -> State:
    """Re-deal the cards ``player`` cannot see, keeping hand sizes and every public fact.

    The result carries the same information for ``player``: own hand, all played cards and
    the public history are unchanged; other hands are a random assignment consistent with
    the voids they have shown, and the unplayed ♠2 of hand 1 stays with the seat that led
    the first trick (:func:`spade_two_holder`).
    """
    others = [s for s in range(NUM_PLAYERS) if s != player]
    sizes = {s: state.hands[s].bit_count() for s in others}
    fixed = {s: 0 for s in others}
    known = spade_two_holder(state)
    if known >= 0 and known != player:
        fixed[known] = 1 << SPADE_TWO
        sizes[known] -= 1
    hidden = [c for s in others for c in cards_of(state.hands[s] & ~fixed[s])]
    # The seats that may hold a card of each suit (not void in it), and how many there are.
    eligible = [[s for s in others if not state.voids[s] >> suit & 1] for suit in range(4)]
    width = [len(seats) for seats in eligible]
    for _ in range(200):
        order = [hidden[i] for i in rng.permutation(len(hidden))]
        # Most constrained cards first (fewest seats may hold them), random seat among those.
        order.sort(key=lambda c: width[c // 13])
        room = dict(sizes)
        new_hands = dict(fixed)
        for card in order:
            seats = [s for s in eligible[card // 13] if room[s] > 0]
            if not seats:
                break
            seat = seats[int(rng.integers(len(seats)))] if len(seats) > 1 else seats[0]
            new_hands[seat] |= 1 << card
            room[seat] -= 1
        else:
            hands = tuple(
                state.hands[s] if s == player else new_hands[s] for s in range(NUM_PLAYERS)
            )
            return state._replace(hands=hands)
    raise RuntimeError("could not re-deal hidden cards consistently with the shown voids")


def _check_trick(state: State, tricks: int) -> None:
    """Check the current trick: each card played by its seat in turn from the leader, a seat
    off the led suit void in it, every seat's play count (``ValueError`` naming the field)."""
    checks.mask_of_ids(state.trick, "state.trick", DECK_SIZE, card_str)
    for k, card in enumerate(state.trick):
        seat = (state.leader + k) % NUM_PLAYERS
        if not state.played[seat] >> card & 1:
            checks.fail(f"state.trick[{k}]", f"{card_str(card)} is not among seat {seat}'s played cards")
        led = state.trick[0] // 13
        if k and card // 13 != led and not state.voids[seat] >> led & 1:
            checks.fail(f"state.voids[{seat}]", f"seat {seat} did not follow suit but is not void in it")
    for seat in range(NUM_PLAYERS):
        wanted = tricks + ((seat - state.leader) % NUM_PLAYERS < len(state.trick))
        if state.played[seat].bit_count() != wanted:
            checks.fail(
                f"state.played[{seat}]",
                f"seat {seat} has played {state.played[seat].bit_count()} cards, {wanted} after {tricks} "
                f"tricks and a trick of {len(state.trick)} led by seat {state.leader}",
            )


def validate_state(state: State, config: Config | None = None) -> None:
    """Check that ``state`` is a Gong Zhu position with a player to move, field by field.

    Checked: the field types; seats, card ids, suits in range; every one of the 52 cards in
    one hand or played, 13 per seat; the current trick played in turn from its leader (at
    most 3 cards) and every seat's play count; captured cards, point masks and hand points
    agreeing with the completed tricks, and the pig's taker; voids (no card of a void suit in
    hand); the first trick of hand 1 led by the holder of the 2 of spades; the hand under way
    and the game not over (``game_end``). ``config``, if given, must be the state's.

    Raises:
        ValueError: naming the first field found wrong (``state.leader: 9 is not a seat of a
            4-player game``).
    """
    config = checks.need_state(state, State, Config, config)
    hands = checks.need_masks(state.hands, "state.hands", NUM_PLAYERS, FULL_DECK)
    played = checks.need_masks(state.played, "state.played", NUM_PLAYERS, FULL_DECK)
    captured = checks.need_masks(state.captured, "state.captured", NUM_PLAYERS, FULL_DECK)
    leader = checks.need_seat(state.leader, "state.leader", NUM_PLAYERS)
    checks.need_tuple(state.trick, "state.trick", max_length=NUM_PLAYERS - 1)
    voids = checks.need_ints(state.voids, "state.voids", NUM_PLAYERS, low=0, high=(1 << 4) - 1)
    point_masks = checks.need_ints(state.point_masks, "state.point_masks", NUM_PLAYERS, low=0)
    hand_points = checks.need_ints(state.hand_points, "state.hand_points", NUM_PLAYERS)
    totals = checks.need_ints(state.totals, "state.totals", NUM_PLAYERS)
    hand_number = checks.need_int(state.hand_number, "state.hand_number", 1)
    pig_taker = checks.need_int(state.pig_taker, "state.pig_taker", -1, NUM_PLAYERS - 1)
    if state.last_hand_points is not None:
        checks.need_ints(state.last_hand_points, "state.last_hand_points", NUM_PLAYERS)
    if (hand_number == 1) != (state.last_hand_points is None):
        checks.fail("state.last_hand_points", f"{state.last_hand_points!r} does not fit hand {hand_number}")
    if not any(hands):
        checks.fail_finished("state.hands", "every card is played")
    checks.need_each_card_once(
        [*((f"state.hands[{s}]", hands[s]) for s in range(NUM_PLAYERS)),
         *((f"state.played[{s}]", played[s]) for s in range(NUM_PLAYERS))],
        FULL_DECK,
        card_str,
    )
    for s in range(NUM_PLAYERS):
        if hands[s].bit_count() + played[s].bit_count() != HAND_SIZE:
            checks.fail(f"state.hands[{s}]", f"seat {s} holds and has played {HAND_SIZE} cards in all")
        for suit in range(4):
            if voids[s] >> suit & 1 and hands[s] & SUIT_MASKS[suit]:
                checks.fail(f"state.voids[{s}]", f"seat {s} is void in {'CDHS'[suit]} but holds such a card")
    total_played = sum(p.bit_count() for p in played)
    tricks, rest = divmod(total_played - len(state.trick), NUM_PLAYERS)
    if rest:
        checks.fail("state.trick", f"{len(state.trick)} cards, {total_played} played: not a trick under way")
    _check_trick(state, tricks)
    # Completed tricks: captured by their winners, scored (seed scoring), the pig's taker.
    trick_cards = mask_of(state.trick)
    union = checks.need_disjoint([(f"state.captured[{s}]", c) for s, c in enumerate(captured)], card_str)
    if union != (played[0] | played[1] | played[2] | played[3]) & ~trick_cards:
        checks.fail("state.captured", "the captured cards are not the cards of the completed tricks")
    for s in range(NUM_PLAYERS):
        if captured[s].bit_count() % NUM_PLAYERS:
            checks.fail(f"state.captured[{s}]", f"{captured[s].bit_count()} cards are not whole tricks")
        if point_masks[s] != point_mask_of(captured[s]):
            checks.fail(f"state.point_masks[{s}]", f"{point_masks[s]}: not the points of state.captured[{s}]")
        if hand_points[s] != score_point_mask(point_masks[s]):
            score = score_point_mask(point_masks[s])
            checks.fail(f"state.hand_points[{s}]", f"{hand_points[s]}, the captured cards score {score}")
        if captured[s] >> PIG & 1 and pig_taker != s:
            checks.fail("state.pig_taker", f"{pig_taker}, seat {s} took the pig")
    if pig_taker >= 0 and not captured[pig_taker] >> PIG & 1:
        checks.fail("state.pig_taker", f"seat {pig_taker} has not taken the pig")
    # Section 2: the holder of the 2 of spades leads the first trick of hand 1.
    if hand_number == 1 and tricks == 0 and not (hands[leader] | played[leader]) >> SPADE_TWO & 1:
        checks.fail("state.leader", f"seat {leader} leads the first trick of hand 1 without the 2 of spades")
    # Section 4: the game goes on (one hand, or no total past game_end yet).
    if config.game_end is None:
        if hand_number != 1 or any(totals):
            field = "state.hand_number" if hand_number != 1 else "state.totals"
            checks.fail(field, "the one-hand game has hand 1 only (game_end=None)")
    elif min(totals) <= config.game_end or (
        config.game_end_upper is not None and max(totals) >= config.game_end_upper
    ):
        checks.fail_finished("state.totals", f"{totals} are past the game's end")


def game_info(config: Config) -> GameInfo:
    """Declared contract of Gong Zhu under ``config``."""
    one_hand = config.game_end is None
    return GameInfo(
        name="gongzhu",
        num_players=NUM_PLAYERS,
        max_game_length=DECK_SIZE if one_hand else None,
        min_reward=-6.0,
        max_reward=8.0,
        min_return=-6.0 if one_hand else None,
        max_return=8.0 if one_hand else None,
        zero_sum=False,
        reward_model="own hand points / 100 at the end of each hand",
    )


INFO = game_info(Config())
