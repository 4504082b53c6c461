"""Fixtures shared by the whole suite."""

from __future__ import annotations

import sys

import pytest
from _pytest.capture import CaptureIO


@pytest.fixture
def terminal_stderr(capsys, monkeypatch):
    """``capsys``, with the captured stderr reporting itself a terminal (as an interactive
    shell's is), so commands draw their progress bars there; they draw none into logs and
    pipes. (``capsys`` swaps its streams in when the test starts, so the class is patched.)"""
    monkeypatch.setattr(CaptureIO, "isatty", lambda self: self is sys.stderr)
    return capsys
