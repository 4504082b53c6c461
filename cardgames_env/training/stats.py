"""Statistics of evaluations: Wilson intervals, mean intervals, Bradley-Terry strengths and Elo.

Pure numpy; no RL library.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z95 = 1.959963984540054
"""Two-sided 95% quantile of the standard normal distribution."""


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Return the Wilson score interval of a binomial proportion ``successes / n``.

    ``successes`` may be fractional (draws counted as half a win). ``n == 0`` gives ``(0, 1)``.

    Raises:
        ValueError: for ``n < 0`` or ``successes`` outside ``0..n``.
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    return max(0.0, center - half), min(1.0, center + half)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Return ``(mean, low, high)``: the mean with a normal-approximation interval ``z * s / sqrt(n)``.

    ``s`` is the sample standard deviation (ddof=1). One value gives ``(v, nan, nan)``.

    Raises:
        ValueError: for no values.
    """
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        raise ValueError("mean_interval needs at least one value")
    mean = float(data.mean())
    if data.size == 1:
        return mean, math.nan, math.nan
    half = z * float(data.std(ddof=1)) / math.sqrt(data.size)
    return mean, mean - half, mean + half


def bradley_terry(
    wins: np.ndarray, prior: float = 1.0, iterations: int = 100_000, tol: float = 1e-12
) -> np.ndarray:
    """Fit Bradley-Terry strengths to a pairwise result table (Hunter's MM algorithm).

    Args:
        wins: ``k x k`` array; ``wins[i, j]`` = games (or fractions, draws = 0.5) ``i`` won
            against ``j``.
        prior: virtual games added to every pair that met, split as a draw (keeps the fit
            finite when an agent won or lost every game); ``0`` gives the plain maximum
            likelihood estimate.
        iterations: most MM updates.
        tol: stop when no log-strength moves by more than this.

    Returns:
        Strengths ``p`` with geometric mean 1; ``P(i beats j) = p_i / (p_i + p_j)``.

    Raises:
        ValueError: for a non-square or negative table, or (with ``prior == 0``) an agent that
            scored nothing, whose strength would be 0.
    """
    w = np.array(wins, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"wins must be a square table, got shape {w.shape}")
    if (w < 0).any() or prior < 0:
        raise ValueError("wins and prior must be non-negative")
    np.fill_diagonal(w, 0.0)
    met = (w + w.T) > 0
    w[met] += prior / 2
    totals = w + w.T
    scored = w.sum(axis=1)
    if (scored <= 0).any():
        raise ValueError("an agent scored nothing: its Bradley-Terry strength is 0 (use prior > 0)")
    p = np.ones(w.shape[0])
    for _ in range(iterations):
        denominator = (totals / (p[:, None] + p[None, :])).sum(axis=1)
        new = scored / denominator
        new /= math.exp(float(np.log(new).mean()))
        done = float(np.abs(np.log(new) - np.log(p)).max()) < tol
        p = new
        if done:
            break
    return p


def elo_from_strengths(
    strengths: np.ndarray,
    anchor: int | None = None,
    anchor_rating: float = 1000.0,
    mean_rating: float = 1500.0,
) -> np.ndarray:
    """Turn Bradley-Terry strengths into Elo ratings (``400 * log10``; a 400-point gap = 10:1 odds).

    Args:
        strengths: output of :func:`bradley_terry`.
        anchor: index of the agent fixed at ``anchor_rating`` (e.g. ``random`` at 1000), or
            ``None`` to centre the ratings on ``mean_rating``.
    """
    ratings = 400.0 * np.log10(np.asarray(strengths, dtype=np.float64))
    if anchor is None:
        return ratings + (mean_rating - ratings.mean())
    return ratings + (anchor_rating - ratings[anchor])
