"""Shipped policies that play offline without torch: :class:`NumpyPolicy` and :class:`PretrainedAgent`.

``cardgames export`` (:mod:`cardgames_env.training.export`) turns a trained MaskablePPO model
into two files: ``STEM.npz`` (the actor MLP and the action head, nothing else) and
``STEM.json`` (the sidecar: env, options, sizes, layer widths, dtype, the training command and
evaluation results). The package ships one such pair per game, ``pretrained.npz`` and
``pretrained.json`` in the game's folder (``cardgames_env/envs/<game>/``); agent kind
``pretrained`` loads the pair of the env it plays.

File format (``format_version`` 1): the ``.npz`` holds ``w0, b0, ..., w{k-1}, b{k-1}`` (the
hidden layers, weights shaped ``(inputs, outputs)``) and ``action_w, action_b`` (the head);
float32 or float16 (``dtype`` in the sidecar); the math is float32 either way:
``h = tanh(h @ w_i + b_i)`` per hidden layer, ``logits = h @ action_w + action_b``, then the
legal action with the largest logit.

A policy trained with other *encoding* options than the env's (the env class's
``ENCODING_OPTIONS``, e.g. a sub-step encoding's model on the default flat encoding) plays through
the rules state: the agent builds the training encoding's decision from the env's state,
plays the policy sub-step by sub-step on its own seat's observation of that decision until
the rules move is complete, and answers with the env encoding's action(s) for that same move.
"""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Sequence
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

import numpy as np

from cardgames_env import registry
from cardgames_env.core.masks import MAX_ACTIONS_PER_MOVE, legal_actions, legal_rows, move_actions
from cardgames_env.core.spec import GameSpec

from .model import MODEL_FILE, check_sidecar, env_signature

FORMAT_VERSION = 1
"""Version of the exported policy format (the sidecar's ``format_version``)."""
MAX_BYTES = 2 * 1024 * 1024
"""Largest ``.npz`` a shipped policy may have (2 MiB)."""
POLICY_FILE = "model.npz"
"""File name of the exported policy in a run folder (``--algo dmc``; its sidecar is ``model.json``)."""
SHIPPED_STEM = "pretrained"
"""Stem of the shipped pair in a game's folder: ``pretrained.npz`` + ``pretrained.json``."""
ACTIVATIONS = ("tanh",)
"""Hidden-layer activations :class:`NumpyPolicy` implements."""


class NumpyPolicy:
    """A masked-argmax MLP in numpy (float32 math, tanh hidden layers), deterministic.

    Args:
        weights: hidden-layer weight matrices, each shaped ``(inputs, outputs)``.
        biases: hidden-layer biases, one per weight matrix.
        action_w: the action head's weights ``(last width, num_actions)``.
        action_b: the action head's bias ``(num_actions,)``.

    Raises:
        ValueError: when the shapes do not chain or a value is not finite.
    """

    def __init__(
        self, weights: list[np.ndarray], biases: list[np.ndarray], action_w: np.ndarray, action_b: np.ndarray
    ):
        if len(weights) != len(biases):
            raise ValueError(f"{len(weights)} weight matrices but {len(biases)} biases")
        layers = [(np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32))
                  for w, b in zip([*weights, action_w], [*biases, action_b])]
        width = None
        for i, (w, b) in enumerate(layers):
            if w.ndim != 2 or b.shape != (w.shape[1],):
                raise ValueError(f"layer {i}: weights {w.shape} and bias {b.shape} do not fit")
            if width is not None and w.shape[0] != width:
                raise ValueError(f"layer {i} takes {w.shape[0]} inputs, the layer before gives {width}")
            if not (np.isfinite(w).all() and np.isfinite(b).all()):
                raise ValueError(f"layer {i} holds a non-finite value")
            width = w.shape[1]
        self.layers = layers
        self._blocks = [diagonal_blocks(w) for w, _ in layers]
        self.name = "policy"
        """Label used in tables (a loaded file's run or stem)."""

    @property
    def observation_size(self) -> int:
        """Length of the observation the policy reads."""
        return int(self.layers[0][0].shape[0])

    @property
    def num_actions(self) -> int:
        """Number of logits (the action space size)."""
        return int(self.layers[-1][0].shape[1])

    @property
    def widths(self) -> list[int]:
        """Widths of the hidden layers."""
        return [int(w.shape[1]) for w, _ in self.layers[:-1]]

    @classmethod
    def from_layers(cls, layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> NumpyPolicy:
        """Return the policy of ``(weights (in, out), bias)`` pairs, the hidden layers then the
        action head (the inverse of :attr:`layers`).

        Raises:
            ValueError: when there is no layer, or as the constructor does.
        """
        if not layers:
            raise ValueError("a policy needs at least its action head")
        return cls([w for w, _ in layers[:-1]], [b for _, b in layers[:-1]], *layers[-1])

    @classmethod
    def from_npz(cls, data: bytes) -> NumpyPolicy:
        """Read a policy from the bytes of an exported ``.npz``.

        Raises:
            ValueError: when the bytes are not such a file.
        """
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as npz:
                arrays = {key: npz[key] for key in npz.files}
        except Exception as error:  # a corrupt or foreign file: report it as bad input
            raise ValueError(f"not an exported policy (.npz): {error}") from None
        hidden = sum(1 for key in arrays if key.startswith("w"))
        expected = {f"{p}{i}" for i in range(hidden) for p in "wb"} | {"action_w", "action_b"}
        if set(arrays) != expected:
            raise ValueError(f"an exported policy holds {sorted(expected)}, this file {sorted(arrays)}")
        for key, array in arrays.items():
            if array.dtype.kind != "f":
                raise ValueError(f"array {key} is {array.dtype}, not floating point")
        return cls(
            [arrays[f"w{i}"] for i in range(hidden)], [arrays[f"b{i}"] for i in range(hidden)],
            arrays["action_w"], arrays["action_b"],
        )

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Return the float32 logits of a batch of observations (rows).

        A layer whose weights are block-diagonal (the later hidden layers of two networks side
        by side, :func:`~cardgames_env.training.export.sum_of_networks`) multiplies its two
        blocks alone: the same values without the zero blocks' products.
        """
        h = np.asarray(observations, dtype=np.float32)
        last = len(self.layers) - 1
        for i, ((w, b), blocks) in enumerate(zip(self.layers, self._blocks)):
            if blocks is None:
                h = h @ w
            else:
                rows, columns, top, bottom = blocks
                out = np.empty((h.shape[0], w.shape[1]), dtype=np.float32)
                np.matmul(h[:, :rows], top, out=out[:, :columns])
                np.matmul(h[:, rows:], bottom, out=out[:, columns:])
                h = out
            h += b
            if i < last:
                np.tanh(h, out=h)
        return h

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the legal action with the largest logit."""
        legal = legal_actions(action_mask)
        logits = self.logits(np.asarray(observation).reshape(1, -1))[0]
        return int(legal[int(np.argmax(logits[legal]))])

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Return the legal action with the largest logit for every row.

        ``keys`` is accepted for :class:`~cardgames_env.agents.batch.BatchPolicy` and unused:
        the policy keeps no state between decisions.

        Raises:
            ValueError: when a row of ``masks`` allows nothing.
        """
        legal = legal_rows(masks)
        return np.where(legal, self.logits(observations), -np.inf).argmax(axis=1)

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the policy is deterministic."""


def diagonal_blocks(weights: np.ndarray) -> tuple[int, int, np.ndarray, np.ndarray] | None:
    """Split a weight matrix ``(in, out)`` into two diagonal blocks, when it has them.

    Returns ``(rows, columns, top, bottom)`` with ``top = weights[:rows, :columns]`` and
    ``bottom = weights[rows:, columns:]`` when every other weight is exactly zero (so
    ``x @ weights`` is ``[x[:, :rows] @ top, x[:, rows:] @ bottom]``), choosing the split with
    the fewest products; ``None`` when no split saves at least a quarter of them.
    """
    nonzero = weights != 0
    if weights.ndim != 2 or min(weights.shape) < 2:
        return None
    size_in, size_out = weights.shape
    used = nonzero.any(axis=1)
    last = np.where(used, size_out - 1 - nonzero[:, ::-1].argmax(axis=1), -1)  # last nonzero column
    first = np.where(used, nonzero.argmax(axis=1), size_out)  # first nonzero column
    rows = np.arange(1, size_in)
    above = np.maximum.accumulate(last)[:-1]  # rows 0..r-1 reach at most this column
    below = np.minimum.accumulate(first[::-1])[::-1][1:]  # rows r.. start at this column or later
    columns = np.clip(below, 1, size_out - 1)
    valid = (above < columns) & (columns <= below)
    if not valid.any():
        return None
    cost = rows * columns + (size_in - rows) * (size_out - columns)
    best = int(np.flatnonzero(valid)[np.argmin(cost[valid])])
    if cost[best] > 0.75 * size_in * size_out:
        return None
    r, c = int(rows[best]), int(columns[best])
    return r, c, np.ascontiguousarray(weights[:r, :c]), np.ascontiguousarray(weights[r:, c:])


def _shipped_pair(game: GameSpec) -> tuple[Traversable, Traversable]:
    """Return a game's shipped ``(npz, json)`` inside the installed package (they may not exist)."""
    return game.resource(f"{SHIPPED_STEM}.npz"), game.resource(f"{SHIPPED_STEM}.json")


def in_shipped_folder(path: str | Path) -> bool:
    """Return whether ``path`` (a file, or a file stem) is where a game's shipped policy lives,
    whose ``.npz`` must keep within :data:`MAX_BYTES`."""
    target = Path(path).resolve().with_suffix("")
    for game in registry.specs():
        npz, _ = _shipped_pair(game)
        if isinstance(npz, Path) and npz.resolve().with_suffix("") == target:  # zipped: read-only
            return True
    return False


def shipped_envs() -> list[str]:
    """Return the env names that have a shipped policy (both files present), in registry order."""
    return [game.env_name for game in registry.specs() if all(f.is_file() for f in _shipped_pair(game))]


def policy_files(env_name: str) -> tuple[Traversable, Traversable]:
    """Return the shipped ``(npz, json)`` of an env.

    Raises:
        ValueError: for an unknown env, or one without a shipped policy.
    """
    npz, sidecar = _shipped_pair(registry.spec(env_name))
    if not (npz.is_file() and sidecar.is_file()):
        shipped = ", ".join(shipped_envs()) or "none"
        raise ValueError(f"no pretrained agent for {env_name}; shipped: {shipped}")
    return npz, sidecar


def load_policy(
    npz: Traversable, sidecar: Traversable, max_bytes: int | None = MAX_BYTES
) -> tuple[NumpyPolicy, dict[str, Any]]:
    """Read and check an exported policy and its sidecar.

    Raises:
        ValueError: when a file is unreadable, too large (over ``max_bytes``, by default the
            shipping limit :data:`MAX_BYTES`; ``None``: any size), of another
            format version, or the weights disagree with the sidecar's sizes and widths.
    """
    try:
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"unreadable pretrained sidecar {sidecar.name}: {error}") from None
    if not isinstance(meta, dict):
        raise ValueError(f"pretrained sidecar {sidecar.name} is not a JSON object")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"pretrained sidecar {sidecar.name} has format_version {meta.get('format_version')!r}, "
            f"this version reads {FORMAT_VERSION}"
        )
    for key in ("env", "options", "observation_size", "num_actions", "layers", "activation"):
        if key not in meta:
            raise ValueError(f"pretrained sidecar {sidecar.name} lacks {key!r}")
    if meta["activation"] not in ACTIVATIONS:
        raise ValueError(f"pretrained sidecar {sidecar.name}: unsupported activation {meta['activation']!r}")
    try:
        data = npz.read_bytes()
    except OSError as error:
        raise ValueError(f"unreadable pretrained policy {npz.name}: {error}") from None
    if max_bytes is not None and len(data) > max_bytes:
        raise ValueError(
            f"pretrained policy {npz.name} is {len(data)} bytes, over the {max_bytes}-byte limit"
        )
    try:
        policy = NumpyPolicy.from_npz(data)
    except ValueError as error:
        raise ValueError(f"pretrained policy {npz.name}: {error}") from None
    found = (policy.observation_size, policy.num_actions, policy.widths)
    declared = (meta["observation_size"], meta["num_actions"], list(meta["layers"]))
    if found != declared:
        raise ValueError(
            f"pretrained policy {npz.name} has (observation size, actions, layers) {found}, "
            f"its sidecar says {declared}"
        )
    return policy, meta


def exported_policy_file(spec: str | Path) -> Path | None:
    """Return the ``.npz`` an agent spec names when it is an exported policy: an ``.npz`` file,
    or a run folder holding ``model.npz`` and no ``model.zip`` (a ``--algo dmc`` run); else
    ``None``."""
    path = Path(spec)
    if path.suffix == ".npz" and path.is_file():
        return path
    if path.is_dir() and (path / POLICY_FILE).is_file() and not (path / MODEL_FILE).exists():
        return path / POLICY_FILE
    return None


def read_exported(npz: Path) -> tuple[NumpyPolicy, dict[str, Any]]:
    """Read an exported policy file and its sidecar (``x.npz`` + ``x.json``), as
    :func:`load_policy` does, of any size: the 2 MiB limit is for shipped files (a DMC run's
    head over a large action space can be tens of megabytes).

    Raises:
        ValueError: when the sidecar is missing, or as :func:`load_policy`.
    """
    sidecar = npz.with_suffix(".json")
    if not sidecar.is_file():
        raise ValueError(f"exported policy {npz} has no sidecar {sidecar.name}")
    return load_policy(npz, sidecar, max_bytes=None)


def load_exported(spec: str | Path, env: Any) -> NumpyPolicy:
    """Return the exported policy ``spec`` names (see :func:`exported_policy_file`), checked
    against ``env``: the policy must have been trained for this env, options and sizes.

    Raises:
        ValueError: when ``spec`` names no exported policy, or it was trained for another env.
    """
    npz = exported_policy_file(spec)
    if npz is None:
        raise ValueError(f"no exported policy (.npz) at {spec!s}")
    policy, sidecar = read_exported(npz)
    check_sidecar(sidecar, env, spec)
    policy.name = npz.parent.name if npz.name == POLICY_FILE else npz.stem
    return policy


class PretrainedAgent:
    """The shipped policy of an env (``pretrained.npz`` in its game's folder), played without torch.

    Args:
        env: the env the agent plays (raw or wrapped); its name picks the shipped file.
        seed: accepted for the agent interface; the policy is deterministic.
        loaded: the env's shipped policy and sidecar already read (``load_policy(*policy_files(
            name))``), so that many agents share one copy of the weights; ``None`` reads them.

    Raises:
        ValueError: when no policy is shipped for the env, its files are bad, or the env's
            game options differ from those the policy was trained with (only options that
            change the encoding alone, declared by the env's ``ENCODING_OPTIONS``, may differ).
    """

    def __init__(
        self, env: Any, seed: int | None = None, loaded: tuple[NumpyPolicy, dict[str, Any]] | None = None
    ):
        raw = env.unwrapped
        signature = env_signature(raw)
        name = signature["env"]
        self.policy, self.sidecar = load_policy(*policy_files(name)) if loaded is None else loaded
        self.name = "pretrained"
        if self.sidecar["env"] != name:
            raise ValueError(f"pretrained policy {name} was trained for {self.sidecar['env']}, not {name}")
        trained = dict(self.sidecar["options"])
        self.env: Any
        """The raw env whose state is read (translation), or ``None`` (direct play)."""
        if trained == signature["options"]:
            self.env = None
            self.encoding = raw.encoding
            self.needs_observation = True
        else:
            self.env = raw
            self.encoding = self._training_encoding(raw, trained, signature["options"])
            self.needs_observation = False  # it observes the decision it builds itself
        if (self.encoding.observation_size, self.encoding.num_actions) != (
            self.policy.observation_size, self.policy.num_actions
        ):
            raise ValueError(
                f"pretrained policy for {name} reads {self.policy.observation_size} values and has "
                f"{self.policy.num_actions} actions; its encoding has {self.encoding.observation_size} "
                f"and {self.encoding.num_actions}"
            )
        self._plan: list[int] = []
        self._plan_state: Any = None

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """Return the policy's action for every row (one pass of :class:`NumpyPolicy`), when it
        plays the env's own encoding (a batched engine's slots).

        Raises:
            ValueError: when the agent translates another encoding (it reads the env's state:
                :class:`~cardgames_env.agents.batch.StateBatch` plays it in batch), or a row
                of ``masks`` allows nothing.
        """
        if self.env is not None:
            raise ValueError("this pretrained agent translates another encoding: it reads the env's state")
        return self.policy.act_batch(observations, masks, keys)

    @staticmethod
    def _training_encoding(raw: Any, trained: dict[str, Any], current: dict[str, Any]) -> Any:
        """Return the encoding the policy was trained on, for an env whose options differ only there.

        Raises:
            ValueError: when a differing option is a game option, or the options are invalid.
        """
        encoding_options = set(getattr(raw, "ENCODING_OPTIONS", ()))
        differing = sorted(k for k in set(trained) | set(current) if trained.get(k) != current.get(k))
        game_options = [k for k in differing if k not in encoding_options]
        if game_options:
            name = raw.metadata["name"]
            raise ValueError(
                f"the pretrained agent for {name} plays options {trained or 'default'}"
                + (f" (any {', '.join(sorted(encoding_options))})" if encoding_options else "")
                + f"; this env differs in {', '.join(game_options)}: {current or 'default'}"
            )
        defaults = {f.name: f.default for f in dataclasses.fields(raw.config)}
        try:
            config = dataclasses.replace(raw.config, **{k: trained.get(k, defaults[k]) for k in differing})
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"pretrained sidecar options {trained} are invalid: {error}") from None
        return type(raw).make_encoding(config)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the policy's action (direct), or the env action of the policy's rules move.

        Raises:
            ValueError: if the mask allows nothing, or (translating) the mask is not the one of
                the env the agent reads.
        """
        if self.env is None:
            return self.policy.act(observation, action_mask)
        legal_actions(action_mask)  # raises when the mask allows nothing
        state = self.env.game_state()
        if self._plan and self._plan_state is state and action_mask[self._plan[0]]:
            return self._plan.pop(0)
        move = self.choose_move(state)
        actions = move_actions(self.env.encoding, state, move)
        if not action_mask[actions[0]]:  # the mask is not of the env the agent reads
            raise ValueError(
                f"action {actions[0]} of the pretrained move is not legal under this mask: the agent "
                "must play the env it was built for"
            )
        self._plan, self._plan_state = actions[1:], state
        return actions[0]

    def choose_move(self, state: Any) -> Any:
        """Return the rules move the policy plays in ``state`` through its training encoding.

        The policy sees only the mover's own observation of each sub-step's decision.

        Raises:
            RuntimeError: if the training encoding does not complete a move (a broken encoding).
        """
        encoding = self.encoding
        seat = self.env._agent_index[self.env.agent_selection]
        decision = encoding.to_decision(state)
        for _ in range(MAX_ACTIONS_PER_MOVE):
            action = self.policy.act(encoding.observe(decision, seat), encoding.legal_action_mask(decision))
            before, decision = decision, encoding.apply_action(decision, action)
            after = encoding.rules_state(decision)
            if after is not state:
                return self._move_of(state, encoding.decode(before, action), after)
        raise RuntimeError(f"the training encoding did not complete a move in {MAX_ACTIONS_PER_MOVE} actions")

    def _move_of(self, state: Any, candidate: Any, after: Any) -> Any:
        """Return the rules move that takes ``state`` to ``after``: the last action's move when it
        is one (checked), else the legal move that does (searched)."""
        rules = self.env.rules
        try:
            if rules.apply_move(state, candidate) == after:
                return candidate
        except Exception:  # noqa: BLE001 - the candidate was a sub-step, not a rules move
            pass
        for move in rules.legal_moves(state):
            if rules.apply_move(state, move) == after:
                return move
        raise RuntimeError("no legal move gives the state the training encoding reached")

    def reset(self, seed: int | None = None) -> None:
        """Forget any planned sub-steps (the policy is deterministic; ``seed`` is unused)."""
        self._plan = []
        self._plan_state = None


__all__ = [
    "FORMAT_VERSION", "MAX_BYTES", "POLICY_FILE", "NumpyPolicy", "PretrainedAgent", "exported_policy_file",
    "in_shipped_folder",
    "load_exported", "load_policy", "policy_files", "read_exported", "shipped_envs",
]
