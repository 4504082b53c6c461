"""``OpponentPool``: the opponents a learner meets, sampled per episode (self-play league).

The pool holds *specs* (``"random"``, ``"heuristic"`` or a model path), not agents, so it is
cheap to copy into every vectorized env; each env builds the agents it samples and caches
them. Base entries (random, heuristic) stay for good; snapshots of the learner join over
training and only the newest ``window`` of them are kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

SAMPLING_MODES = ("uniform", "snapshots", "latest")
"""How :meth:`OpponentPool.sample` picks an entry:

* ``uniform``: every entry (base and kept snapshots) equally likely;
* ``snapshots``: with probability ``snapshot_prob`` a uniformly chosen kept snapshot,
  otherwise a uniformly chosen base entry;
* ``latest``: with probability ``snapshot_prob`` the newest snapshot, otherwise a base entry.

With no snapshot yet, every mode samples the base entries uniformly.
"""


@dataclass
class OpponentPool:
    """Opponent specs and how to sample them.

    Attributes:
        base: entries that stay in the pool (e.g. ``("random", "heuristic")``).
        sampling: one of :data:`SAMPLING_MODES`.
        snapshot_prob: probability of picking a snapshot (``snapshots``/``latest`` modes).
        window: how many of the newest snapshots are kept.
        snapshots: model paths of the learner's snapshots, oldest first.
    """

    base: Sequence[str] = ("random",)
    sampling: str = "snapshots"
    snapshot_prob: float = 0.8
    window: int = 5
    snapshots: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.base = tuple(self.base)
        if not self.base:
            raise ValueError("base: an opponent pool needs at least one base entry")
        if self.sampling not in SAMPLING_MODES:
            raise ValueError(f"sampling must be one of {', '.join(SAMPLING_MODES)}, got {self.sampling!r}")
        if not 0.0 <= self.snapshot_prob <= 1.0:
            raise ValueError(f"snapshot_prob must be in [0, 1], got {self.snapshot_prob}")
        if self.window < 1:
            raise ValueError(f"window must be >= 1, got {self.window}")
        self.snapshots = list(self.snapshots)[-self.window :]

    @property
    def entries(self) -> tuple[str, ...]:
        """Every spec that can be sampled now: base entries, then kept snapshots."""
        return (*self.base, *self.snapshots)

    def add_snapshot(self, path: str) -> None:
        """Add a snapshot (model path); the oldest leaves once more than ``window`` are kept."""
        self.snapshots.append(str(path))
        del self.snapshots[: -self.window]

    def probabilities(self) -> dict[str, float]:
        """Return the sampling probability of each entry (for logs and tests)."""
        probs: dict[str, float] = {}
        base, snaps = list(self.base), self.snapshots
        if not snaps or self.sampling == "uniform":
            everyone = base + (snaps if self.sampling == "uniform" else [])
            for spec in everyone:
                probs[spec] = probs.get(spec, 0.0) + 1.0 / len(everyone)
            return probs
        for spec in base:
            probs[spec] = probs.get(spec, 0.0) + (1.0 - self.snapshot_prob) / len(base)
        chosen = snaps[-1:] if self.sampling == "latest" else snaps
        for spec in chosen:
            probs[spec] = probs.get(spec, 0.0) + self.snapshot_prob / len(chosen)
        return probs

    def sample(self, rng: np.random.Generator) -> str:
        """Draw one entry with :meth:`probabilities`."""
        return self.sampler()(rng)

    def sampler(self) -> Callable[[np.random.Generator], str]:
        """Return a function drawing one entry with the probabilities the pool has now: the
        draws of :meth:`sample` (``rng.choice`` over the entries: one uniform draw each),
        without working out the probabilities again for every draw."""
        probs = self.probabilities()
        specs = list(probs)
        weights = np.fromiter(probs.values(), dtype=np.float64)
        cdf = (weights / weights.sum()).cumsum()
        cdf /= cdf[-1]

        def draw(rng: np.random.Generator) -> str:
            return specs[int(cdf.searchsorted(rng.random(), side="right"))]

        return draw
