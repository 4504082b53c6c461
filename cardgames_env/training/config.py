"""Training and evaluation settings per game: ``configs/<game>.json`` merged over ``default.json``.

A new game gets the defaults with no file; a file overrides only the keys it names (nested
dicts are merged key by key).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any


def _merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``base`` updated by ``override``, merging nested dicts key by key."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _read_json(text: str, source: str) -> dict[str, Any]:
    """Parse a config file's JSON object."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"config {source} is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise ValueError(f"config {source} must hold a JSON object")
    return data


def load_config(game: str, path: str | Path | None = None) -> dict[str, Any]:
    """Return the training settings of ``game``: default.json, then <game>.json, then ``path``.

    Args:
        game: game id (``"gongzhu"``); a game without its own file gets the defaults.
        path: an optional JSON file of further overrides.
    """
    folder = resources.files("cardgames_env.training") / "configs"
    config = _read_json((folder / "default.json").read_text(encoding="utf-8"), "default.json")
    game_file = folder / f"{game}.json"
    if game_file.is_file():
        config = _merge(config, _read_json(game_file.read_text(encoding="utf-8"), game_file.name))
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"no config file {p}")
        config = _merge(config, _read_json(p.read_text(encoding="utf-8"), str(p)))
    config.pop("description", None)
    return config


def score_by(game: str) -> str:
    """Return what multi-player evaluations compare for ``game``: ``"points"`` or ``"return"``."""
    metric = str(load_config(game)["eval"].get("metric", "points"))
    if metric not in ("points", "return"):
        raise ValueError(f"eval.metric of {game} must be 'points' or 'return', got {metric!r}")
    return metric
