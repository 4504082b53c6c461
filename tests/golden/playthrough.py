"""Golden playthroughs: seeded random games of every env written as readable, diffable text.

A playthrough pins the behaviour of an env: the legal moves (in notation), the observations
and masks (as short hashes of their bytes), the rewards, terminations and truncations of every
decision of one full game, played by a seeded uniform-random policy that knows nothing of the
game (it picks an index into the sorted legal actions with ``numpy.random.default_rng``). The
batched-engine playthrough does the same for a few slots of ``cardgames_env.vector.make``.

Every line is built from public API values only (env names, options, notation strings, ints,
``repr`` of Python floats, hashes of little-endian array bytes), never from module paths,
class reprs, addresses or dict/set ordering, so moving code between modules leaves the text
byte for byte the same.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardgames_env.registry import ALL_ENVS, load

DATA = Path(__file__).resolve().parent / "data"
"""Folder of the committed playthroughs."""

AEC_SEEDS: dict[str, tuple[int, ...]] = {"red7_v0": (0, 1, 2, 3), "gongzhu_v0": (0, 1), "haggle_v0": (0, 1)}
"""Env seeds of the AEC playthroughs (one file per env, variant and seed): more seeds for the
envs whose games are short; :data:`DEFAULT_SEEDS` for the others."""
DEFAULT_SEEDS: tuple[int, ...] = (0,)

VECTOR_SLOTS = 4
"""Slots of each batched-engine playthrough."""
VECTOR_STEPS = 300
"""Steps of each batched-engine playthrough."""
VECTOR_SEED = 0
"""Seed of each batched-engine playthrough (engine and policy)."""
VECTOR_LEGAL_EVERY = 25
"""Every this many steps the batched playthrough lists slot 0's legal moves in notation."""

LIST_LIMIT = 40
"""Legal-move lists up to this length are written out; longer ones as count and digest."""

POLICY = (
    "uniform random legal action: legal = sorted legal action ints; "
    "pick legal[rng.integers(len(legal))] with rng = numpy.random.default_rng(policy_seed)"
)


@dataclass(frozen=True)
class Case:
    """One AEC playthrough: an env, its options (a variant) and a seed."""

    env: str
    options: dict[str, Any]
    seed: int

    @property
    def policy_seed(self) -> int:
        """Seed of the policy's Generator (distinct from the env's seed)."""
        return 1_000_000 + self.seed

    @property
    def path(self) -> Path:
        """The committed file of this playthrough."""
        return DATA / "aec" / f"{self.env}__{variant_label(self.options)}__seed{self.seed}.txt"


def variant_label(options: dict[str, Any]) -> str:
    """File-name label of a variant: ``default`` or ``key=value,key=value`` in given order."""
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


def aec_cases() -> list[Case]:
    """Every env of the registry, each variant of its ``TEST_VARIANTS``, each of its seeds."""
    return [
        Case(name, dict(options), seed)
        for name in ALL_ENVS
        for options in load(name).TEST_VARIANTS
        for seed in AEC_SEEDS.get(name, DEFAULT_SEEDS)
    ]


def vector_path(name: str) -> Path:
    """The committed file of env ``name``'s batched-engine playthrough."""
    return DATA / "vector" / f"{name}.txt"


def digest(data: bytes) -> str:
    """Short hex digest (sha256, 16 characters) of ``data``."""
    return hashlib.sha256(data).hexdigest()[:16]


def array_digest(array: np.ndarray) -> str:
    """Digest of an array's bytes in a fixed little-endian dtype of the same kind and width."""
    array = np.ascontiguousarray(array)
    return digest(array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes())


def number(value: Any) -> str:
    """Exact, platform-independent text of a reward or return: ``repr`` of the Python float."""
    return repr(float(value))


def options_text(options: dict[str, Any]) -> str:
    """The options as JSON with sorted keys."""
    return json.dumps(options, sort_keys=True)


def legal_text(strings: Sequence[str]) -> str:
    """Legal moves: the count, a digest of the sorted notations, and the list if it is short."""
    ordered = sorted(strings)
    head = f"{len(strings)} sha={digest(chr(10).join(ordered).encode())}"
    if len(strings) <= LIST_LIMIT:
        return head + " [" + " | ".join(strings) + "]"
    return head


def pick(rng: np.random.Generator, mask: np.ndarray) -> int:
    """The policy: a uniform index into the ascending legal actions of ``mask``."""
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        raise AssertionError("the agent to move has no legal action")
    return int(legal[rng.integers(legal.size)])


def flags(values: dict[str, bool], agents: Sequence[str]) -> str:
    """One character per agent: ``1`` set, ``0`` clear, ``-`` the agent has left the game."""
    return "".join("-" if a not in values else "1" if values[a] else "0" for a in agents)


def rewards_text(rewards: dict[str, float], agents: Sequence[str]) -> str:
    """Every agent's reward of the last step (``-`` for one that has left the game)."""
    return " ".join(number(rewards[a]) if a in rewards else "-" for a in agents)


def aec_lines(case: Case) -> Iterator[str]:
    """The lines of the AEC playthrough of ``case`` (one full game through the wrapped env).

    Per live decision: the step number, the mover, its legal moves, hashes of its observation
    and mask bytes and of the global state, the action (int and notation), then every agent's
    rewards, terminations and truncations after the step. Dead steps (``step(None)`` of a
    terminated or truncated agent) get a line of their own. At the end: every agent's summed
    rewards, the points the env reports and a hash of every agent's final observation.
    """
    env = load(case.env).env(**case.options)
    raw = env.unwrapped
    agents = list(raw.possible_agents)
    rng = np.random.default_rng(case.policy_seed)
    yield "# golden playthrough (AEC); regenerate with: python -m tests.golden.regenerate"
    yield f"env {case.env}"
    yield f"options {options_text(case.options)}"
    yield f"seed {case.seed}"
    yield f"policy {POLICY}"
    yield f"policy_seed {case.policy_seed}"
    yield f"agents {' '.join(agents)}"
    yield f"actions {raw.action_space(agents[0]).n}"
    yield f"observation_size {raw.observation_space(agents[0])['observation'].shape[0]}"
    env.reset(seed=case.seed)
    totals = dict.fromkeys(agents, 0.0)
    points: dict[str, Any] = {}
    step = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        step += 1
        if term or trunc:
            env.step(None)
            kind = "dead"
            action_text = "none"
        else:
            legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
            yield f"step {step} {agent} legal {legal_text([raw.action_to_string(a) for a in legal])}"
            yield (
                f"step {step} obs={array_digest(obs['observation'])} "
                f"mask={array_digest(obs['action_mask'])} state={array_digest(raw.state())}"
            )
            action = pick(rng, obs["action_mask"])
            action_text = f"{action} {json.dumps(raw.action_to_string(action))}"
            env.step(action)
            kind = "act"
        for a, r in raw.rewards.items():
            totals[a] += float(r)
        for a, info in raw.infos.items():
            if "points" in info:
                points[a] = info["points"]
        yield (
            f"step {step} {agent} {kind} {action_text} rewards {rewards_text(raw.rewards, agents)}"
            f" term={flags(raw.terminations, agents)} trunc={flags(raw.truncations, agents)}"
        )
    yield f"end steps {step} decisions {raw.num_steps}"
    yield "end returns " + " ".join(number(totals[a]) for a in agents)
    yield "end points " + " ".join(str(points.get(a, "-")) for a in agents)
    yield "end obs " + " ".join(array_digest(raw.observe(a)["observation"]) for a in agents)
    yield f"end state {array_digest(raw.state())}"
    env.close()


def vector_lines(name: str, parallel: bool | None = None) -> Iterator[str]:
    """The lines of env ``name``'s batched-engine playthrough.

    :data:`VECTOR_SLOTS` slots of ``vector.make(name, VECTOR_SLOTS, VECTOR_SEED)`` make
    :data:`VECTOR_STEPS` steps, each slot's action drawn by the random policy in slot order.
    Per step: the actions, then the movers, done and truncated flags and the non-zero rewards
    in plain text, and hashes of the obs, mask and rewards arrays; every
    :data:`VECTOR_LEGAL_EVERY` steps slot 0's legal moves in notation (from an AEC env put in
    the slot's position). ``parallel`` fixes the engine's one-thread (``False``) or threaded
    (``True``) step kernel; both must give the same text.
    """
    from cardgames_env.vector import make

    vec = make(name, VECTOR_SLOTS, seed=VECTOR_SEED)
    if parallel is not None:
        vec.parallel = parallel
    viewer = load(name).raw_env()
    rng = np.random.default_rng(1_000_000 + VECTOR_SEED)
    yield "# golden playthrough (batched engine); regenerate with: python -m tests.golden.regenerate"
    yield f"env {name}"
    yield f"slots {VECTOR_SLOTS} seed {VECTOR_SEED} steps {VECTOR_STEPS}"
    yield f"policy {POLICY}, slot by slot"
    yield f"policy_seed {1_000_000 + VECTOR_SEED}"
    yield f"obs_shape {vec.obs.shape[1]} mask_shape {vec.mask.shape[1]} players {vec.num_players}"
    yield f"reset {_vector_outputs(vec)}"
    for step in range(1, VECTOR_STEPS + 1):
        if (step - 1) % VECTOR_LEGAL_EVERY == 0:
            viewer.set_game_state(vec.state(0))
            yield f"step {step} slot0 legal {legal_text(viewer.legal_action_strings())}"
        actions = np.array([pick(rng, vec.mask[i]) for i in range(VECTOR_SLOTS)], dtype=np.int64)
        vec.step(actions)
        yield f"step {step} actions {' '.join(str(int(a)) for a in actions)} -> {_vector_outputs(vec)}"
    viewer.close()


def _vector_outputs(vec: Any) -> str:
    """Readable text and hashes of a batched engine's output buffers."""
    nonzero = [
        f"{i}:" + ",".join(number(r) for r in vec.rewards[i])
        for i in range(vec.num_envs)
        if np.any(vec.rewards[i] != 0)
    ]
    return (
        f"player {''.join(str(int(p)) for p in vec.player)}"
        f" done {''.join('1' if d else '0' for d in vec.done)}"
        f" trunc {''.join('1' if t else '0' for t in vec.truncated)}"
        f" rewards {' '.join(nonzero) or '0'}"
        f" obs={array_digest(vec.obs)} mask={array_digest(vec.mask)}"
        f" rew={array_digest(vec.rewards)}"
    )


def render(lines: Iterator[str]) -> str:
    """Join playthrough lines into the file text (``\\n`` endings, one at the end)."""
    return "\n".join(lines) + "\n"


def all_files() -> dict[Path, Iterator[str]]:
    """Every playthrough file and the lines it must hold (generated lazily)."""
    files: dict[Path, Iterator[str]] = {case.path: aec_lines(case) for case in aec_cases()}
    for name in ALL_ENVS:
        files[vector_path(name)] = vector_lines(name)
    return files
