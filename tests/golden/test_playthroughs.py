"""Golden playthroughs: every env variant and every batched engine must replay its committed game.

Each file under ``tests/golden/data/`` is one seeded random game (see
:mod:`tests.golden.playthrough`); the tests below play it again and compare line by line.

A refactor never changes a playthrough. A change that does (rules, notation, observation or
mask layout, rewards, dealing, the turn limit) is a behaviour change of the env: bump its
version (``<game>_v0`` -> ``<game>_v1``, with a line in the env card's *Version history*),
then rewrite the files from the repository root with::

    python -m tests.golden.regenerate            # or: --only red7_v0
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from itertools import zip_longest
from pathlib import Path

import pytest

from cardgames_env.registry import ALL_ENVS
from cardgames_env.vector import available

from .playthrough import DATA, Case, aec_cases, aec_lines, all_files, render, vector_lines, vector_path

CASES = aec_cases()

HOW_TO_FIX = (
    "A refactor must not change a golden playthrough. If this behaviour change is intended, "
    "bump the env's version (<game>_v0 -> <game>_v1, with a line in the env card's "
    "'Version history') and regenerate: python -m tests.golden.regenerate"
)


def first_difference(path: Path, lines: Iterable[str]) -> str | None:
    """Compare ``lines`` with the file at ``path``; describe the first differing line, or None."""
    if not path.exists():
        return f"{path.name} is missing. {HOW_TO_FIX}"
    expected = path.read_text(encoding="utf-8").splitlines()
    context = ""
    for number, (want, got) in enumerate(zip_longest(expected, lines), 1):
        if want != got:
            return (
                f"{path.name} differs first at line {number}"
                + (f" (after: {context})" if context else "")
                + f"\n  expected: {want if want is not None else '<end of file>'}"
                + f"\n  got:      {got if got is not None else '<end of game>'}"
                + f"\n{HOW_TO_FIX}"
            )
        context = got[:120]
    return None


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path.stem)
def test_aec_playthrough_replays(case: Case) -> None:
    problem = first_difference(case.path, aec_lines(case))
    assert problem is None, problem


@pytest.mark.parametrize("parallel", [False, True], ids=["one_thread", "threaded"])
@pytest.mark.parametrize("name", available())
def test_vector_playthrough_replays(name: str, parallel: bool) -> None:
    problem = first_difference(vector_path(name), vector_lines(name, parallel=parallel))
    assert problem is None, problem


def test_every_env_has_a_batched_playthrough() -> None:
    assert sorted(available()) == sorted(ALL_ENVS)


def test_no_stale_files() -> None:
    stale = sorted(p.name for p in set(DATA.glob("*/*.txt")) - set(all_files()))
    assert not stale, f"playthroughs of no env or variant: {stale}; run python -m tests.golden.regenerate"


def test_a_changed_line_is_reported_with_its_number(tmp_path: Path) -> None:
    case = next(c for c in CASES if c.env == "red7_v0")
    lines = case.path.read_text(encoding="utf-8").splitlines()
    altered = tmp_path / case.path.name
    altered.write_text("\n".join(lines[:12] + ["step 999 changed"] + lines[13:]) + "\n", encoding="utf-8")
    problem = first_difference(altered, aec_lines(case))
    assert problem is not None and "line 13" in problem and "regenerate" in problem
    shortened = tmp_path / "short.txt"
    shortened.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    problem = first_difference(shortened, aec_lines(case))
    assert problem is not None and f"line {len(lines)}" in problem and "<end of file>" in problem


def test_another_seed_gives_another_game() -> None:
    case = next(c for c in CASES if c.env == "red7_v0")
    other = Case(case.env, case.options, case.seed + 100)
    assert render(aec_lines(other)) != case.path.read_text(encoding="utf-8")


ACT = re.compile(r'^step (\d+) (\S+) act (\d+) (".*") rewards ')
LEGAL = re.compile(r"^step (\d+) (\S+) legal (\d+) sha=[0-9a-f]{16}(?: \[(.*)\])?$")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path.stem)
def test_each_chosen_move_is_one_of_the_listed_legal_moves(case: Case) -> None:
    """Read from the file alone: a listed legal-move list has its stated length and holds the move."""
    legal: dict[str, tuple[str, int, list[str] | None]] = {}
    acts = 0
    for line in case.path.read_text(encoding="utf-8").splitlines():
        if m := LEGAL.match(line):
            listed = m.group(4).split(" | ") if m.group(4) is not None else None
            assert listed is None or len(listed) == int(m.group(3)), line
            legal[m.group(1)] = (m.group(2), int(m.group(3)), listed)
        elif m := ACT.match(line):
            acts += 1
            mover, count, listed = legal[m.group(1)]
            assert m.group(2) == mover and count >= 1, line
            assert listed is None or json.loads(m.group(4)) in listed, line
    assert acts == len(legal) > 0
