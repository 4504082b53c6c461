"""Fixtures: small untrained MaskablePPO models saved with their sidecars."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardgames_env.registry import ALL_ENVS


def save_untrained_model(folder: Path, env_name: str, options: dict | None = None) -> Path:
    """Save an untrained MaskablePPO for ``env_name`` as ``folder/model.zip`` + sidecar."""
    from sb3_contrib import MaskablePPO

    from cardgames_env.agents.model import write_sidecar
    from cardgames_env.wrappers.single_agent import SingleAgentEnv

    folder.mkdir(parents=True, exist_ok=True)
    env = SingleAgentEnv(env_name, options)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    path = folder / "model.zip"
    model.save(str(path))
    write_sidecar(path, env.raw)
    return path


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory) -> Path:
    """Folder holding an untrained model for the first registered env."""
    folder = tmp_path_factory.mktemp("model")
    save_untrained_model(folder, ALL_ENVS[0])
    return folder


@pytest.fixture(scope="session")
def other_model_dir(tmp_path_factory) -> tuple[Path, str]:
    """An untrained model for another env (or another variant when only one env exists)."""
    folder = tmp_path_factory.mktemp("other_model")
    if len(ALL_ENVS) > 1:
        save_untrained_model(folder, ALL_ENVS[1])
        return folder, ALL_ENVS[1]
    from cardgames_env.registry import load

    variant = next(v for v in load(ALL_ENVS[0]).TEST_VARIANTS if v)
    save_untrained_model(folder, ALL_ENVS[0], variant)
    return folder, ALL_ENVS[0]
