"""Fixtures shared by the whole suite."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture
def terminal_stderr(capsys, monkeypatch):
    """``capsys``, with stderr taken for a terminal (as an interactive shell's is), so commands
    draw their progress bars there; they draw none into logs and pipes. Other streams answer
    for themselves (a test may patch ``sys.stdout.isatty``)."""
    from cardgames_env.display import progress

    real = progress.is_terminal
    monkeypatch.setattr(progress, "is_terminal", lambda stream: stream is sys.stderr or real(stream))
    return capsys
