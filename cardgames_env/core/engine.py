"""``BatchedEngine``: the batched-engine driver written once; each game supplies its kernels.

A game's batched engine subclasses :class:`BatchedEngine` in ``envs/<game>/kernel.py``. The base class
validates options (the AEC env's ``Config``, so the same ``ValueError``s), owns the output
buffers, the per-slot random streams and step counters, and checks every action before any
slot changes; the subclass implements five hooks:

* ``_setup()``: allocate the slot state arrays and name the step kernels with
  ``self._use_kernels(one_thread, threaded, args)`` (called once from ``__init__``);
* ``_reset_all()``: deal a fresh game into every slot from its random stream and write the
  outputs (``obs``, ``mask``, ``player``) of every slot;
* ``_load(i, state)``: put a rules ``State`` into slot ``i`` and write its outputs;
* ``_get_state(i)``: return slot ``i`` as a rules ``State``.

The two step kernels are called as ``kernel(bounds, actions, *args)``: ``bounds`` splits the
slots into chunks (:func:`cardgames_env.core.threads.chunk_bounds`), ``actions`` holds each
slot's (already checked) action. A kernel applies each slot's action, writes ``rewards`` and
``done`` (and ``truncated``), replaces finished games by fresh deals, and writes the outputs
of every slot that moved; a slot whose action is :data:`STAY` (-1) does not move: its rewards
become 0, its ``done``/``truncated`` False, and its outputs stay as they are. The threaded
kernel steps chunk ``c`` on one thread (``prange`` over chunks), the one-thread kernel every
slot in order on the calling thread (its arrays :func:`~cardgames_env.core.threads.borrow`-ed);
both run the same per-slot code, so they play the same games. :class:`KernelChooser` picks
the faster of the two by timing.

A step that ends a slot's game first copies the finished game's state arrays (those that
``_get_state`` reads, named by ``FINAL_ARRAYS``) into their ``final_*`` twins, so
:meth:`BatchedEngine.final_state` can return the position the game ended in.

Contract of the outputs (``docs/vector.md``):

* ``obs[i]`` is byte for byte the AEC env's ``observe(mover)["observation"]`` for the slot's
  state, ``mask[i]`` its action mask (bool) and ``player[i]`` the seat to move (an index into
  ``possible_agents``); there are no dead steps: ``player[i]`` always has a decision;
* ``rewards[i]`` (float32, one per seat) are every seat's rewards of that step, exactly the
  AEC env's rewards for the same step (the per-step change of ``rules.returns``, computed in
  float64 and then rounded to float32, like the AEC env's values);
* ``done[i]`` says the slot's game ended on that step (terminal, or truncated at
  ``max_steps`` decisions: then ``truncated[i]`` too); the slot then holds a fresh deal and
  its row of ``obs``/``mask``/``player`` is the new game's.

Deals are sampled inside the engine from one random stream per slot (:mod:`.kernel_rng`), so a
slot's games do not depend on how slots are scheduled across threads. Every per-slot array
starts on a cache line and chunk edges fall on multiples of 64 slots, so threads never write
to the same cache line (:mod:`.threads`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from numba import njit

from .aec import CardGameEnv, resolve_max_steps
from .deprecation import renamed
from .game import GameInfo, config_from_kwargs, config_kwargs
from .threads import MIN_CHUNK, aligned_zeros, chunk_bounds, kernel_threads

STAY = -1
"""Action of a slot that sits out a ``step(actions, active)`` call (passed to ``_step``)."""


PARALLEL_MIN_ENVS = 2 * MIN_CHUNK
"""Engines with fewer slots always step on the calling thread (they make one chunk: threads
cost more than they give on small batches); larger ones let a :class:`KernelChooser` pick by
timing."""


class KernelChooser:
    """Picks the faster of an engine's one-thread and threaded step kernels by timing them.

    Both kernels give identical results (each slot depends only on itself), so the choice only
    affects speed. Threads pay on an idle machine, but a batch on a machine busier than its
    cores waits at every step for the thread the scheduler left out, and then the calling
    thread alone is faster. The chooser starts on one thread, keeps the last step times of the
    kernel in use and now and then runs :attr:`PROBE` steps on the other one; the kernel with
    the lower median time is kept. A probe that loses doubles the wait before the next one (up
    to :attr:`MAX_INTERVAL` steps), so a losing kernel costs little over a long run. The first
    call of each kernel (which compiles or loads it) is not timed.

    Attributes:
        enabled: whether the chooser times and switches at all (else it keeps ``parallel``).
        parallel: whether the threaded kernel is the one in use.
    """

    PROBE = 3
    """Steps of one probe."""
    MIN_INTERVAL = 32
    MAX_INTERVAL = 8192

    def __init__(self, serial: Callable[..., None], threaded: Callable[..., None], enabled: bool):
        self.serial, self.threaded = serial, threaded
        self.enabled = enabled
        self.parallel = False
        self._warm: set[int] = set()
        self._recent: deque[float] = deque(maxlen=15)
        self._interval = self.MIN_INTERVAL
        self._countdown = self.PROBE
        self._probe: list[float] = []

    def kernel(self) -> Callable[..., None]:
        """The kernel to run for the next step."""
        probing = self.enabled and self._countdown <= 0
        return self.threaded if self.parallel != probing else self.serial

    def run(self, *args: Any) -> None:
        """Run the next step's kernel on ``args`` and account its time."""
        kernel = self.kernel()
        start = time.perf_counter()
        kernel(*args)
        seconds = time.perf_counter() - start
        if id(kernel) not in self._warm:  # compiled or loaded from the cache just now
            self._warm.add(id(kernel))
            return
        self.record(seconds)

    def record(self, seconds: float) -> None:
        """Account the time of the step just run with :meth:`kernel`'s kernel."""
        if not self.enabled:
            return
        if self._countdown > 0:
            self._recent.append(seconds)
            self._countdown -= 1
            return
        self._probe.append(seconds)
        if len(self._probe) < self.PROBE:
            return
        other = sorted(self._probe)[self.PROBE // 2]
        current = sorted(self._recent)[len(self._recent) // 2]
        if other < current:  # the other kernel is faster now: switch to it
            self.parallel = not self.parallel
            self._recent.clear()
            self._recent.extend(self._probe)
            self._interval = self.MIN_INTERVAL
        else:
            self._interval = min(2 * self._interval, self.MAX_INTERVAL)
        self._probe = []
        self._countdown = self._interval


@njit(cache=True)
def _check(actions: np.ndarray, moving: np.ndarray, mask: np.ndarray, out: np.ndarray) -> tuple[int, int]:
    """Copy each moving slot's action into ``out`` (:data:`STAY` for the others); return the
    first slot with an out-of-range action and the first with an illegal one (-1: none).

    One pass on the calling thread: it reads one mask byte per slot (5-25 us for 4096 slots,
    45 us where mask rows are 25 kB apart), less than waking the other threads for it costs.
    """
    size = mask.shape[1]
    out_of_range = -1
    illegal = -1
    for i in range(mask.shape[0]):
        if not moving[i]:
            out[i] = STAY
            continue
        action = np.int64(actions[i])
        out[i] = action
        if action < 0 or action >= size:
            if out_of_range < 0:
                out_of_range = i
        elif illegal < 0 and not mask[i, action]:
            illegal = i
    return out_of_range, illegal


def _check_seed(seed: Any) -> int | None:
    """Return ``seed`` (a non-negative integer or ``None``) as a Python int or ``None``.

    Raises:
        ValueError: naming ``seed``, for anything else (bools, floats, negative numbers).
    """
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    return int(seed)


def _indices(name: str, values: Any, size: int) -> np.ndarray:
    """Return ``values`` as a one-dimensional int64 array of indices below ``size``.

    Raises:
        ValueError: naming ``name``, for another shape or type, or an index out of range.
    """
    array = values if isinstance(values, np.ndarray) else np.asarray(values)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise ValueError(f"{name} must be a one-dimensional integer array, got {array!r}")
    if array.size and (array.min() < 0 or array.max() >= size):
        raise ValueError(f"{name} must lie in 0..{size - 1}, got {array.tolist()}")
    if array.dtype == np.int64 and array.flags.c_contiguous:
        return array
    return np.ascontiguousarray(array, dtype=np.int64)


def _slot_seeds(seed: int | None, num_envs: int) -> np.ndarray:
    """Independent 64-bit starting states of the slots' random streams."""
    return np.random.SeedSequence(seed).generate_state(num_envs, dtype=np.uint64)


class BatchedEngine:
    """``num_envs`` games of one env stepped together (see the module docstring).

    Attributes:
        num_envs: number of slots.
        num_players: seats per game; ``possible_agents`` their names.
        observation_size, action_size: widths of ``obs`` and ``mask``.
        observation_space, action_space: the single-slot gymnasium spaces.
        config: the game's ``Config``; ``info`` its ``GameInfo`` (``max_game_length`` is the
            turn limit, as in the AEC env); ``max_steps`` the turn limit.
        obs, mask, player, rewards, done, truncated: the output buffers, overwritten by every
            ``reset``/``step``/``load`` (copy a row to keep it).
        steps: decisions made in each slot's current game (the turn-limit counter).
    """

    env_cls: ClassVar[type[CardGameEnv]]
    """The game's AEC env class (its ``rules`` and ``encoding_cls`` are the reference)."""
    FINAL_ARRAYS: ClassVar[dict[str, str]] = {"slots": "final_slots"}
    """Each state array ``_get_state`` reads -> the array where the step kernel copies a
    slot's row when its game ends."""

    def __init__(
        self, num_envs: int, seed: int | None = 0, max_steps: int | None = None, *, deal: bool = True,
        **options: Any,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        _check_seed(seed)
        self.rules: Any = self.env_cls.rules
        self.config: Any = config_from_kwargs(self.rules.Config, options)
        self.encoding: Any = self.env_cls.make_encoding(self.config)
        rules_info: GameInfo = self.rules.game_info(self.config)
        self.max_steps = resolve_max_steps(rules_info, max_steps)
        self.info = GameInfo(**{**rules_info.__dict__, "max_game_length": self.max_steps})
        self.name: str = self.env_cls.metadata["name"]
        self.num_envs = int(num_envs)
        self.num_players: int = self.encoding.num_players
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.observation_size: int = self.encoding.observation_size
        self.action_size: int = self.encoding.num_actions
        self.observation_space = spaces.Box(-np.inf, np.inf, (self.observation_size,), np.float32)
        self.action_space: spaces.Discrete = spaces.Discrete(self.action_size)
        n = self.num_envs
        self.obs = aligned_zeros((n, self.observation_size), np.float32)
        self.mask = aligned_zeros((n, self.action_size), np.bool_)
        self.player = aligned_zeros(n, np.int64)
        self.rewards = aligned_zeros((n, self.num_players), np.float32)
        self.done = aligned_zeros(n, np.bool_)
        self.truncated = aligned_zeros(n, np.bool_)
        self.steps = aligned_zeros(n, np.int64)
        self.rng_state = aligned_zeros(n, np.uint64)
        self.rng_state[:] = _slot_seeds(seed, n)
        self._actions = aligned_zeros(n, np.int64)
        self._everyone = np.ones(n, dtype=np.bool_)
        self._bounds: dict[int, np.ndarray] = {}
        self._setup()
        self._has_reset = False
        if deal:  # else the first reset deals (an owner that resets at once deals each slot once)
            self.reset(seed)

    # -- threads ------------------------------------------------------------------------------
    def _use_kernels(
        self, one_thread: Callable[..., None], threaded: Callable[..., None], args: tuple[Any, ...]
    ) -> None:
        """Set the game's step kernels (called from ``_setup``): each is called as
        ``kernel(bounds, actions, *args)`` (see the module docstring)."""
        self.chooser = KernelChooser(one_thread, threaded, self.num_envs >= PARALLEL_MIN_ENVS)
        """Picks the one-thread or the threaded step kernel (same results, speed only)."""
        self._kernel_args = args

    def chunks(self) -> np.ndarray:
        """The slots' split into per-thread chunks for the kernels' thread count now
        (:func:`cardgames_env.core.threads.chunk_bounds`): chunk ``c`` is slots
        ``bounds[c]:bounds[c + 1]``. Work on the slots split the same way reads the rows that
        the same thread has just written."""
        threads = kernel_threads()
        bounds = self._bounds.get(threads)
        if bounds is None:
            bounds = self._bounds[threads] = chunk_bounds(self.num_envs, threads)
        return bounds

    def _step(self, actions: np.ndarray) -> None:
        """Run the chosen step kernel on checked ``actions``."""
        bounds = self.chunks()
        chooser = self.chooser
        if len(bounds) == 2 and chooser.enabled:  # one chunk: nothing to share out
            chooser.serial(bounds, actions, *self._kernel_args)
        else:
            chooser.run(bounds, actions, *self._kernel_args)

    @property
    def parallel(self) -> bool:
        """Whether ``step`` runs the threaded kernel now. Setting it fixes the choice (no more
        timing); by default engines of :data:`PARALLEL_MIN_ENVS` slots or more pick by timing."""
        return self.chooser.parallel

    @parallel.setter
    def parallel(self, value: bool) -> None:
        self.chooser.enabled = False
        self.chooser.parallel = bool(value)

    # -- the game's hooks -------------------------------------------------------------------
    def _setup(self) -> None:
        """Allocate the slot state arrays."""
        raise NotImplementedError

    def _reset_all(self) -> None:
        """Deal a fresh game into every slot and write every slot's outputs."""
        raise NotImplementedError

    def _load(self, i: int, state: Any) -> None:
        """Put rules ``state`` (a player to move) into slot ``i`` and write its outputs."""
        raise NotImplementedError

    def _get_state(self, i: int) -> Any:
        """Return slot ``i`` as a rules ``State`` (at the start of the current move)."""
        raise NotImplementedError

    # -- public API ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal a fresh game into every slot; ``seed`` re-seeds the slots' random streams.

        Returns:
            ``(obs, mask, player)``: float32 ``[N, D]``, bool ``[N, A]``, int64 ``[N]``.

        Raises:
            ValueError: for a seed that is not a non-negative integer or ``None``.
        """
        checked = _check_seed(seed)
        if checked is not None:
            self.rng_state[:] = _slot_seeds(checked, self.num_envs)
        self.steps[:] = 0
        self.rewards[:] = 0.0
        self.done[:] = False
        self.truncated[:] = False
        self._reset_all()
        self._has_reset = True
        return self.obs, self.mask, self.player

    def step(
        self, actions: Any, active: Any = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Apply ``actions[i]`` for the mover of every slot ``i``.

        Args:
            actions: one action per slot (int ``[N]``).
            active: optional bool ``[N]``: only these slots move (the others' actions are not
                read; their rewards are 0, ``done`` False and rows unchanged). Used to let
                different players act in different slots, e.g. a learner and its opponents.

        Returns:
            ``(obs, mask, player, rewards, done)``; rewards float32 ``[N, P]``, done bool ``[N]``.

        Raises:
            ValueError: for ``actions`` or ``active`` of the wrong shape or type, or an
                out-of-range or illegal action in any moving slot (naming the slot and the
                action); no slot changes.
        """
        self._step(self._checked(actions, active))
        return self.obs, self.mask, self.player, self.rewards, self.done

    def check_actions(self, actions: Any, active: Any = None) -> np.ndarray:
        """Return ``actions`` as a new int64 ``[N]`` array after checking each is legal in its
        slot (:data:`STAY` for the slots that ``active`` leaves out).

        Raises:
            ValueError: naming the problem, or the first offending slot and action.
        """
        return self._checked(actions, active).copy()

    def _checked(self, actions: Any, active: Any) -> np.ndarray:
        """:meth:`check_actions` into the engine's own action buffer (overwritten by the next
        check), checked by a compiled pass over the slots."""
        n = self.num_envs
        if active is None:
            moving = self._everyone
        else:
            moving = np.asarray(active)
            if moving.dtype != np.bool_:
                raise ValueError(f"active must be a bool array, got dtype {moving.dtype}")
            if moving.ndim != 1:
                raise ValueError(f"active must be one-dimensional, got shape {moving.shape}")
            if moving.shape != (n,):
                raise ValueError(f"active must hold {n} flags (one per slot), got {moving.shape[0]}")
        array = np.asarray(actions)
        if array.shape != (n,):
            raise ValueError(f"actions must have shape ({n},), got {array.shape}")
        if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"actions must be integers, got dtype {array.dtype}")
        out_of_range, illegal = _check(array, moving, self.mask, self._actions)
        if out_of_range >= 0:
            i = out_of_range
            raise ValueError(f"slot {i}: action {int(array[i])} is out of range 0..{self.action_size - 1}")
        if illegal >= 0:
            i = illegal
            raise ValueError(
                f"slot {i}: action {int(array[i])} is not legal for "
                f"{self.possible_agents[int(self.player[i])]}; legal: "
                f"{np.flatnonzero(self.mask[i]).tolist()}"
            )
        return self._actions

    def load(self, i: int, state: Any, check: bool = True) -> None:
        """Put the rules ``State`` ``state`` into slot ``i`` (e.g. ``env.unwrapped.game_state()``).

        The slot's turn-limit counter restarts at 0; its later deals come from its own stream.

        The state is checked by the game's ``rules.validate_state`` before the slot changes;
        ``check=False`` leaves that out, for states the rules engine itself made from a
        checked position (a search's determinizations).

        Raises:
            ValueError: for a bad slot index, a state that is not this game's and variant's, one
                that is not a position of the game (the message names the field), one with no
                player to move, or one the slot's arrays cannot hold; nothing changes then.
        """
        slot = self._slot(i)
        rules = self.rules
        if not isinstance(state, rules.State):
            raise ValueError(f"load needs a {rules.__name__}.State, got {type(state).__name__}")
        if check:
            rules.validate_state(state, self.config)
        if rules.current_player(state) < 0:
            raise ValueError("load needs a state with a player to move (not finished, no deal pending)")
        self._load(slot, state)
        self.steps[slot] = 0

    def copy_slots(self, sources: Any, targets: Any) -> None:
        """Copy slot ``sources[k]``'s game and outputs into slot ``targets[k]`` (as if the same
        state were loaded there); each target keeps its own random stream and turn counter.

        Raises:
            ValueError: for a slot index out of range.
        """
        sources = np.asarray(sources, dtype=np.int64)
        targets = np.asarray(targets, dtype=np.int64)
        for slots in (sources, targets):
            if slots.size and (slots.min() < 0 or slots.max() >= self.num_envs):
                raise ValueError(f"slot indices must be in 0..{self.num_envs - 1}")
        for array in self._slot_rows():
            array[targets] = array[sources]

    def redeal_hidden(self, slots: Any, seat: int) -> bool:
        """Re-deal, in each of ``slots``, the cards hidden from ``seat`` from the slot's own
        random stream, where the game's engine has such a call; return whether it did
        (``False``: nothing changed).

        Each slot then holds a random state of the information set of ``seat`` that it held
        before, drawn as the rules' ``resample_hidden`` draws one (every card ``seat`` cannot
        see shuffled among the places it cannot see, their numbers kept), and its outputs are
        written. A search gives it the canonical state of its seat's information set, so the
        re-deal reads nothing hidden from the seat. Slots that do not re-deal do not change.

        Raises:
            ValueError: for slot indices out of range or a seat that is not one.
        """
        self._redeal_slots(slots, seat)
        return False

    def _redeal_slots(self, slots: Any, seat: int) -> np.ndarray:
        """``slots`` of :meth:`redeal_hidden` as checked int64 indices, after checking ``seat``.

        Raises:
            ValueError: for a bad slot index or seat.
        """
        is_index = isinstance(seat, (int, np.integer)) and not isinstance(seat, bool)
        if not is_index or not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be a seat index in 0..{self.num_players - 1}, got {seat!r}")
        return _indices("slots", slots, self.num_envs)

    def play_out(self, policy: Any, slots: Any) -> bool:
        """Play the games of ``slots`` to their ends in one compiled call, every seat moved by
        ``policy`` (a compiled batch player of this engine's encoding), where the game's engine
        has such a call for that policy and variant; return whether it did (``False``: nothing
        changed, step the slots instead).

        The games are the ones that stepping the slots with ``policy``'s actions would play
        (the same actions, deals and turn limit), without writing observations or masks:
        afterwards each slot has ``done`` set (and ``truncated`` where the turn limit cut its
        game), its finished game in :meth:`final_state`, its turn counter at the game's
        decisions, and in ``rewards`` the sum of the rewards its steps would have paid. The
        slots hold their finished games and allow no action (their ``mask`` rows are False):
        load them again before stepping them. The other slots do not change.

        Raises:
            ValueError: for slot indices out of range.
        """
        self._play_out_slots(slots)
        return False

    def _fixed_order(self, policy: Any) -> tuple[np.ndarray, int] | None:
        """``policy``'s ``fixed_order`` (see :class:`~cardgames_env.core.masks.BatchPlayer`)
        as a checked int64 order and fallback, or ``None`` when it has none.

        Raises:
            ValueError: for an order or fallback that is not action ids of this engine.
        """
        fixed = getattr(policy, "fixed_order", None)
        if fixed is None:
            return None
        order, fallback = fixed
        order = _indices("fixed_order's order", order, self.action_size)
        if isinstance(fallback, bool) or not isinstance(fallback, (int, np.integer)) or not (
            0 <= fallback < self.action_size
        ):
            raise ValueError(
                f"fixed_order's fallback must be an action in 0..{self.action_size - 1}, got {fallback!r}"
            )
        return order, int(fallback)

    def _play_out_slots(self, slots: Any) -> np.ndarray:
        """``slots`` of :meth:`play_out` as checked int64 indices.

        Raises:
            ValueError: for a bad shape or type, or an index out of range.
        """
        return _indices("slots", slots, self.num_envs)

    def _slot_rows(self) -> list[np.ndarray]:
        """The arrays holding one row per slot (game state, outputs, history), but for the
        random streams and turn counters: those whose first dimension is the slot count here
        and 1 in a one-slot engine of the same game and variant (found once)."""
        rows: list[np.ndarray] | None = getattr(self, "_rows", None)
        if rows is None:
            probe = type(self)(1, seed=0, max_steps=self.max_steps, deal=False, **config_kwargs(self.config))
            rows = [
                array for name, array in vars(self).items()
                if name not in ("rng_state", "steps") and isinstance(array, np.ndarray)
                and isinstance(getattr(probe, name, None), np.ndarray) and array.flags.writeable
                and array.ndim >= 1 and array.shape[0] == self.num_envs and getattr(probe, name).shape[0] == 1
            ]
            self._rows = rows
        return rows

    def state(self, i: int) -> Any:
        """Return slot ``i`` as a rules ``State`` (at the start of its current move)."""
        return self._get_state(self._slot(i))

    def picture(self, i: int, viewer: int | None = None) -> np.ndarray:
        """Return slot ``i``'s position drawn like the AEC env's ``rgb_array`` frame (an
        ``H×W×3`` ``uint8`` array; the ``pictures`` extra) as ``viewer`` sees it (``None``:
        every card). The slot keeps no move history: no last move, and none of the public
        facts a view remembers (a finished trick, the card that set a rule).

        Raises:
            ValueError: for a game without a view, or a viewer that is not a seat.
            ImportError: when Pillow is missing (the message names the extra).
        """
        drawing = self.env_cls.require_drawing()
        view = drawing.game_view(self.env_cls.spec, self.name)
        return drawing.draw_position(self.rules, view, self.state(i), viewer)

    def final_state(self, i: int) -> Any:
        """Return the rules ``State`` slot ``i``'s last finished game ended in: terminal, or
        cut at the turn limit (valid from the step that set ``done[i]`` until the slot's next
        game ends; ``step`` has already dealt the next game into the slot)."""
        slot = self._slot(i)
        live = {name: getattr(self, name)[slot].copy() for name in self.FINAL_ARRAYS}
        try:
            for name, final in self.FINAL_ARRAYS.items():
                getattr(self, name)[slot] = getattr(self, final)[slot]
            return self._get_state(slot)
        finally:
            for name, row in live.items():
                getattr(self, name)[slot] = row

    def final_observations(self, slots: Any, seats: Any, out: np.ndarray | None = None) -> np.ndarray:
        """Each seat's observation of its slot's last finished game (see :meth:`final_state`).

        ``out[k]`` becomes seat ``seats[k]``'s observation of the position slot ``slots[k]``'s
        last game ended in, byte for byte the AEC encoding's
        ``observe(to_decision(final_state(slots[k])), seats[k])``. Games whose kernel has a
        compiled observation writer for finished games write them all in one compiled call;
        the others encode :meth:`final_state` in Python.

        Args:
            slots: slot indices (int ``[K]``).
            seats: one seat per slot index (int ``[K]``).
            out: float32 ``[K, observation_size]`` to write into (``None``: a new array).

        Returns:
            ``out``.

        Raises:
            ValueError: for slots or seats out of range, shapes that do not match, or an
                ``out`` of the wrong shape or dtype; nothing is written then.
        """
        slots, seats = self._slots_and_seats(slots, seats)
        shape = (len(slots), self.observation_size)
        if out is None:
            out = np.empty(shape, dtype=np.float32)
        elif not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != np.float32:
            raise ValueError(f"out must be a float32 array of shape {shape}")
        if len(slots) and not self._write_final_obs(slots, seats, out):
            encoding = self.encoding
            for k in range(len(slots)):
                state = self.final_state(int(slots[k]))
                out[k] = encoding.observe(encoding.to_decision(state), int(seats[k]))
        return out

    def final_points(self, slots: Any) -> np.ndarray:
        """Every seat's game score (``rules.points``) of each slot's last finished game.

        Args:
            slots: slot indices (int ``[K]``).

        Returns:
            ``[K, num_players]``: row ``k`` is ``rules.points(final_state(slots[k]))`` (int64;
            an object array for a game whose points hold ``None``).

        Raises:
            ValueError: for slots out of range.
        """
        slots = _indices("slots", slots, self.num_envs)
        points = self._final_points(slots)
        if points is None:
            rows = [self.rules.points(self.final_state(int(i))) for i in slots]
            whole = all(None not in row for row in rows)
            points = np.array(rows, dtype=np.int64 if whole else object)
        return points.reshape(len(slots), self.num_players)

    def _final_points(self, slots: np.ndarray) -> np.ndarray | None:
        """Game hook: ``rules.points`` of each slot's finished game read from the ``final_*``
        arrays (int64 ``[K, num_players]``), or None (the base: :meth:`final_points` asks the
        rules of :meth:`final_state`)."""
        return None

    def _slots_and_seats(self, slots: Any, seats: Any) -> tuple[np.ndarray, np.ndarray]:
        """Check slot indices and the seats beside them; return both as int64 arrays."""
        slots = _indices("slots", slots, self.num_envs)
        seats = _indices("seats", seats, self.num_players)
        if slots.shape != seats.shape:
            raise ValueError(f"slots and seats must have the same length, got {len(slots)} and {len(seats)}")
        return slots, seats

    def _write_final_obs(self, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> bool:
        """Game hook: write ``seats[k]``'s observation of slot ``slots[k]``'s finished game
        (the ``final_*`` arrays) into ``out[k]`` in compiled code and return True; the base
        returns False (then :meth:`final_observations` encodes :meth:`final_state`)."""
        return False

    def _slot(self, i: Any) -> int:
        """Check a slot index."""
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise ValueError(f"slot must be an integer in 0..{self.num_envs - 1}, got {i!r}")
        return int(i)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name}, num_envs={self.num_envs}, config={self.config})"


__getattr__ = renamed(__name__, {"VectorEnv": "BatchedEngine"}, globals())
