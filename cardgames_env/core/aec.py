"""``CardGameEnv``: the PettingZoo AEC env written once for every game (``docs/architecture.md``).

A game's ``env.py`` subclasses it, sets ``rules``, ``encoding_cls`` and ``metadata``, and
carries the env card docstring; everything else (agents, spaces, masks, rewards, dead steps,
elimination, seeding, rendering, copying) lives here.

Rewards are derived from the rules' ``returns(state)``: the RL return each player has
accrued so far. The reward of a step is the change of that vector, so dense, per-hand and
terminal-only reward models all go through the same code.
"""

from __future__ import annotations

import copy
import dataclasses
import warnings
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .actions import as_action
from .game import CHANCE, TERMINAL, Encoding, GameInfo, IllegalMoveError, RulesModule, config_from_kwargs
from .rng import make_rng
from .spec import GameSpec

RENDER_MODES: list[str] = ["ansi", "human", "rgb_array"]
"""The render modes of every env: text returned (``ansi``), text printed (``human``), a
picture as an ``H×W×3`` ``uint8`` array (``rgb_array``, the ``pictures`` extra)."""
RENDER_FPS = 2
"""Frames per second a recorder of ``rgb_array`` frames should play (one frame a move)."""


class CardGameEnv(AECEnv, EzPickle):
    """PettingZoo AEC env over a rules module and an encoding.

    Args:
        render_mode: ``None``, ``"ansi"`` (``render()`` returns a str), ``"human"`` (prints
            it) or ``"rgb_array"`` (``render()`` returns a picture of the table, an ``H×W×3``
            ``uint8`` array drawn from the game's view; needs the ``pictures`` extra). The
            picture and the text show what :attr:`render_viewer` sees.
        max_steps: turn limit: after this many decisions (env steps) in one episode the game
            is truncated (PettingZoo ``truncations``). ``None`` uses the rules' own bound where
            the rules have one, else :data:`DEFAULT_MAX_STEPS`, so every episode is finite.
        **options: the game's ``Config`` fields (variants); unknown ones raise ``ValueError``.
            Variants are fixed for the env's life: ``reset`` takes no options.

    Attributes:
        state_space: ``Box`` of the perfect-information float32 vector :meth:`state` returns.
    """

    rules: Any
    """The game's rules module (set by each game's env class)."""
    encoding_cls: type[Encoding]
    """The game's Encoding subclass (set by each game's env class)."""
    ENCODING_OPTIONS: ClassVar[tuple[str, ...]] = ()
    """Options that change only the encoding (actions, observation), never the rules: a policy
    trained with other values of these can still play the same game through the rules state
    (see :class:`cardgames_env.agents.pretrained.PretrainedAgent`)."""
    spec: ClassVar[GameSpec | None] = None
    """The game's spec (set by each game's env class); its ``view`` draws ``rgb_array`` frames."""
    drawing: Any = None
    """What draws the ``rgb_array`` frames (set by each game's env class: the package's
    :mod:`cardgames_env.display.picture`, or anything with its ``game_view``, ``zone_rows`` and
    ``draw_position``); ``None``: the env draws no pictures."""
    metadata: ClassVar[dict[str, Any]] = {
        "name": "cardgame_v0",
        "render_modes": RENDER_MODES,
        "render_fps": RENDER_FPS,
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, max_steps: int | None = None, **options: Any):
        EzPickle.__init__(self, render_mode=render_mode, max_steps=max_steps, **options)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self._pictures = render_mode == "rgb_array"
        """Whether the env draws pictures (``rgb_array``)."""
        if self._pictures:
            self._picture_view()
        self._tracking = self._pictures
        """Whether the env keeps the public record of the episode: the view's memory, the last
        move and :attr:`move_log` (pictures and :meth:`track_moves` turn it on)."""
        self.render_mode = render_mode
        self.config = config_from_kwargs(self.rules.Config, options)
        self.encoding: Encoding = self.make_encoding(self.config)
        self.max_steps = resolve_max_steps(self.rules.game_info(self.config), max_steps)
        self.info: GameInfo = dataclasses.replace(
            self.rules.game_info(self.config), max_game_length=self.max_steps
        )
        n = self.encoding.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._agent_index = {a: i for i, a in enumerate(self.possible_agents)}
        action_space: spaces.Space = spaces.Discrete(self.encoding.num_actions)
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=-np.inf, high=np.inf, shape=(self.encoding.observation_size,),
                    dtype=np.float32,
                ),
                "action_mask": spaces.Box(
                    low=0, high=1, shape=(self.encoding.num_actions,), dtype=np.int8
                ),
            }
        )
        # One cached space object per agent: observation_space(a) returns the same object.
        self.action_spaces = {a: copy.deepcopy(action_space) for a in self.possible_agents}
        self.observation_spaces = {
            a: copy.deepcopy(observation_space) for a in self.possible_agents
        }
        self.state_space = spaces.Box(
            low=-np.inf, high=np.inf, shape=(self.encoding.state_size,), dtype=np.float32
        )
        self._no_actions = np.zeros(self.encoding.num_actions, dtype=np.int8)
        self._no_actions.flags.writeable = False
        self._eliminated_fn = getattr(self.rules, "eliminated", None)
        self._rng: np.random.Generator | None = None
        self._decision: Any = None
        self._mask: np.ndarray | None = None
        self.render_viewer: int | None = None
        """Seat whose view ``render`` shows (other seats' hidden cards face down in a picture,
        left out of the text); ``None`` (the default) shows every card."""
        self._memory: dict[str, Any] = {}
        self.move_log: list[tuple[Any, int, str, Any]] = []
        """``(rules state before, seat, notation, rules state after)`` of every whole move of the
        episode, kept once :meth:`track_moves` was called (empty otherwise)."""
        self._last_move: tuple[Any, int, str] | None = None
        """``(rules state before, seat, notation)`` of the last whole move, for the pictures."""
        self._pending_move: tuple[Any, int, str] | None = None
        self._picture_rows = 0

    def _constructor_arguments(self) -> tuple[str, ...]:
        """Names of the constructor arguments (the variants, ``max_steps``, ``render_mode``)."""
        return ("render_mode", "max_steps", *(f.name for f in dataclasses.fields(self.config)))

    @classmethod
    def make_encoding(cls, config: Any) -> Encoding:
        """Return the encoding of ``config`` (``encoding_cls(config)``; a game whose variants
        choose between encodings overrides this). A class method: the batched engines use it
        too."""
        return cls.encoding_cls(config)

    # -- spaces -----------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        """Return the (cached) observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """Return the (cached) action space of ``agent``."""
        return self.action_spaces[agent]

    # -- episode ----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new episode; ``seed`` re-seeds the env's one Generator (else it continues).

        Args:
            seed: a non-negative int (numpy ints too) or ``None``; not a bool or a float.
            options: the env has no reset options; see :func:`check_reset_options`.

        Raises:
            ValueError: for a bad seed, ``options`` that are not a dict, or options naming a
                variant (variants are constructor arguments); the env is left unchanged.
        """
        check_reset_options(options, self._constructor_arguments())
        if seed is not None or self._rng is None:
            self._rng = make_rng(seed)
        rules: RulesModule = self.rules
        self.deals_dealt = 1
        """Chance outcomes (deals) of this episode so far, the first deal included."""
        state = rules.new_game(self.config, rules.sample_deal(self.config, self._rng))
        state = self._resolve_chance(state)
        self._decision = self.encoding.to_decision(state)
        self._to_move = rules.current_player(state)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._returns = tuple(rules.returns(self._state))
        self._eliminated: tuple[bool, ...] = (False,) * len(self.possible_agents)
        self._mask = None
        self.num_steps = 0
        self.agent_selection = self.possible_agents[self._to_move]
        self._forget_pictures()

    def _resolve_chance(self, state: Any) -> Any:
        """Deal chance outcomes (new rounds) from the env's Generator until a player is to move."""
        rules = self.rules
        assert self._rng is not None
        while rules.current_player(state) == CHANCE:
            state = rules.apply_deal(state, rules.sample_deal(state, self._rng))
            self.deals_dealt += 1
        return state

    def step(self, action: int | None) -> None:
        """Apply ``action`` for ``agent_selection`` (``None`` for a terminated agent's dead step).

        Raises:
            TypeError: for an action that is not an int, a numpy integer or a 0-d integer array
                (floats, strings and bools are refused, never rounded or parsed).
            IllegalMoveError: (a ``ValueError``) for an action the mask does not allow.
            RuntimeError: before the first ``reset()``.
        """
        if self._decision is None:
            self._require_reset()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise _none_from_live_agent(agent)
        if type(action) is not int:
            action = as_action(action)
        rules = self.rules
        player = self._agent_index[agent]
        mask = self._mask
        if mask is None:
            mask = self.action_mask()
        if not 0 <= action < len(mask) or not mask[action]:
            raise _illegal_action(agent, action, mask)
        encoding = self.encoding
        if self._tracking:
            self._note_move(player, action)
        decision = encoding.apply_action(self._decision, action)
        state = encoding.rules_state(decision)
        next_player = rules.current_player(state)
        if next_player == CHANCE:
            state = self._resolve_chance(state)
            decision = encoding.to_decision(state)
            next_player = rules.current_player(state)
        self._decision = decision
        self._to_move = next_player
        self._mask = None
        self.num_steps += 1
        if self._tracking:
            self._remember(state)
        truncated = next_player != TERMINAL and self.num_steps >= self.max_steps
        if truncated:
            self._to_move = TERMINAL

        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        returns = rules.returns(state)
        if returns == self._returns:  # the common case: nothing paid out on this step
            for a in rewards:
                rewards[a] = 0.0
        else:
            old = self._returns
            index = self._agent_index
            for a in rewards:
                rewards[a] = returns[index[a]] - old[index[a]]
            self._returns = returns
            self._accumulate_rewards()

        if next_player == TERMINAL:
            points = rules.points(state)
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a] = {"points": points[self._agent_index[a]]}
            self.agent_selection = self.possible_agents[(player + 1) % len(self.possible_agents)]
            self._deads_step_first()
            return
        if truncated:  # the turn limit: every agent is truncated
            for a in self.agents:
                self.truncations[a] = True
            self.agent_selection = self.possible_agents[(player + 1) % len(self.possible_agents)]
            self._deads_step_first()
            return
        self.agent_selection = self.possible_agents[next_player]
        if self._eliminated_fn is not None:
            eliminated = tuple(self._eliminated_fn(state))
            if eliminated != self._eliminated:
                for a in self.agents:
                    if eliminated[self._agent_index[a]]:
                        self.terminations[a] = True
                self._eliminated = eliminated
                self._deads_step_first()

    def check_action(self, action: Any) -> None:
        """Raise the error :meth:`step` raises for ``action`` if it is not an action at all here.

        Refused: ``None`` from a live agent, an action from a dead one (its step takes
        ``None``), an action of the wrong type, one outside the action space. Legality under
        the mask is not checked (the illegal-move wrapper of :func:`wrap_env` handles an
        in-range illegal action). Nothing changes.

        Raises:
            TypeError: for an action of the wrong type (see :func:`as_action`).
            ValueError: for ``None`` from a live agent, an action from a dead one, or
                (``IllegalMoveError``) an action outside the action space.
            RuntimeError: before the first ``reset()``.
        """
        self._require_reset()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError("when an agent is dead, the only valid action is None")  # PettingZoo's rule
            return
        if action is None:
            raise _none_from_live_agent(agent)
        action = as_action(action)
        if not 0 <= action < self.encoding.num_actions:
            raise _illegal_action(agent, action, self.action_mask())

    @property
    def _state(self) -> Any:
        """The rules state of the game in progress."""
        return self.encoding.rules_state(self._decision)

    # -- observations -----------------------------------------------------------------------
    def action_mask(self) -> np.ndarray:
        """Return the legal-action mask of the agent to move (all zeros when the game is over)."""
        if self._mask is None:
            self._require_reset()
            if self._to_move < 0:
                self._mask = self._no_actions
            else:
                mask = self.encoding.legal_action_mask(self._decision)
                # Handed out without a copy: read-only, so no caller can change what step checks.
                mask.flags.writeable = False
                self._mask = mask
        return self._mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Return ``{"observation", "action_mask"}`` for ``agent`` (mask non-zero only if it moves)."""
        if self._decision is None:
            self._require_reset()
        player = self._agent_index[agent]
        observation = self.encoding.observe(self._decision, player)
        # Between steps agent_selection is the player to move unless it is terminated.
        if agent == self.agent_selection and not self.terminations.get(agent, True):
            mask = self._mask
            if mask is None:
                mask = self.action_mask()
        else:
            mask = self._no_actions
        return {"observation": observation, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``, with a clear error before the first ``reset()``."""
        if self._decision is None:
            self._require_reset()
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """PettingZoo's ``agent_iter``, with a clear error before the first ``reset()``."""
        self._require_reset()
        return super().agent_iter(max_iter)

    def state(self) -> np.ndarray:
        """Return the global state: a perfect-information float32 vector in :attr:`state_space`.

        It is what PettingZoo means by ``state()`` (centralised critics in TorchRL, BenchMARL
        and RLlib read it): every seat's observation in seat order, then what no seat sees
        (the game's ``Encoding.state_layout``; docs/envs/<game>.md, "Global state"). The rules
        ``State`` itself is :meth:`game_state`.
        """
        self._require_reset()
        return self.encoding.state_vector(self._decision)

    # -- positions --------------------------------------------------------------------------
    def game_state(self) -> Any:
        """Return the rules ``State`` of the game in progress.

        For an encoding that builds one move over several sub-steps (e.g. choosing a move's
        cards one at a time), this is the state
        at the start of the current move: the pending partial choice is not part of it.
        """
        self._require_reset()
        return self._state

    def set_game_state(self, state: Any) -> None:
        """Start the env from ``state``, a rules ``State`` of this game and variant.

        The env then stands as if a new episode had begun in that position: rewards count from
        the position's returns, the step counter of the turn limit starts at 0, seats already
        eliminated are no longer agents, and later chance outcomes (new rounds) come from
        the env's Generator (seeded by ``reset(seed=...)``; fresh entropy if never reset).

        The state is checked by the game's ``rules.validate_state`` before anything changes.

        Raises:
            TypeError: if ``state`` is not a ``State`` of this game.
            ValueError: naming the field, for a state built for another variant, one that is
                not a position of the game (a seat out of range, a card missing or twice,
                fields of the wrong type...), or one with no player to move (a finished game
                or a pending deal). The env is left unchanged.
        """
        rules = self.rules
        if not isinstance(state, rules.State):
            raise TypeError(
                f"set_game_state needs a {rules.__name__}.State, got {type(state).__name__}"
            )
        rules.validate_state(state, self.config)
        to_move = rules.current_player(state)
        if to_move < 0:
            raise ValueError(
                "set_game_state needs a state with a player to move (not finished, no deal pending)"
            )
        eliminated = tuple(self._eliminated_fn(state)) if self._eliminated_fn is not None else None
        decision = self.encoding.to_decision(state)
        returns = tuple(rules.returns(state))
        # Nothing above changed the env; from here on every field is replaced.
        if self._rng is None:
            self._rng = make_rng(None)
        self._decision = decision
        self._to_move = to_move
        self.agents = [
            a for i, a in enumerate(self.possible_agents) if eliminated is None or not eliminated[i]
        ]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._returns = returns
        self._eliminated = eliminated if eliminated is not None else (False,) * len(self.possible_agents)
        self._mask = None
        self.num_steps = 0
        self.deals_dealt = 0
        self.agent_selection = self.possible_agents[to_move]
        self._forget_pictures()

    def _require_reset(self) -> None:
        """Raise a clear error when the env is used before its first ``reset()``."""
        if self._decision is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() first (or set_game_state())")

    # -- notation ---------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        """Return the move notation of ``action`` in the current state.

        Raises:
            TypeError: for an action that is not an int or a numpy integer.
            ValueError: for an action outside the action space.
        """
        self._require_reset()
        action = as_action(action)
        if not 0 <= action < self.encoding.num_actions:
            raise ValueError(f"action {action} is outside 0..{self.encoding.num_actions - 1}")
        return self.encoding.action_to_string(self._decision, action)

    def string_to_action(self, text: str) -> int:
        """Return the action that plays the move written ``text`` in the current state.

        Raises:
            ValueError: if the text is not a move of this game.
        """
        self._require_reset()
        return self.encoding.string_to_action(self._decision, text)

    def legal_action_strings(self) -> list[str]:
        """Return the notation of every legal action of the agent to move."""
        self._require_reset()
        return [self.action_to_string(int(a)) for a in np.flatnonzero(self.action_mask())]

    # -- rendering --------------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        """Return (``"ansi"``) or print (``"human"``) a text picture of the game, or return a
        picture of the table (``"rgb_array"``: an ``H×W×3`` ``uint8`` array), as
        :attr:`render_viewer` sees it.

        Every frame of an episode has one size (the width is fixed; the height leaves room for
        the zone rows of the episode's first position, or more if a game's table grows).

        Raises:
            RuntimeError: before the first ``reset()``.
            ValueError: for a :attr:`render_viewer` that is not ``None`` or a seat.
        """
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        self._require_reset()
        if self.render_mode == "rgb_array":
            return self._picture()
        text = self.encoding.render(self._decision, self.render_viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _picture_view(self) -> Any:
        """The game's view module, for ``rgb_array`` (loaded when needed: a module is neither
        copied nor pickled with the env); Pillow must be installed.

        Raises:
            ValueError: for a game whose spec names no view.
            ImportError: (``PicturesUnavailable``) when Pillow is missing, naming the extra.
        """
        return self.require_drawing().game_view(type(self).spec, self.metadata["name"])

    @classmethod
    def require_drawing(cls) -> Any:
        """The class's :attr:`drawing`.

        Raises:
            ValueError: for an env class that draws no pictures.
        """
        if cls.drawing is None:
            raise ValueError(f"{cls.metadata['name']} draws no pictures (its env class sets no drawing)")
        return cls.drawing

    def track_moves(self) -> None:
        """Keep from now on (call it before ``reset`` for whole episodes) the public record of
        each episode: :attr:`move_log` (every whole move with the rules states around it) and the
        game view's memory (public facts the rules state forgets), which the text face
        (:mod:`cardgames_env.text`) reads. A game whose spec names no view keeps the log only.
        """
        self._tracking = True

    @property
    def tracks_moves(self) -> bool:
        """Whether the env keeps the public record of its episodes (see :meth:`track_moves`)."""
        return self._tracking

    @property
    def view_memory(self) -> dict[str, Any]:
        """The game view's memory of the episode (see :mod:`cardgames_env.core.view`; kept
        while the env tracks moves)."""
        return self._memory

    def _tracking_view(self) -> Any:
        """The game's view module, or ``None`` for a game without one (no Pillow needed)."""
        spec = type(self).spec
        return None if spec is None or spec.view is None else spec.load("view")

    def _forget_pictures(self) -> None:
        """Start the public record of the episode: no memory, no moves, no last move, and frames
        as tall as the first position's table (the zones of a game do not grow in number)."""
        self._memory = {}
        self.move_log = []
        self._last_move = self._pending_move = None
        self._picture_rows = 0
        if self._pictures:
            self._picture_rows = self.require_drawing().zone_rows(self._picture_view(), self._state, None)

    def _note_move(self, player: int, action: int) -> None:
        """Keep the rules state before ``action`` and its notation, for the picture's memory."""
        before = self.encoding.rules_state(self._decision)
        self._pending_move = (before, player, self.encoding.action_to_string(self._decision, action))

    def _remember(self, after: Any) -> None:
        """Update the view's memory of public facts once a move changed the rules state."""
        from .view import remember

        assert self._pending_move is not None
        before, seat, text = self._pending_move
        if after is not before:  # a whole move (a sub-step of one stays private to its seat)
            self._last_move = self._pending_move
            self.move_log.append((before, seat, text, after))
            view = self._tracking_view()
            if view is not None:
                self._memory = remember(view, self._memory, before, after, text)

    def _picture(self) -> np.ndarray:
        """The ``rgb_array`` frame of the current position as :attr:`render_viewer` sees it."""
        from .view import public_move

        drawing = self.require_drawing()

        view = self._picture_view()
        viewer = self.render_viewer
        state = self._state
        last = None
        if self._last_move is not None:
            before, seat, text = self._last_move
            last = f"P{seat}: {public_move(view, before, seat, text, viewer)}"
        seats = len(self.possible_agents)
        if viewer is not None and (isinstance(viewer, bool) or viewer not in range(seats)):
            raise ValueError(f"render_viewer must be None or a seat 0..{seats - 1}, got {viewer!r}")
        self._picture_rows = max(self._picture_rows, drawing.zone_rows(view, state, viewer, self._memory))
        truncated = self._to_move == TERMINAL and self.rules.current_player(state) != TERMINAL
        return drawing.draw_position(self.rules, view, state, viewer, self._memory, last_move=last,
                                     truncated=truncated, rows=self._picture_rows)

    def close(self) -> None:
        """Nothing to release."""

    # -- copying ----------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        # EzPickle would rebuild a fresh env from the constructor arguments and lose the game
        # in progress; a mid-game pickle must continue identically, so keep the whole state.
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


def _none_from_live_agent(agent: str) -> ValueError:
    """The error of ``step(None)`` for an agent that has a decision to make."""
    return ValueError(f"{agent} is alive: step() needs an action, got None")


def _illegal_action(agent: str, action: int, mask: np.ndarray) -> IllegalMoveError:
    """The error of an action that ``mask`` does not allow (or outside the action space)."""
    legal = np.flatnonzero(mask).tolist()
    return IllegalMoveError(f"action {action} is not legal for {agent}; legal: {legal}")


def check_reset_options(options: Any, constructor_arguments: tuple[str, ...]) -> None:
    """Check the ``options`` of a ``reset``: these envs have none.

    Variants (``num_players``, ``rounds``...) are constructor arguments, fixed for an env's
    life, since they change the spaces a learner has already read: an option naming one is a
    ``ValueError`` (it would otherwise be silently ignored), and so are options that are not a
    dict. Any other key is ignored with a warning (PettingZoo's ``api_test`` resets with
    ``options={"options": 1}`` to check that the keyword exists).

    Raises:
        ValueError: for options that are not ``None`` or a dict, or that name a constructor
            argument.
    """
    if options is None:
        return
    if not isinstance(options, dict):
        raise ValueError(
            f"reset() options must be None or a dict, got {options!r}: variants are constructor arguments"
        )
    named = sorted(set(options) & set(constructor_arguments))
    if named:
        raise ValueError(
            f"reset() cannot change {', '.join(map(str, named))}: variants are constructor arguments, "
            "fixed for the env's life (build a new env with them)"
        )
    if options:
        warnings.warn(f"reset() ignores options {sorted(map(str, options))}: this env has none", stacklevel=3)


DEFAULT_MAX_STEPS = 20_000
"""Turn limit of an env whose rules alone could go on for ever (moves that change nothing,
games of many hands): far beyond any real game of the shipped envs."""


def resolve_max_steps(info: GameInfo, max_steps: Any) -> int:
    """Return the turn limit of an env: ``max_steps`` if given, else the rules' bound or
    :data:`DEFAULT_MAX_STEPS`.

    Raises:
        ValueError: for a limit that is not a positive integer.
    """
    if max_steps is None:
        return info.max_game_length if info.max_game_length is not None else DEFAULT_MAX_STEPS
    if isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1:
        raise ValueError(f"max_steps must be a positive integer or None, got {max_steps!r}")
    return int(max_steps)


_FORWARDED = (
    "agent_selection", "agents", "terminations", "truncations", "rewards", "infos",
    "_cumulative_rewards", "possible_agents",
)
"""Attributes the PettingZoo wrappers read several times per step."""
_GUARDED_BEFORE_RESET = frozenset(
    ("rewards", "terminations", "truncations", "infos", "agent_selection", "agents")
)


def _forwarded(name: str) -> property:
    """A read-only property reading ``name`` straight from the raw env."""
    guarded = name in _GUARDED_BEFORE_RESET

    def read(self: Any) -> Any:
        if guarded and self._guard_before_reset and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")  # OrderEnforcing's rule
        return getattr(self._raw, name)

    return property(read, doc=f"``{name}`` of the raw env.")


class _Forwarding:
    """Mixin for PettingZoo's wrappers: the hot attributes skip the ``__getattr__`` chain.

    PettingZoo's wrappers reach the raw env's ``agent_selection``, ``terminations`` and the
    like through one ``__getattr__`` per wrapper level, dozens of times per step; reading
    them directly gives the same values at a fraction of the cost. Behaviour is unchanged.
    """

    _guard_before_reset = False

    def __init__(self, env: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(env, *args, **kwargs)  # type: ignore[call-arg]
        self._raw = env.unwrapped


for _name in _FORWARDED:
    setattr(_Forwarding, _name, _forwarded(_name))


class FastTerminateIllegalWrapper(_Forwarding, wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` with direct attribute forwarding."""


class FastAssertOutOfBoundsWrapper(_Forwarding, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with direct attribute forwarding.

    An action that is no action here (``None`` from a live agent, an action from a dead one,
    the wrong type, outside the action space) raises the raw env's own error
    (:meth:`CardGameEnv.check_action`) before PettingZoo's assertion, so the wrapped env
    refuses it the same way with or without ``python -O`` and before the illegal-move
    wrapper indexes the mask with it.
    """

    def step(self, action: Any) -> None:
        """Check the action like the raw env, then PettingZoo's assertion and the inner step."""
        self._raw.check_action(action)
        super().step(action)


class FastOrderEnforcingWrapper(_Forwarding, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with direct attribute forwarding."""

    _guard_before_reset = True


def wrap_env(raw: CardGameEnv) -> Any:
    """Wrap a raw env the way PettingZoo's classic envs are wrapped (illegal move ends the game).

    The three wrappers are PettingZoo's own (``isinstance`` checks hold), with the attributes
    they read on every step forwarded directly to the raw env.
    """
    env: Any = FastTerminateIllegalWrapper(raw, illegal_reward=-1)
    env = FastAssertOutOfBoundsWrapper(env)
    env = FastOrderEnforcingWrapper(env)
    return env


__all__ = [
    "DEFAULT_MAX_STEPS",
    "RENDER_FPS",
    "RENDER_MODES",
    "CardGameEnv",
    "FastAssertOutOfBoundsWrapper",
    "FastOrderEnforcingWrapper",
    "FastTerminateIllegalWrapper",
    "IllegalMoveError",
    "as_action",
    "check_reset_options",
    "resolve_max_steps",
    "wrap_env",
]
