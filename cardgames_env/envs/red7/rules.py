"""Red7 rules engine: build the best palette under the current rule, or be out.

Each player has a hand and a face-up palette; on a turn a player plays a card to the palette,
discards a card to the canvas (its colour becomes the rule), or both, and must be winning
under the rule afterwards; the last player standing wins the round. Source: the Red7 rulebook
(Asmadi Games), basic and advanced rules.

Notes on this implementation:

* Card ids follow the card order (see :mod:`.cards`); card sets are int bitmasks.
* Episode = one round (default). ``advanced=True`` adds the draw rule, scoring of the round
  winner's qualifying cards and plays rounds until 40/35/30 points (2/3/4 players) or until
  fewer than ``8 * num_players`` unscored cards remain (then the highest score wins; tied
  leaders draw).
* ``strict=True`` (default): playing, discarding or both is legal only if it leaves the player
  winning; giving up is always legal, and it is the only move with an empty hand.
  ``strict=False`` (rulebook): any option; a player not winning at the end of the turn is out.
* ``action_rule=True`` (the rulebook's action rule): playing an odd card to the palette triggers its effect
  as a separate decision of the same player (phases ``TAKE`` for a 1, ``EXTRA`` for a 5,
  ``SEVEN`` for a 7; a 3 draws). After an odd card the turn goes on in phase ``CANVAS``
  (discard a card or ``end turn``), so ``play X discard Y`` is only offered for even ``X``.
  Under ``strict`` a choice is legal iff some completion of the turn leaves the player
  winning (A6); a 3 is always playable. ``give up`` is legal in every phase (after an
  unlucky 3 it can be the only move). A card put on the deck by a 1 (or a 7 with
  ``seven_to_deck``) is known to everybody until drawn, and then known in the drawer's hand.
* The 7's chosen card counts for the advanced draw rule with the palette size after it left.
* An eliminated player's hand and palette leave the round (``out_public`` keeps the cards
  everybody saw, ``out_hidden`` the unseen hand cards).

Decisions cited in the code by label (quoted section names cite ``docs/rules/red7.md``):

* A1: the group that counts for Orange, Yellow and Indigo is the one with the largest (size,
  highest card); scoring uses the same group.
* A2: Indigo counts distinct numbers (3-4-4-5 is a run of 3), each number by its best card.
* A6: under ``strict``, a choice is legal iff some completion of the turn leaves the player
  winning; a 3 is always playable.
* A7: the 7 cannot pick itself; a 7 alone in the palette has no effect; the chosen card tops
  the canvas even if that rule makes the player lose (the turn's legality check applies).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from typing import NamedTuple

import numpy as np

from cardgames_env.core import checks
from cardgames_env.core.cards import cards_of
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
    CARD_COLOUR,
    CARD_NUMBER,
    COLOUR_NAMES,
    COLOURS,
    FULL_DECK,
    NUM_CARDS,
    card_str,
    parse_card,
    parse_cards,
)
from .scoring import points_of, qualifying, strengths

RED = 0
TARGET_SCORES = {2: 40, 3: 35, 4: 30}
"""Points to win the advanced game by number of players ("The advanced game")."""
HAND_SIZE = 7


class Phase(IntEnum):
    """Decision points inside one turn (only ``MAIN`` without the action rule)."""

    MAIN = 0
    """Start of the turn: play, discard, play then discard, or give up."""
    EXTRA = 1
    """A 5 was played: play another card from the hand."""
    TAKE = 2
    """A 1 was played: choose an opponent's palette card to put on the deck."""
    SEVEN = 3
    """A 7 was played: choose another own palette card for the canvas (or the deck)."""
    CANVAS = 4
    """After an odd card's effect: discard a card to the canvas or end the turn."""
    DONE = 5
    """Internal: the turn's actions are over, the end-of-turn check is pending."""


MAIN, EXTRA, TAKE, SEVEN, CANVAS, DONE = (int(p) for p in Phase)

PLAYING, ROUND_OVER, GAME_OVER = 0, 1, 2


@dataclass(frozen=True)
class Config:
    """Red7 variants (defaults: docs/rules/red7.md, "Decisions this implementation takes").

    Attributes:
        num_players: 2, 3 or 4.
        strict: strict legality (a turn must leave you winning); ``False`` = rulebook (out if not).
        advanced: draw rule, round scoring and the multi-round game ("The advanced game").
        action_rule: effects of odd cards played to the palette ("The action rule").
        seven_to_deck: with ``action_rule``, a 7 may instead put the card on top of the deck.
        target_score: points that win the advanced game (``None`` = 40/35/30 by players).
    """

    num_players: int = 2
    strict: bool = True
    advanced: bool = False
    action_rule: bool = False
    seven_to_deck: bool = False
    target_score: int | None = None

    def __post_init__(self) -> None:
        plain_fields(self)  # numpy ints and bools are accepted as ints and bools
        if not isinstance(self.num_players, int) or isinstance(self.num_players, bool) or not (
            2 <= self.num_players <= 4
        ):
            raise ValueError(f"num_players must be 2, 3 or 4, got {self.num_players!r}")
        for name in ("strict", "advanced", "action_rule", "seven_to_deck"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")
        if self.seven_to_deck and not self.action_rule:
            raise ValueError("seven_to_deck needs action_rule=True")
        if self.target_score is not None:
            if not self.advanced:
                raise ValueError("target_score needs advanced=True (the multi-round game)")
            if not isinstance(self.target_score, int) or isinstance(self.target_score, bool) or (
                self.target_score <= 0
            ):
                raise ValueError(f"target_score must be a positive int or None, got {self.target_score!r}")

    @property
    def target(self) -> int:
        """Points that win the advanced game."""
        return self.target_score if self.target_score is not None else TARGET_SCORES[self.num_players]


# -- moves -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card from the hand to the palette (also the 5's extra card)."""

    card: int

    def __str__(self) -> str:
        return f"play {card_str(self.card)}"


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard a card from the hand to the canvas: its colour becomes the rule."""

    card: int

    def __str__(self) -> str:
        return f"discard {card_str(self.card)}"


@dataclass(frozen=True, slots=True)
class PlayDiscard:
    """Play a card to the palette, then discard a different card to the canvas."""

    play: int
    discard: int

    def __str__(self) -> str:
        return f"play {card_str(self.play)} discard {card_str(self.discard)}"


@dataclass(frozen=True, slots=True)
class GiveUp:
    """Give up: leave the round (always legal)."""

    def __str__(self) -> str:
        return "give up"


@dataclass(frozen=True, slots=True)
class Take:
    """Effect of a 1: put an opponent's palette card face down on top of the deck."""

    card: int

    def __str__(self) -> str:
        return f"take {card_str(self.card)}"


@dataclass(frozen=True, slots=True)
class SevenCanvas:
    """Effect of a 7: move one of your other palette cards to the canvas (the new rule)."""

    card: int

    def __str__(self) -> str:
        return f"canvas {card_str(self.card)}"


@dataclass(frozen=True, slots=True)
class SevenDeck:
    """Effect of a 7 with ``seven_to_deck``: put one of your other palette cards on the deck."""

    card: int

    def __str__(self) -> str:
        return f"deck {card_str(self.card)}"


@dataclass(frozen=True, slots=True)
class EndTurn:
    """After an odd card's effect: end the turn without a canvas discard."""

    def __str__(self) -> str:
        return "end turn"


Move = Play | Discard | PlayDiscard | GiveUp | Take | SevenCanvas | SevenDeck | EndTurn

_ONE_CARD_MOVES: dict[str, Callable[[int], Move]] = {
    "play": Play, "discard": Discard, "take": Take, "canvas": SevenCanvas, "deck": SevenDeck,
}


def parse_move(text: str) -> Move:
    """Parse move notation: ``play R7``, ``discard B3``, ``play R7 discard B3``, ``give up``,
    ``take B4``, ``canvas G4``, ``deck G4``, ``end turn``.

    Raises:
        ValueError: if the text is not a Red7 move.
    """
    words = text.strip().lower().split()
    if words == ["give", "up"]:
        return GiveUp()
    if words == ["end", "turn"]:
        return EndTurn()
    if len(words) == 2 and words[0] in _ONE_CARD_MOVES:
        return _ONE_CARD_MOVES[words[0]](parse_card(words[1]))
    if len(words) == 4 and words[0] == "play" and words[2] == "discard":
        play, discard = parse_card(words[1]), parse_card(words[3])
        if play == discard:
            raise ValueError(f"{text!r}: the palette card and the canvas card must differ")
        return PlayDiscard(play, discard)
    raise ValueError(
        f"not a Red7 move: {text!r} (expected e.g. 'play R7', 'discard B3', "
        "'play R7 discard B3', 'give up', 'take B4', 'canvas G4', 'end turn')"
    )


# -- deal and state ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Deal:
    """One shuffle: each seat's hand and palette cards, and the deck (top card first)."""

    hands: tuple[tuple[int, ...], ...]
    palettes: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...] = ()

    @staticmethod
    def from_strings(hands: list[str], palettes: list[str], deck: str = "") -> Deal:
        """Build a deal from card lists, e.g. ``(["V6 B1", "G2"], ["O5", "R6"], "Y3 Y4")``."""
        return Deal(
            tuple(parse_cards(h) for h in hands),
            tuple(parse_cards(p) for p in palettes),
            parse_cards(deck),
        )


class State(NamedTuple):
    """Full Red7 state (perfect information). Card sets are bitmasks.

    A ``NamedTuple`` rather than a frozen dataclass: a state is built on every move, and
    tuple construction is several times faster; ``state._replace(...)`` gives a changed copy.

    Attributes:
        config: the variants.
        hands: each seat's hand.
        palettes: each seat's palette.
        deck: the draw deck, top card first.
        rule: colour index of the canvas top (0 = Red, the starting card).
        canvas: cards discarded to the canvas this round.
        active: bitmask of the seats still in the round.
        player: seat to move (meaningful while the round is being played).
        phase: decision point inside the turn (:class:`Phase`).
        effect_card: the odd card whose effect is being resolved (-1 if none).
        known_top: how many cards on top of the deck everybody knows (put there by effects).
        known_hands: cards everybody knows to be in each hand (drawn from ``known_top``).
        out_public: cards of eliminated players that everybody saw (palettes, known cards).
        out_hidden: each eliminated seat's unseen hand cards (out of the round).
        scores: advanced game points.
        scored: cards in the score piles (out of the game).
        round_number: 1 for the first round.
        status: 0 playing, 1 round over (a deal is due), 2 game over.
        winner: seat that won the last round (-1 before); ``game_winner`` names the game's.
        game_winner: seat that won the game, -1 while playing or for a tie at a stop.
    """

    config: Config
    hands: tuple[int, ...]
    palettes: tuple[int, ...]
    deck: tuple[int, ...]
    active: int
    player: int
    rule: int = RED
    canvas: int = 0
    phase: int = MAIN
    effect_card: int = -1
    known_top: int = 0
    known_hands: tuple[int, ...] = ()
    out_public: int = 0
    out_hidden: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    scored: int = 0
    round_number: int = 1
    status: int = PLAYING
    winner: int = -1
    game_winner: int = -1

    @property
    def num_players(self) -> int:
        """Seats in the game."""
        return len(self.hands)


StateOrConfig = State | Config
_replace = State._replace


_BIT = (1).__lshift__


def _pile_mask(pile: tuple[int, ...]) -> int:
    """Bitmask of a pile of card ids; ``ValueError`` for a bad id or a card twice."""
    if pile and (min(pile) < 0 or max(pile) >= NUM_CARDS):
        raise ValueError(f"a pile of the deal has an invalid card id or a card twice: {pile}")
    mask = sum(map(_BIT, pile))  # a card twice carries into another bit: fewer bits than cards
    if mask.bit_count() != len(pile):
        raise ValueError(f"a pile of the deal has an invalid card id or a card twice: {pile}")
    return mask


def _check_deal(num_players: int, deal: Deal, allowed: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Validate a deal and return (hand masks, palette masks)."""
    if len(deal.hands) != num_players or len(deal.palettes) != num_players:
        raise ValueError(
            f"a deal needs {num_players} hands and palettes, got {len(deal.hands)} and {len(deal.palettes)}"
        )
    hands = tuple(map(_pile_mask, deal.hands))
    palettes = tuple(map(_pile_mask, deal.palettes))
    piles = (*hands, *palettes, _pile_mask(tuple(deal.deck)))
    seen = sum(piles)  # disjoint piles add up to their union
    if seen.bit_count() != sum(map(int.bit_count, piles)):
        raise ValueError("a card appears twice in the deal")
    if seen & ~allowed:
        raise ValueError("the deal uses cards that are out of the game (scored)")
    if not all(palettes):
        raise ValueError("every palette needs at least one card (docs/rules/red7.md, 'Setting up')")
    return hands, palettes


def red_leader(palettes: tuple[int, ...]) -> int:
    """Seat holding the highest palette card (winning the Red starting rule)."""
    return max(range(len(palettes)), key=lambda s: palettes[s])


def _start_round(config: Config, deal: Deal, allowed: int, **carry: object) -> State:
    n = config.num_players
    hands, palettes = _check_deal(n, deal, allowed)
    # "Setting up": the player after the current Red leader starts.
    start = (red_leader(palettes) + 1) % n
    return State(
        config=config,
        hands=hands,
        palettes=palettes,
        deck=tuple(deal.deck),
        active=(1 << n) - 1,
        player=start,
        known_hands=(0,) * n,
        out_hidden=(0,) * n,
        **carry,  # type: ignore[arg-type]
    )


def new_game(config: Config, deal: Deal) -> State:
    """Start round 1 from a deal; the player after the Red leader starts."""
    return _start_round(config, deal, FULL_DECK, scores=(0,) * config.num_players)


def apply_deal(state: State, deal: Deal) -> State:
    """Start the next round of the advanced game (only when a deal is due)."""
    if state.status != ROUND_OVER:
        raise IllegalMoveError("a new round can only be dealt when the previous round is over")
    return _start_round(
        state.config,
        deal,
        FULL_DECK & ~state.scored,
        scores=state.scores,
        scored=state.scored,
        round_number=state.round_number + 1,
        winner=state.winner,
    )


def sample_deal(state_or_config: StateOrConfig, rng: np.random.Generator) -> Deal:
    """Shuffle the unscored cards with ``rng``; deal 7 to each hand and 1 to each palette."""
    if isinstance(state_or_config, State):
        config = state_or_config.config
        cards = list(cards_of(FULL_DECK & ~state_or_config.scored))
        order = [cards[i] for i in rng.permutation(len(cards)).tolist()]
    else:
        config = state_or_config
        order = rng.permutation(NUM_CARDS).tolist()  # the same draw as permuting range(49)
    n = config.num_players
    hands = tuple(tuple(sorted(order[HAND_SIZE * s : HAND_SIZE * s + HAND_SIZE])) for s in range(n))
    palettes = tuple((card,) for card in order[HAND_SIZE * n : HAND_SIZE * n + n])
    return Deal(hands, palettes, tuple(order[8 * n :]))


# -- queries -----------------------------------------------------------------------------------


def is_terminal(state: State) -> bool:
    """True when the game is over."""
    return state.status == GAME_OVER


def current_player(state: State) -> int:
    """Seat to move, ``CHANCE`` between rounds of the advanced game, ``TERMINAL`` at the end."""
    status = state.status
    if status == PLAYING:
        return state.player
    return CHANCE if status == ROUND_OVER else TERMINAL


def winning_seat(state: State) -> int | None:
    """Seat winning under the current rule among the active seats, or ``None`` ("The seven rules")."""
    rule = state.rule
    best, seat = 0, None
    for s in range(state.num_players):
        if state.active >> s & 1:
            value = strengths(state.palettes[s])[rule]
            if value > best:
                best, seat = value, s
    return seat


def is_winning(state: State, player: int) -> bool:
    """True if ``player`` is winning under the current rule."""
    rule = state.rule
    mine = strengths(state.palettes[player])[rule]
    if not mine:
        return False
    active = state.active
    for s, palette in enumerate(state.palettes):
        if s != player and active >> s & 1 and strengths(palette)[rule] >= mine:
            return False
    return True


def opponent_thresholds(state: State, player: int) -> tuple[int, ...]:
    """For each rule, the best strength among the other active seats (0 if none qualifies)."""
    rows = [
        strengths(palette)
        for s, palette in enumerate(state.palettes)
        if s != player and state.active >> s & 1
    ]
    if not rows:
        return (0,) * 7
    if len(rows) == 1:
        return rows[0]
    return tuple(map(max, *rows))


def eliminated(state: State) -> tuple[bool, ...]:
    """Seats out of the game for good: out of the round in the one-round game, none in the advanced."""
    if state.config.advanced:
        return (False,) * len(state.hands)
    return _out_seats(len(state.hands), state.active)


@cache
def _out_seats(n: int, active: int) -> tuple[bool, ...]:
    """``eliminated`` of the one-round game (one tuple per set of active seats)."""
    return tuple(not active >> s & 1 for s in range(n))


def points(state: State) -> tuple[int, ...]:
    """Game score: advanced points, or 1 for the round winner (0 for the others) in one round."""
    if state.config.advanced:
        return state.scores
    return tuple(int(s == state.game_winner) for s in range(state.num_players))


def returns(state: State) -> tuple[float, ...]:
    """RL return so far: -1 when a player is out (or loses), +1 for the winner at the end.

    Advanced game: 0 until the game ends, then +1 for the winner and -1 for the others
    (tied leaders at a stop for lack of cards get 0).
    """
    n = state.num_players
    if state.config.advanced:
        if state.status != GAME_OVER:
            return (0.0,) * n
        if state.game_winner >= 0:
            return win_loss_returns(state.game_winner, n)
        best = max(state.scores)
        return tuple(0.0 if state.scores[s] == best else -1.0 for s in range(n))
    return _round_returns(n, state.active, state.game_winner if state.status == GAME_OVER else -2)


@cache
def _round_returns(n: int, active: int, game_winner: int) -> tuple[float, ...]:
    """``returns`` of the one-round game; ``game_winner`` is -2 while the round is being played.

    Cached: the env compares it with the previous vector at every step, and one tuple per
    (seats in, outcome) makes that comparison an identity check in the common case.
    """
    if game_winner != -2:
        return win_loss_returns(game_winner, n)
    return tuple(0.0 if active >> s & 1 else -1.0 for s in range(n))


# -- turn mechanics ----------------------------------------------------------------------------


def _draw(hands: list[int], known_hands: list[int], deck: tuple[int, ...], known_top: int, seat: int):
    """Draw the top card for ``seat`` (no card if the deck is empty); returns (deck, known_top)."""
    if not deck:
        return deck, known_top
    card = deck[0]
    hands[seat] |= 1 << card
    if known_top:
        known_hands[seat] |= 1 << card
        known_top -= 1
    return deck[1:], known_top


def _after_palette_play(state: State, card: int, in_main: bool) -> State:
    """Continue the turn after ``card`` went to the palette (effects under the action rule)."""
    config = state.config
    number = CARD_NUMBER[card]
    if not config.action_rule or number % 2 == 0:
        return _replace(state, phase=DONE if in_main else CANVAS, effect_card=-1)
    p = state.player
    if number == 1:
        mine = state.palettes[p].bit_count()
        if _take_targets(state, mine):
            return _replace(state, phase=TAKE, effect_card=card)
        return _replace(state, phase=CANVAS, effect_card=-1)
    if number == 3:
        hands, known = list(state.hands), list(state.known_hands)
        deck, known_top = _draw(hands, known, state.deck, state.known_top, p)
        return _replace(
            state, hands=tuple(hands), known_hands=tuple(known), deck=deck, known_top=known_top,
            phase=CANVAS, effect_card=-1,
        )
    if number == 5:
        return _replace(state, phase=EXTRA if state.hands[p] else CANVAS, effect_card=card)
    # 7: another palette card must go to the canvas (A7: none if the 7 is alone)
    if state.palettes[p] & ~(1 << card):
        return _replace(state, phase=SEVEN, effect_card=card)
    return _replace(state, phase=CANVAS, effect_card=-1)


def _take_targets(state: State, my_size: int) -> int:
    """Cards a 1 may take: palettes of active opponents at least as large as mine ("The action rule")."""
    targets = 0
    p = state.player
    for s, palette in enumerate(state.palettes):
        if s != p and state.active >> s & 1 and palette and palette.bit_count() >= my_size:
            targets |= palette
    return targets


def _to_canvas(state: State, card: int, hands: tuple[int, ...], palettes: tuple[int, ...]) -> State:
    """Put ``card`` on the canvas (new rule), apply the advanced draw rule, end the turn's actions."""
    p = state.player
    deck, known_top, known_hands = state.deck, state.known_top, state.known_hands
    # Section 4.1: draw if the card's number exceeds the palette size (after this turn's plays).
    if state.config.advanced and deck and CARD_NUMBER[card] > palettes[p].bit_count():
        hand_list, known = list(hands), list(known_hands)
        deck, known_top = _draw(hand_list, known, deck, known_top, p)
        hands, known_hands = tuple(hand_list), tuple(known)
    return _replace(
        state, hands=hands, palettes=palettes, deck=deck, known_top=known_top, known_hands=known_hands,
        canvas=state.canvas | 1 << card, rule=CARD_COLOUR[card], phase=DONE, effect_card=-1,
    )


def _with(seq: tuple[int, ...], i: int, value: int) -> tuple[int, ...]:
    return seq[:i] + (value,) + seq[i + 1 :]


def _turn_action(state: State, move: Move) -> State:
    """Apply one decision of the mover inside its turn (no legality check, no end-of-turn step)."""
    p = state.player
    hand = state.hands[p]
    if isinstance(move, Play):
        bit = 1 << move.card
        s = _replace(
            state,
            hands=_with(state.hands, p, hand & ~bit),
            palettes=_with(state.palettes, p, state.palettes[p] | bit),
            known_hands=_with(state.known_hands, p, state.known_hands[p] & ~bit),
        )
        return _after_palette_play(s, move.card, state.phase == MAIN)
    if isinstance(move, Discard):
        bit = 1 << move.card
        s = _replace(state, known_hands=_with(state.known_hands, p, state.known_hands[p] & ~bit))
        return _to_canvas(s, move.card, _with(state.hands, p, hand & ~bit), state.palettes)
    if isinstance(move, PlayDiscard):
        pbit, dbit = 1 << move.play, 1 << move.discard
        s = _replace(state, known_hands=_with(state.known_hands, p, state.known_hands[p] & ~(pbit | dbit)))
        return _to_canvas(
            s, move.discard, _with(state.hands, p, hand & ~(pbit | dbit)),
            _with(state.palettes, p, state.palettes[p] | pbit),
        )
    if isinstance(move, EndTurn):
        return _replace(state, phase=DONE, effect_card=-1)
    if isinstance(move, Take):
        bit = 1 << move.card
        owner = next(s for s, pal in enumerate(state.palettes) if pal & bit)
        return _replace(
            state, palettes=_with(state.palettes, owner, state.palettes[owner] & ~bit),
            deck=(move.card, *state.deck), known_top=state.known_top + 1, phase=CANVAS, effect_card=-1,
        )
    if isinstance(move, SevenCanvas):
        palettes = _with(state.palettes, p, state.palettes[p] & ~(1 << move.card))
        return _to_canvas(state, move.card, state.hands, palettes)
    if isinstance(move, SevenDeck):
        return _replace(
            state, palettes=_with(state.palettes, p, state.palettes[p] & ~(1 << move.card)),
            deck=(move.card, *state.deck), known_top=state.known_top + 1, phase=CANVAS, effect_card=-1,
        )
    raise IllegalMoveError(f"{move!r} is not a Red7 move")


def _eliminate(state: State, seat: int) -> State:
    """The player leaves the round with all its cards ("A turn")."""
    hand, known = state.hands[seat], state.known_hands[seat]
    return _replace(
        state,
        active=state.active & ~(1 << seat),
        out_public=state.out_public | state.palettes[seat] | known,
        out_hidden=_with(state.out_hidden, seat, state.out_hidden[seat] | hand & ~known),
        hands=_with(state.hands, seat, 0),
        palettes=_with(state.palettes, seat, 0),
        known_hands=_with(state.known_hands, seat, 0),
    )


def _next_turn(state: State) -> State:
    """Pass the turn to the next active seat, or end the round when one seat is left."""
    active = state.active
    if active & (active - 1) == 0:
        return _finish_round(state, active.bit_length() - 1)
    n = state.num_players
    seat = state.player
    for _ in range(n):
        seat = (seat + 1) % n
        if active >> seat & 1:
            break
    return _replace(state, player=seat, phase=MAIN, effect_card=-1)


def _finish_round(state: State, winner: int) -> State:
    """The last player standing wins the round ("End of a round and of the game"; advanced: scores its
    Q, "The advanced game")."""
    config = state.config
    if not config.advanced:
        return _replace(state, status=GAME_OVER, winner=winner, game_winner=winner, phase=MAIN)
    gained = points_of(state.rule, state.palettes[winner])
    scores = _with(state.scores, winner, state.scores[winner] + gained)
    scored = state.scored | qualifying(state.rule, state.palettes[winner])
    s = _replace(state, scores=scores, scored=scored, winner=winner, phase=MAIN)
    if scores[winner] >= config.target:
        return _replace(s, status=GAME_OVER, game_winner=winner)
    if NUM_CARDS - scored.bit_count() < 8 * config.num_players:
        # Decision ("The advanced game"): not enough cards for a new deal: the highest score wins.
        best = max(scores)
        leaders = [i for i, v in enumerate(scores) if v == best]
        return _replace(s, status=GAME_OVER, game_winner=leaders[0] if len(leaders) == 1 else -1)
    return _replace(s, status=ROUND_OVER)


def _end_turn(state: State) -> State:
    """End-of-turn check: a player not winning is out (only reachable off-strict), then move on."""
    p = state.player
    if not is_winning(state, p):
        state = _eliminate(state, p)
    return _next_turn(state)


def _candidates(state: State) -> list[Move]:
    """Every decision available in the current phase, before the strict winning test."""
    config = state.config
    p = state.player
    hand = state.hands[p]
    phase = state.phase
    hand_cards = list(cards_of(hand))
    if phase == MAIN:
        moves: list[Move] = [Play(c) for c in hand_cards]
        moves += [Discard(c) for c in hand_cards]
        moves += [
            PlayDiscard(c, d)
            for c in hand_cards
            if not (config.action_rule and CARD_NUMBER[c] % 2)
            for d in hand_cards
            if d != c
        ]
        return moves
    if phase == EXTRA:
        return [Play(c) for c in hand_cards]
    if phase == TAKE:
        targets = _take_targets(state, state.palettes[p].bit_count())
        return [Take(c) for c in cards_of(targets)]
    if phase == SEVEN:
        others = list(cards_of(state.palettes[p] & ~(1 << state.effect_card)))
        moves = [SevenCanvas(c) for c in others]
        if config.seven_to_deck:
            moves += [SevenDeck(c) for c in others]
        return moves
    if phase == CANVAS:
        canvas_moves: list[Move] = [Discard(c) for c in hand_cards]
        canvas_moves.append(EndTurn())
        return canvas_moves
    return []


def _is_three(move: Move) -> bool:
    return isinstance(move, Play) and CARD_NUMBER[move.card] == 3


def _can_succeed(state: State) -> bool:
    """A6: True if some completion of the turn leaves the mover winning (a 3 always counts)."""
    if state.phase == DONE:
        return is_winning(state, state.player)
    action_rule = state.config.action_rule
    for move in _candidates(state):
        if action_rule and _is_three(move):
            return True
        if _can_succeed(_turn_action(state, move)):
            return True
    return False


def _main_strict_moves(state: State) -> list[Move]:
    """Strict legality at the start of a turn without effects: be winning after the turn."""
    p = state.player
    palette = state.palettes[p]
    hand_cards = list(cards_of(state.hands[p]))
    thresholds = opponent_thresholds(state, p)
    rule = state.rule
    base = strengths(palette)
    moves: list[Move] = []
    after = {c: strengths(palette | 1 << c) for c in hand_cards}
    moves += [Play(c) for c in hand_cards if after[c][rule] > thresholds[rule]]
    moves += [Discard(d) for d in hand_cards if base[CARD_COLOUR[d]] > thresholds[CARD_COLOUR[d]]]
    moves += [
        PlayDiscard(c, d)
        for c in hand_cards
        for d in hand_cards
        if d != c and after[c][CARD_COLOUR[d]] > thresholds[CARD_COLOUR[d]]
    ]
    return moves


def legal_moves(state: State) -> tuple[Move, ...]:
    """Every legal move of the player to move (empty when nobody is to move)."""
    if state.status != PLAYING:
        return ()
    config = state.config
    if state.phase == MAIN and not state.hands[state.player]:
        return (GiveUp(),)  # "A turn": no cards, only giving up
    if not config.strict:
        return (*_candidates(state), GiveUp())
    if state.phase == MAIN and not config.action_rule:
        return (*_main_strict_moves(state), GiveUp())
    action_rule = config.action_rule
    legal = [
        m for m in _candidates(state)
        if (action_rule and _is_three(m)) or _can_succeed(_turn_action(state, m))
    ]
    return (*legal, GiveUp())


def is_legal(state: State, move: Move) -> bool:
    """True if ``move`` is legal in ``state``."""
    return move in legal_moves(state)


def _next_active(active: int, seat: int, n: int) -> int:
    """The next seat after ``seat`` in turn order that is still in the round."""
    for _ in range(n):
        seat = seat + 1 if seat + 1 < n else 0
        if active >> seat & 1:
            return seat
    return seat


_new_tuple = tuple.__new__
assert State._fields == (
    "config", "hands", "palettes", "deck", "active", "player", "rule", "canvas", "phase",
    "effect_card", "known_top", "known_hands", "out_public", "out_hidden", "scores", "scored",
    "round_number", "status", "winner", "game_winner",
), "apply_turn_start indexes State fields by position"


def apply_turn_start(state: State, play: int, discard: int) -> State:
    """Fast path of a legal play, discard or both without the action rule: one new state.

    Args:
        state: a state at the start of a turn (phase ``MAIN``) of a game without the action rule.
        play: the card played to the palette, or -1.
        discard: the card discarded to the canvas, or -1 (not both -1).
    """
    p = state[5]  # player
    hands = list(state[1])
    hand = hands[p]
    palettes = state[2]
    rule, canvas = state[6], state[7]
    if play >= 0:
        bit = 1 << play
        hand &= ~bit
        palettes = (*palettes[:p], palettes[p] | bit, *palettes[p + 1 :])
    config = state[0]
    deck, known_top, known_hands = state[3], state[10], state[11]
    if discard >= 0:
        hand &= ~(1 << discard)
        canvas |= 1 << discard
        rule = CARD_COLOUR[discard]
        hands[p] = hand
        # Section 4.1: draw if the card's number exceeds the palette size (after this turn's play).
        if config.advanced and deck and CARD_NUMBER[discard] > palettes[p].bit_count():
            known = list(known_hands)
            deck, known_top = _draw(hands, known, deck, known_top, p)
            known_hands = tuple(known)
    else:
        hands[p] = hand
    if known_hands[p] & ~hands[p]:
        known_hands = _with(known_hands, p, known_hands[p] & hands[p])
    strict = config.strict
    active = state[4]
    new = _new_tuple(State, (
        config, tuple(hands), palettes, deck, active,
        _next_active(active, p, config.num_players) if strict else p,
        rule, canvas, MAIN if strict else DONE, -1, known_top,
        known_hands, state[12], state[13], state[14], state[15], state[16],
        PLAYING, state[18], -1,
    ))
    # Strict: the move was legal, so its player is winning and the turn simply passes on.
    return new if strict else _end_turn(new)


def _apply_turn_start(state: State, move: Move) -> State:
    """:func:`apply_turn_start` of a ``Play``, ``Discard`` or ``PlayDiscard`` move."""
    kind = type(move)
    if kind is Play:
        return apply_turn_start(state, move.card, -1)  # type: ignore[union-attr]
    if kind is Discard:
        return apply_turn_start(state, -1, move.card)  # type: ignore[union-attr]
    return apply_turn_start(state, move.play, move.discard)  # type: ignore[union-attr]


def apply_legal_move(state: State, move: Move) -> State:
    """Apply a move already known to be legal (the env checks its mask first); no re-check."""
    if not state.config.action_rule and type(move) is not GiveUp:
        return _apply_turn_start(state, move)
    if isinstance(move, GiveUp):
        return _next_turn(_eliminate(state, state.player))
    state = _turn_action(state, move)
    if state.phase == DONE:
        return _end_turn(state)
    return state


def apply_move(state: State, move: Move) -> State:
    """Apply a legal move and return the new state.

    Raises:
        IllegalMoveError: when the move is not legal in ``state``.
    """
    if not is_legal(state, move):
        raise IllegalMoveError(f"{move} is not legal here (legal: {', '.join(map(str, legal_moves(state)))})")
    return apply_legal_move(state, move)


# -- hidden information ------------------------------------------------------------------------


def resample_hidden(state: State, player: int, rng: np.random.Generator) -> State:
    """Re-deal the cards ``player`` cannot see, keeping every size and every public fact.

    Hidden from ``player``: the other hands (but the cards known to be in them), the deck
    below its known top cards, and the unseen hands of other eliminated players.
    """
    n = state.num_players
    pool: list[int] = []
    for s in range(n):
        if s != player:
            pool += cards_of(state.hands[s] & ~state.known_hands[s])
            pool += cards_of(state.out_hidden[s])
    pool += state.deck[state.known_top :]
    order = [pool[i] for i in rng.permutation(len(pool)).tolist()]
    pos = 0

    def take(k: int) -> list[int]:
        nonlocal pos
        chunk = order[pos : pos + k]
        pos += k
        return chunk

    hands = list(state.hands)
    out_hidden = list(state.out_hidden)
    for s in range(n):
        if s != player:
            hidden = state.hands[s] & ~state.known_hands[s]
            hands[s] = state.known_hands[s] | sum(1 << c for c in take(hidden.bit_count()))
            out_hidden[s] = sum(1 << c for c in take(state.out_hidden[s].bit_count()))
    deck = state.deck[: state.known_top] + tuple(take(len(state.deck) - state.known_top))
    return _replace(state, hands=tuple(hands), out_hidden=tuple(out_hidden), deck=deck)


# -- validation --------------------------------------------------------------------------------

_EFFECT_NUMBER = {EXTRA: 5, TAKE: 1, SEVEN: 7}
"""The number of the odd card whose effect each effect phase resolves ("The action rule")."""


def validate_state(state: State, config: Config | None = None) -> None:
    """Check that ``state`` is a Red7 position with a player to move, field by field.

    Checked: the field types; seats, colours and card ids in range; every one of the 49 cards
    in exactly one place (hands, palettes, deck, canvas, out of the round, scored); seats out
    of the round holding nothing; the mover in the round, in a phase its variant has, with the
    effect card of that phase on its palette; known cards within the hands and the deck; the
    round being played (not over, not the game's end). ``config``, if given, must be the
    state's.

    Raises:
        ValueError: naming the first field found wrong (``state.player: 9 is not a seat of a
            2-player game``).
    """
    config = checks.need_state(state, State, Config, config)
    n = config.num_players
    hands = checks.need_masks(state.hands, "state.hands", n, FULL_DECK)
    palettes = checks.need_masks(state.palettes, "state.palettes", n, FULL_DECK)
    deck = checks.mask_of_ids(state.deck, "state.deck", NUM_CARDS, card_str)
    active = checks.need_int(state.active, "state.active", 0, (1 << n) - 1)  # a bitmask of seats
    status = checks.need_int(state.status, "state.status", PLAYING, GAME_OVER)
    if status != PLAYING:
        checks.fail_finished("state.status", f"status {status} (the round is over)")
    player = checks.need_seat(state.player, "state.player", n)
    checks.need_int(state.rule, "state.rule", 0, len(COLOURS) - 1)  # indexes the strength tables
    canvas = checks.need_mask(state.canvas, "state.canvas", FULL_DECK)
    phase = checks.need_int(state.phase, "state.phase", MAIN, DONE)
    effect = checks.need_int(state.effect_card, "state.effect_card", -1, NUM_CARDS - 1)
    known_top = checks.need_int(state.known_top, "state.known_top", 0)
    known = checks.need_masks(state.known_hands, "state.known_hands", n, FULL_DECK)
    out_public = checks.need_mask(state.out_public, "state.out_public", FULL_DECK)
    out_hidden = checks.need_masks(state.out_hidden, "state.out_hidden", n, FULL_DECK)
    scores = checks.need_ints(state.scores, "state.scores", n, low=0)
    scored = checks.need_mask(state.scored, "state.scored", FULL_DECK)
    round_number = checks.need_int(state.round_number, "state.round_number", 1)
    winner = checks.need_int(state.winner, "state.winner", -1, n - 1)
    game_winner = checks.need_int(state.game_winner, "state.game_winner", -1, n - 1)
    checks.need_each_card_once(
        [
            *((f"state.hands[{s}]", hands[s]) for s in range(n)),
            *((f"state.palettes[{s}]", palettes[s]) for s in range(n)),
            ("state.deck", deck), ("state.canvas", canvas), ("state.out_public", out_public),
            *((f"state.out_hidden[{s}]", out_hidden[s]) for s in range(n)),
            ("state.scored", scored),
        ],
        FULL_DECK,
        card_str,
    )
    # Seats: at least two in the round (one left ends it), the mover among them.
    if active.bit_count() < 2:
        checks.fail_finished("state.active", f"{active:#b} leaves fewer than two seats in the round")
    if not active >> player & 1:
        checks.fail("state.player", f"seat {player} is out of the round")
    for s in range(n):
        if active >> s & 1:
            if out_hidden[s]:
                checks.fail(f"state.out_hidden[{s}]", f"seat {s} is in the round but has cards out of it")
        elif hands[s] or palettes[s]:
            zone = "hands" if hands[s] else "palettes"
            checks.fail(f"state.{zone}[{s}]", f"seat {s} is out of the round but holds cards")
        if known[s] & ~hands[s]:
            checks.fail(f"state.known_hands[{s}]", f"holds cards that are not in state.hands[{s}]")
    if game_winner != -1:
        checks.fail("state.game_winner", f"{game_winner} is set while the game goes on (must be -1)")
    # The turn's phase ("The action rule"): effect phases only under the action rule, each with its card.
    if phase == DONE:
        checks.fail("state.phase", "the internal end-of-turn phase is not a position to move in")
    if phase != MAIN and not config.action_rule:
        checks.fail("state.phase", f"{Phase(phase).name} needs the action rule (only MAIN without it)")
    wanted = _EFFECT_NUMBER.get(phase)
    if phase == CANVAS and effect >= 0 and not hands[player]:
        wanted = 5  # a 5 played with the hand's last card: no extra card, on to the canvas
    if wanted is None and effect != -1:
        checks.fail("state.effect_card", f"{effect} is set in phase {Phase(phase).name} (must be -1)")
    on_palette = effect >= 0 and palettes[player] >> effect & 1
    if wanted is not None and not (on_palette and CARD_NUMBER[effect] == wanted):
        checks.fail("state.effect_card", f"phase {Phase(phase).name} needs a {wanted} on the mover's palette")
    if known_top > len(state.deck):
        checks.fail("state.known_top", f"{known_top} known cards on a deck of {len(state.deck)}")
    # The multi-round game ("The advanced game").
    if config.advanced:
        for s, score in enumerate(scores):
            if score >= config.target:
                checks.fail_finished(f"state.scores[{s}]", f"{score} reaches the target {config.target}")
        if NUM_CARDS - scored.bit_count() < 8 * n:
            checks.fail_finished("state.scored", "too few unscored cards are left for a round")
        if (round_number == 1) != (winner == -1):
            checks.fail("state.winner", f"{winner} does not fit round {round_number} (-1 only in round 1)")
    else:
        if round_number != 1:
            checks.fail("state.round_number", f"{round_number}: the one-round game has round 1 only")
        if any(scores) or scored:
            checks.fail("state.scores" if any(scores) else "state.scored", "points need advanced=True")
        if winner != -1:
            checks.fail("state.winner", f"{winner} is set while the round goes on (must be -1)")


def game_info(config: Config) -> GameInfo:
    """Declared contract of Red7 under ``config``."""
    n = config.num_players
    bounded = not (config.advanced or config.action_rule)
    return win_loss_info(
        "red7", n, "+1 to the winner, -1 to each other player when it is out or at the end",
        # Without draws each turn spends a hand card or eliminates its player.
        max_game_length=(HAND_SIZE + 1) * n - 1 if bounded else None,
        zero_sum=n == 2,
    )


INFO = game_info(Config())


def describe_rule(rule: int) -> str:
    """Return the rule's colour name and text, e.g. ``"Red: highest card"``."""
    texts = (
        "highest card", "most of one number", "most of one colour", "most even cards",
        "most different colours", "most cards in a row", "most cards below 4",
    )
    return f"{COLOUR_NAMES[rule]} ({COLOURS[rule]}): {texts[rule]}"
