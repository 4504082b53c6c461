"""High Card env (``highcard_v0``): the sixth game's PettingZoo AEC env (see :mod:`.rules`)."""

from __future__ import annotations

from typing import Any

from cardgames_env.core.aec import CardGameEnv, wrap_env

from . import rules
from .encoding import HighCardEncoding

TEST_VARIANTS: tuple[dict[str, Any], ...] = ({}, {"deck_size": 10, "hand_size": 4}, {"lowest_wins": True})
"""Option sets the shared env test-suite runs (the default first)."""


class HighCardEnv(CardGameEnv):
    """High Card as a PettingZoo AEC env."""

    rules = rules
    encoding_cls = HighCardEncoding
    metadata = {"name": "highcard_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}


def raw_env(render_mode: str | None = None, **options: Any) -> HighCardEnv:
    """Return the unwrapped env; ``options`` are :class:`rules.Config` fields."""
    return HighCardEnv(render_mode=render_mode, **options)


def env(render_mode: str | None = None, **options: Any) -> Any:
    """Return the env wrapped like PettingZoo's classic envs."""
    return wrap_env(raw_env(render_mode=render_mode, **options))
