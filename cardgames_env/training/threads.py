"""How many CPU threads each part of a training run uses, chosen in one place.

A run has three users of CPU threads: the learner (torch), the batched engines' compiled
kernels (Numba) and the opponents' forward passes (numpy's BLAS). They take turns (a step of
the engine and the opponents, then the learner's forward pass or update), so each may use the
run's budget of cores, but no more:

* **engine kernels**: every core of the budget (the kernels split the games over threads);
* **learner**: the ``torch_threads`` setting on the CPU (1 by default: the learner's matrices
  are small, and on a busy machine a product spread over several cores is slower than one
  thread), one thread with a GPU learner (the CPU only feeds it);
* **opponents' BLAS**: ``torch_threads`` too: each self-play snapshot multiplies a few small
  matrices per step (numpy's BLAS, and scipy's, which compiled kernels call for ``np.dot``).

The budget is every core this process may run on, or ``--threads``.

Numba starts its OpenMP workers on the first threaded kernel call, and starting them resets
torch's thread count in the same process; :meth:`ThreadPlan.apply` starts them first (by
setting the kernels' count), then sets torch's, so the count holds for the whole run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from cardgames_env.core.threads import available_cores, max_kernel_threads, set_kernel_threads


@dataclass(frozen=True)
class ThreadPlan:
    """The threads of a run.

    Attributes:
        cores: the budget: CPU cores the run may use.
        learner: torch's threads (the learner's forward passes and updates).
        kernels: the engines' kernel threads (Numba).
        blas: numpy's BLAS threads (the opponents' forward passes).
        device: the learner's device (``"cpu"``, ``"cuda:0"``...).
    """

    cores: int
    learner: int
    kernels: int
    blas: int
    device: str

    def apply(self) -> None:
        """Set the three thread counts for this process."""
        import torch
        from threadpoolctl import threadpool_limits

        set_kernel_threads(self.kernels)  # starts Numba's workers before torch's count is set
        torch.set_num_threads(self.learner)
        try:  # the BLAS that compiled np.dot calls, loaded when first compiled: load it now
            import scipy.linalg.cython_blas  # noqa: F401
        except ImportError:  # pragma: no cover - scipy comes with the train extra
            pass
        threadpool_limits(limits=self.blas, user_api="blas")

    def as_dict(self) -> dict[str, Any]:
        """The plan as a JSON object (``summary.json``'s ``threads``)."""
        return asdict(self)

    def describe(self) -> str:
        """One line for the run's log."""
        return (f"threads: learner {self.learner} (torch on {self.device}), engine kernels {self.kernels}, "
                f"opponents' BLAS {self.blas}; {self.cores} cores")


def plan_threads(device: str, torch_threads: int | None = 1, threads: int | None = None) -> ThreadPlan:
    """Return the threads of a run whose learner is on ``device``.

    Args:
        device: the learner's torch device, as a string (``"cpu"``, ``"cuda:0"``).
        torch_threads: the learner's and the opponents' BLAS threads on the CPU (``None``: the
            whole budget); at most the budget.
        threads: the budget (``None``: :func:`~cardgames_env.core.threads.available_cores`).

    Raises:
        ValueError: for a budget or thread count below 1.
    """
    for value, what in ((threads, "threads"), (torch_threads, "torch_threads")):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError(f"{what} must be a positive integer, got {value!r}")
    cores = threads or available_cores()
    cpu_threads = min(torch_threads or cores, cores)
    learner = cpu_threads if device == "cpu" else 1
    kernels = min(cores, max_kernel_threads())
    return ThreadPlan(cores=cores, learner=learner, kernels=kernels, blas=cpu_threads, device=device)


__all__ = ["ThreadPlan", "plan_threads"]
