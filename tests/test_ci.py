"""The CI script keeps lint and types clean: ``ruff`` and ``mypy`` run before the tests."""

from __future__ import annotations

import re
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


def test_dev_extra_holds_ruff_and_mypy():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    dev = re.search(r"^dev = \[(.*)\]$", pyproject, re.M)
    assert dev and "ruff" in dev.group(1) and "mypy" in dev.group(1)
