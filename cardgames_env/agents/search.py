"""Information-set Monte Carlo tree search (IS-MCTS) agents for every game.

The agent plays one seat. At each of its decisions it reads the rules ``State`` from the env
(``env.unwrapped.game_state()``), first replaces everything its seat cannot see by a
canonical re-deal that depends only on what the seat knows (so the hidden cards of the real
deal can never reach the search; each game's ``search.py``, see
:mod:`cardgames_env.core.search`), and then runs single-observer, open-loop IS-MCTS:

* every iteration draws a determinization with the rules' ``resample_hidden`` for its seat;
* the tree holds only the searching seat's decisions, keyed by its own moves since the root;
  a node's children are the moves legal in the current determinization, chosen by UCB1 with
  availability counts (a child's exploration term uses how often it was legal, not the
  parent's visits), untried moves first in the game's preference order;
* the other seats move by a light per-game policy (a fast model of the heuristic agents,
  with a little randomness) inside the tree and in the rollouts;
* a rollout plays every seat with that policy to the end of the current round, hand or game
  (multi-round games are searched to the end of the round: the next deal is chance) and is
  scored from the searching seat's point of view (per-game value in about ``[-1, 1]``);
* the move played is the most visited child of the root.

Moves are rules moves; for encodings that build one move over several actions (sub-steps,
such as choosing a move's cards one at a time) the agent plays the
chosen move's actions one by one on its following calls.

Options go in the agent name: ``search``, ``search:iterations=800``, ``search:time=0.2``,
``search:iterations=400:c=0.5:rollout=random`` (see :func:`parse_search_options`).
"""

from __future__ import annotations

import gc
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardgames_env import registry
from cardgames_env.core.masks import legal_actions, move_actions
from cardgames_env.core.rng import make_rng
from cardgames_env.core.search import GameAdapter

SEARCH_KIND = "search"
"""Agent-kind name of the search agent (with ``:key=value`` options)."""

ROLLOUT_KINDS = ("policy", "random")


@dataclass(frozen=True)
class SearchOptions:
    """Settings of a search agent.

    Attributes:
        iterations: simulations per decision (``None``: the game's default, its spec's
            ``search_iterations``, unless ``time``).
        time: seconds per decision (``None``: no time budget). With both set the search stops
            at whichever comes first; a time budget makes moves depend on the machine's speed.
        c: UCB1 exploration constant (values are in about ``[-1, 1]``).
        rollout: ``"policy"`` (the game's light policy, default) or ``"random"`` (uniform legal
            moves for every seat in rollouts and for the other seats in the tree).
        max_children: most moves searched at a decision of the searching seat (the game's
            preferred ones; ``0``: the game's default).
        epsilon: chance that the light policy plays a uniformly random legal move (``None``:
            the game's default).
    """

    iterations: int | None = None
    time: float | None = None
    c: float = 0.7
    rollout: str = "policy"
    max_children: int = 0
    epsilon: float | None = None

    def budget(self, game: str) -> tuple[int | None, float | None]:
        """Return ``(iterations, seconds)`` for a game; ``None`` = no limit of that kind."""
        if self.iterations is None and self.time is None:
            return registry.spec(game).search_iterations, None
        return self.iterations, self.time


def _positive_int(key: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"search option {key}={text!r}: expected a positive integer") from None
    if value <= 0:
        raise ValueError(f"search option {key}={text!r}: expected a positive integer")
    return value


def _float(key: str, text: str, low: float, strict: bool) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"search option {key}={text!r}: expected a number") from None
    if not math.isfinite(value) or value < low or (strict and value == low):
        raise ValueError(f"search option {key}={text!r}: expected a number {'>' if strict else '>='} {low:g}")
    return value


def parse_search_options(kind: str) -> SearchOptions:
    """Parse an agent name ``search[:key=value[:key=value...]]``.

    Keys: ``iterations`` (positive int), ``time`` (seconds, > 0), ``c`` (>= 0), ``rollout``
    (``policy`` or ``random``), ``max_children`` (non-negative int; 0 = the game's default),
    ``epsilon`` (0..1).

    Raises:
        ValueError: naming the bad part for an unknown key, a malformed or repeated option,
            or a bad value.
    """
    head, *parts = kind.split(":")
    if head != SEARCH_KIND:
        raise ValueError(f"not a search agent name: {kind!r}")
    values: dict[str, Any] = {}
    known = ("iterations", "time", "c", "rollout", "max_children", "epsilon")
    for part in parts:
        key, sep, text = part.partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not key or not text:
            raise ValueError(f"search option {part!r}: expected key=value (e.g. search:iterations=800)")
        if key not in known:
            raise ValueError(f"unknown search option {key!r}; known: {', '.join(known)}")
        if key in values:
            raise ValueError(f"search option {key!r} given twice")
        if key == "iterations":
            values[key] = _positive_int(key, text)
        elif key == "time":
            values[key] = _float(key, text, 0.0, strict=True)
        elif key == "c":
            values[key] = _float(key, text, 0.0, strict=False)
        elif key == "epsilon":
            values[key] = _float(key, text, 0.0, strict=False)
            if values[key] > 1:
                raise ValueError(f"search option epsilon={text!r}: expected a number in [0, 1]")
        elif key == "max_children":
            try:
                values[key] = int(text)
            except ValueError:
                raise ValueError(f"search option max_children={text!r}: expected an integer >= 0") from None
            if values[key] < 0:
                raise ValueError(f"search option max_children={text!r}: expected an integer >= 0")
        else:
            if text not in ROLLOUT_KINDS:
                raise ValueError(
                    f"search option rollout={text!r}: expected one of {', '.join(ROLLOUT_KINDS)}"
                )
            values[key] = text
    return SearchOptions(**values)


class _Node:
    """A decision of the searching seat: statistics of the move that led here and children."""

    __slots__ = ("children", "visits", "total", "avail")

    def __init__(self) -> None:
        self.children: dict[Any, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 1


class SearchAgent:
    """IS-MCTS player of one seat of an env (see the module docstring).

    Args:
        env: the env it plays (raw or wrapped); the agent reads the rules state from it.
        options: search settings (:class:`SearchOptions`) or an agent name such as
            ``"search:iterations=800"``.
        seed: seed of the agent's randomness (determinizations, rollouts, tie-breaks).

    Raises:
        ValueError: for a game without a search adapter or bad options.
    """

    needs_observation = False
    """The agent reads the env's state (through its seat's information set), not the vector."""

    def __init__(self, env: Any, options: SearchOptions | str = "search", seed: int | None = None):
        self.env = env.unwrapped
        game = self.env.info.name
        game_spec = registry.spec(game)
        if game_spec.search is None:
            raise ValueError(f"no search agent for game {game!r}")
        self.options = parse_search_options(options) if isinstance(options, str) else options
        self.game = game
        self.adapter: GameAdapter = game_spec.load("search")(self.env.encoding, self.options.epsilon)
        self.iterations, self.seconds = self.options.budget(game)
        self.rng = make_rng(seed)
        self._plan: list[int] = []
        self._plan_state: Any = None
        self.last_iterations = 0
        """Simulations run for the latest decision (for benchmarks)."""

    def reset(self, seed: int | None = None) -> None:
        """Forget any planned sub-steps; re-seed when ``seed`` is given."""
        self._plan = []
        self._plan_state = None
        if seed is not None:
            self.rng = make_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the next action of the move chosen by search in the env's current position.

        Raises:
            ValueError: if the mask allows nothing, or the env is not at a decision of a seat.
        """
        legal = legal_actions(action_mask)
        state = self.env.game_state()
        if self._plan and self._plan_state is state and action_mask[self._plan[0]]:
            return self._plan.pop(0)
        move = self.choose_move(state)
        actions = move_actions(self.env.encoding, state, move)
        if not action_mask[actions[0]]:  # cannot happen for a legal move; never play illegally
            return int(legal[0])
        self._plan, self._plan_state = actions[1:], state
        return actions[0]

    # -- search -----------------------------------------------------------------------------
    def choose_move(self, state: Any) -> Any:
        """Return the rules move the search picks for the seat to move in ``state``.

        Only what that seat may know is used: the state is first reduced to a canonical member
        of its information set (:meth:`GameAdapter.canonical`).

        Raises:
            ValueError: for a state that is not a position of the env's game and variant with
                a seat to move (the game's ``rules.validate_state`` names the field).

        The cyclic garbage collector is paused while the search runs: a simulation's objects
        (immutable states, the tree) form no reference cycles and are freed as they go, and
        a full collection in the middle of a decision would add tens of milliseconds to it.
        """
        self.adapter.rules.validate_state(state, self.env.config)
        paused = gc.isenabled()
        gc.disable()
        try:
            return self._search(state)
        finally:
            if paused:
                gc.enable()

    def _search(self, state: Any) -> Any:
        """:meth:`choose_move` with the collector paused."""
        adapter = self.adapter
        rules = adapter.rules
        me = rules.current_player(state)
        if me < 0:
            raise ValueError("the search agent was asked to move when no seat is to move")
        root_state = adapter.canonical(state, me)
        root_moves = adapter.moves(root_state, self.options.max_children)
        self.last_iterations = 0
        if len(root_moves) == 1:
            return root_moves[0]
        # The root's moves are the same in every determinization (the seat's own choice): its
        # children are a list aligned with them, tried in order, then picked by UCB1.
        children: list[_Node] = []
        rng = self.rng
        c = self.options.c
        iterations, seconds = self.iterations, self.seconds
        deadline = time.perf_counter() + seconds if seconds is not None else math.inf
        done = 0
        while (iterations is None or done < iterations) and (done == 0 or time.perf_counter() < deadline):
            if len(children) < len(root_moves):
                index = len(children)
                children.append(_Node())
            else:
                log_n = math.log(done)
                index, best_value = 0, -math.inf
                for i, child in enumerate(children):
                    value = child.total / child.visits + c * math.sqrt(log_n / child.visits)
                    if value > best_value:
                        index, best_value = i, value
            self._iterate(children[index], root_moves[index], root_state, me, rng)
            done += 1
        self.last_iterations = done
        best, best_key = root_moves[0], (-1, -math.inf)
        for move, child in zip(root_moves, children):
            key = (child.visits, child.total / child.visits)
            if key > best_key:
                best, best_key = move, key
        return best

    def _iterate(self, first: _Node, move: Any, root_state: Any, me: int, rng: np.random.Generator) -> None:
        """One simulation through the root's child ``first`` (for ``move``): determinize, play
        ``move``, select/expand along the seat's later moves, roll out, back up."""
        adapter = self.adapter
        rules = adapter.rules
        current_player = rules.current_player
        apply = adapter.apply
        policy = adapter.random_move if self.options.rollout == "random" else adapter.policy
        c = self.options.c
        max_children = self.options.max_children
        state = apply(rules.resample_hidden(root_state, me, rng), move)
        node = first
        path = [first]
        in_tree = first.visits > 0  # a new child of the root is the expansion of this simulation
        steps = 1
        while True:
            player = current_player(state)
            if player < 0 or adapter.stop(state, me) or steps >= adapter.max_rollout:
                break
            if player == me and in_tree:
                moves = adapter.moves(state, max_children)
                children = node.children
                chosen = None
                for candidate in moves:
                    child = children.get(candidate)
                    if child is None:
                        if chosen is None:
                            chosen = candidate
                    else:
                        child.avail += 1
                if chosen is not None:
                    child = _Node()
                    children[chosen] = child
                    in_tree = False  # expanded: the rest is the rollout
                else:
                    best_value = -math.inf
                    for candidate in moves:
                        child = children[candidate]
                        visits = child.visits
                        value = child.total / visits + c * math.sqrt(math.log(child.avail) / visits)
                        if value > best_value:
                            best_value, chosen = value, candidate
                    child = children[chosen]
                path.append(child)
                node = child
                state = apply(state, chosen)
            else:
                state = apply(state, policy(state, rng))
            steps += 1
        value = adapter.value(root_state, state, me, rng)
        for visited in path:
            visited.visits += 1
            visited.total += value


def is_search_kind(kind: str) -> bool:
    """True if an agent name asks for the search agent (``search`` or ``search:...``)."""
    return kind == SEARCH_KIND or kind.startswith(SEARCH_KIND + ":")


__all__ = [
    "SEARCH_KIND",
    "SearchAgent",
    "SearchOptions",
    "is_search_kind",
    "parse_search_options",
]
