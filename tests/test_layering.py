"""The import rules of the package (``docs/architecture.md``).

* ``core`` knows no game and nothing above it: it imports only ``core``;
* ``display`` imports only ``core``;
* a game's folder ``envs/<game>/`` imports only ``core``, ``display`` and its own folder (no other game, no
  ``registry``, ``vector``, ``agents``, ``web``, ``training``...);
* per game: ``core <- cards <- (combos) <- scoring <- rules <- encoding <- env <- kernel /
  heuristic / search / view``; ``cards``, ``combos``, ``scoring`` and ``rules`` (and everything
  they import from the package) never import gymnasium, pettingzoo, torch or stable-baselines3,
  so the rules engines and scorers run without any RL library;
* no module imports another module's private (``_name``) helpers;
* no import circles.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "cardgames_env"
RL_LIBRARIES = {"gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib"}
LAYER_RANK = {
    "cards": 0, "combos": 1, "scoring": 2, "rules": 3, "encoding": 4, "env": 5, "cli": 3,
    "kernel": 6, "view": 6, "heuristic_kernel": 7, "heuristic": 8, "search": 9,
}
PURE_LAYERS = ("cards", "combos", "scoring", "rules")
GAMES = sorted(p.name for p in (PACKAGE / "envs").iterdir() if (p / "rules.py").exists())


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Absolute names of every module a file imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside = PACKAGE in path.parents
    own = module_name(path) if inside else path.stem
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            found.add(prefix)
            for alias in node.names:
                found.add(f"{prefix}.{alias.name}")
    return found


def file_of(module: str) -> Path | None:
    rel = Path(*module.split("."))
    for candidate in (PACKAGE.parent / rel.with_suffix(".py"), PACKAGE.parent / rel / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def closure(start: Path) -> set[str]:
    """Every module reachable by imports from ``start`` (package modules followed)."""
    seen: set[str] = set()
    todo = [start]
    visited: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in visited:
            continue
        visited.add(path)
        for name in imports_of(path):
            seen.add(name)
            target = file_of(name) if name.startswith("cardgames_env.") else None
            # The top-level package __init__ (the public face) is not part of a layer.
            if target is not None and target != PACKAGE / "__init__.py":
                todo.append(target)
    return seen


def test_core_imports_no_game():
    for path in (PACKAGE / "core").glob("*.py"):
        bad = {m for m in imports_of(path) if m.startswith("cardgames_env.envs")}
        assert not bad, f"{path.name} imports a game: {bad}"


def test_core_imports_only_core():
    graph = package_import_graph(PACKAGE)
    for module, targets in graph.items():
        if module.startswith("cardgames_env.core"):
            above = {t for t in targets if not t.startswith("cardgames_env.core")}
            assert not above, f"{module} imports above core: {sorted(above)}"


@pytest.mark.parametrize("game", GAMES)
def test_a_game_folder_imports_only_core_display_and_itself(game):
    own = f"cardgames_env.envs.{game}"
    graph = package_import_graph(PACKAGE)
    for module, targets in graph.items():
        if module == own or module.startswith(own + "."):
            allowed = (own, own + ".", "cardgames_env.core", "cardgames_env.display")
            outside = {t for t in targets if not (t == own or t.startswith(allowed[1:]))}
            assert not outside, f"{module} imports outside core, display and its folder: {sorted(outside)}"


FLOORS = {
    "core": 0, "display": 1, "envs": 2, "registry": 3, "faces": 3, "vector": 4, "text": 4, "agents": 5,
    "wrappers": 6, "integrations": 6, "training": 7, "records": 8, "web": 9, "docgen": 9, "pictures": 9,
    "cli": 10,
}
"""Bottom to top: a module imports only from its own part of the package or a lower floor.
``display`` (progress bars, the ansi helpers, the table pictures) stands on ``core`` alone and
under the games, whose envs draw through it."""


def part_of(module: str) -> str:
    """The part of the package a module belongs to (``faces``: the ``<game>_v0`` modules)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "package"
    if parts[1].rpartition("_v")[2].isdigit():
        return "faces"
    return parts[1]


def test_imports_run_down_the_floors():
    for module, targets in package_import_graph(PACKAGE).items():
        part = part_of(module)
        if part == "package":  # the package's face imports the registry to register the envs
            continue
        assert part in FLOORS, f"{module}: give its part of the package a floor in FLOORS"
        for target in targets:
            other = part_of(target)
            assert other == part or FLOORS[other] < FLOORS[part], f"{module} imports {target} (floor above)"


def private_imports(package: Path) -> list[str]:
    """``"module imports other._name"`` for every import of another module's private name."""
    root = package.parent
    found = []
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        own = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package_name = own if path.name == "__init__.py" else own.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                source = node.module or ""
                if node.level:
                    base = package_name.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.Import):
                source, names = "", [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                dotted = f"{source}.{name}" if source else name
                private = [p for p in dotted.split(".") if p.startswith("_") and not p.startswith("__")]
                if private and source != own:
                    found.append(f"{own} imports {dotted}")
    return found


def test_no_module_imports_another_modules_private_names():
    found = private_imports(PACKAGE)
    assert not found, "\n".join(found)


def test_private_import_checker_sees_relative_and_absolute_imports(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("_hidden = 1\nshown = 2\n")
    (package / "b.py").write_text("from .a import shown\nfrom pkg.a import _hidden\nfrom . import a\n")
    (package / "c.py").write_text("import pkg._private_module\n")
    found = sorted(private_imports(package))
    assert found == ["pkg.b imports pkg.a._hidden", "pkg.c imports pkg._private_module"]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("layer", PURE_LAYERS)
def test_pure_layers_import_no_rl_library(game, layer):
    path = PACKAGE / "envs" / game / f"{layer}.py"
    if not path.exists():
        pytest.skip(f"{game} has no {layer}.py")
    reached = {m.split(".")[0] for m in closure(path)}
    assert not reached & RL_LIBRARIES, f"{game}/{layer}.py reaches {reached & RL_LIBRARIES}"


@pytest.mark.parametrize("game", GAMES)
def test_imports_point_one_way(game):
    for path in (PACKAGE / "envs" / game).glob("*.py"):
        rank = LAYER_RANK.get(path.stem)
        if rank is None:
            continue
        for name in imports_of(path):
            prefix = f"cardgames_env.envs.{game}."
            if not name.startswith(prefix):
                continue
            target = name[len(prefix) :].split(".")[0]
            if target in LAYER_RANK and target != path.stem:
                assert LAYER_RANK[target] < rank or (path.stem, target) == ("cli", "scoring"), (
                    f"{game}/{path.name} imports {target} (a higher or equal layer)"
                )


def test_layer_checker_catches_a_violation(tmp_path):
    bad = tmp_path / "rules.py"
    bad.write_text("import pettingzoo\nfrom gymnasium import spaces\n")
    assert {"pettingzoo", "gymnasium.spaces", "gymnasium"} <= imports_of(bad)


@pytest.mark.parametrize("game", GAMES)
def test_rules_run_without_rl_libraries(game):
    """Import the rules with gymnasium/pettingzoo/torch made unimportable."""
    code = (
        "import sys\n"
        + "".join(f"sys.modules[{lib!r}] = None\n" for lib in sorted(RL_LIBRARIES))
        + f"import cardgames_env.envs.{game}.rules as rules\n"
        "import numpy as np\n"
        "config = rules.Config()\n"
        "state = rules.new_game(config, rules.sample_deal(config, np.random.default_rng(0)))\n"
        "assert rules.legal_moves(state)\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PACKAGE.parent)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr


def package_import_graph(package: Path) -> dict[str, set[str]]:
    """``{module: modules of the package it imports}`` over every file of ``package``.

    Every import statement counts, at module level or inside a function (a deferred import
    still makes the two modules depend on each other). ``from pkg import name`` points at the
    module ``pkg.name`` when there is one, else at ``pkg`` itself; imports made by string
    (``importlib.import_module``) are not seen.
    """
    root = package.parent

    def name_of(path: Path) -> str:
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join(parts)

    files = {name_of(path): path for path in package.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for own, path in files.items():
        package_name = own if path.name == "__init__.py" else own.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names if alias.name in files)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package_name.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module or ""
                for alias in node.names:
                    if f"{prefix}.{alias.name}" in files:
                        targets.add(f"{prefix}.{alias.name}")
                    elif prefix in files:
                        targets.add(prefix)
        graph[own] = targets - {own}
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the import circles of a graph: its strongly connected groups of 2+ modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return circles


def test_no_import_circles_in_the_package():
    circles = import_circles(package_import_graph(PACKAGE))
    assert not circles, f"import circles (make the imports run one way): {circles}"


def test_circle_checker_sees_function_level_and_relative_imports(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from .sub import b\n")
    (package / "sub" / "b.py").write_text("def f():\n    from ..a import g\n    return g\n")
    (package / "c.py").write_text("from . import a\n")
    graph = package_import_graph(package)
    assert graph["pkg.a"] == {"pkg.sub.b"} and graph["pkg.sub.b"] == {"pkg.a"}
    assert import_circles(graph) == [["pkg.a", "pkg.sub.b"]]
    (package / "sub" / "b.py").write_text("def f():\n    return 1\n")
    assert import_circles(package_import_graph(package)) == []


def test_no_class_named_vector_env_outside_the_gymnasium_face():
    """``VectorEnv`` means gymnasium's vector env: the batched engine is ``BatchedEngine``, the
    SB3 env ``SB3BatchedEnv``, the gymnasium face ``CardGamesVectorEnv``."""
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                assert node.name != "VectorEnv", f"{path.relative_to(PACKAGE)} defines class VectorEnv"


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        ("cardgames_env.core.engine", "VectorEnv", "BatchedEngine"),
        ("cardgames_env.vector", "VectorEnv", "BatchedEngine"),
        ("cardgames_env.training.vector_env", "VectorTrainingEnv",
         "cardgames_env.training.sb3_vec_env:SB3BatchedEnv"),
        ("cardgames_env.training.evaluate", "GameRecord", "GameOutcome"),
        ("cardgames_env.core.progress", "Progress", "cardgames_env.display.progress:Progress"),
        ("cardgames_env.core.render", "seat_label", "cardgames_env.display.ansi:seat_label"),
        ("cardgames_env.core.picture", "draw_position", "cardgames_env.display.picture:draw_position"),
    ],
)
def test_old_public_names_still_work_with_a_deprecation_warning(module, old, new):
    import importlib

    if module.startswith("cardgames_env.training"):
        pytest.importorskip("stable_baselines3")
    where, _, name = new.rpartition(":") if ":" in new else (module, "", new)
    with pytest.deprecated_call():
        found = getattr(importlib.import_module(module), old)
    assert found is getattr(importlib.import_module(where), name)
