"""Docs checks: generated tables match the code, links resolve, no file outside the repository is cited."""

from __future__ import annotations

import re
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


# -- links and references ----------------------------------------------------------------------

DOCS = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_SHARED, _GUIDE, _WORK = "sha" + "red", "ARCHITEC" + "TURE", "/wo" + "rk/"  # in pieces: a search of
# the repository for such citations should find none in this file either
OUTSIDE = re.compile(rf"\b{_SHARED}/|\.\./{_SHARED}\b|{_GUIDE}\.md|{_WORK}")
"""What a doc must never cite: files that are not in the repository a user clones."""


def slug(heading: str) -> str:
    """Return GitHub's anchor of a Markdown heading (links read as their text, code as its text)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Return the anchors of every heading of a Markdown text (repeats get -1, -2, ...)."""
    seen: dict[str, int] = {}
    found = set()
    for match in HEADING.finditer(FENCE.sub("", text)):
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(path: Path, text: str) -> list[str]:
    """Return the relative links of a Markdown text that lead to no file or no heading."""
    problems = []
    prose = INLINE_CODE.sub("", FENCE.sub("", text))
    for target in LINK.findall(prose):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # an external address (https:, mailto:)
        file_part, _, anchor = target.partition("#")
        if not file_part:
            if anchor not in anchors(text):
                problems.append(f"{target}: no such heading on this page")
            continue
        dest = (path.parent / file_part).resolve()
        if not dest.exists() or ROOT not in (dest, *dest.parents):
            problems.append(f"{target}: no such file in the repository")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text(encoding="utf-8")):
            problems.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    return problems


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    problems = broken_links(path, path.read_text(encoding="utf-8"))
    assert not problems, f"{path.relative_to(ROOT)}: " + "; ".join(problems)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_cite_no_file_outside_the_repository(path):
    text = path.read_text(encoding="utf-8")
    hits = [m.group(0) for m in OUTSIDE.finditer(text)]
    assert not hits, f"{path.relative_to(ROOT)} cites files outside the repository: {hits}"


def test_link_check_detects_broken_links():
    page = ROOT / "docs" / "index.md"
    text = "# Title\n\n## A `code` heading: here\n\n[ok](#a-code-heading-here) [self](#title)"
    assert broken_links(page, text) == []
    bad = "[gone](missing.md) [no heading](training.md#no-such-heading) [anchor](#nowhere)"
    assert len(broken_links(page, "# Title\n" + bad)) == 3
    assert broken_links(page, "```\n[in code](missing.md)\n```\n`[inline](missing.md)`") == []


def test_outside_references_are_detected():
    assert OUTSIDE.search(f"see {_SHARED}/rules/red7.md")
    assert OUTSIDE.search(f"{_GUIDE}.md section 2")
    assert OUTSIDE.search(f"../{_SHARED}")
    assert OUTSIDE.search(f"{_WORK}main/docs")
    assert not OUTSIDE.search("the rules shared by every env (docs/architecture.md)")


def _linked_pages(path: Path) -> set[Path]:
    """The Markdown files a page links to (relative links outside code, anchors dropped)."""
    prose = INLINE_CODE.sub("", FENCE.sub("", path.read_text(encoding="utf-8")))
    targets = (t.partition("#")[0] for t in LINK.findall(prose) if not re.match(r"[a-z][a-z0-9+.-]*:", t))
    return {(path.parent / t).resolve() for t in targets if t.endswith(".md")}


def test_index_links_every_page():
    """docs/index.md is the way into the docs: it links every page under docs/."""
    linked = _linked_pages(ROOT / "docs" / "index.md")
    pages = {p.resolve() for p in (ROOT / "docs").rglob("*.md")} - {(ROOT / "docs" / "index.md").resolve()}
    missing = sorted(str(p.relative_to(ROOT)) for p in pages - linked)
    assert not missing, f"docs/index.md does not link {missing}"


def test_readme_is_short_and_its_links_resolve():
    """The README is a newcomer's two minutes (at most 90 lines); every link in it resolves."""
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 90
    assert _linked_pages(readme), "the README links the docs"
    assert not broken_links(readme, text)
