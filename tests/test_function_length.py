"""No function of the package runs past 100 lines: a longer one is split into named parts."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "cardgames_env"
MAX_LINES = 100


def long_functions(package: Path, limit: int = MAX_LINES) -> list[str]:
    """``"path:line name (N lines)"`` for every function or method longer than ``limit`` lines
    (its decorators left out, its docstring counted)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > limit:
                    where = f"{path.relative_to(package.parent)}:{node.lineno}"
                    found.append(f"{where} {node.name} ({lines} lines)")
    return found


def test_no_function_runs_past_100_lines():
    found = long_functions(PACKAGE)
    assert not found, "split into named parts:\n" + "\n".join(found)


def test_the_scan_finds_a_long_function_and_a_long_method(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    (package / "a.py").write_text(f"def short():\n    pass\n\n\ndef long():\n{body}\n")
    indented = body.replace("\n", "\n    ")
    (package / "b.py").write_text(f"class C:\n    def method(self):\n    {indented}\n")
    found = long_functions(package)
    assert [entry.split(" ")[1] for entry in found] == ["long", "method"], found
