"""Install hints: one helper writes them, and each is a command that works from the checkout the
README installs from (no distribution name that no package index serves)."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

from cardgames_env.core.extras import CHECKOUT, has_module, install_command, missing_extra

ROOT = Path(__file__).resolve().parents[2]
OLD_FORM = re.compile(r"cardgames-env\[|pip install [\"']?cardgames[-_]env")
"""A hint naming the distribution ``cardgames-env`` on an index: no index serves it."""


def test_the_hint_installs_the_extra_from_this_checkout_into_this_interpreter():
    assert CHECKOUT == ROOT
    words = shlex.split(install_command("train"))
    assert words == [sys.executable, "-m", "pip", "install", "-e", f"{ROOT}[train]"]
    line = missing_extra("training", "train")
    assert line.startswith("training needs the 'train' extra: ") and line.endswith(install_command("train"))
    assert "\n" not in line


def test_has_module_sees_a_blocked_import(monkeypatch):
    assert has_module("numpy")
    assert not has_module("no_such_module_anywhere")
    monkeypatch.setitem(sys.modules, "numpy", None)
    assert not has_module("numpy")


def _text_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    files += sorted((ROOT / "examples").glob("*.py")) + sorted((ROOT / "cardgames_env").rglob("*.py"))
    return files


def test_no_hint_names_a_distribution_no_index_serves():
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for path in _text_files()
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if OLD_FORM.search(line)]
    assert len(_text_files()) > 100 and not found, found
