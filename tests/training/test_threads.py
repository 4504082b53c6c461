"""``limit_threads``: one thread count for torch and numpy's BLAS during training."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
threadpoolctl = pytest.importorskip("threadpoolctl")


def _blas_threads() -> set[int]:
    return {info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"}


def test_limit_threads_sets_torch_and_blas_and_none_leaves_them() -> None:
    import numpy as np  # noqa: F401  (loads numpy's BLAS, so threadpoolctl sees it)
    import torch

    from cardgames_env.training.threads import limit_threads

    before = torch.get_num_threads()
    with threadpoolctl.threadpool_limits(limits=None):  # restores the BLAS thread counts on exit
        try:
            blas = _blas_threads()
            assert blas  # numpy's BLAS is visible
            limit_threads(None)
            assert _blas_threads() == blas and torch.get_num_threads() == before
            limit_threads(1)
            assert torch.get_num_threads() == 1
            assert _blas_threads() == {1}
        finally:
            torch.set_num_threads(before)
