"""High Card: a two-player trick game, the sixth game that only the tests define.

Rules: a deck of ``deck_size`` cards numbered 1..``deck_size``; each player is dealt
``hand_size`` cards, the rest stay face down and unseen. The leader plays a card face up, the
other player answers with any card; the higher card takes the trick (the lower one with
``lowest_wins``) and its player leads the next. After ``hand_size`` tricks the player with more
tricks wins (+1, the other -1; 0 each for a tie).

Outcomes are easy to derive by hand, and the game has hidden cards (the opponent's hand and
the unseen rest), a chance deal, variants and a move notation (``play 7``): everything the
package's registries need from a game.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from cardgames_env.core import checks
from cardgames_env.core.cards import cards_of, mask_of
from cardgames_env.core.game import TERMINAL, GameInfo, IllegalMoveError, plain_fields

GAME = "highcard"


@dataclass(frozen=True)
class Config:
    """Variants: deck and hand sizes, and whether the lower card takes the trick."""

    deck_size: int = 9
    hand_size: int = 3
    lowest_wins: bool = False

    def __post_init__(self) -> None:
        plain_fields(self)
        for name in ("deck_size", "hand_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name} must be an int, got {value!r}")
        if not isinstance(self.lowest_wins, bool):
            raise ValueError(f"lowest_wins must be a bool, got {self.lowest_wins!r}")
        if self.hand_size < 1 or not 2 * self.hand_size <= self.deck_size <= 52:
            raise ValueError(
                f"hand_size must be at least 1 and deck_size between 2 * hand_size and 52, "
                f"got hand_size={self.hand_size}, deck_size={self.deck_size}"
            )


@dataclass(frozen=True)
class Deal:
    """The two hands (bitmasks of card ids 0..deck_size-1; card id ``i`` is numbered ``i + 1``)."""

    hands: tuple[int, int]


@dataclass(frozen=True)
class Play:
    """Play one card (its id)."""

    card: int

    def __str__(self) -> str:
        return f"play {self.card + 1}"


def parse_move(text: str) -> Play:
    """Read ``play N`` (N the card's number)."""
    word, _, number = text.strip().partition(" ")
    if word != "play" or not number.strip().isdigit() or int(number) < 1:
        raise ValueError(f"not a move: {text!r} (expected 'play N')")
    return Play(int(number) - 1)


@dataclass(frozen=True)
class State:
    """A position: hands, the unseen cards, the trick under way, tricks won, cards played."""

    config: Config
    hands: tuple[int, int]
    unseen: int
    leader: int
    trick: tuple[int, ...]
    tricks: tuple[int, int]
    played: tuple[int, int]


def game_info(config: Config) -> GameInfo:
    """The declared contract under ``config``."""
    return GameInfo(
        name=GAME, num_players=2, max_game_length=2 * config.hand_size, min_reward=-1.0, max_reward=1.0,
        min_return=-1.0, max_return=1.0, zero_sum=True,
        reward_model="+1 for more tricks, -1 for fewer, 0 for a tie, at the end",
    )


def sample_deal(state_or_config: State | Config, rng: np.random.Generator) -> Deal:
    """Shuffle the deck and deal both hands."""
    config = state_or_config.config if isinstance(state_or_config, State) else state_or_config
    order = [int(c) for c in rng.permutation(config.deck_size)]
    n = config.hand_size
    return Deal((mask_of(order[:n]), mask_of(order[n : 2 * n])))


def new_game(config: Config, deal: Deal) -> State:
    """The first position: player 0 leads."""
    everything = (1 << config.deck_size) - 1
    return State(config, deal.hands, everything & ~(deal.hands[0] | deal.hands[1]), 0, (), (0, 0), (0, 0))


def apply_deal(state: State, deal: Deal) -> State:
    """No deal after the first: the state is returned unchanged."""
    return state


def is_terminal(state: State) -> bool:
    """Every trick played."""
    return sum(state.tricks) == state.config.hand_size


def current_player(state: State) -> int:
    """The leader on an empty trick, the other player after the lead; ``TERMINAL`` at the end."""
    if is_terminal(state):
        return TERMINAL
    return state.leader if not state.trick else 1 - state.leader


def legal_moves(state: State) -> tuple[Play, ...]:
    """Any card of the mover's hand, lowest first."""
    player = current_player(state)
    return () if player < 0 else tuple(Play(c) for c in cards_of(state.hands[player]))


def apply_move(state: State, move: Play) -> State:
    """Play a card; the second card of a trick decides it."""
    player = current_player(state)
    if player < 0 or not isinstance(move, Play) or not state.hands[player] >> move.card & 1:
        raise IllegalMoveError(f"{move} is not legal here; legal: {', '.join(map(str, legal_moves(state)))}")
    hands = list(state.hands)
    played = list(state.played)
    hands[player] &= ~(1 << move.card)
    played[player] |= 1 << move.card
    if not state.trick:
        return dataclasses.replace(state, hands=(hands[0], hands[1]), trick=(move.card,),
                                   played=(played[0], played[1]))
    led = state.trick[0]
    higher_led = led > move.card
    winner = state.leader if higher_led != state.config.lowest_wins else player
    tricks = list(state.tricks)
    tricks[winner] += 1
    return dataclasses.replace(state, hands=(hands[0], hands[1]), trick=(), leader=winner,
                               tricks=(tricks[0], tricks[1]), played=(played[0], played[1]))


def points(state: State) -> tuple[int, int]:
    """Tricks won."""
    return state.tricks


def returns(state: State) -> tuple[float, float]:
    """+1 / -1 by tricks at the end (0 each for a tie); 0 before."""
    if not is_terminal(state):
        return (0.0, 0.0)
    diff = state.tricks[0] - state.tricks[1]
    sign = float((diff > 0) - (diff < 0))
    return (sign, -sign)


def resample_hidden(state: State, player: int, rng: np.random.Generator) -> State:
    """The same position for ``player`` with the opponent's hand and the unseen cards re-dealt."""
    other = 1 - player
    pool = [int(c) for c in rng.permutation(list(cards_of(state.hands[other] | state.unseen)))]
    size = state.hands[other].bit_count()
    hands = list(state.hands)
    hands[other] = mask_of(pool[:size])
    return dataclasses.replace(state, hands=(hands[0], hands[1]), unseen=mask_of(pool[size:]))


def validate_state(state: State, config: Config | None = None) -> None:
    """Check that ``state`` is a position with a player to move, field by field.

    Raises:
        ValueError: naming the first field found wrong.
    """
    config = checks.need_state(state, State, Config, config)
    everything = (1 << config.deck_size) - 1
    hands = checks.need_masks(state.hands, "state.hands", 2, everything)
    played = checks.need_masks(state.played, "state.played", 2, everything)
    unseen = checks.need_mask(state.unseen, "state.unseen", everything)
    leader = checks.need_seat(state.leader, "state.leader", 2)
    tricks = checks.need_ints(state.tricks, "state.tricks", 2, low=0, high=config.hand_size)
    trick = checks.need_tuple(state.trick, "state.trick", max_length=1)
    zones = [("state.hands[0]", hands[0]), ("state.hands[1]", hands[1]), ("state.unseen", unseen),
             ("state.played[0]", played[0]), ("state.played[1]", played[1])]
    checks.need_each_card_once(zones, everything, lambda c: str(c + 1))
    left = config.deck_size - 2 * config.hand_size
    if unseen.bit_count() != left:
        checks.fail("state.unseen", f"{unseen.bit_count()} cards, the deal leaves {left}")
    done = sum(tricks)
    if done >= config.hand_size:
        checks.fail_finished("state.tricks", f"{done} tricks played")
    follower = 1 - leader
    if trick:
        led = checks.need_int(trick[0], "state.trick[0]", 0, config.deck_size - 1)
        if not played[leader] >> led & 1:
            checks.fail("state.trick[0]", "the led card must be among the leader's played cards")
    for seat, expected in ((leader, done + len(trick)), (follower, done)):
        if played[seat].bit_count() != expected or hands[seat].bit_count() != config.hand_size - expected:
            checks.fail(f"state.played[{seat}]", f"{played[seat].bit_count()} cards after {done} tricks")
