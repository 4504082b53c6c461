"""Jaipur as a seat sees it, as JSON for the browser (see :mod:`cardgames_env.core.view`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardgames_env.core.view import Json, card, own_zone_id, seat_name, sees, zone

from . import cards, rules

TITLE = "Jaipur"
CARD_COLOURS: dict[str, dict[str, str]] = {
    "diamond": {"background": "#d9443a", "color": "#fff"},
    "gold": {"background": "#e5b823", "color": "#3a2a00"},
    "silver": {"background": "#aab4be", "color": "#1d1d1f"},
    "cloth": {"background": "#8e44ad", "color": "#fff"},
    "spice": {"background": "#3f9e4a", "color": "#fff"},
    "leather": {"background": "#7a4a24", "color": "#fff"},
    "camel": {"background": "#f2e3c0", "color": "#7a5a2a"},
}
"""The face of each good (a card's kind is its good's name)."""


def _card(kind: int) -> Json:
    return card(cards.NAMES[kind], cards.NAMES[kind], cards.NAMES[kind])


def _cards(counts: Sequence[int]) -> list[Json]:
    return [_card(k) for k, n in enumerate(counts) for _ in range(n)]


def table(state: rules.State, viewer: int | None, memory: Json) -> Json:
    """Market, each player's hand and herd, the token stacks, bonus piles, seals."""
    zones = [zone("market", "Market", _cards(state.market),
                  note=f"deck {len(state.deck)} · discard {sum(state.discard)}")]
    for p in range(2):
        name = seat_name(p, viewer)
        shown = sees(p, viewer)
        hand = state.hands[p]
        goods = sum(v for stack in state.goods_tokens[p] for v in stack)
        bonus = [v for pile in state.bonus_tokens[p] for v in pile]
        bonus_note = f"bonus {'+'.join(map(str, bonus))}" if shown and bonus else f"{len(bonus)} bonus tokens"
        note = f"goods tokens {goods} · {bonus_note} · seals {state.seals[p]}"
        zones.append(zone(own_zone_id("hand", p, viewer, state.player),
                          f"{name} hand", _cards(hand) if shown else [], 0 if shown else sum(hand),
                          note, owner=p))
        camels = state.herds[p][cards.CAMEL]
        if shown or not state.config.hidden_herd:
            herd_id = own_zone_id("herd", p, viewer, state.player)
            zones.append(zone(herd_id, f"{name} herd", [_card(cards.CAMEL)] * camels, owner=p))
        else:
            herd_note = "some camels" if camels else "no camels"
            zones.append(zone(f"herd{p}", f"{name} herd", note=herd_note, owner=p))
    info = [
        ["Goods tokens (top first)", "  ".join(
            f"{cards.NAMES[g]} {' '.join(map(str, stack)) or '-'}"
            for g, stack in enumerate(state.goods_stacks)
        )],
        ["Bonus tokens left", "  ".join(
            f"{label} ×{len(pile)}" for label, pile in zip(cards.BONUS_LABELS, state.bonus_piles)
        )],
        ["Round", f"{state.round} (seals P0 {state.seals[0]} · P1 {state.seals[1]})"],
    ]
    return {"zones": zones, "info": info}


def selection(move: Any, state: rules.State) -> Json:
    """Cards a move uses: market goods taken (a market camel for taking the camels), hand
    goods sold or given, herd camels given."""
    if isinstance(move, rules.TakeOne):
        return {"market": [cards.NAMES[move.good]]}
    if isinstance(move, rules.TakeCamels):  # all the camels go; clicking one of them says so
        return {"market": ["camel"]}
    if isinstance(move, rules.Sell):
        return {"hand": [cards.NAMES[move.good]] * move.count}
    if isinstance(move, rules.Exchange):
        give = list(move.give)
        camels = give.pop()
        sel: Json = {"market": [cards.NAMES[g] for g, n in enumerate(move.take) for _ in range(n)],
                     "hand": [cards.NAMES[g] for g, n in enumerate(give) for _ in range(n)]}
        if camels:
            sel["herd"] = ["camel"] * camels
        return sel
    return {}


def scores(state: rules.State) -> Json:
    """Each round's rupees, camel token and seal, then the seals."""
    rows: list[list[Any]] = []
    for i, result in enumerate(state.history, start=1):
        rows.append([f"Round {i} rupees", *result.rupees])
        rows.append([f"Round {i} camel token (+5)",
                     *("yes" if result.camel_token == p else "" for p in range(2))])
        rows.append([f"Round {i} seal", *("seal" if result.seal == p else "" for p in range(2))])
    rows.append(["Seals of excellence", *state.seals])
    return {"rows": rows}


def round_message(before: rules.State, after: rules.State) -> str | None:
    """A line announcing the end of a round that the move from ``before`` to ``after`` brought."""
    if len(after.history) <= len(before.history):
        return None
    result = after.history[-1]
    line = (f"Round {len(after.history)} over: rupees P0 {result.rupees[0]} · P1 {result.rupees[1]}"
            + (f" (camel token: P{result.camel_token})" if result.camel_token >= 0 else ""))
    if result.seal >= 0:
        return line + f"; P{result.seal} wins the round and a Seal of Excellence"
    return line + "; a full tie: no seal"


def winners(state: rules.State) -> list[int]:
    """The winner of a finished game (none for a draw)."""
    seat = rules.winner(state)
    return [] if seat is None else [seat]


def _goods_list(counts: Sequence[int]) -> str:
    return " + ".join(cards.NAMES[k] + (f" ×{n}" if n > 1 else "") for k, n in enumerate(counts) if n)


def move_label(text: str) -> str:
    """The move written for reading: an exchange as ``take X, give Y``; others unchanged."""
    if text.startswith("exchange ") and " for " in text:
        try:
            move = rules.parse_move(text)
        except ValueError:
            return text
        if isinstance(move, rules.Exchange):
            return f"take {_goods_list(move.take)}, give {_goods_list(move.give)}"
    return text
