"""Whether a stream is a terminal: what decides if a progress bar or a notice is shown."""

from __future__ import annotations

from typing import Any


def is_terminal(stream: Any) -> bool:
    """Return whether ``stream`` (``sys.stdout``, ``sys.stderr``...) is an open terminal."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except ValueError:  # a closed stream
        return False
