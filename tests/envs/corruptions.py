"""Corrupted positions of every game, each with the field its refusal must name.

Each game's table starts from a real mid-game position (random play until the position has
what its entries corrupt: a trick under way, tokens sold, an offer awaiting a reply...) and
changes one thing: a field out of range, a card missing or doubled, a zone of the wrong
size, rules facts that do not hold together. :func:`sweeps` adds, for every field, ``None``
(where ``None`` is not a valid value), a string, a list for a tuple, a bool for an int and
an int for a bool. Every entry is ``(label, options, corrupt, pattern)``: ``corrupt(state)``
returns the bad state made from the base position of the env built with ``options``, and
``pattern`` is a regex the ``ValueError``'s message must match (the field's path, e.g.
``^state\\.player\\b``).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from enum import IntEnum
from typing import Any

import numpy as np

from cardgames_env.envs.gongzhu.cards import PIG, SPADE_TWO
from cardgames_env.envs.haggis.cards import FACE_MASK, NUMBER_MASK
from cardgames_env.envs.haggle.rules import Stage
from cardgames_env.envs.jaipur.cards import CAMEL
from cardgames_env.envs.jaipur.rules import RoundResult
from cardgames_env.envs.red7.cards import CARD_NUMBER
from cardgames_env.envs.red7.rules import CANVAS, EXTRA, SEVEN

from .helpers import make_raw, random_legal

Entry = tuple[str, tuple[tuple[str, Any], ...], Callable[[Any], Any], str]
FINISHED = "no player to move"
"""What the refusal of a position without a player to move says."""


def replace(state: Any, **changes: Any) -> Any:
    """A copy of a rules state (a NamedTuple or a frozen dataclass) with fields changed."""
    if hasattr(state, "_replace"):
        return state._replace(**changes)
    return dataclasses.replace(state, **changes)


def put(values: tuple, index: int, value: Any) -> tuple:
    """``values`` with item ``index`` replaced by ``value``."""
    return values[:index] + (value,) + values[index + 1 :]


def low(mask: int) -> int:
    """The lowest card id of a non-empty bitmask."""
    return (mask & -mask).bit_length() - 1


def field(name: str) -> str:
    """The pattern of a message about field ``name`` (``state.name``, its items included)."""
    return rf"^state\.{name}(?!\w)"


def live(env: Any) -> bool:
    """Play the dead steps; True while a live agent is to move."""
    while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(None)
    return bool(env.agents)


def at_move_start(env: Any) -> bool:
    """True when no sub-step choice of a move is pending (the rules state is the whole position)."""
    return bool(env._decision == env.encoding.to_decision(env.game_state()))


@functools.cache
def base_state(name: str, options: tuple[tuple[str, Any], ...]) -> Any:
    """A position of random play in which :data:`WANTED` of the game holds (seeds 0, 1, ...)."""
    env = make_raw(name, dict(options))
    wanted = WANTED[name]
    rng = np.random.default_rng(0)
    for seed in range(300):
        env.reset(seed=seed)
        while live(env):
            if at_move_start(env) and wanted(env.game_state()):
                return env.game_state()
            env.step(random_legal(env.action_mask(), rng))
    raise AssertionError(f"no {name} position with what the corruptions need")


@functools.cache
def finished_state(name: str, options: tuple[tuple[str, Any], ...]) -> Any:
    """The last position of a game of random play (its end)."""
    env = make_raw(name, dict(options))
    rng = np.random.default_rng(1)
    env.reset(seed=1)
    while live(env):
        env.step(random_legal(env.action_mask(), rng))
    return env.game_state()


WANTED: dict[str, Callable[[Any], bool]] = {
    # Some cards discarded to the canvas; for the 3-player table two seats still to move after.
    "red7_v0": lambda s: s.canvas != 0 and s.active.bit_count() == s.config.num_players,
    # Both players have sold goods; a round under way.
    "jaipur_v0": lambda s: all(any(map(any, s.goods_tokens[p])) for p in (0, 1)) and s.deck != (),
    # A trick of two plays or more on the table, after a trick that scored.
    "haggis_v0": lambda s: len(s.trick) >= 2 and any(s.hand_points),
    # An offer awaiting its reply, after an accepted trade.
    "haggle_v0": lambda s: s.stage == Stage.RESPOND and any(s.trades) and any(s.give),
    # Two cards of the third trick or later on the table, the pig still out.
    "gongzhu_v0": lambda s: (
        len(s.trick) == 2 and s.tricks_played >= 2 and not any(c >> PIG & 1 for c in s.captured)
    ),
}


def sweeps(base: Any, optional: frozenset[str]) -> Iterator[tuple[str, Callable[[Any], Any], str]]:
    """Wrong types for every field but ``config``: ``None`` (unless ``optional``), a string,
    a list for a tuple, a bool for an int, an int for a bool."""
    names = base._fields if hasattr(base, "_fields") else [f.name for f in dataclasses.fields(base)]
    for name in names:
        if name == "config":
            continue
        value = getattr(base, name)
        bad: list[tuple[str, Any]] = [("'x'", "x")]
        if name not in optional:
            bad.append(("None", None))
        if isinstance(value, bool):
            bad.append(("1", 1))
        elif type(value) is int or isinstance(value, IntEnum):
            bad += [("True", True), ("1.5", 1.5), ("np.int64", np.int64(value))]
        elif isinstance(value, tuple) and value:
            bad.append(("list", list(value)))
        for label, item in bad:
            yield f"{name}={label}", (lambda s, n=name, v=item: replace(s, **{n: v})), field(name)


# -- Red7 ----------------------------------------------------------------------------------------
def _red7_doubled(s: Any) -> Any:
    """A deck card also in player 0's hand."""
    return replace(s, hands=put(s.hands, 0, s.hands[0] | 1 << s.deck[0]))


def _red7_not_advanced_scored(s: Any) -> Any:
    """The deck's top card moved to the score pile of a one-round game."""
    return replace(s, deck=s.deck[1:], scored=1 << s.deck[0])


def _red7_out_seat_holds(s: Any) -> Any:
    """A seat other than the mover out of the round, its cards still in hand."""
    other = (s.player + 1) % s.config.num_players
    return replace(s, active=s.active & ~(1 << other))


def _red7_seven_phase(s: Any) -> Any:
    """Phase SEVEN with the mover's palette card as the effect card, which is no 7 (or none)."""
    card = low(s.palettes[s.player])
    return replace(s, phase=SEVEN, effect_card=card if CARD_NUMBER[card] != 7 else -1)


RED7_ACTION = (("action_rule", True),)
RED7_ADVANCED = (("advanced", True),)
RED7_THREE = (("num_players", 3),)
RED7: list[Entry] = [
    (
        "player out of range",
        (),
        lambda s: replace(s, player=9),
        r"^state\.player: 9 is not a seat of a 2-player game",
    ),
    ("player negative", (), lambda s: replace(s, player=-1), field("player")),
    ("hands of 1 seat", (), lambda s: replace(s, hands=s.hands[:1]), field("hands")),
    ("hand negative", (), lambda s: replace(s, hands=put(s.hands, 0, -1)), field(r"hands\[0\]")),
    (
        "hand bit past the deck",
        (),
        lambda s: replace(s, hands=put(s.hands, 1, s.hands[1] | 1 << 60)),
        field(r"hands\[1\]"),
    ),
    (
        "palette of a float",
        (),
        lambda s: replace(s, palettes=put(s.palettes, 1, 1.5)),
        field(r"palettes\[1\]"),
    ),
    ("deck card id 99", (), lambda s: replace(s, deck=(99, *s.deck[1:])), field(r"deck\[0\]")),
    (
        "deck card twice",
        (),
        lambda s: replace(s, deck=(s.deck[1], *s.deck[1:])),
        r"^state\.deck: card \w+ appears twice",
    ),
    ("card missing", (), lambda s: replace(s, deck=s.deck[1:]), r"^state: card \w+ is missing"),
    ("card doubled", (), _red7_doubled, r"^state\.deck: card \w+ is also in state\.hands\[0\]"),
    (
        "out_public holds a deck card",
        (),
        lambda s: replace(s, out_public=1 << s.deck[-1]),
        r"^state\.out_public: card \w+ is also in state\.deck",
    ),
    ("active past the seats", (), lambda s: replace(s, active=0b111), field("active")),
    ("one seat in the round", (), lambda s: replace(s, active=1 << s.player), FINISHED),
    (
        "mover out of the round",
        RED7_THREE,
        lambda s: replace(s, active=s.active & ~(1 << s.player)),
        field("player"),
    ),
    (
        "an out seat holds cards",
        RED7_THREE,
        _red7_out_seat_holds,
        r"^state\.hands\[\d\]: .* out of the round",
    ),
    ("rule colour 7", (), lambda s: replace(s, rule=7), field("rule")),
    ("rule negative", (), lambda s: replace(s, rule=-1), field("rule")),
    ("canvas negative", (), lambda s: replace(s, canvas=-1), field("canvas")),
    ("phase out of range", (), lambda s: replace(s, phase=9), field("phase")),
    ("internal phase DONE", (), lambda s: replace(s, phase=5), field("phase")),
    ("effect phase without the rule", (), lambda s: replace(s, phase=EXTRA), field("phase")),
    ("effect card in phase MAIN", (), lambda s: replace(s, effect_card=3), field("effect_card")),
    ("phase EXTRA without a 5", RED7_ACTION, lambda s: replace(s, phase=EXTRA), field("effect_card")),
    ("phase SEVEN without a 7", RED7_ACTION, _red7_seven_phase, field("effect_card")),
    ("effect card 49", RED7_ACTION, lambda s: replace(s, phase=CANVAS, effect_card=49), field("effect_card")),
    ("known top past the deck", (), lambda s: replace(s, known_top=len(s.deck) + 1), field("known_top")),
    ("known top negative", (), lambda s: replace(s, known_top=-1), field("known_top")),
    (
        "known card not in hand",
        (),
        lambda s: replace(s, known_hands=put(s.known_hands, 0, 1 << s.deck[0])),
        field(r"known_hands\[0\]"),
    ),
    ("out_hidden of 1 seat", (), lambda s: replace(s, out_hidden=(0,)), field("out_hidden")),
    ("score negative", (), lambda s: replace(s, scores=(-1, 0)), field(r"scores\[0\]")),
    ("points in the one-round game", (), lambda s: replace(s, scores=(3, 0)), field("scores")),
    ("cards scored in the one-round game", (), _red7_not_advanced_scored, field("scored")),
    ("round 0", (), lambda s: replace(s, round_number=0), field("round_number")),
    ("round 2 of the one-round game", (), lambda s: replace(s, round_number=2), field("round_number")),
    ("status unknown", (), lambda s: replace(s, status=3), field("status")),
    ("status round over", (), lambda s: replace(s, status=1), FINISHED),
    ("status game over", (), lambda s: replace(s, status=2), FINISHED),
    ("winner out of range", (), lambda s: replace(s, winner=5), field("winner")),
    ("a round winner while playing", (), lambda s: replace(s, winner=0), field("winner")),
    ("game winner while playing", (), lambda s: replace(s, game_winner=0), field("game_winner")),
    ("a score at the target", RED7_ADVANCED, lambda s: replace(s, scores=(40, 0)), FINISHED),
    ("last round's winner in round 1", RED7_ADVANCED, lambda s: replace(s, winner=1), field("winner")),
]


# -- Jaipur --------------------------------------------------------------------------------------
def _jaipur_move_card(s: Any, kind: int, zone: str, seat: int) -> Any:
    """The deck's first card of ``kind`` moved into ``zone[seat]`` (hands or herds)."""
    deck = list(s.deck)
    deck.remove(kind)
    zone_counts = getattr(s, zone)
    moved = put(zone_counts[seat], kind, zone_counts[seat][kind] + 1)
    return replace(s, deck=tuple(deck), **{zone: put(zone_counts, seat, moved)})


def _jaipur_goods_card(s: Any) -> int:
    """A goods type the deck holds."""
    return next(k for k in s.deck if k != CAMEL)


def _jaipur_three_empty_stacks(s: Any) -> Any:
    """Three goods stacks emptied into player 0's tokens."""
    stacks, tokens = list(s.goods_stacks), [list(t) for t in s.goods_tokens[0]]
    for g in range(3):
        tokens[g] += stacks[g]
        stacks[g] = ()
    return replace(s, goods_stacks=tuple(stacks), goods_tokens=(tuple(map(tuple, tokens)), s.goods_tokens[1]))


def _jaipur_market_to_discard(s: Any) -> Any:
    """A market card moved onto the discard pile (the market left with 4 cards)."""
    kind = next(k for k, n in enumerate(s.market) if n)
    return replace(
        s, market=put(s.market, kind, s.market[kind] - 1), discard=put(s.discard, kind, s.discard[kind] + 1)
    )


def _jaipur_eight_in_hand(s: Any) -> Any:
    """Goods moved from the deck into player 0's hand until it holds 8 cards."""
    while sum(s.hands[0]) < 8:
        s = _jaipur_move_card(s, _jaipur_goods_card(s), "hands", 0)
    return s


def _jaipur_stack_reordered(s: Any) -> Any:
    """A goods stack with two token values turned upside down (the same tokens)."""
    g = next(g for g, stack in enumerate(s.goods_stacks) if len(set(stack)) > 1)
    return replace(s, goods_stacks=put(s.goods_stacks, g, s.goods_stacks[g][::-1]))


def _jaipur_token_twice(s: Any) -> Any:
    """Player 1 holds a copy of a token still on a goods stack."""
    g = next(g for g, stack in enumerate(s.goods_stacks) if stack)
    held = s.goods_tokens[1]
    return replace(s, goods_tokens=(s.goods_tokens[0], put(held, g, (*held[g], s.goods_stacks[g][-1]))))


JAIPUR: list[Entry] = [
    ("player 7", (), lambda s: replace(s, player=7), r"^state\.player: 7 is not a seat of a 2-player game"),
    ("starter 2", (), lambda s: replace(s, starter=2), field("starter")),
    ("round 0", (), lambda s: replace(s, round=0), field("round")),
    ("turns negative", (), lambda s: replace(s, turns=-1), field("turns")),
    ("the mover does not fit the turn", (), lambda s: replace(s, player=1 - s.player), field("player")),
    ("round over", (), lambda s: replace(s, round_over=True), FINISHED),
    ("deck card type 9", (), lambda s: replace(s, deck=(9, *s.deck[1:])), field(r"deck\[0\]")),
    ("card missing", (), lambda s: replace(s, deck=s.deck[1:]), r"^state: .*\(missing\)"),
    ("card doubled", (), lambda s: replace(s, deck=(*s.deck, s.deck[0])), r"^state: .*\(too many\)"),
    ("market of 6 types", (), lambda s: replace(s, market=s.market[:6]), field("market")),
    ("market count negative", (), lambda s: replace(s, market=put(s.market, 0, -1)), field(r"market\[0\]")),
    ("market of 4 cards", (), _jaipur_market_to_discard, field("market")),
    ("hands of 1 player", (), lambda s: replace(s, hands=s.hands[:1]), field("hands")),
    (
        "hand of 8 types",
        (),
        lambda s: replace(s, hands=(s.hands[0] + (0,), s.hands[1])),
        field(r"hands\[0\]"),
    ),
    ("a camel in a hand", (), lambda s: _jaipur_move_card(s, CAMEL, "hands", 0), field("hands")),
    (
        "goods in a herd",
        (),
        lambda s: _jaipur_move_card(s, _jaipur_goods_card(s), "herds", 1),
        field("herds"),
    ),
    ("8 cards in a hand", (), _jaipur_eight_in_hand, field("hands")),
    (
        "known goods not in the hand",
        (),
        lambda s: replace(s, known=(put(s.known[0], 0, s.hands[0][0] + 1), s.known[1])),
        field("known"),
    ),
    ("discard of None", (), lambda s: replace(s, discard=put(s.discard, 2, None)), field(r"discard\[2\]")),
    ("goods stack reordered", (), _jaipur_stack_reordered, field("goods_stacks")),
    (
        "goods stack of 5 stacks",
        (),
        lambda s: replace(s, goods_stacks=s.goods_stacks[:5]),
        field("goods_stacks"),
    ),
    ("a token twice", (), _jaipur_token_twice, r"tokens"),
    (
        "a token of value 0",
        (),
        lambda s: replace(s, bonus_piles=((0, *s.bonus_piles[0][1:]), *s.bonus_piles[1:])),
        field(r"bonus_piles\[0\]\[0\]"),
    ),
    (
        "bonus tokens of 2 kinds",
        (),
        lambda s: replace(s, bonus_tokens=(s.bonus_tokens[0][:2], s.bonus_tokens[1])),
        field(r"bonus_tokens\[0\]"),
    ),
    ("three goods stacks empty", (), _jaipur_three_empty_stacks, FINISHED),
    ("seals without a history", (), lambda s: replace(s, seals=(1, 0)), field(r"seals\[0\]")),
    ("seals negative", (), lambda s: replace(s, seals=(-1, 0)), field(r"seals\[0\]")),
    (
        "history longer than the rounds",
        (),
        lambda s: replace(s, history=(RoundResult((1, 2), 1, 1, (0, 0), (1, 1)),)),
        field("history"),
    ),
    ("history of a tuple", (), lambda s: replace(s, history=((1, 2, 3),)), field(r"history\[0\]")),
    (
        "history seal 5",
        (),
        lambda s: replace(s, round=2, history=(RoundResult((1, 2), 1, 5, (0, 0), (1, 1)),)),
        field(r"history\[0\]\.seal"),
    ),
    (
        "a winner starts the next round",
        (),
        lambda s: replace(
            s,
            round=2,
            seals=(0, 1),
            starter=1,
            player=1 if s.turns % 2 == 0 else 0,
            history=(RoundResult((40, 60), 1, 1, (0, 0), (1, 1)),),
        ),
        field("starter"),
    ),
    (
        "two Seals: the game is decided",
        (),
        lambda s: replace(
            s,
            round=3,
            seals=(2, 0),
            history=(RoundResult((60, 40), 0, 0, (0, 0), (1, 1)),) * 2,
            starter=1,
            player=1 if s.turns % 2 == 0 else 0,
        ),
        FINISHED,
    ),
]


# -- Haggis --------------------------------------------------------------------------------------
def _haggis_face_gone(s: Any) -> Any:
    """A face card (J, Q or K) taken out of the hand holding it."""
    seat = next(p for p in (0, 1) if s.hands[p] & FACE_MASK)
    return replace(s, hands=put(s.hands, seat, s.hands[seat] & ~(1 << low(s.hands[seat] & FACE_MASK))))


def _haggis_number_doubled(s: Any) -> Any:
    """A number card of seat 1's hand also in seat 0's hand."""
    return replace(s, hands=(s.hands[0] | 1 << low(s.hands[1] & NUMBER_MASK), s.hands[1]))


def _haggis_empty_hand(s: Any) -> Any:
    """Seat 1's hand emptied into its played cards."""
    return replace(s, hands=(s.hands[0], 0), played=(s.played[0], s.played[1] | s.hands[1]))


def _haggis_unplayed_in_trick(s: Any) -> Any:
    """The trick's first play made of a card its seat still holds."""
    seat, _, reading = s.trick[0]
    return replace(s, trick=((seat, 1 << low(s.hands[seat]), reading), *s.trick[1:]))


HAGGIS: list[Entry] = [
    (
        "to_move 9",
        (),
        lambda s: replace(s, to_move=9),
        r"^state\.to_move: 9 is not a seat of a 2-player game",
    ),
    ("to_move of the table's player", (), lambda s: replace(s, to_move=s.table_player), field("to_move")),
    ("hands of 3 seats", (), lambda s: replace(s, hands=(*s.hands, 0)), field("hands")),
    ("hand negative", (), lambda s: replace(s, hands=(-1, s.hands[1])), field(r"hands\[0\]")),
    (
        "hand bit past the cards",
        (),
        lambda s: replace(s, hands=(s.hands[0] | 1 << 45, s.hands[1])),
        field(r"hands\[0\]"),
    ),
    (
        "card missing",
        (),
        lambda s: replace(s, hands=(s.hands[0] & ~(1 << low(s.hands[0] & NUMBER_MASK)), s.hands[1])),
        field(r"hands\[0\]"),
    ),
    ("card doubled", (), _haggis_number_doubled, r"card \w+ is also in state\.hands\[0\]"),
    ("a face card missing", (), _haggis_face_gone, field(r"hands\[\d\]")),
    (
        "a card in hand and played",
        (),
        lambda s: replace(s, played=(s.played[0] | 1 << low(s.hands[0]), s.played[1])),
        field(r"played\[0\]"),
    ),
    ("an empty hand", (), _haggis_empty_hand, FINISHED),
    ("table not a reading", (), lambda s: replace(s, table=("bogus", 1)), field("table")),
    ("no table on a trick", (), lambda s: replace(s, table=None), field("trick")),
    ("table player -1 on a trick", (), lambda s: replace(s, table_player=-1), field("table_player")),
    ("table player 3", (), lambda s: replace(s, table_player=3), field("table_player")),
    ("table not the last play", (), lambda s: replace(s, table=s.trick[0][2]), field("table")),
    (
        "trick seat 5",
        (),
        lambda s: replace(s, trick=((5, *s.trick[0][1:]), *s.trick[1:])),
        field(r"trick\[0\]\[0\]"),
    ),
    ("trick cards not played", (), _haggis_unplayed_in_trick, field(r"trick\[0\]\[1\]")),
    (
        "trick reading of other cards",
        (),
        lambda s: replace(s, trick=((*s.trick[0][:2], ("sequence", 4, 3, 10)), *s.trick[1:])),
        field(r"trick\[0\]\[2\]"),
    ),
    (
        "trick reading malformed",
        (),
        lambda s: replace(s, trick=((*s.trick[0][:2], ["sequence"]), *s.trick[1:])),
        field(r"trick\[0\]\[2\]"),
    ),
    ("trick plays out of order", (), lambda s: replace(s, trick=s.trick[::-1]), r"^state\.(trick|table)"),
    (
        "trick of 2-tuples",
        (),
        lambda s: replace(s, trick=tuple(p[:2] for p in s.trick)),
        field(r"trick\[0\]"),
    ),
    ("trick points off", (), lambda s: replace(s, trick_points=s.trick_points + 1), field("trick_points")),
    ("trick points negative", (), lambda s: replace(s, trick_points=-1), field("trick_points")),
    (
        "hand points off",
        (),
        lambda s: replace(s, hand_points=(s.hand_points[0] + 1, s.hand_points[1])),
        field("hand_points"),
    ),
    ("total negative", (), lambda s: replace(s, totals=(-5, 0)), field(r"totals\[0\]")),
    ("a total at the target", (), lambda s: replace(s, totals=(400, 10)), FINISHED),
    ("hand number 0", (), lambda s: replace(s, hand_number=0), field("hand_number")),
    (
        "hand 2 without the last hand's points",
        (),
        lambda s: replace(s, hand_number=2),
        field("last_hand_points"),
    ),
    (
        "last hand's points in hand 1",
        (),
        lambda s: replace(s, last_hand_points=(10, 20)),
        field("last_hand_points"),
    ),
    ("last trick winner 3", (), lambda s: replace(s, last_trick_winner=3), field("last_trick_winner")),
    ("hand over", (), lambda s: replace(s, hand_over=True), FINISHED),
]


# -- Haggle --------------------------------------------------------------------------------------
HAGGLE_SUBMIT = (("num_players", 3), ("trading_rounds", 2), ("submission_phase", True), ("max_offer", 2))


def _haggle_colour(s: Any, seat: int, colour: int, change: int) -> Any:
    """Seat ``seat``'s count of ``colour`` changed by ``change``."""
    hand = s.hands[seat]
    return replace(s, hands=put(s.hands, seat, put(hand, colour, hand[colour] + change)))


def _haggle_shown_unowned(s: Any) -> Any:
    """Seat 0 has seen a rule card that seat 1 does not hold."""
    rule = next(r for r in range(12) if r not in s.rules[1])
    n = s.config.num_players
    return replace(s, shown=put(s.shown, 0 * n + 1, 1 << rule))


def _haggle_submitting(s: Any, **changes: Any) -> Any:
    """The submission stage for seat 1, colour 2 (seat 0 handed in nothing), with ``changes``."""
    n = s.config.num_players
    base = replace(
        s,
        stage=Stage.SUBMIT,
        round=s.config.trading_rounds,
        proposer=1,
        target=-1,
        give=(0,) * 5,
        ask=(0,) * 5,
        show=-1,
        request=False,
        passes=0,
        submit_colour=2,
        submitted=((0,) * 5,) * n,
    )
    return replace(base, **changes)


HAGGLE: list[Entry] = [
    (
        "proposer 99",
        (),
        lambda s: replace(s, proposer=99),
        r"^state\.proposer: 99 is not a seat of a 4-player game",
    ),
    ("target 9", (), lambda s: replace(s, target=9), field("target")),
    ("target the proposer", (), lambda s: replace(s, target=s.proposer), field("target")),
    ("stage 9", (), lambda s: replace(s, stage=9), field("stage")),
    ("stage SCORE", (), lambda s: replace(s, stage=Stage.SCORE), FINISHED),
    ("stage DONE", (), lambda s: replace(s, stage=Stage.DONE), FINISHED),
    ("stage SUBMIT without the variant", (), lambda s: replace(s, stage=Stage.SUBMIT), field("stage")),
    ("stage PROPOSE with an offer", (), lambda s: replace(s, stage=Stage.PROPOSE), field("target")),
    ("hands of 3 seats", (), lambda s: replace(s, hands=s.hands[:3]), field("hands")),
    (
        "hand of 4 colours",
        (),
        lambda s: replace(s, hands=put(s.hands, 0, s.hands[0][:4])),
        field(r"hands\[0\]"),
    ),
    (
        "card missing",
        (),
        lambda s: _haggle_colour(s, 2, next(c for c in range(5) if s.hands[2][c]), -1),
        r"^state: .*\(missing\)",
    ),
    ("card doubled", (), lambda s: _haggle_colour(s, 2, 0, +1), r"^state: .*\(too many\)"),
    (
        "hand count negative",
        (),
        lambda s: replace(s, hands=put(s.hands, 3, (-1, *s.hands[3][1:]))),
        field(r"hands\[3\]\[0\]"),
    ),
    (
        "rules of one card",
        (),
        lambda s: replace(s, rules=put(s.rules, 0, s.rules[0][:1])),
        field(r"rules\[0\]"),
    ),
    (
        "rule card 12",
        (),
        lambda s: replace(s, rules=put(s.rules, 0, (s.rules[0][0], 12))),
        field(r"rules\[0\]"),
    ),
    (
        "the same rule card twice",
        (),
        lambda s: replace(s, rules=put(s.rules, 0, (3, 3))),
        field(r"rules\[0\]"),
    ),
    (
        "a rule card dealt twice",
        (),
        lambda s: replace(s, rules=put(s.rules, 1, s.rules[0])),
        field(r"rules\[1\]"),
    ),
    ("round past the trading rounds", (), lambda s: replace(s, round=5), field("round")),
    ("round negative", (), lambda s: replace(s, round=-1), field("round")),
    ("passes of every seat", (), lambda s: replace(s, passes=4), field("passes")),
    ("give over max_offer", (), lambda s: replace(s, give=(2, 2, 0, 0, 0)), field("give")),
    (
        "give not in the proposer's hand",
        (),
        lambda s: replace(
            s,
            give=tuple(
                3 if c == next(k for k in range(5) if s.hands[s.proposer][k] < 3) else 0 for c in range(5)
            ),
        ),
        field("give"),
    ),
    ("ask of 6 colours", (), lambda s: replace(s, ask=(0,) * 6), field("ask")),
    (
        "show a rule the proposer lacks",
        (),
        lambda s: replace(s, show=next(r for r in range(12) if r not in s.rules[s.proposer])),
        field("show"),
    ),
    ("show 12", (), lambda s: replace(s, show=12), field("show")),
    ("shown rule card not held", (), _haggle_shown_unowned, field(r"shown\[1\]")),
    ("shown of n entries", (), lambda s: replace(s, shown=s.shown[:4]), field("shown")),
    (
        "a seat's trade with itself",
        (),
        lambda s: replace(s, trades=put(s.trades, 0, 1)),
        field(r"trades\[0\]"),
    ),
    ("trades negative", (), lambda s: replace(s, trades=put(s.trades, 1, -1)), field(r"trades\[1\]")),
    ("flows of None", (), lambda s: replace(s, flows=put(s.flows, 2, None)), field(r"flows\[2\]")),
    (
        "a seat its own partner",
        (),
        lambda s: replace(s, last_partner=put(s.last_partner, 0, 0)),
        field(r"last_partner\[0\]"),
    ),
    (
        "partner 9",
        (),
        lambda s: replace(s, last_partner=put(s.last_partner, 1, 9)),
        field(r"last_partner\[1\]"),
    ),
    (
        "received of None",
        (),
        lambda s: replace(s, last_received=put(s.last_received, 0, None)),
        field(r"last_received\[0\]"),
    ),
    (
        "cards handed in while trading",
        (),
        lambda s: replace(s, submitted=put(s.submitted, 0, (1, 0, 0, 0, 0))),
        field(r"submitted\[0\]"),
    ),
    ("submit colour while trading", (), lambda s: replace(s, submit_colour=2), field("submit_colour")),
    ("scores before scoring", (), lambda s: replace(s, scores=(1, 2, 3, 4)), field("scores")),
    ("kept before scoring", (), lambda s: replace(s, kept=((0,) * 5,) * 4), field("kept")),
    (
        "submit colour 5",
        HAGGLE_SUBMIT,
        lambda s: _haggle_submitting(s, submit_colour=5),
        field("submit_colour"),
    ),
    (
        "a later seat handed in",
        HAGGLE_SUBMIT,
        lambda s: _haggle_submitting(s, submitted=put(((0,) * 5,) * 3, 2, (1, 0, 0, 0, 0))),
        field(r"submitted\[2\]"),
    ),
    (
        "a colour not yet reached handed in",
        HAGGLE_SUBMIT,
        lambda s: _haggle_submitting(s, submitted=put(((0,) * 5,) * 3, 1, (0, 0, 0, 1, 0))),
        field(r"submitted\[1\]"),
    ),
    (
        "submission before the rounds end",
        HAGGLE_SUBMIT,
        lambda s: _haggle_submitting(s, round=1),
        field("round"),
    ),
]


# -- Gong Zhu ------------------------------------------------------------------------------------
def _gongzhu_doubled(s: Any) -> Any:
    """A card of seat 1's hand also in seat 0's hand."""
    return replace(s, hands=(s.hands[0] | 1 << low(s.hands[1]), *s.hands[1:]))


def _gongzhu_false_void(s: Any) -> Any:
    """A seat void in a suit it holds."""
    card = low(s.hands[3])
    return replace(s, voids=put(s.voids, 3, s.voids[3] | 1 << (card // 13)))


def _gongzhu_capture_off(s: Any) -> Any:
    """A completed trick's card moved from one seat's captures to another's."""
    taker = next(p for p in range(4) if s.captured[p])
    card = low(s.captured[taker])
    other = (taker + 1) % 4
    captured = put(
        put(s.captured, taker, s.captured[taker] & ~(1 << card)), other, s.captured[other] | 1 << card
    )
    return replace(s, captured=captured)


def _gongzhu_first_trick_leader(s: Any) -> Any:
    """The first trick of hand 1 led by a seat without the 2 of spades."""
    holder = next(p for p in range(4) if s.hands[p] >> SPADE_TWO & 1)
    return replace(
        s,
        leader=(holder + 1) % 4,
        trick=(),
        played=(0,) * 4,
        captured=(0,) * 4,
        voids=(0,) * 4,
        point_masks=(0,) * 4,
        hand_points=(0,) * 4,
        hands=tuple(h | p for h, p in zip(s.hands, s.played)),
    )


GONGZHU_MULTI = (("game_end", -1000),)
GONGZHU: list[Entry] = [
    ("leader 9", (), lambda s: replace(s, leader=9), r"^state\.leader: 9 is not a seat of a 4-player game"),
    (
        "leader of another seat",
        (),
        lambda s: replace(s, leader=(s.leader + 1) % 4),
        r"^state\.(trick|played)",
    ),
    ("trick of 4 cards", (), lambda s: replace(s, trick=(*s.trick, 0, 1)), field("trick")),
    ("trick card id 52", (), lambda s: replace(s, trick=(52, *s.trick[1:])), field(r"trick\[0\]")),
    (
        "trick card twice",
        (),
        lambda s: replace(s, trick=(s.trick[0], s.trick[0])),
        r"^state\.trick: card \w+ appears twice",
    ),
    (
        "trick card not played",
        (),
        lambda s: replace(s, trick=(low(s.hands[s.leader]), s.trick[1])),
        r"^state\.(trick|played)",
    ),
    ("hands of 3 seats", (), lambda s: replace(s, hands=s.hands[:3]), field("hands")),
    (
        "card missing",
        (),
        lambda s: replace(s, hands=(s.hands[0] & ~(1 << low(s.hands[0])), *s.hands[1:])),
        r"^state: card \w+ is missing",
    ),
    ("card doubled", (), _gongzhu_doubled, r"^state\.hands\[1\]: card \w+ is also in state\.hands\[0\]"),
    (
        "card played and in hand",
        (),
        lambda s: replace(s, played=(s.played[0] | 1 << low(s.hands[0]), *s.played[1:])),
        r"^state\.played\[0\]: card \w+ is also in state\.hands\[0\]",
    ),
    (
        "hand bit past the deck",
        (),
        lambda s: replace(s, hands=(s.hands[0] | 1 << 52, *s.hands[1:])),
        field(r"hands\[0\]"),
    ),
    ("captured of 3 seats", (), lambda s: replace(s, captured=s.captured[:3]), field("captured")),
    ("captured cards off", (), _gongzhu_capture_off, field(r"captured")),
    (
        "captured hand cards",
        (),
        lambda s: replace(s, captured=(s.captured[0] | 1 << low(s.hands[1]), *s.captured[1:])),
        field("captured"),
    ),
    ("void 16", (), lambda s: replace(s, voids=(16, *s.voids[1:])), field(r"voids\[0\]")),
    ("void in a suit held", (), _gongzhu_false_void, field(r"voids\[3\]")),
    (
        "point masks off",
        (),
        lambda s: replace(s, point_masks=(s.point_masks[0] ^ 1, *s.point_masks[1:])),
        field(r"point_masks\[0\]"),
    ),
    (
        "hand points off",
        (),
        lambda s: replace(s, hand_points=(s.hand_points[0] + 10, *s.hand_points[1:])),
        field(r"hand_points\[0\]"),
    ),
    ("pig taker before the pig", (), lambda s: replace(s, pig_taker=2), field("pig_taker")),
    ("pig taker 7", (), lambda s: replace(s, pig_taker=7), field("pig_taker")),
    ("hand number 0", (), lambda s: replace(s, hand_number=0), field("hand_number")),
    (
        "hand 2 of the one-hand game",
        (),
        lambda s: replace(s, hand_number=2, last_hand_points=(0, 0, 0, 0)),
        field("hand_number"),
    ),
    (
        "hand 2 without the last hand's points",
        (),
        lambda s: replace(s, hand_number=2),
        field("last_hand_points"),
    ),
    (
        "last hand's points of 3 seats",
        (),
        lambda s: replace(s, hand_number=2, last_hand_points=(0, 0, 0)),
        field("last_hand_points"),
    ),
    ("totals in the one-hand game", (), lambda s: replace(s, totals=(10, 0, 0, 0)), field("totals")),
    ("first trick led without the 2 of spades", (), _gongzhu_first_trick_leader, field("leader")),
    ("a total past game_end", GONGZHU_MULTI, lambda s: replace(s, totals=(-1000, 0, 0, 0)), FINISHED),
    (
        "every card played",
        (),
        lambda s: replace(s, hands=(0,) * 4, played=tuple(h | p for h, p in zip(s.hands, s.played))),
        FINISHED,
    ),
]


TABLES: dict[str, list[Entry]] = {
    "red7_v0": RED7,
    "jaipur_v0": JAIPUR,
    "haggis_v0": HAGGIS,
    "haggle_v0": HAGGLE,
    "gongzhu_v0": GONGZHU,
}
OPTIONAL: dict[str, frozenset[str]] = {
    "red7_v0": frozenset(),
    "jaipur_v0": frozenset(),
    "haggis_v0": frozenset({"table", "last_hand_points"}),
    "haggle_v0": frozenset({"scores", "kept"}),
    "gongzhu_v0": frozenset({"last_hand_points"}),
}
"""Fields for which ``None`` can be valid (no table: the mover leads; hand 1; not yet scored)."""


def entries(name: str) -> list[Entry]:
    """Every corruption of game ``name``: its table, a finished game, and the type sweeps."""
    table = list(TABLES[name])
    table.append(("a finished game", (), lambda s: finished_state(name, ()), FINISHED))
    table.append(("config of another type", (), lambda s: replace(s, config="x"), field("config")))
    for label, corrupt, pattern in sweeps(base_state(name, ()), OPTIONAL[name]):
        table.append((label, (), corrupt, pattern))
    return table
