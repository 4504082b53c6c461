"""The LLM agent against a real chat-completions server on 127.0.0.1 with a scripted model."""

from __future__ import annotations

import json
import re
import threading

import pytest

from cardgames_env.agents import make_agent
from cardgames_env.agents.llm import LLMAgent, LLMError, parse_llm_options
from cardgames_env.cli import main
from cardgames_env.records import read_records, replay_record
from cardgames_env.text import describe
from cardgames_env.training.evaluate import evaluate, play_game

from .chat_server import ScriptedModel, chat_server
from .helpers import ALL_ENVS, FACE_UP_MOVES, HIDDEN_CODES, short_env

FAST = "backoff=0,timeout=5"


def spec(url: str, extra: str = "") -> str:
    return f"llm:scripted@{url},{FAST}" + (f",{extra}" if extra else "")


@pytest.mark.parametrize("name", ALL_ENVS)
def test_full_games_complete_in_every_game(name: str) -> None:
    """Games play to their end with the model in one seat; every user message is the seat's
    view at that moment (so what the view keeps hidden, the prompts do too)."""
    model = ScriptedModel(["junk", "illegal"], seed=1)
    env = short_env(name)
    with chat_server(model) as url:
        agent = make_agent(spec(url), env, seed=0)
        views: list[str] = []
        choose = agent.choose_move

        def recording_choose() -> str | None:
            views.append(describe(env, env._to_move))
            return choose()

        agent.choose_move = recording_choose  # type: ignore[method-assign]
        others = [make_agent("random", env, seed=s) for s in range(1, len(env.possible_agents))]
        record = play_game(env, [agent, *others], seed=3)
    assert record.steps > 0 and not env.agents
    stats = agent.stats
    assert stats.moves == len(views) > 0
    assert stats.invalid_replies == 2 and stats.fallbacks == 0
    asked = [m["content"] for body in model.requests for m in body["messages"][-1:] if m["role"] == "user"]
    turns = [a for a in asked if a.startswith("Game: ")]
    assert turns == views  # each turn's prompt is the view, nothing else
    requests = len(model.requests)
    assert (stats.prompt_tokens, stats.completion_tokens) == (10 * requests, 3 * requests)


@pytest.mark.parametrize("name", [n for n in ALL_ENVS if n.split("_")[0] in HIDDEN_CODES])
def test_no_prompt_names_a_hidden_card(name: str) -> None:
    """The user messages sent name none of the cards the seat cannot see (its view's table)."""
    model = ScriptedModel(seed=2)
    env = short_env(name)
    hidden = HIDDEN_CODES[name.split("_")[0]]
    checked = 0
    with chat_server(model) as url:
        agent = make_agent(spec(url), env, seed=0)
        choose = agent.choose_move

        def checking_choose() -> str | None:
            nonlocal checked
            seat = env._to_move
            before = len(model.requests)
            move = choose()
            prompt = model.requests[before]["messages"][-1]["content"]
            words = set(re.findall(r"[A-Za-z0-9]+", prompt))
            public = set()
            if name.split("_")[0] in FACE_UP_MOVES:  # cards played face up earlier are public
                public = set(re.findall(r"[A-Za-z0-9]+", " ".join(m[2] for m in env.move_log)))
            assert not (hidden(env.game_state(), seat) - public) & words
            checked += 1
            return move

        agent.choose_move = checking_choose  # type: ignore[method-assign]
        play_game(env, [agent] + [make_agent("random", env, seed=1)] * (len(env.possible_agents) - 1), seed=1)
    assert checked > 0


def test_reasks_then_fallback_counted() -> None:
    """Junk three times with retries=2: the reason is sent back twice, then a random legal move."""
    model = ScriptedModel(["junk", "junk", "illegal"])
    env = short_env("red7_v0")
    env.reset(seed=0)
    with chat_server(model) as url:
        agent = LLMAgent(env, spec(url, "retries=2"), seed=0)
        action = agent.act(None, env.action_mask())  # type: ignore[arg-type]
    assert env.action_mask()[action]
    assert agent.stats.invalid_replies == 3 and agent.stats.fallbacks == 1 and agent.stats.moves == 1
    assert len(model.requests) == 3
    again = model.requests[1]["messages"][-1]
    assert again["role"] == "user" and "no move in brackets" in again["content"]
    assert "not a legal move now" in model.requests[2]["messages"][-1]["content"] or \
        "no move in brackets" in model.requests[2]["messages"][-1]["content"]
    assert agent.transcript[-1]["content"].startswith("fallback")


def test_fallback_none_raises() -> None:
    model = ScriptedModel(default="junk")
    env = short_env("red7_v0")
    env.reset(seed=0)
    with chat_server(model) as url:
        agent = LLMAgent(env, spec(url, "retries=0,fallback=none"))
        with pytest.raises(LLMError, match="gave no legal move.*no move in brackets"):
            agent.act(None, env.action_mask())  # type: ignore[arg-type]


def test_429_then_500_then_ok() -> None:
    """Busy and failing answers are tried again (Retry-After: 0 honoured), then the move plays."""
    model = ScriptedModel(["429", "500"])
    env = short_env("red7_v0")
    env.reset(seed=0)
    with chat_server(model) as url:
        agent = LLMAgent(env, spec(url, "http_retries=2"))
        action = agent.act(None, env.action_mask())  # type: ignore[arg-type]
    assert env.action_mask()[action]
    stats = agent.stats
    assert (stats.requests, stats.failed_requests, stats.http_retries, stats.fallbacks) == (3, 2, 2, 0)


def test_http_retries_run_out_then_fallback() -> None:
    model = ScriptedModel(["500", "500"])
    env = short_env("red7_v0")
    env.reset(seed=0)
    with chat_server(model) as url:
        agent = LLMAgent(env, spec(url, "http_retries=1"))
        agent.act(None, env.action_mask())  # type: ignore[arg-type]
    stats = agent.stats
    assert (stats.fallbacks, stats.failed_requests, stats.invalid_replies) == (1, 2, 0)


def test_a_stalled_answer_times_out_and_is_tried_again() -> None:
    model = ScriptedModel(["stall"])
    env = short_env("red7_v0")
    env.reset(seed=0)
    with chat_server(model) as url:
        agent = LLMAgent(env, f"llm:scripted@{url},backoff=0,timeout=0.3,http_retries=1")
        action = agent.act(None, env.action_mask())  # type: ignore[arg-type]
    assert env.action_mask()[action]
    assert agent.stats.timeouts == 1 and agent.stats.http_retries == 1 and agent.stats.fallbacks == 0


def test_games_at_once_share_the_concurrency_cap() -> None:
    """Four games in threads, agents of one spec: never more than `concurrency` requests at once."""
    model = ScriptedModel()
    with chat_server(model) as url:
        kind = spec(url, "concurrency=2")
        results = []

        def one_game(seed: int) -> None:
            env = short_env("red7_v0")
            agent = make_agent(kind, env, seed=seed)
            results.append(play_game(env, [agent, make_agent("random", env, seed=seed)], seed=seed))

        threads = [threading.Thread(target=one_game, args=(s,)) for s in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    assert len(results) == 4
    assert 1 <= model.most_active <= 2


def test_context_limits_the_turns_sent() -> None:
    model = ScriptedModel()
    env = short_env("jaipur_v0")
    with chat_server(model) as url:
        agent = make_agent(spec(url, "context=2"), env, seed=0)
        play_game(env, [agent, make_agent("random", env, seed=1)], seed=0)
    # the system prompt, the previous turn (view and answer), the current view
    assert max(len(body["messages"]) for body in model.requests) == 1 + 2 + 1
    assert model.requests[0]["messages"][0]["role"] == "system"
    assert "Jaipur" in model.requests[0]["messages"][0]["content"]


@pytest.mark.parametrize("kind, message", [
    ("llm:model", "expected llm:MODEL@BASE_URL"),
    ("llm:@http://x", "expected llm:MODEL@BASE_URL"),
    ("llm:m@ftp://x", "must start with http"),
    ("llm:m@http://x,retries=-1", "retries"),
    ("llm:m@http://x,timeout=0", "timeout"),
    ("llm:m@http://x,fallback=think", "fallback"),
    ("llm:m@http://x,colour=red", "unknown LLM option 'colour'"),
    ("llm:m@http://x,retries=1,retries=2", "given twice"),
    ("llm:m@http://x,retries", "expected key=value"),
])
def test_bad_specs(kind: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_llm_options(kind)


def test_spec_options() -> None:
    options = parse_llm_options("llm:qwen3:8b@http://127.0.0.1:8000/v1,retries=1,temperature=0,log=x.jsonl")
    assert (options.model, options.base_url, options.retries, options.temperature, options.log) == (
        "qwen3:8b", "http://127.0.0.1:8000/v1", 1, 0.0, "x.jsonl")
    assert options.endpoint == "http://127.0.0.1:8000/v1/chat/completions"


def test_api_key_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    model = ScriptedModel()
    env = short_env("red7_v0")
    env.reset(seed=0)
    with chat_server(model) as url:
        agent = LLMAgent(env, spec(url, "retries=3"))
        assert agent.client.api_key == "sk-test"
        agent.act(None, env.action_mask())  # type: ignore[arg-type]
        seen.append(agent.stats.requests)
    assert seen == [1]


def test_eval_cli_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    model = ScriptedModel(["junk"])
    with chat_server(model) as url:
        code = main(["eval", "red7_v0", "--agent", spec(url), "--vs", "heuristic", "--games", "4",
                     "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    assert re.search(r"win rate \d\.\d{3} \[95% CI \d\.\d{3}, \d\.\d{3}\]", out)
    assert re.search(r"invalid replies 1/\d+ \(\d+\.\d%\), fallbacks 0", out)
    assert re.search(r"tokens \d+ in \+ \d+ out", out) and re.search(r"\d\.\d\d s per move", out)


@pytest.mark.parametrize("command", ["eval", "play", "league", "serve"])
def test_unreachable_server_is_one_line_and_exit_2(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    llm = f"llm:m@http://127.0.0.1:{port}/v1"
    argv = {
        "eval": ["eval", "red7_v0", "--agent", llm, "--vs", "random", "--games", "2", "--no-progress"],
        "play": ["play", "red7_v0", "--agents", f"{llm},random", "--quiet", "--no-progress"],
        "league": ["league", "red7_v0", "--agents", f"{llm},random", "--games", "2", "--no-progress"],
        "serve": ["serve", "--port", "1", "--model", f"qwen={llm}"],
    }[command]
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.count("\n") == 1 and "cannot reach the model server" in captured.err
    assert captured.out == ""


def test_play_record_keeps_the_transcript(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    model = ScriptedModel()
    path = tmp_path / "games.jsonl"
    with chat_server(model) as url:
        code = main(["play", "red7_v0", "--agents", f"{spec(url)},random", "--quiet", "--record", str(path),
                     "--no-progress"])
    assert code == 0
    record = read_records(path)[0]
    assert record.transcripts is not None and list(record.transcripts) == ["0"]
    messages = record.transcripts["0"]
    assert messages[0]["role"] == "system" and any(m["role"] == "assistant" for m in messages)
    replay_record(record)  # the transcript does not disturb the replay
    assert json.loads(path.read_text().splitlines()[0])["transcripts"]["0"][1]["content"].startswith("Game: ")


def test_log_option_appends_each_game(tmp_path) -> None:
    model = ScriptedModel()
    log = tmp_path / "talk.jsonl"
    with chat_server(model) as url:
        evaluate("red7_v0", spec(url, f"log={log}"), "random", games=2)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == len(model.requests)  # one line a turn (every reply was a legal move)
    assert all(line["format"] == "cardgames-transcript/1" for line in lines)
    assert len({line["game"] for line in lines}) == 2  # the agent played one seat of each game
    assert all(line["messages"][0]["content"].startswith("Game: Red7") for line in lines)


def test_vector_env_opponents_and_league(capsys: pytest.CaptureFixture[str]) -> None:
    """The agent plays the opponents of the batched gymnasium env, and in a league."""
    import gymnasium
    import numpy as np

    import cardgames_env  # noqa: F401  (registers the envs)

    model = ScriptedModel()
    with chat_server(model) as url:
        env = gymnasium.make_vec("cardgames/red7_v0", num_envs=2, opponents=spec(url))
        _, info = env.reset(seed=0)
        for _ in range(6):
            actions = np.array([np.flatnonzero(mask)[0] for mask in info["action_mask"]])
            _, _, _, _, info = env.step(actions)
        env.close()
        asked = len(model.requests)
        assert asked > 0
        code = main(["league", "red7_v0", "--agents", f"{spec(url)},random", "--games", "2", "--no-progress"])
    assert code == 0 and "llm:scripted" in capsys.readouterr().out
    assert len(model.requests) > asked


def test_retry_after_is_honoured_and_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wait before a retry is the server's Retry-After (not the backoff), capped at max_wait."""
    from cardgames_env.agents import llm

    waits: list[float] = []
    monkeypatch.setattr(llm.time, "sleep", waits.append)
    model = ScriptedModel(["429:0", "429:2", "429:500", "500"])
    env = short_env("red7_v0")
    env.reset(seed=0)
    with chat_server(model) as url:
        agent = LLMAgent(env, f"llm:scripted@{url},backoff=3,max_wait=7,http_retries=4")
        agent.act(None, env.action_mask())  # type: ignore[arg-type]
    assert waits == [0.0, 2.0, 7.0, 7.0]  # Retry-After 0, 2, 500 (capped); a 500: backoff 3×2^3 capped
    assert agent.stats.fallbacks == 0


def test_retry_after_header_forms() -> None:
    from email.utils import formatdate

    from cardgames_env.agents.llm import _retry_after

    assert _retry_after({"Retry-After": "4.5"}, 1.0) == 4.5
    assert _retry_after({"retry-after": "-3"}, 1.0) == 0.0
    assert _retry_after({"Retry-After": "soon"}, 1.5) == 1.5
    assert _retry_after({}, 2.0) == 2.0
    later = _retry_after({"Retry-After": formatdate(usegmt=True)}, 9.0)
    assert 0.0 <= later <= 1.0


def test_served_games_play_an_llm_model() -> None:
    """`cardgames serve --model NAME=llm:...` plays the model by NAME in the browser's games."""
    pytest.importorskip("starlette")
    from cardgames_env.cli import llm_factory
    from cardgames_env.web.catalog import AgentCatalog
    from cardgames_env.web.session import GameSession

    model = ScriptedModel()
    with chat_server(model) as url:
        catalog = AgentCatalog(extra={"qwen": llm_factory(spec(url))})
        game = GameSession("red7_v0", {}, 5, agents=["qwen", "random"], catalog=catalog)
        for _ in range(200):
            if game.over:
                break
            game.step()
    assert game.over and len(model.requests) > 0


def test_play_with_fallback_none_stops_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    model = ScriptedModel(default="junk")
    with chat_server(model) as url:
        code = main(["play", "red7_v0", "--agents", f"{spec(url, 'retries=0,fallback=none')},random",
                     "--quiet", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "gave no legal move" in err


def test_fallback_plays_a_whole_move_over_sub_steps() -> None:
    """Haggis builds a play card by card: the fallback's random move is finished, not re-asked."""
    model = ScriptedModel(default="junk")
    env = short_env("haggis_v0")
    actions = 0
    with chat_server(model) as url:
        agent = make_agent(spec(url, "retries=0"), env, seed=0)
        act = agent.act

        def counting_act(observation, mask):  # type: ignore[no-untyped-def]
            nonlocal actions
            actions += 1
            return act(observation, mask)

        agent.act = counting_act  # type: ignore[method-assign]
        play_game(env, [agent, make_agent("random", env, seed=1)], seed=2)
    stats = agent.stats
    assert actions > stats.moves  # some moves took several actions, the model asked once each
    assert stats.fallbacks == stats.moves == len(model.requests)
    finished = sum(1 for _, seat, _, _ in env.move_log if seat == 0)
    assert finished in (stats.moves, stats.moves - 1)  # the last may be cut by the turn limit
