"""Red7 encoding: flat turn actions (play, discard, play then discard, give up) plus effect
choices; a seat-rotated observation.

Every piece is seen from the observer's seat: relative seat 0 is "me", 1 the next player in
turn order, and so on. Nothing reveals a hidden card: other hands appear only as sizes and
as the cards everybody saw go into them (drawn after a 1 or a 7 put them on the deck).

The mask of a turn start (strict rules, no action rule) is built without enumerating moves:
for the rule and for each colour in the hand, :data:`.scoring.WINNING_CARDS_BELOW` gives the
hand cards whose addition makes the palette win under it; the legal play, discard and
play-then-discard actions then come from precomputed per-colour action tables.
"""

from __future__ import annotations

from operator import itemgetter

import numpy as np

from cardgames_env.core.actions import ActionTable
from cardgames_env.core.game import TERMINAL, Encoding
from cardgames_env.core.observation import ObservationLayout
from cardgames_env.display.ansi import seat_label

from . import rules
from .cards import COLOUR_MASKS, COLOUR_NAMES, COLOURS, NUM_CARDS, mask_str
from .rules import (
    MAIN,
    PLAYING,
    Config,
    Discard,
    EndTurn,
    GiveUp,
    Move,
    Play,
    PlayDiscard,
    SevenCanvas,
    SevenDeck,
    State,
    Take,
)
from .scoring import WINNING_CARDS_BELOW, strengths

ACTIONS = ActionTable(
    [
        ("play", 49, "play card i to the palette (card id = (number−1)·7 + 6 − colour: V1 = 0 … R7 = 48); "
         "also the extra card of a 5"),
        ("discard", 49, "discard card i to the canvas (its colour becomes the rule); also after an effect"),
        ("play_discard", 49 * 48,
         "play card i, then discard card j ≠ i: offset + 48·i + (j if j < i else j − 1)"),
        ("give_up", 1, "give up (leave the round)"),
        ("take", 49, "action rule, a 1: put opponent's palette card i on top of the deck"),
        ("canvas", 49, "action rule, a 7: move own palette card i to the canvas"),
        ("deck", 49, "action rule with seven_to_deck, a 7: put own palette card i on top of the deck"),
        ("end_turn", 1, "action rule: end the turn after an odd card's effect without discarding"),
    ]
)
PLAY0, DISCARD0, PAIR0 = ACTIONS.offset("play"), ACTIONS.offset("discard"), ACTIONS.offset("play_discard")
GIVE_UP, TAKE0 = ACTIONS.offset("give_up"), ACTIONS.offset("take")
CANVAS0, DECK0, END_TURN = ACTIONS.offset("canvas"), ACTIONS.offset("deck"), ACTIONS.offset("end_turn")

PHASES = ("main", "extra", "take", "seven", "canvas")


def pair_action(play: int, discard: int) -> int:
    """Return the ``play_discard`` action of playing ``play`` then discarding ``discard``."""
    return PAIR0 + 48 * play + (discard if discard < play else discard - 1)


def move_action(move: Move) -> int:
    """Return the action of a move (it does not depend on the state).

    Raises:
        ValueError: for a pair whose cards are the same, or what is not a Red7 move.
    """
    if isinstance(move, Play):
        return PLAY0 + move.card
    if isinstance(move, Discard):
        return DISCARD0 + move.card
    if isinstance(move, PlayDiscard):
        if move.play == move.discard:
            raise ValueError("the palette card and the canvas card must differ")
        return pair_action(move.play, move.discard)
    if isinstance(move, GiveUp):
        return GIVE_UP
    if isinstance(move, Take):
        return TAKE0 + move.card
    if isinstance(move, SevenCanvas):
        return CANVAS0 + move.card
    if isinstance(move, SevenDeck):
        return DECK0 + move.card
    if isinstance(move, EndTurn):
        return END_TURN
    raise ValueError(f"not a Red7 move: {move!r}")


def _decode_table() -> tuple[Move, ...]:
    table: list[Move] = []
    table += [Play(c) for c in range(49)]
    table += [Discard(c) for c in range(49)]
    for c in range(49):
        table += [PlayDiscard(c, d) for d in range(49) if d != c]
    table.append(GiveUp())
    table += [Take(c) for c in range(49)] + [SevenCanvas(c) for c in range(49)]
    table += [SevenDeck(c) for c in range(49)]
    table.append(EndTurn())
    assert len(table) == ACTIONS.size
    return tuple(table)


DECODE: tuple[Move, ...] = _decode_table()
"""The move of every action."""

_PAIR_ROWS: tuple[tuple[int, ...], ...] = tuple(
    tuple(pair_action(c, d) if d != c else -1 for d in range(49)) for c in range(49)
)
"""``_PAIR_ROWS[c][d]``: the ``play_discard`` action of playing ``c`` then discarding ``d``."""
_PLAY_OF: tuple[int, ...] = tuple(
    m.card if isinstance(m, Play) else m.play if isinstance(m, PlayDiscard) else -1
    for m in DECODE[:GIVE_UP]
)
"""Card played to the palette by each turn-start action below ``give_up`` (-1: none)."""
_DISCARD_OF: tuple[int, ...] = tuple(
    m.card if isinstance(m, Discard) else m.discard if isinstance(m, PlayDiscard) else -1
    for m in DECODE[:GIVE_UP]
)
"""Card discarded to the canvas by each turn-start action below ``give_up`` (-1: none)."""
_NUM_ACTIONS = ACTIONS.size
_COLOUR_LOW = COLOUR_MASKS[6]  # the Violet cards: bits 0, 7, .., 42
_BITS7: tuple[tuple[int, ...], ...] = tuple(tuple(b for b in range(7) if m >> b & 1) for m in range(128))
"""The set bits of each 7-bit number."""


def _colour_group(shift: int, group: int) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """For hand cards ``group << shift`` (all of colour ``6 - shift``): their ``discard``
    actions, and for each card ``c`` the ``play_discard`` actions of playing ``c`` then one of them."""
    cards = tuple(c for c in range(49) if (group << shift) >> c & 1)
    pairs = tuple(tuple(_PAIR_ROWS[c][d] for d in cards if d != c) for c in range(49))
    return tuple(DISCARD0 + d for d in cards), pairs


_COLOUR_GROUPS: tuple[dict[int, tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]], ...] = tuple(
    {
        group: _colour_group(shift, group)
        for group in (sum(1 << 7 * n for n in range(7) if m >> n & 1) for m in range(128))
    }
    for shift in range(7)
)
"""``_COLOUR_GROUPS[shift][(hand >> shift) & _COLOUR_LOW]``: :func:`_colour_group` of the
hand's cards of colour ``6 - shift``."""
_OPPONENTS: dict[int, tuple[dict[int, tuple[int, ...]], ...]] = {
    n: tuple(
        {active: tuple(s for s in range(n) if s != p and active >> s & 1) for active in range(1 << n)}
        for p in range(n)
    )
    for n in (2, 3, 4)
}
"""``_OPPONENTS[n][p][active]``: the other seats still in the round."""
_ACTIVE_SEATS: tuple[tuple[int, ...], ...] = tuple(
    tuple(s for s in range(4) if active >> s & 1) for active in range(16)
)
"""The seats in a set of active seats."""
_RULE_ITEM = tuple(itemgetter(rule) for rule in range(7))
_BIT_COUNT = int.bit_count
_FLAG_BITS: dict[tuple, int] = {}
"""Observation cache: the rule, active, winning, to_move and phase bits (bounded by the key's
few small ints)."""
_TAILS: dict[tuple, np.ndarray] = {}
"""Observation cache: the hand_sizes, deck_size and scores pieces (cleared when large)."""
_BIT_BLOCKS = 6  # hand, canvas, deck_known, out, scored, effect (+ 2 per seat)


def layout_for(num_players: int) -> ObservationLayout:
    """The observation layout for a number of players (relative seats, me first)."""
    n = num_players
    return ObservationLayout(
        [
            ("hand", 49, "my hand (card id order)"),
            ("palettes", (n, 49), "each relative seat's palette (empty once out)"),
            ("canvas", 49, "cards discarded to the canvas this round (public history)"),
            ("known_hands", (n, 49), "cards everybody knows to be in each relative seat's hand"),
            ("deck_known", 49, "cards known to lie on top of the deck (put there by a 1 or a 7)"),
            ("out", 49, "cards of eliminated players that everybody saw (out of the round)"),
            ("scored", 49, "cards scored in earlier rounds (advanced game, out of the game)"),
            ("effect_card", 49, "the odd card whose effect the mover is resolving (action rule)"),
            ("rule", 7, "one-hot current rule (R O Y G B I V)"),
            ("active", n, "relative seats still in the round"),
            ("winning", n, "one-hot relative seat winning under the current rule (none: all 0)"),
            ("to_move", n, "one-hot relative seat to move"),
            ("phase", 5, "one-hot decision of the mover: main, 5's extra card, 1's take, 7's card, canvas"),
            ("hand_sizes", n, "cards in each relative seat's hand / 7"),
            ("deck_size", 1, "cards in the deck / 49"),
            ("scores", n, "each relative seat's points / target score (advanced game)"),
        ]
    )


LAYOUT = layout_for(2)
"""The observation layout of the default (2-player) game; see :func:`layout_for`."""


class Red7Encoding(Encoding):
    """Actions = :data:`ACTIONS`; observation = :func:`layout_for` from the observer's seat."""

    rules = rules

    def __init__(self, config: Config):
        self.config = config
        self.actions = ACTIONS
        self.num_players = n = config.num_players
        self.layout = layout_for(n)
        s = {p.name: self.layout.slice(p.name) for p in self.layout.pieces}
        # Every 0/1 piece (hand .. phase) is one bitmask; hand_sizes, deck_size, scores follow.
        self._bits = s["hand_sizes"].start
        assert s["effect_card"].stop == s["rule"].start == 49 * (_BIT_BLOCKS + 2 * n)
        self._rule0 = s["rule"].start
        self._active0 = s["active"].start
        self._winning0 = s["winning"].start
        self._move0 = s["to_move"].start
        self._phase0 = s["phase"].start
        self._tail0 = s["hand_sizes"].start
        self._fast_mask = config.strict and not config.action_rule
        self._turn_start_only = not config.action_rule  # every decision is a turn start
        self._rotations = tuple(tuple((p + r) % n for r in range(n)) for p in range(n))
        self._seats = tuple(range(n))
        self._size = self.layout.size
        self._nbytes = (self._bits + 7) // 8
        self._canvas0 = s["canvas"].start
        self._deck_known0 = s["deck_known"].start
        self._out0 = s["out"].start
        self._scored0 = s["scored"].start
        self._effect0 = s["effect_card"].start
        self._palette_shifts = tuple(
            tuple((seat, s["palettes"].start + 49 * r) for r, seat in enumerate(self._rotations[p]))
            for p in range(n)
        )
        self._known_shifts = tuple(
            tuple((seat, s["known_hands"].start + 49 * r) for r, seat in enumerate(self._rotations[p]))
            for p in range(n)
        )
        # Key of the module-level observation caches: what their values depend on besides the key.
        self._shape_key = (n, config.target if config.advanced else 0)

    # -- observation ---------------------------------------------------------------------------
    def observe(self, state: State, player: int) -> np.ndarray:
        """Return ``player``'s observation vector (float32)."""
        (config, hands, palettes, deck, active, mover, rule, canvas, phase, effect_card, known_top,
         known, out_public, _, scores, scored, _, status, _, _) = state
        # Every 0/1 piece is one bit of one int, unpacked once; the few fractions follow.
        big = hands[player] | canvas << self._canvas0
        for seat, shift in self._palette_shifts[player]:
            big |= palettes[seat] << shift
        if any(known):
            for seat, shift in self._known_shifts[player]:
                big |= known[seat] << shift
        if known_top:
            deck_known = 0
            for card in deck[:known_top]:
                deck_known |= 1 << card
            big |= deck_known << self._deck_known0
        if out_public:
            big |= out_public << self._out0
        if scored:
            big |= scored << self._scored0
        playing = status == PLAYING
        if playing and effect_card >= 0:
            big |= 1 << (self._effect0 + effect_card)
        # The winning seat ("The seven rules"): the strongest active palette, if any qualifies.
        seats = _ACTIVE_SEATS[active]
        values = list(map(_RULE_ITEM[rule], map(strengths, map(palettes.__getitem__, seats))))
        best = max(values, default=0)
        winner = seats[values.index(best)] if best else -1
        key = (self._shape_key, player, rule, active, winner, *((mover, phase) if playing else (-1, -1)))
        flags = _FLAG_BITS.get(key)
        if flags is None:
            flags = _FLAG_BITS[key] = self._flag_bits(*key[1:])
        big |= flags
        sizes = tuple(map(_BIT_COUNT, hands))
        seen_scores = scores[player:] + scores[:player] if config.advanced else None
        key2 = (self._shape_key, sizes[player:] + sizes[:player], len(deck), seen_scores)
        tail = _TAILS.get(key2)
        if tail is None:
            if len(_TAILS) >= 1 << 14:  # the advanced game's scores and sizes vary more
                _TAILS.clear()
            tail = _TAILS[key2] = self._tail(*key2[1:])
        obs = np.empty(self._size, dtype=np.float32)
        obs[: self._bits] = np.unpackbits(
            np.frombuffer(big.to_bytes(self._nbytes, "little"), dtype=np.uint8),
            count=self._bits, bitorder="little",
        )
        obs[self._tail0 :] = tail
        return obs

    def _flag_bits(self, player: int, rule: int, active: int, winner: int, mover: int, phase: int) -> int:
        """The ``rule``, ``active``, ``winning``, ``to_move`` and ``phase`` bits (-1: none set)."""
        n = self.num_players
        bits = 1 << (self._rule0 + rule)
        for r, seat in enumerate(self._rotations[player]):
            if active >> seat & 1:
                bits |= 1 << (self._active0 + r)
        if winner >= 0:
            bits |= 1 << (self._winning0 + (winner - player) % n)
        if mover >= 0:
            bits |= 1 << (self._move0 + (mover - player) % n) | 1 << (self._phase0 + phase)
        return bits

    def _tail(
        self, sizes: tuple[int, ...], deck_size: int, scores: tuple[int, ...] | None
    ) -> np.ndarray:
        """The ``hand_sizes``, ``deck_size`` and ``scores`` pieces from relative-seat sizes and
        scores (``None``: the scores piece is 0 outside the advanced game)."""
        tail = [size / 7 for size in sizes]
        tail.append(deck_size / NUM_CARDS)
        if scores is not None:
            target = self.config.target
            tail += [score / target for score in scores]
        else:
            tail += [0.0] * self.num_players
        return np.array(tail, dtype=np.float32)

    # -- mask ----------------------------------------------------------------------------------
    hidden_layout = ObservationLayout(
        [
            ("hidden_deck", 49, "cards in the deck (card id order; the order of the deck is not encoded)"),
            ("hidden_out", 49, "eliminated players' hand cards nobody saw (out of the round)"),
        ]
    )
    """The state vector's part that no seat's observation shows (see ``Encoding.state_vector``)."""

    def hidden_vector(self, state: State) -> np.ndarray:
        """Return the deck's cards and the unseen cards of eliminated hands, as 0/1 floats."""
        vector = np.zeros(2 * NUM_CARDS, dtype=np.float32)
        vector[list(state.deck)] = 1.0
        out = 0
        for cards in state.out_hidden:
            out |= cards
        vector[[NUM_CARDS + c for c in range(NUM_CARDS) if out >> c & 1]] = 1.0
        return vector

    def legal_action_mask(self, state: State) -> np.ndarray:
        """Return the int8 mask of legal actions (equal to ``rules.legal_moves`` exactly)."""
        if self._fast_mask and state.phase == MAIN and state.status == PLAYING:
            mask = bytearray(_NUM_ACTIONS)
            for action in main_mask_actions(state):
                mask[action] = 1
            return np.frombuffer(mask, dtype=np.int8)
        return self.actions.mask(self.encode(state, m) for m in rules.legal_moves(state))

    # -- actions -------------------------------------------------------------------------------
    def encode(self, state: State, move: Move) -> int:
        """Return the action of a move."""
        return move_action(move)

    def decode(self, state: State, action: int) -> Move:
        """Return the move of an action."""
        if not 0 <= action < ACTIONS.size:
            raise ValueError(f"Red7 actions are 0..{ACTIONS.size - 1}, got {action}")
        return DECODE[action]

    def apply_action(self, state: State, action: int) -> State:
        """Apply an action the env has checked against the mask (no second legality check)."""
        if action < GIVE_UP and self._turn_start_only:
            return rules.apply_turn_start(state, _PLAY_OF[action], _DISCARD_OF[action])
        return rules.apply_legal_move(state, DECODE[action])

    def render(self, state: State, viewer: int | None) -> str:
        """Palettes, the rule, the canvas and hands (the viewer's only, when given)."""
        return render_state(state, viewer)

    def legend(self) -> str:
        """The card notation: colour letter and number, the colours from the highest."""
        colours = ", ".join(f"{letter} {name}" for letter, name in zip(COLOURS, COLOUR_NAMES))
        return f"cards: colour letter then number (R7 is the red 7); colours, highest first: {colours}"


def main_mask_actions(state: State) -> list[int]:
    """Legal actions at a strict turn start (no action rule), in no particular order.

    A play of ``c`` wins iff ``c`` is a winning addition under the rule; a discard of ``d``
    wins iff the palette already wins under ``d``'s colour; play ``c`` then discard ``d``
    wins iff ``c`` is a winning addition under ``d``'s colour. Winning additions are only
    looked for among the hand's cards and only under the rule and the hand's colours.
    """
    p = state[5]  # player
    hand = state[1][p]
    if not hand:
        return [GIVE_UP]  # "A turn": no cards, only giving up
    palettes = state[2]
    active = state[4]
    palette = palettes[p]
    opponents = _OPPONENTS[len(palettes)][p][active]
    if len(opponents) == 1:
        thresholds = strengths(palettes[opponents[0]])
    else:  # the best opponent under each rule
        thresholds = tuple(map(max, *map(strengths, map(palettes.__getitem__, opponents))))
    rule = state[6]
    base = strengths(palette)
    t = thresholds[rule]
    plays = hand if base[rule] > t else WINNING_CARDS_BELOW[rule](palette, t, hand)
    actions = [GIVE_UP]
    append = actions.append
    w = plays
    while w:
        low = w & -w
        append(PLAY0 + low.bit_length() - 1)
        w ^= low
    single = not hand & (hand - 1)
    m = hand | hand >> 7
    m |= m >> 14
    m |= m >> 28
    for shift in _BITS7[m & 0x7F]:  # in-group position of each colour in the hand
        colour = 6 - shift
        discards, pairs = _COLOUR_GROUPS[shift][hand >> shift & _COLOUR_LOW]
        t = thresholds[colour]
        if base[colour] > t:  # already winning under this colour: discard it, alone or after any play
            actions += discards
            if single:
                continue
            wins = hand
        elif single:
            continue
        else:
            wins = plays if colour == rule else WINNING_CARDS_BELOW[colour](palette, t, hand)
        while wins:
            low = wins & -wins
            actions += pairs[low.bit_length() - 1]
            wins ^= low
    return actions


def render_state(state: State, viewer: int | None) -> str:
    """Return a compact text picture of a Red7 state seen by ``viewer`` (``None``: all hands)."""
    mover = rules.current_player(state)
    if mover >= 0:
        status = f"P{mover} to move" + ("" if state.phase == MAIN else f" ({PHASES[state.phase]})")
    else:
        status = "game over" if mover == TERMINAL else "round over"
    winner = rules.winning_seat(state)
    lines = [
        f"Red7 — round {state.round_number}, {status}; rule {rules.describe_rule(state.rule)}; "
        f"winning: {'-' if winner is None else f'P{winner}'}; deck {len(state.deck)}",
    ]
    for seat in range(state.num_players):
        label = seat_label(seat, viewer).ljust(9)
        if not state.active >> seat & 1:
            lines.append(f"  {label} out")
            continue
        hand = state.hands[seat]
        shown = mask_str(hand) if viewer is None or seat == viewer else f"{hand.bit_count()} cards"
        score = f"  score {state.scores[seat]}" if state.config.advanced else ""
        lines.append(f"  {label} palette [{mask_str(state.palettes[seat])}]  hand [{shown}]{score}")
    lines.append(f"  canvas: {mask_str(state.canvas)} (rule {COLOURS[state.rule]})")
    if state.status != PLAYING and state.winner >= 0:
        lines.append(f"  round won by P{state.winner}")
    return "\n".join(lines)


__all__ = [
    "ACTIONS", "DECODE", "LAYOUT", "Red7Encoding", "layout_for", "main_mask_actions", "move_action",
    "pair_action", "render_state",
]
