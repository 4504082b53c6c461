"""What a seat may see, as JSON: the table of each game, the moves as card selections, the scores.

Every function here takes a rules ``State`` and a ``viewer`` (a seat, or ``None`` for the
spectator view that shows every card) and returns plain JSON data. A seat's view holds only
what the rules let that seat know: its own hand, the public piles, counts of the others'
hidden cards. The test suite checks this by re-dealing the viewer's unknown cards with the
rules' ``resample_hidden`` and asserting that the view does not change.

A *zone* is one row of the table: ``{"id", "label", "cards", "hidden", "note"}`` where
``cards`` are ``{"code", "label", "kind"}`` (``code`` is the card's name in the game's
notation, ``kind`` picks its colour) and ``hidden`` counts face-down cards. A move's
*selection* (``sel``) maps zone ids to the cards of those zones that the move uses (with
repeats for Jaipur's identical goods), so the page can build a move by clicking cards.

Some public facts are not in the rules state, and a game's *memory* (built move by move by
:func:`remember`) keeps them for the table: the Red7 canvas card that set the rule (the
canvas is a set of cards), the Gong Zhu trick just finished (shown until the next lead).
:func:`round_message` narrates the end of a round or hand, :func:`result` names the winners
and :func:`move_label` writes a move for reading (a Jaipur exchange as what is taken and
what is given); the notation itself is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cardgames_env.core.cards import cards_of, french_card_str
from cardgames_env.envs.gongzhu import cards as gz_cards
from cardgames_env.envs.gongzhu import rules as gz_rules
from cardgames_env.envs.gongzhu import scoring as gz_scoring
from cardgames_env.envs.haggis import cards as hs_cards
from cardgames_env.envs.haggis import combos as hs_combos
from cardgames_env.envs.haggis import rules as hs_rules
from cardgames_env.envs.haggle import cards as hg_cards
from cardgames_env.envs.haggle import rules as hg_rules
from cardgames_env.envs.jaipur import cards as jp_cards
from cardgames_env.envs.jaipur import rules as jp_rules
from cardgames_env.envs.red7 import cards as r7_cards
from cardgames_env.envs.red7 import rules as r7_rules

Json = dict[str, Any]


def card(code: str, label: str, kind: str) -> Json:
    """One card face: its notation ``code``, the ``label`` printed on it, its colour ``kind``."""
    return {"code": code, "label": label, "kind": kind}


def zone(
    zone_id: str, label: str, cards: Sequence[Json] = (), hidden: int = 0, note: str = "",
    owner: int | None = None,
) -> Json:
    """One row of the table (see the module docstring)."""
    return {"id": zone_id, "label": label, "cards": list(cards), "hidden": hidden, "note": note,
            "owner": owner}


def seat_name(seat: int, viewer: int | None) -> str:
    """``"P1"``, or ``"P1 (you)"`` for the viewer."""
    return f"P{seat} (you)" if seat == viewer else f"P{seat}"


def _sees(seat: int, viewer: int | None) -> bool:
    return viewer is None or viewer == seat


def _own_zone_id(base: str, seat: int, viewer: int | None, mover: int) -> str:
    """``base`` (e.g. ``"hand"``) for the viewer's own zone, or the mover's when everything is
    shown (``viewer`` None); ``base`` + the seat for every other seat's zone."""
    return base if seat == viewer or viewer is None and seat == mover else f"{base}{seat}"


# -- Jaipur ---------------------------------------------------------------------------------
def _jaipur_card(kind: int) -> Json:
    return card(jp_cards.NAMES[kind], jp_cards.NAMES[kind], jp_cards.NAMES[kind])


def _jaipur_cards(counts: Sequence[int]) -> list[Json]:
    return [_jaipur_card(k) for k, n in enumerate(counts) for _ in range(n)]


def jaipur_table(state: jp_rules.State, viewer: int | None) -> Json:
    """Market, each player's hand and herd, the token stacks, bonus piles, seals."""
    zones = [zone("market", "Market", _jaipur_cards(state.market),
                  note=f"deck {len(state.deck)} · discard {sum(state.discard)}")]
    for p in range(2):
        name = seat_name(p, viewer)
        shown = _sees(p, viewer)
        hand = state.hands[p]
        goods = sum(v for stack in state.goods_tokens[p] for v in stack)
        bonus = [v for pile in state.bonus_tokens[p] for v in pile]
        bonus_note = f"bonus {'+'.join(map(str, bonus))}" if shown and bonus else f"{len(bonus)} bonus tokens"
        note = f"goods tokens {goods} · {bonus_note} · seals {state.seals[p]}"
        zones.append(zone(_own_zone_id("hand", p, viewer, state.player),
                          f"{name} hand", _jaipur_cards(hand) if shown else [], 0 if shown else sum(hand),
                          note, owner=p))
        camels = state.herds[p][jp_cards.CAMEL]
        if shown or not state.config.hidden_herd:
            herd_id = _own_zone_id("herd", p, viewer, state.player)
            zones.append(zone(herd_id, f"{name} herd", [_jaipur_card(jp_cards.CAMEL)] * camels, owner=p))
        else:
            herd_note = "some camels" if camels else "no camels"
            zones.append(zone(f"herd{p}", f"{name} herd", note=herd_note, owner=p))
    info = [
        ["Goods tokens (top first)", "  ".join(
            f"{jp_cards.NAMES[g]} {' '.join(map(str, stack)) or '-'}"
            for g, stack in enumerate(state.goods_stacks)
        )],
        ["Bonus tokens left", "  ".join(
            f"{label} ×{len(pile)}" for label, pile in zip(jp_cards.BONUS_LABELS, state.bonus_piles)
        )],
        ["Round", f"{state.round} (seals P0 {state.seals[0]} · P1 {state.seals[1]})"],
    ]
    return {"zones": zones, "info": info}


def jaipur_selection(move: Any) -> Json:
    """Cards a Jaipur move uses: market goods taken (a market camel for taking the camels), hand
    goods sold or given, herd camels given."""
    if isinstance(move, jp_rules.TakeOne):
        return {"market": [jp_cards.NAMES[move.good]]}
    if isinstance(move, jp_rules.TakeCamels):  # all the camels go; clicking one of them says so
        return {"market": ["camel"]}
    if isinstance(move, jp_rules.Sell):
        return {"hand": [jp_cards.NAMES[move.good]] * move.count}
    if isinstance(move, jp_rules.Exchange):
        give = list(move.give)
        camels = give.pop()
        sel: Json = {"market": [jp_cards.NAMES[g] for g, n in enumerate(move.take) for _ in range(n)],
                     "hand": [jp_cards.NAMES[g] for g, n in enumerate(give) for _ in range(n)]}
        if camels:
            sel["herd"] = ["camel"] * camels
        return sel
    return {}


def jaipur_scores(state: jp_rules.State) -> Json:
    """Each round's rupees, camel token and seal, then the seals."""
    rows: list[list[Any]] = []
    for i, result in enumerate(state.history, start=1):
        rows.append([f"Round {i} rupees", *result.rupees])
        rows.append([f"Round {i} camel token (+5)",
                     *("yes" if result.camel_token == p else "" for p in range(2))])
        rows.append([f"Round {i} seal", *("seal" if result.seal == p else "" for p in range(2))])
    rows.append(["Seals of excellence", *state.seals])
    return {"rows": rows}


# -- Red7 -----------------------------------------------------------------------------------
def _red7_card(c: int) -> Json:
    text = r7_cards.card_str(c)
    return card(text, text, text[0])  # the colour letter on the face, not only its colour


def _red7_cards(mask: int) -> list[Json]:
    return [_red7_card(c) for c in sorted(cards_of(mask), reverse=True)]


def red7_canvas(state: r7_rules.State, top: int) -> tuple[list[Json], str]:
    """The canvas cards with ``top`` (the card that set the rule) first and marked, and the note."""
    rule = f"rule: {r7_rules.describe_rule(state.rule)}"
    if top < 0 or not state.canvas >> top & 1:
        setter = "the starting red card" if not state.canvas else "the top card"
        return _red7_cards(state.canvas), f"{rule}, set by {setter} · deck {len(state.deck)}"
    cards = [{**_red7_card(top), "top": True}] + _red7_cards(state.canvas & ~(1 << top))
    return cards, f"{rule}, set by {r7_cards.card_str(top)} · deck {len(state.deck)}"


def red7_table(state: r7_rules.State, viewer: int | None, top: int = -1) -> Json:
    """Canvas (its top card, which set the rule, first), each palette, the viewer's hand,
    counts of the other hands."""
    canvas, note = red7_canvas(state, top)
    zones = [zone("canvas", "Canvas", canvas, note=note)]
    mover = r7_rules.current_player(state)
    for p in range(state.num_players):
        name = seat_name(p, viewer)
        if not state.active >> p & 1:
            zones.append(zone(f"palette{p}", f"{name} palette", note="out of the round", owner=p))
            continue
        score = f"score {state.scores[p]}" if state.config.advanced else ""
        zones.append(zone(f"palette{p}", f"{name} palette", _red7_cards(state.palettes[p]),
                          note=score, owner=p))
        hand = state.hands[p]
        shown = _sees(p, viewer)
        hand_id = _own_zone_id("hand", p, viewer, mover)
        zones.append(zone(hand_id, f"{name} hand", _red7_cards(hand) if shown else [],
                          0 if shown else hand.bit_count(), owner=p))
    winner = r7_rules.winning_seat(state)
    info = [["Winning now", "-" if winner is None else f"P{winner}"], ["Round", str(state.round_number)]]
    return {"zones": zones, "info": info}


def red7_selection(move: Any, state: r7_rules.State) -> Json:
    """Hand cards a Red7 move plays or discards; palette cards taken or moved by an effect."""
    text = r7_cards.card_str
    if isinstance(move, (r7_rules.Play, r7_rules.Discard)):
        return {"hand": [text(move.card)]}
    if isinstance(move, r7_rules.PlayDiscard):
        return {"hand": [text(move.play), text(move.discard)]}
    if isinstance(move, (r7_rules.Take, r7_rules.SevenCanvas, r7_rules.SevenDeck)):
        owner = next(p for p in range(state.num_players) if state.palettes[p] >> move.card & 1)
        return {f"palette{owner}": [text(move.card)]}
    return {}


def red7_scores(state: r7_rules.State) -> Json:
    """Who won; the advanced game's scores."""
    winner = ["winner" if state.winner == p else "" for p in range(state.num_players)]
    rows: list[list[Any]] = [["Round winner", *winner]]
    if state.config.advanced:
        rows.append(["Score", *state.scores])
    return {"rows": rows}


# -- Haggis ---------------------------------------------------------------------------------
_SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def _haggis_card(c: int) -> Json:
    text = hs_cards.card_str(c)
    if c in hs_cards.FACE_NAMES:
        return card(text, text, "face")
    return card(text, text[:-1] + _SUIT_SYMBOL[text[-1]], text[-1])


def _haggis_cards(mask: int) -> list[Json]:
    return [_haggis_card(c) for c in hs_cards.ids_of(mask)]


def haggis_table(state: hs_rules.State, viewer: int | None) -> Json:
    """The trick (every play in it), the viewer's hand, the opponent's count and unplayed faces."""
    plays = "  ".join(
        f"P{seat}: {hs_combos.reading_str(reading)}" for seat, _, reading in state.trick
    )
    trick_cards = [  # "group": which play of the trick a card belongs to
        {**c, "group": i} for i, (_, cards, _) in enumerate(state.trick) for c in _haggis_cards(cards)
    ]
    zones = [zone("trick", "Trick", trick_cards, note=plays or "empty: the player to move leads")]
    mover = hs_rules.current_player(state)
    for p in range(2):
        name = seat_name(p, viewer)
        hand = state.hands[p]
        if _sees(p, viewer):
            hand_id = _own_zone_id("hand", p, viewer, mover)
            zones.append(zone(hand_id, f"{name} hand", _haggis_cards(hand), owner=p))
        else:
            faces = hand & hs_cards.FACE_MASK  # each player's J, Q, K are public until played
            zones.append(zone(f"hand{p}", f"{name} hand", _haggis_cards(faces),
                              hand.bit_count() - faces.bit_count(), note="faces shown, number cards hidden",
                              owner=p))
    info = [
        ["Hand", f"{state.hand_number} (target {state.config.target_score})"],
        ["Points this hand", "  ".join(f"P{s} {v:+d}" for s, v in enumerate(state.hand_points))],
        ["Totals", "  ".join(f"P{s} {v}" for s, v in enumerate(state.totals))],
        ["Points in this trick", str(state.trick_points)],
    ]
    return {"zones": zones, "info": info}


def haggis_selection(move: Any) -> Json:
    """Hand cards of a Haggis play (nothing for a pass)."""
    if isinstance(move, hs_rules.Play):
        return {"hand": [hs_cards.card_str(c) for c in hs_cards.ids_of(move.cards)]}
    return {}


def haggis_scores(state: hs_rules.State) -> Json:
    """The last hand's points and the totals."""
    rows = []
    if state.last_hand_points is not None:
        rows.append(["Last hand", *state.last_hand_points])
    rows.append(["This hand", *state.hand_points])
    rows.append(["Totals", *state.totals])
    return {"rows": rows}


# -- Gong Zhu -------------------------------------------------------------------------------
def _gongzhu_card(c: int) -> Json:
    code = french_card_str(c)
    return card(code, gz_cards.pretty(c), code[-1])


def _gongzhu_cards(mask: int) -> list[Json]:
    ordered = sorted(range(52), key=lambda c: (-(c // 13), -(c % 13)))
    return [_gongzhu_card(c) for c in ordered if mask >> c & 1]


def gongzhu_table(
    state: gz_rules.State, viewer: int | None, last_trick: tuple[int, tuple[int, ...], int] | None = None
) -> Json:
    """The trick in play order (the one just finished until the next lead), the viewer's hand,
    the captured point cards of every seat.

    ``last_trick`` is ``(leader, cards in play order, winner)`` of the latest finished trick.
    """
    n = gz_cards.NUM_PLAYERS
    trick = [_gongzhu_card(c) for c in state.trick]
    order = " ".join(f"P{(state.leader + i) % n}" for i in range(len(state.trick)))
    if state.trick or last_trick is None:
        note = f"played by {order}" if order else f"P{state.leader} leads"
        trick_zone = zone("trick", "Trick", trick, note=note)
    else:
        leader, cards, winner = last_trick
        order = " ".join(f"P{(leader + i) % n}" for i in range(len(cards)))
        trick_zone = zone("trick", "Last trick", [_gongzhu_card(c) for c in cards],
                          note=f"played by {order}; P{winner} took it · P{state.leader} leads next")
        trick_zone["done"] = True
    zones = [trick_zone]
    mover = gz_rules.current_player(state)
    for p in range(n):
        name = seat_name(p, viewer)
        hand = state.hands[p]
        if _sees(p, viewer):
            hand_id = _own_zone_id("hand", p, viewer, mover)
            zones.append(zone(hand_id, f"{name} hand", _gongzhu_cards(hand), owner=p))
        else:
            zones.append(zone(f"hand{p}", f"{name} hand", hidden=hand.bit_count(), owner=p))
        captured = state.captured[p] & gz_cards.POINT_CARDS_MASK
        zones.append(zone(f"captured{p}", f"{name} captured", _gongzhu_cards(captured),
                          note=f"{state.hand_points[p]:+d} this hand", owner=p))
    info = [
        ["Hand", f"{state.hand_number}, trick {min(state.tricks_played + 1, 13)}/13"],
        ["Totals", "  ".join(f"P{s} {t:+d}" for s, t in enumerate(state.totals))],
    ]
    return {"zones": zones, "info": info}


def gongzhu_selection(move: Any) -> Json:
    """The hand card a Gong Zhu move plays."""
    return {"hand": [french_card_str(move.card)]}


def gongzhu_scores(state: gz_rules.State) -> Json:
    """Captured point cards (scorer notation) and their score, last hand, totals."""
    rows = [
        ["Point cards captured", *(gz_cards.notation_of(c) or "-" for c in state.captured)],
        ["Their score", *(gz_scoring.score(gz_cards.notation_of(c)) for c in state.captured)],
    ]
    if state.last_hand_points is not None:
        rows.append(["Last hand", *state.last_hand_points])
    rows.append(["Totals", *state.totals])
    return {"rows": rows}


# -- Haggle ---------------------------------------------------------------------------------
def _haggle_cards(counts: Sequence[int]) -> list[Json]:
    return [card(letter, letter, letter) for letter, n in zip(hg_cards.COLOURS, counts) for _ in range(n)]


def haggle_table(state: hg_rules.State, viewer: int | None) -> Json:
    """Each hand (the viewer's only), the rule cards known, the offer when the viewer may see it."""
    n = state.num_players
    zones = []
    for p in range(n):
        name = seat_name(p, viewer)
        if _sees(p, viewer):
            rules_text = " ".join(hg_cards.rule_str(r) for r in state.rules[p])
            zones.append(zone("hand" if p == viewer else f"hand{p}", f"{name} hand",
                              _haggle_cards(state.hands[p]), note=f"rule cards {rules_text}", owner=p))
        else:
            assert viewer is not None
            seen = state.shown[viewer * n + p]
            known = " ".join(hg_cards.rule_str(r) for r in state.rules[p] if seen >> r & 1) or "?"
            zones.append(zone(f"hand{p}", f"{name} hand", hidden=sum(state.hands[p]),
                              note=f"rule cards seen: {known}", owner=p))
    stage = hg_rules.Stage(state.stage)
    rounds = state.config.trading_rounds
    info = [["Trading round", f"{min(state.round + 1, rounds)}/{rounds}"],
            ["Stage", stage.name.lower()], ["Trades accepted", str(sum(state.trades))]]
    if state.target >= 0:
        sees_offer = viewer is None or viewer == state.proposer or (
            viewer == state.target and stage == hg_rules.Stage.RESPOND
        )
        offer = f"P{state.proposer} → P{state.target}"
        if sees_offer:
            gives, asks = hg_cards.hand_str(state.give) or "-", hg_cards.hand_str(state.ask) or "-"
            offer += f": gives {gives}, asks {asks}"
            if stage == hg_rules.Stage.RESPOND:
                shown = "a rule card" if state.show >= 0 else "no rule card"
                if state.show >= 0 and (viewer is None or viewer == state.proposer):
                    shown = hg_cards.rule_str(state.show)
                offer += f"; shows {shown}; asks to see one: {'yes' if state.request else 'no'}"
        info.append(["Offer", offer])
    return {"zones": zones, "info": info}


def haggle_scores(state: hg_rules.State) -> Json:
    """Hands handed in, what was scored after the 13-card cap, each rule pair, the scores."""
    n = state.num_players
    rows: list[list[Any]] = [["Handed in", *(hg_cards.hand_str(h) or "-" for h in state.handed_in())]]
    if state.kept is not None:
        rows.append(["Scored (13-card cap)", *(hg_cards.hand_str(h) or "-" for h in state.kept)])
    rows.append(["Rule cards", *(" ".join(hg_cards.rule_str(r) for r in state.rules[p]) for p in range(n))])
    if state.scores is not None:
        rows.append(["Score", *("ELIMINATED" if s is None else s for s in state.scores)])
    return {"rows": rows}


def haggle_public_move(before: hg_rules.State, seat: int, text: str, viewer: int | None) -> str:
    """The part of a Haggle move ``viewer`` may see: offer contents only between the two parties."""
    if viewer is None or seat == viewer:
        return text
    word = text.split()[0]
    if word in ("pass", "offer", "reject", "submit"):
        return text  # who offers to whom, refusals and hand-ins are public
    if word == "accept":
        return text if viewer == before.proposer else "accept"
    return f"{word} …"  # give / ask / terms: seen by the target only once the offer is complete


# -- what the state forgets, round ends, results, readable moves -----------------------------
def remember(game: str, memory: Json, before: Any, after: Any, move: str) -> Json:
    """Return the game's memory after the move written ``move`` took ``before`` to ``after``.

    Red7: ``canvas_top``, the canvas card that set the rule (``-1``: none this round).
    Gong Zhu: ``last_trick``, ``(leader, cards, winner)`` of the latest finished trick.
    Only public facts are kept (cards played face up).
    """
    if game == "red7":
        if after.round_number != before.round_number:
            return {**memory, "canvas_top": -1}
        added = list(cards_of(after.canvas & ~before.canvas))
        if added:
            ruling = [c for c in added if r7_cards.CARD_COLOUR[c] == after.rule]
            return {**memory, "canvas_top": (ruling or added)[-1]}
        return memory
    if game == "gongzhu" and len(before.trick) == gz_cards.NUM_PLAYERS - 1:
        played = gz_rules.parse_move(move)
        winner = gz_rules.apply_move(before, played).leader  # ``after`` may be the next hand's deal
        return {**memory, "last_trick": (before.leader, (*before.trick, played.card), winner)}
    return memory


def round_message(game: str, before: Any, after: Any) -> str | None:
    """A line announcing the end of a round (Jaipur, Red7) or hand (Haggis, Gong Zhu) that
    the move from ``before`` to ``after`` brought, or ``None``."""
    if game == "jaipur" and len(after.history) > len(before.history):
        result = after.history[-1]
        line = (f"Round {len(after.history)} over: rupees P0 {result.rupees[0]} · P1 {result.rupees[1]}"
                + (f" (camel token: P{result.camel_token})" if result.camel_token >= 0 else ""))
        if result.seal >= 0:
            return line + f"; P{result.seal} wins the round and a Seal of Excellence"
        return line + "; a full tie: no seal"
    if game == "red7" and (after.round_number != before.round_number
                           or after.status != before.status and after.status != r7_rules.PLAYING):
        line = f"Round {before.round_number} over: " + (
            f"P{after.winner} wins the round" if after.winner >= 0 else "no winner")
        if after.config.advanced:
            line += "; scores " + " · ".join(f"P{s} {v}" for s, v in enumerate(after.scores))
        return line
    if game in ("haggis", "gongzhu"):
        if after.hand_number != before.hand_number:
            points = after.last_hand_points
        elif after.hand_over and not before.hand_over:
            points = after.hand_points
        else:
            return None
        hand = " · ".join(f"P{s} {v:+d}" for s, v in enumerate(points))
        totals = " · ".join(f"P{s} {v}" for s, v in enumerate(after.totals))
        return f"Hand {before.hand_number} over: this hand {hand}; totals {totals}"
    return None


def winners(game: str, state: Any) -> list[int]:
    """The seats that won a finished game (several for a shared first place; none for a draw)."""
    if game == "jaipur":
        seat = jp_rules.winner(state)
        return [] if seat is None else [seat]
    if game == "red7":
        if state.game_winner >= 0:
            return [state.game_winner]
        if not state.config.advanced:
            return []
        best = max(state.scores)
        return [s for s in range(state.num_players) if state.scores[s] == best]
    if game == "haggis":
        return [hs_rules.winner(state)]
    if game == "gongzhu":
        return list(gz_rules.winners(state))
    return list(hg_rules.winners(state))


def result(game: str, state: Any, truncated: bool) -> str:
    """One line naming the winner(s) of a finished game."""
    if truncated:
        return "Cut off by the turn limit: no winner"
    seats = winners(game, state)
    if not seats:
        return "A draw: nobody wins"
    if len(seats) == 1:
        return f"P{seats[0]} wins"
    return " and ".join(f"P{s}" for s in seats) + " share the win"


def _goods_list(counts: Sequence[int]) -> str:
    return " + ".join(jp_cards.NAMES[k] + (f" ×{n}" if n > 1 else "") for k, n in enumerate(counts) if n)


def move_label(game: str, text: str) -> str:
    """The move written for reading: a Jaipur exchange as ``take X, give Y``; others unchanged."""
    if game == "jaipur" and text.startswith("exchange ") and " for " in text:
        try:
            move = jp_rules.parse_move(text)
        except ValueError:
            return text
        if isinstance(move, jp_rules.Exchange):
            return f"take {_goods_list(move.take)}, give {_goods_list(move.give)}"
    return text


# -- dispatch -------------------------------------------------------------------------------
TABLES: dict[str, Callable[[Any, int | None], Json]] = {
    "jaipur": jaipur_table, "red7": red7_table, "haggis": haggis_table,
    "gongzhu": gongzhu_table, "haggle": haggle_table,
}
SCORES: dict[str, Callable[[Any], Json]] = {
    "jaipur": jaipur_scores, "red7": red7_scores, "haggis": haggis_scores,
    "gongzhu": gongzhu_scores, "haggle": haggle_scores,
}


def table(game: str, state: Any, viewer: int | None, memory: Json | None = None) -> Json:
    """The zones and info lines of ``state`` as ``viewer`` sees it (``memory``: see :func:`remember`)."""
    memory = memory or {}
    if game == "red7":
        return red7_table(state, viewer, memory.get("canvas_top", -1))
    if game == "gongzhu":
        return gongzhu_table(state, viewer, memory.get("last_trick"))
    return TABLES[game](state, viewer)


def selection(game: str, move: Any, state: Any) -> Json:
    """Cards (by zone) that ``move`` uses, for building it by clicking (empty: a button only)."""
    if game == "jaipur":
        return jaipur_selection(move)
    if game == "red7":
        return red7_selection(move, state)
    if game == "haggis":
        return haggis_selection(move)
    if game == "gongzhu":
        return gongzhu_selection(move)
    return {}


def scores(game: str, state: Any) -> Json:
    """The score breakdown of a finished game (rows of ``[label, value per seat...]``)."""
    return SCORES[game](state)


def public_move(game: str, before: Any, seat: int, text: str, viewer: int | None) -> str:
    """The notation of a move as ``viewer`` may read it (only Haggle offers are private)."""
    if game == "haggle":
        return haggle_public_move(before, seat, text, viewer)
    return text


__all__ = [
    "Json", "card", "move_label", "public_move", "remember", "result", "round_message", "scores", "seat_name",
    "selection", "table", "winners", "zone",
]
