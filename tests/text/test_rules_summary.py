"""The rules summaries shipped for system prompts agree with the docs' rules pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardgames_env.registry import ALL_ENVS, spec
from cardgames_env.text import rules_summary
from cardgames_env.text.summary import STOP_HEADING, summarise_rules_page

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"


@pytest.mark.parametrize("name", ALL_ENVS)
def test_summary_agrees_with_the_rules_page(name: str) -> None:
    game = spec(name).game
    page = (DOCS / f"{game}.md").read_text(encoding="utf-8")
    shipped = rules_summary(name)
    assert shipped == summarise_rules_page(page), (
        f"{game}: the shipped summary differs from docs/rules/{game}.md; "
        "run: python -m cardgames_env.text.summary docs/rules"
    )
    assert STOP_HEADING not in shipped and "](" not in shipped
    assert len(shipped) < len(page) and shipped.startswith("# ")


def test_summary_of_a_page() -> None:
    page = "# T\n\nIntro [link](x.md).\n\nThis page is what the env [t](y) plays.\n\n## A\n\nrule\n\n" \
           f"{STOP_HEADING}\n\nsecret"
    assert summarise_rules_page(page) == "# T\n\nIntro link.\n\n## A\n\nrule\n"


def test_unknown_game() -> None:
    with pytest.raises(ValueError, match="unknown env"):
        rules_summary("chess")


def test_docs_show_the_prompts_describe_writes() -> None:
    """docs/llm.md holds the example views tools/llm_prompts.py prints (no drift)."""
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec_ = importlib.util.spec_from_file_location("llm_prompts", root / "tools" / "llm_prompts.py")
    assert spec_ is not None and spec_.loader is not None
    module = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(module)
    page = (root / "docs" / "llm.md").read_text(encoding="utf-8")
    assert module.markdown() in page, "docs/llm.md is stale: run python tools/llm_prompts.py"
