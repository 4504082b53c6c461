"""Playouts in a batched engine: many rules states played to their end at once, in compiled code.

:class:`BatchedPlayouts` holds a batched engine of the game (``GameSpec.kernel``) and a
compiled policy deciding every slot in one call (the game's heuristic, ``GameSpec.heuristic``,
or its light policy, the search hooks' ``light_policy``). Given rules states with a seat to
move (determinizations, leaves of a search tree), it loads each into a slot and steps all the
slots together, every seat moved by the playout policy, until each slot's simulation ends:

* at the end of the game: the slot's finished game (``final_state``; a chance event left
  after the last move, such as a scoring draw, dealt by the rules) is scored by the search
  hooks' ``value`` (the rules' ``returns`` without one), or, where the hooks have a
  ``points_value`` for the variant, all the games that ended in a step at once from their
  points (``final_points``), or where they have a ``returns_value``, from the returns the
  simulations gained (the engine's rewards summed since each state was loaded), or where they
  have an ``engine_final_value``, from the game's own engine arrays;
* at a chance event (the engine deals a new round or hand: the slot's random stream moves),
  when the game's hooks have a ``dealt_value``: it scores the state the new deal starts from
  (the finished round's result is part of it; where the hooks have an ``engine_dealt_value``,
  all the slots dealt in a step at once from the engine's arrays). Without that hook the slot
  plays on to the end of the game with the engine's own deals;
* after :data:`MAX_PLAYOUT_STEPS` engine steps: the slot's current state is scored by ``value``.

Where the engine can play the policy's games out in one compiled call (its ``play_out``) and
no tree policy chooses moves, the playouts after the prefixes run in that call instead of one
engine step at a time (:attr:`BatchedPlayouts.fused`): the same games, scored the same way.

The engine only ever holds the states it is given: a search hands it determinizations of its
seat's information set, never the real deal, or (:meth:`BatchedPlayouts.play_redealt`, for
an engine whose ``redeal_hidden`` draws determinizations itself) the canonical state of that
information set.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from cardgames_env import registry
from cardgames_env.core.game import CHANCE, config_kwargs
from cardgames_env.core.search import SearchHooks

MAX_PLAYOUT_STEPS = 2000
"""Most engine steps of one playout before its slot is scored as it stands."""

PLAYOUT_POLICIES = ("heuristic", "light", "random")
"""Policies that can move every seat in a playout."""


class TreePolicy(Protocol):
    """Chooses the searching seat's moves in the slots still inside a search tree."""

    def select(self, slot: int, legal: np.ndarray, suggested: int) -> tuple[int, bool]:
        """Return the action of the seat in ``slot`` (one of ``legal``, the slot's legal
        actions in increasing order; ``suggested`` is the playout policy's) and whether the
        slot's next decision of that seat is still chosen by the tree."""
        ...


class BatchedPlayouts:
    """Plays rules states to the end of their simulations in a batched engine.

    Args:
        env: the raw AEC env whose game and variant are played (its ``config``).
        hooks: the game's search hooks (``value`` and ``dealt_value`` score the playouts).
        slots: most states played at once (the engine's slot count).
        policy: ``"heuristic"`` (the game's compiled heuristic), ``"light"`` (the hooks'
            ``light_policy``), ``"random"``, or ``None``: the hooks' ``playouts``.
        seed: seed of the engine's random streams and of the policy's tie-breaks.

    Raises:
        ValueError: for a game without a batched engine or the policy named, or a bad policy
            name.
    """

    def __init__(
        self, env: Any, hooks: SearchHooks, slots: int, policy: str | None = None, seed: int | None = 0
    ):
        game = registry.spec(env.info.name)
        if game.kernel is None:
            raise ValueError(f"{game.env_name} has no batched engine to play out simulations")
        if policy is None:
            policy = hooks.playouts
        if policy not in PLAYOUT_POLICIES:
            raise ValueError(f"playout policy {policy!r}: expected one of {', '.join(PLAYOUT_POLICIES)}")
        kernel = game.load("kernel")
        self.engine = kernel(slots, seed=seed, max_steps=MAX_PLAYOUT_STEPS, **config_kwargs(env.config))
        self.engine.parallel = False  # one core: the search's time cap is its own thread's CPU time
        self.rules = env.rules
        self.hooks = hooks
        self.slots = int(slots)
        self.num_players = self.engine.num_players
        self.rng = np.random.default_rng(seed)
        self.policy: Any = None
        if policy == "heuristic":
            if game.heuristic is None:
                raise ValueError(f"{game.env_name} has no heuristic to play out simulations")
            self.policy = game.load("heuristic")(self.engine.encoding, seed=seed)
        elif policy == "light":
            if hooks.light_policy is None:
                raise ValueError(f"{game.env_name} has no compiled light policy to play out simulations")
            self.policy = hooks.light_policy(self.engine.encoding, seed)
        seats = self.slots * self.num_players
        self._keys = np.arange(seats, dtype=np.int64).reshape(self.slots, self.num_players)
        self._gained = np.zeros((self.slots, self.num_players), dtype=np.float64)
        """Each slot's rewards summed since its state was loaded (kept for ``returns_value``)."""
        self.steps = 0
        """Engine steps taken so far (every slot's move counts once)."""
        # Both probes run the engine's compiled calls on no slots: compiled (or loaded) now,
        # so that no timed search pays for it.
        none = np.zeros(0, dtype=np.int64)
        self.redeals = self.engine.redeal_hidden(none, 0)
        """Whether the engine draws determinizations itself (:meth:`play_redealt`)."""
        self.fused = self.policy is not None and self.engine.play_out(self.policy, none)
        """Whether playouts without a tree run in one call of the engine's ``play_out`` (the
        same games as stepping them; set it ``False`` to always step)."""

    def finished_value(self, root: Any, state: Any, player: int) -> float:
        """``player``'s value of a finished game: a chance event the engine left to its own
        stream (a scoring draw after the last move) is first dealt by the rules."""
        rules = self.rules
        while rules.current_player(state) == CHANCE:
            state = rules.apply_deal(state, rules.sample_deal(state, self.rng))
        return self._value(root, state, player)

    def _value(self, root: Any, state: Any, player: int) -> float:
        value = self.hooks.value
        return float(value(root, state, player) if value is not None else self.rules.returns(state)[player])

    def policy_actions(self, active: np.ndarray) -> np.ndarray:
        """The playout policy's action in every slot of ``active`` (0 in the others)."""
        engine = self.engine
        actions = np.zeros(self.slots, dtype=np.int64)
        every = bool(active.all())
        rows = slice(None) if every else np.flatnonzero(active)
        if self.policy is None:
            masks = engine.mask[rows]
            legal_rows, columns = np.nonzero(masks)  # row-major: each row's legal actions in order
            counts = np.bincount(legal_rows, minlength=masks.shape[0])
            starts = np.cumsum(counts) - counts
            actions[rows] = columns[starts + (self.rng.random(masks.shape[0]) * counts).astype(np.int64)]
            return actions
        keys = self._keys[np.arange(self.slots), engine.player][rows]
        legal_index = getattr(engine, "legal_index", None)
        act_legal = getattr(self.policy, "act_legal", None)
        if act_legal is not None and legal_index is not None:
            lists = legal_index[rows]
            # The engine's lists are read-only: a copy of some rows is made read-only too, so
            # that the policy's compiled kernels see one array type (no compilation in a search).
            lists.flags.writeable = False
            actions[rows] = act_legal(engine.obs[rows], lists, engine.legal_count[rows], keys)
        else:
            actions[rows] = self.policy.act_batch(engine.obs[rows], engine.mask[rows], keys)
        return actions

    def play(
        self, states: Sequence[Any], root: Any, player: int, prefixes: Sequence[Sequence[int]] | None = None,
        tree: TreePolicy | None = None,
    ) -> np.ndarray:
        """Play each state (a seat to move) to the end of its simulation; return ``player``'s
        values (float64, one per state, in about ``[-1, 1]``).

        Args:
            states: at most ``slots`` rules states of the env's game and variant (one state
                object may stand for several slots).
            root: the searched position (handed to the hooks' ``value``).
            player: the seat whose values are returned.
            prefixes: optional actions played first in each slot, in the engine's encoding
                (a move chosen by the search: one action, or its sub-steps), each legal where
                it is played; then the playout policy moves every seat.
            tree: optional policy choosing ``player``'s actions after the prefixes, for as
                long as it keeps a slot in its tree (the playout policy moves the other seats,
                and ``player`` once the slot has left the tree).

        Raises:
            ValueError: for more states than slots, a state the engine cannot load, or a
                prefix action that is illegal in its slot.
        """
        count = len(states)
        if count > self.slots:
            raise ValueError(f"{count} states for {self.slots} playout slots")
        engine = self.engine
        first: dict[int, int] = {}
        sources, copies = [], []
        for i, state in enumerate(states):
            seen = first.get(id(state))
            if seen is None:
                # States the rules engine made from a checked position: no second check.
                engine.load(i, state, check=False)
                first[id(state)] = i
            else:  # the same state again: its slot copied
                sources.append(seen)
                copies.append(i)
        if copies:
            engine.copy_slots(sources, copies)
        return self._run(count, root, player, prefixes, tree)

    def play_redealt(
        self, infoset: Any, count: int, shared: int, root: Any, player: int,
        prefixes: Sequence[Sequence[int]] | None = None, tree: TreePolicy | None = None,
    ) -> np.ndarray:
        """:meth:`play` on ``count`` determinizations of ``player``'s information set drawn by
        the engine (:attr:`redeals`): ``infoset`` (the set's canonical state) is loaded, every
        ``shared``-th slot re-deals the cards hidden from ``player``
        (:meth:`~cardgames_env.core.engine.BatchedEngine.redeal_hidden`) and the slots after
        it up to the next take a copy of its determinization.

        Raises:
            ValueError: for an engine that cannot re-deal, a count outside ``1..slots``, a
                ``shared`` below 1, or as :meth:`play`.
        """
        if not self.redeals:
            raise ValueError(f"{self.engine.name}'s batched engine cannot re-deal hidden cards")
        if not 1 <= count <= self.slots or shared < 1:
            raise ValueError(
                f"count must be in 1..{self.slots} and shared at least 1, got {count} and {shared}"
            )
        engine = self.engine
        engine.load(0, infoset, check=False)
        slots = np.arange(count, dtype=np.int64)
        leaders = slots[::shared]
        if leaders.size > 1:
            engine.copy_slots(np.zeros(leaders.size - 1, dtype=np.int64), leaders[1:])
        engine.redeal_hidden(leaders, player)
        members = slots[slots % shared != 0]
        if members.size:
            engine.copy_slots(members - members % shared, members)
        return self._run(count, root, player, prefixes, tree)

    def _run(
        self, count: int, root: Any, player: int, prefixes: Sequence[Sequence[int]] | None,
        tree: TreePolicy | None,
    ) -> np.ndarray:
        """Play the states loaded into the first ``count`` slots (see :meth:`play`)."""
        engine = self.engine
        engine.steps[:count] = 0
        self._gained[:] = 0.0
        if self.policy is not None and hasattr(self.policy, "end_games"):
            self.policy.end_games(self._keys.reshape(-1))
        values = np.zeros(count, dtype=np.float64)
        live = np.zeros(self.slots, dtype=np.bool_)
        live[:count] = True
        streams = engine.rng_state.copy()
        if prefixes is not None:
            longest = max((len(p) for p in prefixes), default=0)
            for t in range(longest):
                actions = np.zeros(self.slots, dtype=np.int64)
                moving = np.zeros(self.slots, dtype=np.bool_)
                for i, prefix in enumerate(prefixes):
                    if len(prefix) > t and live[i]:
                        actions[i] = prefix[t]
                        moving[i] = True
                self._step(actions, moving, live, streams, values, root, player)
        if tree is None and self.fused and self._played_out(live, values, root, player):
            return values
        in_tree = np.full(self.slots, tree is not None, dtype=np.bool_)
        steps = 0
        while live.any():
            actions = self.policy_actions(live)
            if tree is not None:
                for slot in np.flatnonzero(live & in_tree & (engine.player == player)):
                    legal = np.flatnonzero(engine.mask[slot])
                    actions[slot], in_tree[slot] = tree.select(int(slot), legal, int(actions[slot]))
            self._step(actions, live.copy(), live, streams, values, root, player)
            steps += 1
            if steps >= MAX_PLAYOUT_STEPS:
                for slot in np.flatnonzero(live):
                    values[slot] = self._value(root, engine.state(int(slot)), player)
                break
        return values

    def _played_out(self, live: np.ndarray, values: np.ndarray, root: Any, player: int) -> bool:
        """Play the ``live`` slots to the ends of their games in one call of the engine's
        :meth:`~cardgames_env.core.engine.BatchedEngine.play_out` and score them; ``False``
        (nothing played) where the engine has no such call for the playout policy, or where
        the simulations stop at the engine's new deals (``dealt_value``)."""
        if self.hooks.dealt_value is not None:
            return False
        slots = np.flatnonzero(live)
        engine = self.engine
        before = int(engine.steps[slots].sum())
        if not engine.play_out(self.policy, slots):
            return False
        self.steps += int(engine.steps[slots].sum()) - before
        if self.hooks.returns_value is not None:
            self._gained[slots] += engine.rewards[slots]
        self._score_ended(slots, values, root, player)
        live[slots] = False
        return True

    def _score_ended(self, slots: np.ndarray, values: np.ndarray, root: Any, player: int) -> None:
        """Score the simulations of ``slots``, whose games just ended (finished, or cut at the
        step limit): the finished ones in one call where the hooks' ``points_value`` (from
        their points), ``returns_value`` (from the returns gained) or ``engine_final_value``
        (from the engine's arrays) scores the variant, the others from their final rules
        states."""
        engine, hooks = self.engine, self.hooks
        cut = engine.truncated[slots]
        finished, rest = slots[~cut], slots
        scorers: list[Callable[[np.ndarray], np.ndarray | None]] = []
        if hooks.points_value is not None:
            points_value = hooks.points_value
            scorers.append(lambda ended: points_value(root, engine.final_points(ended), player))
        if hooks.returns_value is not None:
            returns_value = hooks.returns_value
            scorers.append(lambda ended: returns_value(root, self._gained[ended], player))
        if hooks.engine_final_value is not None:
            engine_final_value = hooks.engine_final_value
            scorers.append(lambda ended: engine_final_value(root, engine, ended, player))
        for scorer in scorers if finished.size else ():
            scored = scorer(finished)
            if scored is not None:
                values[finished] = scored
                rest = slots[cut]
                break
        for i in rest:
            values[i] = self.finished_value(root, engine.final_state(int(i)), player)

    def _step(
        self, actions: np.ndarray, moving: np.ndarray, live: np.ndarray, streams: np.ndarray,
        values: np.ndarray, root: Any, player: int,
    ) -> None:
        """Step the ``moving`` slots; score and retire (``live``) those whose simulation ended."""
        engine = self.engine
        engine.step(actions, moving)
        self.steps += int(moving.sum())
        if self.hooks.returns_value is not None:
            self._gained += engine.rewards  # a slot that did not move has no rewards
        ended = moving & (engine.done | engine.truncated)
        if ended.any():
            self._score_ended(np.flatnonzero(ended), values, root, player)
        live &= ~ended
        dealt_value: Callable[[Any, Any, int], float] | None = self.hooks.dealt_value
        if dealt_value is not None:
            dealt = live & moving & (engine.rng_state != streams)
            slots = np.flatnonzero(dealt)
            engine_dealt_value = self.hooks.engine_dealt_value
            scored = None
            if slots.size and engine_dealt_value is not None:
                scored = engine_dealt_value(root, engine, slots, player)
            if scored is not None:
                values[slots] = scored
            else:
                for i in slots:
                    values[i] = float(dealt_value(root, engine.state(int(i)), player))
            live &= ~dealt


__all__ = ["MAX_PLAYOUT_STEPS", "PLAYOUT_POLICIES", "BatchedPlayouts", "TreePolicy"]
