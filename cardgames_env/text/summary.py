"""The rules summary of a game for a language model's system prompt (:func:`rules_summary`).

One source: each game's rules page ``docs/rules/<game>.md``. The summary is that page up to its
section "Decisions this implementation takes", with links written as their text and the
paragraph that points to the env's page left out; each game ships it as package data
(``envs/<game>/rules_summary.md``), and a test checks that it agrees with the page. After
editing a rules page, write the summaries again with::

    python -m cardgames_env.text.summary docs/rules
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from cardgames_env import registry

SUMMARY_FILE = "rules_summary.md"
"""The summary's file name in each game's package."""
STOP_HEADING = "## Decisions this implementation takes"
"""The summary ends before this section of the rules page."""

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def summarise_rules_page(page: str) -> str:
    """The summary of a rules page (see the module docstring)."""
    body = page.split(STOP_HEADING, 1)[0]
    paragraphs = [p for p in body.split("\n\n") if not p.lstrip().startswith("This page is what the env")]
    text = "\n\n".join(paragraphs)
    text = _LINK.sub(r"\1", text)
    return text.strip() + "\n"


def rules_summary(game: str) -> str:
    """Return the rules summary of a game (id or env name), plain Markdown.

    Raises:
        ValueError: for an unknown game or one that ships no summary.
    """
    spec = registry.spec(game)
    resource = spec.resource(SUMMARY_FILE)
    if not resource.is_file():
        raise ValueError(f"{spec.env_name} ships no rules summary ({spec.package}/{SUMMARY_FILE})")
    return resource.read_text(encoding="utf-8")


def write_summaries(rules_folder: str | Path) -> list[Path]:
    """Write every shipped game's summary from ``rules_folder/<game>.md``; return the files."""
    written = []
    for spec in registry.specs():
        page = Path(rules_folder) / f"{spec.game}.md"
        if not page.is_file():
            continue
        target = Path(str(spec.resource(SUMMARY_FILE)))
        target.write_text(summarise_rules_page(page.read_text(encoding="utf-8")), encoding="utf-8")
        written.append(target)
    return written


if __name__ == "__main__":  # python -m cardgames_env.text.summary docs/rules
    folder = sys.argv[1] if len(sys.argv) > 1 else "docs/rules"
    for path in write_summaries(folder):
        print(f"wrote {path}")
