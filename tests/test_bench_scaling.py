"""``benchmarks/bench_scaling.py`` runs and prints its table; bad arguments exit with status 2.

Only the script's behaviour is checked here (a row per engine with a figure per size and
thread count); the figures themselves are measurements, reported in ``docs/results``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture()
def bench_scaling(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_scaling

    return bench_scaling


def test_prints_a_row_per_engine_with_both_thread_counts(bench_scaling, capsys) -> None:  # type: ignore[no-untyped-def]
    from cardgames_env.core.threads import kernel_threads, max_kernel_threads

    before = kernel_threads()
    argv = ["--quick", "--games", "gongzhu_v0", "red7_v0[num_players=4]", "--sizes", "130,200"]
    assert bench_scaling.main(argv) == 0
    assert kernel_threads() == before, "the script restores the kernels' thread count"
    out = capsys.readouterr().out
    threads = max_kernel_threads()
    assert f"| engines | N=130: 1 thread | N=130: {threads} threads | N=130: × |" in out
    for label in ("gongzhu_v0", "red7_v0[num_players=4]"):
        row = next(line for line in out.splitlines() if line.startswith(f"| {label} |"))
        cells = [c.strip() for c in row.strip("|").split("|")][1:]
        assert len(cells) == 6 and all(re.fullmatch(r"[\d,]+(\.\d+×)?|\d+\.\d+×", c) for c in cells), row
    assert [section.title for section in bench_scaling.SECTIONS][0] == "engines"


@pytest.mark.parametrize(
    "argv",
    [["--games", "chess_v0"], ["--sizes", "abc"], ["--sizes", "0"], ["--threads", "0"], ["--sections", "x"]],
)
def test_bad_arguments_exit_with_status_2(bench_scaling, argv: list[str], capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exit_:
        bench_scaling.main(argv)
    assert exit_.value.code == 2
    assert "error:" in capsys.readouterr().err

