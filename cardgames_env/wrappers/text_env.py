"""``TextEnv``: one seat of any game as a gymnasium env of text, for training language models.

The observation is the seat's text view (:func:`cardgames_env.text.describe`: what the seat
knows, the others' moves since its last turn, its legal moves as ``[move]`` lines); the action
is the model's free-text reply, whose last bracketed move is played
(:func:`cardgames_env.text.parse_reply`). Every other seat is played inside ``step`` by
opponents from any agent spec, through :class:`~cardgames_env.wrappers.single_agent.SingleAgentEnv`
(the same seats, rewards and episode ends as the vector-observation env).

The reward is the seat's own (the game's reward model: the RL return's change over its move and
the others' moves up to its next turn). An invalid reply (no bracketed move, an illegal or
ambiguous one) changes nothing in the game: its reward is ``invalid_penalty``, and the
observation is the same view with the reason appended, so that a multi-turn trainer can let
the model try again; after ``max_invalid`` invalid replies in a row the episode is truncated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
from gymnasium import spaces

from cardgames_env.agents.base import Agent
from cardgames_env.agents.pool import OpponentPool
from cardgames_env.core.aec import CardGameEnv
from cardgames_env.registry import make_raw_env
from cardgames_env.text import MoveParseError, describe, parse_reply

from .single_agent import SingleAgentEnv

MAX_TEXT = 1_000_000
"""``max_length`` of the observation and action spaces (characters)."""


class AnyText(spaces.Text):
    """A text space of any characters (``spaces.Text`` checks a fixed charset): any ``str`` of at
    most ``max_length`` characters belongs to it; samples are plain letters."""

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a string of at most ``max_length`` characters."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length


class TextEnv(gymnasium.Env):
    """One seat of a card game in words: observation = the text view, action = the reply.

    Args:
        env: a registered env name or a raw :class:`CardGameEnv` (it is made to track moves).
        options: the game's variant options (only with an env name).
        opponents: the other seats, as for :class:`SingleAgentEnv` (an agent spec, one per
            other seat, or an :class:`OpponentPool`).
        learner_seat: the seat played through text, or ``None`` to draw it per episode.
        seed: seed of the first ``reset`` when it is called without one.
        invalid_penalty: reward of an invalid reply (nothing else changes).
        max_invalid: invalid replies in a row that truncate the episode (``None``: no limit).
        render_mode: ``None`` or ``"ansi"`` (the current observation).

    Raises:
        ValueError: for an unknown env, bad options, seat or opponents, or a game without a
            text face.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        env: str | CardGameEnv,
        options: Mapping[str, Any] | None = None,
        opponents: str | Agent | Sequence[str | Agent] | OpponentPool = "random",
        learner_seat: int | None = None,
        seed: int | None = None,
        invalid_penalty: float = -0.1,
        max_invalid: int | None = 20,
        render_mode: str | None = None,
    ):
        super().__init__()
        raw = make_raw_env(env, options)
        from cardgames_env.text.view import view_module

        view_module(raw)  # a game without a text face fails now
        raw.track_moves()
        if max_invalid is not None and (isinstance(max_invalid, bool) or max_invalid < 1):
            raise ValueError(f"max_invalid must be None or a positive integer, got {max_invalid!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.inner = SingleAgentEnv(raw, opponents=opponents, learner_seat=learner_seat, seed=seed,
                                    illegal_action="raise")
        """The vector-observation env underneath (its opponents, seats and rewards)."""
        self.raw = raw
        self.invalid_penalty = float(invalid_penalty)
        self.max_invalid = max_invalid
        self.render_mode = render_mode
        self.observation_space = AnyText(MAX_TEXT)
        self.action_space = AnyText(MAX_TEXT)
        self.invalid_replies = 0
        """Invalid replies of the episode so far."""
        self._in_a_row = 0
        self._observation = ""
        self._done = True

    @property
    def learner_seat(self) -> int:
        """The seat played through text this episode."""
        return self.inner.learner_seat

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode: opponents play until the seat's first turn; return its view."""
        _, info = self.inner.reset(seed=seed, options=options)
        self.invalid_replies = self._in_a_row = 0
        self._done = False
        self._observation = describe(self.raw, self.learner_seat)
        return self._observation, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play the move the reply names (then the others until the seat's next turn), or
        refuse an invalid reply (penalty, no change, the reason appended to the view).

        Raises:
            TypeError: for a reply that is not a string.
            RuntimeError: once the episode is over (call ``reset()``).
        """
        if not isinstance(action, str):
            raise TypeError(f"a TextEnv action is the reply text (str), got {type(action).__name__}")
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        try:
            move = parse_reply(self.raw, action)
        except MoveParseError as error:
            self.invalid_replies += 1
            self._in_a_row += 1
            truncated = self.max_invalid is not None and self._in_a_row >= self.max_invalid
            self._done = truncated
            view = (f"{self._observation}\nYour reply was not accepted: {error}. Answer again, ending "
                    "with one of the legal moves above in square brackets.\n")
            info = {"learner_seat": self.learner_seat, "invalid_reply": True, "error": str(error),
                    "invalid_replies": self.invalid_replies}
            return view, self.invalid_penalty, False, truncated, info
        self._in_a_row = 0
        total = 0.0
        raw, start = self.raw, self.raw.game_state()
        while True:  # a move built over sub-steps takes several actions of the seat
            _, reward, terminated, truncated, info = self.inner.step(int(raw.string_to_action(move)))
            total += float(reward)
            if terminated or truncated or raw.game_state() is not start or raw._to_move != self.learner_seat:
                break
        self._done = terminated or truncated
        self._observation = describe(self.raw, self.learner_seat)
        info = {**info, "move": move, "invalid_replies": self.invalid_replies}
        return self._observation, total, terminated, truncated, info

    def render(self) -> str | None:  # type: ignore[override, unused-ignore]
        """Return the current observation (``render_mode="ansi"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        return self._observation

    def close(self) -> None:
        """Nothing to release."""
