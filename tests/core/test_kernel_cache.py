"""The compiled kernels' cache follows what they read (tables in other modules, kernels they
call), and the first compilation of a process says so once on a terminal's stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from cardgames_env.core.kernel_cache import NOTICE, reads_digest

ROOT = Path(__file__).resolve().parents[2]

TABLES = """
import numpy as np
from numba import njit

TABLE = np.array({table}, dtype=np.int64)
OFFSET = {offset}


@njit(cache=True)
def shifted(i):
    return TABLE[i] + OFFSET
"""
"""A module of tables and a kernel, which the probe's kernels read from another file."""

PROBE = """
from numba import njit

from cardgames_env._probe_tables import TABLE, shifted
import cardgames_env._probe_tables as tables


@njit(cache=True)
def imported(i):
    return TABLE[i]


@njit(cache=True)
def through_module(i):
    return tables.OFFSET + i


@njit(cache=True)
def calling(i):
    return shifted(i)
"""
"""Kernels of a module inside the package (so the package's cache stamp applies), whose file
never changes in the test: only the other module does."""

RUN = """
import importlib.util, json, sys
from cardgames_env.core import kernel_cache
kernel_cache.is_terminal = lambda stream: True  # as on a terminal, where the notice is printed

def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

load("cardgames_env._probe_tables", sys.argv[1])
probe = load("cardgames_env._probe", sys.argv[2])
results = {name: int(getattr(probe, name)(1)) for name in ("imported", "through_module", "calling")}
misses = {name: sum(getattr(probe, name).stats.cache_misses.values())
          for name in ("imported", "through_module", "calling")}
print(json.dumps({"results": results, "misses": misses}))
"""


def _run(folder: Path) -> tuple[dict, str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(folder / "cache"),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", RUN, str(folder / "tables.py"), str(folder / "probe.py")],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_an_edited_table_or_callee_in_another_file_recompiles_the_kernels(tmp_path):
    (tmp_path / "probe.py").write_text(PROBE)
    (tmp_path / "tables.py").write_text(TABLES.format(table=[1, 2, 3], offset=10))
    first, err = _run(tmp_path)
    assert first["results"] == {"imported": 2, "through_module": 11, "calling": 12}
    assert all(first["misses"].values())  # an empty cache: compiled
    notices = [line for line in err.splitlines() if "compiling the Numba kernels" in line]
    assert len(notices) == 1 and notices[0].startswith("cardgames_env: compiling"), err
    again, err = _run(tmp_path)
    assert again["results"] == first["results"] and not any(again["misses"].values())  # from the cache
    assert "compiling" not in err, err
    # The probe's own file is unchanged (Numba's source stamp is the same); the tables are not.
    (tmp_path / "tables.py").write_text(TABLES.format(table=[1, 7, 3], offset=20))
    edited, _ = _run(tmp_path)
    assert edited["results"] == {"imported": 7, "through_module": 21, "calling": 27}
    assert all(edited["misses"].values())


def test_the_notice_is_one_line_naming_what_compiles_and_that_it_is_once():
    line = NOTICE.format(package="cardgames_env", module="cardgames_env.envs.x.kernel")
    assert "\n" not in line and "once" in line and "cache" in line and "cardgames_env.envs.x.kernel" in line


def test_the_red7_engine_digest_covers_the_run_table(monkeypatch):
    """Red7's engine calls the compiled scoring of scoring.py, which reads RUN_TABLE through arrays
    built from it at import: another table gives another digest for the scoring function and for
    every kernel that calls it, the engine's step included (a callee in another module)."""
    from cardgames_env.envs.red7 import kernel, scoring

    functions = [scoring.strength.py_func, kernel._step_slot.py_func]
    before = [reads_digest(f) for f in functions]
    assert [reads_digest(f) for f in functions] == before  # deterministic
    changed = scoring._RUN_LEN.copy()
    changed[5] += 1
    monkeypatch.setattr(scoring, "_RUN_LEN", changed)
    after = [reads_digest(f) for f in functions]
    assert all(a != b for a, b in zip(after, before))
    assert np.array_equal(scoring._RUN_LEN, changed)
