"""Per-game pieces of the IS-MCTS agent (:mod:`.search`): information sets, moves, policies, values.

Each game has a :class:`GameAdapter` with

* ``canonical(state, player)``: the state with everything hidden from ``player`` re-dealt in
  a fixed order that depends only on what ``player`` knows (two states of one information
  set give the same result), so the search cannot use the real hidden cards and a seeded
  search gives the same move in every state of an information set;
* ``moves(state, limit)``: the rules moves the env's encoding can play, in the game's order
  of preference, at most ``limit`` of them (the searched moves of the searching seat);
* ``policy(state, rng)``: the light policy of rollouts and of the other seats (a fast model
  of the game's heuristic agent on the rules state, with a little randomness);
* ``value(root, state, player, rng)``: the searching seat's result at the end of the searched
  horizon (the round, hand or game), in about ``[-1, 1]``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, ClassVar

import numpy as np

from cardgames_env.core.cards import cards_of
from cardgames_env.core.game import CHANCE, TERMINAL
from cardgames_env.core.rng import make_rng
from cardgames_env.envs.gongzhu import rules as gz
from cardgames_env.envs.gongzhu.cards import HEARTS, PIG, SPADES
from cardgames_env.envs.gongzhu.heuristic import follow_card
from cardgames_env.envs.haggis import rules as hg
from cardgames_env.envs.haggis.cards import FACE_MASK
from cardgames_env.envs.haggis.combos import BOMB_KIND, legal_plays
from cardgames_env.envs.haggis.heuristic import choose_play as choose_haggis_play
from cardgames_env.envs.haggle import rules as hl
from cardgames_env.envs.haggle.cards import BASE_VALUES, EMPTY, NUM_COLOURS, NUM_MODIFIERS
from cardgames_env.envs.jaipur import rules as jp
from cardgames_env.envs.jaipur.cards import CAMEL, HAND_LIMIT, NUM_GOODS, PRECIOUS
from cardgames_env.envs.red7 import rules as r7
from cardgames_env.envs.red7.cards import CARD_COLOUR
from cardgames_env.envs.red7.scoring import strengths


class GameAdapter:
    """What the search needs to know about one game (defaults: generic rules-module calls)."""

    rules: ClassVar[Any]
    max_rollout: ClassVar[int] = 2000
    """Most moves one simulation plays before it is scored as it stands."""
    default_children: ClassVar[int] = 0
    """Most moves searched at a decision of the searching seat (0 = all)."""
    default_epsilon: ClassVar[float] = 0.1
    """Chance that the light policy plays a uniformly random legal move instead of its choice."""

    def __init__(self, encoding: Any, epsilon: float | None = None):
        self.encoding = encoding
        self.config = encoding.config
        self.epsilon = self.default_epsilon if epsilon is None else epsilon

    def canonical(self, state: Any, player: int) -> Any:
        """Return the state with ``player``'s hidden information re-dealt in a fixed order."""
        raise NotImplementedError

    def legal(self, state: Any) -> list[Any]:
        """Legal moves the encoding can play, in order of preference."""
        return list(self.rules.legal_moves(state))

    def moves(self, state: Any, limit: int = 0) -> list[Any]:
        """The searched moves: the first ``limit`` of :meth:`legal` (0: the game's default)."""
        moves = self.legal(state)
        limit = limit or self.default_children
        return moves[:limit] if limit and len(moves) > limit else moves

    def apply(self, state: Any, move: Any) -> Any:
        """Apply a legal move."""
        return self.rules.apply_move(state, move)

    def random_move(self, state: Any, rng: np.random.Generator) -> Any:
        """A uniformly random legal move."""
        moves = self.rules.legal_moves(state)
        return moves[int(rng.integers(len(moves)))]

    def policy(self, state: Any, rng: np.random.Generator) -> Any:
        """The light policy's move (default: random)."""
        return self.random_move(state, rng)

    def stop(self, state: Any, player: int) -> bool:
        """True when the searched horizon ends early for ``player`` (e.g. it is out)."""
        return False

    def value(self, root: Any, state: Any, player: int, rng: np.random.Generator) -> float:
        """``player``'s result at the end of a simulation."""
        raise NotImplementedError


def _cards(mask: int) -> list[int]:
    """The card ids of a bitmask, lowest first."""
    return list(cards_of(mask))


def _bits(cards: list[int]) -> int:
    return sum(1 << c for c in cards)


# -- Red7 ----------------------------------------------------------------------------------------


def _red7_spent(move: Any) -> tuple[int, ...]:
    """Hand cards a Red7 move gives away, highest first (the heuristic's cost)."""
    if isinstance(move, (r7.Play, r7.Discard)):
        return (move.card,)
    if isinstance(move, r7.PlayDiscard):
        return tuple(sorted((move.play, move.discard), reverse=True))
    return ()


def _red7_cheapest(state: Any) -> Any:
    """The heuristic's move at a strict turn start without the action rule, found directly:
    the lowest card that can be played or discarded alone (playing first), else the pair
    whose higher then lower card is lowest, else giving up."""
    p = state.player
    hand = _cards(state.hands[p])
    palette = state.palettes[p]
    thresholds = r7.opponent_thresholds(state, p)
    rule = state.rule
    base = strengths(palette)
    after = {c: strengths(palette | 1 << c) for c in hand}
    for c in hand:
        if after[c][rule] > thresholds[rule]:
            return r7.Play(c)
        colour = CARD_COLOUR[c]
        if base[colour] > thresholds[colour]:
            return r7.Discard(c)
    best, best_key = None, None
    for c in hand:
        for d in hand:
            if d != c and after[c][CARD_COLOUR[d]] > thresholds[CARD_COLOUR[d]]:
                key = (max(c, d), min(c, d), c)
                if best_key is None or key < best_key:
                    best, best_key = r7.PlayDiscard(c, d), key
    return best if best is not None else r7.GiveUp()


class Red7Adapter(GameAdapter):
    """Red7: searched to the end of the round; the policy keeps winning as cheaply as it can."""

    rules: ClassVar[Any] = r7
    default_epsilon = 0.0

    def canonical(self, state: Any, player: int) -> Any:
        n = state.num_players
        pool: list[int] = []
        for s in range(n):
            if s != player:
                pool += _cards(state.hands[s] & ~state.known_hands[s])
                pool += _cards(state.out_hidden[s])
        pool += state.deck[state.known_top :]
        pool.sort()
        pos = 0
        hands = list(state.hands)
        out_hidden = list(state.out_hidden)
        for s in range(n):
            if s != player:
                k = (state.hands[s] & ~state.known_hands[s]).bit_count()
                hands[s] = state.known_hands[s] | _bits(pool[pos : pos + k])
                pos += k
                k = state.out_hidden[s].bit_count()
                out_hidden[s] = _bits(pool[pos : pos + k])
                pos += k
        deck = state.deck[: state.known_top] + tuple(pool[pos:])
        return state._replace(hands=tuple(hands), out_hidden=tuple(out_hidden), deck=deck)

    def __init__(self, encoding: Any, epsilon: float | None = None):
        super().__init__(encoding, epsilon)
        self._keys: dict[Any, tuple] = {}

    def _key(self, move: Any) -> tuple:
        """The heuristic's preference: fewest cards spent, then the lowest, then the action id
        (its encoding does not depend on the state); giving up last."""
        key = self._keys.get(move)
        if key is None:
            spent = _red7_spent(move)
            key = (isinstance(move, r7.GiveUp), len(spent), spent, self.encoding.encode(None, move))
            self._keys[move] = key
        return key

    def legal(self, state: Any) -> list[Any]:
        return sorted(r7.legal_moves(state), key=self._key)

    def apply(self, state: Any, move: Any) -> Any:
        return r7.apply_legal_move(state, move)

    def policy(self, state: Any, rng: np.random.Generator) -> Any:
        if self.epsilon and rng.random() < self.epsilon:
            return self.random_move(state, rng)
        config = self.config
        if config.strict and not config.action_rule and state.phase == r7.MAIN and state.hands[state.player]:
            return _red7_cheapest(state)
        moves = r7.legal_moves(state)
        if config.strict:
            return min(moves, key=self._key)
        seat = state.player
        for move in sorted(moves, key=self._key):  # off strict: the cheapest move keeping the seat in
            if isinstance(move, r7.GiveUp):
                return move
            if r7.apply_legal_move(state, move).active >> seat & 1:
                return move
        return r7.GiveUp()

    def stop(self, state: Any, player: int) -> bool:
        return not state.active >> player & 1

    def value(self, root: Any, state: Any, player: int, rng: np.random.Generator) -> float:
        if not self.config.advanced:
            if not state.active >> player & 1:
                return -1.0
            return r7.returns(state)[player] if state.status == r7.GAME_OVER else 0.0
        if state.status == r7.GAME_OVER:
            return r7.returns(state)[player]
        if state.status != r7.ROUND_OVER:
            return 0.0
        gains = [a - b for a, b in zip(state.scores, root.scores)]
        best_other = max(g for s, g in enumerate(gains) if s != player)
        won = 1.0 if state.winner == player else -1.0
        return 0.5 * won + 0.5 * math.tanh((gains[player] - best_other) / 10)


# -- Gong Zhu ------------------------------------------------------------------------------------

ACE_OF_SPADES = SPADES * 13 + 12
KING_OF_SPADES = SPADES * 13 + 11


def _gz_lead(legal: list[int], pig_out: bool) -> int:
    def danger(card: int) -> tuple[int, int, int]:
        risky = card == PIG or (pig_out and card in (ACE_OF_SPADES, KING_OF_SPADES))
        return (int(risky), int(card // 13 == HEARTS and card % 13 >= 3), card % 13)

    return min(legal, key=danger)


def _gz_choice(state: Any) -> int:
    """The Gong Zhu heuristic's card in ``state`` (it reads only public facts and its hand)."""
    seat = (state.leader + len(state.trick)) % 4
    legal = _cards(gz.legal_mask(state))
    pig_out = not (state.hands[seat] >> PIG & 1) and not any(p >> PIG & 1 for p in state.played)
    if not state.trick:
        return _gz_lead(legal, pig_out)
    return follow_card(legal, state.trick, state.trick[0] // 13, pig_out)


class GongZhuAdapter(GameAdapter):
    """Gong Zhu: searched to the end of the hand; the policy is the heuristic's card play."""

    rules: ClassVar[Any] = gz

    def canonical(self, state: Any, player: int) -> Any:
        others = [s for s in range(4) if s != player]
        hidden = 0
        for s in others:
            hidden |= state.hands[s]
        # Public fact (section 2): in hand 1 the unplayed ♠2 is with the first leader.
        holder = gz.spade_two_holder(state)
        fixed = 1 << gz.SPADE_TWO if holder in others else 0
        hidden &= ~fixed
        by_suit = [_cards(hidden & gz.SUIT_MASKS[suit]) for suit in range(4)]
        room = [state.hands[s].bit_count() - (s == holder and fixed != 0) for s in others]
        counts = _split_suits(
            [len(cards) for cards in by_suit],
            room,
            [[not state.voids[s] >> suit & 1 for s in others] for suit in range(4)],
        )
        if counts is None:  # pragma: no cover - the real deal is always a solution
            raise RuntimeError("no deal of the hidden cards fits the shown voids")
        hands = list(state.hands)
        for s in others:
            hands[s] = fixed if s == holder else 0
        for suit, cards in enumerate(by_suit):
            pos = 0
            for i, s in enumerate(others):
                k = counts[suit][i]
                hands[s] |= _bits(cards[pos : pos + k])
                pos += k
        return state._replace(hands=tuple(hands))

    def legal(self, state: Any) -> list[Any]:
        cards = _cards(gz.legal_mask(state))
        if len(cards) > 1:
            first = _gz_choice(state)
            cards.remove(first)
            cards.insert(0, first)
        return [gz.Play(c) for c in cards]

    def apply(self, state: Any, move: Any) -> Any:
        return gz.play_checked_card(state, move.card)

    def random_move(self, state: Any, rng: np.random.Generator) -> Any:
        cards = _cards(gz.legal_mask(state))
        return gz.Play(cards[int(rng.integers(len(cards)))])

    def policy(self, state: Any, rng: np.random.Generator) -> Any:
        if rng.random() < self.epsilon:
            return self.random_move(state, rng)
        return gz.Play(_gz_choice(state))

    def value(self, root: Any, state: Any, player: int, rng: np.random.Generator) -> float:
        points = state.hand_points
        others = (sum(points) - points[player]) / 3
        return (points[player] - others) / 200


def _split_suits(sizes: list[int], room: list[int], allowed: list[list[bool]]) -> list[list[int]] | None:
    """First (in a fixed order) split of each suit's hidden cards among seats with ``room``
    places each, giving suit ``i`` only to seats ``allowed[i]``; ``None`` if none exists."""
    if not sizes:
        return [] if not any(room) else None
    size, rest = sizes[0], sizes[1:]
    seats = len(room)

    def splits(seat: int, left: int) -> Any:
        if seat == seats - 1:
            if left <= room[seat] and (left == 0 or allowed[0][seat]):
                yield [left]
            return
        top = min(left, room[seat]) if allowed[0][seat] else 0
        for k in range(top, -1, -1):
            for tail in splits(seat + 1, left - k):
                yield [k, *tail]

    for split in splits(0, size):
        remaining = [r - k for r, k in zip(room, split)]
        tail = _split_suits(rest, remaining, allowed[1:])
        if tail is not None:
            return [split, *tail]
    return None


# -- Jaipur --------------------------------------------------------------------------------------

_EXPECTED_BONUS = (0.0, 0.0, 0.0, 2.0, 5.0, 9.0, 9.0, 9.0)


class JaipurAdapter(GameAdapter):
    """Jaipur: searched to the end of the round (Seal and rupee gap); exchanges are searched
    only at the searching seat's decisions (its best-scored moves), the policy never exchanges."""

    rules: ClassVar[Any] = jp
    default_children = 10
    max_rollout = 300

    def canonical(self, state: Any, player: int) -> Any:
        opp = 1 - player
        hand, known = state.hands[opp], state.known[opp]
        unknown = [h - k for h, k in zip(hand, known)]
        pool = sorted([t for t in range(len(unknown)) for _ in range(unknown[t])] + list(state.deck))
        need = sum(unknown)
        goods = [t for t in pool if t != CAMEL][:need]
        new_hand = list(known)
        for t in goods:
            new_hand[t] += 1
        rest = list(pool)
        for t in goods:
            rest.remove(t)
        held = state.bonus_tokens[opp]
        opp_bonus, piles = [], []
        for kind in range(len(state.bonus_piles)):
            values = sorted(list(held[kind]) + list(state.bonus_piles[kind]))
            opp_bonus.append(tuple(values[: len(held[kind])]))
            piles.append(tuple(values[len(held[kind]) :]))
        hands = list(state.hands)
        hands[opp] = tuple(new_hand)
        bonus = list(state.bonus_tokens)
        bonus[opp] = tuple(opp_bonus)
        return dataclasses.replace(
            state, hands=tuple(hands), deck=tuple(rest), bonus_piles=tuple(piles), bonus_tokens=tuple(bonus)
        )

    @staticmethod
    def _scores(state: Any, moves: Any) -> list[float]:
        """The heuristic's scores of moves (sales by tokens and bonus, takes by set value...)."""
        p = state.player
        hand = state.hands[p]
        market = state.market
        size = sum(hand)
        top = [s[0] if s else 0 for s in state.goods_stacks]
        value = [top[g] + 1.2 * min(hand[g], 4) for g in range(NUM_GOODS)]
        scores = []
        for move in moves:
            kind = type(move)
            if kind is jp.TakeOne:
                scores.append(value[move.good] - 1.0 - (1.5 if size >= HAND_LIMIT - 1 else 0.0))
            elif kind is jp.TakeCamels:
                camels = market[CAMEL]
                scores.append(2.2 * camels - 2.5 if camels >= 3 else camels - 1.5)
            elif kind is jp.Sell:
                g, n = move.good, move.count
                score = sum(state.goods_stacks[g][:n]) - 6.0
                bonus_kind = 0 if n == 3 else 1 if n == 4 else 2 if n >= 5 else -1
                if bonus_kind >= 0 and state.bonus_piles[bonus_kind]:
                    score += _EXPECTED_BONUS[n]
                if n < hand[g]:
                    score -= 2.0
                if n >= 3 or PRECIOUS[g]:
                    score += 3.0
                if size >= HAND_LIMIT:
                    score += 4.0
                scores.append(score)
            else:
                take, give = move.take, move.give
                gained = sum(take[g] * value[g] for g in range(NUM_GOODS))
                lost = sum(give[g] * (top[g] + 0.8 * min(hand[g], 4)) for g in range(NUM_GOODS))
                precious = sum(give[g] * top[g] for g in range(NUM_GOODS) if PRECIOUS[g])
                scores.append(gained - lost - 0.6 * precious - 1.5 * give[CAMEL] - 2.0)
        return scores

    def legal(self, state: Any) -> list[Any]:
        moves = jp.legal_moves(state)
        scores = self._scores(state, moves)
        order = sorted(range(len(moves)), key=lambda i: -scores[i])
        return [moves[i] for i in order]

    @staticmethod
    def _simple_moves(state: Any) -> list[Any]:
        """The legal moves other than exchanges (never empty: see the hand-limit argument)."""
        p = state.player
        hand = state.hands[p]
        market = state.market
        moves: list[Any] = []
        if sum(hand) < HAND_LIMIT:
            moves += [jp.TakeOne(g) for g in range(NUM_GOODS) if market[g]]
        if market[CAMEL]:
            moves.append(jp.TakeCamels())
        for g in range(NUM_GOODS):
            moves += [jp.Sell(g, n) for n in range(2 if PRECIOUS[g] else 1, hand[g] + 1)]
        return moves

    def policy(self, state: Any, rng: np.random.Generator) -> Any:
        moves = self._simple_moves(state)
        if not moves:  # pragma: no cover - a 7-card hand always holds a sale
            return self.random_move(state, rng)
        if rng.random() < self.epsilon:
            return moves[int(rng.integers(len(moves)))]
        scores = self._scores(state, moves)
        best = max(scores)
        ties = [m for m, s in zip(moves, scores) if s >= best - 1e-9]
        return ties[int(rng.integers(len(ties)))] if len(ties) > 1 else ties[0]

    def value(self, root: Any, state: Any, player: int, rng: np.random.Generator) -> float:
        if state.round_over:
            result = state.history[-1]
            gap = result.rupees[player] - result.rupees[1 - player]
            seal = 1.0 if result.seal == player else -1.0 if result.seal >= 0 else 0.0
            return 0.6 * seal + 0.4 * math.tanh(gap / 25)
        rupees = jp.rupees(state)
        return 0.4 * math.tanh((rupees[player] - rupees[1 - player]) / 25)


# -- Haggis --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1 << 15)
def _haggis_plays(hand: int, table: Any, lone_qk_wild: bool, natural_runs: bool) -> list:
    """:func:`legal_plays`, remembered (the same hands and tables recur across simulations)."""
    return legal_plays(hand, table, lone_qk_wild, natural_runs)


class HaggisAdapter(GameAdapter):
    """Haggis: searched to the end of the hand (the hand's point difference); the moves are the
    encoding's plays (one reading per card set and kind), the policy is the heuristic's."""

    rules: ClassVar[Any] = hg
    default_children = 10

    def __init__(self, encoding: Any, epsilon: float | None = None):
        super().__init__(encoding, epsilon)
        self.flags = (self.config.lone_qk_wild, self.config.natural_faces_in_runs)

    def canonical(self, state: Any, player: int) -> Any:
        # resample_hidden deals from the sorted unseen cards: a function of the information set.
        return hg.resample_hidden(state, player, make_rng(0))

    def legal(self, state: Any) -> list[Any]:
        seat = state.to_move
        hand = state.hands[seat]
        plays = _haggis_plays(hand, state.table, *self.flags)
        opponent = state.hands[1 - seat].bit_count()
        leading = state.table is None
        trick_points = state.trick_points

        def key(play: tuple) -> tuple:
            cards, kind, reading = play
            faces = (cards & FACE_MASK).bit_count()
            bomb = kind == BOMB_KIND
            rank = reading[3] if not bomb else 20
            if cards == hand:
                return (0, 0, 0, 0)
            if leading:
                return (1, faces + (5 if bomb else 0), -cards.bit_count(), rank)
            urgent = opponent <= 4 or trick_points >= 3
            cost = faces * (1 if urgent else 3) + (4 if bomb else 0)
            return (1, cost, rank, -cards.bit_count())

        ordered: list[Any] = [hg.Play(p[0], p[2]) for p in sorted(plays, key=key)]
        if not leading:
            clean = sum(1 for p in plays if not p[0] & FACE_MASK and p[1] != BOMB_KIND)
            ordered.insert(min(clean, 2), hg.Pass())
        return ordered

    def apply(self, state: Any, move: Any) -> Any:
        return hg.apply_move(state, move)

    def random_move(self, state: Any, rng: np.random.Generator) -> Any:
        plays = _haggis_plays(state.hands[state.to_move], state.table, *self.flags)
        n = len(plays) + (state.table is not None)
        i = int(rng.integers(n))
        if i == len(plays):
            return hg.Pass()
        cards, _, reading = plays[i]
        return hg.Play(cards, reading)

    def policy(self, state: Any, rng: np.random.Generator) -> Any:
        if rng.random() < self.epsilon:
            return self.random_move(state, rng)
        seat = state.to_move
        hand = state.hands[seat]
        table = state.table
        plays = _haggis_plays(hand, table, *self.flags)
        choice = choose_haggis_play(plays, hand, table, state.hands[1 - seat].bit_count(), state.trick_points)
        if choice is None:
            return hg.Pass() if table is not None else hg.Play(plays[0][0], plays[0][2])
        return hg.Play(choice[0], choice[2])

    def value(self, root: Any, state: Any, player: int, rng: np.random.Generator) -> float:
        if hg.is_terminal(state):
            return 1.0 if state.totals[player] > state.totals[1 - player] else -1.0
        points = state.hand_points
        return math.tanh((points[player] - points[1 - player]) / 30)


# -- Haggle --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1 << 16)
def haggle_hand_value(hand: tuple[int, ...], num_players: int) -> float:
    """The Haggle heuristic's estimate of a hand's worth to its holder (one hand, no numpy)."""
    y, b, r, o, w = hand
    white = 0 if w > 3 else 5
    orange = min(o, b)
    value = float(y + 2 * b + 3 * r + 4 * orange + white * w)
    value += 10 * min(hand) + white * min(y // 2, w) + 12 * min(b // 3, orange)
    value += 0.6 * y * y if y >= 4 else 3.0 if y == 3 else 0.0
    value += 1.8 * r if r >= 4 else 0.0
    value += 10.0 * (num_players - 1) / num_players if b >= 5 else 0.0
    value += 3.0 * min(r // 3, 2)
    size = sum(hand)
    if size == 10 and sorted(hand) == [0, 1, 2, 3, 4]:
        value *= 2
    value -= 2.0 * max(size - 13, 0)
    return value - 80.0 if max(hand) >= 7 else value


@functools.lru_cache(maxsize=1 << 16)
def _best_trade(hand: tuple[int, ...], give: tuple[int, ...], n: int, max_offer: int) -> float:
    """Best hand value after giving ``give`` and asking a fair set (no more base value)."""
    given = sum(g * v for g, v in zip(give, BASE_VALUES))
    rest = tuple(h - g for h, g in zip(hand, give))
    best = -math.inf
    for ask in hl.offer_sets(max_offer):
        if ask != give and sum(a * v for a, v in zip(ask, BASE_VALUES)) <= given:
            best = max(best, haggle_hand_value(tuple(h + a for h, a in zip(rest, ask)), n))
    return best


class HaggleAdapter(GameAdapter):
    """Haggle: searched to the end of the game (the real scoring, cap draw sampled); in the
    policy proposers pass (a proposal under way is completed with the best fair trade) and
    targets accept offers that do not lower their hand's value."""

    rules: ClassVar[Any] = hl
    default_children = 8

    def canonical(self, state: Any, player: int) -> Any:
        n = state.num_players
        others = [s for s in range(n) if s != player]
        known = {s: hl.known_cards(state, player, s) for s in others}
        pool = [0] * NUM_COLOURS
        for s in others:
            for colour in range(NUM_COLOURS):
                pool[colour] += state.hands[s][colour] - known[s][colour]
        cards = [colour for colour in range(NUM_COLOURS) for _ in range(pool[colour])]
        hands = list(state.hands)
        pos = 0
        for s in others:
            extra = sum(state.hands[s]) - sum(known[s])
            hand = list(known[s])
            for colour in cards[pos : pos + extra]:
                hand[colour] += 1
            hands[s] = tuple(hand)
            pos += extra
        # Rule cards: the unseen ones, in sorted order, over the unseen slots sorted by who has
        # seen them (a fact the seat knows), so that the records of shows keep their meaning.
        copies = [self.config.rule_copies] * NUM_MODIFIERS
        for rule in state.rules[player]:
            copies[rule] -= 1
        slots = []
        for s in others:
            seen = state.shown[player * n + s]
            for rule in state.rules[s]:
                if seen >> rule & 1:
                    copies[rule] -= 1
                else:
                    pattern = tuple(state.shown[v * n + s] >> rule & 1 for v in range(n))
                    pending = int(state.show == rule and state.proposer == s)
                    slots.append((s, pattern, pending, rule))
        unseen = [r for r in range(NUM_MODIFIERS) for _ in range(copies[r])]
        slots.sort(key=lambda slot: (slot[0], slot[1], slot[2]))
        renames: dict[int, dict[int, int]] = {s: {} for s in others}
        new_rules = list(state.rules)
        pos = 0
        for s in others:
            mine = [slot for slot in slots if slot[0] == s]
            fixed = [r for r in state.rules[s] if state.shown[player * n + s] >> r & 1]
            chosen: list[int] = []
            for _ in mine:
                for i in range(pos, len(unseen)):
                    if unseen[i] not in fixed and unseen[i] not in chosen:
                        unseen[pos], unseen[i] = unseen[i], unseen[pos]
                        break
                chosen.append(unseen[pos])
                pos += 1
            unseen[pos:] = sorted(unseen[pos:])
            for slot, new in zip(mine, chosen):
                renames[s][slot[3]] = new
            for r in fixed:
                renames[s][r] = r
            pair = [renames[s][r] for r in state.rules[s]]
            new_rules[s] = (min(pair), max(pair))
        return hl.redealt(state, player, hands, new_rules, renames)

    def legal(self, state: Any) -> list[Any]:
        moves: list[Any] = list(hl.legal_moves(state))
        stage = state.stage
        n = state.num_players
        if stage == hl.Stage.GIVE:
            hand = state.hands[state.proposer]
            max_offer = self.config.max_offer
            moves.sort(key=lambda m: -_best_trade(hand, m.cards, n, max_offer))
        elif stage == hl.Stage.ASK:
            give = state.give
            given = sum(g * v for g, v in zip(give, BASE_VALUES))
            hand = tuple(h - g for h, g in zip(state.hands[state.proposer], give))

            def key(move: Any) -> tuple[bool, float]:
                # Fair asks first (no more base value than given, not the cards given): the
                # ones a partner may take; then by the proposer's resulting hand value.
                fair = move.cards != give and sum(a * v for a, v in zip(move.cards, BASE_VALUES)) <= given
                value = haggle_hand_value(tuple(h + a for h, a in zip(hand, move.cards)), n)
                return (not fair, -value)

            moves.sort(key=key)
        return moves

    def policy(self, state: Any, rng: np.random.Generator) -> Any:
        stage = state.stage
        n = state.num_players
        if stage == hl.Stage.PROPOSE:
            return hl.Pass()
        if stage == hl.Stage.RESPOND:
            hand = state.hands[state.target]
            moves = hl.legal_moves(state)
            if len(moves) > 1:
                after = tuple(h + g - a for h, g, a in zip(hand, state.give, state.ask))
                if haggle_hand_value(after, n) >= haggle_hand_value(hand, n):
                    return moves[1]
            return moves[0]
        if stage == hl.Stage.SUBMIT:
            seat, colour = state.proposer, state.submit_colour
            hand = state.hands[seat]
            done = state.submitted[seat]
            best, best_value = None, -math.inf
            submits: tuple[Any, ...] = hl.legal_moves(state)
            for move in submits:
                trial = tuple(
                    done[c] if c < colour else move.count if c == colour else hand[c]
                    for c in range(NUM_COLOURS)
                )
                value = haggle_hand_value(trial, n)
                if value > best_value:
                    best, best_value = move, value
            return best
        if stage in (hl.Stage.GIVE, hl.Stage.ASK):  # the heuristic's best fair trade
            return self.legal(state)[0]
        if stage == hl.Stage.TERMS:
            return hl.legal_moves(state)[0]
        return self.random_move(state, rng)

    def value(self, root: Any, state: Any, player: int, rng: np.random.Generator) -> float:
        if state.stage == hl.Stage.SCORE:
            state = hl.apply_deal(state, hl.sample_deal(state, rng))
        if state.stage != hl.Stage.DONE:
            return 0.0
        return math.tanh(hl.returns(state)[player] / 3)


__all__ = ["CHANCE", "EMPTY", "TERMINAL", "GameAdapter", "haggle_hand_value"]
