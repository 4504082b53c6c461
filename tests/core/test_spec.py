"""``GameSpec`` and the registry that reads the games' specs."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from cardgames_env import registry
from cardgames_env.core.spec import GameSpec


def make_spec(**changes):
    fields = {"game": "demo", "package": "json", "env": "json:JSONDecoder"}
    return GameSpec(**{**fields, **changes})


def test_env_name_is_the_game_and_its_version():
    assert make_spec().env_name == "demo_v0"
    assert make_spec(version=3).env_name == "demo_v3"
    assert make_spec().env_module == "json"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"game": "Red Seven"}, "one lowercase word"),
        ({"game": ""}, "one lowercase word"),
        ({"version": -1}, "version"),
        ({"version": True}, "version"),
        ({"env": "no spaces allowed:X"}, "env must be"),
        ({"kernel": "a:b:c"}, "kernel must be"),
        ({"package": "pkg:attr"}, "package must be"),
        ({"search_iterations": 0}, "search_iterations"),
    ],
)
def test_a_bad_spec_is_refused_naming_the_field(changes, message):
    with pytest.raises(ValueError, match=message):
        make_spec(**changes)


def test_load_imports_a_class_or_a_module():
    import json

    spec = make_spec(view="json.decoder", heuristic="json:JSONEncoder")
    assert spec.load("env") is json.JSONDecoder
    assert spec.load("heuristic") is json.JSONEncoder
    assert spec.load("view") is importlib.import_module("json.decoder")


def test_load_names_the_spec_and_the_field_when_it_cannot():
    with pytest.raises(ValueError, match="demo_v0 has no kernel"):
        make_spec().load("kernel")
    with pytest.raises(ValueError, match="unknown spec field"):
        make_spec().load("colour")
    with pytest.raises(ModuleNotFoundError, match="demo_v0: cannot import kernel"):
        make_spec(kernel="no_such_module_here:Engine").load("kernel")
    with pytest.raises(ImportError, match="json has no 'Nothing'"):
        make_spec(heuristic="json:Nothing").load("heuristic")


def test_reading_the_specs_imports_no_numba_or_torch():
    code = (
        "import sys\n"
        "from cardgames_env import registry\n"
        "assert registry.specs()\n"
        "print(sorted({'numba', 'torch'} & set(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_every_shipped_game_has_one_spec_in_its_own_package():
    games = [s.game for s in registry.specs()]
    assert len(set(games)) == len(games) == len(registry.GAME_PACKAGES)
    for package, spec in zip(registry.GAME_PACKAGES, registry.specs()):
        assert spec.package == package
        assert package.rsplit(".", 1)[1] == spec.game
        assert spec.env.startswith(package + ".")
    assert registry.ALL_ENVS == tuple(s.env_name for s in registry.specs())


@pytest.mark.parametrize("spec", registry.specs(), ids=lambda s: s.env_name)
def test_spec_lookup_accepts_the_id_the_env_name_and_the_pettingzoo_id(spec):
    assert registry.spec(spec.game) is spec
    assert registry.spec(spec.env_name) is spec
    assert registry.spec(f"cardgames/{spec.env_name}") is spec


@pytest.mark.parametrize("spec", registry.specs(), ids=lambda s: s.env_name)
def test_every_named_target_of_a_shipped_game_imports(spec):
    env_cls = spec.load("env")
    assert env_cls.metadata["name"] == spec.env_name
    assert registry.load(spec.env_name).raw_env().info.name == spec.game
    for field in ("kernel", "heuristic", "search", "view"):
        if getattr(spec, field) is not None:
            assert spec.load(field) is not None


def test_an_unknown_name_lists_the_known_envs():
    with pytest.raises(ValueError) as error:
        registry.spec("chess_v0")
    assert "unknown env 'chess_v0'" in str(error.value)
    for name in registry.ALL_ENVS:
        assert name in str(error.value)


def test_shipped_games_cannot_be_registered_twice_or_removed():
    first = registry.specs()[0]
    with pytest.raises(ValueError, match="registered already"):
        registry.register_game(first)
    with pytest.raises(ValueError, match="shipped"):
        registry.unregister_game(first.env_name)
    with pytest.raises(ValueError, match="needs a GameSpec"):
        registry.register_game("demo")  # type: ignore[arg-type]


def test_outside_its_folder_a_game_is_named_only_in_the_registry_and_its_face():
    """Every registry reads specs: no other module (and no file the package ships outside the
    games' folders) names a game, by id or by title."""
    from pathlib import Path

    package = Path(registry.__file__).parent
    names = {}
    for spec in registry.specs():
        names[spec.game] = spec
        names[spec.load("view").TITLE.lower()] = spec
    found = []
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package)
        if not path.is_file() or rel.parts[0] == "envs" or "__pycache__" in rel.parts:
            continue
        if path.suffix not in (".py", ".js", ".html", ".css", ".json", ".md"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name, spec in names.items():
                if name not in line.lower():
                    continue
                face = rel.as_posix() == f"{spec.env_name}.py"
                listed = rel.as_posix() == "registry.py" and line.strip() == f'"{spec.package}",'
                if not (face or listed):
                    found.append(f"{rel}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
