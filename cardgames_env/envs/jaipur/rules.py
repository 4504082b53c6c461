"""Jaipur rules engine: two traders take goods from a market and sell them for rupee tokens.

On each turn a player either takes cards (an exchange of at least two goods, one good, or
all the camels) or sells cards of one type for goods tokens (plus a bonus token for 3+
cards); the richer player of a round wins a Seal of Excellence, and two Seals win the game.
Source: the Jaipur rulebook; the choices this implementation makes where the rulebook leaves
one open are labelled A1-A8 here and in the code.

Notes on this implementation:

* Episode = the whole game: rounds until a player holds 2 Seals (``rounds=1`` plays a single
  round; ``rounds=k`` at most ``k`` rounds, more Seals winning). A full tie (rupees, bonus
  count and goods-token count all equal) gives no Seal and another round is played, started
  by the opponent of the previous starter; after ``max_rounds`` rounds without a player
  holding 2 Seals the game is a draw (A7). Later rounds are started by the previous loser.
* Exchanges take k >= 2 goods (never camels) and give back k cards (goods of types not
  taken, and/or camels from the herd); only the end-of-turn hand counts for the 7-card
  limit (A1, A2). The round ends as soon as a refill cannot be completed (A3), or right
  after a sale that leaves three goods-token stacks empty (A5). Selling into an empty stack
  is legal (A4). If the player to move had no legal move the round would end (A8, safety
  rule; unreachable with a 5-card market).
* Card zones are count tuples indexed by :class:`cards.Good` (camel last); the deck is a
  tuple of card types, top first. Goods stacks and bonus piles are tuples of token values,
  top first. ``known`` records, per player, the goods the opponent has seen enter that
  player's hand (public information, a lower bound on the hand).
* ``hidden_herd=True`` (a variant) hides only the number on the herd: the
  observation keeps the public card counts (market, discard pile, deck size, hand sizes,
  A6), from which the opponent's herd size follows by counting the 55 cards.
* Rewards: ``reward="win"`` gives +1 / -1 / 0 at the end of the game; ``reward="points"``
  gives (own rupees - opponent's rupees) / 100 at the end of every round.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

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

from . import scoring
from .cards import (
    BONUS_KINDS,
    BONUS_TOKENS,
    CAMEL,
    COMPOSITION,
    DECK_SIZE,
    GOODS_TOKENS,
    HAND_DEAL,
    HAND_LIMIT,
    MARKET_CAMELS,
    MARKET_SIZE,
    MIN_SALE,
    NAMES,
    NUM_GOODS,
    NUM_PLAYERS,
    NUM_TYPES,
    SEALS_TO_WIN,
    card_name,
    counts,
    format_cards,
    parse_card,
    parse_cards,
)

REWARD_MODELS = ("win", "points")
EXCHANGE_ENCODINGS = ("flat", "substeps")
"""Values of ``Config.exchange_encoding`` (an encoding choice only; the rules are the same)."""
MAX_ROUND_RUPEES = sum(map(sum, GOODS_TOKENS)) + sum(map(sum, BONUS_TOKENS)) + 5
"""Largest possible rupee total of one player in one round (every token): 224."""


@dataclass(frozen=True)
class Config:
    """Jaipur variants (defaults: docs/rules/jaipur.md, "Decisions this implementation takes").

    Attributes:
        hidden_herd: the observation shows only whether the opponent's herd is empty (a
            variant). The size is not secret: every other card zone is public (A6), so
            it is 55 minus the observer's hand, the market, the observer's herd, the
            opponent's hand size, the deck and the discard pile (and the camel moves are public).
        max_rounds: most rounds of a standard game (full ties can prolong it); then a draw.
        rounds: ``None`` = the standard game (first to 2 Seals); ``k`` = at most ``k`` rounds,
            the player with more Seals wins (``rounds=1``: one round per episode).
        reward: ``"win"`` (+1 / -1 / 0 at the end of the game) or ``"points"`` (rupee
            difference / 100 at the end of each round).
        exchange_encoding: how the env encodes exchanges as actions; it changes only the
            encoding, never the rules (the same moves are legal and reachable). ``"flat"``
            (default): one action per exchange (25,505 actions in all). ``"substeps"``: an
            exchange is built card by card (take goods in non-decreasing type order, then give
            cards in non-decreasing type order, then ``exchange_done``; 63 actions in all).
    """

    hidden_herd: bool = False
    max_rounds: int = 5
    rounds: int | None = None
    reward: str = "win"
    exchange_encoding: str = "flat"

    def __post_init__(self) -> None:
        plain_fields(self)  # numpy ints and bools are accepted as ints and bools
        if not isinstance(self.hidden_herd, bool):
            raise ValueError(f"hidden_herd must be a bool, got {self.hidden_herd!r}")
        if not isinstance(self.max_rounds, int) or isinstance(self.max_rounds, bool) or self.max_rounds < 1:
            raise ValueError(f"max_rounds must be a positive int, got {self.max_rounds!r}")
        if self.rounds is not None and (
            not isinstance(self.rounds, int) or isinstance(self.rounds, bool) or self.rounds < 1
        ):
            raise ValueError(f"rounds must be None or a positive int, got {self.rounds!r}")
        if self.reward not in REWARD_MODELS:
            raise ValueError(f"reward must be one of {REWARD_MODELS}, got {self.reward!r}")
        if self.exchange_encoding not in EXCHANGE_ENCODINGS:
            raise ValueError(
                f"exchange_encoding must be one of {EXCHANGE_ENCODINGS}, got {self.exchange_encoding!r}"
            )

    @property
    def round_cap(self) -> int:
        """Most rounds an episode can last."""
        return self.rounds if self.rounds is not None else self.max_rounds


# -- moves ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TakeOne:
    """Take one goods card from the market (rulebook B); the slot is refilled from the deck."""

    good: int

    def __str__(self) -> str:
        return f"take {NAMES[self.good]}"


@dataclass(frozen=True, slots=True)
class TakeCamels:
    """Take all the camels of the market into the herd (rulebook C); refill the slots."""

    def __str__(self) -> str:
        return "camels"


@dataclass(frozen=True, slots=True)
class Sell:
    """Sell ``count`` cards of one goods type (rulebook D)."""

    good: int
    count: int

    def __str__(self) -> str:
        return f"sell {self.count} {NAMES[self.good]}"


@dataclass(frozen=True, slots=True)
class Exchange:
    """Take several goods from the market and give back as many cards (rulebook A).

    Attributes:
        take: counts of the 6 goods types taken from the market.
        give: counts of the 7 card types given back (goods from the hand, camels from the herd).
    """

    take: tuple[int, ...]
    give: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.take) != NUM_GOODS or len(self.give) != NUM_TYPES:
            raise ValueError("an exchange needs 6 take counts and 7 give counts")

    def __str__(self) -> str:
        return f"exchange {format_cards(self.take)} for {format_cards(self.give)}"

    @staticmethod
    def of(take: str, give: str) -> Exchange:
        """Build an exchange from names, e.g. ``Exchange.of("gold,silver", "spice,camel")``."""
        return Exchange(parse_cards(take, NUM_GOODS), parse_cards(give, NUM_TYPES))


Move = TakeOne | TakeCamels | Sell | Exchange


def parse_move(text: str) -> Move:
    """Parse move notation: ``take diamond``, ``camels``, ``sell 3 leather``,
    ``exchange gold,silver for spice,camel``.

    Raises:
        ValueError: if the text is not a Jaipur move.
    """
    words = text.strip().lower().split()
    try:
        if words in (["camels"], ["take", "camels"], ["take", "camel"]):
            return TakeCamels()
        if len(words) == 2 and words[0] == "take":
            good = parse_card(words[1])
            if good == CAMEL:
                raise ValueError("camels are taken all at once: 'camels'")
            return TakeOne(good)
        if len(words) == 3 and words[0] == "sell" and words[1].isdigit():
            good = parse_card(words[2])
            if good == CAMEL:
                raise ValueError("camels cannot be sold")
            return Sell(good, int(words[1]))
        if words and words[0] == "exchange":
            rest = " ".join(words[1:])
            take, sep, give = rest.partition(" for ")
            if sep and take.strip() and give.strip():
                return Exchange(parse_cards(take, NUM_GOODS), parse_cards(give, NUM_TYPES))
    except ValueError as err:
        raise ValueError(f"not a Jaipur move: {text!r} ({err})") from None
    raise ValueError(
        f"not a Jaipur move: {text!r} (expected e.g. 'take diamond', 'camels', 'sell 3 leather', "
        "'exchange gold,silver for spice,camel')"
    )


# -- deals and state --------------------------------------------------------------------------


@dataclass(frozen=True)
class Deal:
    """One round's shuffle, explicit.

    Attributes:
        hands: the 5 card types dealt to each player.
        market: the 2 cards drawn to the market after the 3 camels.
        deck: the remaining 40 cards, top first.
        bonus_piles: the 3-, 4- and 5-card bonus piles, top first.
        starter: the first player of the game (used by ``new_game``; later rounds are started
            by the previous round's loser).
    """

    hands: tuple[tuple[int, ...], ...]
    market: tuple[int, ...]
    deck: tuple[int, ...]
    bonus_piles: tuple[tuple[int, ...], ...] = BONUS_TOKENS
    starter: int = 0

    @staticmethod
    def from_strings(
        hands: Sequence[str],
        market: str,
        deck_top: str = "",
        bonus_piles: Sequence[Sequence[int]] | None = None,
        starter: int = 0,
    ) -> Deal:
        """Build a deal from card names; the deck is ``deck_top`` then the rest in type order.

        Example: ``Deal.from_strings(["leather spice spice cloth silver", "gold ..."], "diamond gold")``.
        """

        def kinds(text: str) -> list[int]:
            return [parse_card(w) for w in text.replace(",", " ").split()]

        dealt = [kinds(h) for h in hands]
        shown = kinds(market)
        top = kinds(deck_top)
        left = list(COMPOSITION)
        left[CAMEL] -= MARKET_CAMELS
        for kind in itertools.chain(*dealt, shown, top):
            left[kind] -= 1
        if min(left) < 0:
            raise ValueError("the deal uses more cards of some type than the deck holds")
        rest = [k for k in range(NUM_TYPES) for _ in range(left[k])]
        piles = tuple(tuple(p) for p in (bonus_piles if bonus_piles is not None else BONUS_TOKENS))
        return Deal(tuple(tuple(h) for h in dealt), tuple(shown), tuple(top + rest), piles, starter)


class RoundResult(NamedTuple):
    """Scoring of a finished round.

    Attributes:
        rupees: each player's total (goods + bonus + camel token).
        camel_token: who got the camel token (-1: nobody).
        seal: who won the Seal (-1: a full tie).
        bonus_counts: bonus tokens held by each player.
        goods_counts: goods tokens held by each player.
    """

    rupees: tuple[int, int]
    camel_token: int
    seal: int
    bonus_counts: tuple[int, int]
    goods_counts: tuple[int, int]


Counts = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class State:
    """Full Jaipur state (perfect information).

    Attributes:
        config: the variant played.
        player: seat to move (after the round's end: the seat that would have moved).
        starter: seat that started this round.
        round: round number, 1 for the first.
        deck: card types of the draw pile, top first.
        market: counts of the 7 card types in the market.
        hands: each player's hand counts (7 types; camels never enter a hand).
        herds: each player's herd counts (7 types; only camels).
        discard: counts of the discard pile.
        goods_stacks: the 6 goods token stacks, values top first.
        bonus_piles: the 3 bonus piles (3-, 4-, 5-card), values top first.
        goods_tokens: ``[player][good]``: values of the goods tokens a player has taken.
        bonus_tokens: ``[player][kind]``: values of the bonus tokens a player has taken.
        known: ``[player]``: goods counts the opponent has seen enter that player's hand.
        seals: Seals of Excellence of each player.
        history: results of the finished rounds.
        round_over: the round has been scored (the state waits for a deal or is terminal).
        turns: moves played in this round.
    """

    config: Config
    player: int
    starter: int
    round: int
    deck: tuple[int, ...]
    market: Counts
    hands: tuple[Counts, Counts]
    herds: tuple[Counts, Counts]
    discard: Counts
    goods_stacks: tuple[tuple[int, ...], ...]
    bonus_piles: tuple[tuple[int, ...], ...]
    goods_tokens: tuple[tuple[tuple[int, ...], ...], ...]
    bonus_tokens: tuple[tuple[tuple[int, ...], ...], ...]
    known: tuple[Counts, Counts]
    seals: tuple[int, int] = (0, 0)
    history: tuple[RoundResult, ...] = field(default=())
    round_over: bool = False
    turns: int = 0


_NO_TOKENS: tuple[tuple[tuple[int, ...], ...], ...] = (((),) * NUM_GOODS,) * NUM_PLAYERS
_NO_BONUS: tuple[tuple[tuple[int, ...], ...], ...] = (((),) * BONUS_KINDS,) * NUM_PLAYERS
_ZERO6: Counts = (0,) * NUM_GOODS
_ZERO7: Counts = (0,) * NUM_TYPES


def _check_deal(deal: Deal) -> None:
    if len(deal.hands) != NUM_PLAYERS or any(len(h) != HAND_DEAL for h in deal.hands):
        raise ValueError(f"a deal needs {NUM_PLAYERS} hands of {HAND_DEAL} cards")
    if len(deal.market) != MARKET_SIZE - MARKET_CAMELS:
        raise ValueError(f"a deal draws {MARKET_SIZE - MARKET_CAMELS} cards to the market")
    cards = list(itertools.chain(*deal.hands, deal.market, deal.deck))
    if any(not (isinstance(c, int) and 0 <= c < NUM_TYPES) for c in cards):
        raise ValueError("card types must be ints 0..6")
    expected = list(COMPOSITION)
    expected[CAMEL] -= MARKET_CAMELS
    if list(counts(cards)) != expected:
        raise ValueError("a deal must hold the 52 cards left after the 3 market camels, each once")
    if len(deal.bonus_piles) != BONUS_KINDS or any(
        sorted(p) != sorted(full) for p, full in zip(deal.bonus_piles, BONUS_TOKENS)
    ):
        raise ValueError("the bonus piles must be shuffles of the 3-, 4- and 5-card bonus tokens")
    if deal.starter not in (0, 1):
        raise ValueError(f"starter must be 0 or 1, got {deal.starter!r}")


def _setup_round(
    config: Config,
    deal: Deal,
    starter: int,
    round_number: int,
    seals: tuple[int, int],
    history: tuple[RoundResult, ...],
) -> State:
    """Lay out a round (rulebook setup): 3 camels + 2 cards in the market, camels to the herds."""
    _check_deal(deal)
    market = list(counts(deal.market))
    market[CAMEL] += MARKET_CAMELS
    hands = []
    herds = []
    for dealt in deal.hands:
        hand = list(counts(dealt))
        herd = [0] * NUM_TYPES
        herd[CAMEL], hand[CAMEL] = hand[CAMEL], 0  # setup: camels in hand go to the herd
        hands.append(tuple(hand))
        herds.append(tuple(herd))
    return State(
        config=config,
        player=starter,
        starter=starter,
        round=round_number,
        deck=tuple(deal.deck),
        market=tuple(market),
        hands=(hands[0], hands[1]),
        herds=(herds[0], herds[1]),
        discard=_ZERO7,
        goods_stacks=GOODS_TOKENS,
        bonus_piles=tuple(tuple(p) for p in deal.bonus_piles),
        goods_tokens=_NO_TOKENS,
        bonus_tokens=_NO_BONUS,
        known=(_ZERO7, _ZERO7),
        seals=seals,
        history=history,
    )


def new_game(config: Config, deal: Deal) -> State:
    """Start round 1 from a deal; ``deal.starter`` moves first."""
    return _setup_round(config, deal, deal.starter, 1, (0, 0), ())


def apply_deal(state: State, deal: Deal) -> State:
    """Start the next round: the previous round's loser starts (a full tie: the other starter)."""
    if current_player(state) != CHANCE:
        raise IllegalMoveError("a new round can only be dealt when the previous one is over")
    seal = state.history[-1].seal
    starter = 1 - seal if seal >= 0 else 1 - state.starter
    return _setup_round(state.config, deal, starter, state.round + 1, state.seals, state.history)


def sample_deal(state_or_config: State | Config, rng: np.random.Generator) -> Deal:
    """Shuffle the 52 cards and the bonus piles with ``rng``; draw the first starter at random."""
    cards = [
        k for k in range(NUM_TYPES) for _ in range(COMPOSITION[k] - (MARKET_CAMELS if k == CAMEL else 0))
    ]
    order = rng.permutation(len(cards))
    shuffled = [cards[i] for i in order]
    piles = tuple(tuple(pile[i] for i in rng.permutation(len(pile))) for pile in BONUS_TOKENS)
    starter = int(rng.integers(NUM_PLAYERS))
    return Deal(
        hands=(tuple(shuffled[0:5]), tuple(shuffled[5:10])),
        market=tuple(shuffled[10:12]),
        deck=tuple(shuffled[12:]),
        bonus_piles=piles,
        starter=starter,
    )


# -- queries ----------------------------------------------------------------------------------


def game_over(state: State) -> bool:
    """True when the game is decided: a player holds 2 Seals, or the round cap is reached."""
    if not state.round_over:
        return False
    return max(state.seals) >= SEALS_TO_WIN or len(state.history) >= state.config.round_cap


def is_terminal(state: State) -> bool:
    """True when the episode is over."""
    return state.round_over and game_over(state)


def current_player(state: State) -> int:
    """Seat to move; ``CHANCE`` between rounds, ``TERMINAL`` at the end of the game."""
    if state.round_over:
        return TERMINAL if game_over(state) else CHANCE
    return state.player


def winner(state: State) -> int | None:
    """The winner of a finished game, ``None`` for a draw (or while the game goes on)."""
    if not is_terminal(state):
        return None
    a, b = state.seals
    if state.config.rounds is None:
        if max(a, b) < SEALS_TO_WIN:
            return None  # A7: the round cap reached without 2 Seals is a draw
        return 0 if a > b else 1
    if a == b:
        return None
    return 0 if a > b else 1


def points(state: State) -> tuple[int, ...]:
    """Game score: Seals of Excellence of each player."""
    return state.seals


def rupees(state: State) -> tuple[int, int]:
    """Each player's rupees of the current round so far (goods + bonus tokens, no camel token)."""
    return (
        sum(map(sum, state.goods_tokens[0])) + sum(map(sum, state.bonus_tokens[0])),
        sum(map(sum, state.goods_tokens[1])) + sum(map(sum, state.bonus_tokens[1])),
    )


def returns(state: State) -> tuple[float, ...]:
    """RL return accrued so far (``win``: +1/-1/0 at the end; ``points``: rupee gaps / 100)."""
    if state.config.reward == "points":
        gap = sum(r.rupees[0] - r.rupees[1] for r in state.history) / 100
        return (gap, -gap)
    if not is_terminal(state):
        return (0.0, 0.0)
    return win_loss_returns(winner(state), NUM_PLAYERS)


def hand_size(state: State, player: int) -> int:
    """Cards in ``player``'s hand (camels excluded: they live in the herd)."""
    return sum(state.hands[player])


# -- legal moves ------------------------------------------------------------------------------


def _sub_multisets(limits: Sequence[int], size: int) -> Iterator[tuple[int, ...]]:
    """Yield every count tuple ``c <= limits`` (elementwise) with ``sum(c) == size``."""
    for combo in itertools.product(*(range(n + 1) for n in limits)):
        if sum(combo) == size:
            yield combo


def legal_moves(state: State) -> tuple[Move, ...]:
    """Every legal move of the player to move (empty when nobody is to move)."""
    if state.round_over:
        return ()
    p = state.player
    hand = state.hands[p]
    market = state.market
    size = sum(hand)
    moves: list[Move] = []
    # A. Exchange: k >= 2 goods from the market for k cards of other types (A1, A2).
    camels_room = min(state.herds[p][CAMEL], HAND_LIMIT - size)
    for take in itertools.product(*(range(n + 1) for n in market[:NUM_GOODS])):
        k = sum(take)
        if k < 2:
            continue
        limits = [0 if take[g] else hand[g] for g in range(NUM_GOODS)] + [camels_room]
        for give in _sub_multisets(limits, k):
            moves.append(Exchange(take, give))
    # B. Take one good: the hand must stay within 7 cards.
    if size < HAND_LIMIT:
        moves.extend(TakeOne(g) for g in range(NUM_GOODS) if market[g])
    # C. Take all the camels (at least one).
    if market[CAMEL]:
        moves.append(TakeCamels())
    # D. Sell n cards of one type (precious goods: n >= 2).
    for g in range(NUM_GOODS):
        moves.extend(Sell(g, n) for n in range(MIN_SALE[g], hand[g] + 1))
    return tuple(moves)


def has_legal_move(state: State) -> bool:
    """True when the player to move has at least one legal move (checked cheaply first)."""
    if state.round_over:
        return False
    hand = state.hands[state.player]
    market = state.market
    if market[CAMEL]:
        return True
    if any(hand[g] >= MIN_SALE[g] for g in range(NUM_GOODS)):
        return True
    if sum(hand) < HAND_LIMIT and any(market[:NUM_GOODS]):
        return True
    return bool(legal_moves(state))


# -- applying moves ---------------------------------------------------------------------------


def _minus(a: Counts, b: Counts) -> Counts:
    return tuple(x - y for x, y in zip(a, b))


def _plus(a: Counts, b: Counts) -> Counts:
    return tuple(x + y for x, y in zip(a, b))


def _set(seq: tuple, index: int, value: object) -> tuple:
    return (*seq[:index], value, *seq[index + 1 :])


def _refill(market: list[int], deck: tuple[int, ...], needed: int) -> tuple[tuple[int, ...], bool]:
    """Draw ``needed`` cards from the top of the deck into ``market`` (in place).

    Returns the deck left and whether the refill ran out of cards (the round ends, A3).
    """
    drawn = deck[:needed]
    for kind in drawn:
        market[kind] += 1
    return deck[len(drawn) :], len(drawn) < needed


def apply_move(state: State, move: Move) -> State:
    """Play a move for the player to move and return the new state.

    Raises:
        IllegalMoveError: if the move is not legal here (nothing is ever substituted).
    """
    if state.round_over:
        raise IllegalMoveError("the round is over: no move can be played")
    handler = _HANDLERS.get(type(move))
    if handler is None:
        raise IllegalMoveError(f"not a Jaipur move: {move!r}")
    return handler(state, move)


def _take_one(state: State, move: TakeOne) -> State:
    p = state.player
    g = move.good
    hand = state.hands[p]
    if not (isinstance(g, int) and 0 <= g < NUM_GOODS):
        raise IllegalMoveError(f"{move}: only goods can be taken one at a time")
    if not state.market[g]:
        raise IllegalMoveError(f"{move}: no {NAMES[g]} in the market")
    if sum(hand) >= HAND_LIMIT:
        raise IllegalMoveError(f"{move}: the hand already holds {HAND_LIMIT} cards")
    market = list(state.market)
    market[g] -= 1
    deck, ran_out = _refill(market, state.deck, 1)
    new_hand = _set(hand, g, hand[g] + 1)
    known = state.known[p]
    return _next_turn(
        state,
        market=tuple(market),
        deck=deck,
        hands=_set(state.hands, p, new_hand),
        known=_set(state.known, p, _set(known, g, known[g] + 1)),
        round_ends=ran_out,
    )


def _take_camels(state: State, move: TakeCamels) -> State:
    p = state.player
    camels = state.market[CAMEL]
    if not camels:
        raise IllegalMoveError("camels: there is no camel in the market")
    market = list(state.market)
    market[CAMEL] = 0
    deck, ran_out = _refill(market, state.deck, camels)
    herd = state.herds[p]
    return _next_turn(
        state,
        market=tuple(market),
        deck=deck,
        herds=_set(state.herds, p, _set(herd, CAMEL, herd[CAMEL] + camels)),
        round_ends=ran_out,
    )


def _sell(state: State, move: Sell) -> State:
    p = state.player
    g, n = move.good, move.count
    if not (isinstance(g, int) and 0 <= g < NUM_GOODS):
        raise IllegalMoveError(f"{move}: only goods can be sold")
    hand = state.hands[p]
    if not isinstance(n, int) or n < MIN_SALE[g]:
        # Jaipur rulebook: precious goods (diamonds, gold, silver) sell 2 or more at a time.
        raise IllegalMoveError(f"{move}: {NAMES[g]} sells at least {MIN_SALE[g]} at a time")
    if n > hand[g]:
        raise IllegalMoveError(f"{move}: the hand holds only {hand[g]} {NAMES[g]}")
    sale = scoring.sell(state.goods_stacks[g], n, state.bonus_piles)
    goods_stacks = _set(state.goods_stacks, g, sale.stack_after)
    mine = state.goods_tokens[p]
    goods_tokens = _set(state.goods_tokens, p, _set(mine, g, mine[g] + sale.goods_tokens))
    bonus_piles = state.bonus_piles
    bonus_tokens = state.bonus_tokens
    if sale.bonus_kind is not None:
        kind = sale.bonus_kind
        bonus_piles = _set(bonus_piles, kind, sale.pile_after)
        held = bonus_tokens[p]
        bonus_tokens = _set(bonus_tokens, p, _set(held, kind, (*held[kind], sale.bonus)))
    known = state.known[p]
    # A5: the round ends right after a sale that leaves three goods stacks empty.
    empty = sum(1 for stack in goods_stacks if not stack)
    return _next_turn(
        state,
        hands=_set(state.hands, p, _set(hand, g, hand[g] - n)),
        discard=_set(state.discard, g, state.discard[g] + n),
        goods_stacks=goods_stacks,
        bonus_piles=bonus_piles,
        goods_tokens=goods_tokens,
        bonus_tokens=bonus_tokens,
        known=_set(state.known, p, _set(known, g, max(0, known[g] - n))),
        round_ends=empty >= 3,
    )


def exchange_problem(state: State, move: Exchange) -> str | None:
    """Return why an exchange is illegal for the player to move, ``None`` if it is legal."""
    p = state.player
    take, give = move.take, move.give
    if len(take) != NUM_GOODS or len(give) != NUM_TYPES or min(take) < 0 or min(give) < 0:
        return "malformed exchange"
    k = sum(take)
    if k < 2:
        return "an exchange takes at least 2 goods (no 1-for-1 exchange)"
    if sum(give) != k:
        return "an exchange gives back exactly as many cards as it takes"
    if any(take[g] and give[g] for g in range(NUM_GOODS)):
        return "no goods type may be both taken and given back"
    if any(take[g] > state.market[g] for g in range(NUM_GOODS)):
        return "the market does not hold the goods taken"
    hand = state.hands[p]
    if any(give[g] > hand[g] for g in range(NUM_GOODS)):
        return "the hand does not hold the goods given"
    if give[CAMEL] > state.herds[p][CAMEL]:
        return "the herd does not hold the camels given"
    if sum(hand) + give[CAMEL] > HAND_LIMIT:
        # A2: only the hand at the end of the turn counts.
        return f"the hand would end the turn with more than {HAND_LIMIT} cards"
    return None


def _exchange(state: State, move: Exchange) -> State:
    p = state.player
    take, give = move.take, move.give
    market = state.market
    hand = state.hands[p]
    new_market = list(market)
    new_hand = list(hand)
    known = list(state.known[p])
    taken = given = 0
    legal = True
    for g in range(NUM_GOODS):  # one pass: take and give counts checked and applied together
        t = take[g]
        v = give[g]
        if t:
            if v or t < 0 or t > market[g]:  # no type on both sides; the market holds the goods
                legal = False
                break
            taken += t
            new_market[g] -= t
            new_hand[g] += t
            known[g] += t
        elif v:
            if v < 0 or v > hand[g]:
                legal = False
                break
            given += v
            new_market[g] += v
            new_hand[g] -= v
            known[g] = known[g] - v if known[g] > v else 0
    camels = give[CAMEL]
    herd = state.herds[p]
    if (
        not legal
        or taken < 2  # no 1-for-1 exchange
        or given + camels != taken
        or camels < 0
        or camels > herd[CAMEL]
        or sum(hand) + camels > HAND_LIMIT  # A2: the hand at the end of the turn
    ):
        raise IllegalMoveError(f"{move}: {exchange_problem(state, move) or 'illegal exchange'}")
    new_market[CAMEL] += camels
    return _next_turn(
        state,
        market=tuple(new_market),
        hands=_set(state.hands, p, tuple(new_hand)),
        herds=_set(state.herds, p, _set(herd, CAMEL, herd[CAMEL] - camels)) if camels else state.herds,
        known=_set(state.known, p, tuple(known)),
        round_ends=False,
    )


_HANDLERS: dict[type, Callable[[State, Move], State]] = {
    TakeOne: _take_one,  # type: ignore[dict-item]
    TakeCamels: _take_camels,  # type: ignore[dict-item]
    Sell: _sell,  # type: ignore[dict-item]
    Exchange: _exchange,  # type: ignore[dict-item]
}


_STATE_SETTERS = tuple(State.__dict__[f.name].__set__ for f in dataclasses.fields(State))


def _fast_state(*values: object) -> State:
    """Build a ``State`` from all its field values in order, through the slot descriptors
    (a frozen dataclass's ``__init__`` pays for ``object.__setattr__`` on every field)."""
    state = object.__new__(State)
    for setter, value in zip(_STATE_SETTERS, values):
        setter(state, value)
    return state


def _next_turn(
    state: State,
    *,
    round_ends: bool,
    market: Counts | None = None,
    deck: tuple[int, ...] | None = None,
    hands: tuple[Counts, Counts] | None = None,
    herds: tuple[Counts, Counts] | None = None,
    discard: Counts | None = None,
    goods_stacks: tuple[tuple[int, ...], ...] | None = None,
    bonus_piles: tuple[tuple[int, ...], ...] | None = None,
    goods_tokens: tuple[tuple[tuple[int, ...], ...], ...] | None = None,
    bonus_tokens: tuple[tuple[tuple[int, ...], ...], ...] | None = None,
    known: tuple[Counts, Counts] | None = None,
) -> State:
    """Build the state after a move: the opponent moves next, or the round is scored."""
    new = _fast_state(
        state.config,
        1 - state.player,
        state.starter,
        state.round,
        state.deck if deck is None else deck,
        state.market if market is None else market,
        state.hands if hands is None else hands,
        state.herds if herds is None else herds,
        state.discard if discard is None else discard,
        state.goods_stacks if goods_stacks is None else goods_stacks,
        state.bonus_piles if bonus_piles is None else bonus_piles,
        state.goods_tokens if goods_tokens is None else goods_tokens,
        state.bonus_tokens if bonus_tokens is None else bonus_tokens,
        state.known if known is None else known,
        state.seals,
        state.history,
        False,
        state.turns + 1,
    )
    if round_ends or not has_legal_move(new):  # A8 safety rule: no legal move ends the round
        return end_round(new)
    return new


def round_result(state: State) -> RoundResult:
    """Score the round as it stands: camel token, rupees and the Seal (rulebook end of round)."""
    camel = scoring.camel_majority((state.herds[0][CAMEL], state.herds[1][CAMEL]))
    totals = []
    bonus_counts = []
    goods_counts = []
    for p in range(NUM_PLAYERS):
        goods = [v for stack in state.goods_tokens[p] for v in stack]
        bonus = [v for pile in state.bonus_tokens[p] for v in pile]
        totals.append(scoring.rupees(goods, bonus, camel == p))
        bonus_counts.append(len(bonus))
        goods_counts.append(len(goods))
    seal = scoring.seal_winner(totals, bonus_counts, goods_counts)
    return RoundResult(
        (totals[0], totals[1]),
        -1 if camel is None else camel,
        -1 if seal is None else seal,
        (bonus_counts[0], bonus_counts[1]),
        (goods_counts[0], goods_counts[1]),
    )


def end_round(state: State) -> State:
    """Score the round, award the Seal and mark the round over (rulebook end of round)."""
    result = round_result(state)
    seals = state.seals
    if result.seal >= 0:
        seals = _set(seals, result.seal, seals[result.seal] + 1)
    return State(
        state.config,
        state.player,
        state.starter,
        state.round,
        state.deck,
        state.market,
        state.hands,
        state.herds,
        state.discard,
        state.goods_stacks,
        state.bonus_piles,
        state.goods_tokens,
        state.bonus_tokens,
        state.known,
        seals,
        (*state.history, result),
        True,
        state.turns,
    )


# -- hidden information -----------------------------------------------------------------------


def resample_hidden(state: State, player: int, rng: np.random.Generator) -> State:
    """Re-deal what ``player`` cannot see, consistently with everything public.

    Hidden from ``player``: the opponent's hand beyond the goods known to be in it, the deck
    order, the bonus piles' order and the opponent's bonus values. The opponent keeps its
    hand size and known goods (and no camels); the unknown cards of its hand and the deck are
    re-dealt from their union, and the opponent's bonus tokens and the piles are reshuffled
    within each bonus kind (counts kept).
    """
    opp = 1 - player
    hand = state.hands[opp]
    known = state.known[opp]
    unknown = _minus(hand, known)
    pool = [k for k in range(NUM_TYPES) for _ in range(unknown[k])] + list(state.deck)
    goods_idx = [i for i, k in enumerate(pool) if k != CAMEL]
    chosen = set(rng.choice(goods_idx, size=sum(unknown), replace=False).tolist()) if sum(unknown) else set()
    new_unknown = counts(pool[i] for i in chosen)
    rest = [pool[i] for i in range(len(pool)) if i not in chosen]
    deck = tuple(rest[i] for i in rng.permutation(len(rest)))
    new_hand = _plus(known, new_unknown)
    held = state.bonus_tokens[opp]
    opp_bonus = []
    piles = []
    for kind in range(BONUS_KINDS):
        values = list(held[kind]) + list(state.bonus_piles[kind])
        mixed = [values[i] for i in rng.permutation(len(values))]
        opp_bonus.append(tuple(mixed[: len(held[kind])]))
        piles.append(tuple(mixed[len(held[kind]) :]))
    return State(
        state.config,
        state.player,
        state.starter,
        state.round,
        deck,
        state.market,
        _set(state.hands, opp, new_hand),
        state.herds,
        state.discard,
        state.goods_stacks,
        tuple(piles),
        state.goods_tokens,
        _set(state.bonus_tokens, opp, tuple(opp_bonus)),
        state.known,
        state.seals,
        state.history,
        state.round_over,
        state.turns,
    )


# -- validators: small functions that each check one thing that should always be true -------


def herds_hold_only_camels(state: State) -> bool:
    """Each herd holds camels only (or is empty)."""
    return all(not any(herd[:NUM_GOODS]) for herd in state.herds)


def hands_hold_no_camels(state: State) -> bool:
    """Camels never enter a hand."""
    return all(hand[CAMEL] == 0 for hand in state.hands)


def hands_within_limit(state: State) -> bool:
    """No hand holds more than 7 cards."""
    return all(sum(hand) <= HAND_LIMIT for hand in state.hands)


def market_is_full(state: State) -> bool:
    """The market holds 5 cards between turns (fewer only once the round ended on a refill)."""
    size = sum(state.market)
    return size == MARKET_SIZE or (state.round_over and size < MARKET_SIZE)


def deck_camels_valid(state: State) -> bool:
    """The deck holds at most 8 camels (11 minus the 3 put in the market at setup)."""
    return state.deck.count(CAMEL) <= COMPOSITION[CAMEL] - MARKET_CAMELS


def goods_stacks_valid(state: State) -> bool:
    """Each goods stack is one of its valid configurations: the full stack minus some top tokens."""
    return len(state.goods_stacks) == NUM_GOODS and all(
        stack == full[len(full) - len(stack) :] for stack, full in zip(state.goods_stacks, GOODS_TOKENS)
    )


def cards_conserved(state: State) -> bool:
    """All 55 cards are somewhere exactly once: hands, herds, market, discard pile and deck."""
    zones = (*state.hands, *state.herds, state.market, state.discard, counts(state.deck))
    if any(len(z) != NUM_TYPES or min(z) < 0 for z in zones):
        return False
    total = tuple(sum(z[k] for z in zones) for k in range(NUM_TYPES))
    return total == COMPOSITION and sum(total) == DECK_SIZE


def tokens_conserved(state: State) -> bool:
    """Every goods and bonus token is in a stack, a pile or a player's collection, once."""
    for g in range(NUM_GOODS):
        values = [*state.goods_stacks[g], *state.goods_tokens[0][g], *state.goods_tokens[1][g]]
        if sorted(values) != sorted(GOODS_TOKENS[g]):
            return False
    for kind in range(BONUS_KINDS):
        values = [*state.bonus_piles[kind], *state.bonus_tokens[0][kind], *state.bonus_tokens[1][kind]]
        if sorted(values) != sorted(BONUS_TOKENS[kind]):
            return False
    return True


def known_within_hands(state: State) -> bool:
    """The publicly known goods of a hand are in that hand."""
    return all(all(kn <= h for kn, h in zip(state.known[p], state.hands[p])) for p in range(NUM_PLAYERS))


VALIDATORS: tuple[Callable[[State], bool], ...] = (
    herds_hold_only_camels,
    hands_hold_no_camels,
    hands_within_limit,
    market_is_full,
    deck_camels_valid,
    goods_stacks_valid,
    cards_conserved,
    tokens_conserved,
    known_within_hands,
)
"""Every state invariant, each a small function of its own."""


def invalid_reasons(state: State) -> tuple[str, ...]:
    """Names of the validators a state fails (empty for a valid state)."""
    return tuple(v.__name__ for v in VALIDATORS if not v(state))


def state_is_valid(state: State) -> bool:
    """True if and only if every validator accepts the state."""
    return all(v(state) for v in VALIDATORS)


_VALIDATOR_FIELDS: dict[Callable[[State], bool], str] = {
    herds_hold_only_camels: "state.herds",
    hands_hold_no_camels: "state.hands",
    hands_within_limit: "state.hands",
    market_is_full: "state.market",
    deck_camels_valid: "state.deck",
    goods_stacks_valid: "state.goods_stacks",
    cards_conserved: "state",
    tokens_conserved: "state (goods stacks, bonus piles and the players' tokens)",
    known_within_hands: "state.known",
}
"""The field each validator's failure is reported on."""


def _check_layout(state: State) -> None:
    """Check the types and shapes of every field of ``state`` (``ValueError`` naming it)."""
    checks.need_bool(state.round_over, "state.round_over")
    checks.need_seat(state.player, "state.player", NUM_PLAYERS)
    checks.need_seat(state.starter, "state.starter", NUM_PLAYERS)
    checks.need_int(state.round, "state.round", 1)
    checks.need_int(state.turns, "state.turns", 0)
    checks.need_ints(state.deck, "state.deck", low=0, high=NUM_TYPES - 1, max_length=DECK_SIZE)
    checks.need_counts(state.market, "state.market", NUM_TYPES)
    checks.need_counts(state.discard, "state.discard", NUM_TYPES)
    for zone in ("hands", "herds", "known"):
        seats = checks.need_tuple(getattr(state, zone), f"state.{zone}", NUM_PLAYERS)
        for p, counts_ in enumerate(seats):
            checks.need_counts(counts_, f"state.{zone}[{p}]", NUM_TYPES)
    for g, stack in enumerate(checks.need_tuple(state.goods_stacks, "state.goods_stacks", NUM_GOODS)):
        checks.need_ints(stack, f"state.goods_stacks[{g}]", low=1)
    for k, pile in enumerate(checks.need_tuple(state.bonus_piles, "state.bonus_piles", BONUS_KINDS)):
        checks.need_ints(pile, f"state.bonus_piles[{k}]", low=1)
    for name, kinds in (("goods_tokens", NUM_GOODS), ("bonus_tokens", BONUS_KINDS)):
        for p, held in enumerate(checks.need_tuple(getattr(state, name), f"state.{name}", NUM_PLAYERS)):
            for k, tokens in enumerate(checks.need_tuple(held, f"state.{name}[{p}]", kinds)):
                checks.need_ints(tokens, f"state.{name}[{p}][{k}]", low=1)
    checks.need_ints(state.seals, "state.seals", NUM_PLAYERS, low=0)
    for r, result in enumerate(checks.need_tuple(state.history, "state.history")):
        field_ = f"state.history[{r}]"
        checks.need_type(result, field_, RoundResult, "a RoundResult")
        checks.need_ints(result.rupees, f"{field_}.rupees", NUM_PLAYERS, low=0)
        checks.need_int(result.camel_token, f"{field_}.camel_token", -1, NUM_PLAYERS - 1)
        checks.need_int(result.seal, f"{field_}.seal", -1, NUM_PLAYERS - 1)
        checks.need_ints(result.bonus_counts, f"{field_}.bonus_counts", NUM_PLAYERS, low=0)
        checks.need_ints(result.goods_counts, f"{field_}.goods_counts", NUM_PLAYERS, low=0)


def validate_state(state: State, config: Config | None = None) -> None:
    """Check that ``state`` is a Jaipur position with a player to move, field by field.

    Checked: the field types and shapes; seats and card types in range; the 55 cards
    (hands, herds, market, discard pile, deck) and the 56 tokens each in one place; every
    invariant of :data:`VALIDATORS`; the round under way (not over, fewer than three goods
    stacks empty, a legal move for the mover) and the game not decided (Seals, round cap);
    the history agreeing with the round number and the Seals; the mover agreeing with the
    round's starter and turn count. ``config``, if given, must be the state's.

    Raises:
        ValueError: naming the first field found wrong (``state.player: 7 is not a seat of a
            2-player game``).
    """
    config = checks.need_state(state, State, Config, config)
    _check_layout(state)
    if state.round_over:
        checks.fail_finished("state.round_over", "the round is over")
    checks.need_count_totals(
        [
            ("state.hands", state.hands[0]), ("state.hands", state.hands[1]),
            ("state.herds", state.herds[0]), ("state.herds", state.herds[1]),
            ("state.market", state.market), ("state.discard", state.discard),
            ("state.deck", counts(state.deck)),
        ],
        COMPOSITION,
        card_name,
    )
    for validator in VALIDATORS:
        if not validator(state):
            doc = (validator.__doc__ or "").strip().splitlines()[0]
            checks.fail(_VALIDATOR_FIELDS[validator], f"breaks {validator.__name__} ({doc})")
    history = state.history
    if len(history) != state.round - 1:
        checks.fail("state.history", f"{len(history)} finished rounds before round {state.round}")
    for p in range(NUM_PLAYERS):
        won = sum(1 for result in history if result.seal == p)
        if state.seals[p] != won:
            checks.fail(f"state.seals[{p}]", f"{state.seals[p]} Seals, the history gives {won}")
    if max(state.seals) >= SEALS_TO_WIN or len(history) >= config.round_cap:
        checks.fail_finished("state.seals", f"{state.seals} after {len(history)} rounds end the game")
    if history and history[-1].seal >= 0 and state.starter != 1 - history[-1].seal:
        checks.fail("state.starter", f"seat {state.starter} starts a round after winning the last one")
    if state.player != (state.starter + state.turns) % NUM_PLAYERS:
        checks.fail(
            "state.player",
            f"seat {state.player} cannot be to move after {state.turns} turns of a round started by "
            f"seat {state.starter}",
        )
    if sum(1 for stack in state.goods_stacks if not stack) >= 3:
        checks.fail_finished("state.goods_stacks", "three goods stacks are empty (A5)")
    if not has_legal_move(state):
        checks.fail_finished("state.hands", f"seat {state.player} has no legal move (A8)")


# -- declared contract ------------------------------------------------------------------------


def game_info(config: Config) -> GameInfo:
    """Declared contract of Jaipur under ``config``."""
    if config.reward == "points":
        per_round = MAX_ROUND_RUPEES / 100
        return GameInfo(
            name="jaipur",
            num_players=NUM_PLAYERS,
            max_game_length=None,
            min_reward=-per_round,
            max_reward=per_round,
            min_return=-per_round * config.round_cap,
            max_return=per_round * config.round_cap,
            zero_sum=True,
            reward_model="(own rupees - opponent's rupees) / 100 at the end of each round",
        )
    return win_loss_info("jaipur", NUM_PLAYERS, "+1 win / -1 loss / 0 draw at the end of the game")


INFO = game_info(Config())
