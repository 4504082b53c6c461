"""The CI script keeps lint and types clean (``ruff`` and ``mypy`` run before the tests) and runs
the default test set, then the slow set the README describes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def commands() -> list[str]:
    """The command lines of ``.ci/run`` (comments and blank lines left out)."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def position(pattern: str) -> int:
    found = [i for i, line in enumerate(commands()) if re.search(pattern, line)]
    assert found, f".ci/run has no command matching {pattern!r}"
    return found[0]


def test_ci_installs_the_dev_extra_with_torch_first():
    install = position(r"pip install .*-e \"\.\[[^\]]*\]\"")
    extras = re.search(r"\.\[([^\]]*)\]", commands()[install]).group(1).split(",")
    assert {"test", "train", "dev"} <= set(extras)
    assert position(r"pip install .*torch==") < install


def test_ci_runs_ruff_and_mypy_before_the_tests():
    tests = position(r"-m pytest$")
    assert position(r"ruff check \.$") < tests
    assert position(r"mypy cardgames_env$") < tests
    assert "set -euo pipefail" in commands(), "a failing check must stop the script"


def _extras(text: str) -> list[list[str]]:
    """The extras of every ``pip install -e ".[...]"`` in ``text``, in order."""
    return [found.split(",") for found in re.findall(r'pip install [^\n]*?-e "\.\[([^\]]*)\]"', text)]


def test_readme_set_up_ci_and_pyproject_name_the_same_extras():
    """The README's set-up installs what the tests and the contributor checks need; CI installs the
    same first, then the extras it adds; every one is
    an extra of pyproject.toml; the development guide's CI paragraph names them all."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    declared = set(re.findall(r"^(\w+) = \[", pyproject.split("[project.optional-dependencies]")[1]
                              .split("\n[")[0], re.M))
    set_up = _extras(readme.split("## Set-up")[1].split("```")[1])
    assert len(set_up) == 1 and {"test", "train", "dev", "web", "pictures"} == set(set_up[0]), set_up
    ci = _extras("\n".join(commands()))
    assert ci[0] == set_up[0], (ci[0], set_up[0])
    installed = {extra for extras in ci for extra in extras}
    assert installed <= declared, installed - declared
    development = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    paragraph = next(p for p in development.split("\n\n") if p.startswith("CI (`.ci/run`)"))
    assert all(f"`{extra}`" in paragraph for extra in installed), (installed, paragraph)
    assert "bench" not in set_up[0]  # no test uses the benchmarks' libraries


def test_dev_extra_holds_ruff_and_mypy():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    dev = re.search(r"^dev = \[(.*)\]$", pyproject, re.M)
    assert dev and "ruff" in dev.group(1) and "mypy" in dev.group(1)


def test_ci_runs_the_slow_set_after_the_default_set_with_durations():
    slow = position(r"-m pytest -m slow --durations=\d+$")
    assert position(r"-m pytest$") < slow
    assert position(r"pip install .*-e \"\.\[torchrl\]\"") < slow  # the slow TorchRL check runs in CI


def _collected(*args: str) -> set[str]:
    """Test ids that ``python -m pytest ARGS --collect-only`` lists with the project's addopts."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args, "--collect-only", "-p", "no:cacheprovider",
         "tests/haggle/test_haggle_kernel.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return {line.split("::")[1] for line in done.stdout.splitlines() if "::" in line}


def test_readme_slow_command_runs_only_the_slow_tests():
    """addopts holds ``-m 'not slow'``; the README's ``-m slow`` comes later and wins."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`.venv/bin/python -m pytest -m slow`" in readme
    assert commands()[position(r"-m pytest -m slow")].startswith(".venv/bin/python -m pytest -m slow ")
    slow = _collected("-m", "slow")
    default = _collected()
    names = {test.split("[")[0] for test in slow}
    assert names == {"test_matches_the_aec_env_move_by_move_long"}, slow
    assert default and not default & slow


BROWSER_SKIPPED = '''
import pytest
pytestmark = pytest.mark.browser
def test_drives_a_browser():
    pytest.skip("no system Chromium")
'''
BROWSER_MODULE_SKIPPED = '''
import pytest
pytestmark = pytest.mark.browser
pytest.importorskip("no_such_browser_driver")
def test_drives_a_browser():
    pass
'''


def test_ci_fails_when_the_browser_layer_did_not_run(tmp_path):
    """``.ci/run`` requires the browser tests (``CARDGAMES_REQUIRE_BROWSER=1``, and a Chromium it
    could not install stops it); with the variable set, a skipped browser test or a skipped module
    of them fails the run, and without it they skip."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "export CARDGAMES_REQUIRE_BROWSER=1" in commands()
    assert position("export CARDGAMES_REQUIRE_BROWSER=1") < position(r"-m pytest$")
    assert "the browser test will be skipped" not in ci
    (tmp_path / "test_item.py").write_text(BROWSER_SKIPPED)
    (tmp_path / "test_module.py").write_text(BROWSER_MODULE_SKIPPED)
    # Exit statuses: 1 a failed test, 2 a collection error, 0 a skipped test, 5 nothing collected.
    for test, failed, skipped in (("test_item.py", 1, 0), ("test_module.py", 2, 5)):
        for required, code in (("1", failed), ("", skipped)):
            env = {**os.environ, "CARDGAMES_REQUIRE_BROWSER": required}
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider",
                 "--rootdir", str(tmp_path), str(tmp_path / test)],
                cwd=ROOT, capture_output=True, text=True, timeout=300, check=False, env=env,
            )
            assert done.returncode == code, (test, required, done.stdout[-3000:])
            if required:
                assert "CARDGAMES_REQUIRE_BROWSER=1" in done.stdout, done.stdout[-3000:]
