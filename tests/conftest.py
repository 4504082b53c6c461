"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def terminal_stderr(capsys, monkeypatch):
    """``capsys``, with stderr taken for a terminal (as an interactive shell's is), so commands
    draw their progress bars there; they draw none into logs and pipes. Other streams answer
    for themselves (a test may patch ``sys.stdout.isatty``)."""
    from cardgames_env.core import progress

    real = progress.is_terminal
    monkeypatch.setattr(progress, "is_terminal", lambda stream: stream is sys.stderr or real(stream))
    return capsys


REQUIRE_BROWSER = "CARDGAMES_REQUIRE_BROWSER"
"""Environment variable: when ``1`` (CI sets it), a test marked ``browser`` that is skipped, or a
test module using that marker that is skipped whole, fails instead: CI must not pass with the
browser layer left out."""


def _browser_required() -> bool:
    return os.environ.get(REQUIRE_BROWSER, "") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """Turn the skip of a ``browser`` test into a failure when the browser layer is required."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and _browser_required() and item.get_closest_marker("browser") is not None:
        report.outcome = "failed"
        report.longrepr = f"{REQUIRE_BROWSER}=1 and the browser test was skipped: {report.longrepr}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    """Turn the skip of a whole module that uses the ``browser`` marker (a missing import) into a
    collection error when the browser layer is required."""
    outcome = yield
    report = outcome.get_result()
    path = getattr(collector, "path", None)
    if (report.skipped and _browser_required() and isinstance(collector, pytest.Module) and path is not None
            and "mark.browser" in Path(path).read_text(encoding="utf-8")):
        report.outcome = "failed"
        report.longrepr = f"{REQUIRE_BROWSER}=1 and the browser tests' module was skipped: {report.longrepr}"
