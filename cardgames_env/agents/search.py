"""Information-set Monte Carlo tree search (IS-MCTS): one agent for every game, knowing none.

The agent plays one seat. At each of its decisions it reads the rules ``State`` from the env
(``env.unwrapped.game_state()``) and the game's :class:`~cardgames_env.core.search.SearchHooks`
from its spec, first replaces the state by the canonical member of its seat's information set
(``hooks.infoset``: the hidden cards of the real deal can never reach the search), and then
runs single-observer, open-loop IS-MCTS:

* every iteration draws a determinization of the seat's information set (``hooks.resample``);
* the tree holds only the searching seat's decisions, keyed by its own moves since the root;
  a node's children are the moves legal in the current determinization, chosen by UCB1 with
  availability counts (a child's exploration term uses how often it was legal, not the
  parent's visits), untried moves first in the game's preference order (``hooks.moves``,
  default the rules' ``legal_moves``);
* the other seats move by the game's light policy (``hooks.rollout``) inside the tree and in
  the rollouts; chance outcomes are dealt with the rules' ``sample_deal`` and ``apply_deal``;
* a simulation ends at the end of the game, or earlier where the game's ``hooks.horizon``
  says so (the end of a round whose next deal is chance), and is scored from the searching
  seat's point of view (``hooks.value``, default the rules' ``returns``);
* the move played is the most visited child of the root.

Only three hooks are required; the optional ones and why they exist are described in
:mod:`cardgames_env.core.search`.

Moves are rules moves; for encodings that build one move over several actions (sub-steps,
such as choosing a move's cards one at a time) the agent plays the
chosen move's actions one by one on its following calls.

Options go in the agent name: ``search``, ``search:iterations=800``, ``search:time=0.2``,
``search:iterations=400:c=0.5:rollout=random`` (see :func:`parse_search_options`).
"""

from __future__ import annotations

import gc
import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numba import njit

from cardgames_env import registry
from cardgames_env.core.game import CHANCE
from cardgames_env.core.masks import legal_actions, move_actions
from cardgames_env.core.rng import make_rng
from cardgames_env.core.search import PRIORS, SearchHooks

SEARCH_KIND = "search"
"""Agent-kind name of the search agent (with ``:key=value`` options)."""

ROLLOUT_KINDS = ("policy", "heuristic", "light", "random")
"""Playout policies: the game's default, its compiled heuristic, its light policy, uniform."""

ENGINES = ("compiled", "python")
"""Where simulations run: ``compiled`` (playouts in the game's batched engine, the default)
or ``python`` (every simulation on the rules engine)."""

DEFAULT_TIME = 0.1
"""Seconds per decision of the compiled search when neither ``iterations`` nor ``time`` is set."""

SHARED_SIMULATIONS = 4
"""Simulations of one batch that share a determinization (the compiled search)."""

FIRST_TIMED_BATCH = 32
"""Simulations of the first batch of a timed decision (it measures the cost of one)."""

TIMED_SHARE = 0.6
"""Share of the time left that a timed decision's next batch is sized to fill (the cost of a
simulation varies: the margin keeps decisions within the cap)."""

MIN_ROUNDS = 4
"""A decision of a fixed number of simulations runs them in at least this many batches (of at
least :data:`MIN_TIMED_BATCH`), so that later batches' picks see earlier batches' results."""

CAP_RESERVE = 0.03
"""Share of a timed decision's cap kept for the work around its batches (reading the state,
choosing the move), which the batches' sizing does not see."""

MIN_TIMED_BATCH = 8
"""A timed decision stops when fewer simulations than this fit in the time left."""

CHOICES = {"rollout": ROLLOUT_KINDS, "engine": ENGINES, "prior": PRIORS}
"""The options that take one of a few words, and their words."""

VIRTUAL_LOSS = 1.0
"""Loss a simulation counts on its path while its playout is pending (batched selection)."""


@dataclass(frozen=True)
class SearchOptions:
    """Settings of a search agent.

    Attributes:
        iterations: simulations per decision (``None``: the game's default, its spec's
            ``search_iterations``, unless ``time``).
        time: seconds per decision (``None``: no time budget). With both set the search stops
            at whichever comes first; a time budget makes moves depend on the machine's speed.
        c: UCB1 exploration constant (values are in about ``[-1, 1]``).
        rollout: ``"policy"`` (default: the game's light policy with the Python engine; with
            the compiled one the game's default playouts, its hooks' ``playouts``),
            ``"heuristic"`` (compiled engine: the game's compiled heuristic), ``"light"`` (the
            light policy; compiled engine: its compiled form, where the hooks have one) or
            ``"random"`` (uniform legal moves for every seat in rollouts and for the other
            seats in the tree).
        max_children: most moves searched at a decision of the searching seat (the game's
            preferred ones; ``0``: the game's default, its hooks' ``max_children``).
        epsilon: chance that a move of the light policy is replaced by a uniformly random
            legal move (``0``: the game's policy alone; in the tree only with the compiled
            engine, whose playouts use a compiled policy: the game's heuristic or its
            compiled light policy).
        engine: ``"compiled"`` (playouts stepped together in the game's batched engine) or
            ``"python"`` (every simulation on the rules engine).
        batch: simulations selected before their playouts run together (compiled engine).
        prior: ``"none"`` (UCB1 over the root's moves) or ``"pretrained"``: PUCT at the root,
            the moves' priors from the env's shipped policy (compiled engine); ``None``: the
            game's default, its hooks' ``prior`` (``"pretrained"`` only where a shipped policy
            plays the env's variant).
        c_puct: PUCT's exploration constant (with ``prior``).
        depth: how many of the searching seat's later decisions the compiled search's tree
            follows below the root's moves (``0``: the root's moves alone, flat; ``None``:
            the game's default, its hooks' ``depth``).
    """

    iterations: int | None = None
    time: float | None = None
    c: float = 0.7
    rollout: str = "policy"
    max_children: int = 0
    epsilon: float = 0.0
    engine: str = "compiled"
    batch: int = 256
    prior: str | None = None
    c_puct: float = 1.5
    depth: int | None = None

    def compiled(self, game: str) -> bool:
        """Whether simulations of ``game`` run in its batched engine: ``engine=compiled`` and
        a game with one (other games are searched on the rules engine)."""
        return self.engine == "compiled" and registry.spec(game).kernel is not None

    def budget(self, game: str) -> tuple[int | None, float | None]:
        """Return ``(iterations, seconds)`` for a game; ``None`` = no limit of that kind.

        Without either: the compiled engine searches for :data:`DEFAULT_TIME` seconds, the
        Python engine the game's ``search_iterations`` simulations."""
        if self.iterations is None and self.time is None:
            if self.compiled(game):
                return None, DEFAULT_TIME
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


def _choice(key: str, text: str, choices: tuple[str, ...]) -> str:
    """Return ``text`` if it is one of ``choices``; else a ``ValueError`` naming the option."""
    if text not in choices:
        raise ValueError(f"search option {key}={text!r}: expected one of {', '.join(choices)}")
    return text


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
    ``epsilon`` (0..1), ``engine`` (``compiled`` or ``python``), ``batch`` (positive int),
    ``prior`` (``none`` or ``pretrained``), ``c_puct`` (>= 0), ``depth`` (non-negative int).

    Raises:
        ValueError: naming the bad part for an unknown key, a malformed or repeated option,
            or a bad value.
    """
    head, *parts = kind.split(":")
    if head != SEARCH_KIND:
        raise ValueError(f"not a search agent name: {kind!r}")
    values: dict[str, Any] = {}
    known = (
        "iterations", "time", "c", "rollout", "max_children", "epsilon", "engine", "batch", "prior", "c_puct",
        "depth",
    )
    for part in parts:
        key, sep, text = part.partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not key or not text:
            raise ValueError(f"search option {part!r}: expected key=value (e.g. search:iterations=800)")
        if key not in known:
            raise ValueError(f"unknown search option {key!r}; known: {', '.join(known)}")
        if key in values:
            raise ValueError(f"search option {key!r} given twice")
        if key in ("iterations", "batch"):
            values[key] = _positive_int(key, text)
        elif key in CHOICES:
            values[key] = _choice(key, text, CHOICES[key])
        elif key in ("c", "c_puct"):
            values[key] = _float(key, text, 0.0, strict=False)
        elif key == "time":
            values[key] = _float(key, text, 0.0, strict=True)
        elif key == "epsilon":
            values[key] = _float(key, text, 0.0, strict=False)
            if values[key] > 1:
                raise ValueError(f"search option epsilon={text!r}: expected a number in [0, 1]")
        elif key in ("max_children", "depth"):
            try:
                values[key] = int(text)
            except ValueError:
                raise ValueError(f"search option {key}={text!r}: expected an integer >= 0") from None
            if values[key] < 0:
                raise ValueError(f"search option {key}={text!r}: expected an integer >= 0")
        else:
            raise AssertionError(f"search option {key!r} has no parser")  # every known key has one
    return SearchOptions(**values)


MAX_SIMULATION_MOVES = 2000
"""Most moves one simulation plays before it is scored as it stands."""


class _Node:
    """A decision of the searching seat: statistics of the move that led here and children."""

    __slots__ = ("children", "visits", "total", "avail")

    def __init__(self) -> None:
        self.children: dict[Any, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 1


def _select_batch(children: list[_Node], done: int, size: int, c: float) -> list[int]:
    """Pick the root moves of ``size`` simulations (``done`` ran before): untried moves in
    order, then UCB1 over the children, each pick counted at once as a visit with a virtual
    loss. Within a batch the exploration term's ``log n`` is that of the batch's end, so a
    pick changes only its own child's score (a heap of scores; ties: the first move)."""
    chosen: list[int] = []
    untried = min(max(len(children) - done, 0), size)
    chosen.extend(range(done, done + untried))
    for index in chosen:
        children[index].visits += 1
        children[index].total -= VIRTUAL_LOSS
    rest = size - untried
    if rest <= 0:
        return chosen
    log_n = math.log(done + size)

    def score(child: _Node) -> float:
        return child.total / child.visits + c * math.sqrt(log_n / child.visits)

    heap = [(-score(child), i) for i, child in enumerate(children)]
    heapq.heapify(heap)
    for _ in range(rest):
        _, index = heapq.heappop(heap)
        child = children[index]
        child.visits += 1
        child.total -= VIRTUAL_LOSS
        chosen.append(index)
        heapq.heappush(heap, (-score(child), index))
    return chosen


WIDENING = 2.0
"""A tree node below the root has at most ``WIDENING * sqrt(visits)`` children (at least
one): progressive widening, so that wide decisions (hundreds of legal actions) still get
their best-looking moves searched repeatedly."""


class _TreeWalk:
    """The compiled search's tree below the root's moves, walked by one batch of simulations
    (a :class:`~cardgames_env.agents.playouts.TreePolicy`).

    The tree is open-loop and single-observer, as the Python search's: a node is a sequence of
    the searching seat's actions since the root (the other seats' moves and the deals are not
    part of it), its children are keyed by the engine's actions. At a decision of the seat a
    slot in the tree takes, among the children legal in its determinization, the best by UCB1
    with availability counts; or it adds a child (the playout policy's action first, else a
    random untried legal one) while the node has fewer than :data:`WIDENING` ``* sqrt(visits)``
    children, or none legal. A new child, or the ``depth``-th level, ends the slot's walk.
    """

    def __init__(self, starts: list[_Node], depth: int, c: float, rng: np.random.Generator):
        self.nodes = list(starts)
        self.paths: list[list[_Node]] = [[] for _ in starts]
        self.depth = depth
        self.c = c
        self.rng = rng

    def select(self, slot: int, legal: np.ndarray, suggested: int) -> tuple[int, bool]:
        """Pick the action of ``slot``'s decision (see the class docstring)."""
        node = self.nodes[slot]
        children = node.children
        actions = legal.tolist()
        existing = []
        for action in actions:
            child = children.get(action)
            if child is not None:
                child.avail += 1
                existing.append(action)
        if not existing or len(children) < max(1.0, WIDENING * math.sqrt(node.visits)):
            if suggested in children:
                untried = [action for action in actions if action not in children]
                if untried:
                    suggested = untried[int(self.rng.integers(len(untried)))]
            if suggested not in children:
                return self._enter(slot, suggested, _Node(), new=True)
        chosen, best_value = existing[0], -math.inf
        c = self.c
        for action in existing:
            child = children[action]
            value = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
            if value > best_value:
                chosen, best_value = action, value
        return self._enter(slot, chosen, children[chosen], new=False)

    def _enter(self, slot: int, action: int, child: _Node, new: bool) -> tuple[int, bool]:
        """Count a pending visit of ``child`` (with a virtual loss) on ``slot``'s path."""
        if new:
            self.nodes[slot].children[action] = child
        child.visits += 1
        child.total -= VIRTUAL_LOSS
        path = self.paths[slot]
        path.append(child)
        self.nodes[slot] = child
        return action, not new and len(path) < self.depth

    def backup(self, values: np.ndarray) -> None:
        """Add each slot's value to the nodes of its path (their virtual losses undone)."""
        for path, value in zip(self.paths, values.tolist()):
            for node in path:
                node.total += VIRTUAL_LOSS + value


def _select_batch_puct(children: list[_Node], priors: list[float], size: int, c_puct: float) -> list[int]:
    """Pick the root moves of ``size`` simulations by PUCT: the child maximizing
    ``Q + c_puct * P * sqrt(N) / (1 + n)`` (``Q`` its mean value, 0 unvisited; ``P`` its prior;
    ``n`` its visits; ``N`` the root's visits, at least 1), each pick counted at once as a
    visit with a virtual loss (ties: the first move)."""
    visits = np.array([child.visits for child in children], dtype=np.int64)
    totals = np.array([child.total for child in children], dtype=np.float64)
    chosen = _puct_picks(visits, totals, np.asarray(priors, dtype=np.float64), size, c_puct, VIRTUAL_LOSS)
    for child, count, total in zip(children, visits.tolist(), totals.tolist()):
        child.visits, child.total = count, total
    return chosen.tolist()


@njit(cache=True)
def _puct_picks(
    visits: np.ndarray, totals: np.ndarray, priors: np.ndarray, size: int, c_puct: float, loss: float
) -> np.ndarray:
    """:func:`_select_batch_puct`'s picks on the children's arrays, updated in place."""
    chosen = np.empty(size, dtype=np.int64)
    total_visits = visits.sum()
    for k in range(size):
        root_term = c_puct * math.sqrt(max(total_visits, 1))
        index, best_value = 0, -math.inf
        for i in range(visits.shape[0]):
            mean = totals[i] / visits[i] if visits[i] else 0.0
            value = mean + root_term * priors[i] / (1 + visits[i])
            if value > best_value:
                index, best_value = i, value
        visits[index] += 1
        totals[index] -= loss
        total_visits += 1
        chosen[k] = index
    return chosen


def _timed_batch(last_size: int, last_time: float, seconds: float) -> int:
    """Simulations of a batch that should take ``seconds``, given that ``last_size`` took
    ``last_time``. A batch's steps are as many as its longest playout's, and each step has a
    fixed cost: a smaller batch costs more per simulation. Its cost is taken as linear in the
    size above ``last_size`` and as the square root of it below, which errs on the long side."""
    if seconds <= 0:
        return 0
    if last_time <= 0:
        return last_size
    ratio = seconds / last_time
    return int(last_size * (ratio if ratio >= 1 else ratio * ratio))


def load_hooks(game: str) -> SearchHooks:
    """Return the search hooks of a registered game.

    Raises:
        ValueError: for a game without search hooks, a spec whose ``search`` is not a
            :class:`SearchHooks`, or hooks that lack a required hook (naming it).
    """
    game_spec = registry.spec(game)
    if game_spec.search is None:
        raise ValueError(f"no search agent for game {game!r}: its spec names no search hooks")
    hooks = game_spec.load("search")
    if not isinstance(hooks, SearchHooks):
        raise ValueError(f"{game}: the spec's search {game_spec.search!r} is not a SearchHooks object")
    missing = hooks.missing()
    if missing:
        raise ValueError(f"{game}: the search hooks lack the required {', '.join(missing)}")
    return hooks


class SearchAgent:
    """IS-MCTS player of one seat of an env (see the module docstring).

    Args:
        env: the env it plays (raw or wrapped); the agent reads the rules state from it.
        options: search settings (:class:`SearchOptions`) or an agent name such as
            ``"search:iterations=800"``.
        seed: seed of the agent's randomness (determinizations, rollouts, tie-breaks).
        prior_policy: an object whose ``logits(observations)`` gives the root's priors in
            place of the env's shipped policy (a network being trained); it implies PUCT
            (``prior=pretrained``) for the compiled search.

    Raises:
        ValueError: for a game without complete search hooks or bad options.
    """

    needs_observation = False
    """The agent reads the env's state (through its seat's information set), not the vector."""

    def __init__(
        self, env: Any, options: SearchOptions | str = "search", seed: int | None = None,
        prior_policy: Any = None,
    ):
        self.env = env.unwrapped
        game = self.env.info.name
        self.options = parse_search_options(options) if isinstance(options, str) else options
        self.game = game
        self.hooks = load_hooks(game)
        self.rules = self.env.rules
        # The required hooks (load_hooks has checked that they are there).
        self.infoset = cast(Callable[[Any, int], Any], self.hooks.infoset)
        self.resample = cast(Callable[[Any, int, np.random.Generator], Any], self.hooks.resample)
        self.rollout = cast(Callable[[Any, np.random.Generator], Any], self.hooks.rollout)
        self.max_children = self.options.max_children or self.hooks.max_children
        self.depth = self.hooks.depth if self.options.depth is None else self.options.depth
        """Levels of the compiled search's tree below the root's moves (0: flat)."""
        self.iterations, self.seconds = self.options.budget(game)
        self.compiled = self.options.compiled(game)
        """Whether the simulations run in the game's batched engine."""
        if self.compiled:
            self._playout_policy()  # a light policy the game lacks is an error now
        elif self.options.rollout == "heuristic":
            raise ValueError(f"search option rollout=heuristic: the compiled heuristic plays only in the "
                             f"compiled engine, and {game} is searched on its rules engine")
        self.rng = make_rng(seed)
        self._plan: list[int] = []
        self._plan_state: Any = None
        self._playouts: Any = None
        self._prior_policy: Any = prior_policy
        self.prior = "pretrained" if prior_policy is not None else self._options_prior()
        """The compiled search's root priors: ``"none"`` (UCB1) or ``"pretrained"`` (PUCT)."""
        self._started = 0.0
        self.last_iterations = 0
        """Simulations run for the latest decision (for benchmarks)."""
        self.last_root: list[tuple[Any, int]] = []
        """The latest decision's root moves and their visit counts (empty where a single move
        was searched): the search's move distribution, for training a policy on it."""

    def _options_prior(self) -> str:
        """The options' root priors, else the game's default (its hooks' ``prior``), which
        takes the shipped policy only where one plays the env's variant (its own encoding and
        options): a default never makes an agent fail to build."""
        if self.options.prior is not None:
            return self.options.prior
        if self.hooks.prior == "none" or not self.compiled:
            return "none"
        try:
            self._prior_policy = self._shipped_policy()
        except ValueError:  # no policy shipped for this env's variant and encoding
            return "none"
        return self.hooks.prior

    def _shipped_policy(self) -> Any:
        """The env's shipped policy, where it plays the env's own variant and encoding.

        Raises:
            ValueError: when the env has no shipped policy, or its policy was trained with
                other options or plays another encoding than the env's.
        """
        from .pretrained import PretrainedAgent

        agent = PretrainedAgent(self.env)
        if agent.env is not None:  # it plays another encoding (through the rules state)
            raise ValueError("search prior=pretrained needs a shipped policy of the env's own encoding")
        return agent.policy

    def reset(self, seed: int | None = None) -> None:
        """Forget any planned sub-steps; re-seed when ``seed`` is given."""
        self._plan = []
        self._plan_state = None
        if seed is not None:
            self.rng = make_rng(seed)
            self._playouts = None  # its streams come from the agent's

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

        Only what that seat may know is used: the state is first replaced by the canonical
        member of its information set (the hooks' ``infoset``).

        Raises:
            ValueError: for a state that is not a position of the env's game and variant with
                a seat to move (the game's ``rules.validate_state`` names the field).

        The cyclic garbage collector is paused while the search runs: a simulation's objects
        (immutable states, the tree) form no reference cycles and are freed as they go, and
        a full collection in the middle of a decision would add tens of milliseconds to it.
        """
        self._started = time.thread_time()
        self.rules.validate_state(state, self.env.config)
        paused = gc.isenabled()
        gc.disable()
        try:
            return self._search(state)
        finally:
            if paused:
                gc.enable()

    def searched_moves(self, state: Any) -> list[Any]:
        """The searching seat's moves in ``state``: the game's preferred ones, at most
        ``max_children`` of them (all legal moves without a ``moves`` hook)."""
        order = self.hooks.moves
        moves = list(order(state) if order is not None else self.rules.legal_moves(state))
        limit = self.max_children
        return moves[:limit] if limit and len(moves) > limit else moves

    def _random_move(self, state: Any, rng: np.random.Generator) -> Any:
        """A uniformly random legal move."""
        moves = self.rules.legal_moves(state)
        return moves[int(rng.integers(len(moves)))]

    def light_policy(self) -> Any:
        """The light policy of the options: the game's rollout, uniform, or a mix of both."""
        if self.options.rollout == "random":
            return self._random_move
        rollout = self.rollout
        epsilon = self.options.epsilon
        if not epsilon:
            return rollout
        random_move = self._random_move

        def mixed(state: Any, rng: np.random.Generator) -> Any:
            return random_move(state, rng) if rng.random() < epsilon else rollout(state, rng)

        return mixed

    def _search(self, state: Any) -> Any:
        """:meth:`choose_move` with the collector paused."""
        me = self.rules.current_player(state)
        if me < 0:
            raise ValueError("the search agent was asked to move when no seat is to move")
        root_state = self.infoset(state, me)
        root_moves = self.searched_moves(root_state)
        self.last_iterations = 0
        self.last_root = []
        if len(root_moves) == 1:
            return root_moves[0]
        if self.compiled:
            return self._search_compiled(root_state, root_moves, me)
        # The root's moves are the same in every determinization (the seat's own choice): its
        # children are a list aligned with them, tried in order, then picked by UCB1.
        children: list[_Node] = []
        rng = self.rng
        c = self.options.c
        policy = self.light_policy()
        iterations, seconds = self.iterations, self.seconds
        deadline = time.thread_time() + seconds if seconds is not None else math.inf
        done = 0
        while (iterations is None or done < iterations) and (done == 0 or time.thread_time() < deadline):
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
            self._iterate(children[index], root_moves[index], root_state, me, policy, rng)
            done += 1
        self.last_iterations = done
        self.last_root = [(move, child.visits) for move, child in zip(root_moves, children)]
        best, best_key = root_moves[0], (-1, -math.inf)
        for move, child in zip(root_moves, children):
            key = (child.visits, child.total / child.visits)
            if key > best_key:
                best, best_key = move, key
        return best

    @staticmethod
    def _most_visited(root_moves: list[Any], children: list[_Node]) -> Any:
        """The root's most visited move (ties: the higher mean value, then the first)."""
        best, best_key = root_moves[0], (-1, -math.inf)
        for move, child in zip(root_moves, children):
            if not child.visits:
                continue
            key = (child.visits, child.total / child.visits)
            if key > best_key:
                best, best_key = move, key
        return best

    def _playout_policy(self) -> str:
        """The compiled playouts' policy: ``rollout`` (``policy``: the hooks' default), random
        for a game without a compiled heuristic.

        Raises:
            ValueError: for ``rollout=light`` in a game without a compiled light policy.
        """
        rollout = self.options.rollout
        if rollout == "policy":
            rollout = self.hooks.playouts
        if rollout == "light" and self.hooks.light_policy is None:
            raise ValueError(f"search option rollout=light: {self.game} has no compiled light policy")
        if rollout == "heuristic" and registry.spec(self.game).heuristic is None:
            return "random"
        return rollout

    def playouts(self) -> Any:
        """The batched engine that plays the compiled search's simulations out (built on
        first use: :class:`~cardgames_env.agents.playouts.BatchedPlayouts`), with the compiled
        PUCT picks loaded, so that no decision pays for compiling them."""
        if self._playouts is None:
            from .playouts import BatchedPlayouts

            policy = self._playout_policy()
            seed = int(self.rng.integers(2**62))
            self._playouts = BatchedPlayouts(self.env, self.hooks, self.options.batch, policy, seed=seed)
            if self.prior == "pretrained":
                _puct_picks(np.ones(1, np.int64), np.zeros(1), np.ones(1), 1, 1.0, VIRTUAL_LOSS)
        return self._playouts

    def root_priors(self, root_state: Any, me: int, prefixes: list[list[int]]) -> list[float]:
        """The root moves' priors from the env's shipped policy: a softmax of its logits over
        the legal first actions of the moves, a first action's share split evenly among the
        moves that start with it.

        Raises:
            ValueError: when the env has no shipped policy, or its policy plays another
                encoding than the env's.
        """
        if self._prior_policy is None:
            self._prior_policy = self._shipped_policy()
        encoding = self.env.encoding
        decision = encoding.to_decision(root_state)
        observation = np.asarray(encoding.observe(decision, me), dtype=np.float32)
        logits = np.asarray(self._prior_policy.logits(observation[None, :])[0], dtype=np.float64)
        firsts = [prefix[0] for prefix in prefixes]
        legal = sorted(set(firsts))
        weights = np.exp(logits[legal] - logits[legal].max())
        share = dict(zip(legal, weights / weights.sum()))
        counts = {action: firsts.count(action) for action in legal}
        return [float(share[action] / counts[action]) for action in firsts]

    def _search_compiled(self, root_state: Any, root_moves: list[Any], me: int) -> Any:
        """Determinized UCB over the root's moves with batched playouts: ``batch`` simulations
        pick their root move by UCB1 (a pending simulation counts as a loss for its move,
        the virtual loss, so the batch spreads over the moves), each on a determinization
        of the seat's information set (one determinization serves :data:`SHARED_SIMULATIONS`
        simulations of a batch; drawn by the engine from the canonical state where it can
        re-deal hidden cards itself); the batched engine loads them, plays the chosen moves
        and then the playouts, all slots together, and the values are backed up."""
        playouts = self.playouts()
        encoding = self.env.encoding
        prefixes = [move_actions(encoding, root_state, move) for move in root_moves]
        children = [_Node() for _ in root_moves]
        priors = self.root_priors(root_state, me, prefixes) if self.prior != "none" else None
        rng = self.rng
        c = self.options.c
        iterations, seconds = self.iterations, self.seconds
        # From choose_move's start, less the reserve for the work after the batches.
        deadline = self._started + seconds * (1 - CAP_RESERVE) if seconds is not None else math.inf
        done = 0
        last_size, last_time = 0, 0.0
        per_batch = max(MIN_TIMED_BATCH, -(-iterations // MIN_ROUNDS)) if iterations is not None else 0
        while iterations is None or done < iterations:
            now = time.thread_time()
            size = playouts.slots if iterations is None else min(playouts.slots, iterations - done, per_batch)
            if seconds is not None:  # batches sized to end by the deadline
                if not done:
                    size = min(size, FIRST_TIMED_BATCH)
                else:
                    fits = _timed_batch(last_size, last_time, TIMED_SHARE * (deadline - now))
                    if fits < MIN_TIMED_BATCH:
                        break
                    size = min(size, fits)
            if priors is None:
                chosen = _select_batch(children, done, size, c)
            else:
                chosen = _select_batch_puct(children, priors, size, self.options.c_puct)
            walk = None
            if self.depth:  # the slots start their walks at their root moves' nodes
                walk = _TreeWalk([children[index] for index in chosen], self.depth, c, rng)
            moves = [prefixes[index] for index in chosen]
            if playouts.redeals:  # the engine draws the determinizations from the root
                values = playouts.play_redealt(
                    root_state, size, SHARED_SIMULATIONS, root_state, me, moves, walk
                )
            else:
                states: list[Any] = []
                for k in range(size):
                    if k % SHARED_SIMULATIONS == 0:
                        determinization = self.resample(root_state, me, rng)
                    states.append(determinization)
                values = playouts.play(states, root_state, me, moves, walk)
            if walk is not None:
                walk.backup(values)
            for index, value in zip(chosen, values):
                children[index].total += VIRTUAL_LOSS + float(value)
            done += size
            last_size, last_time = size, time.thread_time() - now
        self.last_iterations = done
        self.last_root = [(move, child.visits) for move, child in zip(root_moves, children)]
        return self._most_visited(root_moves, children)

    def _iterate(
        self, first: _Node, move: Any, root_state: Any, me: int, policy: Any, rng: np.random.Generator
    ) -> None:
        """One simulation through the root's child ``first`` (for ``move``): determinize, play
        ``move``, select/expand along the seat's later moves, roll out, back up."""
        hooks = self.hooks
        rules = self.rules
        current_player = rules.current_player
        apply = hooks.apply or rules.apply_move
        horizon = hooks.horizon
        searched_moves = self.searched_moves
        c = self.options.c
        state = apply(self.resample(root_state, me, rng), move)
        node = first
        path = [first]
        in_tree = first.visits > 0  # a new child of the root is the expansion of this simulation
        steps = 1
        while True:
            if horizon is not None and horizon(state, me):
                break
            player = current_player(state)
            if player == CHANCE:
                state = rules.apply_deal(state, rules.sample_deal(state, rng))
                continue
            if player < 0 or steps >= MAX_SIMULATION_MOVES:
                break
            if player == me and in_tree:
                moves = searched_moves(state)
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
        value = hooks.value(root_state, state, me) if hooks.value is not None else rules.returns(state)[me]
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
    "load_hooks",
    "parse_search_options",
]
