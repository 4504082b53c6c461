"""``ModelAgent``: a saved MaskablePPO policy playing through observations and masks.

Every model saved by :mod:`cardgames_env.training` has a small JSON *sidecar* next to its zip
(``model.zip`` -> ``model.json``) naming the env, its options and the observation/action
sizes. Loading a model for an env checks the sidecar and the model's spaces, so a model
trained for another game or variant is refused with a clear ``ValueError`` instead of
playing nonsense (or crashing deep inside torch).

Torch and sb3-contrib are imported lazily: the rest of the package works without them.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np

from cardgames_env.core.extras import missing_extra
from cardgames_env.core.masks import legal_actions, legal_rows
from cardgames_env.core.rng import make_rng

SIDECAR_FORMAT = 1
"""Version of the sidecar's JSON layout."""
MODEL_FILE = "model.zip"
"""File name of the final model inside a training output folder."""


def resolve_model_path(path: str | Path) -> Path:
    """Return the ``.zip`` a model reference points to: a zip, a zip without suffix, or a run folder.

    Raises:
        ValueError: when no such model file exists.
    """
    p = Path(path)
    candidates = [p]
    if p.is_dir():
        candidates = [p / MODEL_FILE]
    elif p.suffix != ".zip":
        candidates.append(p.with_name(p.name + ".zip"))
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ValueError(f"no model file at {path!s}")


def looks_like_model_path(spec: str) -> bool:
    """Return True when ``spec`` names a model (a ``.zip`` path, a folder or file that exists)."""
    if spec.endswith(".zip") or "/" in spec or "\\" in spec:
        return True
    return Path(spec).exists() or Path(spec + ".zip").exists()


def sidecar_path(model_path: str | Path) -> Path:
    """Return the sidecar JSON path of a model zip (``x/model.zip`` -> ``x/model.json``)."""
    p = Path(model_path)
    return p.with_suffix(".json") if p.suffix == ".zip" else p.with_name(p.name + ".json")


def env_signature(env: Any) -> dict[str, Any]:
    """Return what identifies an env for a model: name, options and space sizes."""
    raw = env.unwrapped
    options = {
        f.name: getattr(raw.config, f.name)
        for f in dataclasses.fields(raw.config)
        if getattr(raw.config, f.name) != f.default
    }
    return {
        "env": raw.metadata["name"],
        "game": raw.info.name,
        "options": options,
        "num_players": len(raw.possible_agents),
        "observation_size": int(raw.encoding.observation_size),
        "num_actions": int(raw.encoding.num_actions),
    }


def write_sidecar(model_path: str | Path, env: Any, **extra: Any) -> Path:
    """Write the JSON sidecar of a saved model for ``env``; ``extra`` adds fields (timesteps...)."""
    data = {"format": SIDECAR_FORMAT, **env_signature(env), **extra}
    path = sidecar_path(model_path)
    path.write_text(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
    return path


def read_sidecar(model_path: str | Path) -> dict[str, Any]:
    """Read a model's sidecar.

    Raises:
        ValueError: when it is missing or not valid JSON.
    """
    path = sidecar_path(model_path)
    if not path.is_file():
        raise ValueError(
            f"model {model_path!s} has no sidecar {path.name} (written by `cardgames train`): "
            "cannot tell which env it was trained for"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"unreadable model sidecar {path!s}: {error}") from None
    if not isinstance(data, dict) or "env" not in data:
        raise ValueError(f"model sidecar {path!s} does not name an env")
    return data


def check_sidecar(sidecar: dict[str, Any], env: Any, model_path: str | Path) -> None:
    """Raise ``ValueError`` unless the sidecar describes ``env`` (name, options, sizes)."""
    expected = env_signature(env)
    if sidecar.get("env") != expected["env"]:
        raise ValueError(
            f"model {model_path!s} was trained for {sidecar.get('env')}, not {expected['env']}"
        )
    if dict(sidecar.get("options", {})) != expected["options"]:
        raise ValueError(
            f"model {model_path!s} was trained for {expected['env']} with options "
            f"{sidecar.get('options', {})}, not {expected['options']}"
        )
    for key in ("observation_size", "num_actions"):
        if sidecar.get(key) != expected[key]:
            raise ValueError(
                f"model {model_path!s} expects {key} {sidecar.get(key)}, the env has {expected[key]}"
            )


def check_spaces(model: Any, env: Any, model_path: str | Path) -> None:
    """Raise ``ValueError`` unless the model's spaces have the env's observation and action sizes."""
    expected = env_signature(env)
    obs_shape = tuple(getattr(model.observation_space, "shape", ()) or ())
    n_actions = getattr(model.action_space, "n", None)
    if obs_shape != (expected["observation_size"],) or n_actions != expected["num_actions"]:
        raise ValueError(
            f"model {model_path!s} has observation shape {obs_shape} and {n_actions} actions; "
            f"{expected['env']} needs ({expected['observation_size']},) and {expected['num_actions']}"
        )


def choose_legal(
    legal: np.ndarray, legal_logits: np.ndarray, deterministic: bool, rng: np.random.Generator
) -> int:
    """Pick among the ``legal`` actions by their logits: the largest (``deterministic``) or a
    sample from their softmax drawn with ``rng``."""
    if deterministic:
        return int(legal[int(np.argmax(legal_logits))])
    weights = np.exp(legal_logits - legal_logits.max())
    return int(legal[rng.choice(legal.size, p=weights / weights.sum())])


def load_maskable_ppo(zip_path: Path, shown: str | Path, purpose: str = "loading") -> Any:
    """Load a MaskablePPO zip on CPU; a missing library or a bad zip is a ``ValueError``.

    Args:
        zip_path: the model's ``.zip``.
        shown: how the model is named in messages (the path the user gave).
        purpose: what needs the library, for the message (``"loading"``, ``"exporting"``).
    """
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as error:  # pragma: no cover - depends on the install
        raise ValueError(f"{missing_extra(f'{purpose} a model', 'train')} ({error})") from None
    try:
        return MaskablePPO.load(str(zip_path), device="cpu")
    except Exception as error:  # a corrupt or foreign zip: report it as bad input
        raise ValueError(f"cannot load model {shown!s}: {error}") from None


class ModelAgent:
    """Plays a MaskablePPO policy: masked logits, argmax (deterministic) or a seeded sample.

    Args:
        policy: a ``MaskableActorCriticPolicy`` (use :meth:`load` for a saved model).
        deterministic: play the most likely legal action instead of sampling.
        seed: seed of the sampling randomness.
        name: label used in tables.
    """

    needs_observation = True

    def __init__(self, policy: Any, deterministic: bool = True, seed: int | None = None, name: str = "model"):
        self.policy = policy
        self.deterministic = deterministic
        self.rng = make_rng(seed)
        self.name = name
        self.sidecar: dict[str, Any] = {}
        """The model's sidecar (env, options, sizes), when loaded from a file."""

    @classmethod
    def load(
        cls, path: str | Path, env: Any = None, seed: int | None = None, deterministic: bool = True
    ) -> ModelAgent:
        """Load a saved model on CPU; with ``env``, refuse a model trained for another env.

        Raises:
            ValueError: no such file, no/mismatched sidecar, wrong spaces, or not a model.
        """
        zip_path = resolve_model_path(path)
        sidecar = read_sidecar(zip_path)
        if env is not None:
            check_sidecar(sidecar, env, path)
        model = load_maskable_ppo(zip_path, path)
        if env is not None:
            check_spaces(model, env, path)
        label = zip_path.parent.name if zip_path.stem == "model" else zip_path.stem
        agent = cls(model.policy, deterministic=deterministic, seed=seed, name=label)
        agent.sidecar = sidecar
        return agent

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the policy's legal action for this observation."""
        import torch

        legal = legal_actions(action_mask)
        policy = self.policy
        with torch.no_grad():
            obs = torch.as_tensor(np.asarray(observation, dtype=np.float32).reshape(1, -1))
            features = policy.extract_features(obs, policy.pi_features_extractor)
            latent = policy.mlp_extractor.forward_actor(features)
            logits = policy.action_net(latent)[0].numpy().astype(np.float64)
        return choose_legal(legal, logits[legal], self.deterministic, self.rng)

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Return the policy's legal action for every row: one forward pass for the batch.

        ``keys`` is accepted for :class:`~cardgames_env.agents.batch.BatchPolicy` and unused:
        the policy keeps no state between decisions.

        Masked logits as in :meth:`act`; sampling uses the Gumbel-max trick on the legal
        logits, which draws each row's action with the softmax probabilities.
        """
        import torch

        legal = legal_rows(masks)
        policy = self.policy
        with torch.no_grad():
            obs = torch.as_tensor(np.asarray(observations, dtype=np.float32))
            features = policy.extract_features(obs, policy.pi_features_extractor)
            latent = policy.mlp_extractor.forward_actor(features)
            logits = policy.action_net(latent).numpy().astype(np.float64)
        if not self.deterministic:
            logits = logits + self.rng.gumbel(size=logits.shape)
        return np.where(legal, logits, -np.inf).argmax(axis=1)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the sampling when ``seed`` is given."""
        if seed is not None:
            self.rng = make_rng(seed)
