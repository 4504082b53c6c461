"""TorchRL's ``PettingZooWrapper(return_state=True)`` reads ``state()`` / ``state_space``
(skipped unless ``torchrl`` is installed; it is no dependency of the package)."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env.registry import ALL_ENVS, load


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_ENVS)
def test_torchrl_wrapper_returns_the_global_state(name):
    torch = pytest.importorskip("torch", reason="torch is not installed (the 'train' extra)")
    pettingzoo_lib = pytest.importorskip(
        "torchrl.envs.libs.pettingzoo",
        reason="torchrl is not installed (no dependency of the package; .ci/run installs it)",
    )
    raw_state_size = load(name).raw_env().state_space.shape
    env = pettingzoo_lib.PettingZooWrapper(
        env=load(name).env(), return_state=True, use_mask=True, categorical_actions=True, seed=0
    )
    td = env.reset()
    assert td["state"].shape == raw_state_size and td["state"].dtype == torch.float32
    for _ in range(30):
        for group in env.group_map:
            masks = td[group, "action_mask"].numpy()
            td[group, "action"] = torch.tensor(
                [int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks]
            )
        td = env.step(td)["next"]
        assert td["state"].shape == raw_state_size
        if td["done"].any():
            break
