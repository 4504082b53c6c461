"""Rule-based Haggis player: sheds runs and low singles first, keeps wilds and bombs.

It reads only its observation (own hand, the table combination, the opponent's hand size, its
current selection) and the action mask. From those it lists its own legal plays (those of
:func:`cardgames_env.envs.haggis.combos.legal_plays`), picks one whole play at the start of a
move and then emits the card selections and the declaration that make it.

:func:`choose_play` states the choice readably; the search agent's rollouts play it. The
heuristic itself runs the same choice compiled, for a batch of rows at once
(:mod:`.heuristic_kernel`, held to ``legal_plays`` and :func:`choose_play` by a differential test).

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

import numpy as np

from cardgames_env.core.masks import legal_rows
from cardgames_env.envs.haggis.cards import FACE_MASK, NUM_CARD_IDS
from cardgames_env.envs.haggis.combos import BOMB_KIND, Play
from cardgames_env.envs.haggis.encoding import ACTIONS, LAYOUT, HaggisEncoding

from . import heuristic_kernel as kernel

_CARD_BITS = np.int64(1) << np.arange(NUM_CARD_IDS, dtype=np.int64)
"""The bit of each card id (a 0/1 card vector times these, summed, is its bitmask)."""
_PIECES = {name: LAYOUT.slice(name) for name in (
    "hand", "selection", "table_empty", "table_kind", "table_length", "table_rank",
    "opponent_hand_size", "trick_points",
)}
"""The observation pieces the heuristic reads."""
_SEQUENCE_KINDS = 4
"""``table_kind`` entries 0..3 are sequences of multiplicity 1..4, the rest bombs."""
PLAYS_CAPACITY = 1 << 13
"""Plays a hand may have before the buffers grow (a 14-card hand with J Q K has up to ~4,600)."""


class HaggisHeuristic:
    """Heuristic Haggis agent (see the module docstring for its policy).

    It decides for a batch of rows at once (:meth:`act_batch`, what the batched training engines
    call; :meth:`act` is a batch of one): one compiled loop (:mod:`.heuristic_kernel`) lists each
    row's legal plays, picks one with :func:`choose_play`'s rules and emits its next action.
    """

    keeps_game_state = True
    """It plans a whole play, then emits its card selections over several decisions."""

    def __init__(self, encoding: HaggisEncoding, seed: int | None = None):
        self.encoding = encoding
        self.flags = (bool(encoding.config.lone_qk_wild), bool(encoding.config.natural_faces_in_runs))
        self.plans = np.full((1, 2), kernel.NO_PLAY, dtype=np.int64)
        """``plans[key]``: the play (cards, kind) game seat ``key`` is emitting; cards -1 = none."""
        self._buffers = _buffers(PLAYS_CAPACITY)

    def reset(self, seed: int | None = None) -> None:
        """Forget every plan (the heuristic draws nothing at random: ``seed`` is accepted for
        the :class:`~cardgames_env.agents.base.Agent` protocol)."""
        self.plans[:, 0] = kernel.NO_PLAY

    def end_games(self, keys: np.ndarray) -> None:
        """The games of ``keys`` are over: forget their plans."""
        keys = np.asarray(keys, dtype=np.int64)
        self.plans[keys[(keys >= 0) & (keys < len(self.plans))], 0] = kernel.NO_PLAY

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the next action of the chosen play (or pass), for a game played one decision
        at a time (its plan is kept under key 0)."""
        rows = np.asarray(observation)[None, :], np.asarray(action_mask)[None, :]
        return int(self.act_batch(*rows, keys=np.zeros(1, dtype=np.int64))[0])

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Return the next action of each row's play: a card to select, the declaration once
        the play is selected, or pass.

        ``keys`` names each row's game seat: rows with one key are one player's successive
        decisions in one game (its plan carries over), until :meth:`end_games` or :meth:`reset`.

        Raises:
            ValueError: without ``keys``, with a negative key or two rows of one key, when a
                row of ``masks`` allows nothing, or when an observation is not Haggis's.
        """
        if keys is None:
            raise ValueError("HaggisHeuristic keeps state within a game: pass keys (one per game seat)")
        legal = legal_rows(masks)
        observations = np.asarray(observations)
        if observations.ndim != 2 or observations.shape[1] != LAYOUT.size:
            raise ValueError(f"Haggis observations are rows of {LAYOUT.size} values, "
                             f"got shape {observations.shape}")
        if legal.shape[1] != ACTIONS.size:
            raise ValueError(f"Haggis masks are rows of {ACTIONS.size} actions, got shape {legal.shape}")
        keys = np.asarray(keys, dtype=np.int64).reshape(-1)
        if keys.shape[0] != observations.shape[0] or legal.shape[0] != keys.shape[0]:
            raise ValueError(f"{observations.shape[0]} observations, {legal.shape[0]} masks and "
                             f"{keys.shape[0]} keys")
        if keys.size and (keys.min() < 0 or np.unique(keys).size != keys.size):
            raise ValueError("keys must be distinct game seats >= 0")
        if keys.size and keys.max() >= len(self.plans):
            size = max(int(keys.max()) + 1, 2 * len(self.plans))
            grown = np.full((size, 2), kernel.NO_PLAY, dtype=np.int64)
            grown[: len(self.plans)] = self.plans
            self.plans = grown
        piece = {name: observations[:, cut] for name, cut in _PIECES.items()}
        hands = (piece["hand"][:, :NUM_CARD_IDS] != 0) @ _CARD_BITS
        selections = (piece["selection"] != 0) @ _CARD_BITS
        actions = np.zeros(keys.shape[0], dtype=np.int64)
        tables, opponent_cards, trick_points = _tables(piece), _opponent_cards(piece), _trick_points(piece)
        done = 0
        while done < keys.shape[0]:
            done = kernel.decide(hands, selections, tables, opponent_cards, trick_points, legal, keys,
                                 self.plans, *self.flags, done, actions, *self._buffers)
            if done < keys.shape[0]:  # a row has more plays than the buffers hold: grow them
                self._buffers = _buffers(2 * len(self._buffers[0]))
        return actions


def _buffers(capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's work arrays for up to ``capacity`` plays: plays, hash table, scratch."""
    return (np.zeros((capacity, 4), dtype=np.int64), np.zeros((2 * capacity, 2), dtype=np.int64),
            np.zeros(72, dtype=np.int64))


def _tables(piece: dict[str, np.ndarray]) -> np.ndarray:
    """Each row's table ``(kind, length, rank)`` (:mod:`.heuristic_kernel`'s form) from the
    observation's one-hot pieces: kind -1 when the table is empty."""
    kind = piece["table_kind"].argmax(axis=1)
    bomb = kind >= _SEQUENCE_KINDS
    tables = np.stack([
        np.where(bomb, 0, kind + 1),
        np.where(bomb, 0, piece["table_length"].argmax(axis=1) + 1),
        np.where(bomb, kind - _SEQUENCE_KINDS, piece["table_rank"].argmax(axis=1) + 2),
    ], axis=1).astype(np.int64)
    tables[piece["table_empty"][:, 0] != 0] = (-1, 0, 0)
    return tables


def _opponent_cards(piece: dict[str, np.ndarray]) -> np.ndarray:
    """The opponent's hand size (stored as cards / 17)."""
    return np.rint(piece["opponent_hand_size"][:, 0].astype(np.float64) * 17).astype(np.int64)


def _trick_points(piece: dict[str, np.ndarray]) -> np.ndarray:
    """The card points of the current trick (stored as points / 36)."""
    return piece["trick_points"][:, 0].astype(np.float64) * 36


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
