"""Fixtures shared by the whole suite."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardgames_env.core import kernel_cache

# The first compilation's notice (core/kernel_cache.py) would land in whichever test compiles
# first, on a terminal's stderr as ``terminal_stderr`` fakes one; its own test runs a fresh
# interpreter, and the rest of the suite counts it as printed.
kernel_cache._noticed = True


@pytest.fixture
def terminal_stderr(capsys, monkeypatch):
    """``capsys``, with stderr taken for a terminal (as an interactive shell's is), so commands
    draw their progress bars there; they draw none into logs and pipes. Other streams answer
    for themselves (a test may patch ``sys.stdout.isatty``)."""
    from cardgames_env.display import progress

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


EXTRA_OF_MODULE = {
    "torch": "train", "stable_baselines3": "train", "sb3_contrib": "train", "matplotlib": "train",
    "tensorboard": "train", "threadpoolctl": "train", "PIL": "pictures", "starlette": "web",
    "uvicorn": "web", "httpx": "web", "ray": "rllib", "torchrl": "torchrl", "tensordict": "torchrl",
}
"""The top-level modules of the optional extras (pyproject.toml) that tests import."""
NOT_INSTALLED = frozenset(name for name in EXTRA_OF_MODULE if importlib.util.find_spec(name) is None)
"""Those missing from this environment (looked up once, before any test blocks an import)."""


INCOMPLETE_EXTRAS = frozenset(EXTRA_OF_MODULE[name] for name in NOT_INSTALLED)
"""The extras with a module missing here."""
REFUSAL = re.compile(r"needs the '(\w+)' extra")
"""How the package refuses work for a missing extra (:func:`cardgames_env.core.extras.missing_extra`)."""


def _missing_extra(error: BaseException, report: pytest.TestReport) -> str | None:
    """Why a failed test could not run here: ``error`` is the import of a module of an extra that
    is not installed, or the package refused the work naming such an extra (in the failure or
    the captured output); None for any other failure."""
    name = getattr(error, "name", None) if isinstance(error, ModuleNotFoundError) else None
    top = (name or "").partition(".")[0]
    if top in NOT_INSTALLED:
        return f"needs the '{EXTRA_OF_MODULE[top]}' extra ({top} is not installed)"
    for extra in REFUSAL.findall("\n".join((report.longreprtext, report.capstdout, report.capstderr))):
        if extra in INCOMPLETE_EXTRAS:
            return f"needs the '{extra}' extra (not installed here), which the package asked for"
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """A test that imports a module of an optional extra which is not installed is skipped with
    that reason (with only the ``test`` extra, the default run skips what needs another extra);
    where the module is installed, its import errors fail as any error does. Then, when the
    browser layer is required, the skip of a ``browser`` test is a failure."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.excinfo is not None:
        reason = _missing_extra(call.excinfo.value, report)
        if reason is not None:
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] or 0, f"Skipped: {reason}")
    if report.skipped and _browser_required() and item.get_closest_marker("browser") is not None:
        report.outcome = "failed"
        report.longrepr = f"{REQUIRE_BROWSER}=1 and the browser test was skipped: {report.longrepr}"
