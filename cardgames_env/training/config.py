"""Training and evaluation settings: :class:`TrainConfig` states every default once, in its
fields; a game's ``config.json`` (in its folder, next to its rules) overrides only what differs
for that game, with a ``"_why"`` note saying why; a ``--config`` file and the command line go
over both.

A file overrides only the keys it names (nested objects are merged key by key); a ``"_why"``
key (or the older ``"description"``) is a note for readers and is dropped on loading.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

from cardgames_env import registry
from cardgames_env.core.spec import GameSpec


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


GAME_CONFIG = "config.json"
"""File name of a game's training settings in its folder."""


def _spec_or_none(game: str | GameSpec) -> GameSpec | None:
    """The spec of ``game`` (a name or the spec itself), or ``None`` for an unknown name."""
    if isinstance(game, GameSpec):
        return game
    try:
        return registry.spec(game)
    except ValueError:
        return None


def game_config_file(game: str | GameSpec) -> Traversable | None:
    """Return a game's own settings file, or ``None`` for a game without one (or unknown)."""
    spec = _spec_or_none(game)
    found = spec.resource(GAME_CONFIG) if spec is not None else None
    return found if found is not None and found.is_file() else None


NOTE_KEYS = ("_why", "description")
"""Top-level keys of a settings file that hold a note for readers (dropped on loading)."""


def default_settings() -> dict[str, Any]:
    """The defaults of every setting, as a JSON object (:class:`TrainConfig`'s fields)."""
    return TrainConfig().as_dict()


def load_config(game: str | GameSpec, path: str | Path | None = None) -> dict[str, Any]:
    """Return the training settings of ``game``: :class:`TrainConfig`'s defaults, then the
    game's config.json, then ``path``.

    Args:
        game: the game's spec, or its id or env name; a game without its own file gets the
            defaults.
        path: an optional JSON file of further overrides.
    """
    config = default_settings()
    spec = _spec_or_none(game)
    game_file = game_config_file(spec) if spec is not None else None
    if spec is not None and game_file is not None:
        source = f"{spec.game}/{GAME_CONFIG}"
        config = _merge(config, _read_json(game_file.read_text(encoding="utf-8"), source))
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"no config file {p}")
        config = _merge(config, _read_json(p.read_text(encoding="utf-8"), str(p)))
    for key in NOTE_KEYS:
        config.pop(key, None)
    return config


def score_by(game: str) -> str:
    """Return what multi-player evaluations compare for ``game``: ``"points"`` or ``"return"``."""
    metric = str(load_config(game)["eval"].get("metric", "points"))
    if metric not in ("points", "return"):
        raise ValueError(f"eval.metric of {game} must be 'points' or 'return', got {metric!r}")
    return metric


# --- validation ---------------------------------------------------------------------------------

OPPONENT_MODES = ("random", "heuristic", "selfplay")
"""Values of the ``opponents`` setting (``--opponents``)."""
VEC_ENVS = ("dummy", "subproc")
"""Values of the ``vec_env`` setting (``engine="aec"``)."""
ENGINES = ("aec", "vector")
"""Values of the ``engine`` setting (``--engine``): the AEC env one game at a time
(``SingleAgentEnv`` under an SB3 vec env), or the batched engine
(:class:`~cardgames_env.training.sb3_vec_env.SB3BatchedEnv`)."""
ALGOS = ("ppo", "dmc", "exit")
"""Values of the ``algo`` setting (``--algo``): sb3-contrib's MaskablePPO, Deep
Monte-Carlo on the batched engine (:mod:`cardgames_env.training.dmc`), or expert iteration
(:mod:`cardgames_env.training.exit`)."""
EXIT_KEYS = ("search", "games", "epochs", "batch_size", "window", "temperature", "learning_rate",
             "value_coef", "value_scale", "max_grad_norm", "net_arch")
"""Settings of the ``exit`` section: the search agent that plays every seat (an agent name,
``search:...``), self-play games per iteration, passes over the buffer per iteration, decisions
per update, iterations whose decisions the buffer keeps, the visit targets' temperature (1: the
visit counts' shares; lower sharpens them; 0: the most visited moves alone), Adam's step size,
the value loss's weight, the return that maps to a value of 1, the gradient-norm clip and the
hidden widths."""
DMC_KEYS = ("n_envs", "n_envs_cuda", "learning_rate", "batch_size", "epsilon", "gamma", "max_grad_norm",
            "net_arch")
"""Settings of the ``dmc`` section: batched games (on the CPU, and with a GPU learner), Adam's
step size, decisions per update, the exploration rate, the discount per learner decision, the
gradient-norm clip and the Q-network's hidden widths."""
IMITATION_KEYS = ("games", "teacher", "opponents", "epochs", "batch_size", "learning_rate", "value_coef",
                  "margin", "anchor", "dmc_start", "prior_weight", "workers")
"""Settings of the ``imitation`` section (see :mod:`cardgames_env.training.imitation`): games the
teacher plays before PPO or DMC (0: none), the teacher and opponent agent kinds, and the fit
(``value_coef``: PPO's critic weight). DMC's start (``dmc_start``): ``"prior"``, a frozen clone
of the teacher whose logits, times ``prior_weight`` standard deviations of the teacher's returns,
add to the learned Q-values; or ``"fit"``, the Q-network fits the teacher itself (``margin``: the
large margin, in standard deviations of the returns; ``anchor``: the weight of the teacher's
decisions' loss in each update)."""
DMC_STARTS = ("prior", "fit")
"""Values of ``imitation.dmc_start``: how a DMC run starts from the teacher's games."""
DEVICE_PATTERN = re.compile(r"auto|cpu|cuda(:\d+)?")
"""Values of the ``device`` setting (``--device``): ``auto`` (the first CUDA device when there
is one, else the CPU), ``cpu``, ``cuda`` or ``cuda:K``."""
RUN_KEYS = ("env", "options", "seed")
"""Keys a run's ``config.json`` records; a config file may hold them (so a run's file can be
reused), and the command line decides their values."""
PPO_FIXED = ("self", "policy", "env", "seed", "device", "verbose", "policy_kwargs", "_init_setup_model")
"""MaskablePPO arguments the trainer sets itself: a config file may not name them."""
PPO_NOT_JSON = ("rollout_buffer_class", "rollout_buffer_kwargs", "tensorboard_log")
"""MaskablePPO arguments that cannot come from a JSON file (classes) or that the run folder fixes."""


def whole_units(total: int, unit: int) -> int:
    """Return ``total`` rounded up to a whole number of ``unit`` steps (what a learner that
    collects ``unit`` steps at a time runs when asked for ``total``)."""
    return -(-total // unit) * unit


def rounding_note(asked: int, run: int, units: str) -> str:
    """Return ``" (N asked for, rounded up to UNITS)"`` when ``run`` differs from ``asked``, else ``""``."""
    return "" if run == asked else f" ({asked} asked for, rounded up to {units})"


def _is_int(value: Any) -> bool:
    """True for an int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    """True for an int or a finite float, bools excluded."""
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def _kind(value: Any) -> str:
    """The JSON name of a value's type, for messages."""
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "a list", dict: "an object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _int(value: Any, key: str, low: int = 1, optional: bool = False) -> None:
    """Check an integer setting ``>= low`` (or null when ``optional``)."""
    if optional and value is None:
        return
    if not _is_int(value):
        raise ValueError(f"{key} must be an integer, got {_kind(value)} ({value!r})")
    if value < low:
        raise ValueError(f"{key} must be >= {low}, got {value}")


def _number(value: Any, key: str, low: float, high: float | None = None, *, strict: bool = False,
            schedule: bool = False, optional: bool = False) -> None:
    """Check a number setting in ``[low, high]`` (``(low, ...`` when ``strict``).

    ``schedule`` also allows a callable (an SB3 schedule, from the Python API); ``optional``
    allows null.
    """
    if optional and value is None:
        return
    if schedule and callable(value):
        return
    if not _is_number(value):
        raise ValueError(f"{key} must be a number, got {_kind(value)} ({value!r})")
    if value < low or (strict and value == low) or (high is not None and value > high):
        bound = f"> {low}" if strict else f">= {low}"
        bound += f" and <= {high}" if high is not None else ""
        raise ValueError(f"{key} must be {bound}, got {value}")


def _choice(value: Any, key: str, choices: tuple[str, ...]) -> None:
    """Check a setting that is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{key} must be one of {', '.join(choices)}, got {value!r}")


def _section(config: Mapping[str, Any], key: str, known: tuple[str, ...]) -> Mapping[str, Any]:
    """Return the object ``config[key]`` after checking it is one with only ``known`` keys."""
    section = config.get(key, {})
    if not isinstance(section, Mapping):
        raise ValueError(f"{key} must be a JSON object, got {_kind(section)} ({section!r})")
    unknown = sorted(str(k) for k in section if k not in known)
    if unknown:
        raise ValueError(f"unknown {key} setting {unknown[0]!r}; expected one of {', '.join(known)}")
    return section


def _net_arch(value: Any) -> None:
    """Check ``ppo.net_arch``: a list of layer widths, or ``{"pi": [...], "vf": [...]}``."""
    layers = [value] if isinstance(value, list) else None
    if isinstance(value, Mapping) and set(value) <= {"pi", "vf"} and value:
        layers = list(value.values())
    if layers is None:
        raise ValueError(f"ppo.net_arch must be a list of layer widths, got {_kind(value)} ({value!r})")
    for widths in layers:
        if not isinstance(widths, list) or not all(_is_int(w) and w >= 1 for w in widths):
            raise ValueError(f"ppo.net_arch must hold positive integer layer widths, got {value!r}")


_PPO_CHECKS: dict[str, Callable[[Any, str], None]] = {
    "learning_rate": lambda v, k: _number(v, k, 0.0, strict=True, schedule=True),
    "n_steps": lambda v, k: _int(v, k),
    "batch_size": lambda v, k: _int(v, k),
    "n_epochs": lambda v, k: _int(v, k),
    "gamma": lambda v, k: _number(v, k, 0.0, 1.0),
    "gae_lambda": lambda v, k: _number(v, k, 0.0, 1.0),
    "clip_range": lambda v, k: _number(v, k, 0.0, strict=True, schedule=True),
    "clip_range_vf": lambda v, k: _number(v, k, 0.0, strict=True, schedule=True, optional=True),
    "normalize_advantage": lambda v, k: _bool(v, k),
    "ent_coef": lambda v, k: _number(v, k, 0.0),
    "vf_coef": lambda v, k: _number(v, k, 0.0),
    "max_grad_norm": lambda v, k: _number(v, k, 0.0, strict=True),
    "target_kl": lambda v, k: _number(v, k, 0.0, strict=True, optional=True),
    "stats_window_size": lambda v, k: _int(v, k),
    "net_arch": lambda v, k: _net_arch(v),
}
"""Type and range of each ``ppo`` setting a config file may hold."""


def _bool(value: Any, key: str) -> None:
    """Check a boolean setting."""
    if not isinstance(value, bool):
        raise ValueError(f"{key} must be true or false, got {_kind(value)} ({value!r})")


def _validate_dmc(config: Mapping[str, Any]) -> None:
    """Check ``algo`` and the ``dmc`` section, and that DMC runs on the batched engine."""
    _choice(config.get("algo", "ppo"), "algo", ALGOS)
    dmc = _section(config, "dmc", DMC_KEYS)
    for key in ("n_envs", "n_envs_cuda", "batch_size"):
        _int(dmc.get(key, 1), f"dmc.{key}")
    _number(dmc.get("learning_rate", 3e-4), "dmc.learning_rate", 0.0, strict=True)
    _number(dmc.get("epsilon", 0.05), "dmc.epsilon", 0.0, 1.0)
    _number(dmc.get("gamma", 1.0), "dmc.gamma", 0.0, 1.0)
    _number(dmc.get("max_grad_norm", 40.0), "dmc.max_grad_norm", 0.0, strict=True)
    widths = dmc.get("net_arch", [256])
    if not isinstance(widths, list) or not widths or not all(_is_int(w) and w >= 1 for w in widths):
        raise ValueError(f"dmc.net_arch must be a non-empty list of positive layer widths, got {widths!r}")
    if config.get("algo", "ppo") != "dmc":
        return
    if config.get("engine", "aec") != "vector":
        raise ValueError("algo dmc trains on the batched engine: use engine vector (--engine vector)")


def _validate_exit(config: Mapping[str, Any]) -> None:
    """Check the ``exit`` section, and what expert iteration needs of the other settings: the
    rules env (``engine`` aec: the search reads its states; its simulations run in the batched
    engines), self-play (every seat searches) and no imitation start."""
    section = _section(config, "exit", EXIT_KEYS)
    search = section.get("search", "search:iterations=64:batch=8")
    if not isinstance(search, str):
        raise ValueError(f"exit.search must be a search agent name, got {_kind(search)} ({search!r})")
    from cardgames_env.agents.search import parse_search_options

    try:
        options = parse_search_options(search)
    except ValueError as error:
        raise ValueError(f"exit.search: {error}") from None
    if options.iterations is None or options.time is not None:
        raise ValueError(f"exit.search must set iterations and no time (runs that do not depend on the "
                         f"machine's speed), e.g. search:iterations=64:batch=8, got {search!r}")
    for key in ("games", "epochs", "batch_size", "window"):
        _int(section.get(key, 1), f"exit.{key}")
    _number(section.get("learning_rate", 1e-3), "exit.learning_rate", 0.0, strict=True)
    _number(section.get("temperature", 1.0), "exit.temperature", 0.0)
    _number(section.get("value_coef", 1.0), "exit.value_coef", 0.0)
    _number(section.get("value_scale", 1.0), "exit.value_scale", 0.0, strict=True)
    _number(section.get("max_grad_norm", 40.0), "exit.max_grad_norm", 0.0, strict=True)
    widths = section.get("net_arch", [256])
    if not isinstance(widths, list) or not all(_is_int(w) and w >= 1 for w in widths):
        raise ValueError(f"exit.net_arch must be a list of positive layer widths, got {widths!r}")
    if config.get("algo", "ppo") != "exit":
        return
    if config.get("engine", "aec") != "aec":
        raise ValueError("algo exit plays its games on the rules env (the search's simulations run in the "
                         "batched engines): use engine aec (leave out --engine)")
    if config.get("opponents", "selfplay") != "selfplay":
        raise ValueError("algo exit trains every seat by self-play of the search: use opponents selfplay "
                         f"(got {config.get('opponents')!r})")
    imitation = config.get("imitation", {})
    if isinstance(imitation, Mapping) and imitation.get("games", 0):
        raise ValueError("algo exit does not start from imitation games: set imitation.games to 0")


def check_device_name(device: Any) -> None:
    """Check the form of a ``device`` setting (whether the device is there is checked when the
    learner is built: :func:`cardgames_env.training.device.resolve_device`).

    Raises:
        ValueError: for anything but ``auto``, ``cpu``, ``cuda`` or ``cuda:K``.
    """
    if not isinstance(device, str) or not DEVICE_PATTERN.fullmatch(device):
        raise ValueError(f"device must be auto, cpu, cuda or cuda:K, got {device!r}")


def validate_config(config: Mapping[str, Any], ppo_parameters: Sequence[str] | None = None) -> None:
    """Check every training setting's type and range, without importing any RL library.

    Args:
        config: resolved settings (:func:`load_config`, with command-line values applied).
        ppo_parameters: the argument names of ``MaskablePPO``'s constructor; when given, a
            ``ppo`` key must be one of them (or ``net_arch``) and not one the trainer sets.

    Raises:
        ValueError: naming the first bad setting.
    """
    known = ("timesteps", "n_envs", "vec_env", "engine", "algo", "dmc", "exit", "vector", "opponents",
             "learner_seat", "torch_threads", "device", "threads", "ppo", "eval", "checkpoint_every",
             "selfplay", "imitation", *NOTE_KEYS, *RUN_KEYS)
    unknown = sorted(str(k) for k in config if k not in known)
    if unknown:
        raise ValueError(f"unknown setting {unknown[0]!r}; expected one of {', '.join(known)}")
    imitation = _section(config, "imitation", IMITATION_KEYS)
    _int(imitation.get("games", 0), "imitation.games", low=0)
    # With imitation, timesteps = 0 keeps the cloned network without any PPO.
    _int(config.get("timesteps"), "timesteps", low=0 if imitation.get("games", 0) else 1)
    for key in ("epochs", "batch_size", "workers"):
        _int(imitation.get(key, 1), f"imitation.{key}")
    _number(imitation.get("learning_rate", 1e-3), "imitation.learning_rate", 0.0, None, strict=True)
    _number(imitation.get("value_coef", 0.5), "imitation.value_coef", 0.0, None)
    _number(imitation.get("margin", 0.5), "imitation.margin", 0.0, None)
    _number(imitation.get("anchor", 1.0), "imitation.anchor", 0.0, None)
    _number(imitation.get("prior_weight", 0.1), "imitation.prior_weight", 0.0, None)
    _choice(imitation.get("dmc_start", "prior"), "imitation.dmc_start", DMC_STARTS)
    for key in ("teacher", "opponents"):
        if not isinstance(imitation.get(key, "search"), str):
            raise ValueError(f"imitation.{key} must be an agent kind (a string), got {imitation.get(key)!r}")
    _int(config.get("n_envs"), "n_envs")
    _choice(config.get("vec_env"), "vec_env", VEC_ENVS)
    _choice(config.get("engine", "aec"), "engine", ENGINES)
    batched = _section(config, "vector", ("n_envs", "n_envs_cuda", "ppo"))
    for key in ("n_envs", "n_envs_cuda"):
        _int(batched.get(key, 1), f"vector.{key}")
    _choice(config.get("opponents"), "opponents", OPPONENT_MODES)
    _validate_dmc(config)
    _validate_exit(config)
    _int(config.get("learner_seat"), "learner_seat", low=0, optional=True)
    _int(config.get("torch_threads"), "torch_threads", optional=True)
    _int(config.get("threads"), "threads", optional=True)
    check_device_name(config.get("device", "auto"))
    _int(config.get("checkpoint_every", 50_000), "checkpoint_every")

    evals = _section(config, "eval", ("points", "games", "final_games", "seed", "metric", "every"))
    for key in ("points", "games", "final_games"):
        _int(evals.get(key, 1), f"eval.{key}")
    _int(evals.get("seed", 0), "eval.seed", low=0)
    _int(evals.get("every"), "eval.every", optional=True)
    _choice(evals.get("metric", "points"), "eval.metric", ("points", "return"))

    selfplay = _section(config, "selfplay", ("snapshot_every", "sampling", "snapshot_prob", "window"))
    _int(selfplay.get("snapshot_every", 25_000), "selfplay.snapshot_every")
    _choice(selfplay.get("sampling", "snapshots"), "selfplay.sampling", ("uniform", "snapshots", "latest"))
    _number(selfplay.get("snapshot_prob", 0.5), "selfplay.snapshot_prob", 0.0, 1.0)
    _int(selfplay.get("window", 5), "selfplay.window")

    allowed = tuple(_PPO_CHECKS)
    if ppo_parameters is not None:
        allowed = tuple(p for p in ppo_parameters if p not in PPO_FIXED + PPO_NOT_JSON) + ("net_arch",)
    raw_ppo = config.get("ppo", {})
    fixed = [k for k in raw_ppo if k in PPO_FIXED] if isinstance(raw_ppo, Mapping) else []
    if fixed:
        raise ValueError(f"ppo.{fixed[0]} is set by the trainer, not by a config file")
    ppo = _section(config, "ppo", allowed)
    batched_ppo = _section({"vector.ppo": batched.get("ppo", {})}, "vector.ppo", allowed)
    for prefix, section in (("ppo", ppo), ("vector.ppo", batched_ppo)):
        for key, value in section.items():
            check = _PPO_CHECKS.get(key)
            if check is None:
                raise ValueError(f"{prefix}.{key} cannot be set from a config file")
            check(value, f"{prefix}.{key}")
    if ppo.get("normalize_advantage", True) and ppo.get("batch_size", 64) < 2:
        raise ValueError("ppo.batch_size must be >= 2 when ppo.normalize_advantage is true "
                         f"(advantages are normalised per mini-batch), got {ppo.get('batch_size')}")
    if ppo.get("n_steps", 2048) * config["n_envs"] < 2:
        raise ValueError("ppo.n_steps x n_envs must be >= 2 (a rollout of one step cannot be normalised)")


# --- the typed settings of one run ----------------------------------------------------------------


@dataclass(frozen=True)
class PPOConfig:
    """MaskablePPO's settings (the ``ppo`` section, the batched engine's ``vector.ppo`` over it
    when ``engine`` is ``"vector"``). The defaults are MaskablePPO's own except ``n_steps``,
    ``batch_size``, ``n_epochs``, ``ent_coef`` and ``net_arch``: shorter rollouts in larger
    batches, fewer epochs, a little entropy bonus and a wider network suit card games' large
    masked action spaces.

    ``learning_rate`` and the clip ranges may also be SB3 schedules (callables) from the Python API.
    """

    learning_rate: Any = 3e-4
    n_steps: int = 1024
    batch_size: int = 256
    n_epochs: int = 5
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: Any = 0.2
    clip_range_vf: Any = None
    normalize_advantage: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    stats_window_size: int = 100
    net_arch: Any = field(default_factory=lambda: [256, 256])
    """Hidden widths of the actor and critic: a list, or ``{"pi": [...], "vf": [...]}``."""

    def model_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``MaskablePPO`` these settings give (``net_arch`` goes in
        ``policy_kwargs``, which the trainer builds)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "net_arch"}


@dataclass(frozen=True)
class DMCConfig:
    """Deep Monte-Carlo's settings (the ``dmc`` section; see :mod:`cardgames_env.training.dmc`)."""

    n_envs: int = 256
    n_envs_cuda: int = 4096
    """Batched games when the learner is on a GPU."""
    learning_rate: float = 1e-3
    batch_size: int = 1024
    epsilon: float = 0.05
    gamma: float = 1.0
    max_grad_norm: float = 40.0
    net_arch: list[int] = field(default_factory=lambda: [256, 256])


@dataclass(frozen=True)
class ExItConfig:
    """Expert iteration's settings (the ``exit`` section; see :mod:`cardgames_env.training.exit`)."""

    search: str = "search:iterations=64:batch=8"
    """The agent that plays every seat: a search agent name with a fixed simulation count, in
    batches small enough for the visit counts to follow the playouts' results."""
    games: int = 16
    """Self-play games per iteration."""
    epochs: int = 4
    """Passes over the buffer after each iteration's games."""
    batch_size: int = 256
    window: int = 4
    """Iterations whose decisions the buffer keeps (the latest ones)."""
    temperature: float = 0.25
    """Targets ``visits ** (1 / temperature)``, normalised: 1 the visit shares, 0 the most visited
    (a few dozen simulations spread their visits almost evenly: sharper targets teach more)."""
    learning_rate: float = 1e-3
    value_coef: float = 1.0
    value_scale: float = 1.0
    """The return that counts as a value of 1 (values are clipped to [-1, 1])."""
    max_grad_norm: float = 40.0
    net_arch: list[int] = field(default_factory=lambda: [256])


@dataclass(frozen=True)
class VectorSection:
    """The batched engine's overrides for PPO (the ``vector`` section): its ``n_envs`` and the
    ``ppo`` settings that replace the AEC path's."""

    n_envs: int = 256
    n_envs_cuda: int = 4096
    """Batched games when the learner is on a GPU."""
    ppo: dict[str, Any] = field(default_factory=lambda: {"n_steps": 32, "batch_size": 2048})
    """Short rollouts of many games in large batches: 256 games x 32 steps per update."""


@dataclass(frozen=True)
class ImitationConfig:
    """The start from a teacher's games (the ``imitation`` section; see
    :mod:`cardgames_env.training.imitation`). ``games`` 0: no imitation."""

    games: int = 0
    teacher: str = "search"
    opponents: str = "heuristic"
    workers: int = 2
    epochs: int = 15
    batch_size: int = 512
    learning_rate: float = 1e-3
    value_coef: float = 0.5
    margin: float = 0.5
    anchor: float = 1.0
    dmc_start: str = "prior"
    prior_weight: float = 0.1

    def source(self) -> dict[str, Any] | None:
        """What the run imitates (``games``, ``teacher``, ``opponents``, as the sidecar records
        it), or ``None`` without imitation games."""
        if self.games <= 0:
            return None
        return {"games": self.games, "teacher": self.teacher, "opponents": self.opponents}


@dataclass(frozen=True)
class EvalConfig:
    """The evaluations against random during training and the final ones (the ``eval`` section)."""

    points: int = 10
    games: int = 40
    final_games: int = 400
    seed: int = 1_000_000
    metric: str = "points"
    every: int | None = None
    """Learner steps between evaluations; ``None``: ``timesteps / points``."""

    def interval(self, timesteps: int) -> int:
        """Learner steps between two evaluations of a run of ``timesteps`` steps."""
        return self.every or max(timesteps // max(self.points, 1), 1)


@dataclass(frozen=True)
class SelfPlayConfig:
    """Self-play snapshots and how the opponent pool samples them (the ``selfplay`` section)."""

    snapshot_every: int = 25_000
    sampling: str = "snapshots"
    snapshot_prob: float = 0.5
    window: int = 5


@dataclass(frozen=True)
class TrainConfig:
    """Every setting of one training run, resolved and validated (:func:`resolve_config`).

    ``n_envs`` is the number of games the learner plays at once, whichever section it came
    from (``n_envs``, ``vector.n_envs`` or ``dmc.n_envs``, or ``--n-envs``), for a CPU learner;
    :meth:`for_device` gives the settings of a run whose learner is on another device (the
    section's ``n_envs_cuda`` for a GPU). ``ppo`` holds the PPO settings in force
    (``vector.ppo`` already applied on the batched engine).
    """

    timesteps: int = 200_000
    n_envs: int = 2
    algo: str = "ppo"
    engine: str = "aec"
    vec_env: str = "dummy"
    opponents: str = "selfplay"
    learner_seat: int | None = None
    torch_threads: int | None = 1
    device: str = "auto"
    threads: int | None = None
    """CPU threads the run may use in all (``None``: every core this process may run on)."""
    checkpoint_every: int = 50_000
    ppo: PPOConfig = field(default_factory=PPOConfig)
    dmc: DMCConfig = field(default_factory=DMCConfig)
    exit: ExItConfig = field(default_factory=ExItConfig)
    vector: VectorSection = field(default_factory=VectorSection)
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)

    n_envs_cuda: int | None = None
    """Games at once with a GPU learner (the engine's section's ``n_envs_cuda``); ``None`` on
    the AEC path or when ``--n-envs`` decided."""

    @property
    def batched(self) -> bool:
        """Whether the learner plays on the batched engine."""
        return self.engine == "vector"

    def for_device(self, kind: str) -> TrainConfig:
        """The settings of a run whose learner is on a ``kind`` device (``"cpu"``, ``"cuda"``):
        with a GPU, ``n_envs`` becomes ``n_envs_cuda`` where the section gives it."""
        if kind != "cuda" or self.n_envs_cuda is None:
            return self
        return replace(self, n_envs=self.n_envs_cuda)

    def as_dict(self) -> dict[str, Any]:
        """The settings as a JSON object, the shape of a config file (a run's ``config.json``)."""
        return {
            "timesteps": self.timesteps, "n_envs": self.n_envs, "vec_env": self.vec_env,
            "engine": self.engine, "algo": self.algo, "vector": asdict(self.vector),
            "opponents": self.opponents,
            "learner_seat": self.learner_seat, "torch_threads": self.torch_threads, "device": self.device,
            "threads": self.threads, "ppo": asdict(self.ppo),
            "dmc": asdict(self.dmc), "exit": asdict(self.exit), "eval": asdict(self.eval),
            "checkpoint_every": self.checkpoint_every,
            "selfplay": asdict(self.selfplay), "imitation": asdict(self.imitation),
        }


OVERRIDES: dict[str, tuple[str, ...]] = {
    "timesteps": ("timesteps",),
    "opponents": ("opponents",),
    "n_envs": ("n_envs",),
    "vec_env": ("vec_env",),
    "engine": ("engine",),
    "algo": ("algo",),
    "eval_games": ("eval.games", "eval.final_games"),
    "imitation_games": ("imitation.games",),
    "imitation_teacher": ("imitation.teacher",),
    "device": ("device",),
    "threads": ("threads",),
}
"""Each command-line override -> the settings (``section.key``) it sets; ``cardgames train``'s
flags are these names (``--n-envs``...)."""


@dataclass(frozen=True)
class Overrides:
    """Values given on the command line; ``None`` leaves the config's value. Each field sets
    the settings :data:`OVERRIDES` names."""

    timesteps: int | None = None
    opponents: str | None = None
    n_envs: int | None = None
    vec_env: str | None = None
    engine: str | None = None
    algo: str | None = None
    eval_games: int | None = None
    imitation_games: int | None = None
    imitation_teacher: str | None = None
    device: str | None = None
    threads: int | None = None

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The overrides' names (the fields)."""
        return tuple(f.name for f in fields(cls))


def default_of(path: str) -> Any:
    """The default of one setting, ``"key"`` or ``"section.key"`` (:class:`TrainConfig`'s field)."""
    value: Any = TrainConfig()
    for part in path.split("."):
        value = getattr(value, part)
    return value


def _set(settings: dict[str, Any], path: str, value: Any) -> None:
    """Set ``settings[path]`` (``"key"`` or ``"section.key"``), copying the section.

    Raises:
        ValueError: when the section is not a JSON object.
    """
    section, _, key = path.rpartition(".")
    if not section:
        settings[key] = value
        return
    settings[section] = {**_mapping(settings, section), key: value}


def _select_sections(settings: dict[str, Any]) -> None:
    """Apply the section of the engine in use to ``settings``, in place: ``dmc.n_envs`` for DMC,
    ``vector.n_envs`` and ``vector.ppo`` for PPO on the batched engine. A section of the wrong
    shape is left for validation to name."""
    dmc, batched = settings.get("dmc", {}), settings.get("vector", {})
    if settings.get("engine") != "vector":
        return
    if settings.get("algo") == "dmc":
        if isinstance(dmc, Mapping) and "n_envs" in dmc:
            settings["n_envs"] = dmc["n_envs"]
    elif isinstance(batched, Mapping):
        settings["n_envs"] = batched.get("n_envs", settings.get("n_envs"))
        ppo = settings.get("ppo", {})
        if isinstance(ppo, Mapping) and isinstance(batched.get("ppo", {}), Mapping):
            settings["ppo"] = {**ppo, **batched.get("ppo", {})}


def resolve_config(
    game: str | GameSpec, path: str | Path | None = None, overrides: Overrides = Overrides()
) -> TrainConfig:
    """Return the settings of a run: the defaults, the game's config.json, the file ``path``,
    then the ``overrides``; checked once, without importing any RL library.

    DMC trains on the batched engine, so ``algo`` ``"dmc"`` without an engine asks for it;
    expert iteration (``"exit"``) plays on the rules env, so it asks for ``"aec"``.

    Raises:
        ValueError: naming the first unknown or bad setting.
    """
    settings = load_config(game, path)
    first = ("algo", "engine")  # they pick the sections whose values the others override
    for name in first:
        if getattr(overrides, name) is not None:
            settings[name] = getattr(overrides, name)
    if overrides.engine is None and settings.get("algo") == "dmc":
        settings["engine"] = "vector"
    if overrides.engine is None and settings.get("algo") == "exit":
        settings["engine"] = "aec"
    settings.setdefault("engine", "aec")
    _select_sections(settings)
    for name, paths in OVERRIDES.items():
        value = getattr(overrides, name)
        if name not in first and value is not None:
            for setting in paths:
                _set(settings, setting, value)
    validate_config(settings)
    config = _typed(settings)
    if overrides.n_envs is not None or not config.batched:
        return config
    section = config.dmc if config.algo == "dmc" else config.vector
    return replace(config, n_envs_cuda=section.n_envs_cuda)


def _mapping(settings: Mapping[str, Any], key: str) -> dict[str, Any]:
    """A copy of the section ``settings[key]`` to add keys to (``{}`` when absent).

    Raises:
        ValueError: when the section is not a JSON object.
    """
    value = settings.get(key, {})
    if not isinstance(value, Mapping):
        raise ValueError(f"{key} must be a JSON object, got {_kind(value)} ({value!r})")
    return dict(value)


def _typed(settings: Mapping[str, Any]) -> TrainConfig:
    """The :class:`TrainConfig` of validated ``settings``."""
    names = ("timesteps", "n_envs", "algo", "engine", "vec_env", "opponents", "learner_seat", "torch_threads",
             "device", "threads", "checkpoint_every")
    plain = {k: settings[k] for k in names if k in settings}
    batched = dict(settings.get("vector", {}))
    return TrainConfig(
        **plain,
        ppo=PPOConfig(**settings.get("ppo", {})),
        dmc=DMCConfig(**settings.get("dmc", {})),
        exit=ExItConfig(**settings.get("exit", {})),
        vector=VectorSection(**batched),
        imitation=ImitationConfig(**settings.get("imitation", {})),
        eval=EvalConfig(**settings.get("eval", {})),
        selfplay=SelfPlayConfig(**settings.get("selfplay", {})),
    )
