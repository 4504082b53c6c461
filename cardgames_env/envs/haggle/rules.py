"""Haggle rules engine: a turn-based negotiation over colour cards, scored by :mod:`.scoring`.

Each player gets 10 colour cards and two secret rule cards (of the 12 scoring modifiers);
players trade cards and glimpses of rule cards, then every hand is scored with all rules and
the highest score wins. Source: Sid Sackson's Haggle for the cards and the scoring
(:mod:`.scoring`); the real game is free, simultaneous haggling, so the turn-based trading
protocol below is this implementation's.

Notes on this implementation:

* Deal: 2N cards of each colour, 10 per player; the 12 modifier cards (two copies
  of each when N > 6), two *different* ones per player.
* Trading: ``trading_rounds`` rounds (default 5); in each, seats 0..N-1 in turn are the
  proposer. A proposal is built in four proposer moves (modelled in the rules ``State``, so
  every move is one env action): ``Target`` (or ``Pass``), ``Give`` (0..K cards the proposer
  holds), ``Ask`` (0..K cards, unconstrained: the proposer cannot see the target's hand),
  ``Terms`` (optionally show one of its rule cards, optionally ask to see one). The offer may
  not be empty (some cards or some rule-card glimpse). The target then ``Reject``\\ s or
  ``Accept``\\ s (legal only if it holds the asked cards; with a request, ``Accept`` names the
  rule card it reveals). Cards move at once; shown rules become knowledge of the other party.
  Trading ends after the last round or after N consecutive passes.
* A shown rule is revealed on acceptance only; while the offer is pending the target sees
  that a rule would be shown, not which.
* Everyone sees who traded with whom and all hand sizes; only the two parties see contents.
* ``submission_phase=True`` (a variant, A8): after trading, each player in seat
  order chooses how many cards of each colour (Y, B, R, O, W in turn) to hand in.
* Scoring: a chance node draws the random 13-card cap from the env's Generator
  (:class:`CapDraw`), then :func:`scoring.score_counts` scores every hand with all 12 rules.
* ``points`` = the raw scores (``None`` = ELIMINATED); ``returns`` (terminal only) =
  (own score - mean of the others' scores) / 10, an ELIMINATED player counting as the lowest
  surviving score minus ``eliminated_margin`` (10). The returns sum to zero.

Decisions cited in the code by label (the scoring ones are described in :mod:`.scoring`;
quoted section names cite ``docs/rules/haggle.md``): A1 each player with 5+ Blue gives every
other player one -10, and each set of 3 Red cancels one; A2 the Yellow bonus walks down the
distinct counts; A3 only a unique most Red (above 0) doubles;
A5 the pyramid on the handed-in cards doubles the final total; A6 eliminated players leave the
cross-player rules; A7 the 13-card cap removes uniformly random cards; A8 the submission phase.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from cardgames_env.core import checks
from cardgames_env.core.game import CHANCE, TERMINAL, GameInfo, IllegalMoveError, plain_fields

from . import scoring
from .cards import (
    COLOUR_NAMES,
    COLOURS,
    EMPTY,
    HAND_SIZE,
    NUM_COLOURS,
    NUM_MODIFIERS,
    Counts,
    hand_str,
    multisets,
    parse_hand,
    parse_rule,
    rule_str,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 8


class Stage(IntEnum):
    """Where the game is: the proposer's four building steps, the reply, submission, scoring."""

    PROPOSE = 0  # proposer: Pass or Target
    GIVE = 1  # proposer: Give
    ASK = 2  # proposer: Ask
    TERMS = 3  # proposer: Terms (show / request a rule card)
    RESPOND = 4  # target: Reject or Accept
    SUBMIT = 5  # variant: choose how many cards of one colour to hand in
    SCORE = 6  # chance: the 13-card cap draw, then scoring
    DONE = 7


@dataclass(frozen=True)
class Config:
    """Haggle variants (defaults: docs/rules/haggle.md, "The game in the env" and
    "Decisions this implementation takes").

    Attributes:
        num_players: 2..8 players.
        trading_rounds: rounds in which every player proposes once (``T``, default 5).
        max_offer: most cards on each side of an offer (``K``, 1..5, default 3).
        submission_phase: players choose which cards to hand in (default: the whole hand).
        eliminated_margin: an ELIMINATED player's reward counts its score as the lowest
            surviving score minus this.
        eliminated_in_globals, yellow_cascade, yellow_min_count, elimination_penalty,
            pyramid_final: the scorer's variants (:class:`scoring.Config`).
    """

    num_players: int = 4
    trading_rounds: int = 5
    max_offer: int = 3
    submission_phase: bool = False
    eliminated_margin: int = 10
    eliminated_in_globals: bool = False
    yellow_cascade: bool = True
    yellow_min_count: int = 1
    elimination_penalty: int | None = None
    pyramid_final: bool = True

    def __post_init__(self) -> None:
        plain_fields(self)  # numpy ints and bools are accepted as ints and bools
        _check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        _check_int("trading_rounds", self.trading_rounds, 1, 100)
        _check_int("max_offer", self.max_offer, 1, 5)
        _check_int("eliminated_margin", self.eliminated_margin, 0, 1000)
        if not isinstance(self.submission_phase, bool):
            raise ValueError(f"submission_phase must be a bool, got {self.submission_phase!r}")
        # Validates the scorer's fields (ValueError naming the field).
        object.__setattr__(
            self,
            "_scoring",
            scoring.Config(
                eliminated_in_globals=self.eliminated_in_globals,
                yellow_cascade=self.yellow_cascade,
                yellow_min_count=self.yellow_min_count,
                elimination_penalty=self.elimination_penalty,
                pyramid_final=self.pyramid_final,
            ),
        )

    @property
    def scoring(self) -> scoring.Config:
        """The scorer's configuration (all 12 modifiers, this config's variants)."""
        return self._scoring  # type: ignore[attr-defined]

    @property
    def rule_copies(self) -> int:
        """Copies of each rule card: 2 when more than 6 players ("The game in the env")."""
        return 2 if self.num_players > 6 else 1


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"{name} must be an int in {low}..{high}, got {value!r}")


# --- moves -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pass:
    """The proposer makes no offer this turn."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class Target:
    """The proposer starts an offer to seat ``seat``."""

    seat: int

    def __str__(self) -> str:
        return f"offer P{self.seat}"


@dataclass(frozen=True)
class Give:
    """The cards (0..K, held by the proposer) the offer gives."""

    cards: Counts

    def __str__(self) -> str:
        return f"give {hand_str(self.cards) or '-'}"


@dataclass(frozen=True)
class Ask:
    """The cards (0..K) the offer asks for."""

    cards: Counts

    def __str__(self) -> str:
        return f"ask {hand_str(self.cards) or '-'}"


@dataclass(frozen=True)
class Terms:
    """Completes the offer: the proposer's rule card to show (or ``None``), and a request to see one."""

    show: int | None
    request: bool

    def __str__(self) -> str:
        show = "-" if self.show is None else rule_str(self.show)
        return f"terms show {show} request {'yes' if self.request else 'no'}"


@dataclass(frozen=True)
class Reject:
    """The target turns the offer down."""

    def __str__(self) -> str:
        return "reject"


@dataclass(frozen=True)
class Accept:
    """The target accepts; ``show`` is the rule card it reveals when the offer requested one."""

    show: int | None = None

    def __str__(self) -> str:
        return "accept" if self.show is None else f"accept show {rule_str(self.show)}"


@dataclass(frozen=True)
class Submit:
    """Submission variant: hand in ``count`` cards of ``colour`` (0..4 = Y B R O W)."""

    colour: int
    count: int

    def __str__(self) -> str:
        return f"submit {self.count} {COLOURS[self.colour]}"


Move = Pass | Target | Give | Ask | Terms | Reject | Accept | Submit


def _parse_cards(text: str) -> Counts:
    return EMPTY if text == "-" else parse_hand(text)


def parse_move(text: str) -> Move:
    """Parse move notation: ``pass``, ``offer P2``, ``give YYB``, ``ask -``,
    ``terms show S5 request yes``, ``reject``, ``accept``, ``accept show S3``, ``submit 3 R``.

    Raises:
        ValueError: if the text is no Haggle move.
    """
    words = text.strip().lower().split()
    try:
        match words:
            case ["pass"]:
                return Pass()
            case ["offer", seat] if seat.startswith("p") and seat[1:].isdigit():
                return Target(int(seat[1:]))
            case ["give", cards]:
                return Give(_parse_cards(cards))
            case ["ask", cards]:
                return Ask(_parse_cards(cards))
            case ["terms", "show", show, "request", ("yes" | "no") as request]:
                return Terms(None if show == "-" else parse_rule(show), request == "yes")
            case ["reject"]:
                return Reject()
            case ["accept"]:
                return Accept()
            case ["accept", "show", rule]:
                return Accept(parse_rule(rule))
            case ["submit", count, colour] if count.isdigit() and len(colour) == 1:
                return Submit(COLOURS.index(colour.upper()), int(count))
    except ValueError as error:
        raise ValueError(f"not a Haggle move: {text!r} ({error})") from None
    raise ValueError(
        f"not a Haggle move: {text!r} (expected e.g. 'pass', 'offer P2', 'give YYB', 'ask W', "
        "'terms show S5 request no', 'accept', 'accept show S3', 'reject', 'submit 3 R')"
    )


# --- deals -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Deal:
    """The initial deal: each seat's colour counts and its two rule cards (ids 0..11)."""

    hands: tuple[Counts, ...]
    rules: tuple[tuple[int, int], ...]

    @staticmethod
    def from_strings(hands: list[str], rules: list[str]) -> Deal:
        """Build a deal from hand letters and rule pairs, e.g. ``(["YYBBRROOWW", ...], ["S1 S5", ...])``."""
        pairs = []
        for text in rules:
            a, b = (parse_rule(r) for r in text.split())
            pairs.append((a, b))
        return Deal(tuple(parse_hand(h) for h in hands), tuple(pairs))


@dataclass(frozen=True)
class CapDraw:
    """The chance outcome of scoring: the counts each seat gets scored on after the 13-card cap."""

    kept: tuple[Counts, ...]


# --- state -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class State:
    """Full Haggle state (perfect information). Per-pair tables are flat, index ``a * N + b``.

    Attributes:
        config: the variants.
        hands: each seat's colour counts (Y, B, R, O, W).
        rules: each seat's two rule card ids (0..11 = scoring rules S1..S12).
        stage: a :class:`Stage` value.
        round: trading round, 0-based (``trading_rounds`` once trading is over).
        proposer: seat whose turn it is (trading), or the seat submitting (variant).
        passes: consecutive passes so far.
        target, give, ask, show, request: the offer being built or awaiting a reply
            (``target``/``show`` are -1 when unset).
        shown: ``shown[v * N + o]`` = bitmask of ``o``'s rule cards that ``v`` has seen.
        trades: ``trades[p * N + t]`` = accepted offers from proposer ``p`` to target ``t``.
        flows: ``flows[g * N + r]`` = counts of cards ``g`` has given ``r`` in accepted trades.
        last_partner: each seat's partner in its latest accepted trade (-1: none).
        last_received: the cards each seat received in that trade.
        submitted: cards handed in so far (submission variant; else equal to ``hands`` at the end).
        submit_colour: colour being submitted (variant).
        scores: the final scores (``None`` = ELIMINATED), once scored.
        kept: the counts scored after the 13-card cap, once scored.
    """

    config: Config
    hands: tuple[Counts, ...]
    rules: tuple[tuple[int, int], ...]
    stage: int = Stage.PROPOSE
    round: int = 0
    proposer: int = 0
    passes: int = 0
    target: int = -1
    give: Counts = EMPTY
    ask: Counts = EMPTY
    show: int = -1
    request: bool = False
    shown: tuple[int, ...] = ()
    trades: tuple[int, ...] = ()
    flows: tuple[Counts, ...] = ()
    last_partner: tuple[int, ...] = ()
    last_received: tuple[Counts, ...] = ()
    submitted: tuple[Counts, ...] = ()
    submit_colour: int = 0
    scores: tuple[int | None, ...] | None = None
    kept: tuple[Counts, ...] | None = None

    @property
    def num_players(self) -> int:
        """Seats in this game."""
        return len(self.hands)

    def handed_in(self) -> tuple[Counts, ...]:
        """The cards each seat hands in for scoring (the whole hand unless the variant is on)."""
        return self.submitted if self.config.submission_phase else self.hands


def _check_deal(config: Config, deal: Deal) -> None:
    n = config.num_players
    if len(deal.hands) != n or len(deal.rules) != n:
        raise ValueError(f"a deal needs {n} hands and {n} rule pairs")
    for seat, hand in enumerate(deal.hands):
        if len(hand) != NUM_COLOURS or min(hand) < 0 or sum(hand) != HAND_SIZE:
            raise ValueError(f"hand {seat} must hold {HAND_SIZE} colour cards, got {hand}")
    if tuple(map(sum, zip(*deal.hands))) != (2 * n,) * NUM_COLOURS:
        raise ValueError(f"a deal must give out exactly {2 * n} cards of each colour")
    used = [0] * NUM_MODIFIERS
    for seat, (a, b) in enumerate(deal.rules):
        if a == b or not (0 <= a < NUM_MODIFIERS and 0 <= b < NUM_MODIFIERS):
            raise ValueError(f"seat {seat} needs two different rule cards 0..11, got {(a, b)}")
        used[a] += 1
        used[b] += 1
    if max(used) > config.rule_copies:
        raise ValueError(f"a rule card is dealt more than {config.rule_copies} time(s)")


def new_game(config: Config, deal: Deal) -> State:
    """Start the trading phase from a deal; seat 0 proposes first."""
    _check_deal(config, deal)
    n = config.num_players
    return State(
        config=config,
        hands=tuple(tuple(h) for h in deal.hands),  # type: ignore[misc]
        rules=tuple((min(r), max(r)) for r in deal.rules),
        shown=(0,) * (n * n),
        trades=(0,) * (n * n),
        flows=(EMPTY,) * (n * n),
        last_partner=(-1,) * n,
        last_received=(EMPTY,) * n,
        submitted=(EMPTY,) * n,
    )


def sample_deal(state_or_config: State | Config, rng: np.random.Generator) -> Deal | CapDraw:
    """Draw a chance outcome: the initial deal for a ``Config``, the cap draw at scoring."""
    if isinstance(state_or_config, State):
        state = state_or_config
        if state.stage != Stage.SCORE:
            raise ValueError("a State only has a chance outcome at scoring")
        return CapDraw(tuple(scoring.cap_counts(h, rng) for h in state.handed_in()))
    config = state_or_config
    n = config.num_players
    deck = np.repeat(np.arange(NUM_COLOURS), 2 * n)
    order = rng.permutation(deck).reshape(n, HAND_SIZE)
    hands = tuple(tuple(int(c) for c in np.bincount(row, minlength=NUM_COLOURS)) for row in order)
    pool = np.repeat(np.arange(NUM_MODIFIERS), config.rule_copies)
    while True:  # two different rule cards each (a retry only when there are two copies)
        pairs = rng.permutation(pool)[: 2 * n].reshape(n, 2)
        if all(a != b for a, b in pairs):
            break
    rules = tuple((int(a), int(b)) for a, b in pairs)
    return Deal(hands, rules)  # type: ignore[arg-type]


def apply_deal(state: State, deal: Deal | CapDraw) -> State:
    """Score the game from the cap draw (the only chance node after the start)."""
    if state.stage != Stage.SCORE or not isinstance(deal, CapDraw):
        raise IllegalMoveError("only the scoring cap draw can be applied, and only at scoring")
    handed = state.handed_in()
    if len(deal.kept) != len(handed):
        raise ValueError("the cap draw needs one hand per seat")
    for kept, hand in zip(deal.kept, handed):
        if any(k < 0 or k > h for k, h in zip(kept, hand)) or sum(kept) != min(sum(hand), scoring.CARD_LIMIT):
            raise ValueError(f"cap draw {kept} does not keep min(13, cards) cards of {hand}")
    scores = scoring.score_counts(handed, deal.kept, state.config.scoring)
    return dataclasses.replace(state, stage=Stage.DONE, scores=tuple(scores), kept=deal.kept)


# --- queries -----------------------------------------------------------------------------------
def current_player(state: State) -> int:
    """Seat to move, ``CHANCE`` at scoring, ``TERMINAL`` at the end."""
    stage = state.stage
    if stage < Stage.RESPOND or stage == Stage.SUBMIT:
        return state.proposer
    if stage == Stage.RESPOND:
        return state.target
    return CHANCE if stage == Stage.SCORE else TERMINAL


def is_terminal(state: State) -> bool:
    """True once every hand is scored."""
    return state.stage == Stage.DONE


@functools.lru_cache(maxsize=8)
def offer_sets(max_offer: int) -> tuple[Counts, ...]:
    """The card multisets an offer can give or ask (0..``max_offer`` cards)."""
    return multisets(max_offer)


def _fits(cards: tuple[int, ...], hand: tuple[int, ...]) -> bool:
    return all(c <= h for c, h in zip(cards, hand))


def offer_is_empty(state: State) -> bool:
    """True when the offer being built so far moves no card."""
    return not any(state.give) and not any(state.ask)


def legal_moves(state: State) -> tuple[Move, ...]:
    """Every legal move of the player to move (empty at chance nodes and at the end)."""
    stage = state.stage
    n = state.num_players
    if stage == Stage.PROPOSE:
        return (Pass(), *(Target(s) for s in range(n) if s != state.proposer))
    if stage == Stage.GIVE:
        hand = state.hands[state.proposer]
        return tuple(Give(m) for m in offer_sets(state.config.max_offer) if _fits(m, hand))
    if stage == Stage.ASK:
        return tuple(Ask(m) for m in offer_sets(state.config.max_offer))
    if stage == Stage.TERMS:
        shows: tuple[int | None, ...] = (None, *state.rules[state.proposer])
        empty = offer_is_empty(state)
        return tuple(
            Terms(show, request)
            for show in shows
            for request in (False, True)
            if not (empty and show is None and not request)  # the offer may not be empty
        )
    if stage == Stage.RESPOND:
        if not _fits(state.ask, state.hands[state.target]):
            return (Reject(),)
        if state.request:
            return (Reject(), *(Accept(r) for r in state.rules[state.target]))
        return (Reject(), Accept())
    if stage == Stage.SUBMIT:
        colour = state.submit_colour
        held = state.hands[state.proposer][colour]
        return tuple(Submit(colour, k) for k in range(held + 1))
    return ()


def is_legal(state: State, move: Move) -> bool:
    """True iff ``move`` is one of :func:`legal_moves` (checked directly, without listing them)."""
    stage = state.stage
    kind = type(move)
    if stage == Stage.PROPOSE:
        if kind is Pass:
            return True
        return kind is Target and move.seat in range(state.num_players) and move.seat != state.proposer  # type: ignore[union-attr]
    if stage == Stage.GIVE:
        return (
            kind is Give
            and move.cards in _offer_lookup(state.config.max_offer)  # type: ignore[union-attr]
            and _fits(move.cards, state.hands[state.proposer])  # type: ignore[union-attr]
        )
    if stage == Stage.ASK:
        return kind is Ask and move.cards in _offer_lookup(state.config.max_offer)  # type: ignore[union-attr]
    if stage == Stage.TERMS:
        if kind is not Terms or not isinstance(move.request, bool):  # type: ignore[union-attr]
            return False
        show = move.show  # type: ignore[union-attr]
        if show is not None and show not in state.rules[state.proposer]:
            return False
        return not (offer_is_empty(state) and show is None and not move.request)  # type: ignore[union-attr]
    if stage == Stage.RESPOND:
        if kind is Reject:
            return True
        if kind is not Accept or not _fits(state.ask, state.hands[state.target]):
            return False
        if state.request:
            return move.show in state.rules[state.target]  # type: ignore[union-attr,operator]
        return move.show is None  # type: ignore[union-attr]
    if stage == Stage.SUBMIT:
        return (
            kind is Submit
            and move.colour == state.submit_colour  # type: ignore[union-attr]
            and 0 <= move.count <= state.hands[state.proposer][state.submit_colour]  # type: ignore[union-attr]
        )
    return False


@functools.lru_cache(maxsize=8)
def _offer_lookup(max_offer: int) -> frozenset[Counts]:
    return frozenset(offer_sets(max_offer))


def apply_move(state: State, move: Move) -> State:
    """Apply a move of the player to move.

    Raises:
        IllegalMoveError: when the move is not legal in ``state``.
    """
    if not is_legal(state, move):
        raise IllegalMoveError(f"{move!r} is not legal here (stage {Stage(state.stage).name})")
    replace = dataclasses.replace
    if isinstance(move, Pass):
        return _next_turn(state, state.passes + 1)
    if isinstance(move, Target):
        return replace(state, stage=Stage.GIVE, target=move.seat)
    if isinstance(move, Give):
        return replace(state, stage=Stage.ASK, give=move.cards)
    if isinstance(move, Ask):
        return replace(state, stage=Stage.TERMS, ask=move.cards)
    if isinstance(move, Terms):
        return replace(
            state, stage=Stage.RESPOND, show=-1 if move.show is None else move.show, request=move.request
        )
    if isinstance(move, Reject):
        return _next_turn(state, 0)
    if isinstance(move, Accept):
        return _next_turn(_trade(state, move), 0)
    assert isinstance(move, Submit)
    return _submit(state, move)


def _add(a: Counts, b: Counts) -> Counts:
    return tuple(x + y for x, y in zip(a, b))  # type: ignore[return-value]


def _sub(a: Counts, b: Counts) -> Counts:
    return tuple(x - y for x, y in zip(a, b))  # type: ignore[return-value]


def _trade(state: State, move: Accept) -> State:
    """Move the offered cards at once and record what each party learnt."""
    n = state.num_players
    p, t = state.proposer, state.target
    hands = list(state.hands)
    hands[p] = _add(_sub(hands[p], state.give), state.ask)
    hands[t] = _add(_sub(hands[t], state.ask), state.give)
    shown = list(state.shown)
    if state.show >= 0:
        shown[t * n + p] |= 1 << state.show
    if move.show is not None:
        shown[p * n + t] |= 1 << move.show
    trades = list(state.trades)
    trades[p * n + t] += 1
    flows = list(state.flows)
    flows[p * n + t] = _add(flows[p * n + t], state.give)
    flows[t * n + p] = _add(flows[t * n + p], state.ask)
    partner = list(state.last_partner)
    partner[p], partner[t] = t, p
    received = list(state.last_received)
    received[p], received[t] = state.ask, state.give
    return dataclasses.replace(
        state,
        hands=tuple(hands),
        shown=tuple(shown),
        trades=tuple(trades),
        flows=tuple(flows),
        last_partner=tuple(partner),
        last_received=tuple(received),
    )


def _next_turn(state: State, passes: int) -> State:
    """Clear the offer and hand the turn to the next seat; end trading when it is over."""
    n = state.num_players
    proposer, round_ = state.proposer + 1, state.round
    if proposer == n:
        proposer, round_ = 0, round_ + 1
    over = passes >= n or round_ >= state.config.trading_rounds  # N passes in a row, or T rounds
    common: dict[str, Any] = dict(passes=passes, target=-1, give=EMPTY, ask=EMPTY, show=-1, request=False)
    if not over:
        return dataclasses.replace(state, stage=Stage.PROPOSE, proposer=proposer, round=round_, **common)
    round_ = state.config.trading_rounds
    if state.config.submission_phase:
        return dataclasses.replace(
            state, stage=Stage.SUBMIT, proposer=0, round=round_, submit_colour=0, **common
        )
    return dataclasses.replace(state, stage=Stage.SCORE, proposer=0, round=round_, **common)


def _submit(state: State, move: Submit) -> State:
    """Record one colour of the submitting seat; move to the next colour, seat, or scoring."""
    seat = state.proposer
    submitted = list(state.submitted)
    mine = list(submitted[seat])
    mine[move.colour] = move.count
    submitted[seat] = tuple(mine)  # type: ignore[assignment]
    colour = move.colour + 1
    if colour < NUM_COLOURS:
        return dataclasses.replace(state, submitted=tuple(submitted), submit_colour=colour)
    if seat + 1 < state.num_players:
        return dataclasses.replace(state, submitted=tuple(submitted), submit_colour=0, proposer=seat + 1)
    return dataclasses.replace(state, submitted=tuple(submitted), submit_colour=0, stage=Stage.SCORE)


def points(state: State) -> tuple[int | None, ...]:
    """Raw scores once scored (``None`` = ELIMINATED); all ``0`` before the end."""
    if state.scores is None:
        return (0,) * state.num_players
    return state.scores


def reward_scores(scores: tuple[int | None, ...], margin: int) -> tuple[int, ...]:
    """Scores with each ELIMINATED player counted as the lowest surviving score minus ``margin``."""
    alive = [s for s in scores if s is not None]
    floor = (min(alive) if alive else 0) - margin
    return tuple(floor if s is None else s for s in scores)


def returns(state: State) -> tuple[float, ...]:
    """RL return: at the end (own score - mean of the others) / 10; zeros before (terminal only)."""
    n = state.num_players
    if state.scores is None:
        return (0.0,) * n
    values = reward_scores(state.scores, state.config.eliminated_margin)
    total = sum(values)
    return tuple((v - (total - v) / (n - 1)) / 10 for v in values)


def winners(state: State) -> tuple[int, ...]:
    """Seats with the highest score (ties shared), once scored."""
    values = reward_scores(points(state), state.config.eliminated_margin)
    best = max(values)
    return tuple(s for s, v in enumerate(values) if v == best)


# --- hidden information ----------------------------------------------------------------------
def known_cards(state: State, player: int, seat: int) -> Counts:
    """Cards ``player`` knows ``seat`` holds: what it received from ``player`` in its latest
    trade when that trade was with ``player``, and the cards of its pending offer."""
    need = EMPTY
    if state.last_partner[seat] == player:
        need = state.last_received[seat]
    if seat == state.proposer and Stage.ASK <= state.stage <= Stage.RESPOND:
        need = tuple(max(a, b) for a, b in zip(need, state.give))  # type: ignore[assignment]
    if state.config.submission_phase:
        need = tuple(max(a, b) for a, b in zip(need, state.submitted[seat]))  # type: ignore[assignment]
    return need


def resample_hidden(state: State, player: int, rng: np.random.Generator) -> State:
    """Re-deal what ``player`` cannot see, keeping everything it knows.

    Other seats' colour cards are re-dealt from the cards ``player`` does not hold, keeping
    every hand size and the cards ``player`` knows a seat holds (:func:`known_cards`). Rule
    cards ``player`` has not seen are re-dealt from the unseen ones (two different per seat),
    and every record of them (shows between other seats, a pending offer's shown card) is
    renamed consistently. Offer contents between other seats are kept.
    """
    n = state.num_players
    others = [s for s in range(n) if s != player]
    # Colour cards.
    known = {s: known_cards(state, player, s) for s in others}
    pool = [0] * NUM_COLOURS  # the colour cards of the other hands that player does not know
    for s in others:
        for colour, (held, seen) in enumerate(zip(state.hands[s], known[s])):
            pool[colour] += held - seen
    cards = np.repeat(np.arange(NUM_COLOURS), pool)
    rng.shuffle(cards)
    drawn = cards.tolist()
    hands = list(state.hands)
    start = 0
    for s in others:
        hand = list(known[s])
        extra = sum(state.hands[s]) - sum(hand)
        for colour in drawn[start : start + extra]:
            hand[colour] += 1
        hands[s] = tuple(hand)  # type: ignore[assignment]
        start += extra
    # Rule cards: keep the ones player has seen, redraw the others.
    copies = [state.config.rule_copies] * NUM_MODIFIERS
    fixed: dict[int, set[int]] = {}
    for r in state.rules[player]:
        copies[r] -= 1
    for s in others:
        seen = state.shown[player * n + s]
        fixed[s] = {r for r in state.rules[s] if seen >> r & 1}
        for r in fixed[s]:
            copies[r] -= 1
    unseen = [r for r in range(NUM_MODIFIERS) for _ in range(copies[r])]
    for _ in range(1000):
        order = [unseen[i] for i in rng.permutation(len(unseen))]
        new_rules, renames, ok = list(state.rules), {}, True
        for s in others:
            new_pair, rename = [], {}
            for r in state.rules[s]:
                new = r if r in fixed[s] else order.pop()
                new_pair.append(new)
                rename[r] = new
            if new_pair[0] == new_pair[1]:
                ok = False
                break
            new_rules[s] = (min(new_pair), max(new_pair))
            renames[s] = rename
        if ok:
            break
    else:  # pragma: no cover - the actual deal is always a solution
        raise RuntimeError("could not re-deal the unseen rule cards")
    return redealt(state, player, hands, new_rules, renames)


def redealt(
    state: State,
    player: int,
    hands: list[Counts],
    rules: list[tuple[int, int]],
    renames: dict[int, dict[int, int]],
) -> State:
    """``state`` with other seats' ``hands`` and ``rules`` re-dealt for ``player``: every record
    of a renamed rule card (``renames[owner][old] = new``: shows between seats, a pending
    offer's shown card) follows its new name, so the public history stays consistent."""
    n = state.num_players
    shown = list(state.shown)
    for owner, rename in renames.items():
        bit_pairs = [(1 << r, 1 << rename[r]) for r in state.rules[owner]]
        for at in range(owner, n * n, n):  # every viewer's record of the owner's rule cards
            bits, renamed = shown[at], 0
            for old_bit, new_bit in bit_pairs:
                if bits & old_bit:
                    renamed |= new_bit
            shown[at] = renamed
    show = state.show
    if show >= 0 and state.proposer != player:
        show = renames[state.proposer][show]
    return dataclasses.replace(state, hands=tuple(hands), rules=tuple(rules), shown=tuple(shown), show=show)


# --- validation ----------------------------------------------------------------------------------
def _check_offer(state: State, config: Config, n: int) -> None:
    """Check the offer fields against the stage: what each building step has set, and no
    more (``ValueError`` naming the field)."""
    stage, proposer = state.stage, state.proposer
    building = Stage.GIVE <= stage <= Stage.RESPOND
    give = checks.need_counts(state.give, "state.give", NUM_COLOURS)
    ask = checks.need_counts(state.ask, "state.ask", NUM_COLOURS)
    show = checks.need_int(state.show, "state.show", -1, NUM_MODIFIERS - 1)
    request = checks.need_bool(state.request, "state.request")
    target = checks.need_int(state.target, "state.target", -1, n - 1)
    if building and (target == -1 or target == proposer):
        checks.fail("state.target", f"{target} is not another seat, in stage {Stage(stage).name}")
    if not building and target != -1:
        checks.fail("state.target", f"{target} is set in stage {Stage(stage).name} (must be -1)")
    for name, cards, set_from in (("give", give, Stage.ASK), ("ask", ask, Stage.TERMS)):
        if sum(cards) > config.max_offer:
            checks.fail(f"state.{name}", f"{hand_str(cards)} is more than max_offer={config.max_offer} cards")
        if any(cards) and not set_from <= stage <= Stage.RESPOND:
            checks.fail(f"state.{name}", f"{hand_str(cards)} in stage {Stage(stage).name} (must be empty)")
    if not _fits(give, state.hands[proposer]) and building:
        checks.fail("state.give", f"{hand_str(give)} is not in the proposer's hand")
    if stage != Stage.RESPOND and (show != -1 or request):
        checks.fail("state.show" if show != -1 else "state.request", f"set in stage {Stage(stage).name}")
    if show != -1 and show not in state.rules[proposer]:
        checks.fail("state.show", f"{rule_str(show)} is not one of the proposer's rule cards")
    if stage == Stage.RESPOND and offer_is_empty(state) and show == -1 and not request:
        checks.fail("state.give", "the offer awaiting a reply is empty (no cards, no rule card)")


def _check_records(state: State, n: int) -> None:
    """Check the public records of past trades: shows, trade counts, card flows, latest
    partners (``ValueError`` naming the field)."""
    shown = checks.need_ints(state.shown, "state.shown", n * n, low=0)
    checks.need_ints(state.trades, "state.trades", n * n, low=0)
    flows = checks.need_tuple(state.flows, "state.flows", n * n)
    for i, flow in enumerate(flows):
        checks.need_counts(flow, f"state.flows[{i}]", NUM_COLOURS)
    for v in range(n):
        for o in range(n):
            i = v * n + o
            owned = sum(1 << r for r in state.rules[o])
            if shown[i] & ~owned or (v == o and shown[i]):
                checks.fail(f"state.shown[{i}]", f"seat {v} has seen rule cards seat {o} does not hold")
            if v == o and (state.trades[i] or any(flows[i])):
                field = f"state.trades[{i}]" if state.trades[i] else f"state.flows[{i}]"
                checks.fail(field, "a seat trading with itself")
    partners = checks.need_ints(state.last_partner, "state.last_partner", n, low=-1, high=n - 1)
    for s, partner in enumerate(partners):
        if partner == s:
            checks.fail(f"state.last_partner[{s}]", f"seat {s} cannot be its own partner")
    received = checks.need_tuple(state.last_received, "state.last_received", n)
    for s, cards in enumerate(received):
        checks.need_counts(cards, f"state.last_received[{s}]", NUM_COLOURS)


def _check_submission(state: State, config: Config, n: int) -> None:
    """Check the cards handed in so far: none before the submission stage, then every colour
    of the seats before the submitting one, the colours before ``submit_colour`` of that seat
    (``ValueError`` naming the field)."""
    colour = checks.need_int(state.submit_colour, "state.submit_colour", 0, NUM_COLOURS - 1)
    submitted = checks.need_tuple(state.submitted, "state.submitted", n)
    submitting = state.stage == Stage.SUBMIT
    if colour and not submitting:
        checks.fail("state.submit_colour", f"{colour} is set in stage {Stage(state.stage).name} (must be 0)")
    for s, cards in enumerate(submitted):
        field = f"state.submitted[{s}]"
        checks.need_counts(cards, field, NUM_COLOURS)
        done = NUM_COLOURS if s < state.proposer else colour if s == state.proposer else 0
        if not submitting:
            done = 0
        if any(cards[done:]):
            checks.fail(field, f"{hand_str(cards)}: colours not yet submitted hold cards")
        if not _fits(cards, state.hands[s]):
            checks.fail(field, f"{hand_str(cards)} is not in seat {s}'s hand")


def validate_state(state: State, config: Config | None = None) -> None:
    """Check that ``state`` is a Haggle position with a player to move, field by field.

    Checked: the field types and sizes; seats, colours and rule cards in range; the 2N cards
    of each colour in the hands, each seat's two different rule cards (each dealt at most
    ``rule_copies`` times); the stage (trading or submission, never scoring or the end) with
    its round, proposer and pass count; the offer built so far as its stage allows; shows,
    trades and card flows between different seats; the cards handed in so far. ``config``,
    if given, must be the state's.

    Raises:
        ValueError: naming the first field found wrong (``state.proposer: 99 is not a seat of
            a 4-player game``).
    """
    config = checks.need_state(state, State, Config, config)
    n = config.num_players
    stage = checks.need_int(state.stage, "state.stage", int(Stage.PROPOSE), int(Stage.DONE))
    if stage >= Stage.SCORE:
        checks.fail_finished("state.stage", f"stage {Stage(stage).name}")
    if state.scores is not None or state.kept is not None:
        checks.fail("state.scores" if state.scores is not None else "state.kept", "set before scoring")
    if stage == Stage.SUBMIT and not config.submission_phase:
        checks.fail("state.stage", "SUBMIT needs submission_phase=True")
    hands = checks.need_tuple(state.hands, "state.hands", n)
    for s, hand in enumerate(hands):
        checks.need_counts(hand, f"state.hands[{s}]", NUM_COLOURS)
    checks.need_count_totals(
        [(f"state.hands[{s}]", hand) for s, hand in enumerate(hands)],
        (2 * n,) * NUM_COLOURS,
        lambda colour: COLOUR_NAMES[colour],
    )
    copies = [0] * NUM_MODIFIERS
    for s, pair in enumerate(checks.need_tuple(state.rules, "state.rules", n)):
        checks.need_ints(pair, f"state.rules[{s}]", 2, low=0, high=NUM_MODIFIERS - 1)
        if pair[0] >= pair[1]:
            checks.fail(f"state.rules[{s}]", f"{pair} must be two different rule cards, lower first")
        for rule in pair:
            copies[rule] += 1
            if copies[rule] > config.rule_copies:
                copies_ = config.rule_copies
                checks.fail(f"state.rules[{s}]", f"{rule_str(rule)} dealt more than {copies_} time(s)")
    trading = stage < Stage.SUBMIT
    last_round = config.trading_rounds - 1
    checks.need_int(state.round, "state.round", 0, last_round if trading else config.trading_rounds)
    if not trading and state.round != config.trading_rounds:
        checks.fail("state.round", f"{state.round}: submission follows all {config.trading_rounds} rounds")
    checks.need_seat(state.proposer, "state.proposer", n)
    checks.need_int(state.passes, "state.passes", 0, n - 1 if trading else n)
    _check_offer(state, config, n)
    _check_records(state, n)
    _check_submission(state, config, n)


# --- declared contract -------------------------------------------------------------------------
@functools.lru_cache(maxsize=32)
def score_bounds(config: Config) -> tuple[int, int]:
    """(lowest, highest) score a seat can count for in the rewards under ``config``.

    The highest: a brute force over every scored hand of at most 13 cards (at most 2N of a
    colour) scored alone, which grants it the Yellow and Red bonuses whenever it can earn
    them and no Blue penalty. The lowest: every possible culprit (at most 2N // 5 hold 5 Blue),
    no protection, the penalty variant on all five colours, doubled by a pyramid, then the
    ELIMINATED margin.
    """
    n = config.num_players
    sconf = config.scoring
    high = 0
    for counts in multisets(scoring.CARD_LIMIT):
        if max(counts) <= 2 * n:
            value = scoring.score_counts([counts], None, sconf)[0]
            if value is not None:
                high = max(high, value)
    culprits = min(n - 1, (2 * n) // 5)
    penalty_floor = min(0, sconf.elimination_penalty or 0) * NUM_COLOURS
    low = 2 * (penalty_floor - 10 * culprits) - config.eliminated_margin
    return low, high


def game_info(config: Config) -> GameInfo:
    """Declared contract of Haggle under ``config``."""
    n = config.num_players
    low, high = score_bounds(config)
    spread = (high - low) / 10
    submission = n * NUM_COLOURS if config.submission_phase else 0
    return GameInfo(
        name="haggle",
        num_players=n,
        max_game_length=config.trading_rounds * n * 5 + submission,
        min_reward=-spread,
        max_reward=spread,
        min_return=-spread,
        max_return=spread,
        zero_sum=True,
        reward_model="terminal only: (own score - mean of the others' scores) / 10",
    )


INFO = game_info(Config())
