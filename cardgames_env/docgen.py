"""Generated tables of the env docs pages, and the command that refreshes them.

Each ``docs/envs/<game>.md`` holds blocks between ``<!-- BEGIN GENERATED: NAME -->`` and
``<!-- END GENERATED: NAME -->`` markers, NAME being ``actions``, ``observation``, ``state``
or ``gameinfo``; their contents come from the env's ``ActionTable``, ``ObservationLayout`` and
``GameInfo`` under the default options, and ``state``, the layout of the global state vector
(``Encoding.state_layout``). ``python -m cardgames_env.docgen`` rewrites them;
a test fails when a page drifts from the code.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

from .registry import ALL_ENVS, load

BLOCK = re.compile(r"(<!-- BEGIN GENERATED: (\w+) -->\n)(.*?)(<!-- END GENERATED: \2 -->)", re.S)


def gameinfo_table(info: object) -> str:
    """Return a GameInfo as a two-column Markdown table."""
    lines = ["| field | value |", "|---|---|"]
    for field in dataclasses.fields(info):  # type: ignore[arg-type]
        lines.append(f"| `{field.name}` | {getattr(info, field.name)} |")
    return "\n".join(lines)


def generated_blocks(env_name: str) -> dict[str, str]:
    """Return ``{block name: Markdown}`` for an env under its default options."""
    env = load(env_name).raw_env()
    return {
        "actions": env.encoding.actions.markdown_table(),
        "observation": env.encoding.layout.markdown_table(),
        "state": env.encoding.state_layout.markdown_table(),
        "gameinfo": gameinfo_table(env.info),
    }


def refresh(text: str, blocks: dict[str, str]) -> str:
    """Return ``text`` with every generated block replaced by its current contents."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in blocks:
            return match.group(0)
        return f"{match.group(1)}{blocks[name]}\n{match.group(4)}"

    return BLOCK.sub(replace, text)


def doc_path(env_name: str, root: Path) -> Path:
    """Return the docs page of an env (``docs/envs/<game>.md``)."""
    return root / "docs" / "envs" / f"{env_name.rsplit('_v', 1)[0]}.md"


def main() -> int:
    """Rewrite the generated blocks of every env's docs page; print the pages changed."""
    root = Path.cwd()
    for name in ALL_ENVS:
        path = doc_path(name, root)
        if not path.exists():
            print(f"missing: {path}", file=sys.stderr)
            continue
        old = path.read_text(encoding="utf-8")
        new = refresh(old, generated_blocks(name))
        if new != old:
            path.write_text(new, encoding="utf-8")
            print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
