"""Evaluation: any agents against any agents over seeded games, and round-robin Elo leagues.

Seats rotate over the same deals: in a two-player game each deal is played twice with the
seats swapped; with more players each deal is played once with the evaluated agent in each
seat (the other seats all held by the opponent). The headline figure is

* two players: the win rate (draws count half) with a 95% Wilson interval;
* more players: the mean of the agent's game points minus
  the mean points of the other seats, with a 95% interval over the deals (the rotations of
  one deal are averaged first, so the samples are independent). A game whose points can be
  missing (``None`` for an eliminated player) compares episode returns
  instead: ``eval.metric`` in its training config (``"points"`` or ``"return"``).

Both figures are computed for every match (:class:`MatchResult`). Pure numpy: agents that
are models need the ``train`` extra only to be loaded.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardgames_env.agents.base import Agent, has_heuristic, make_agent
from cardgames_env.agents.search import is_search_kind
from cardgames_env.core.aec import CardGameEnv
from cardgames_env.core.deprecation import renamed
from cardgames_env.display.progress import Progress
from cardgames_env.registry import make_raw_env

from .config import EvalConfig, score_by
from .stats import bradley_terry, elo_from_strengths, mean_interval, wilson_interval

AgentSpec = str | Agent
"""``"random"``, ``"heuristic"``, ``"search[:options]"``, a model path, or an :class:`Agent` object."""

_MAX_STEPS = 1_000_000
"""Safety limit on the steps of one evaluated game."""


class Roster:
    """The agents one spec puts in the seats: one object per seat (models loaded once, shared)."""

    def __init__(self, env: CardGameEnv, spec: AgentSpec, label: str | None = None):
        self.env = env
        self.spec = spec
        self._seats: dict[int, Agent] = {}
        self._shared: Agent | None = spec if isinstance(spec, Agent) else None
        self.label = label or agent_label(spec)
        if isinstance(spec, str):
            self.agent(0)  # build now: a bad spec fails before any game is played
        elif not isinstance(spec, Agent):
            raise ValueError(f"an agent must be a name, a model path or an Agent, got {spec!r}")

    def agent(self, seat: int) -> Agent:
        """Return the agent playing ``seat`` for this spec."""
        if self._shared is not None:
            return self._shared
        agent = self._seats.get(seat)
        if agent is None:
            assert isinstance(self.spec, str)
            agent = make_agent(self.spec, self.env, seed=seat)
            if getattr(agent, "policy", None) is not None:  # a model: one copy serves every seat
                self._shared = agent
            self._seats[seat] = agent
        return agent


def agent_label(spec: AgentSpec) -> str:
    """Return a short name for an agent spec (a model's run folder or file stem)."""
    if isinstance(spec, str):
        if spec in ("random", "heuristic") or is_search_kind(spec):
            return spec
        if spec.startswith("llm:"):  # a language model: its model name, not the server's URL
            return spec.partition("@")[0]
        path = Path(spec)
        if path.is_dir():
            return path.name
        stem = path.name.removesuffix(".zip")
        return path.parent.name if stem == "model" and path.parent.name else stem
    return str(getattr(spec, "name", type(spec).__name__))


@dataclass(frozen=True)
class GameOutcome:
    """The outcome of one finished game: each seat's episode return and game points (NaN if
    none), and its length (a replayable record is :class:`cardgames_env.records.GameRecord`)."""

    returns: tuple[float, ...]
    points: tuple[float, ...]
    steps: int


def play_game(
    env: CardGameEnv,
    agents: Sequence[Agent],
    seed: int,
    on_step: Callable[[Sequence[float]], None] | None = None,
) -> GameOutcome:
    """Play one game of a raw env with one agent per seat from ``reset(seed=seed)``.

    Every agent is re-seeded from ``seed`` and its seat first, so a game is reproducible.
    Rewards are read after every step (before dead steps clear them); ``on_step``, when given,
    is called after every move with each seat's rewards so far.
    """
    raw = env.unwrapped
    n = len(raw.possible_agents)
    if len(agents) != n:
        raise ValueError(f"{raw.metadata['name']} has {n} seats, got {len(agents)} agents")
    raw.reset(seed=seed)
    seeds = np.random.SeedSequence([seed, 0xCA7D]).generate_state(n)
    for seat, agent in enumerate(agents):
        agent.reset(seed=int(seeds[seat]))
    index = raw._agent_index
    totals = [0.0] * n
    blank = np.zeros(raw.encoding.observation_size, dtype=np.float32)
    steps = 0
    while raw.agents:
        agent_name = raw.agent_selection
        if raw.terminations[agent_name] or raw.truncations[agent_name]:
            raw.step(None)
            continue
        seat = index[agent_name]
        player = agents[seat]
        if getattr(player, "needs_observation", True):
            observation = raw.encoding.observe(raw._decision, seat)
        else:
            observation = blank
        raw.step(player.act(observation, raw.action_mask()))
        for name, reward in raw.rewards.items():
            if reward:
                totals[index[name]] += reward
        if on_step is not None:
            on_step(totals)
        steps += 1
        if steps > _MAX_STEPS:
            raise RuntimeError(f"a game of {raw.metadata['name']} ran past {_MAX_STEPS} steps")
    points = tuple(math.nan if p is None else float(p) for p in raw.rules.points(raw.game_state()))
    return GameOutcome(tuple(totals), points, steps)


def outcome(record: GameOutcome, seat: int) -> float:
    """Return 1 (win), 0.5 (draw) or 0 (loss) for ``seat``: best return, ties broken by points.

    With more than two players a win is sole first place and a draw a shared first place.
    """
    keys = [(r, -math.inf if math.isnan(p) else p) for r, p in zip(record.returns, record.points)]
    mine = keys[seat]
    best_other = max(k for s, k in enumerate(keys) if s != seat)
    if mine > best_other:
        return 1.0
    return 0.5 if mine == best_other else 0.0


@dataclass
class MatchResult:
    """An agent's results against an opponent over seeded games with rotating seats.

    Attributes:
        env: env name.
        agent, opponent: labels.
        num_players: seats in the game.
        games: games played.
        wins, draws, losses: outcomes (see :func:`outcome`).
        win_rate: ``(wins + draws / 2) / games``; ``win_ci`` its 95% Wilson interval.
        points_diff: mean over deals of (agent's points - mean points of the other seats);
            ``points_diff_ci`` its 95% interval (NaN when some points were missing).
        return_diff: the same with episode returns.
        score_by: what the multi-player headline compares, ``"points"`` or ``"return"``.
        records: every game with the agent's seat.
    """

    env: str
    agent: str
    opponent: str
    num_players: int
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float
    win_ci: tuple[float, float]
    points_diff: float
    points_diff_ci: tuple[float, float]
    return_diff: float
    return_diff_ci: tuple[float, float]
    score_by: str = "points"
    records: list[tuple[int, GameOutcome]] = field(default_factory=list, repr=False)

    @property
    def metric(self) -> str:
        """Name of the headline figure: ``win_rate`` (two players), ``points_diff`` or ``return_diff``."""
        if self.num_players == 2:
            return "win_rate"
        return "points_diff" if self.score_by == "points" else "return_diff"

    @property
    def value(self) -> float:
        """The headline figure."""
        return float(getattr(self, self.metric))

    @property
    def ci(self) -> tuple[float, float]:
        """95% interval of the headline figure."""
        return {"win_rate": self.win_ci, "points_diff": self.points_diff_ci,
                "return_diff": self.return_diff_ci}[self.metric]

    def summary(self) -> str:
        """Return one line: the headline figure with its interval and the game count."""
        head = f"{self.agent} vs {self.opponent} on {self.env} ({self.games} games): "
        if self.num_players == 2:
            low, high = self.win_ci
            return (
                head + f"win rate {self.win_rate:.3f} [95% CI {low:.3f}, {high:.3f}] "
                f"(W-D-L {self.wins}-{self.draws}-{self.losses}; "
                f"points diff {self.points_diff:+.2f})"
            )
        low, high = self.ci
        what = "points" if self.score_by == "points" else "return"
        if self.games <= self.num_players:  # one deal: no spread between deals to measure
            interval = f"[95% CI needs games on 2 deals or more: play more than {self.num_players} games]"
        else:
            interval = f"[95% CI {low:+.2f}, {high:+.2f}]"
        return (
            head + f"{what} - others' mean {self.value:+.2f} {interval} "
            f"(first place {self.wins}, shared {self.draws}; win rate {self.win_rate:.3f})"
        )


def _seat_plan(num_players: int, game: int) -> tuple[int, int]:
    """Return ``(deal block, agent's seat)`` of game number ``game`` (seats rotate per deal)."""
    return game // num_players, game % num_players


def match_json(result: MatchResult) -> dict[str, Any]:
    """Return the figures of a match as JSON-ready values (an undefined figure, NaN, as null)."""
    def number(x: float) -> float | None:
        return None if math.isnan(x) else x

    return {
        "opponent": result.opponent, "games": result.games, "metric": result.metric,
        "value": number(result.value), "ci": [number(x) for x in result.ci],
        "win_rate": result.win_rate, "win_ci": list(result.win_ci),
        "points_diff": number(result.points_diff),
        "points_diff_ci": [number(x) for x in result.points_diff_ci],
    }


def evaluate(
    env: str | CardGameEnv,
    agent: AgentSpec,
    opponent: AgentSpec,
    games: int = 100,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    agent_name: str | None = None,
    opponent_name: str | None = None,
    metric: str | None = None,
    on_game: Callable[[], None] | None = None,
) -> MatchResult:
    """Play ``agent`` in one seat against ``opponent`` in every other seat over ``games`` games.

    Deal ``k`` (seed ``seed + k``) is played once per seat of the agent (twice with the seats
    swapped for two players); use a multiple of the player count for a balanced evaluation
    (another count plays the last deal in only some of its seat rotations; ``cardgames eval``
    refuses it).
    ``metric`` (``"points"`` or ``"return"``) picks the multi-player headline; ``None`` takes
    the game's ``eval.metric`` setting. ``on_game``, when given, is called after every game
    (a progress bar's ``advance``).

    Raises:
        ValueError: for a non-positive game count, an unknown env or agent, or a model
            trained for another env.
    """
    if games <= 0:
        raise ValueError(f"games must be positive, got {games}")
    raw = make_raw_env(env, options)
    n = len(raw.possible_agents)
    mine = Roster(raw, agent, agent_name)
    theirs = Roster(raw, opponent, opponent_name)
    records: list[tuple[int, GameOutcome]] = []
    for game in range(games):
        block, seat = _seat_plan(n, game)
        seats = [mine.agent(s) if s == seat else theirs.agent(s) for s in range(n)]
        records.append((seat, play_game(raw, seats, seed + block)))
        if on_game is not None:
            on_game()
    by = metric or score_by(raw.info.name)
    return summarize(raw.metadata["name"], mine.label, theirs.label, n, records, by)


def summarize(
    env_name: str,
    agent: str,
    opponent: str,
    num_players: int,
    records: list[tuple[int, GameOutcome]],
    by: str = "points",
) -> MatchResult:
    """Compute a :class:`MatchResult` from ``(agent's seat, record)`` pairs in seat-plan order."""
    outcomes = [outcome(r, seat) for seat, r in records]
    wins = sum(1 for o in outcomes if o == 1.0)
    draws = sum(1 for o in outcomes if o == 0.5)
    score = wins + draws / 2
    games = len(records)

    def diffs(values_of: str) -> tuple[float, tuple[float, float]]:
        per_block: dict[int, list[float]] = {}
        for game, (seat, record) in enumerate(records):
            values = getattr(record, values_of)
            others = [v for s, v in enumerate(values) if s != seat]
            per_block.setdefault(game // num_players, []).append(values[seat] - sum(others) / len(others))
        mean, low, high = mean_interval([sum(v) / len(v) for v in per_block.values()])
        return mean, (low, high)

    points_diff, points_ci = diffs("points")
    return_diff, return_ci = diffs("returns")
    return MatchResult(
        env=env_name, agent=agent, opponent=opponent, num_players=num_players, games=games,
        wins=wins, draws=draws, losses=games - wins - draws, win_rate=score / games,
        win_ci=wilson_interval(score, games), points_diff=points_diff, points_diff_ci=points_ci,
        return_diff=return_diff, return_diff_ci=return_ci, score_by=by, records=records,
    )


@dataclass
class LeagueResult:
    """A round-robin league: pairwise scores and Elo ratings from a Bradley-Terry fit.

    Attributes:
        env: env name.
        names: agent labels.
        wins: ``wins[i, j]`` = score of ``i`` against ``j`` (draws and pairwise splits fractional).
        games: ``games[i, j]`` = games ``i`` and ``j`` played against each other.
        elo: ratings (``random`` anchored at 1000 when present, else centred on 1500).
    """

    env: str
    names: list[str]
    wins: np.ndarray
    games: np.ndarray
    elo: np.ndarray

    def score_rate(self, i: int) -> float:
        """Return agent ``i``'s score over all its games (draws half)."""
        played = self.games[i].sum()
        return float(self.wins[i].sum() / played) if played else math.nan

    def table(self) -> str:
        """Return the Elo table as text, best first."""
        order = np.argsort(-self.elo)
        width = max(len(n) for n in self.names)
        lines = [f"{'agent'.ljust(width)}  elo     score  games"]
        for i in order:
            lines.append(
                f"{self.names[i].ljust(width)}  {self.elo[i]:6.0f}  {self.score_rate(i):.3f}  "
                f"{int(self.games[i].sum())}"
            )
        return "\n".join(lines)

    def write_csv(self, path: str | Path) -> Path:
        """Write ``agent, elo, score, games`` rows (best first) and return the path."""
        path = Path(path)
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["agent", "elo", "score", "games"])
            for i in np.argsort(-self.elo):
                played = int(self.games[i].sum())
                writer.writerow([self.names[i], f"{self.elo[i]:.1f}", f"{self.score_rate(i):.4f}", played])
        return path


def _pair_score(record: GameOutcome, a_seats: Sequence[int], b_seats: Sequence[int], by: str) -> float:
    """Return A's score against B in one game: the fraction of (A seat, B seat) pairs A beat."""
    if len(record.points) == 2:
        return outcome(record, a_seats[0])
    points = [-math.inf if math.isnan(p) else p for p in record.points]
    keys = [(p, r) if by == "points" else (r, p) for p, r in zip(points, record.returns)]
    total = 0.0
    for a in a_seats:
        for b in b_seats:
            key_a, key_b = keys[a], keys[b]
            total += 1.0 if key_a > key_b else 0.5 if key_a == key_b else 0.0
    return total / (len(a_seats) * len(b_seats))


def league(
    env: str | CardGameEnv,
    agents: Sequence[AgentSpec] | Mapping[str, AgentSpec],
    games_per_pair: int = 100,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    prior: float = 1.0,
    metric: str | None = None,
    on_game: Callable[[], None] | None = None,
) -> LeagueResult:
    """Play a round robin between agents and fit Elo ratings (Bradley-Terry).

    Every pair plays ``games_per_pair`` games on deals ``seed, seed + 1, ...``, each deal twice
    with the seats of the two agents exchanged. Two players: one game is one result. More
    players: the seats alternate A, B, A, B... (then B, A, B, A...), and a game scores A
    against B as the fraction of (A seat, B seat) pairs in which A finished with more points
    (or a higher return: ``metric``, default the game's ``eval.metric``). ``on_game``, when
    given, is called after every game (``games_per_pair`` times per pair).

    Raises:
        ValueError: for fewer than two agents, a non-positive count, or a bad agent.
    """
    if games_per_pair <= 0:
        raise ValueError(f"games per pair must be positive, got {games_per_pair}")
    raw = make_raw_env(env, options)
    if isinstance(agents, Mapping):
        rosters = [Roster(raw, spec, label) for label, spec in agents.items()]
    else:
        rosters = [Roster(raw, spec) for spec in agents]
    if len(rosters) < 2:
        raise ValueError("a league needs at least two agents")
    names = _unique([r.label for r in rosters])
    k, n = len(rosters), len(raw.possible_agents)
    by = metric or score_by(raw.info.name)
    wins = np.zeros((k, k))
    games = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            for game in range(games_per_pair):
                a_first = game % 2 == 0
                seats = [rosters[i] if (s % 2 == 0) == a_first else rosters[j] for s in range(n)]
                a_seats = [s for s in range(n) if seats[s] is rosters[i]]
                b_seats = [s for s in range(n) if seats[s] is rosters[j]]
                record = play_game(raw, [seats[s].agent(s) for s in range(n)], seed + game // 2)
                score = _pair_score(record, a_seats, b_seats, by)
                wins[i, j] += score
                wins[j, i] += 1.0 - score
                games[i, j] += 1
                games[j, i] += 1
                if on_game is not None:
                    on_game()
    anchor = names.index("random") if "random" in names else None
    elo = elo_from_strengths(bradley_terry(wins, prior=prior), anchor=anchor)
    return LeagueResult(raw.metadata["name"], names, wins, games, elo)


def final_evaluations(
    env: CardGameEnv,
    learner: Any,
    evals: EvalConfig,
    progress: bool | None,
    log: Callable[[str], None],
) -> list[MatchResult]:
    """Evaluate a trained agent on ``env`` against random and (when the game has one) the
    heuristic over ``evals.final_games`` games each, on deals from ``evals.seed + 500000``, with
    a bar of the games played (``progress``: see :class:`~cardgames_env.display.progress.Progress`),
    compared by ``evals.metric``; log each summary line and return the results."""
    games, seed = evals.final_games, evals.seed + 500_000
    results = []
    for opponent in ("random", "heuristic") if has_heuristic(env.info.name) else ("random",):
        with Progress(games, "games", f"final eval vs {opponent}", progress) as bar:
            result = evaluate(env, learner, opponent, games=games, seed=seed, agent_name="trained",
                              opponent_name=opponent, on_game=bar.advance, metric=evals.metric)
        results.append(result)
        log(result.summary())
    return results


def _unique(labels: list[str]) -> list[str]:
    """Make labels unique by appending ``#2``, ``#3``... to repeats."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return out


__getattr__ = renamed(__name__, {"GameRecord": "GameOutcome"}, globals())
