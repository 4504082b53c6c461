"""The ``cardgames`` command: list the envs, play or watch games, train and evaluate agents.

Examples (``ENV`` is an env name that ``cardgames list`` prints)::

    cardgames list
    cardgames play ENV --agents heuristic,random --seed 1
    cardgames play ENV --agents human,heuristic
    cardgames play ENV --option KEY=VALUE --quiet
    cardgames play ENV --agents heuristic,random --record games.jsonl
    cardgames replay games.jsonl --game 1
    cardgames serve --port 8000
    cardgames train ENV --timesteps 300000 --opponents selfplay --out runs/mine
    cardgames train ENV --algo dmc --opponents heuristic --timesteps 2000000
    cardgames train ENV --algo exit --timesteps 20000 --out runs/exit [--resume]
    cardgames train ENV --backend rllib --num-env-runners 2 --iterations 20
    cardgames eval ENV --agent runs/mine --vs heuristic --games 400
    cardgames eval ENV --agent pretrained --vs heuristic
    cardgames export runs/mine policies/mine --command "cardgames train ENV ..."
    cardgames league ENV --agents random,heuristic,runs/mine --out runs/league
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .agents.base import AGENT_KINDS
from .core.extras import has_module, missing_extra
from .registry import env_names, load
from .registry import spec as registry_spec
from .training.config import ALGOS, ENGINES, OPPONENT_MODES, OVERRIDES, VEC_ENVS, Overrides, default_of


class UsageError(Exception):
    """A user mistake on the command line (reported in one line, exit status 2)."""


def parse_option(text: str) -> tuple[str, Any]:
    """Parse ``key=value`` with ints, floats, true/false and none recognised."""
    if "=" not in text:
        raise UsageError(f"option {text!r} must look like key=value")
    key, _, raw = text.partition("=")
    lowered = raw.strip().lower()
    value: Any
    if lowered in ("true", "false"):
        value = lowered == "true"
    elif lowered in ("none", "null"):
        value = None
    else:
        try:
            value = int(raw)
        except ValueError:
            try:
                value = float(raw)
            except ValueError:
                value = raw
    return key.strip(), value


def make_env(name: str, options: Sequence[str], render_mode: str | None = None) -> Any:
    """Build the raw env ``name`` with ``key=value`` options, turning mistakes into UsageError."""
    try:
        module = load(name)
    except ValueError as error:
        raise UsageError(str(error)) from None
    kwargs = dict(parse_option(o) for o in options)
    try:
        return module.raw_env(render_mode=render_mode, **kwargs)
    except (ValueError, TypeError) as error:
        raise UsageError(f"bad option for {name}: {error}") from None


def cmd_list(args: argparse.Namespace) -> int:
    """Print every env with its players, action-space size and observation size."""
    rows = [("env", "players", "actions", "observation", "reward")]
    for name in env_names():
        env = load(name).raw_env()
        rows.append(
            (
                name,
                str(len(env.possible_agents)),
                str(env.encoding.num_actions),
                str(env.encoding.observation_size),
                env.info.reward_model,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1])
    return 0


class HumanAgent:
    """Reads moves in the game's notation from the terminal.

    In games whose moves take several actions (cards selected one at a time), a full
    move typed once is carried out over the following sub-steps: while the rules state has
    not changed, the same text is turned into its next action.
    """

    def __init__(self, env: Any, seat: int):
        self.env = env
        self.seat = seat
        self._pending: tuple[str, Any] | None = None

    def act(self, observation: Any, action_mask: Any) -> int:
        env = self.env
        if self._pending is not None:
            text, state = self._pending
            self._pending = None
            if env.game_state() is state:
                try:
                    action = env.string_to_action(text)
                except ValueError:
                    action = -1
                if action >= 0 and action_mask[action]:
                    self._pending = (text, state)
                    return action
        env.render_viewer = self.seat
        print(env.encoding.render(env._decision, self.seat))
        legal = env.legal_action_strings()
        shown = ", ".join(legal[:40]) + (f", ... ({len(legal)} moves)" if len(legal) > 40 else "")
        print(f"your moves: {shown}")
        while True:
            try:
                text = input("> ").strip()
            except EOFError:
                raise UsageError("input ended before the game did") from None
            if text in ("?", "help"):
                print(", ".join(legal))
                continue
            try:
                action = env.string_to_action(text)
            except ValueError as error:
                print(f"not understood: {error}")
                continue
            if not action_mask[action]:
                print(f"{text!r} is not legal now; type ? for the list")
                continue
            self._pending = (text, env.game_state())
            return action

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset."""


def split_agents(text: str) -> list[str]:
    """Split a comma-separated agent list; a ``key=value`` after a comma belongs to the agent
    before it (``llm:MODEL@URL,retries=2,random`` is two agents)."""
    return [s.strip() for s in re.split(r",(?!\s*\w+\s*=)", text) if s.strip()]


def build_agents(env: Any, spec: str, seed: int) -> list[Any]:
    """Build one agent per seat from ``random,heuristic,human,...`` (one name = every seat)."""
    from .agents import make_agent

    names = split_agents(spec)
    n = len(env.possible_agents)
    if len(names) == 1:
        names = names * n
    if len(names) != n:
        raise UsageError(f"{env.metadata['name']} has {n} seats; --agents names {len(names)}")
    agents: list[Any] = []
    for seat, kind in enumerate(names):
        if kind == "human":
            agents.append(HumanAgent(env, seat))
            continue
        try:
            agents.append(make_agent(kind, env, seed=seed * 100 + seat))
        except ValueError as error:
            raise UsageError(str(error)) from None
    return agents


def writable(path: str | Path, what: str, folder: bool = False) -> None:
    """Check, before any work, that an output file (or ``folder``) can be written at ``path``.

    Raises:
        UsageError: naming ``what`` and the path, when it cannot.
    """
    from .training.output import check_output_file, check_output_folder

    try:
        if folder:
            check_output_folder(path, what)
        else:
            check_output_file(path, what)
    except ValueError as error:
        raise UsageError(str(error)) from None


def cmd_play(args: argparse.Namespace) -> int:
    """Play (or watch) one episode with the given agents (and append its record with ``--record``)."""
    from .agents.llm import LLMError
    from .display.progress import Progress

    if args.record is not None:
        writable(args.record, "--record")
    if args.gif is not None:
        gif_ready(args.gif)
    non_negative(args.seed, "--seed")
    env = make_env(args.env, args.option)
    agents = build_agents(env, args.agents, args.seed)
    check_llm_servers(split_agents(args.agents))
    humans = [a.seat for a in agents if isinstance(a, HumanAgent)]
    viewer = humans[0] if len(humans) == 1 else None
    recorder = None
    if args.record is not None or args.gif is not None:
        from .records import Recorder

        names = split_agents(args.agents)
        names = names * len(env.possible_agents) if len(names) == 1 else names
        recorder = Recorder(args.env, dict(parse_option(o) for o in args.option), args.seed, names)
    env.reset(seed=args.seed)
    legend = env.encoding.legend()
    if not args.quiet and legend:
        print(legend)
    if not args.quiet and not humans:
        print(env.encoding.render(env._decision, viewer))
    # Quiet, agents alone may play for minutes (search agents) with nothing shown: count the moves.
    show_bar = progress_setting(args) if args.quiet and not humans else False
    with Progress(None, "moves", "play", show_bar) as bar:
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            try:
                action = agents[seat].act(obs["observation"], obs["action_mask"])
            except LLMError as error:  # a language model with fallback=none gave no legal move
                raise UsageError(str(error)) from None
            move = env.action_to_string(action)
            before = env.game_state()
            if recorder is not None:
                recorder.step(env, action)
            else:
                env.step(action)
            bar.advance()
            if not args.quiet:
                print(f"{agent}: {move}")
                event = env.encoding.describe_transition(before, env.game_state())
                if event:
                    print(event)
    print(env.encoding.render(env._decision, viewer))
    points = env.rules.points(env.game_state())
    print("points: " + "  ".join(f"player_{i} {p}" for i, p in enumerate(points)))
    if args.gif is not None:
        assert recorder is not None
        write_game_gif(args, recorder.record, viewer)
    if args.record is not None:
        assert recorder is not None
        from .records import append_record

        talks = {str(seat): a.transcript for seat, a in enumerate(agents) if hasattr(a, "transcript")}
        if talks:  # the conversations of language-model seats go with the record
            recorder.record.transcripts = talks

        try:
            append_record(args.record, recorder.record)
        except OSError as error:
            raise UsageError(f"cannot write the record to {args.record}: {error.strerror or error}") from None
        print(f"record appended to {args.record}")
    return 0


def gif_ready(path: str) -> None:
    """Check, before any work, that a GIF can be drawn (Pillow) and written at ``path``.

    Raises:
        UsageError: for a path that cannot be written, not ending in ``.gif``, or no Pillow.
    """
    from .display.picture import PicturesUnavailable, require_pillow

    if not str(path).lower().endswith(".gif"):
        raise UsageError(f"--gif must name a .gif file, got {path!r}")
    writable(path, "--gif")
    try:
        require_pillow()
    except PicturesUnavailable as error:
        raise UsageError(str(error)) from None


def write_game_gif(args: argparse.Namespace, record: Any, viewer: int | None) -> None:
    """Draw ``record`` as an animated GIF at ``args.gif`` (one frame per move, after the deal)."""
    from .display.progress import Progress
    from .pictures import record_frames, write_gif

    frames = []
    with Progress(len(record.moves) + 1, "frames", "gif", progress_setting(args)) as bar:
        for frame in record_frames(record, viewer):
            frames.append(frame)
            bar.advance()
    try:
        write_gif(args.gif, frames)
    except OSError as error:
        raise UsageError(f"cannot write the GIF to {args.gif}: {error.strerror or error}") from None
    print(f"GIF of {len(frames)} frames written to {args.gif}")


def cmd_replay(args: argparse.Namespace) -> int:
    """Replay the games of a record file in the terminal, checking that they replay exactly."""
    from .display.progress import Progress, is_terminal
    from .records import RecordError, read_records

    if args.gif is not None:
        gif_ready(args.gif)
    try:
        records = read_records(args.file)
    except RecordError as error:
        raise UsageError(str(error)) from None
    numbers = range(1, len(records) + 1)
    if args.game is not None:
        if not 1 <= args.game <= len(records):
            n = len(records)
            raise UsageError(f"--game must be 1..{n} ({args.file} holds {n} game{'s' * (n != 1)})")
        numbers = range(args.game, args.game + 1)
    if args.gif is not None and len(numbers) != 1:
        raise UsageError(f"--gif draws one game: {args.file} holds {len(records)}; pick one with --game N")
    # The moves printed are progress enough on a terminal; quiet or redirected, a bar counts them.
    streams = not args.quiet and is_terminal(sys.stdout)
    show = False if streams else progress_setting(args)
    total = sum(len(records[k - 1].moves) for k in numbers)
    with Progress(total, "moves", "replay", show) as bar:
        for number in numbers:
            record = records[number - 1]
            try:
                _replay_one(args, record, bar)
            except RecordError as error:
                where = f"game {number} of {len(records)}: " if len(records) > 1 else ""
                raise UsageError(f"{args.file}, {where}{error}") from None
    if args.gif is not None:
        write_game_gif(args, records[numbers[0] - 1], args.viewer)
    return 0


def _replay_one(args: argparse.Namespace, record: Any, bar: Any) -> None:
    """Replay one record for :func:`cmd_replay`: the moves (unless quiet), then the end."""
    from .records import make_env as record_env
    from .records import replay

    env = record_env(record)
    viewer = args.viewer
    if viewer is not None and not 0 <= viewer < len(env.possible_agents):
        raise UsageError(f"--viewer must be a seat 0..{len(env.possible_agents) - 1}")
    if not args.quiet:
        agents = f" ({', '.join(record.agents)})" if record.agents else ""
        print(f"== {record.env} seed {record.seed}{agents}, {len(record.moves)} moves")
        legend = env.encoding.legend()
        if legend:
            print(legend)
        print(env.encoding.render(env._decision, viewer))
    for step in replay(record, env):
        bar.advance()
        if not args.quiet:
            print(f"player_{step.seat}: {step.move}")
            event = env.encoding.describe_transition(step.before, step.after)
            if event:
                print(event)
    points = env.rules.points(env.game_state())
    status = "" if record.finished else "  (the record stops before the end)"
    with bar.paused():
        print(env.encoding.render(env._decision, viewer))
        print("points: " + "  ".join(f"player_{i} {p}" for i, p in enumerate(points)) + status)


def llm_factory(spec: str) -> Any:
    """A factory ``(env, seed) -> agent`` of the ``llm:`` agent ``spec`` (checked now).

    Raises:
        UsageError: for a bad spec.
    """
    from .agents.llm import LLMAgent, parse_llm_options

    try:
        options = parse_llm_options(spec)
    except ValueError as error:
        raise UsageError(f"--model: {error}") from None
    return lambda env, seed: LLMAgent(env, options, seed=seed)


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the browser app (play, watch, replay) until interrupted.

    The operator's models (``--model NAME=PATH``) are loaded once, before serving; clients
    play them by name and can name no file.
    """
    if not 0 < args.port < 65536:
        raise UsageError(f"--port must be 1..65535, got {args.port}")
    if not (math.isfinite(args.max_memory) and args.max_memory > 0):
        raise UsageError(f"--max-memory must be a positive number of MiB, got {args.max_memory}")
    models: dict[str, str] = {}
    for spec in args.model:
        name, sep, path = spec.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise UsageError(f"--model takes NAME=PATH, got {spec!r}")
        if name.strip() in models:
            raise UsageError(f"--model {name.strip()} is given twice")
        models[name.strip()] = path.strip()
    try:
        from .web.app import Settings, serve
        from .web.catalog import AgentCatalog
        from .web.guard import split_host
    except ImportError as error:
        raise UsageError(
            f"{missing_extra('the web app', 'web')} ({error})"
        ) from None
    for host in args.allow_host:
        try:
            split_host(host)
        except ValueError as error:
            raise UsageError(f"--allow-host: {error}") from None
    llms = {name: spec for name, spec in models.items() if spec.startswith("llm:")}
    check_llm_servers(list(llms.values()))
    for name, path in models.items():
        if name not in llms:
            print(f"cardgames: loading model {name} from {path}", flush=True)
    try:
        files = {name: path for name, path in models.items() if name not in llms}
        catalog = AgentCatalog(files, extra={name: llm_factory(spec) for name, spec in llms.items()})
    except ValueError as error:
        raise UsageError(f"--model: {error}") from None
    settings = Settings(host=args.host, port=args.port, allow_hosts=tuple(args.allow_host),
                        max_store_bytes=int(args.max_memory * 2**20))
    try:
        serve(settings, catalog)
    except OSError as error:
        raise UsageError(f"cannot serve on {args.host}:{args.port}: {error.strerror or error}") from None
    return 0


def progress_setting(args: argparse.Namespace) -> bool | None:
    """Return a command's progress-bar setting: off with ``--no-progress``, else ``None``
    (shown when stderr is a terminal)."""
    return False if getattr(args, "no_progress", False) else None


def positive(value: int, what: str) -> int:
    """Return ``value`` if it is positive, else raise a UsageError naming ``what``."""
    if value <= 0:
        raise UsageError(f"{what} must be a positive number, got {value}")
    return value


def non_negative(value: int, what: str) -> int:
    """Return ``value`` if it is zero or more, else raise a UsageError naming ``what`` and the value."""
    if value < 0:
        raise UsageError(f"{what} must be a non-negative integer, got {value}")
    return value


def env_options(name: str, options: Sequence[str]) -> dict[str, Any]:
    """Check an env name and its ``key=value`` options by building the env once; return the options."""
    make_env(name, options)
    return dict(parse_option(o) for o in options)


def train_target(name: str, options: Sequence[str]) -> Any:
    """Resolve ``cardgames train``'s env and ``key=value`` options once (the run's one probe
    env), turning mistakes into UsageError."""
    from .training.target import TrainingTarget

    try:
        spec = registry_spec(name)
    except ValueError as error:
        raise UsageError(str(error)) from None
    try:
        return TrainingTarget.resolve(spec, dict(parse_option(o) for o in options))
    except (ValueError, TypeError) as error:
        raise UsageError(f"bad option for {name}: {error}") from None


def check_agents(name: str, options: Sequence[str], specs: Sequence[str]) -> None:
    """Build each agent spec once for the env, turning a bad one into a UsageError."""
    from .agents import make_agent

    env = make_env(name, options)
    for spec in specs:
        try:
            make_agent(spec, env, seed=0)
        except ValueError as error:
            raise UsageError(str(error)) from None


RLLIB_ONLY = ("num_env_runners", "envs_per_runner", "address", "iterations", "rllib_setup")
"""``cardgames train`` options of the RLlib backend (defaults None)."""
SB3_ONLY = (*Overrides.names(), "config")
"""``cardgames train`` options of the SB3 backend (defaults None)."""


def check_address(address: str | None) -> str | None:
    """Return a Ray cluster address (``auto`` or ``HOST:PORT``), or raise a UsageError."""
    if address is None or address == "auto":
        return address
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"--address must be 'auto' or HOST:PORT, got {address!r}")
    return address


def cmd_train_rllib(args: argparse.Namespace, options: dict[str, Any]) -> int:
    """Train with RLlib PPO (see :mod:`cardgames_env.integrations.rllib`)."""
    given = [name for name in SB3_ONLY if getattr(args, name) is not None]
    if getattr(args, "resume", False):
        given.append("resume")
    if given:
        raise UsageError(f"--{given[0].replace('_', '-')} belongs to --backend sb3, not rllib")
    for value, what in ((args.iterations, "--iterations"), (args.envs_per_runner, "--envs-per-runner")):
        if value is not None:
            positive(value, what)
    if args.num_env_runners is not None and args.num_env_runners < 0:
        raise UsageError(f"--num-env-runners must be 0 or more, got {args.num_env_runners}")
    address = check_address(args.address)
    try:
        from .integrations.rllib import train as train_rllib
    except ImportError as error:
        raise UsageError(
            f"{missing_extra('--backend rllib', 'rllib')} ({error})"
        ) from None
    setup = args.rllib_setup or "selfplay"
    out = args.out or f"runs/{registry_spec(args.env).env_name}-rllib-{setup}-s{args.seed}"
    try:
        train_rllib(
            args.env, options=options, setup=setup, iterations=args.iterations or 10,
            num_env_runners=args.num_env_runners or 0, envs_per_runner=args.envs_per_runner or 8,
            address=address, out=out, seed=args.seed,
        )
    except (ValueError, ConnectionError) as error:
        raise UsageError(str(error)) from None
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    """Train a MaskablePPO, DMC or expert-iteration agent (see :mod:`cardgames_env.training.train`),
    or with RLlib."""
    if args.out is not None:
        writable(args.out, "--out", folder=True)
    else:  # the run folder will be made under runs/ (its name depends on the settings)
        writable("runs", "the default run folder", folder=True)
    if getattr(args, "backend", "sb3") == "rllib":
        return cmd_train_rllib(args, env_options(args.env, args.option))
    given = [name for name in RLLIB_ONLY if getattr(args, name, None) is not None]
    if given:
        raise UsageError(f"--{given[0].replace('_', '-')} belongs to --backend rllib")
    counts = ((args.n_envs, "--n-envs"), (args.eval_games, "--eval-games"), (args.threads, "--threads"))
    for value, what in counts:
        if value is not None:
            positive(value, what)
    for value, what in ((args.timesteps, "--timesteps"), (args.imitation_games, "--imitation-games")):
        if value is not None:
            non_negative(value, what)
    if args.timesteps == 0 and not args.imitation_games and args.config is None:
        # A config file may still ask for imitation games: train() checks that case.
        raise UsageError("--timesteps must be a positive integer (0 only with --imitation-games N)")
    non_negative(args.seed, "--seed")
    target = train_target(args.env, args.option)
    try:
        from .training.train import train
    except ImportError as error:
        raise UsageError(
            f"{missing_extra('training', 'train')} ({error})"
        ) from None
    from .training.config import resolve_config

    try:
        overrides = Overrides(**{name: getattr(args, name) for name in Overrides.names()})
        config = resolve_config(target.spec, args.config, overrides)
        train(target, config, seed=args.seed, out=args.out, progress=progress_setting(args),
              resume=args.resume)
    except ValueError as error:
        raise UsageError(str(error)) from None
    except ImportError as error:
        raise UsageError(
            f"{missing_extra('training', 'train')} ({error})"
        ) from None
    return 0


def check_llm_servers(specs: Sequence[str]) -> None:
    """Check once that the server of every ``llm:`` agent spec answers.

    Raises:
        UsageError: naming the server that cannot be reached.
    """
    from .agents.llm import LLMError, check_server, is_llm_kind

    for spec in dict.fromkeys(specs):
        if is_llm_kind(spec):
            try:
                check_server(spec)
            except (LLMError, ValueError) as error:
                raise UsageError(str(error)) from None


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate one agent against another over seeded games with rotating seats."""
    from .display.progress import Progress
    from .training.evaluate import evaluate

    options = env_options(args.env, args.option)
    positive(args.games, "--games")
    non_negative(args.seed, "--seed")
    check_agents(args.env, args.option, [args.agent, args.vs])
    seats = len(make_env(args.env, args.option).possible_agents)
    if args.games % seats:
        fewer, more = args.games // seats * seats, (args.games // seats + 1) * seats
        hint = f"{fewer} or {more}" if fewer else str(more)
        raise UsageError(
            f"--games must be a multiple of {seats}, the seats of {args.env}: every deal is played "
            f"once with the agent in each seat (got {args.games}; try {hint})"
        )
    from .agents.llm import LLMError, is_llm_kind

    check_llm_servers([args.agent, args.vs])  # once, before any game: unreachable is one line
    agent: Any = args.agent
    env: Any = args.env
    if is_llm_kind(args.agent):  # one agent object, so that its counts can be printed after
        from .agents import make_agent

        env, options = make_env(args.env, args.option), {}
        agent = make_agent(args.agent, env, seed=args.seed)
    try:
        with Progress(args.games, "games", "eval", progress_setting(args)) as bar:
            result = evaluate(env, agent, args.vs, games=args.games, seed=args.seed, options=options,
                              on_game=bar.advance)
    except (ValueError, LLMError) as error:
        raise UsageError(str(error)) from None
    print(result.summary())
    if agent is not args.agent:
        print(agent.stats.summary())
    return 0


def require_matplotlib(what: str) -> None:
    """Refuse, in one line naming the extra, a command whose chart needs matplotlib when it is
    missing (before any game is played or file written)."""
    if not has_module("matplotlib"):
        raise UsageError(missing_extra(f"{what} (matplotlib)", "train"))


def cmd_league(args: argparse.Namespace) -> int:
    """Play a round-robin league and print (and save) its Elo table."""
    if args.out is not None:  # first: a destination that cannot be written would waste the games
        writable(args.out, "--out", folder=True)
        require_matplotlib("the Elo chart of league --out")
    from .display.progress import Progress
    from .training.evaluate import league

    options = env_options(args.env, args.option)
    positive(args.games, "--games")
    if args.games % 2:
        raise UsageError(f"--games must be even: each deal is played twice, seats swapped (got {args.games})")
    non_negative(args.seed, "--seed")
    specs = split_agents(args.agents)
    if len(specs) < 2:
        raise UsageError("--agents needs at least two agents, separated by commas")
    check_agents(args.env, args.option, specs)
    check_llm_servers(specs)
    total = len(specs) * (len(specs) - 1) // 2 * args.games
    try:
        with Progress(total, "games", "league", progress_setting(args)) as bar:
            result = league(args.env, specs, games_per_pair=args.games, seed=args.seed, options=options,
                            on_game=bar.advance)
    except ValueError as error:
        raise UsageError(str(error)) from None
    print(result.table())
    if args.out is not None:
        from .training.plots import plot_elo

        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            csv_path = result.write_csv(out / f"elo_{result.env}.csv")
            png_path = plot_elo(result, out / f"elo_{result.env}.png")
        except OSError as error:
            raise UsageError(f"--out {out} cannot be written: {error.strerror or error}") from None
        print(f"saved {csv_path} and {png_path}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Export a trained model as a torch-free policy (``DEST.npz`` + ``DEST.json``)."""
    writable(Path(args.dest).parent, "DEST_STEM's folder", folder=True)
    from .agents.pretrained import MAX_BYTES
    from .display.progress import Progress
    from .training.export import EXPORT_STAGES, export_policy

    limit = MAX_BYTES if args.shipping_limit else None
    try:
        with Progress(len(EXPORT_STAGES), "stages", "export", progress_setting(args)) as bar:
            npz, sidecar = export_policy(args.run, args.dest, command=args.command, dtype=args.dtype,
                                         max_bytes=limit, on_stage=bar.begin)
    except ValueError as error:
        raise UsageError(str(error)) from None
    print(f"saved {npz} ({npz.stat().st_size} bytes) and {sidecar}")
    return 0


def cmd_curve(args: argparse.Namespace) -> int:
    """Draw (again) the learning curve of a training run folder."""
    if args.out is not None:
        writable(args.out, "--out")
    require_matplotlib("curve")
    from .training.plots import plot_learning_curve

    try:
        path = plot_learning_curve(args.run, args.out)
    except ValueError as error:
        raise UsageError(str(error)) from None
    print(f"saved {path}")
    return 0


class _DefaultsFormatter(argparse.HelpFormatter):
    """Help that shows each option's default: ``(default: X)`` after a help that names none
    (flags, empty lists and ``None`` have no default worth showing)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        empty = default is None or default is False or default == [] or default is argparse.SUPPRESS
        if "default" in text or not action.option_strings or empty:
            return text
        return f"{text} (default: %(default)s)"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (UsageError), not usage plus message."""

    def error(self, message: str) -> Any:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``cardgames`` command (every subcommand's ``--help``
    shows each option's default)."""
    parser = _Parser(prog="cardgames", description="Card games as PettingZoo envs.")
    sub = parser.add_subparsers(dest="command", required=True)
    commands = (_add_list, _add_play, _add_replay, _add_serve, _add_train, _add_eval, _add_league,
                _add_export, _add_curve)
    for add in commands:
        add(sub)
    return parser


def _command(sub: Any, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    """Add subcommand ``name`` with the help formatter that shows defaults."""
    parser: argparse.ArgumentParser = sub.add_parser(name, formatter_class=_DefaultsFormatter, **kwargs)
    return parser


def _add_list(sub: Any) -> None:
    """Add ``cardgames list``."""
    parser = _command(sub, "list", help="list the envs with players, actions and observation size")
    parser.set_defaults(func=cmd_list)


def _add_play(sub: Any) -> None:
    """Add ``cardgames play ENV``: play or watch one game."""
    parser = _command(sub, "play", help="play or watch one game in the terminal")
    parser.add_argument("env", help=f"env name: {', '.join(env_names())}")
    parser.add_argument("--agents", default="heuristic",
                        help=f"comma-separated seat agents: {', '.join(AGENT_KINDS)}, human or a model path "
                             "(one name = every seat)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents")
    _option_argument(parser)
    parser.add_argument("--quiet", action="store_true", help="print only the final position")
    _progress_argument(parser, "the moves played, with --quiet and no human seat")
    parser.add_argument("--record", default=None, metavar="FILE",
                        help="append the game's record (JSON Lines) to FILE (default: no record)")
    parser.add_argument("--gif", default=None, metavar="FILE",
                        help="write the game as an animated GIF (one frame per move; the pictures extra; "
                             "default: no GIF)")
    parser.set_defaults(func=cmd_play)


def _add_replay(sub: Any) -> None:
    """Add ``cardgames replay FILE``."""
    parser = _command(sub, "replay", help="replay recorded games (JSON Lines) in the terminal")
    parser.add_argument("file", help="a record file written by play --record or the web app")
    parser.add_argument("--game", type=int, default=None, help="replay only game N (1-based) of the file "
                                                               "(default: every game)")
    parser.add_argument("--viewer", type=int, default=None, help="show the game as this seat sees it "
                                                                 "(default: every hand, as recorded)")
    parser.add_argument("--quiet", action="store_true",
                        help="print only each game's final position and points (no header, no moves)")
    _progress_argument(parser, "the moves replayed, when --quiet or the output is not a terminal")
    parser.add_argument("--gif", default=None, metavar="FILE",
                        help="write the game (one game: --game N for a file of several) as an animated "
                        "GIF, as --viewer sees it (one frame per move; the pictures extra; default: no GIF)")
    parser.set_defaults(func=cmd_replay)


def _add_serve(sub: Any) -> None:
    """Add ``cardgames serve``: the browser app."""
    parser = _command(sub, "serve", help="the browser app: play, watch and replay games")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: localhost only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--model", action="append", default=[], metavar="NAME=PATH",
                        help="a saved model clients may play by NAME, loaded once at start (repeatable; "
                             "a saved SB3 model is a pickle: only files you trust)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="HOST",
                        help="another name clients reach the server by, besides the bound host and "
                             "localhost (repeatable; other Host headers get 400)")
    parser.add_argument("--max-memory", type=float, default=256, metavar="MIB",
                        help="estimated memory of all games kept; the least recently used go first "
                             "(default 256)")
    parser.set_defaults(func=cmd_serve)


def _add_train(sub: Any) -> None:
    """Add ``cardgames train ENV``: the settings' flags (:data:`TRAIN_FLAGS`), the run's, and
    RLlib's."""
    parser = _command(sub, "train", help="train a MaskablePPO, DMC or expert-iteration agent (game defaults)")
    parser.add_argument("env", help=f"env name: {', '.join(env_names())}")
    for name, (kwargs, what) in TRAIN_FLAGS.items():
        parser.add_argument(f"--{name.replace('_', '-')}", default=None, **kwargs,
                            help=f"{what} ({_setting_default(name)})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the envs and the network")
    parser.add_argument("--out", default=None,
                        help="run folder (default: runs/<env>[-dmc|-exit]-<opponents>-s<seed>, with the "
                             "env's canonical name)")
    parser.add_argument("--config", default=None, help="a JSON file overriding the game's settings "
                                                       "(default: none)")
    parser.add_argument("--resume", action="store_true",
                        help="--algo exit: go on from the state saved after the last finished iteration in "
                             "the run folder (--out, or the default folder), up to --timesteps decisions")
    _progress_argument(parser, "the learner steps and the final evaluations' games")
    _option_argument(parser)
    _add_train_rllib(parser)
    parser.set_defaults(func=cmd_train)


TRAIN_FLAGS: dict[str, tuple[dict[str, Any], str]] = {
    "timesteps": ({"type": int}, "env steps of the learner"),
    "opponents": ({"choices": OPPONENT_MODES}, "who plays the other seats"),
    "n_envs": ({"type": int}, "games the learner plays at once"),
    "vec_env": ({"choices": VEC_ENVS}, "with --engine aec: DummyVecEnv (one process) or SubprocVecEnv"),
    "engine": ({"choices": ENGINES}, "aec: one game at a time; vector: the batched engine, N games at once"),
    "algo": ({"choices": ALGOS}, "ppo: sb3-contrib's MaskablePPO; dmc: Deep Monte-Carlo on the batched "
             "engine, saved as model.npz; exit: expert iteration (the network-guided search plays every "
             "seat, the network learns its moves and the outcomes), saved as model.npz"),
    "eval_games": ({"type": int}, "games of each evaluation, periodic and final"),
    "imitation_games": ({"type": int}, "games the teacher (--imitation-teacher) plays against heuristics "
                        "before PPO or DMC; the network first imitates its moves (0: none)"),
    "imitation_teacher": ({"metavar": "KIND"}, "the agent kind imitated: search, heuristic, ..."),
    "device": ({"metavar": "DEVICE"}, "where the learner runs: auto (a CUDA GPU when there is one), cpu, "
               "cuda or cuda:K"),
    "threads": ({"type": int, "metavar": "N"}, "CPU cores the run may use in all: the engines' kernels, "
                "the learner and the opponents share them"),
}
"""The flags of the training settings (one per :class:`~cardgames_env.training.config.Overrides`
field): argparse's arguments and what the flag sets; the default comes from the settings."""


def _setting_default(name: str) -> str:
    """The help's default of a settings flag: the game's setting, else :class:`TrainConfig`'s."""
    paths = OVERRIDES[name]
    value: Any = "every core" if name == "threads" else default_of(paths[0])
    if len(paths) > 1:
        value = ", ".join(f"{default_of(path)} ({path})" for path in paths)
    if name == "n_envs":
        return ("default: the game's setting, else 2; 256 on the batched engine, 4096 with a GPU learner")
    return f"default: the game's setting, else {value}"


def _add_train_rllib(parser: argparse.ArgumentParser) -> None:
    """Add ``cardgames train``'s options of ``--backend rllib``."""
    parser.add_argument("--backend", choices=("sb3", "rllib"), default="sb3",
                        help="sb3: MaskablePPO in one process; rllib: Ray RLlib PPO (the rllib extra)")
    parser.add_argument("--num-env-runners", type=int, default=None,
                        help="rllib: sampling processes (0 = sample in the driver; default 0)")
    parser.add_argument("--envs-per-runner", type=int, default=None,
                        help="rllib: envs per env runner (default 8)")
    parser.add_argument("--address", default=None,
                        help="rllib: Ray cluster to join, auto or HOST:PORT (default: start Ray locally)")
    parser.add_argument("--iterations", type=int, default=None,
                        help="rllib: training iterations (default 10)")
    parser.add_argument("--rllib-setup", choices=("selfplay", "random", "heuristic"), default=None,
                        help="rllib: one shared policy, or a learner against frozen random/heuristic seats "
                             "(default selfplay)")


def _add_eval(sub: Any) -> None:
    """Add ``cardgames eval ENV``."""
    parser = _command(sub, "eval", help="evaluate an agent against another over seeded games")
    parser.add_argument("env", help=f"env name: {', '.join(env_names())}")
    parser.add_argument("--agent", required=True,
                        help="random, heuristic, search[:key=value...], pretrained or a model path")
    parser.add_argument("--vs", required=True, help="the opponent in every other seat")
    parser.add_argument("--games", type=int, default=200,
                        help="games, a multiple of the seats (each deal: the agent once in each seat)")
    parser.add_argument("--seed", type=int, default=0, help="first deal's seed")
    _option_argument(parser)
    _progress_argument(parser, "the games played")
    parser.set_defaults(func=cmd_eval)


def _add_league(sub: Any) -> None:
    """Add ``cardgames league ENV``."""
    parser = _command(sub, "league", help="round-robin league with an Elo table (CSV + PNG)")
    parser.add_argument("env", help=f"env name: {', '.join(env_names())}")
    parser.add_argument("--agents", required=True,
                        help="comma-separated: random, heuristic, search[:key=value...], pretrained, "
                             "model paths")
    parser.add_argument("--games", type=int, default=100,
                        help="games per pair of agents, even: each deal twice, seats exchanged")
    parser.add_argument("--seed", type=int, default=0, help="first deal's seed")
    parser.add_argument("--out", default=None, help="folder for elo_<env>.csv and elo_<env>.png (default: "
                                                    "the table is only printed)")
    _option_argument(parser)
    _progress_argument(parser, "the games played")
    parser.set_defaults(func=cmd_league)


def _add_export(sub: Any) -> None:
    """Add ``cardgames export RUN DEST_STEM``."""
    parser = _command(sub, "export", help="export a trained model as a torch-free shipped policy")
    parser.add_argument("run", help="the run folder (holds model.zip, or model.npz for --algo dmc), "
                        "the model's .zip or an exported .npz")
    parser.add_argument("dest", metavar="DEST_STEM",
                        help="output path without suffix (writes .npz and .json)")
    parser.add_argument("--command", required=True, help="the exact command that trained the model")
    parser.add_argument("--dtype", choices=("float32", "float16"), default="float32",
                        help="storage of the weights (the math is float32 either way)")
    parser.add_argument("--shipping-limit", action="store_true",
                        help="refuse an .npz over 2 MiB, the limit of the policies shipped in the package "
                             "(always applied when DEST_STEM is a game's envs/<game>/pretrained)")
    _progress_argument(parser, "the export's stages")
    parser.set_defaults(func=cmd_export)


def _add_curve(sub: Any) -> None:
    """Add ``cardgames curve RUN``."""
    parser = _command(sub, "curve", help="draw the learning curve of a training run folder")
    parser.add_argument("run", help="the run folder (holds eval.csv)")
    parser.add_argument("--out", default=None, help="PNG path (default RUN/learning_curve.png)")
    parser.set_defaults(func=cmd_curve)


def _option_argument(parser: argparse.ArgumentParser) -> None:
    """Add the repeatable ``--option key=value`` (game variant) argument."""
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game variant, e.g. game_end=-1000 (repeatable)")


def _progress_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """Add ``--no-progress`` (the bar on stderr counts ``what`` when stderr is a terminal)."""
    parser.add_argument("--no-progress", action="store_true",
                        help=f"no progress bar (shown on stderr, when it is a terminal, counting {what})")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cardgames`` command."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        code = int(args.func(args))
        sys.stdout.flush()  # a closed pipe fails here, inside the handler below, not at exit
        return code
    except UsageError as error:
        print(f"cardgames: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader of stdout left (``| head``): stop without a traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush goes nowhere
        return 141


if __name__ == "__main__":
    sys.exit(main())
