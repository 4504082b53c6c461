"""Jaipur encoding with exchanges built in sub-steps (``Config(exchange_encoding="substeps")``).

The flat encoding (:mod:`cardgames_env.envs.jaipur.encoding`) gives each of the 25,456
exchanges its own action; a policy then pays for 25,505 logits every step. This encoding
keeps take-one (6), camels (1) and sell (6 × 7) as they are (same action ids) and builds an
exchange card by card with 14 more actions, 63 in all:

* ``exchange_take`` g (6): add one good of type g from the market to the cards taken;
* ``exchange_give`` t (7): add one card of type t (a good from the hand, or a camel from the
  herd) to the cards given;
* ``exchange_done`` (1): play the exchange built so far.

Sub-steps come in one canonical order: the cards taken in non-decreasing type order, then
the cards given in non-decreasing type order, then ``exchange_done``; so every exchange has
exactly one action sequence. The mask at every sub-step allows exactly the continuations of
the partial exchange that still complete to a legal exchange (the rules' ``legal_moves``),
and ``exchange_done`` only once the pair built is a legal exchange: every legal exchange is
reachable and nothing illegal is. Once an exchange is started only its sub-steps are legal
(there is no cancel; every started exchange can be completed). The rules are unchanged: the
move is applied, and checked, by ``rules.apply_move`` when ``exchange_done`` is played.

The partial exchange lives in a :class:`Decision` next to the rules ``State`` (see
:class:`cardgames_env.core.game.Encoding`) together with the indices of the legal exchanges
of the flat table it is a prefix of, so each sub-step's mask is one numpy indexing over
that short list. The observation is the flat one plus the partial exchange (take and give
counts), shown to the mover only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cardgames_env.core.actions import ActionTable
from cardgames_env.core.game import IllegalMoveError
from cardgames_env.core.observation import ObservationLayout

from . import rules
from .cards import CAMEL, NAMES, NUM_GOODS, NUM_TYPES, format_counts, parse_card
from .encoding import (
    ACTION_OF,
    ACTIONS,
    EXCHANGE_GIVE,
    EXCHANGE_TAKE,
    LAYOUT,
    MAX_SELL,
    MOVES,
    NUM_EXCHANGES,
    JaipurEncoding,
    legal_exchanges,
    observe,
    render_state,
    start_actions,
)
from .rules import Config, Exchange, Move, State

SUBSTEP_ACTIONS = ActionTable(
    [
        ("take", NUM_GOODS, "take one good of type i (diamond, gold, silver, cloth, spice, leather)"),
        ("camels", 1, "take all the camels of the market"),
        ("sell", NUM_GOODS * MAX_SELL, "sell n cards of good g: index g × 7 + (n − 1), n = 1..7"),
        ("exchange_take", NUM_GOODS, "exchange sub-step: add one good of type g (market) to the cards taken"),
        ("exchange_give", NUM_TYPES, "exchange sub-step: add one card of type t (6 = camel) to those given"),
        ("exchange_done", 1, "exchange sub-step: play the exchange built so far"),
    ]
)
FLAT_MOVES = ACTIONS.offset("exchange")
"""Actions below this id are the same moves (take, camels, sell) in both encodings."""
XTAKE0 = SUBSTEP_ACTIONS.offset("exchange_take")
XGIVE0 = SUBSTEP_ACTIONS.offset("exchange_give")
XDONE = SUBSTEP_ACTIONS.offset("exchange_done")
assert XTAKE0 == FLAT_MOVES
MAX_SUBSTEPS = 2 * 5 + 1
"""Longest exchange: 5 cards taken, 5 given, done."""

SUBSTEP_LAYOUT = ObservationLayout(
    [
        *((p.name, p.shape, p.description) for p in LAYOUT.pieces),
        ("exchange_take", NUM_GOODS, "goods taken so far in the exchange I am building (only while I do)"),
        ("exchange_give", NUM_TYPES, "cards given so far in the exchange I am building (goods, then camels)"),
    ]
)
"""The flat observation, then the mover's partial exchange."""


def exchange_sequence(take: tuple[int, ...] | list[int], give: tuple[int, ...] | list[int]) -> list[int]:
    """Return the canonical sub-step actions of an exchange (takes, gives, then done)."""
    seq = [XTAKE0 + g for g in range(NUM_GOODS) for _ in range(take[g])]
    seq += [XGIVE0 + t for t in range(NUM_TYPES) for _ in range(give[t])]
    seq.append(XDONE)
    return seq


def _build_sequences() -> np.ndarray:
    """Per flat exchange, its canonical sub-step actions padded with -1."""
    table = np.full((NUM_EXCHANGES, MAX_SUBSTEPS), -1, dtype=np.intp)
    for e, (take, give) in enumerate(zip(EXCHANGE_TAKE.tolist(), EXCHANGE_GIVE.tolist())):
        seq = exchange_sequence(take, give)
        table[e, : len(seq)] = seq
    return table


SEQUENCES = _build_sequences()
"""``SEQUENCES[e, d]``: the sub-step action number ``d`` of flat exchange ``e``."""
_FIRST_STEPS = np.ascontiguousarray(SEQUENCES[:, 0])
_NO_GOODS = (0,) * NUM_GOODS
_NO_CARDS = (0,) * NUM_TYPES


@dataclass(frozen=True)
class ExchangeStep:
    """Sub-step of an exchange: add one card to the cards taken (``"take"``) or given (``"give"``)."""

    side: str
    card: int

    def __str__(self) -> str:
        return f"exchange: {self.side} {NAMES[self.card]}"


@dataclass(frozen=True)
class Decision:
    """Rules state plus the exchange being built.

    Attributes:
        state: the rules state.
        take: counts of the 6 goods taken so far.
        give: counts of the 7 card types given so far.
        candidates: indices of the legal flat exchanges whose sequences start with the
            sub-steps made so far (``None``: computed on demand).
    """

    state: State
    take: tuple[int, ...] = _NO_GOODS
    give: tuple[int, ...] = _NO_CARDS
    candidates: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def depth(self) -> int:
        """Sub-steps made so far in this move."""
        return sum(self.take) + sum(self.give)


def _candidates(decision: Decision) -> np.ndarray:
    """Legal flat exchanges consistent with the partial exchange of ``decision``."""
    if decision.candidates is not None:
        return decision.candidates
    state = decision.state
    if state.round_over:
        return np.zeros(0, dtype=np.intp)
    p = state.player
    found = legal_exchanges(state.hands[p], state.herds[p][CAMEL], state.market)
    depth = decision.depth
    if depth:
        prefix = np.array(exchange_sequence(decision.take, decision.give)[:depth], dtype=np.intp)
        found = found[(SEQUENCES[found, :depth] == prefix).all(axis=1)]
    return found


def _start_mask(state: State) -> np.ndarray:
    """Mask at the start of a move: take, camels, sell as in the flat encoding, plus the first
    sub-step of every legal exchange."""
    mask = np.zeros(SUBSTEP_ACTIONS.size, dtype=np.int8)
    if state.round_over:
        return mask
    p = state.player
    takes, sells, exchanges, payable = start_actions(state.hands[p], state.herds[p][CAMEL], state.market)
    mask[takes] = 1
    mask[sells] = 1
    mask[_FIRST_STEPS[exchanges[payable.view(np.bool_)] - FLAT_MOVES]] = 1
    return mask


class JaipurSubstepEncoding(JaipurEncoding):
    """Actions = :data:`SUBSTEP_ACTIONS` (exchanges in sub-steps); observation = :data:`SUBSTEP_LAYOUT`."""

    def __init__(self, config: Config):
        self.config = config
        self.actions = SUBSTEP_ACTIONS
        self.layout = SUBSTEP_LAYOUT
        self.num_players = 2
        self._no_partial = np.zeros(NUM_GOODS + NUM_TYPES, dtype=np.float32)

    # -- decision state ---------------------------------------------------------------------
    def to_decision(self, state: State) -> Decision:
        """Return the decision at the start of a move (no exchange under way)."""
        return Decision(state)

    def rules_state(self, decision: Decision) -> State:
        """Return the rules state inside a decision."""
        return decision.state

    def replace_rules_state(self, decision: Decision, state: State) -> Decision:
        """Return the same partial exchange over another rules state (candidates recomputed)."""
        return Decision(state, decision.take, decision.give)

    # -- masks and actions ------------------------------------------------------------------
    def legal_action_mask(self, decision: Decision) -> np.ndarray:  # type: ignore[override]
        """Return the int8 mask: every move or first sub-step at the start of a move, else the
        sub-steps that continue the partial exchange towards a legal exchange."""
        depth = decision.depth
        if not depth:
            return _start_mask(decision.state)
        mask = np.zeros(SUBSTEP_ACTIONS.size, dtype=np.int8)
        mask[SEQUENCES[_candidates(decision), depth]] = 1
        return mask

    def decode(self, decision: Decision, action: int) -> ExchangeStep | Move:  # type: ignore[override]
        """Return the move (take, camels, sell, the exchange completed by ``exchange_done``) or
        the :class:`ExchangeStep` an action stands for."""
        action = int(action)
        if not 0 <= action < SUBSTEP_ACTIONS.size:
            raise ValueError(f"Jaipur actions are 0..{SUBSTEP_ACTIONS.size - 1}, got {action}")
        if action < XTAKE0:
            return MOVES[action]
        if action < XGIVE0:
            return ExchangeStep("take", action - XTAKE0)
        if action < XDONE:
            return ExchangeStep("give", action - XGIVE0)
        return Exchange(decision.take, decision.give)

    def apply_action(self, decision: Decision, action: int) -> Decision:  # type: ignore[override]
        """Make a sub-step, or complete the move (a non-exchange move or ``exchange_done``)."""
        action = int(action)
        state = decision.state
        depth = decision.depth
        if action < XTAKE0:
            if depth:
                raise IllegalMoveError(f"{MOVES[action]}: an exchange is under way")
            return Decision(rules.apply_move(state, MOVES[action]))
        candidates = _candidates(decision)
        if action == XDONE:
            if not depth or not (SEQUENCES[candidates, depth] == XDONE).any():
                raise IllegalMoveError(f"{Exchange(decision.take, decision.give)} is not a legal exchange")
            return Decision(rules.apply_move(state, Exchange(decision.take, decision.give)))
        kept = candidates[SEQUENCES[candidates, depth] == action]
        if not kept.size:
            raise IllegalMoveError(f"{self.decode(decision, action)}: no legal exchange continues this way")
        take, give = list(decision.take), list(decision.give)
        if action < XGIVE0:
            take[action - XTAKE0] += 1
        else:
            give[action - XGIVE0] += 1
        return Decision(state, tuple(take), tuple(give), kept)

    def encode(self, decision: Decision, move: Move) -> int:  # type: ignore[override]
        """Return the next action towards ``move`` from the current partial exchange.

        Raises:
            ValueError: for a move with no action (e.g. a 1-for-1 exchange), or one that
                does not continue the exchange under way.
        """
        if ACTION_OF.get(move) is None:
            raise ValueError(f"{move} is not a Jaipur action (it can never be legal)")
        depth = decision.depth
        if not isinstance(move, Exchange):
            if depth:
                raise ValueError(f"{move}: finish the exchange under way first")
            return ACTION_OF[move]
        seq = exchange_sequence(move.take, move.give)
        if seq[:depth] != exchange_sequence(decision.take, decision.give)[:depth]:
            raise ValueError(
                f"{move} does not continue the exchange under way "
                f"(taken {format_counts(decision.take)}, given {format_counts(decision.give)})"
            )
        return seq[depth]

    def action_to_string(self, decision: Decision, action: int) -> str:
        """``take gold``, ``camels``, ``sell 3 leather``, ``exchange: take gold``,
        ``exchange: give camel``, or the full exchange for ``exchange_done``."""
        return str(self.decode(decision, action))

    def string_to_action(self, decision: Decision, text: str) -> int:
        """Parse a sub-step (``exchange: take gold``, ``exchange: give camel``) or a full move
        (an exchange gives its next action from the partial exchange); ``exchange: done``."""
        words = text.strip().lower().replace(":", " ").split()
        if words == ["exchange", "done"]:
            return XDONE
        if len(words) == 3 and words[0] == "exchange" and words[1] in ("take", "give"):
            try:
                card = parse_card(words[2])
            except ValueError as err:
                raise ValueError(f"not a Jaipur action: {text!r} ({err})") from None
            if words[1] == "take":
                if card == CAMEL:
                    raise ValueError(f"not a Jaipur action: {text!r} (camels are never taken in an exchange)")
                return XTAKE0 + card
            return XGIVE0 + card
        return self.encode(decision, rules.parse_move(text))

    # -- observation ------------------------------------------------------------------------
    def observe(self, decision: Decision, player: int) -> np.ndarray:  # type: ignore[override]
        """Return ``player``'s observation (float32, :data:`SUBSTEP_LAYOUT`)."""
        state = decision.state
        base = observe(state, player)
        if decision.depth and state.player == player and not state.round_over:
            partial = np.array(decision.take + decision.give, dtype=np.float32)
        else:
            partial = self._no_partial
        return np.concatenate((base, partial))

    def render(self, decision: Decision, viewer: int | None) -> str:  # type: ignore[override]
        """The flat picture, plus the partial exchange when the viewer may see it."""
        text = render_state(decision.state, viewer)
        if decision.depth and (viewer is None or viewer == decision.state.player):
            text += (
                f"\n  exchange so far: take {format_counts(decision.take)}, "
                f"give {format_counts(decision.give)}"
            )
        return text


def make_encoding(config: Config) -> JaipurEncoding:
    """Return the encoding ``config.exchange_encoding`` asks for: :class:`JaipurEncoding`
    (``"flat"``) or :class:`JaipurSubstepEncoding` (``"substeps"``)."""
    if config.exchange_encoding == "substeps":
        return JaipurSubstepEncoding(config)
    return JaipurEncoding(config)


__all__ = [
    "SEQUENCES",
    "SUBSTEP_ACTIONS",
    "SUBSTEP_LAYOUT",
    "Decision",
    "ExchangeStep",
    "JaipurSubstepEncoding",
    "exchange_sequence",
    "make_encoding",
]
