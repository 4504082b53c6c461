"""Red7 encoding: flat turn actions (play, discard, play then discard, give up) plus effect
choices; a seat-rotated observation.

Every piece is seen from the observer's seat: relative seat 0 is "me", 1 the next player in
turn order, and so on. Nothing reveals a hidden card: other hands appear only as sizes and
as the cards everybody saw go into them (drawn after a 1 or a 7 put them on the deck).

The mask of a turn start (strict rules, no action rule) is computed from per-rule tables:
for each rule, :func:`.scoring.winning_additions` gives the set of cards whose addition
makes the palette win; play, discard and play-then-discard legality are then a few bitmask
operations per hand card.
"""

from __future__ import annotations

import numpy as np

from cardgames_env.core.actions import ActionTable
from cardgames_env.core.cards import mask_to_array
from cardgames_env.core.game import TERMINAL, Encoding
from cardgames_env.core.observation import ObservationLayout
from cardgames_env.core.render import seat_label

from . import rules
from .cards import CARD_COLOUR, COLOUR_MASKS, COLOURS, NUM_CARDS, mask_str
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
from .scoring import strengths, winning_additions, winning_cards

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

_COLOUR_SETS = tuple(
    sum(COLOUR_MASKS[k] for k in range(7) if s >> k & 1) for s in range(128)
)  # cards of a set of colours
_REVERSED7 = tuple(sum(1 << (6 - b) for b in range(7) if m >> b & 1) for m in range(128))
"""Bit ``6 - b`` for each bit ``b``: in-group positions of a fold -> colour indices."""
_BELOW = tuple((1 << c) - 1 for c in range(49))
_ABOVE48 = tuple(((1 << 48) - 1) & ~((1 << c) - 1) for c in range(49))
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

    # -- observation ---------------------------------------------------------------------------
    def observe(self, state: State, player: int) -> np.ndarray:
        """Return ``player``'s observation vector (float32)."""
        n = self.num_players
        seats = self._rotations[player]
        hands, palettes, known = state.hands, state.palettes, state.known_hands
        big = hands[player]
        shift = 49
        for seat in seats:
            big |= palettes[seat] << shift
            shift += 49
        big |= state.canvas << shift
        shift += 49
        for seat in seats:
            big |= known[seat] << shift
            shift += 49
        if state.known_top:
            deck_known = 0
            for card in state.deck[: state.known_top]:
                deck_known |= 1 << card
            big |= deck_known << shift
        big |= state.out_public << (shift + 49) | state.scored << (shift + 98)
        playing = state.status == PLAYING
        if state.effect_card >= 0 and playing:
            big |= 1 << (shift + 147 + state.effect_card)
        big |= 1 << (self._rule0 + state.rule)
        active = state.active
        for r, seat in enumerate(seats):
            if active >> seat & 1:
                big |= 1 << (self._active0 + r)
        winner = rules.winning_seat(state)
        if winner is not None:
            big |= 1 << (self._winning0 + (winner - player) % n)
        if playing:
            big |= 1 << (self._move0 + (state.player - player) % n) | 1 << (self._phase0 + state.phase)
        obs = np.empty(self.layout.size, dtype=np.float32)
        obs[: self._bits] = mask_to_array(big, self._bits)
        tail = [hands[seat].bit_count() / 7 for seat in seats]
        tail.append(len(state.deck) / NUM_CARDS)
        if state.config.advanced:
            target = state.config.target
            tail += [state.scores[seat] / target for seat in seats]
        else:
            tail += [0.0] * n
        obs[self._tail0 :] = tail
        return obs

    # -- mask ----------------------------------------------------------------------------------
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
        return [GIVE_UP]  # seed 3.4: no cards, only giving up
    palettes = state[2]
    active = state[4]
    palette = palettes[p]
    rows = [strengths(q) for s, q in enumerate(palettes) if s != p and active >> s & 1]
    if len(rows) == 1:
        thresholds = rows[0]
    else:
        thresholds = tuple(map(max, *rows)) if rows else (0,) * 7
    rule = state[6]
    base = strengths(palette)
    hand_cards = _cards_of(hand)
    plays = winning_cards(rule, palette, thresholds[rule], hand)
    actions = [PLAY0 + c for c in hand_cards if plays >> c & 1]
    actions.append(GIVE_UP)
    single = len(hand_cards) == 1
    by_colour: dict[int, list[int]] = {}
    for c in hand_cards:
        colour = CARD_COLOUR[c]
        if colour in by_colour:
            by_colour[colour].append(c)
        else:
            by_colour[colour] = [c]
    for colour, discards in by_colour.items():
        t = thresholds[colour]
        if base[colour] > t:
            actions += [DISCARD0 + d for d in discards]
        if single:
            continue
        wins = plays if colour == rule else winning_cards(colour, palette, t, hand)
        if not wins:
            continue
        for c in hand_cards:
            if wins >> c & 1:
                row = _PAIR_ROWS[c]
                actions += [row[d] for d in discards if d != c]
    return actions


def _cards_of(mask: int) -> list[int]:
    """Card ids of a bitmask, lowest first."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def main_mask_bits(state: State) -> int:
    """Legal actions at a strict turn start (no action rule) as a bitmask over :data:`ACTIONS`.

    A play of ``c`` wins iff ``c`` is in the rule's winning-addition set; a discard of ``d``
    wins iff the palette already wins under ``d``'s colour; play ``c`` then discard ``d``
    wins iff ``c`` is in the winning-addition set of ``d``'s colour.
    """
    p = state.player
    hand = state.hands[p]
    if not hand:
        return 1 << GIVE_UP
    palette = state.palettes[p]
    thresholds = rules.opponent_thresholds(state, p)
    base = strengths(palette)
    needed = 1 << state.rule
    if hand & (hand - 1):  # two cards or more: pairs need the rules of the hand's colours
        m = hand | hand >> 7
        m |= m >> 14
        m |= m >> 28
        needed |= _REVERSED7[m & 0x7F]
    a0, a1, a2, a3, a4, a5, a6 = additions = winning_additions(palette, thresholds, needed)
    plays = hand & additions[state.rule]
    colours = 0
    for k in range(7):
        if base[k] > thresholds[k]:
            colours |= 1 << k
    discards = hand & _COLOUR_SETS[colours]
    pairs = 0
    h = hand
    while h:
        low = h & -h
        c = low.bit_length() - 1
        h ^= low
        w = (
            (a0 >> c & 1) | (a1 >> c & 1) << 1 | (a2 >> c & 1) << 2 | (a3 >> c & 1) << 3
            | (a4 >> c & 1) << 4 | (a5 >> c & 1) << 5 | (a6 >> c & 1) << 6
        )
        d = hand & _COLOUR_SETS[w] & ~low
        if d:
            pairs |= ((d & _BELOW[c]) | (d >> 1 & _ABOVE48[c])) << (48 * c)
    return plays | discards << DISCARD0 | pairs << PAIR0 | 1 << GIVE_UP


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
    "ACTIONS", "DECODE", "LAYOUT", "Red7Encoding", "layout_for", "main_mask_actions", "main_mask_bits",
    "pair_action",
    "render_state",
]
