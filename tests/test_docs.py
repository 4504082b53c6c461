"""The docs pages' tables are generated from ACTIONS, LAYOUT and GameInfo and must not drift."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardgames_env.docgen import BLOCK, doc_path, generated_blocks, refresh
from cardgames_env.registry import ALL_ENVS

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ALL_ENVS)
def test_env_page_exists_with_generated_tables(name):
    path = doc_path(name, ROOT)
    assert path.exists(), f"{path} is missing"
    text = path.read_text(encoding="utf-8")
    found = {m.group(2) for m in BLOCK.finditer(text)}
    assert {"actions", "observation", "state", "gameinfo"} <= found, (
        f"{path} lacks generated action/observation/state/GameInfo tables"
    )


@pytest.mark.parametrize("name", ALL_ENVS)
def test_env_page_tables_match_the_code(name):
    path = doc_path(name, ROOT)
    text = path.read_text(encoding="utf-8")
    assert refresh(text, generated_blocks(name)) == text, (
        f"{path} drifted from the code: run `python -m cardgames_env.docgen`"
    )


def test_refresh_detects_a_stale_table():
    stale = "<!-- BEGIN GENERATED: actions -->\nold\n<!-- END GENERATED: actions -->"
    assert refresh(stale, {"actions": "new"}) != stale


def test_readme_mentions_every_env():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ALL_ENVS:
        assert name in readme
