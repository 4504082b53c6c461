"""``VectorEnv``: the batched-engine driver written once; each game supplies its kernels.

A game's batched engine subclasses :class:`VectorEnv` in ``vector/<game>.py``. The base class
validates options (the AEC env's ``Config``, so the same ``ValueError``s), owns the output
buffers, the per-slot random streams and step counters, and checks every action before any
slot changes; the subclass implements five hooks:

* ``_setup()``: allocate the slot state arrays and name the one-thread and threaded step
  kernels with ``self._use_kernels(serial, threaded)`` (called once from ``__init__``);
  ``_step`` then runs ``self.chooser.run(*args)``, which picks the faster by timing;
* ``_reset_all()``: deal a fresh game into every slot from its random stream and write the
  outputs (``obs``, ``mask``, ``player``) of every slot;
* ``_step(actions)``: apply each slot's (already checked) action, write ``rewards`` and
  ``done`` (and ``truncated``), replace finished games by fresh deals, and write the outputs
  of every slot that moved; a slot whose action is :data:`STAY` (-1) does not move: its
  rewards become 0, its ``done``/``truncated`` False, and its outputs stay as they are;
* ``_load(i, state)``: put a rules ``State`` into slot ``i`` and write its outputs;
* ``_get_state(i)``: return slot ``i`` as a rules ``State``.

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

Deals are sampled inside the engine from one random stream per slot (:mod:`._rng`), so a
slot's games do not depend on how slots are scheduled across threads.
"""

from __future__ import annotations

import importlib
import time
from collections import deque
from collections.abc import Callable
from typing import Any, ClassVar

import numba
import numpy as np
from gymnasium import spaces

from cardgames_env.core.aec import CardGameEnv, resolve_max_steps
from cardgames_env.core.game import GameInfo, config_from_kwargs
from cardgames_env.registry import ALL_ENVS, NAMESPACE

VECTOR_ENVS: dict[str, str] = {
    "gongzhu_v0": "cardgames_env.vector.gongzhu:GongZhuVectorEnv",
    "jaipur_v0": "cardgames_env.vector.jaipur:JaipurVectorEnv",
    "red7_v0": "cardgames_env.vector.red7:Red7VectorEnv",
    "haggis_v0": "cardgames_env.vector.haggis:HaggisVectorEnv",
    "haggle_v0": "cardgames_env.vector.haggle:HaggleVectorEnv",
}
"""Env name -> ``module:class`` of its batched engine (imported on first use)."""


STAY = -1
"""Action of a slot that sits out a ``step(actions, active)`` call (passed to ``_step``)."""


def available() -> list[str]:
    """Names of the envs whose batched engine is installed (its module imports)."""
    names = []
    for name, target in VECTOR_ENVS.items():
        try:
            importlib.import_module(target.split(":")[0])
        except ModuleNotFoundError:
            continue
        names.append(name)
    return names


def make(name: str, num_envs: int, seed: int | None = 0, **options: Any) -> VectorEnv:
    """Return the batched engine of env ``name`` with ``num_envs`` slots, reset with ``seed``.

    Args:
        name: ``"gongzhu_v0"``, ``"cardgames/gongzhu_v0"`` or the game id ``"gongzhu"``.
        num_envs: number of slots (games stepped together), at least 1.
        seed: seed of the slots' random streams (``None``: fresh entropy).
        **options: the AEC env's options (its ``Config`` fields) and ``max_steps``.

    Raises:
        ValueError: naming the argument, for an unknown env name, a bad ``num_envs`` or
            ``seed``, or a bad option (the AEC env's messages).
    """
    if not isinstance(name, str):
        raise ValueError(f"name must be an env name such as 'gongzhu_v0', got {name!r}")
    key = name.removeprefix(f"{NAMESPACE}/")
    if key not in VECTOR_ENVS and f"{key}_v0" in VECTOR_ENVS:
        key = f"{key}_v0"
    if key not in VECTOR_ENVS:
        raise ValueError(f"unknown env {name!r}; batched engines exist for: {', '.join(VECTOR_ENVS)}")
    module_name, class_name = VECTOR_ENVS[key].split(":")
    cls: type[VectorEnv] = getattr(importlib.import_module(module_name), class_name)
    return cls(num_envs, seed=seed, **options)


PARALLEL_MIN_ENVS = 64
"""Engines with fewer slots always step on the calling thread (threads cost more than they
give on small batches); larger ones let a :class:`KernelChooser` pick by timing."""


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


def _slot_seeds(seed: int | None, num_envs: int) -> np.ndarray:
    """Independent 64-bit starting states of the slots' random streams."""
    return np.random.SeedSequence(seed).generate_state(num_envs, dtype=np.uint64)


class VectorEnv:
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

    def __init__(self, num_envs: int, seed: int | None = 0, max_steps: int | None = None, **options: Any):
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
        self.obs = np.zeros((n, self.observation_size), dtype=np.float32)
        self.mask = np.zeros((n, self.action_size), dtype=np.bool_)
        self.player = np.zeros(n, dtype=np.int64)
        self.rewards = np.zeros((n, self.num_players), dtype=np.float32)
        self.done = np.zeros(n, dtype=np.bool_)
        self.truncated = np.zeros(n, dtype=np.bool_)
        self.steps = np.zeros(n, dtype=np.int64)
        self.rng_state = _slot_seeds(seed, n)
        self._setup()
        self._has_reset = False
        self.reset(seed)

    # -- threads ------------------------------------------------------------------------------
    def _use_kernels(self, serial: Callable[..., None], threaded: Callable[..., None]) -> None:
        """Set the game's one-thread and threaded step kernels (called from ``_setup``); run
        the chosen one with ``self.chooser.run(*args)``."""
        enabled = self.num_envs >= PARALLEL_MIN_ENVS and numba.get_num_threads() > 1
        self.chooser = KernelChooser(serial, threaded, enabled)
        """Picks the one-thread or the threaded step kernel (same results, speed only)."""

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

    def _step(self, actions: np.ndarray) -> None:
        """Apply checked ``actions``; write rewards, done, truncated and every slot's outputs."""
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
        self._step(self.check_actions(actions, active))
        return self.obs, self.mask, self.player, self.rewards, self.done

    def check_actions(self, actions: Any, active: Any = None) -> np.ndarray:
        """Return ``actions`` as a new int64 ``[N]`` array after checking each is legal in its
        slot (:data:`STAY` for the slots that ``active`` leaves out).

        Raises:
            ValueError: naming the problem, or the first offending slot and action.
        """
        n = self.num_envs
        if active is None:
            moving = np.ones(n, dtype=np.bool_)
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
        checked = np.where(moving, array, STAY).astype(np.int64)
        out_of_range = moving & ((checked < 0) | (checked >= self.action_size))
        if out_of_range.any():
            i = int(np.flatnonzero(out_of_range)[0])
            raise ValueError(f"slot {i}: action {int(array[i])} is out of range 0..{self.action_size - 1}")
        legal = self.mask[np.arange(n), np.where(moving, checked, 0)] | ~moving
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            raise ValueError(
                f"slot {i}: action {int(array[i])} is not legal for "
                f"{self.possible_agents[int(self.player[i])]}; legal: "
                f"{np.flatnonzero(self.mask[i]).tolist()}"
            )
        return checked

    def load(self, i: int, state: Any) -> None:
        """Put the rules ``State`` ``state`` into slot ``i`` (e.g. ``env.unwrapped.game_state()``).

        The slot's turn-limit counter restarts at 0; its later deals come from its own stream.

        The state is checked by the game's ``rules.validate_state`` before the slot changes.

        Raises:
            ValueError: for a bad slot index, a state that is not this game's and variant's, one
                that is not a position of the game (the message names the field), one with no
                player to move, or one the slot's arrays cannot hold; nothing changes then.
        """
        slot = self._slot(i)
        rules = self.rules
        if not isinstance(state, rules.State):
            raise ValueError(f"load needs a {rules.__name__}.State, got {type(state).__name__}")
        rules.validate_state(state, self.config)
        if rules.current_player(state) < 0:
            raise ValueError("load needs a state with a player to move (not finished, no deal pending)")
        self._load(slot, state)
        self.steps[slot] = 0

    def state(self, i: int) -> Any:
        """Return slot ``i`` as a rules ``State`` (at the start of its current move)."""
        return self._get_state(self._slot(i))

    def _slot(self, i: Any) -> int:
        """Check a slot index."""
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise ValueError(f"slot must be an integer in 0..{self.num_envs - 1}, got {i!r}")
        return int(i)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name}, num_envs={self.num_envs}, config={self.config})"


assert set(VECTOR_ENVS) <= set(ALL_ENVS)
