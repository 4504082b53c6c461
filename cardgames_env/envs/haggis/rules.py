"""Haggis rules engine: two players shed cards in climbing tricks of sequences and bombs.

Each player holds 14 number cards (2-10, four suits) plus its own J, Q and K; the leader plays
any combination, the other beats it or passes (a pass ends the trick), a trick won with a
bomb scores for the opponent, and going out scores 5 per card left to the opponent; hands
repeat until someone reaches the target score. Source: the Haggis rulebook (two-player game);
the choices this implementation makes where the rulebook leaves one open are labelled A1-A10
here and in the code.

Notes on this implementation:

* Episode = a whole game: hands repeat until, after a hand, some total is >= ``target_score``
  (default 350) and the totals differ (A9); equal totals play another hand.
* Hand 1 is led by the seat in the deal (the env draws it from its seeded RNG); later hands by
  the lower total, a tie by the player who did not win the previous hand's last trick (A7).
* The 8 undealt number cards are out of play (no Haggis pile, no bets, 2 players only).
* Combinations follow :mod:`.combos`: a :class:`Play` names its cards and the
  declared reading (A1); every reading of those cards that beats the table is legal.
* The trick with the final play of a hand is scored at once (a bomb gives it away, A8); the
  player who went out scores 5 x the cards (J/Q/K included) left to the opponent.
* Rewards: ``reward="win"`` (default) gives +1 / -1 at the end of the game; ``reward="points"``
  gives each player (own total - opponent total) / 100 accrued at every hand end.
* Card sets are int bitmasks over ids 0..38 (:mod:`.cards`); the face bits 36..38 of a hand or
  of a play are the J, Q, K of the player who holds or played them.

Decisions cited in the code by label (quoted section names cite ``docs/rules/haggis.md``):

* A1: a play declares its reading of the cards; A2: two or three face cards without number
  cards are always a bomb; A3: a lone J, Q or K is its natural single (11, 12, 13), unless
  ``face_singles="J"``; A4: a wild card takes one of the four suits and never copies a card
  of the combination; A5: face cards stand for themselves only in singles and in runs of
  multiplicity 1 (an 11 is the J, a 12 the Q, a 13 the K); A6: 3-5-7-9 bombs use number cards
  only (four suits: rainbow, one suit: suited); A7: who leads (above); A8: going out (above);
  A9: the game's end (above); A10: a run's rank counts its natural faces (9-10-J beats 8-9-10).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from cardgames_env.core import checks
from cardgames_env.core.game import (
    CHANCE,
    TERMINAL,
    GameInfo,
    IllegalMoveError,
    plain_fields,
    win_loss_info,
    win_loss_returns,
)

from .cards import (
    FACE_MASK,
    HAND_SIZE,
    NUM_NUMBER_CARDS,
    NUMBER_MASK,
    card_str,
    cards_str,
    ids_of,
    parse_card,
)
from .combos import (
    BOMB_KIND,
    Reading,
    beats,
    check_reading,
    legal_plays,
    parse_reading,
    reading_str,
    readings_of_mask,
)
from .scoring import going_out_bonus, points_of_mask

NUM_PLAYERS = 2
MAX_HAND_POINTS = 36 + going_out_bonus(HAND_SIZE + 3)
"""Upper bound of one player's hand score: every point card (16 + 20) and 5 x 17 cards."""


@dataclass(frozen=True)
class Config:
    """Haggis variants (defaults: docs/rules/haggis.md, "Decisions this implementation takes").

    Attributes:
        face_singles: ``"JQK"`` (A3: lone J/Q/K are singles 11/12/13) or ``"J"`` (literal
            seed: only J is a natural single; a lone Q or K is a wild single of rank <= 10).
        natural_faces_in_runs: J/Q/K may be 11/12/13 in runs (seed 10-J-Q); ``False`` = official
            rules (face cards in runs only as wilds).
        target_score: the game ends after a hand once a total reaches it with a unique lead.
        reward: ``"win"`` (+1 / -1 at the end) or ``"points"`` (score difference / 100 per hand).
    """

    face_singles: str = "JQK"
    natural_faces_in_runs: bool = True
    target_score: int = 350
    reward: str = "win"

    def __post_init__(self) -> None:
        plain_fields(self)  # numpy ints and bools are accepted as ints and bools
        if self.face_singles not in ("JQK", "J"):
            raise ValueError(f"face_singles must be 'JQK' or 'J', got {self.face_singles!r}")
        if not isinstance(self.natural_faces_in_runs, bool):
            raise ValueError(
                f"natural_faces_in_runs must be a bool, got {self.natural_faces_in_runs!r}"
            )
        if (
            not isinstance(self.target_score, int)
            or isinstance(self.target_score, bool)
            or self.target_score <= 0
        ):
            raise ValueError(f"target_score must be a positive int, got {self.target_score!r}")
        if self.reward not in ("win", "points"):
            raise ValueError(f"reward must be 'win' or 'points', got {self.reward!r}")

    @property
    def lone_qk_wild(self) -> bool:
        """Whether a lone Q or K is a wild single (``face_singles="J"``)."""
        return self.face_singles == "J"


# -- moves ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Play:
    """Play ``cards`` (bitmask) declared as ``reading`` (A1: the player names the reading)."""

    cards: int
    reading: Reading

    def __str__(self) -> str:
        return f"play {cards_str(self.cards)} as {reading_str(self.reading)}"


@dataclass(frozen=True)
class Pass:
    """Pass: ends the trick (two players); the other player wins it."""

    def __str__(self) -> str:
        return "pass"


Move = Play | Pass


def parse_move(text: str) -> Move:
    """Parse ``"pass"`` or ``"play 3S 3H as pair 3"`` / ``"play J Q as bomb JQ"``.

    Raises:
        ValueError: if the text is not a Haggis move.
    """
    words = text.strip().split()
    if [w.lower() for w in words] == ["pass"]:
        return Pass()
    lowered = [w.lower() for w in words]
    if len(words) < 4 or lowered[0] != "play" or "as" not in lowered:
        raise ValueError(
            f"not a Haggis move: {text!r} (expected 'pass' or e.g. 'play 3S 3H as pair 3')"
        )
    split = lowered.index("as")
    cards = 0
    for word in words[1:split]:
        bit = 1 << parse_card(word)
        if cards & bit:
            raise ValueError(f"card {word!r} appears twice in {text!r}")
        cards |= bit
    if not cards:
        raise ValueError(f"a play needs at least one card: {text!r}")
    return Play(cards, parse_reading(" ".join(words[split + 1 :])))


# -- state ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deal:
    """One shuffle: the 14 number-card ids of each seat, and the seat that leads hand 1.

    ``leader`` is used by :func:`new_game` only; later hands' leaders follow A7.
    """

    hands: tuple[tuple[int, ...], ...]
    leader: int = 0

    @staticmethod
    def from_strings(hands: list[str], leader: int = 0) -> Deal:
        """Build a deal from two space-separated card lists, e.g. ``["2S 3S ...", "..."]``."""
        return Deal(tuple(tuple(parse_card(c) for c in h.split()) for h in hands), leader)


@dataclass(frozen=True, slots=True)
class State:
    """Full Haggis state (perfect information). Card sets are bitmasks over ids 0..38.

    Attributes:
        hands: each seat's cards (face bits = its own J, Q, K).
        to_move: seat to act.
        table: reading on top of the current trick (``None`` = the mover leads).
        table_player: seat that played the table combination (``-1`` if none).
        trick: plays of the current trick in order, ``(seat, cards, reading)``.
        trick_points: card points in the current trick.
        played: cards each seat has played in this hand.
        hand_points: points each seat has scored in this hand (tricks and going out).
        totals: each seat's total over the completed hands.
        hand_number: 1 for the first hand.
        last_trick_winner: winner of the last completed trick (``-1`` before any).
        hand_over: the current hand has ended (a seat went out).
        last_hand_points: points of the previous completed hand (for display).
    """

    config: Config
    hands: tuple[int, int]
    to_move: int
    table: Reading | None = None
    table_player: int = -1
    trick: tuple[tuple[int, int, Reading], ...] = ()
    trick_points: int = 0
    played: tuple[int, int] = (0, 0)
    hand_points: tuple[int, int] = (0, 0)
    totals: tuple[int, int] = (0, 0)
    hand_number: int = 1
    last_trick_winner: int = -1
    hand_over: bool = False
    last_hand_points: tuple[int, int] | None = None


StateOrConfig = State | Config


def _check_deal(deal: Deal) -> tuple[int, int]:
    if len(deal.hands) != NUM_PLAYERS:
        raise ValueError(f"a deal needs {NUM_PLAYERS} hands, got {len(deal.hands)}")
    masks = []
    for seat, hand in enumerate(deal.hands):
        if len(hand) != HAND_SIZE or len(set(hand)) != HAND_SIZE:
            raise ValueError(f"hand {seat} must hold {HAND_SIZE} distinct number cards")
        if any(not 0 <= c < NUM_NUMBER_CARDS for c in hand):
            raise ValueError(f"hand {seat} holds a card id outside 0..35 (number cards only)")
        masks.append(sum(1 << c for c in hand))
    if masks[0] & masks[1]:
        raise ValueError("the two hands share a card")
    return masks[0] | FACE_MASK, masks[1] | FACE_MASK


def new_game(config: Config, deal: Deal) -> State:
    """Start hand 1: each seat gets its 14 cards plus its own J, Q, K; ``deal.leader`` leads."""
    if deal.leader not in (0, 1):
        raise ValueError(f"deal.leader must be 0 or 1, got {deal.leader!r}")
    return State(config=config, hands=_check_deal(deal), to_move=deal.leader)


def next_leader(state: State) -> int:
    """Leader of the next hand (A7): the lower total; a tie -> who did not win the last trick."""
    a, b = state.totals
    if a != b:
        return 0 if a < b else 1
    return 1 - state.last_trick_winner


def apply_deal(state: State, deal: Deal) -> State:
    """Start the next hand of the game (A7 picks the leader; ``deal.leader`` is not used)."""
    if current_player(state) != CHANCE:
        raise IllegalMoveError("a new hand can only be dealt when the previous hand is over")
    return State(
        config=state.config,
        hands=_check_deal(deal),
        to_move=next_leader(state),
        totals=state.totals,
        hand_number=state.hand_number + 1,
        last_trick_winner=state.last_trick_winner,
        last_hand_points=state.hand_points,
    )


def sample_deal(state_or_config: StateOrConfig, rng: np.random.Generator) -> Deal:
    """Shuffle the 36 number cards with ``rng``: 14 to each seat, 8 out of play; draw the leader."""
    order = rng.permutation(NUM_NUMBER_CARDS).tolist()
    leader = int(rng.integers(NUM_PLAYERS))
    return Deal((tuple(sorted(order[:HAND_SIZE])), tuple(sorted(order[HAND_SIZE : 2 * HAND_SIZE]))), leader)


def is_terminal(state: State) -> bool:
    """True after a hand once a total reaches ``target_score`` with a unique lead (A9)."""
    a, b = state.totals
    return state.hand_over and max(a, b) >= state.config.target_score and a != b


def current_player(state: State) -> int:
    """Seat to act, ``CHANCE`` between hands, ``TERMINAL`` at the end of the game."""
    if state.hand_over:
        return TERMINAL if is_terminal(state) else CHANCE
    return state.to_move


def legal_moves(state: State) -> tuple[Move, ...]:
    """Every legal move of the seat to act: each play with each legal reading, and pass."""
    if state.hand_over:
        return ()
    config = state.config
    moves: list[Move] = []
    for cards, kind, _ in legal_plays(
        state.hands[state.to_move], state.table, config.lone_qk_wild, config.natural_faces_in_runs
    ):
        for reading in sorted(readings_of_mask(cards, config.lone_qk_wild, config.natural_faces_in_runs)):
            same_kind = (reading[0] == "bomb") == (kind == BOMB_KIND) and (
                kind == BOMB_KIND or reading[1] == kind
            )
            if same_kind and (state.table is None or beats(reading, state.table)):
                moves.append(Play(cards, reading))
    if state.table is not None:  # seed: the leader may not pass; anyone else always may
        moves.append(Pass())
    return tuple(moves)


def check_play(state: State, move: Play) -> None:
    """Raise ``IllegalMoveError`` unless ``move`` is a legal play for the seat to act."""
    config = state.config
    hand = state.hands[state.to_move]
    if not move.cards or move.cards & ~hand:
        raise IllegalMoveError(f"{move}: those cards are not all in the hand of P{state.to_move}")
    if move.reading not in readings_of_mask(move.cards, config.lone_qk_wild, config.natural_faces_in_runs):
        raise IllegalMoveError(f"{move}: the cards cannot be read that way")
    if state.table is not None and not beats(move.reading, state.table):
        raise IllegalMoveError(f"{move}: does not beat the table ({reading_str(state.table)})")


def apply_move(state: State, move: Move) -> State:
    """Apply a play or a pass; ends the trick on a pass and the hand when a seat goes out.

    Raises:
        IllegalMoveError: for a move the rules do not allow here.
    """
    if state.hand_over:
        raise IllegalMoveError("the hand is over: no move can be made")
    seat = state.to_move
    if isinstance(move, Pass):
        if state.table is None:
            raise IllegalMoveError("the leader cannot pass")
        return _end_trick(state, state.table_player, state.hands, state.played, ())
    if not isinstance(move, Play):
        raise IllegalMoveError(f"not a Haggis move: {move!r}")
    check_play(state, move)
    hands = list(state.hands)
    hands[seat] ^= move.cards
    played = list(state.played)
    played[seat] |= move.cards
    trick_points = state.trick_points + points_of_mask(move.cards)
    if hands[seat] == 0:
        # Seed: a player who runs out of cards wins that trick (A8: scored at once).
        table_state = dataclasses.replace(state, table=move.reading, trick_points=trick_points)
        ended = _end_trick(table_state, seat, (hands[0], hands[1]), (played[0], played[1]), ())
        bonus = going_out_bonus(hands[1 - seat].bit_count())
        points = list(ended.hand_points)
        points[seat] += bonus
        totals = (state.totals[0] + points[0], state.totals[1] + points[1])
        return dataclasses.replace(
            ended,
            hand_points=(points[0], points[1]),
            totals=totals,
            hand_over=True,
            trick=(*state.trick, (seat, move.cards, move.reading)),
        )
    return dataclasses.replace(
        state,
        hands=(hands[0], hands[1]),
        played=(played[0], played[1]),
        to_move=1 - seat,
        table=move.reading,
        table_player=seat,
        trick=(*state.trick, (seat, move.cards, move.reading)),
        trick_points=trick_points,
    )


def _end_trick(
    state: State,
    winner: int,
    hands: tuple[int, int],
    played: tuple[int, int],
    trick: tuple[tuple[int, int, Reading], ...],
) -> State:
    """The winner leads next; the trick's points go to it, or to the opponent after a bomb."""
    assert state.table is not None
    taker = 1 - winner if state.table[0] == "bomb" else winner
    points = list(state.hand_points)
    points[taker] += state.trick_points
    return dataclasses.replace(
        state,
        hands=hands,
        played=played,
        to_move=winner,
        table=None,
        table_player=-1,
        trick=trick,
        trick_points=0,
        hand_points=(points[0], points[1]),
        last_trick_winner=winner,
    )


def points(state: State) -> tuple[int, ...]:
    """Game score: each seat's total over the completed hands."""
    return state.totals


def winner(state: State) -> int:
    """Seat with the higher total once the game is over (``-1`` before)."""
    if not is_terminal(state):
        return -1
    return 0 if state.totals[0] > state.totals[1] else 1


def returns(state: State) -> tuple[float, ...]:
    """RL return accrued so far (see the module notes for the two reward models)."""
    a, b = state.totals
    if state.config.reward == "points":
        return ((a - b) / 100, (b - a) / 100)
    if not is_terminal(state):
        return (0.0, 0.0)
    return win_loss_returns(0 if a > b else 1, NUM_PLAYERS)


def unseen_numbers(state: State, player: int) -> int:
    """Number cards ``player`` has not seen: the opponent's and the 8 out of play."""
    seen = state.hands[player] | state.played[0] | state.played[1]
    return NUMBER_MASK & ~seen


def resample_hidden(state: State, player: int, rng: np.random.Generator) -> State:
    """Re-deal the opponent's number cards from those ``player`` has not seen.

    Own hand, every played card and each player's unplayed J/Q/K (public) are unchanged; the
    opponent keeps its hand size.
    """
    other = 1 - player
    pool = ids_of(unseen_numbers(state, player))
    size = (state.hands[other] & NUMBER_MASK).bit_count()
    chosen = rng.choice(len(pool), size=size, replace=False).tolist() if size else []
    new_numbers = sum(1 << pool[i] for i in chosen)
    hands = list(state.hands)
    hands[other] = new_numbers | (state.hands[other] & FACE_MASK)
    return dataclasses.replace(state, hands=(hands[0], hands[1]))


# -- validation ------------------------------------------------------------------------------

ALL_CARDS = NUMBER_MASK | FACE_MASK
"""Every card id of one player's view: the 36 number cards and the owner's J, Q, K."""


def _check_trick(state: State, config: Config) -> None:
    """Check the current trick: alternating seats, played cards, readings that beat in turn,
    the table on top, its points (``ValueError`` naming the field)."""
    trick = checks.need_tuple(state.trick, "state.trick", max_length=NUM_NUMBER_CARDS)
    table = state.table
    if table is not None:
        try:
            check_reading(table)
        except ValueError as error:
            checks.fail("state.table", str(error))
    if (table is None) != (not trick):
        checks.fail("state.trick", "a trick in progress needs a table reading, and the reverse")
    if (table is None) != (state.table_player == -1):
        checks.fail("state.table_player", f"{state.table_player} does not fit state.table {table!r}")
    points = 0
    seen = 0
    previous: Reading | None = None
    for k, play in enumerate(trick):
        field = f"state.trick[{k}]"
        checks.need_tuple(play, field, 3)
        seat, cards, reading = play
        checks.need_seat(seat, f"{field}[0]", NUM_PLAYERS)
        checks.need_mask(cards, f"{field}[1]", ALL_CARDS)
        if not cards or cards & ~state.played[seat]:
            checks.fail(f"{field}[1]", f"{cards_str(cards)!r} is not a set of cards seat {seat} has played")
        if cards & NUMBER_MASK & seen:
            checks.fail(f"{field}[1]", "a number card is played twice in the trick")
        seen |= cards & NUMBER_MASK
        try:
            check_reading(reading)
        except ValueError as error:
            checks.fail(f"{field}[2]", str(error))
        if reading not in readings_of_mask(cards, config.lone_qk_wild, config.natural_faces_in_runs):
            checks.fail(f"{field}[2]", f"{reading!r} is not a reading of {cards_str(cards)}")
        if previous is not None and (seat == trick[k - 1][0] or not beats(reading, previous)):
            checks.fail(field, "each play of a trick is the other seat's and beats the one before")
        previous = reading
        points += points_of_mask(cards)
    if trick:
        if trick[-1][0] != state.table_player or previous != table:
            checks.fail("state.table", "the table is not the last play of the trick")
        if state.to_move == state.table_player:
            checks.fail("state.to_move", f"seat {state.to_move} played the table: the other seat answers")
    if state.trick_points != points:
        checks.fail("state.trick_points", f"{state.trick_points}, the trick's cards are worth {points}")


def validate_state(state: State, config: Config | None = None) -> None:
    """Check that ``state`` is a Haggis position with a player to move, field by field.

    Checked: the field types; seats and card ids in range; each seat's 14 number cards and
    own J, Q, K in its hand or played, no number card twice; the current trick (alternating
    seats, cards played by their seat, readings of those cards, each beating the previous,
    the table on top, the mover answering it) and its points; the hand's points adding up to
    the cards played; the hand under way (both hands hold cards) and the game not decided
    (A9). ``config``, if given, must be the state's.

    Raises:
        ValueError: naming the first field found wrong (``state.to_move: 9 is not a seat of
            a 2-player game``).
    """
    config = checks.need_state(state, State, Config, config)
    if checks.need_bool(state.hand_over, "state.hand_over"):
        checks.fail_finished("state.hand_over", "the hand is over")
    hands = checks.need_masks(state.hands, "state.hands", NUM_PLAYERS, ALL_CARDS)
    played = checks.need_masks(state.played, "state.played", NUM_PLAYERS, ALL_CARDS)
    checks.need_seat(state.to_move, "state.to_move", NUM_PLAYERS)
    checks.need_int(state.table_player, "state.table_player", -1, NUM_PLAYERS - 1)
    checks.need_int(state.trick_points, "state.trick_points", 0)
    hand_points = checks.need_ints(state.hand_points, "state.hand_points", NUM_PLAYERS, low=0)
    totals = checks.need_ints(state.totals, "state.totals", NUM_PLAYERS, low=0)
    hand_number = checks.need_int(state.hand_number, "state.hand_number", 1)
    checks.need_int(state.last_trick_winner, "state.last_trick_winner", -1, NUM_PLAYERS - 1)
    if state.last_hand_points is not None:
        checks.need_ints(state.last_hand_points, "state.last_hand_points", NUM_PLAYERS, low=0)
    if (hand_number == 1) != (state.last_hand_points is None):
        checks.fail("state.last_hand_points", f"{state.last_hand_points!r} does not fit hand {hand_number}")
    # Cards: number cards once over both seats, each seat's 14 of them and its own J, Q, K.
    checks.need_disjoint(
        [(f"state.{zone}[{s}]", getattr(state, zone)[s] & NUMBER_MASK) for zone in ("hands", "played")
         for s in range(NUM_PLAYERS)],
        card_str,
    )
    for s in range(NUM_PLAYERS):
        if hands[s] & played[s]:
            checks.fail(f"state.played[{s}]", f"{cards_str(hands[s] & played[s])} also in state.hands[{s}]")
        numbers = ((hands[s] | played[s]) & NUMBER_MASK).bit_count()
        if numbers != HAND_SIZE:
            checks.fail(f"state.hands[{s}]", f"seat {s} holds and played {numbers} numbers, not {HAND_SIZE}")
        if (hands[s] | played[s]) & FACE_MASK != FACE_MASK:
            checks.fail(f"state.hands[{s}]", f"seat {s}'s J, Q and K are not all in its hand or played")
        if not hands[s]:
            checks.fail_finished(f"state.hands[{s}]", "an empty hand ends the hand")
    _check_trick(state, config)
    in_tricks = points_of_mask(played[0]) + points_of_mask(played[1])
    if sum(hand_points) + state.trick_points != in_tricks:
        checks.fail(
            "state.hand_points",
            f"{hand_points} and {state.trick_points} in the trick; the cards played are worth {in_tricks}",
        )
    a, b = totals
    if max(a, b) >= config.target_score and a != b:
        checks.fail_finished("state.totals", f"{totals} reach target_score {config.target_score} (A9)")


def game_info(config: Config) -> GameInfo:
    """Declared contract of Haggis under ``config``."""
    if config.reward == "points":
        step = MAX_HAND_POINTS / 100
        bound = (config.target_score + MAX_HAND_POINTS) / 100
        return GameInfo(
            name="haggis",
            num_players=NUM_PLAYERS,
            max_game_length=None,
            min_reward=-step,
            max_reward=step,
            min_return=-bound,
            max_return=bound,
            zero_sum=True,
            reward_model="(own - opponent) hand score / 100 at the end of each hand",
        )
    return win_loss_info("haggis", NUM_PLAYERS, "+1 to the winner and -1 to the loser at the end of the game")


INFO = game_info(Config())
