"""How many threads a training run's numerical libraries use: torch's and numpy's BLAS."""

from __future__ import annotations


def limit_threads(count: int | None) -> None:
    """Run torch and numpy's BLAS on ``count`` threads from now on (``None`` or 0: leave both
    as they are); the config's ``torch_threads``, 1 by default.

    The batched path multiplies many small matrices in numpy: each self-play snapshot's
    forward pass over the rows it plays. On a busy 2-core machine a BLAS that spreads such a
    product over both cores made a Haggis snapshot's forward pass 3-4 times slower than one
    thread did (14 to 256 rows), so both libraries get the same limit.
    """
    if not count:
        return
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(int(count))
    threadpool_limits(limits=int(count), user_api="blas")


__all__ = ["limit_threads"]
