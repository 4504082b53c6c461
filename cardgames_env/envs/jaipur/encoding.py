"""Jaipur encoding: one flat action per move (25,505 actions) and a seat-rotated observation.

Every legal move is one action: take one good (6), take the camels (1), sell ``n`` cards
of a type (6 × 7) and every exchange (25,456 pairs of a multiset of 2..5 goods taken and a
multiset of as many goods of other types and/or camels given). The exchange table is built
once at import; its mask is computed with integer "SWAR" arithmetic: each multiset is
packed into one int64 with a 4-bit field per card type (3 value bits and a guard bit), so
``need <= available`` in every field at once is ``((available | GUARD) - need) & GUARD ==
GUARD``. The exchanges whose taken goods fit the market are cached per market content, so
one mask costs a few small numpy operations.

Observations are from the observer's seat (me first, then the opponent) and hold only what
that player may know: never the opponent's hand (beyond the goods seen entering it), the
deck order or the opponent's bonus token values.
"""

from __future__ import annotations

import itertools
import struct

import numpy as np

from cardgames_env.core.actions import ActionTable
from cardgames_env.core.game import Encoding
from cardgames_env.core.observation import ObservationLayout
from cardgames_env.display.ansi import seat_label

from . import rules
from .cards import (
    BONUS_LABELS,
    BONUS_TOKENS,
    CAMEL,
    HAND_LIMIT,
    MAX_STACK,
    MIN_SALE,
    NAMES,
    NUM_GOODS,
    NUM_PLAYERS,
    NUM_TYPES,
    SHORT,
    format_counts,
)
from .rules import Config, Exchange, Move, Sell, State, TakeCamels, TakeOne

MAX_SELL = HAND_LIMIT
"""Largest sale (a full hand of one type)."""


def _build_exchanges() -> tuple[np.ndarray, np.ndarray]:
    """Every (take, give) pair: 2..5 goods taken, as many cards of other types given."""
    takes: list[tuple[int, ...]] = []
    gives: list[tuple[int, ...]] = []
    for k in range(2, 6):
        for taken in itertools.combinations_with_replacement(range(NUM_GOODS), k):
            rest = [t for t in range(NUM_TYPES) if t not in taken]  # no type on both sides
            take = tuple(taken.count(g) for g in range(NUM_GOODS))
            for given in itertools.combinations_with_replacement(rest, k):
                takes.append(take)
                gives.append(tuple(given.count(t) for t in range(NUM_TYPES)))
    return np.array(takes, dtype=np.int64), np.array(gives, dtype=np.int64)


EXCHANGE_TAKE, EXCHANGE_GIVE = _build_exchanges()
"""Per exchange action: counts of the 6 goods taken, counts of the 7 card types given."""
NUM_EXCHANGES = len(EXCHANGE_TAKE)  # 25,456

ACTIONS = ActionTable(
    [
        ("take", NUM_GOODS, "take one good of type i (diamond, gold, silver, cloth, spice, leather)"),
        ("camels", 1, "take all the camels of the market"),
        ("sell", NUM_GOODS * MAX_SELL, "sell n cards of good g: index g × 7 + (n − 1), n = 1..7"),
        (
            "exchange",
            NUM_EXCHANGES,
            "exchange i of the fixed table (2..5 goods taken, as many cards of other types given)",
        ),
    ]
)
TAKE0 = ACTIONS.offset("take")
CAMELS = ACTIONS.offset("camels")
SELL0 = ACTIONS.offset("sell")
EXCHANGE0 = ACTIONS.offset("exchange")

MOVES: tuple[Move, ...] = (
    *(TakeOne(g) for g in range(NUM_GOODS)),
    TakeCamels(),
    *(Sell(g, n) for g in range(NUM_GOODS) for n in range(1, MAX_SELL + 1)),
    *(Exchange(tuple(t), tuple(g)) for t, g in zip(EXCHANGE_TAKE.tolist(), EXCHANGE_GIVE.tolist())),
)
"""The move of every action."""
ACTION_OF: dict[Move, int] = {move: action for action, move in enumerate(MOVES)}

# SWAR packing: 4 bits per card type, bit 3 of each field is the guard.
_SHIFTS = np.arange(NUM_TYPES, dtype=np.int64) * 4
GUARD = int(sum(8 << (4 * t) for t in range(NUM_TYPES)))
TAKE_PACKED = (EXCHANGE_TAKE << _SHIFTS[:NUM_GOODS]).sum(axis=1)
GIVE_PACKED = (EXCHANGE_GIVE << _SHIFTS).sum(axis=1)
_EXCHANGE_ACTIONS = np.arange(NUM_EXCHANGES, dtype=np.intp) + EXCHANGE0


def pack(card_counts: tuple[int, ...] | list[int]) -> int:
    """Pack up to 7 counts (each capped at 7) into 4-bit fields with the guard bits set."""
    packed = GUARD
    for t, n in enumerate(card_counts):
        packed |= (n if n < 8 else 7) << (4 * t)
    return packed


def _build_gives() -> tuple[np.ndarray, np.ndarray]:
    """The distinct give multisets (packed) and, per exchange, the index of its give multiset."""
    distinct, index = np.unique(GIVE_PACKED, return_inverse=True)
    return distinct, index.astype(np.intp)


GIVES_PACKED, EXCHANGE_GIVE_INDEX = _build_gives()
"""The 784 give multisets (packed), and the give multiset of every exchange."""


MARKET_ACTIONS: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
"""Market content -> (take-one and camels actions, the camels action alone, the exchange actions
whose taken goods the market holds, the index of their give multisets)."""
HAND_ACTIONS: dict[tuple[tuple[int, ...], int], tuple[np.ndarray, np.ndarray]] = {}
"""(hand, camels givable) -> (sell actions, int8 flags of the give multisets it can pay)."""


def market_entry(market: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Actions a market content allows, whatever the hand (cached: at most 462 contents)."""
    entry = MARKET_ACTIONS.get(market)
    if entry is None:
        fits = ((pack(market[:NUM_GOODS]) - TAKE_PACKED) & GUARD) == GUARD
        camels = [CAMELS] if market[CAMEL] else []
        takes = [TAKE0 + g for g in range(NUM_GOODS) if market[g]] + camels
        entry = (
            np.array(takes, dtype=np.intp),
            np.array(camels, dtype=np.intp),
            _EXCHANGE_ACTIONS[fits],
            EXCHANGE_GIVE_INDEX[fits],
        )
        MARKET_ACTIONS[market] = entry
    return entry


_CAMEL_FIELDS = np.arange(6, dtype=np.int64) << (4 * CAMEL)  # 0..5 givable camels, packed


def hand_entry(key: tuple[tuple[int, ...], int]) -> tuple[np.ndarray, np.ndarray]:
    """Sell actions of a hand (n >= 2 for precious goods) and the give multisets it can pay
    with its goods and ``camels`` herd camels (cached; a miss fills all 6 camel counts)."""
    entry = HAND_ACTIONS.get(key)
    if entry is None:
        hand = key[0]
        sells = np.array(
            [SELL0 + g * MAX_SELL + n - 1 for g in range(NUM_GOODS) for n in range(MIN_SALE[g], hand[g] + 1)],
            dtype=np.intp,
        )
        available = pack(hand[:NUM_GOODS]) + _CAMEL_FIELDS  # one row per camel count
        payable = (((available[:, None] - GIVES_PACKED) & GUARD) == GUARD).astype(np.int8)
        if len(HAND_ACTIONS) >= 16384:  # never reached: 1,716 hands x 6 camel counts at most
            HAND_ACTIONS.clear()
        for camels in range(6):
            HAND_ACTIONS[(hand, camels)] = (sells, payable[camels])
        entry = HAND_ACTIONS[key]
    return entry


def start_actions(
    hand: tuple[int, ...], herd: int, market: tuple[int, ...]
) -> tuple[np.ndarray | int, np.ndarray, np.ndarray, np.ndarray]:
    """The legal moves at the start of a move, as flat action indices: what a player with
    ``hand`` (7 type counts) and ``herd`` camels may do with ``market``.

    Returns:
        ``(takes, sells, exchanges, payable)``: the take actions (the camels alone when the
        hand is full), the legal sales, every exchange the market allows and, per exchange,
        1 when the player can pay it (int8).
    """
    room = HAND_LIMIT - sum(hand)
    takes, camels, exchanges, gives = MARKET_ACTIONS.get(market) or market_entry(market)
    # Camels can be given back only up to the room left under the hand limit (A2); no
    # exchange gives more than 5, so larger counts share one cache entry.
    key = (hand, min(herd, room, 5))
    sells, payable = HAND_ACTIONS.get(key) or hand_entry(key)
    return (takes if room else camels), sells, exchanges, payable[gives]  # a good needs room


def legal_mask(state: State) -> np.ndarray:
    """Return the int8 mask of legal actions of the player to move (zeros once the round is over)."""
    mask = np.zeros(ACTIONS.size, dtype=np.int8)
    if state.round_over:
        return mask
    p = state.player
    takes, sells, exchanges, payable = start_actions(state.hands[p], state.herds[p][CAMEL], state.market)
    mask[takes] = 1
    mask[sells] = 1
    mask[exchanges] = payable
    return mask


def legal_exchanges(hand: tuple[int, ...], herd: int, market: tuple[int, ...]) -> np.ndarray:
    """Return the indices (into :data:`EXCHANGE_TAKE`) of the exchanges a player with ``hand``
    (7 type counts) and ``herd`` camels may make from ``market``, in table order.

    Only what the player sees is needed, so agents may call it from their observation.
    """
    _, _, exchanges, payable = start_actions(hand, herd, market)
    return exchanges[payable.view(np.bool_)] - EXCHANGE0


# -- observation ------------------------------------------------------------------------------

LAYOUT = ObservationLayout(
    [
        ("hand", NUM_GOODS, "my hand: cards of each goods type (diamond gold silver cloth spice leather)"),
        ("market", NUM_TYPES, "market: cards of each type (the six goods, then camels)"),
        ("herds", NUM_PLAYERS, "camels in my herd, in the opponent's (hidden_herd: 1 if it has any)"),
        ("hand_sizes", NUM_PLAYERS, "cards in my hand, in the opponent's hand"),
        ("opponent_known", NUM_GOODS, "goods seen entering the opponent's hand and not since given/sold"),
        ("deck_size", 1, "cards left in the deck"),
        ("discard", NUM_GOODS, "discard pile: cards of each goods type sold"),
        ("camel_standing", 3, "one-hot: my herd is bigger / the opponent's / equal (0s with hidden_herd)"),
        ("to_move", 1, "1 if I am the player to move"),
        ("tokens_left", NUM_GOODS, "goods tokens left in each stack"),
        ("goods_stacks", (NUM_GOODS, MAX_STACK), "each goods stack's token values, top first, 0-padded"),
        ("bonus_left", 3, "tokens left in the 3-, 4- and 5-card bonus piles"),
        ("my_bonus_values", 10, "my bonus tokens of value 1..10 (counts)"),
        ("bonus_counts", (NUM_PLAYERS, 3), "3-, 4-, 5-card bonus tokens held by me, by the opponent"),
        ("goods_rupees", NUM_PLAYERS, "rupees of the goods tokens held by me, by the opponent / 100"),
        ("goods_counts", NUM_PLAYERS, "goods tokens held by me, by the opponent"),
        ("seals", NUM_PLAYERS, "Seals of Excellence of me, of the opponent"),
        ("round", 1, "round number (1 = first)"),
        ("starter", 1, "1 if I started this round"),
        ("past_rupees", NUM_PLAYERS, "rupee totals of the finished rounds, me and the opponent / 100"),
    ]
)

_CAMEL_STANDING = {1: (1.0, 0.0, 0.0), -1: (0.0, 1.0, 0.0), 0: (0.0, 0.0, 1.0)}
_NO_STANDING = (0.0, 0.0, 0.0)
_CARD_SIZE = LAYOUT.piece("tokens_left").offset
_CARD_STRUCT = struct.Struct(f"={_CARD_SIZE}f")
"""The pieces before ``tokens_left`` (cards, herds, standing, turn) as native float32."""
_STACKS_SIZE = LAYOUT.piece("bonus_left").offset - _CARD_SIZE
_STACKS_STRUCT = struct.Struct(f"={_STACKS_SIZE}f")
"""``tokens_left`` and ``goods_stacks`` as native float32 (cached per stack contents in _STACK_BYTES)."""
_REST_STRUCT = struct.Struct(f"={LAYOUT.size - _CARD_SIZE - _STACKS_SIZE}f")
_STACK_BYTES: dict[tuple[tuple[int, ...], ...], bytes] = {}
"""Packed ``tokens_left`` and ``goods_stacks`` pieces, keyed on the stacks' values."""
_TOKEN_VIEWS: list[tuple | None] = [None, None]
"""Per seat: the key (every state field the token part reads) and the token part of the last
observation; compared by value, so any state, however built, gets its own values."""


def _token_view(state: State, player: int) -> bytes:
    """The token, Seal and round pieces of ``player``'s observation (they change only on sales
    and between rounds, so the last one per seat is reused while its inputs are equal)."""
    # The key holds every field read below. Tuples compare element by element with an
    # identity shortcut, so the usual hit (the same objects as the last step) costs a few
    # pointer checks, and a state built by hand (dataclasses.replace) is compared by value.
    key = (
        state.goods_stacks,
        state.goods_tokens,
        state.bonus_tokens,
        state.bonus_piles,
        state.history,
        state.seals,
        state.round,
        state.starter,
    )
    cached = _TOKEN_VIEWS[player]
    if cached is not None and cached[0] == key:
        return cached[1]
    opp = 1 - player
    stacks = state.goods_stacks
    my_goods = state.goods_tokens[player]
    opp_goods = state.goods_tokens[opp]
    my_bonus = state.bonus_tokens[player]
    bonus_values = [0] * 10
    for pile in my_bonus:
        for v in pile:
            bonus_values[v - 1] += 1
    past_me = past_opp = 0
    for result in state.history:
        past_me += result.rupees[player]
        past_opp += result.rupees[opp]
    stack_part = _STACK_BYTES.get(stacks)
    if stack_part is None:
        padded = [v for stack in stacks for v in (*stack, *(0,) * (MAX_STACK - len(stack)))]
        stack_part = _STACKS_STRUCT.pack(*map(len, stacks), *padded)
        if len(_STACK_BYTES) >= 16384:  # a game meets a few dozen stack contents: keep the cache small
            _STACK_BYTES.clear()
        _STACK_BYTES[stacks] = stack_part
    values: list[float] = list(map(len, state.bonus_piles))
    values.extend(bonus_values)
    values.extend(map(len, my_bonus))
    values.extend(map(len, state.bonus_tokens[opp]))
    values.extend(
        (
            sum(map(sum, my_goods)) / 100,
            sum(map(sum, opp_goods)) / 100,
            sum(map(len, my_goods)),
            sum(map(len, opp_goods)),
            state.seals[player],
            state.seals[opp],
            state.round,
            1.0 if state.starter == player else 0.0,
            past_me / 100,
            past_opp / 100,
        )
    )
    packed = stack_part + _REST_STRUCT.pack(*values)
    _TOKEN_VIEWS[player] = (key, packed)
    return packed


def observe(state: State, player: int) -> np.ndarray:
    """Return ``player``'s observation vector (float32, :data:`LAYOUT`)."""
    opp = 1 - player
    hand = state.hands[player]
    my_herd = state.herds[player][CAMEL]
    opp_herd = state.herds[opp][CAMEL]
    if state.config.hidden_herd:
        shown_herd = 1 if opp_herd else 0
        standing = _NO_STANDING
    else:
        shown_herd = opp_herd
        standing = _CAMEL_STANDING[(my_herd > opp_herd) - (my_herd < opp_herd)]
    card_part = _CARD_STRUCT.pack(
        *hand[:NUM_GOODS],
        *state.market,
        my_herd,
        shown_herd,
        sum(hand),
        sum(state.hands[opp]),
        *state.known[opp][:NUM_GOODS],
        len(state.deck),
        *state.discard[:NUM_GOODS],
        *standing,
        1.0 if (state.player == player and not state.round_over) else 0.0,
    )
    # float32 packing with struct is faster than numpy's conversion of a Python list.
    return np.frombuffer(bytearray(card_part + _token_view(state, player)), dtype=np.float32)


def apply_action(state: State, action: int) -> State:
    """Apply an action checked against the mask (the rules still verify the move)."""
    return rules.apply_move(state, MOVES[action])


class JaipurEncoding(Encoding):
    """Actions = :data:`ACTIONS` (one per move); observation = :data:`LAYOUT` from the observer's seat."""

    rules = rules

    def __init__(self, config: Config):
        if config.exchange_encoding != "flat":
            raise ValueError(
                f"JaipurEncoding is the flat encoding, got exchange_encoding={config.exchange_encoding!r}: "
                "build the encoding of any config with substeps.make_encoding(config)"
            )
        self.config = config
        self.actions = ACTIONS
        self.layout = LAYOUT
        self.num_players = NUM_PLAYERS

    # The hot-path methods are the module functions themselves (no extra call frame per step).
    observe = staticmethod(observe)
    legal_action_mask = staticmethod(legal_mask)

    def encode(self, state: State, move: Move) -> int:
        """Return the action of a move.

        Raises:
            ValueError: for a move that has no action (e.g. a 1-for-1 exchange).
        """
        action = ACTION_OF.get(move)
        if action is None:
            raise ValueError(f"{move} is not a Jaipur action (it can never be legal)")
        return action

    def decode(self, state: State, action: int) -> Move:
        """Return the move of an action."""
        if not 0 <= action < ACTIONS.size:
            raise ValueError(f"Jaipur actions are 0..{ACTIONS.size - 1}, got {action}")
        return MOVES[action]

    apply_action = staticmethod(apply_action)

    def render(self, state: State, viewer: int | None) -> str:
        """Market, tokens, both players (the opponent's hand hidden when ``viewer`` is given)."""
        return render_state(state, viewer)

    def legend(self) -> str:
        """The two-letter card labels of the picture, with the names moves use."""
        return "cards: " + ", ".join(f"{short} {name}" for short, name in zip(SHORT, NAMES))


def _format_hand(card_counts: tuple[int, ...]) -> str:
    return " ".join(SHORT[k] for k in range(NUM_GOODS) for _ in range(card_counts[k])) or "-"


def render_state(state: State, viewer: int | None) -> str:
    """Return a compact text picture of a Jaipur state seen by ``viewer`` (``None``: everything)."""
    mover = rules.current_player(state)
    if mover >= 0:
        status = f"{seat_label(mover, viewer)} to move"
    else:
        status = "game over" if mover == -2 else "round over"
    lines = [
        f"Jaipur — round {state.round}, turn {state.turns + 1}, {status}"
        f"   seals P0 {state.seals[0]} · P1 {state.seals[1]}",
        "  market:  " + " ".join(SHORT[k] for k in range(NUM_TYPES) for _ in range(state.market[k])),
        f"  deck:    {len(state.deck)} cards   discard: {format_counts(state.discard)}",
        "  tokens:  "
        + "  ".join(
            f"{short} {' '.join(map(str, stack)) or '-'}" for short, stack in zip(SHORT, state.goods_stacks)
        ),
        "  bonus:   "
        + "  ".join(f"{label} ×{len(pile)}" for label, pile in zip(BONUS_LABELS, state.bonus_piles)),
    ]
    hidden_herd = state.config.hidden_herd
    for p in range(NUM_PLAYERS):
        shown = viewer is None or viewer == p
        hand = _format_hand(state.hands[p]) if shown else f"{sum(state.hands[p])} cards"
        camels = state.herds[p][CAMEL]
        herd = str(camels) if (shown or not hidden_herd) else ("some" if camels else "0")
        goods = [v for stack in state.goods_tokens[p] for v in stack]
        bonus = [v for pile in state.bonus_tokens[p] for v in pile]
        bonus_text = (
            "+".join(map(str, bonus)) if shown and bonus else f"{len(bonus)} token{'s' * (len(bonus) != 1)}"
        )
        lines.append(
            f"  {seat_label(p, viewer).ljust(8)} hand {hand} | herd {herd} | goods tokens "
            f"{sum(goods)} ({len(goods)}) | bonus {bonus_text}"
        )
    for i, result in enumerate(state.history, start=1):
        seal = f"P{result.seal}" if result.seal >= 0 else "nobody (full tie)"
        camel = f"P{result.camel_token}" if result.camel_token >= 0 else "nobody"
        lines.append(
            f"  round {i}: rupees P0 {result.rupees[0]} · P1 {result.rupees[1]}, "
            f"camel token {camel}, seal {seal}"
        )
    return "\n".join(lines)


__all__ = [
    "ACTIONS",
    "ACTION_OF",
    "BONUS_TOKENS",
    "EXCHANGE_GIVE",
    "EXCHANGE_TAKE",
    "HAND_ACTIONS",
    "LAYOUT",
    "MARKET_ACTIONS",
    "MOVES",
    "NAMES",
    "JaipurEncoding",
    "hand_entry",
    "legal_exchanges",
    "legal_mask",
    "market_entry",
    "start_actions",
    "observe",
]
