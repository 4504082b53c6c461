"""Deprecated: moved to :mod:`cardgames_env.display.progress` (names read here warn)."""

from __future__ import annotations

from .deprecation import moved

__getattr__ = moved(__name__, "cardgames_env.display.progress")
