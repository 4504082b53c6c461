"""Haggis encoding: a play is chosen card by card, then declared; seat-rotated observation.

Actions (45): ``select i`` adds card id ``i`` of the mover's hand to the selection (ids must
increase within one play: number cards ``(rank - 2) * 4 + suit`` with suits S, H, D, C, then
36, 37, 38 = my J, Q, K); ``declare k`` plays the selection as a bomb (``k = 0``) or as a
sequence of multiplicity ``k = 1..4`` with the highest rank that is legal for those cards and
that kind (a lower rank of the same cards and kind is never better: the same cards leave the
hand and the table is easier to beat); ``pass``. The mask at every sub-step allows exactly the
cards and declarations that still complete to a legal play, so every legal play (cards +
kind) is reachable by exactly one action sequence and no illegal play is.

The partial selection lives in a :class:`Decision` next to the rules ``State`` (see
:class:`cardgames_env.core.game.Encoding`); it carries the candidate plays consistent with the
selection, so each sub-step's mask is one pass over a short list.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardgames_env.core.actions import ActionTable
from cardgames_env.core.cards import mask_to_array
from cardgames_env.core.game import Encoding, IllegalMoveError
from cardgames_env.core.observation import ObservationLayout
from cardgames_env.display.ansi import seat_label

from . import rules
from .cards import FACE_MASK, NUM_CARD_IDS, NUMBER_MASK, card_str, cards_str, parse_card
from .combos import BOMB_KIND, BOMB_RANK, legal_plays, reading_str, readings_of_mask
from .combos import Play as PlayTuple
from .rules import Config, Move, Pass, Play, State

NUM_DECLARE = 5
ACTIONS = ActionTable(
    [
        ("select", NUM_CARD_IDS,
         "add card id i to the selection: (rank-2)×4+suit (suits S,H,D,C), 36–38 = my J,Q,K; ids increase"),
        ("declare", NUM_DECLARE,
         "play the selection as: 0 = bomb, k = 1..4 = sequence of multiplicity k (highest legal rank)"),
        ("pass", 1, "pass (not allowed when leading or once a card is selected)"),
    ]
)
SELECT0 = ACTIONS.offset("select")
DECLARE0 = ACTIONS.offset("declare")
PASS = ACTIONS.offset("pass")

LAYOUT = ObservationLayout(
    [
        ("hand", 42, "my cards: number ids 0–35, my J,Q,K (36–38); 39–41 = opponent's unplayed J,Q,K"),
        ("table_cards", 42, "cards of the combination on the table (36–38 mine, 39–41 opponent's faces)"),
        ("trick_cards", 42, "every card played in the current trick (same 42-card layout)"),
        ("played", (2, 39), "cards each relative seat played this hand (numbers, then its own J,Q,K)"),
        ("selection", 39, "cards I have selected for the play I am building (only while I choose)"),
        ("table_empty", 1, "1 when no combination is on the table (the player to move leads)"),
        ("table_kind", 10, "table kind: sequence of multiplicity 1–4, bomb rainbow,JQ,JK,QK,JQK,suited"),
        ("table_length", 12, "one-hot length 1–12 of the table sequence"),
        ("table_rank", 12, "one-hot rank 2–13 of the table sequence"),
        ("table_player", 2, "relative seat that played the table combination"),
        ("opponent_hand_size", 1, "cards in the opponent's hand / 17"),
        ("trick_points", 1, "card points in the current trick / 36"),
        ("hand_points", 2, "points each relative seat scored in this hand / 100"),
        ("totals", 2, "each relative seat's total of completed hands / target_score"),
        ("selection_size", 1, "number of selected cards / 17 (sub-step of the play being built)"),
    ]
)
_S = {p.name: LAYOUT.slice(p.name) for p in LAYOUT.pieces}
_BINARY = _S["selection"].stop  # pieces before it are 0/1 bits packed in one int
_SEL_SHIFT = _S["selection"].start
_TABLE_SHIFT = _S["table_cards"].start
_TRICK_SHIFT = _S["trick_cards"].start
_PLAYED_SHIFT = _S["played"].start
_EMPTY = _S["table_empty"].start
_KIND0 = _S["table_kind"].start
_LEN0 = _S["table_length"].start
_RANK0 = _S["table_rank"].start
_TPLAYER0 = _S["table_player"].start
_OPP_SIZE = _S["opponent_hand_size"].start
_TRICK_POINTS = _S["trick_points"].start
_HAND_POINTS0 = _S["hand_points"].start
_TOTALS0 = _S["totals"].start
_SEL_SIZE = _S["selection_size"].start


@dataclass(frozen=True)
class Select:
    """Sub-step: add one card to the selection."""

    card: int

    def __str__(self) -> str:
        return f"select {card_str(self.card)}"


@dataclass(frozen=True)
class Decision:
    """Rules state plus the play being built.

    Attributes:
        state: the rules state.
        selected: bitmask of the cards selected so far (increasing ids).
        candidates: legal plays ``(cards, kind, reading)`` whose lowest cards are exactly
            ``selected``; ``None`` at the start of a lead (every card in hand starts a play).
    """

    state: State
    selected: int = 0
    candidates: tuple[PlayTuple, ...] | None = None


def _rel(cards: int, owner: int, viewer: int) -> int:
    """Cards in the 42-card observation layout: opponent's faces move to bits 39..41."""
    if owner == viewer:
        return cards
    return (cards & NUMBER_MASK) | (cards & FACE_MASK) << 3


class HaggisEncoding(Encoding):
    """Card-by-card selection then declaration; observation = :data:`LAYOUT` from the observer's seat."""

    rules = rules

    def __init__(self, config: Config):
        self.config = config
        self.actions = ACTIONS
        self.layout = LAYOUT
        self.num_players = rules.NUM_PLAYERS
        self._flags = (config.lone_qk_wild, config.natural_faces_in_runs)

    # -- decision state ---------------------------------------------------------------------
    def to_decision(self, state: State) -> Decision:
        """Return the decision at the start of a move (nothing selected)."""
        if state.hand_over:
            return Decision(state, 0, ())
        if state.table is None:
            return Decision(state, 0, None)
        plays = legal_plays(state.hands[state.to_move], state.table, *self._flags)
        return Decision(state, 0, tuple(plays))

    def rules_state(self, decision: Decision) -> State:
        """Return the rules state inside a decision."""
        return decision.state

    def replace_rules_state(self, decision: Decision, state: State) -> Decision:
        """Return the same selection over another rules state (candidates recomputed)."""
        new = self.to_decision(state)
        selected = decision.selected
        while selected:
            low = selected & -selected
            new = self._select(new, low.bit_length() - 1)
            selected ^= low
        return new

    def _select(self, decision: Decision, card: int) -> Decision:
        selected = decision.selected | 1 << card
        if decision.candidates is None:
            state = decision.state
            plays = legal_plays(state.hands[state.to_move], None, *self._flags, lowest=card)
            return Decision(state, selected, tuple(plays))
        low = (2 << card) - 1
        return Decision(
            decision.state, selected, tuple(p for p in decision.candidates if p[0] & low == selected)
        )

    # -- masks and actions ------------------------------------------------------------------
    def legal_action_mask(self, decision: Decision) -> np.ndarray:
        """Return the int8 mask: cards that extend the selection, declarations, pass."""
        state = decision.state
        mask = np.zeros(ACTIONS.size, dtype=np.int8)
        if state.hand_over:
            return mask
        candidates = decision.candidates
        if candidates is None:  # leading, nothing selected: every card starts a legal play
            mask[:NUM_CARD_IDS] = mask_to_array(state.hands[state.to_move], NUM_CARD_IDS)
            return mask
        selected = decision.selected
        nexts = 0
        for cards, kind, _ in candidates:
            rest = cards ^ selected
            if rest:
                nexts |= rest & -rest
            else:
                mask[DECLARE0 + kind] = 1
        if nexts:
            mask[:NUM_CARD_IDS] = mask_to_array(nexts, NUM_CARD_IDS)
        if not selected and state.table is not None:
            mask[PASS] = 1
        return mask

    def _declared(self, decision: Decision, kind: int) -> Play:
        for cards, k, reading in decision.candidates or ():
            if cards == decision.selected and k == kind:
                return Play(cards, reading)
        raise IllegalMoveError(f"declare {kind}: the selection is no legal play of that kind")

    def decode(self, decision: Decision, action: int) -> Select | Move:
        """Return the sub-step (:class:`Select`) or the move (play, pass) an action stands for."""
        family, index = ACTIONS.family_of(int(action))
        if family == "select":
            return Select(index)
        if family == "declare":
            return self._declared(decision, index)
        return Pass()

    def apply_action(self, decision: Decision, action: int) -> Decision:
        """Select a card, or complete the move (declare / pass) and start the next decision."""
        family, index = ACTIONS.family_of(int(action))
        if family == "select":
            state = decision.state
            if not state.hands[state.to_move] >> index & 1 or decision.selected >> index:
                raise IllegalMoveError(f"select {card_str(index)}: not a card that can be added")
            return self._select(decision, index)
        move = self._declared(decision, index) if family == "declare" else Pass()
        return self.to_decision(rules.apply_move(decision.state, move))

    def encode(self, decision: Decision, move: Move) -> int:
        """Return the next action towards ``move`` from the current selection.

        Raises:
            ValueError: if the move cannot be reached from here (cards not extending the
                selection, or a reading lower than the highest legal one of its kind).
        """
        if isinstance(move, Pass):
            return PASS
        if not isinstance(move, Play):
            raise ValueError(f"not a Haggis move: {move!r}")
        state = decision.state
        selected = decision.selected
        rest = move.cards & ~selected
        if move.cards & selected != selected or (rest and (rest & -rest) <= selected):
            raise ValueError(f"{move} does not extend the current selection {cards_str(selected)!r}")
        kind = BOMB_KIND if move.reading[0] == "bomb" else move.reading[1]
        if kind != BOMB_KIND:
            same = [
                r for r in readings_of_mask(move.cards, *self._flags)
                if r[0] == "sequence" and r[1] == kind
                and (state.table is None or state.table[0] == "sequence" and r[1:3] == state.table[1:3]
                     and r[3] > state.table[3])
            ]
            if same and move.reading != max(same):
                raise ValueError(
                    f"{move}: the env plays the highest legal rank of these cards, {reading_str(max(same))}"
                )
        if rest:
            return SELECT0 + (rest & -rest).bit_length() - 1
        return DECLARE0 + kind

    def action_to_string(self, decision: Decision, action: int) -> str:
        """``select 5S``, the full move for a declaration (``play 5S J as pair 5``), or ``pass``."""
        return str(self.decode(decision, action))

    def string_to_action(self, decision: Decision, text: str) -> int:
        """Parse ``select 5S``, ``pass`` or a full play (its next action from the selection)."""
        words = text.strip().split()
        if len(words) == 2 and words[0].lower() == "select":
            return SELECT0 + parse_card(words[1])
        return self.encode(decision, rules.parse_move(text))

    # -- observation ------------------------------------------------------------------------
    def observe(self, decision: Decision, player: int) -> np.ndarray:
        """Return ``player``'s observation vector (float32, :data:`LAYOUT`)."""
        state = decision.state
        other = 1 - player
        obs = np.zeros(LAYOUT.size, dtype=np.float32)
        bits = state.hands[player] | (state.hands[other] & FACE_MASK) << 3
        if state.table is not None:
            last_seat, last_cards, _ = state.trick[-1]
            bits |= _rel(last_cards, last_seat, player) << _TABLE_SHIFT
        trick = 0
        for seat, cards, _ in state.trick:
            trick |= _rel(cards, seat, player)
        bits |= trick << _TRICK_SHIFT
        bits |= (state.played[player] | state.played[other] << 39) << _PLAYED_SHIFT
        mover = not state.hand_over and state.to_move == player
        if mover and decision.selected:
            bits |= decision.selected << _SEL_SHIFT
            obs[_SEL_SIZE] = decision.selected.bit_count() / 17
        obs[:_BINARY] = mask_to_array(bits, _BINARY)
        table = state.table
        if table is None:
            obs[_EMPTY] = 1.0
        else:
            if table[0] == "bomb":
                obs[_KIND0 + 4 + BOMB_RANK[table[1]]] = 1.0
            else:
                _, m, length, rank = table
                obs[_KIND0 + m - 1] = 1.0
                obs[_LEN0 + min(length, 12) - 1] = 1.0
                obs[_RANK0 + rank - 2] = 1.0
            obs[_TPLAYER0 + (state.table_player - player) % 2] = 1.0
        obs[_OPP_SIZE] = state.hands[other].bit_count() / 17
        obs[_TRICK_POINTS] = state.trick_points / 36
        obs[_HAND_POINTS0] = state.hand_points[player] / 100
        obs[_HAND_POINTS0 + 1] = state.hand_points[other] / 100
        target = state.config.target_score
        obs[_TOTALS0] = state.totals[player] / target
        obs[_TOTALS0 + 1] = state.totals[other] / target
        return obs

    def render(self, decision: Decision, viewer: int | None) -> str:
        """Hands (the viewer's only, when given), the trick, the selection and the scores."""
        return render_state(decision, viewer)


def render_state(decision: Decision, viewer: int | None) -> str:
    """Return a compact text picture of a Haggis decision seen by ``viewer``."""
    state = decision.state
    mover = rules.current_player(state)
    status = f"P{mover} to play" if mover >= 0 else ("game over" if mover == -2 else "hand over")
    lines = [f"Haggis — hand {state.hand_number}, {status}"]
    for seat in range(rules.NUM_PLAYERS):
        label = seat_label(seat, viewer).ljust(9)
        hand = state.hands[seat]
        if viewer is None or seat == viewer:
            lines.append(f"  {label} {cards_str(hand) or '-'}")
        else:
            faces = cards_str(hand & FACE_MASK) or "-"
            lines.append(f"  {label} {hand.bit_count()} cards (faces {faces})")
    if state.trick:
        lines.append("  trick:    " + "  ".join(
            f"P{seat} {cards_str(cards)} ({reading_str(reading)})" for seat, cards, reading in state.trick
        ))
    if state.table is None and not state.hand_over:
        lines.append(f"  table:    empty (P{state.to_move} leads)")
    if decision.selected and (viewer is None or viewer == mover):
        lines.append(f"  selected: {cards_str(decision.selected)}")
    lines.append("  hand:     " + "  ".join(f"P{s} {p:+d}" for s, p in enumerate(state.hand_points)))
    lines.append(
        "  totals:   " + "  ".join(f"P{s} {t}" for s, t in enumerate(state.totals))
        + f"  (target {state.config.target_score})"
    )
    return "\n".join(lines)


__all__ = ["ACTIONS", "LAYOUT", "Decision", "HaggisEncoding", "Select"]
