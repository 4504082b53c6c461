"""Export a trained model as a torch-free shipped policy (``cardgames export``).

The export keeps what playing needs: the actor MLP (Linear + Tanh layers) and the action
head, as ``DEST.npz`` (``np.savez_compressed``), with a JSON sidecar ``DEST.json`` (the
model's env, options and sizes, the layer widths, activation, dtype, the exact training
command, the source sidecar's other fields and a free ``results`` dict). The critic is left
out. Any size is written, except where a game's shipped policy lives (``pretrained`` in its
folder; or with ``max_bytes``): a shipped ``.npz`` keeps within 2 MiB (:data:`MAX_BYTES`). A DMC run
(``--algo dmc``) already saves its policy in this format; exporting it copies the weights and
adds the command and results.
:class:`cardgames_env.agents.pretrained.NumpyPolicy` plays the files; the format is described
in :mod:`cardgames_env.agents.pretrained`.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from cardgames_env.agents.model import env_signature, load_maskable_ppo, read_sidecar, resolve_model_path
from cardgames_env.agents.pretrained import FORMAT_VERSION, MAX_BYTES, in_shipped_folder

EXPORT_STAGES = ("reading the model", "encoding the weights", "writing the files")
"""The stages :func:`export_policy` reports to its ``on_stage`` callback, in order."""
DTYPES = ("float32", "float16")
"""Storage types of the exported weights (the math is float32 either way)."""
_SIZE_FIELDS = ("env", "options", "observation_size", "num_actions")
"""Sidecar fields copied exactly from the model's sidecar."""
Layers = list[tuple[np.ndarray, np.ndarray]]
"""``(weights (in, out), bias)`` pairs: the hidden layers, then the action head."""
_FORMAT_FIELDS = ("format", "format_version", "layers", "activation", "dtype", *_SIZE_FIELDS)
"""Source sidecar fields the export writes itself."""


def actor_layers(policy: Any) -> Layers:
    """Return the actor's ``(weights (in, out), bias)`` pairs, hidden layers then the action head.

    Raises:
        ValueError: naming what is unsupported, unless the policy is a flatten features
            extractor, an actor of Linear layers each followed by Tanh, and a Linear head.
    """
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from torch import nn

    extractor = getattr(policy, "pi_features_extractor", None) or getattr(policy, "features_extractor", None)
    if not isinstance(extractor, FlattenExtractor):
        raise ValueError(f"unsupported features extractor {type(extractor).__name__} (only FlattenExtractor)")
    mlp = getattr(policy, "mlp_extractor", None)
    actor = getattr(mlp, "policy_net", None)
    if not isinstance(actor, nn.Sequential):
        raise ValueError(f"unsupported actor {type(actor).__name__} (an MLP policy's nn.Sequential expected)")
    modules = list(actor)
    layers: list[tuple[np.ndarray, np.ndarray]] = []
    for i in range(0, len(modules), 2):
        linear, activation = modules[i], modules[i + 1] if i + 1 < len(modules) else None
        if not isinstance(linear, nn.Linear) or linear.bias is None:
            raise ValueError(f"unsupported actor layer {i}: {linear} (Linear with bias expected)")
        if not isinstance(activation, nn.Tanh):
            raise ValueError(f"unsupported activation after actor layer {i}: {activation} (only Tanh)")
        layers.append(linear_layer(linear))
    head = getattr(policy, "action_net", None)
    if not isinstance(head, nn.Linear) or head.bias is None:
        raise ValueError(f"unsupported action head {head} (Linear with bias expected)")
    layers.append(linear_layer(head))
    return layers


def linear_layer(layer: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return a torch Linear's weights transposed to ``(in, out)`` and its bias, as float32."""
    weight = layer.weight.detach().cpu().numpy().astype(np.float32).T
    return np.ascontiguousarray(weight), layer.bias.detach().cpu().numpy().astype(np.float32)


def sum_of_networks(first: Layers, second: Layers, weight: float) -> Layers:
    """Return the layers of one tanh MLP whose output is ``first``'s plus ``weight`` times
    ``second``'s, for two tanh MLPs of the same depth that read the same input.

    The hidden layers sit side by side (the first hidden layer's weights side by side, the later
    ones block-diagonal, so each half reads only its own half), and the heads are stacked, the
    second's scaled by ``weight``. The result's hidden widths are the sums of the two networks'.

    Raises:
        ValueError: when the networks differ in depth, input size or number of outputs.
    """
    if len(first) != len(second):
        raise ValueError(f"the networks differ in depth: {len(first)} and {len(second)} layers")
    if first[0][0].shape[0] != second[0][0].shape[0] or first[-1][0].shape[1] != second[-1][0].shape[1]:
        raise ValueError(f"the networks map {first[0][0].shape[0]} -> {first[-1][0].shape[1]} and "
                         f"{second[0][0].shape[0]} -> {second[-1][0].shape[1]} values")
    layers: Layers = []
    for depth, ((w1, b1), (w2, b2)) in enumerate(zip(first, second)):
        if depth == len(first) - 1:  # the heads: one output, the sum
            weights, bias = np.vstack([w1, weight * w2]), b1 + weight * b2
        elif depth == 0:  # both read the whole input
            weights, bias = np.hstack([w1, w2]), np.concatenate([b1, b2])
        else:
            weights = np.zeros((w1.shape[0] + w2.shape[0], w1.shape[1] + w2.shape[1]))
            weights[:w1.shape[0], :w1.shape[1]], weights[w1.shape[0]:, w1.shape[1]:] = w1, w2
            bias = np.concatenate([b1, b2])
        layers.append((weights.astype(np.float32), bias.astype(np.float32)))
    return layers


def export_policy(
    run_or_zip: str | Path,
    dest_stem: str | Path,
    *,
    command: str,
    dtype: str = "float32",
    results: dict[str, Any] | None = None,
    max_bytes: int | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> tuple[Path, Path]:
    """Write ``dest_stem.npz`` and ``dest_stem.json`` from a model saved by ``cardgames train``.

    Args:
        run_or_zip: a MaskablePPO model (the run folder, its ``model.zip``, or the zip without
            suffix) or an exported policy (its ``.npz``, or the run folder of ``--algo dmc``
            holding ``model.npz``).
        dest_stem: the output path without suffix (a ``.npz`` or ``.json`` suffix is dropped).
        command: the exact command that trained the model (kept in the sidecar).
        dtype: ``"float32"`` or ``"float16"`` storage of the weights.
        results: free evaluation figures kept in the sidecar (``{}`` when ``None``).
        max_bytes: the largest ``.npz`` allowed; ``None``: any size, except in the package's
            folder of shipped policies, where the shipping limit :data:`MAX_BYTES` (2 MiB)
            always applies.
        on_stage: called with each of :data:`EXPORT_STAGES` as it starts (a progress bar's
            ``begin``; reading a large model takes seconds).

    Returns:
        The paths of the ``.npz`` and the ``.json`` written.

    Raises:
        ValueError: for a missing or unreadable model or sidecar, an unsupported policy, a bad
            dtype, an empty command, a non-positive ``max_bytes``, or an ``.npz`` over the
            limit (nothing is written then).
    """
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    if not isinstance(command, str) or not command.strip():
        raise ValueError("command must be the (non-empty) command that trained the model")
    if results is not None and not isinstance(results, dict):
        raise TypeError(f"results must be a dict, got {type(results).__name__}")
    if max_bytes is not None and max_bytes <= 0:
        raise ValueError(f"max_bytes must be positive, got {max_bytes}")
    if in_shipped_folder(dest_stem):
        max_bytes = MAX_BYTES if max_bytes is None else min(max_bytes, MAX_BYTES)
    stage = on_stage if on_stage is not None else (lambda name: None)
    stage(EXPORT_STAGES[0])
    layers, source, shown = _source_policy(run_or_zip)
    missing = [key for key in _SIZE_FIELDS if key not in source]
    if missing:
        raise ValueError(f"model sidecar of {shown} lacks {', '.join(missing)}")
    if layers[0][0].shape[0] != source["observation_size"] or layers[-1][0].shape[1] != source["num_actions"]:
        raise ValueError(
            f"model {shown} reads {layers[0][0].shape[0]} values and has {layers[-1][0].shape[1]} "
            f"actions; its sidecar says {source['observation_size']} and {source['num_actions']}"
        )
    stage(EXPORT_STAGES[1])
    data = encode_policy(layers, dtype, max_bytes)
    sidecar = {key: value for key, value in source.items() if key not in _FORMAT_FIELDS}
    sidecar.update({key: source[key] for key in _SIZE_FIELDS})
    sidecar.update(command=command, results=dict(results or {}))
    stage(EXPORT_STAGES[2])
    return _write_pair(dest_stem, data, policy_sidecar(layers, dtype, sidecar))


def _source_policy(run_or_zip: str | Path) -> tuple[Layers, dict[str, Any], Path]:
    """Return the layers, the sidecar and the file of the model ``run_or_zip`` names: an
    exported policy (an ``.npz``, or a run folder holding ``model.npz``, as ``--algo dmc``
    writes) or a MaskablePPO model (a ``.zip``, the zip without suffix, or a run folder)."""
    from cardgames_env.agents.pretrained import exported_policy_file, read_exported

    npz = exported_policy_file(run_or_zip)
    if npz is not None:
        policy, source = read_exported(npz)
        return [(w, b) for w, b in policy.layers], source, npz
    zip_path = resolve_model_path(run_or_zip)
    source = read_sidecar(zip_path)
    model = load_maskable_ppo(zip_path, zip_path, "exporting")
    return actor_layers(model.policy), source, zip_path


def encode_policy(layers: Layers, dtype: str = "float32", max_bytes: int | None = None) -> bytes:
    """Return the ``.npz`` bytes of ``(weights (in, out), bias)`` layers, the head last.

    Raises:
        ValueError: for a bad dtype, or when the file would exceed ``max_bytes`` (``None``:
            any size; :data:`MAX_BYTES` is the shipping limit).
    """
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    arrays: dict[str, np.ndarray] = {}
    for i, (w, b) in enumerate(layers[:-1]):
        arrays[f"w{i}"], arrays[f"b{i}"] = w.astype(dtype), b.astype(dtype)
    arrays["action_w"], arrays["action_b"] = layers[-1][0].astype(dtype), layers[-1][1].astype(dtype)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
    data = buffer.getvalue()
    if max_bytes is not None and len(data) > max_bytes:
        hint = "try --dtype float16 or a smaller network" if dtype == "float32" else "use a smaller network"
        limit = "2 MiB shipping" if max_bytes == MAX_BYTES else f"{max_bytes}-byte"
        raise ValueError(
            f"the exported policy is {len(data)} bytes ({len(data) / 2**20:.2f} MiB), over the "
            f"{limit} limit: {hint}"
        )
    return data


def policy_sidecar(layers: Layers, dtype: str, fields: dict[str, Any]) -> dict[str, Any]:
    """Return ``fields`` with the format's own: version, hidden widths, activation, dtype."""
    return {**fields, "format_version": FORMAT_VERSION, "layers": [int(w.shape[1]) for w, _ in layers[:-1]],
            "activation": "tanh", "dtype": dtype}


def write_policy(dest_stem: str | Path, layers: Layers, env: Any, **fields: Any) -> tuple[Path, Path]:
    """Write ``layers`` (tanh hidden layers, the head last) as an exported policy for ``env``:
    ``dest_stem.npz`` (float32, any size) and its sidecar ``dest_stem.json`` (the env's
    signature, ``fields``).

    Raises:
        ValueError: when a file cannot be written.
    """
    sidecar = policy_sidecar(layers, "float32", {**env_signature(env), **fields})
    return _write_pair(dest_stem, encode_policy(layers), sidecar)


def _write_pair(dest_stem: str | Path, data: bytes, sidecar: dict[str, Any]) -> tuple[Path, Path]:
    """Write ``STEM.npz`` (``data``) and ``STEM.json`` (``sidecar``); return their paths."""
    stem = Path(dest_stem)
    if stem.suffix in (".npz", ".json"):
        stem = stem.with_suffix("")
    npz_path, json_path = stem.with_name(stem.name + ".npz"), stem.with_name(stem.name + ".json")
    try:
        npz_path.parent.mkdir(parents=True, exist_ok=True)
        npz_path.write_bytes(data)
        json_path.write_text(json.dumps(sidecar, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    except OSError as error:
        raise ValueError(f"cannot write {stem}: {error.strerror or error}") from None
    return npz_path, json_path


__all__ = [
    "DTYPES", "EXPORT_STAGES", "Layers", "actor_layers", "encode_policy", "export_policy", "linear_layer",
    "policy_sidecar", "sum_of_networks", "write_policy",
]
