"""Haggle encoding: one small ``Discrete`` space for every step of an offer; a seat-rotated observation.

Every rules move is one action (the proposer's offer is built in four moves of the rules
``State``: target, give, ask, terms), so the space stays small: 156 actions for 4 players with
``max_offer=3`` instead of the ~56,000 of a flat offer space. Targets are relative seats
("the k-th player after me"). Observations put "me" at relative seat 0; nothing reveals
another player's hand, its unseen rule cards, or the contents of offers between others.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardgames_env.core.actions import ActionTable
from cardgames_env.core.game import Encoding
from cardgames_env.core.observation import ObservationLayout
from cardgames_env.display.ansi import seat_label

from . import rules
from .cards import COLOURS, NUM_COLOURS, NUM_MODIFIERS, hand_str, rule_str
from .rules import (
    Accept,
    Ask,
    Config,
    Give,
    Move,
    Pass,
    Reject,
    Stage,
    State,
    Submit,
    Target,
    Terms,
)

NUM_TERMS = 2 * (NUM_MODIFIERS + 1)
"""Terms actions: show (none, or rule card 0..11) x request (no, yes)."""


def build_actions(config: Config) -> ActionTable:
    """The action table of a configuration (sizes depend on N, K and the submission variant)."""
    n = config.num_players
    m = len(rules.offer_sets(config.max_offer))
    families = [
        ("pass", 1, "pass: make no offer this turn"),
        ("target", n - 1, "start an offer to the k-th player after me (k = index + 1)"),
        ("give", m, f"offer to give card multiset i (0..{config.max_offer} cards, see `offer_sets`)"),
        ("ask", m, "ask for card multiset i (same list)"),
        ("terms", NUM_TERMS, "finish the offer: index = 2 × (shown rule + 1) + request (shown -1 = none)"),
        ("reject", 1, "reject the offer made to me"),
        ("accept", 1, "accept the offer made to me (no rule card requested)"),
        ("accept_show", NUM_MODIFIERS, "accept and reveal my rule card i (S1..S12) as requested"),
    ]
    if config.submission_phase:
        families.append(("submit", 2 * n + 1, "hand in i cards of the colour being submitted"))
    return ActionTable(families)


def build_layout(config: Config) -> ObservationLayout:
    """The observation layout of a configuration (sizes depend on N and T)."""
    n, t = config.num_players, config.trading_rounds
    return ObservationLayout(
        [
            ("hand", NUM_COLOURS, "my colour counts Y B R O W / 10"),
            ("my_rules", NUM_MODIFIERS, "my two rule cards (S1..S12)"),
            ("shown_to_me", (n - 1, NUM_MODIFIERS), "rule cards each other relative seat has shown me"),
            ("shown_by_me", (n - 1, NUM_MODIFIERS), "my rule cards I have shown each other relative seat"),
            ("hand_sizes", n, "each relative seat's number of colour cards / 10"),
            ("stage", 6, "one-hot: propose, give, ask, terms, respond, submit"),
            ("proposer", n, "one-hot relative seat whose turn it is (or who is submitting)"),
            ("round", t, "one-hot trading round"),
            ("passes", 1, "consecutive passes / N"),
            ("offer_target", n, "relative seat the offer is to (me as proposer, or anyone once sent)"),
            ("offer_give", NUM_COLOURS, "cards the offer gives the target / 3 (parties only)"),
            ("offer_ask", NUM_COLOURS, "cards the offer asks of the target / 3 (parties only)"),
            ("offer_terms", 2, "the offer shows a rule card; it requests one (parties only)"),
            ("trades", (n, n), "accepted offers from relative seat (row) to relative seat (col) / 5"),
            ("gave", (n - 1, NUM_COLOURS), "cards I gave each other relative seat in accepted trades / 10"),
            ("received", (n - 1, NUM_COLOURS), "cards I received from each other relative seat / 10"),
            ("submitted", NUM_COLOURS, "my cards handed in so far (submission variant) / 10"),
            ("submit_colour", NUM_COLOURS, "one-hot colour being submitted (submission variant)"),
        ]
    )


ACTIONS = build_actions(Config())
"""The action table of the default configuration (4 players)."""
LAYOUT = build_layout(Config())
"""The observation layout of the default configuration (4 players)."""

_BITS12 = ((np.arange(1 << NUM_MODIFIERS)[:, None] >> np.arange(NUM_MODIFIERS)) & 1).astype(np.float32)
"""Row ``b`` = the 12 bits of ``b`` (rule-card bitmask -> one-hot rows)."""


class HaggleEncoding(Encoding):
    """Actions and observation of :mod:`rules` for one :class:`Config`."""

    rules = rules

    def __init__(self, config: Config):
        self.config = config
        n = self.num_players = config.num_players
        self.actions = build_actions(config)
        self.layout = build_layout(config)
        self.offer_sets = rules.offer_sets(config.max_offer)
        self._offer_index = {m: i for i, m in enumerate(self.offer_sets)}
        self._offer_array = np.array(self.offer_sets, dtype=np.int64)
        a = self.actions
        self._pass = a.offset("pass")
        self._target = a.offset("target")
        self._give = a.offset("give")
        self._ask = a.offset("ask")
        self._terms = a.offset("terms")
        self._reject = a.offset("reject")
        self._accept = a.offset("accept")
        self._accept_show = a.offset("accept_show")
        self._submit = a.offset("submit") if config.submission_phase else -1
        m = len(self.offer_sets)
        self._propose_mask = np.zeros(a.size, dtype=np.int8)
        self._propose_mask[self._pass : self._target + n - 1] = 1
        self._ask_mask = np.zeros(a.size, dtype=np.int8)
        self._ask_mask[self._ask : self._ask + m] = 1
        self._give_cache: dict[tuple[int, ...], np.ndarray] = {}
        self._terms_cache: dict[tuple[Any, ...], np.ndarray] = {}
        self._s = {p.name: self.layout.slice(p.name) for p in self.layout.pieces}
        self._o = {p.name: p.offset for p in self.layout.pieces}
        # Seat rotations: _rot[player] = absolute seats in relative order.
        self._rot = [[(player + r) % n for r in range(n)] for player in range(n)]
        self._scale = np.ones(self.layout.size, dtype=np.float32)
        for name, factor in (
            ("hand", 0.1),
            ("hand_sizes", 0.1),
            ("offer_give", 1 / 3),
            ("offer_ask", 1 / 3),
            ("trades", 0.2),
            ("gave", 0.1),
            ("received", 0.1),
            ("submitted", 0.1),
        ):
            self._scale[self._s[name]] = factor
        self._pair_rot = [
            np.array([a_ * n + b_ for a_ in rot for b_ in rot], dtype=np.int64) for rot in self._rot
        ]

    # -- actions --------------------------------------------------------------------------------
    def encode(self, state: State, move: Move) -> int:
        """Return the action of a move in ``state`` (targets are relative to the mover)."""
        if isinstance(move, Pass):
            return self._pass
        if isinstance(move, Target):
            k = (move.seat - state.proposer) % self.num_players
            if k == 0:
                raise ValueError("a player cannot make an offer to itself")
            return self._target + k - 1
        if isinstance(move, (Give, Ask)):
            if move.cards not in self._offer_index:
                raise ValueError(f"{move} has more than {self.config.max_offer} cards")
            base = self._give if isinstance(move, Give) else self._ask
            return base + self._offer_index[move.cards]
        if isinstance(move, Terms):
            show = -1 if move.show is None else move.show
            return self._terms + 2 * (show + 1) + int(move.request)
        if isinstance(move, Reject):
            return self._reject
        if isinstance(move, Accept):
            return self._accept if move.show is None else self._accept_show + move.show
        if isinstance(move, Submit):
            if self._submit < 0:
                raise ValueError("submit moves need submission_phase=True")
            if not 0 <= move.count <= 2 * self.num_players:
                raise ValueError(f"cannot submit {move.count} cards of a colour")
            return self._submit + move.count
        raise ValueError(f"not a Haggle move: {move!r}")

    def decode(self, state: State, action: int) -> Move:
        """Return the move an action stands for in ``state``."""
        family, i = self.actions.family_of(int(action))
        if family == "pass":
            return Pass()
        if family == "target":
            return Target((state.proposer + i + 1) % self.num_players)
        if family == "give":
            return Give(self.offer_sets[i])
        if family == "ask":
            return Ask(self.offer_sets[i])
        if family == "terms":
            show = i // 2 - 1
            return Terms(None if show < 0 else show, bool(i % 2))
        if family == "reject":
            return Reject()
        if family == "accept":
            return Accept()
        if family == "accept_show":
            return Accept(i)
        return Submit(state.submit_colour, i)

    def legal_action_mask(self, state: State) -> np.ndarray:
        """Return the int8 mask of legal actions (equal to ``rules.legal_moves`` exactly)."""
        stage = state.stage
        if stage == Stage.PROPOSE:
            return self._propose_mask.copy()
        if stage == Stage.GIVE:
            hand = state.hands[state.proposer]
            k = self.config.max_offer
            key = tuple(c if c < k else k for c in hand)
            mask = self._give_cache.get(key)
            if mask is None:
                mask = np.zeros(self.actions.size, dtype=np.int8)
                fits = np.all(self._offer_array <= np.array(key), axis=1)
                mask[self._give : self._give + len(fits)] = fits
                self._give_cache[key] = mask
            return mask.copy()
        if stage == Stage.ASK:
            return self._ask_mask.copy()
        if stage == Stage.TERMS:
            empty = rules.offer_is_empty(state)
            terms_key = (state.rules[state.proposer], empty)
            mask = self._terms_cache.get(terms_key)
            if mask is None:
                mask = np.zeros(self.actions.size, dtype=np.int8)
                for move in rules.legal_moves(state):
                    mask[self.encode(state, move)] = 1
                self._terms_cache[terms_key] = mask
            return mask.copy()
        mask = np.zeros(self.actions.size, dtype=np.int8)
        if stage == Stage.RESPOND:
            mask[self._reject] = 1
            hand, ask = state.hands[state.target], state.ask
            if all(a <= h for a, h in zip(ask, hand)):
                if state.request:
                    for r in state.rules[state.target]:
                        mask[self._accept_show + r] = 1
                else:
                    mask[self._accept] = 1
        elif stage == Stage.SUBMIT:
            held = state.hands[state.proposer][state.submit_colour]
            mask[self._submit : self._submit + held + 1] = 1
        return mask

    # -- observation ----------------------------------------------------------------------------
    def observe(self, state: State, player: int) -> np.ndarray:
        """Return ``player``'s observation vector (float32, :func:`build_layout`)."""
        n = self.num_players
        o = self._o
        obs = np.zeros(self.layout.size, dtype=np.float32)
        rot = self._rot[player]
        others = rot[1:]
        obs[o["hand"] : o["hand"] + NUM_COLOURS] = state.hands[player]
        r1, r2 = state.rules[player]
        obs[o["my_rules"] + r1] = 1.0
        obs[o["my_rules"] + r2] = 1.0
        shown = state.shown
        obs[self._s["shown_to_me"]] = _BITS12[[shown[player * n + s] for s in others]].ravel()
        obs[self._s["shown_by_me"]] = _BITS12[[shown[s * n + player] for s in others]].ravel()
        hands = state.hands
        obs[self._s["hand_sizes"]] = [sum(hands[s]) for s in rot]
        stage = state.stage
        if stage <= Stage.SUBMIT:
            obs[o["stage"] + stage] = 1.0
            obs[o["proposer"] + (state.proposer - player) % n] = 1.0
        if state.round < self.config.trading_rounds:
            obs[o["round"] + state.round] = 1.0
        obs[o["passes"]] = state.passes / n
        proposer, target = state.proposer, state.target
        if target >= 0 and (stage == Stage.RESPOND or player == proposer):
            obs[o["offer_target"] + (target - player) % n] = 1.0
            if player == proposer or player == target:
                obs[self._s["offer_give"]] = state.give
                obs[self._s["offer_ask"]] = state.ask
                if stage == Stage.RESPOND:
                    obs[o["offer_terms"]] = state.show >= 0
                    obs[o["offer_terms"] + 1] = state.request
        obs[self._s["trades"]] = np.take(state.trades, self._pair_rot[player])
        flows = state.flows
        obs[self._s["gave"]] = [c for s in others for c in flows[player * n + s]]
        obs[self._s["received"]] = [c for s in others for c in flows[s * n + player]]
        if self.config.submission_phase:
            obs[self._s["submitted"]] = state.submitted[player]
            if stage == Stage.SUBMIT:
                obs[o["submit_colour"] + state.submit_colour] = 1.0
        obs *= self._scale
        return obs

    # -- notation and pictures --------------------------------------------------------------
    def render(self, state: State, viewer: int | None) -> str:
        """Return a text picture: hands and rule cards (the viewer's only), the offer, scores."""
        return render_state(state, viewer)


def _can_see_offer(state: State, viewer: int | None) -> bool:
    return (
        viewer is None
        or viewer == state.proposer
        or (viewer == state.target and state.stage == Stage.RESPOND)
    )


def render_state(state: State, viewer: int | None) -> str:
    """Return a compact text picture of a Haggle state seen by ``viewer`` (``None``: all)."""
    n = state.num_players
    stage = Stage(state.stage)
    mover = rules.current_player(state)
    status = stage.name.lower() + (f", P{mover} to move" if mover >= 0 else "")
    lines = [
        f"Haggle — round {min(state.round + 1, state.config.trading_rounds)}/"
        f"{state.config.trading_rounds}, {status}"
    ]
    for seat in range(n):
        label = seat_label(seat, viewer).ljust(9)
        size = sum(state.hands[seat])
        if viewer is None or seat == viewer:
            rule_cards = " ".join(rule_str(r) for r in state.rules[seat])
            lines.append(f"  {label} {hand_str(state.hands[seat]) or '-'} ({size}) rules {rule_cards}")
        else:
            seen = state.shown[viewer * n + seat]
            known = " ".join(rule_str(r) for r in state.rules[seat] if seen >> r & 1) or "?"
            lines.append(f"  {label} {size} cards, rules seen: {known}")
    if state.target >= 0 and (_can_see_offer(state, viewer) or stage == Stage.RESPOND):
        text = f"  offer:    P{state.proposer} -> P{state.target}"
        if _can_see_offer(state, viewer):
            text += f" give {hand_str(state.give) or '-'} ask {hand_str(state.ask) or '-'}"
            if stage == Stage.RESPOND:
                text += (
                    f" show {'yes' if state.show >= 0 else 'no'} request {'yes' if state.request else 'no'}"
                )
        lines.append(text)
    made = sum(state.trades)
    lines.append(f"  trades:   {made} accepted")
    if state.scores is not None:
        lines.append(
            "  scores:   "
            + "  ".join(f"P{s} {'ELIMINATED' if v is None else v}" for s, v in enumerate(state.scores))
        )
    return "\n".join(lines)


__all__ = ["ACTIONS", "COLOURS", "LAYOUT", "HaggleEncoding", "build_actions", "build_layout"]
