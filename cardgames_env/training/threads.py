"""How many threads a training run's numerical libraries use: torch's and numpy's BLAS."""

from __future__ import annotations


def limit_threads(count: int | None) -> None:
    """Run torch and numpy's BLAS on ``count`` threads from now on (``None`` or 0: leave both
    as they are); the config's ``torch_threads``, 1 by default.

    The batched path multiplies many small matrices in numpy: each self-play snapshot's
    forward pass over the rows it plays. On a busy machine a BLAS that spreads such a small
    product over several cores is slower than one thread, so both libraries get the same limit.
    """
    if not count:
        return
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(int(count))
    threadpool_limits(limits=int(count), user_api="blas")


__all__ = ["limit_threads"]
