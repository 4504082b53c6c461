"""``RLlibAgent``: a policy from an RLlib checkpoint playing through observations and masks.

``cardgames train ENV --backend rllib`` saves an RLlib algorithm checkpoint folder with a
``cardgames.json`` sidecar (the env, its options and sizes, and which module plays). The
module is read from ``<checkpoint>/learner_group/learner/rl_module/<module>`` (the layout
RLlib 2.60 writes), fed ``{"observations", "action_mask"}`` batches and played by masked
argmax. Ray is imported lazily: the rest of the package works without it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from cardgames_env.core.extras import missing_extra

from .model import check_sidecar, choose_legal, legal_actions

SIDECAR = "cardgames.json"
"""Sidecar file of an RLlib checkpoint folder (env, options, sizes, module id)."""
RLLIB_MARKER = "rllib_checkpoint.json"
"""File RLlib writes into every checkpoint folder."""
MODULE_PATH = ("learner_group", "learner", "rl_module")
"""Where the trained modules lie inside an algorithm checkpoint."""


def looks_like_rllib_checkpoint(spec: str) -> bool:
    """Return True when ``spec`` is a folder holding both ``cardgames.json`` and ``rllib_checkpoint.json``."""
    path = Path(spec)
    return path.is_dir() and (path / SIDECAR).is_file() and (path / RLLIB_MARKER).is_file()


def read_rllib_sidecar(checkpoint: str | Path) -> dict[str, Any]:
    """Read the sidecar of an RLlib checkpoint folder.

    Raises:
        ValueError: when it is missing, unreadable, or names no env or module.
    """
    path = Path(checkpoint) / SIDECAR
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"unreadable RLlib checkpoint sidecar {path!s}: {error}") from None
    if not isinstance(data, dict) or "env" not in data or "module" not in data:
        raise ValueError(f"RLlib checkpoint sidecar {path!s} does not name an env and a module")
    return data


class RLlibAgent:
    """Plays an RLlib module: masked logits, argmax (deterministic) or a seeded sample.

    Args:
        module: an RLlib ``RLModule`` taking ``{"observations", "action_mask"}`` observations
            (use :meth:`load` for a checkpoint).
        deterministic: play the most likely legal action instead of sampling.
        seed: seed of the sampling randomness.
        name: label used in tables.
    """

    needs_observation = True

    def __init__(self, module: Any, deterministic: bool = True, seed: int | None = None, name: str = "rllib"):
        self.policy = module
        """The RLlib module (named ``policy`` like :class:`ModelAgent`'s, so evaluation shares one copy)."""
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.name = name
        self.sidecar: dict[str, Any] = {}

    @classmethod
    def load(
        cls, checkpoint: str | Path, env: Any = None, seed: int | None = None, deterministic: bool = True
    ) -> RLlibAgent:
        """Load the sidecar's module from an RLlib checkpoint folder; with ``env``, refuse another env.

        Raises:
            ValueError: missing/mismatched sidecar, ray not installed, or no loadable module.
        """
        folder = Path(checkpoint)
        sidecar = read_rllib_sidecar(folder)
        if env is not None:
            check_sidecar(sidecar, env, folder)
        module_dir = folder.joinpath(*MODULE_PATH, str(sidecar["module"]))
        if not module_dir.is_dir():
            raise ValueError(f"RLlib checkpoint {folder!s} has no module folder {module_dir!s}")
        try:
            from ray.rllib.core.rl_module.rl_module import RLModule
        except ImportError as error:
            raise ValueError(f"{missing_extra('loading an RLlib checkpoint', 'rllib')} ({error})") from None
        try:
            module = RLModule.from_checkpoint(str(module_dir.resolve()))
        except Exception as error:  # a corrupt or foreign checkpoint: report it as bad input
            raise ValueError(f"cannot load RLlib module from {module_dir!s}: {error}") from None
        agent = cls(module, deterministic=deterministic, seed=seed, name=folder.name)
        agent.sidecar = sidecar
        return agent

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Return the module's action logits for one observation (float64)."""
        import torch

        obs = {
            "observations": torch.as_tensor(np.asarray(observation, dtype=np.float32).reshape(1, -1)),
            "action_mask": torch.as_tensor(np.asarray(action_mask, dtype=np.float32).reshape(1, -1)),
        }
        with torch.no_grad():
            out = self.policy.forward_inference({"obs": obs})
        return np.asarray(out["action_dist_inputs"][0], dtype=np.float64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the module's legal action for this observation."""
        legal = legal_actions(action_mask)
        return choose_legal(legal, self.logits(observation, action_mask)[legal], self.deterministic, self.rng)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the sampling when ``seed`` is given."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
