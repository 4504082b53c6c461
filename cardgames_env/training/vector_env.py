"""Deprecated: the SB3 ``VecEnv`` over a batched engine is
:class:`cardgames_env.training.sb3_vec_env.SB3BatchedEnv` (this module's ``VectorTrainingEnv``)."""

from __future__ import annotations

import warnings
from typing import Any


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    from . import sb3_vec_env

    new = "SB3BatchedEnv" if name == "VectorTrainingEnv" else name
    warnings.warn(f"{__name__}.{name} is deprecated: use cardgames_env.training.sb3_vec_env.{new}",
                  DeprecationWarning, stacklevel=2)
    return getattr(sb3_vec_env, new)
