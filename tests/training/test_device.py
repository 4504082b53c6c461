"""``--device``: where the learners run, the refusal of a device that is not there, and saved
models that load on any device."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from cardgames_env.cli import main
from cardgames_env.training.config import Overrides, resolve_config

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from cardgames_env.training.device import resolve_device  # noqa: E402
from cardgames_env.training.train import train  # noqa: E402

CUDA = torch.cuda.is_available()
TINY_EVAL = {"eval": {"points": 1, "games": 2, "final_games": 2}, "checkpoint_every": 100_000}
TINY_DMC = {"dmc": {"n_envs": 16, "net_arch": [8], "batch_size": 64}, **TINY_EVAL}
TINY_PPO = {"vector": {"n_envs": 8, "ppo": {"n_steps": 16, "batch_size": 64}},
            "ppo": {"n_epochs": 1, "net_arch": [8]}, **TINY_EVAL}


def _config(folder: Path, settings: dict) -> Path:
    path = folder / "tiny.json"
    path.write_text(json.dumps(settings))
    return path


def test_cpu_and_auto_resolve_to_a_device_torch_has() -> None:
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto") == torch.device("cuda:0" if CUDA else "cpu")


@pytest.mark.parametrize("name", ["gpu", "cuda:x", "CPU", "cuda:", "", "cuda:0:1"])
def test_a_malformed_device_is_refused_by_the_settings(name: str) -> None:
    with pytest.raises(ValueError, match="device must be auto, cpu, cuda or cuda:K"):
        resolve_device(name)
    with pytest.raises(ValueError, match="device must be"):
        resolve_config("red7", overrides=Overrides(device=name))


def test_a_cuda_device_that_is_not_there_is_a_clear_error() -> None:
    count = torch.cuda.device_count() if CUDA else 0
    with pytest.raises(ValueError, match=rf"device cuda:{count} is not there"):
        resolve_device(f"cuda:{count}")
    if not CUDA:
        with pytest.raises(ValueError, match="no CUDA device"):
            resolve_device("cuda")


def test_cli_refuses_a_missing_device_with_one_line_and_writes_nothing(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    missing = f"cuda:{torch.cuda.device_count() if CUDA else 0}"
    for device, needle in ((missing, f"device {missing} is not there"), ("tpu", "device must be")):
        assert main(["train", "red7_v0", "--device", device, "--out", "run", "--no-progress"]) == 2
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0] and "Traceback" not in captured.err, captured.err
    assert list(tmp_path.iterdir()) == []


def _tag_as_cuda(data: bytes) -> bytes:
    """``data`` (a ``torch.save`` file) saved again with every storage tagged ``cuda:0``, as a
    model saved on a GPU is."""
    import torch.serialization as serialization

    state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=False)
    registry = list(serialization._package_registry)

    def tagger(obj):
        return "cuda:0" if getattr(obj, "device", None) is not None and obj.device.type == "cpu" else None

    serialization.register_package(1, tagger, lambda obj, location: None)
    out = io.BytesIO()
    try:
        torch.save(state, out)
    finally:
        serialization._package_registry[:] = registry
    return out.getvalue()


def test_a_model_saved_on_a_gpu_loads_on_the_cpu(tmp_path: Path) -> None:
    """Simulated where there is no GPU: the saved tensors are tagged ``cuda:0`` (torch refuses
    them without ``map_location`` on a CPU-only machine); the model still loads and plays the
    same moves as the original."""
    from cardgames_env.agents.model import ModelAgent

    from .conftest import save_untrained_model

    path = save_untrained_model(tmp_path / "cpu", "red7_v0")
    tagged = tmp_path / "gpu" / "model.zip"
    tagged.parent.mkdir()
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(tagged, "w") as dest:
        for item in source.infolist():
            data = source.read(item)
            dest.writestr(item, _tag_as_cuda(data) if item.filename.endswith(".pth") else data)
    (tagged.parent / "model.json").write_bytes((path.parent / "model.json").read_bytes())
    with zipfile.ZipFile(tagged) as archive:
        policy_bytes = archive.read("policy.pth")
    if not CUDA:
        with pytest.raises(RuntimeError, match="CUDA"):
            torch.load(io.BytesIO(policy_bytes), weights_only=False)
    original, moved = ModelAgent.load(path), ModelAgent.load(tagged)
    observations = np.random.default_rng(0).random((32, moved.policy.observation_space.shape[0]),
                                                   dtype=np.float32)
    masks = np.ones((32, moved.policy.action_space.n), dtype=bool)
    assert np.array_equal(original.act_batch(observations, masks), moved.act_batch(observations, masks))
    assert moved.policy.device.type == "cpu"


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device (torch.cuda.is_available() is False here)")
@pytest.mark.parametrize("algo", ["dmc", "ppo"])
def test_cuda_smoke_a_learner_trains_on_the_gpu_and_plays_on_the_cpu(tmp_path: Path, algo: str) -> None:
    """A tiny run of each learner on CUDA: the summary names the device, the GPU learner has
    one CPU thread, and the saved model plays on the CPU."""
    from cardgames_env.agents.model import ModelAgent
    from cardgames_env.training.evaluate import evaluate

    out = tmp_path / "run"
    path = _config(tmp_path, TINY_DMC if algo == "dmc" else TINY_PPO)
    overrides = Overrides(algo=algo, engine="vector", timesteps=512, opponents="random", device="cuda")
    result = train("red7_v0", resolve_config("red7_v0", path, overrides), seed=0, out=out, progress=False,
                   log=lambda _: None)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["device"] == "cuda:0" and summary["threads"]["learner"] == 1
    assert result.timesteps >= 512
    if algo == "ppo":
        assert ModelAgent.load(out / "model.zip").policy.device.type == "cpu"
    assert evaluate("red7_v0", str(out), "random", games=2).games == 2
