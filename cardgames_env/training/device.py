"""Where a learner runs: ``--device auto|cpu|cuda[:K]`` turned into a torch device.

The learners (PPO's network, DMC's Q-network and their imitation fits) run on the device;
the engines, the opponents, the evaluations, exported policies and the shipped ``pretrained``
agents stay on the CPU and numpy, and saved models load on any device (``map_location``).
"""

from __future__ import annotations

from typing import Any

from .config import check_device_name


def resolve_device(name: str) -> Any:
    """Return the ``torch.device`` of a ``device`` setting.

    ``auto`` is the first CUDA device when torch sees one, else the CPU; ``cuda`` is CUDA
    device 0.

    Raises:
        ValueError: for a malformed name, or a CUDA device this machine does not have.
    """
    check_device_name(name)
    import torch

    if name == "auto":
        return torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    index = int(name.partition(":")[2] or 0)
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if index >= count:
        there = f"{count} CUDA device{'s' if count != 1 else ''}" if count else "no CUDA device"
        raise ValueError(f"device {name} is not there: this machine has {there} (use --device cpu or auto)")
    return torch.device(f"cuda:{index}")


__all__ = ["resolve_device"]
