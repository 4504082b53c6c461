"""Rule-based Haggis player: sheds runs and low singles first, keeps wilds and bombs.

It reads only its observation (own hand, the table combination, the opponent's hand size, its
current selection) and the action mask. From those it lists its own legal plays with
:func:`cardgames_env.envs.haggis.combos.legal_plays`, picks one whole play at the start of a
move and then emits the card selections and the declaration that make it.

Policy:

* go out whenever one play empties the hand;
* leading: the longest run without face cards, else the lowest single number card up to 7,
  else the largest other combination without face cards, else the fewest face cards, bombs last;
* following: the lowest-ranked beating play without face cards; face cards as wilds only when
  the trick holds at least 3 points or the opponent has 4 cards or fewer; bombs only to go out
  or to stop an opponent with 4 cards or fewer (a trick won with a bomb scores for the
  opponent, so a bomb never captures points: it buys the lead and denies the going-out bonus);
* otherwise pass.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cardgames_env.core.rng import make_rng
from cardgames_env.envs.haggis.cards import FACE_MASK, NUM_CARD_IDS
from cardgames_env.envs.haggis.combos import BOMB_KIND, BOMB_ORDER, Play, legal_plays
from cardgames_env.envs.haggis.encoding import DECLARE0, LAYOUT, PASS, HaggisEncoding

from .masks import legal_actions


def _bits(vector: np.ndarray) -> int:
    """Return the bitmask of the 1s in a 0/1 vector."""
    return int(sum(1 << int(i) for i in np.flatnonzero(vector)))


class HaggisHeuristic:
    """Heuristic Haggis agent (see the module docstring for its policy)."""

    keeps_game_state = True
    """It plans a whole play, then emits its card selections over several decisions."""

    def __init__(self, encoding: HaggisEncoding, seed: int | None = None):
        self.encoding = encoding
        self.flags = (encoding.config.lone_qk_wild, encoding.config.natural_faces_in_runs)
        self.rng = make_rng(seed)
        self.plan: Play | None = None

    def reset(self, seed: int | None = None) -> None:
        """Forget any plan; re-seed when ``seed`` is given."""
        self.plan = None
        if seed is not None:
            self.rng = make_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the next action of the chosen play (or pass)."""
        legal = legal_actions(action_mask)
        view = LAYOUT.view(observation)
        selected = _bits(view["selection"])
        plan = self.plan
        if not selected or plan is None or plan[0] & selected != selected:
            plan = self._choose(view) if not selected else self._continue(view, selected)
            self.plan = plan
        if plan is None:
            if action_mask[PASS]:
                return PASS
            return int(legal[0])
        cards, kind, _ = plan
        rest = cards & ~selected
        action = DECLARE0 + kind if not rest else (rest & -rest).bit_length() - 1
        if not action_mask[action]:  # should not happen; never play an illegal action
            self.plan = None
            return int(legal[0])
        if action >= DECLARE0:
            self.plan = None
        return action

    # -- choosing a play --------------------------------------------------------------------
    @staticmethod
    def _table(view: Mapping[str, np.ndarray]) -> tuple | None:
        if view["table_empty"][0]:
            return None
        kind = int(np.argmax(view["table_kind"]))
        if kind >= 4:
            return ("bomb", BOMB_ORDER[kind - 4])
        length = int(np.argmax(view["table_length"])) + 1
        rank = int(np.argmax(view["table_rank"])) + 2
        return ("sequence", kind + 1, length, rank)

    def _plays(self, view: Mapping[str, np.ndarray]) -> tuple[int, list[Play], tuple | None]:
        hand = _bits(view["hand"][:NUM_CARD_IDS])
        table = self._table(view)
        return hand, legal_plays(hand, table, *self.flags), table

    def _continue(self, view: Mapping[str, np.ndarray], selected: int) -> Play | None:
        hand, plays, _ = self._plays(view)
        low = (1 << selected.bit_length()) - 1
        options = [p for p in plays if p[0] & low == selected]
        return min(options, key=lambda p: (p[0].bit_count(), p[0])) if options else None

    def _choose(self, view: Mapping[str, np.ndarray]) -> Play | None:
        hand, plays, table = self._plays(view)
        opponent_cards = round(float(view["opponent_hand_size"][0]) * 17)
        trick_points = float(view["trick_points"][0]) * 36
        return choose_play(plays, hand, table, opponent_cards, trick_points)


def choose_play(
    plays: list[Play], hand: int, table: tuple | None, opponent_cards: int, trick_points: float
) -> Play | None:
    """The heuristic's play among the legal ``plays`` (``None`` = pass), from the facts it uses:
    go out if possible; lead the longest clean run, a low single or the biggest clean set;
    answer with the lowest clean play, spend wild cards only for points or when the opponent
    is close to going out, bomb only then. The search agent's light policy plays it too."""
    if not plays:
        return None
    for play in plays:
        if play[0] == hand:
            return play  # go out
    danger = opponent_cards <= 4
    bombs = [p for p in plays if p[1] == BOMB_KIND]
    sequences = [p for p in plays if p[1] != BOMB_KIND]
    clean = [p for p in sequences if not p[0] & FACE_MASK]
    if table is None:
        runs = [p for p in clean if p[1] == 1 and p[2][2] >= 3]
        if runs:
            return min(runs, key=lambda p: (-p[2][2], p[2][3]))
        low_singles = [p for p in clean if p[2][1:3] == (1, 1) and p[2][3] <= 7]
        if low_singles:
            return min(low_singles, key=lambda p: p[2][3])
        if clean:
            return min(clean, key=lambda p: (-p[0].bit_count(), p[2][3]))
        if sequences:
            return min(sequences, key=lambda p: ((p[0] & FACE_MASK).bit_count(), -p[0].bit_count()))
        return bombs[0]
    if clean:
        return min(clean, key=lambda p: p[2][3])
    if sequences and (trick_points >= 3 or danger):
        return min(sequences, key=lambda p: ((p[0] & FACE_MASK).bit_count(), p[2][3]))
    if bombs and danger:
        return bombs[0]
    return None
