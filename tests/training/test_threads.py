"""Threads of a training run, chosen in one place: the learner's torch threads, the engines'
kernels and the opponents' BLAS, honoured for the whole run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
threadpoolctl = pytest.importorskip("threadpoolctl")
pytest.importorskip("sb3_contrib")

import numba  # noqa: E402

from cardgames_env.core.threads import available_cores, max_kernel_threads  # noqa: E402
from cardgames_env.training.config import Overrides, resolve_config  # noqa: E402
from cardgames_env.training.threads import ThreadPlan, plan_threads  # noqa: E402
from cardgames_env.training.train import train  # noqa: E402

TWO = available_cores() >= 2 and max_kernel_threads() >= 2


def _blas_threads() -> set[int]:
    return {info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"}


@pytest.fixture
def restore_threads():
    """Put torch's, Numba's and the BLAS thread counts back after the test."""
    import numpy as np  # noqa: F401  (loads numpy's BLAS, so threadpoolctl sees it)

    before = torch.get_num_threads(), numba.get_num_threads()
    with threadpoolctl.threadpool_limits(limits=None):  # restores the BLAS counts on exit
        yield
        torch.set_num_threads(before[0])
        numba.set_num_threads(before[1])


def test_a_cpu_learner_gets_torch_threads_and_the_kernels_get_the_budget() -> None:
    plan = plan_threads("cpu", torch_threads=1, threads=4)
    assert (plan.cores, plan.learner, plan.blas) == (4, 1, 1)
    assert plan.kernels == min(4, max_kernel_threads())
    whole = plan_threads("cpu", torch_threads=None, threads=3)
    assert (whole.learner, whole.blas) == (3, 3)
    capped = plan_threads("cpu", torch_threads=8, threads=2)
    assert (capped.learner, capped.blas) == (2, 2)
    assert plan_threads("cpu").cores == available_cores()


def test_a_gpu_learner_needs_one_cpu_thread() -> None:
    plan = plan_threads("cuda:0", torch_threads=4, threads=8)
    assert plan.learner == 1 and plan.kernels == min(8, max_kernel_threads()) and plan.blas == 4
    assert "torch on cuda:0" in plan.describe()


@pytest.mark.parametrize("bad", [0, -2, 1.5, True])
def test_a_bad_thread_count_is_refused(bad) -> None:
    with pytest.raises(ValueError, match="threads must be a positive integer"):
        plan_threads("cpu", threads=bad)


def test_apply_sets_torch_numba_and_blas(restore_threads) -> None:
    assert _blas_threads()  # numpy's BLAS is visible
    ThreadPlan(cores=1, learner=1, kernels=1, blas=1, device="cpu").apply()
    assert (torch.get_num_threads(), numba.get_num_threads(), _blas_threads()) == (1, 1, {1})


@pytest.mark.parametrize("budget", [1, 2])
def test_a_run_honours_its_thread_plan_inside(tmp_path: Path, restore_threads, budget: int) -> None:
    """The counts seen in the middle of a DMC run (when it logs its throughput, after the
    engine has stepped) are the plan's, and summary.json records them."""
    if budget == 2 and not TWO:
        pytest.skip("needs two cores")
    seen: list[tuple[int, int, set[int]]] = []

    def log(line: str) -> None:
        if line.startswith("trained ") and "learner steps" in line:
            seen.append((torch.get_num_threads(), numba.get_num_threads(), _blas_threads()))

    config = tmp_path / "tiny.json"
    dmc = {"n_envs": 128, "net_arch": [8], "batch_size": 64}
    config.write_text(json.dumps({"torch_threads": None, "dmc": dmc,
                                  "eval": {"points": 1, "games": 2, "final_games": 2}}))
    out = tmp_path / "run"
    overrides = Overrides(algo="dmc", timesteps=512, opponents="random", device="cpu", threads=budget)
    train("red7_v0", resolve_config("red7_v0", config, overrides), seed=0, out=out, progress=False, log=log)
    assert seen == [(budget, budget, {budget})]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["device"] == "cpu"
    assert summary["threads"] == {"cores": budget, "learner": budget, "kernels": budget, "blas": budget,
                                  "device": "cpu"}
