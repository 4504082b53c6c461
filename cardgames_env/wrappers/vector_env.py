"""``CardGamesVectorEnv``: one learner seat in each of ``num_envs`` batched games, as a
``gymnasium.vector.VectorEnv``.

The batched engine of :mod:`cardgames_env.vector` plays ``num_envs`` games at once. This
env hands out only the learner's decisions: after the learner's actions, each opponent is
asked once for all the slots where one of its seats is to move (:mod:`cardgames_env.agents.batch`),
and the engine steps just those slots, until the learner is to move in every slot again.

It keeps the semantics of :class:`cardgames_env.wrappers.single_agent.SingleAgentEnv`:

* the learner's seat is fixed or drawn uniformly per game, and each other seat's opponent is
  fixed, one per seat, or drawn from an :class:`OpponentPool` per game;
* the reward of a step is the learner's reward summed over its own move and every opponent
  move up to its next decision (rewards paid on opponents' turns reach it); rewards paid in a
  new game before the learner's first decision count towards that first step;
* the learner's episode ends with its game: ``terminated`` when the rules end it,
  ``truncated`` when the turn limit (``max_steps`` decisions) cuts it. A learner that is
  eliminated waits, its payouts counted, until the others finish the game (the same step).

Gymnasium >= 1.0 semantics:

* ``single_observation_space`` is the AEC env's ``Dict(observation=Box(float32),
  action_mask=Box(0, 1, int8))`` and ``observation_space`` its batch: masked-PPO code finds
  the learner's legal actions in ``obs["action_mask"]``, in ``infos["action_mask"]`` and
  through :meth:`CardGamesVectorEnv.action_masks` (what sb3-contrib's MaskablePPO calls);
  ``single_action_space`` is ``Discrete(A)``, ``action_space`` ``MultiDiscrete``.
* ``metadata["autoreset_mode"]``: ``SAME_STEP`` by default, as the engine restarts a
  finished game in place: the step that ends an episode returns the next game's first
  observation, the final one in ``infos["final_obs"]`` (an object array, ``None`` where no
  episode ended) and ``infos["final_info"]``. ``NEXT_STEP`` (RLlib's env runners) returns the
  final observation itself and the next game's first one on the following step, whose
  action for that slot is ignored (reward 0). ``DISABLED`` (what TorchRL prefers) returns the
  final observation and waits: ``reset(options={"reset_mask": mask})`` starts the next game
  in the masked slots (the one the engine has dealt; a slot still playing gets a new deal),
  and stepping a slot that waits is refused.
* ``reset(seed=s)`` re-seeds everything (the engine's deals, the seat and opponent draws and
  the opponents' own randomness): the same seed and actions give the same run.
* Bad input (actions of the wrong shape or type, an illegal action in any slot, an unknown
  opponent, a bad ``num_envs``...) raises ``ValueError`` naming the problem, and nothing
  changes.

Every step's ``infos`` hold ``action_mask`` and ``learner_seat`` (each with gymnasium's
``_key`` mask); a step that ends episodes adds ``episode`` (``r``: return, ``l``: learner
decisions), ``final_obs`` (``SAME_STEP``, unless built with ``final_obs=False``) and
``final_info`` (``learner_seat``, and the learner's game ``points`` with final observations).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from cardgames_env import vector
from cardgames_env.agents.batch import as_batch_policy
from cardgames_env.agents.pool import OpponentPool
from cardgames_env.core.aec import CardGameEnv
from cardgames_env.core.engine import BatchedEngine
from cardgames_env.core.rng import check_seed
from cardgames_env.core.spec import GameSpec
from cardgames_env.wrappers.single_agent import check_learner_seat

AUTORESET_MODES = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED)
"""The autoreset modes :class:`CardGamesVectorEnv` offers."""


class CardGamesVectorEnv(gymnasium.vector.VectorEnv):
    """The learner's decisions in ``num_envs`` batched games; opponents act in batch inside.

    Args:
        env: a registered env name (``"<game>_v0"``; ``"cardgames/<game>_v0"`` too), the
            game's spec, or a batched engine to drive (built with ``deal=False``, or reset
            before use: ``reset`` deals again).
        num_envs: games stepped together (default 8; an engine given has its own).
        probe: an AEC env of the same game and variant, for the spaces and the opponents
            (default: one built from the engine's env class).
        opponents: who plays every other seat: an agent spec (``"random"``, ``"heuristic"``,
            ``"pretrained"``, ``"search[:options]"``, a model path... anything the CLI
            takes), a batch policy (``act_batch``), an :class:`Agent`, a function
            ``f(observations, masks) -> actions``, a sequence of those with one per other
            seat (in seat order, skipping the learner's), or an :class:`OpponentPool` of specs
            drawn per seat and game.
        learner_seat: the learner's seat in every game, or ``None`` to draw it per game.
        seed: seed of the engine's deals, the seat and opponent draws and the opponents
            (``reset(seed=...)`` re-seeds all of them).
        autoreset_mode: ``SAME_STEP`` (default), ``NEXT_STEP`` or ``DISABLED`` (an
            :class:`AutoresetMode` or its value).
        final_obs: whether ``SAME_STEP`` steps hand out the final observation of the episodes
            they end (``infos["final_obs"]``; it costs an encoding of each finished game).
        copy: return new arrays from ``reset``/``step`` (``False``: views of buffers that the
            next call overwrites).
        info_mask: put the observations' masks in ``infos["action_mask"]`` too (the same
            array); RLlib's runners, which turn every info into one dict per game, go faster
            without.
        **options: the game's variant options and ``max_steps`` (as ``<env>.env(**options)``);
            with an engine given, the options its probe is built with.

    Raises:
        ValueError: for an unknown env, bad options, a bad ``num_envs``, seat, opponent, seed
            or autoreset mode.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        env: str | GameSpec | BatchedEngine,
        num_envs: int | None = None,
        *,
        probe: CardGameEnv | None = None,
        opponents: Any = "random",
        learner_seat: int | None = None,
        seed: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        final_obs: bool = True,
        copy: bool = True,
        info_mask: bool = True,
        **options: Any,
    ):
        seed = check_seed(seed)
        self.engine = _engine(env, num_envs, seed, options)
        """The batched engine (:class:`cardgames_env.vector.BatchedEngine`): ``state(i)``, rewards..."""
        self.probe = probe if probe is not None else self.engine.env_cls(**options)
        """An AEC env of the same game and variant (what agents and encodings are built for)."""
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        players = self.engine.num_players
        self.fixed_seat = check_learner_seat(learner_seat, players)
        self.final_obs_wanted = bool(final_obs) or self.autoreset_mode != AutoresetMode.SAME_STEP
        self.copy = bool(copy)
        self.info_mask = bool(info_mask)
        self.num_envs = self.engine.num_envs
        self.render_mode = None
        single = self.probe.observation_space(self.probe.possible_agents[0])
        self.single_observation_space = single
        self.single_action_space = self.probe.action_space(self.probe.possible_agents[0])
        self.observation_space = batch_space(single, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

        self._rng = np.random.default_rng(seed)
        self.pool: OpponentPool | None = None
        self._seatings = np.full((self.engine.num_players, self.engine.num_players), -1, dtype=np.int64)
        """Fixed opponents: row ``s`` is :attr:`opponent`'s row of a game with the learner in seat ``s``."""
        self._entries: list[Any] = []
        """Every opponent the env has built: a spec string or the object given."""
        self._policies: list[Any] = []
        """The batched player of each entry (same index)."""
        self._set_opponents(opponents)

        n = self.num_envs
        self.seat = np.zeros(n, dtype=np.int64)
        """The learner's seat in each slot's current game."""
        self.opponent = np.zeros((n, players), dtype=np.int64)
        """Index into the opponents built of the player in each seat of each slot (learner: -1)."""
        self._episode_return = np.zeros(n, dtype=np.float64)
        self._episode_length = np.zeros(n, dtype=np.int64)
        self._pending = np.zeros(n, dtype=np.float64)
        self._autoreset = np.zeros(n, dtype=np.bool_)
        """Slots whose episode ended on the last step (``NEXT_STEP``/``DISABLED``): they show
        the final observation, the engine holds their next game."""
        self._final_obs = np.zeros((n, self.engine.observation_size), dtype=np.float32)
        self._rows = np.arange(n)
        self._has_reset = False
        self.env_steps = 0
        """Decisions the engine has played (learner and opponents), for throughput figures."""

    # -- opponents ------------------------------------------------------------------------------
    def _set_opponents(self, opponents: Any) -> None:
        """Check and build the opponents (a bad spec fails now, not mid-game)."""
        others = self.engine.num_players - 1
        if isinstance(opponents, OpponentPool):
            self.pool = opponents
            for spec in opponents.base:
                self._entry_index(spec)
        else:
            if isinstance(opponents, Sequence) and not isinstance(opponents, str):
                if len(opponents) != others:
                    raise ValueError(
                        f"{self.engine.name} has {others} opponent seats; got {len(opponents)} opponents"
                    )
                entries = [self._entry_index(entry) for entry in opponents]
            else:
                entries = [self._entry_index(opponents)] * others
            for learner in range(others + 1):  # the other seats in seat order get the entries in order
                self._seatings[learner] = [*entries[:learner], -1, *entries[learner:]]

    def _known_index(self, entry: Any) -> int | None:
        """Index of ``entry`` among the opponents built (a spec by value, an object by
        identity), or ``None``."""
        for index, known in enumerate(self._entries):
            if known is entry or (isinstance(entry, str) and known == entry):
                return index
        return None

    def _entry_index(self, entry: Any) -> int:
        """Index of the batched player of ``entry`` (built once; a spec draws its seed)."""
        index = self._known_index(entry)
        if index is not None:
            return index
        seed = int(self._rng.integers(2**31)) if isinstance(entry, str) else None
        self._policies.append(as_batch_policy(entry, self.probe, seed=seed))
        self._entries.append(entry)
        return len(self._entries) - 1

    @property
    def opponents(self) -> tuple[Any, ...]:
        """Every opponent built so far (spec strings, or the objects given), in build order."""
        return tuple(self._entries)

    def policy(self, opponent: Any) -> Any:
        """Return the batched player built for ``opponent`` (a spec or the object given).

        Raises:
            ValueError: for an opponent the env has not built.
        """
        index = self._known_index(opponent)
        if index is not None:
            return self._policies[index]
        raise ValueError(f"no opponent {opponent!r}; built: {list(self._entries)}")

    def add_opponent(self, spec: str) -> None:
        """Add a snapshot (model path) to the opponent pool; later games may draw it.

        Raises:
            ValueError: when the env plays fixed opponents (no pool).
        """
        if self.pool is None:
            raise ValueError("this env plays fixed opponents: build it with an OpponentPool")
        self.pool.add_snapshot(str(spec))

    def opponent_probabilities(self) -> dict[str, float]:
        """Return the pool's sampling probabilities (a single entry for fixed opponents)."""
        return {"fixed": 1.0} if self.pool is None else self.pool.probabilities()

    def _new_games(self, slots: np.ndarray) -> None:
        """Draw the learner's seat and the opponents of the games starting in ``slots``."""
        players = self.engine.num_players
        keys = self._seat_keys(np.asarray(slots, dtype=np.int64)[:, None], np.arange(players)).ravel()
        for policy in self._policies:  # opponents that remember a game forget it
            end_games = getattr(policy, "end_games", None)
            if end_games is not None:
                end_games(keys)
        if self.pool is None:  # fixed opponents: the seats alone are drawn (as many draws at once)
            if self.fixed_seat is None:
                seats = self._rng.integers(players, size=len(slots))
            else:
                seats = np.full(len(slots), self.fixed_seat)
            self.seat[slots] = seats
            self.opponent[slots] = self._seatings[seats]
        else:
            draw = self.pool.sampler()
            for i in slots:
                seat = self.fixed_seat if self.fixed_seat is not None else int(self._rng.integers(players))
                self.seat[i] = seat
                for s in range(players):
                    self.opponent[i, s] = -1 if s == seat else self._entry_index(draw(self._rng))
        self._episode_return[slots] = 0.0
        self._episode_length[slots] = 0

    def _seat_keys(self, slots: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The key of each game seat (``slot``, ``seat``), as batched opponents see it."""
        return slots * self.engine.num_players + seats

    # -- gymnasium API --------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal new games in every slot and play the opponents up to the learner's turns.

        Args:
            seed: re-seeds the deals, the seat and opponent draws and the opponents (``None``:
                they go on from where they are).
            options: ``None``, or under ``DISABLED`` ``{"reset_mask": bool [num_envs]}``: only
                the masked slots start a new episode (no seed then).

        Raises:
            ValueError: for a seed that is not a non-negative int, or other ``options``.
        """
        seed = check_seed(seed)
        if options:
            return self._reset_slots(seed, options)
        self.engine.reset(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for entry, policy in zip(self._entries, self._policies):
                if isinstance(entry, str):  # re-seeded as if built now
                    policy.reset(seed=int(self._rng.integers(2**31)))
        self._new_games(self._rows)
        self._pending[:] = 0.0
        self._autoreset[:] = False
        self._has_reset = True
        self._play_to_first_decisions()
        observations = self._observations()
        return observations, self._infos({}, observations)

    def _reset_slots(
        self, seed: int | None, options: dict[str, Any]
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """``reset(options={"reset_mask": mask})`` under ``DISABLED``: the masked slots start an
        episode (a slot whose episode ended: the game the engine has dealt; a slot still
        playing: a new deal of the AEC env's, seeded from this env's generator).

        Raises:
            ValueError: for other options or modes, a bad mask, or a seed with it.
        """
        if set(options) != {"reset_mask"} or self.autoreset_mode != AutoresetMode.DISABLED:
            raise ValueError(f"reset takes options={{'reset_mask': ...}} under DISABLED autoreset only, got "
                             f"{options!r} (variants are constructor arguments)")
        mask = np.asarray(options["reset_mask"])
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise ValueError(f"reset_mask must be a bool array of shape ({self.num_envs},), got {mask!r}")
        if seed is not None:
            raise ValueError("a seed re-seeds every slot: reset without reset_mask to use it")
        if not self._has_reset:
            raise RuntimeError("call reset() before resetting some slots")
        playing = np.flatnonzero(mask & ~self._autoreset)
        for i in playing:
            self.probe.reset(seed=int(self._rng.integers(2**63)))
            self.engine.load(int(i), self.probe.game_state())
            self._pending[i] = 0.0
        if playing.size:
            self._new_games(playing)
            self._play_to_first_decisions()
        self._autoreset &= ~mask
        observations = self._observations()
        return observations, self._infos({}, observations)

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play the learner's action in every slot, then the opponents until it is to move again.

        Args:
            actions: one action per slot (integers ``[num_envs]``); under ``NEXT_STEP`` the
                slots whose episode ended on the previous step start the next one instead and
                their actions are not read.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)``: rewards float64.

        Raises:
            ValueError: for actions of the wrong shape or type, an illegal action in a slot
                (naming it), or under ``DISABLED`` a slot waiting for its reset; nothing
                changes then.
            RuntimeError: before the first ``reset``.
        """
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        n = self.num_envs
        if self.autoreset_mode == AutoresetMode.DISABLED and self._autoreset.any():
            slot = int(np.flatnonzero(self._autoreset)[0])
            raise ValueError(f"slot {slot}: its episode has ended; reset it first "
                             "(reset(options={'reset_mask': mask}))")
        moving = ~self._autoreset
        if moving.any():
            self.engine.step(actions, active=moving)  # checks the actions before any slot moves
        else:
            self.engine.check_actions(actions, moving)
        reward = np.where(moving, self._pending, 0.0)
        self._episode_return[moving] += self._pending[moving]
        self._pending[moving] = 0.0
        ended = np.zeros(n, dtype=np.bool_)
        truncated = np.zeros(n, dtype=np.bool_)
        finals: dict[str, Any] = {}
        self._autoreset[:] = False
        if moving.any():
            self.env_steps += int(moving.sum())
            self._episode_length[moving] += 1
            self._collect(moving, reward, ended, truncated, finals)
            self._play_opponents(reward, ended, truncated, finals)
        self._autoreset[:] = ended if self.autoreset_mode != AutoresetMode.SAME_STEP else False
        observations = self._observations()
        return observations, reward, ended & ~truncated, truncated, self._infos(finals, observations)

    def _collect(
        self, moved: np.ndarray, reward: np.ndarray, ended: np.ndarray, truncated: np.ndarray,
        finals: dict[str, Any],
    ) -> None:
        """Book the learner's rewards of the slots that ``moved`` and finish ended games."""
        engine = self.engine
        earned = engine.rewards[self._rows, self.seat].astype(np.float64)
        # Rewards of a game that started during this step belong to the learner's next step.
        current = moved & ~ended
        reward[current] += earned[current]
        self._episode_return[current] += earned[current]
        self._pending[moved & ended] += earned[moved & ended]
        finished = np.flatnonzero(engine.done & moved)
        if not finished.size:
            return
        fresh = finished[~ended[finished]]  # a game that started and ended without a learner decision:
        self._pending[finished[ended[finished]]] = 0.0  # it is no episode of the learner's
        if fresh.size:
            ended[fresh] = True
            truncated[fresh] = engine.truncated[fresh]
            self._finish(fresh, finals)
        self._new_games(finished)

    def _finish(self, slots: np.ndarray, finals: dict[str, Any]) -> None:
        """Record the episodes ending in ``slots``: return, length, final observation, points."""
        n = self.num_envs
        episode = finals.setdefault("episode", {"r": np.zeros(n), "l": np.zeros(n, dtype=np.int64)})
        episode["r"][slots] = self._episode_return[slots]
        episode["l"][slots] = self._episode_length[slots]
        finals.setdefault("learner_seat", np.full(n, -1, dtype=np.int64))[slots] = self.seat[slots]
        if not self.final_obs_wanted:
            return
        points = finals.setdefault("points", np.zeros(n, dtype=np.int64))
        seats = self.seat[slots]
        self._final_obs[slots] = self.engine.final_observations(slots, seats)
        points[slots] = self.engine.final_points(slots)[np.arange(len(slots)), seats]

    def _play_to_first_decisions(self) -> None:
        """Play the opponents up to the learner's turns after new deals: every reward paid
        before the learner's first decision of a game belongs to its first step (pending)."""
        n = self.num_envs
        self._play_opponents(np.zeros(n), np.ones(n, dtype=np.bool_), np.zeros(n, dtype=np.bool_), {})

    def _play_opponents(
        self, reward: np.ndarray, ended: np.ndarray, truncated: np.ndarray, finals: dict[str, Any]
    ) -> None:
        """Let the opponents move, in batch, until the learner is to move in every slot."""
        engine = self.engine
        rows = self._rows
        # Engines that keep each slot's legal actions as a list (a wide flat action table)
        # hand those to the policies that read them instead of copying the wide mask rows.
        legal_index: np.ndarray | None = getattr(engine, "legal_index", None)
        legal_count: np.ndarray | None = getattr(engine, "legal_count", None)
        while True:
            waiting = engine.player != self.seat
            if not waiting.any():
                return
            who = self.opponent[rows, engine.player]
            keys = self._seat_keys(rows, engine.player)
            actions = np.zeros(self.num_envs, dtype=np.int64)
            for index in np.unique(who[waiting]):
                chosen = waiting & (who == index)
                policy = self._policies[index]
                every = chosen.all()  # every slot at once (one opponent, two players): no copies
                observations = engine.obs if every else engine.obs[chosen]
                act_legal = getattr(policy, "act_legal", None)
                if act_legal is not None and legal_index is not None and legal_count is not None:
                    if every:
                        actions[chosen] = act_legal(observations, legal_index, legal_count, keys[chosen])
                    else:
                        actions[chosen] = act_legal(
                            observations, legal_index[chosen], legal_count[chosen], keys[chosen]
                        )
                    continue
                masks = engine.mask if every else engine.mask[chosen]
                if getattr(policy, "needs_states", False):
                    states = [engine.state(int(i)) for i in np.flatnonzero(chosen)]
                    actions[chosen] = policy.act_states(states, masks, keys[chosen])
                else:
                    actions[chosen] = policy.act_batch(observations, masks, keys[chosen])
            engine.step(actions, active=waiting)
            self.env_steps += int(waiting.sum())
            self._collect(waiting, reward, ended, truncated, finals)

    def _observations(self) -> dict[str, np.ndarray]:
        """The learner's observations and masks in every slot (the final ones where an episode
        ended and the next one waits: ``NEXT_STEP``/``DISABLED``)."""
        observation, mask = self.engine.obs, self.engine.mask.view(np.int8)
        waiting = self._autoreset
        if self.copy or waiting.any():
            observation, mask = observation.copy(), mask.copy()
        if waiting.any():
            observation[waiting] = self._final_obs[waiting]
            mask[waiting] = 0
        return {"observation": observation, "action_mask": mask}

    def _infos(self, finals: dict[str, Any], observations: dict[str, np.ndarray]) -> dict[str, Any]:
        """The step's infos in gymnasium's vector layout (``key`` and its ``_key`` mask)."""
        everywhere = np.ones(self.num_envs, dtype=np.bool_)
        infos: dict[str, Any] = {"learner_seat": self.seat.copy(), "_learner_seat": everywhere}
        if self.info_mask:
            infos.update(action_mask=observations["action_mask"], _action_mask=everywhere)
        if "episode" not in finals:
            return infos
        done = finals["episode"]["l"] > 0
        infos["episode"], infos["_episode"] = finals["episode"], done
        if self.final_obs_wanted and self.autoreset_mode == AutoresetMode.SAME_STEP:
            final = np.full(self.num_envs, None, dtype=object)
            slots = np.flatnonzero(done)
            # Rows of two new arrays (nothing the env writes again), not one copy per episode.
            observations_block = self._final_obs[slots]
            masks_block = np.zeros((len(slots), self.engine.action_size), dtype=np.int8)
            for k, i in enumerate(slots.tolist()):
                final[i] = {"observation": observations_block[k], "action_mask": masks_block[k]}
            infos["final_obs"], infos["_final_obs"] = final, done
        final_info = {"learner_seat": finals["learner_seat"], "_learner_seat": done}
        if "points" in finals:
            final_info.update(points=finals["points"], _points=done)
        infos["final_info"], infos["_final_info"] = final_info, done
        return infos

    # -- masks, positions and plumbing ----------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every slot (bool ``[num_envs, A]``; sb3-contrib)."""
        return self.engine.mask.copy()

    def load(self, i: int, state: Any) -> dict[str, np.ndarray]:
        """Start slot ``i`` from the rules ``state``, the learner in the seat to move.

        The slot's opponents are drawn as for a new game; rewards count from the position, the
        turn limit's counter restarts at 0.

        Returns:
            The learner's observation of slot ``i`` (``observation`` and ``action_mask``).

        Raises:
            ValueError: as the engine's ``load`` does, or when the learner's seat is fixed and
                another seat is to move; nothing changes then.
        """
        mover = self.probe.rules.current_player(state) if isinstance(state, self.probe.rules.State) else -1
        if self.fixed_seat is not None and mover >= 0 and mover != self.fixed_seat:
            raise ValueError(f"load: seat {mover} is to move, the learner plays seat {self.fixed_seat}")
        self.engine.load(i, state)
        slot = int(i)
        fixed = self.fixed_seat
        self.fixed_seat = int(self.engine.player[slot])
        try:
            self._new_games(np.array([slot]))
        finally:
            self.fixed_seat = fixed
        self._pending[slot] = 0.0
        self._autoreset[slot] = False
        mask = self.engine.mask[slot].view(np.int8)
        return {"observation": self.engine.obs[slot].copy(), "action_mask": mask.copy()}

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.engine.name}, num_envs={self.num_envs}, "
                f"autoreset_mode={self.autoreset_mode.name})")


def _autoreset_mode(mode: Any) -> AutoresetMode:
    """Return ``mode`` as an :class:`AutoresetMode` this env offers.

    Raises:
        ValueError: for another mode or value.
    """
    try:
        mode = mode if isinstance(mode, AutoresetMode) else AutoresetMode(mode)
    except ValueError:
        mode = None
    if mode not in AUTORESET_MODES:
        offered = ", ".join(f"{m.name} ({m.value!r})" for m in AUTORESET_MODES)
        raise ValueError(f"autoreset_mode must be one of {offered}")
    return mode


def _engine(env: str | GameSpec | BatchedEngine, num_envs: int | None, seed: int | None,
            options: dict[str, Any]) -> BatchedEngine:
    """The engine to drive: ``env`` itself, or one built (without a deal: ``reset`` deals).

    Raises:
        ValueError: for an engine given with a ``num_envs`` other than its own.
    """
    if isinstance(env, BatchedEngine):
        if num_envs is not None and num_envs != env.num_envs:
            raise ValueError(f"num_envs {num_envs} differs from the engine's {env.num_envs}")
        return env
    return vector.make(env, num_envs=8 if num_envs is None else num_envs, seed=seed, deal=False, **options)


def make_vector_env(num_envs: int = 8, **kwargs: Any) -> CardGamesVectorEnv:
    """Gymnasium's ``vector_entry_point``: ``gymnasium.make_vec("cardgames/<env>", num_envs=N,
    **kwargs)`` builds ``CardGamesVectorEnv(env, num_envs=N, **kwargs)`` (the registration
    puts ``env`` in the kwargs)."""
    return CardGamesVectorEnv(num_envs=num_envs, **kwargs)


__all__ = ["AUTORESET_MODES", "CardGamesVectorEnv", "make_vector_env"]
