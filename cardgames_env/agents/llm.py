"""``llm:MODEL@BASE_URL``: a language model plays a seat, over the OpenAI chat-completions protocol.

The protocol is the one vLLM, llama.cpp's server, Ollama and hosted APIs share: ``POST
BASE_URL/chat/completions`` with ``{"model", "messages", ...}``. Only the standard library
speaks it (``urllib.request`` and ``json``): no dependency is added. The key comes from the
``OPENAI_API_KEY`` environment variable when it is set (sent as ``Authorization: Bearer``).

Each game is one conversation: a system message with the game's rules summary
(:func:`cardgames_env.text.rules_summary`) and how to answer, then one user message per turn,
the seat's text view (:func:`cardgames_env.text.describe`), ending with the legal moves as
``[move]``. The model's reply is read by :func:`cardgames_env.text.parse_reply` (its last
bracketed move); an unparsable or illegal reply is answered with the reason and the model is
asked again, up to ``retries`` times, after which the fallback plays (``random``: a uniformly
random legal move, a whole move even where the env builds one over sub-steps; ``none``: the
agent raises :class:`LLMError`) and is counted.

HTTP: each request waits at most ``timeout`` seconds; a timeout, a lost connection, a 429 or a
5xx is tried again up to ``http_retries`` times, after ``backoff × 2^k`` seconds or the
server's ``Retry-After`` (both capped at ``max_wait``). Agents built from one spec share one
client (:func:`client_for`), whose semaphore lets at most ``concurrency`` requests run at
once, however many games play at once (threads, the web app, batched opponents).

Counted (:class:`LLMStats`, per agent): moves, requests, invalid replies, fallbacks, HTTP
retries and timeouts, prompt and completion tokens (the response's ``usage``) and seconds spent
waiting for the model. The conversation of the game in progress is :attr:`LLMAgent.transcript`;
``log=PATH`` appends each turn's messages to a JSON Lines file as it is played (one line a
turn, naming the game and the seat), and ``cardgames play --record`` keeps the whole
conversation with the game record.

Spec options follow the model and URL, comma-separated: ``llm:MODEL@URL,retries=2,timeout=30,
fallback=random,temperature=0`` (see :func:`parse_llm_options`).
"""

from __future__ import annotations

import copy
import email.utils
import json
import math
import os
import secrets
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from cardgames_env.core.masks import legal_actions
from cardgames_env.core.rng import make_rng
from cardgames_env.text import describe, legal_moves, parse_reply, rules_summary
from cardgames_env.text.moves import MoveParseError

LLM_KIND = "llm"
"""Agent-kind prefix of the LLM agent: ``llm:MODEL@BASE_URL[,key=value...]``."""
FALLBACKS = ("random", "none")
"""What the agent plays after the re-asks run out: a random legal move, or nothing (it raises)."""
MAX_RESPONSE_BYTES = 4_000_000
"""Most bytes of a response body read (a longer one is cut, and so unreadable)."""

SYSTEM_PROMPT = """You are playing the card game {title} as one of its players. The rules:

{rules}

How to answer: each turn you get what your seat knows and the list of your legal moves, one per
line, each written in square brackets. You may think first, but end your reply with exactly one
of the legal moves, copied in square brackets, for example {example}. The last bracketed text of
your reply is taken as your move."""


class LLMError(RuntimeError):
    """The model could not be reached or gave no usable move (the message says why)."""


class LLMUnavailable(LLMError, ConnectionError):
    """The server cannot be reached (connection refused, unknown host, no answer in time)."""


@dataclass(frozen=True)
class LLMOptions:
    """Settings of an LLM agent (see :func:`parse_llm_options`).

    Attributes:
        model: the model name the server knows.
        base_url: the server's OpenAI-compatible root, e.g. ``http://127.0.0.1:8000/v1``.
        retries: re-asks after an unparsable or illegal reply, before the fallback.
        fallback: ``"random"`` (a random legal move, counted) or ``"none"`` (raise).
        timeout: seconds one HTTP request may take.
        http_retries: further tries of a request after a timeout, a lost connection, 429 or 5xx.
        backoff: seconds before the first such try (doubling each time).
        max_wait: cap on one wait, the server's ``Retry-After`` included (seconds).
        concurrency: most requests at once over every agent of this spec.
        temperature: sampling temperature sent (``None``: the server's default).
        max_tokens: reply length cap sent (``None``: the server's default).
        context: turns of the game's conversation sent with each request (``0``: all); each
            turn's view says what happened since the previous one, so a few suffice.
        log: a JSON Lines file each finished game's conversation is appended to, or ``None``.
    """

    model: str
    base_url: str
    retries: int = 2
    fallback: str = "random"
    timeout: float = 60.0
    http_retries: int = 3
    backoff: float = 1.0
    max_wait: float = 30.0
    concurrency: int = 4
    temperature: float | None = None
    max_tokens: int | None = None
    context: int = 4
    log: str | None = None

    @property
    def endpoint(self) -> str:
        """``BASE_URL/chat/completions``."""
        return self.base_url.rstrip("/") + "/chat/completions"


_INT_OPTIONS = {"retries": 0, "http_retries": 0, "concurrency": 1, "max_tokens": 1, "context": 0}
_FLOAT_OPTIONS = {"timeout": 0.0, "backoff": 0.0, "max_wait": 0.0, "temperature": 0.0}
_STRICT = {"timeout", "max_wait"}


def is_llm_kind(kind: Any) -> bool:
    """True if an agent name asks for the LLM agent (``llm:...``)."""
    return isinstance(kind, str) and kind.startswith(LLM_KIND + ":")


def parse_llm_options(kind: str) -> LLMOptions:
    """Parse ``llm:MODEL@BASE_URL[,key=value...]``.

    Keys: ``retries``, ``http_retries`` (integers >= 0), ``concurrency``, ``max_tokens``
    (integers >= 1), ``context`` (integer >= 0; 0 = the whole conversation), ``timeout``,
    ``max_wait`` (seconds > 0), ``backoff``, ``temperature`` (numbers >= 0), ``fallback``
    (``random`` or ``none``), ``log`` (a file path).

    Raises:
        ValueError: naming the bad part: no model or URL, a URL that is not http(s), an
            unknown, repeated or malformed option, or a bad value.
    """
    if not is_llm_kind(kind):
        raise ValueError(f"not an LLM agent name: {kind!r} (expected llm:MODEL@BASE_URL)")
    head, *parts = kind[len(LLM_KIND) + 1 :].split(",")
    model, sep, url = head.partition("@")
    model, url = model.strip(), url.strip()
    if not sep or not model or not url:
        raise ValueError(f"LLM agent {kind!r}: expected llm:MODEL@BASE_URL, e.g. llm:qwen3-8b@http://127.0.0.1:8000/v1")
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"LLM agent {kind!r}: the base URL must start with http:// or https://, got {url!r}")
    values: dict[str, Any] = {}
    for part in parts:
        key, sep, text = part.partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not key or not text:
            raise ValueError(f"LLM option {part!r}: expected key=value (e.g. llm:MODEL@URL,retries=2)")
        if key in values:
            raise ValueError(f"LLM option {key!r} given twice")
        if key in _INT_OPTIONS:
            try:
                values[key] = int(text)
            except ValueError:
                raise ValueError(f"LLM option {key}={text!r}: expected an integer") from None
            if values[key] < _INT_OPTIONS[key]:
                raise ValueError(f"LLM option {key}={text!r}: expected an integer >= {_INT_OPTIONS[key]}")
        elif key in _FLOAT_OPTIONS:
            try:
                number = float(text)
            except ValueError:
                raise ValueError(f"LLM option {key}={text!r}: expected a number") from None
            if not math.isfinite(number) or number < 0 or (key in _STRICT and number == 0):
                bound = ">" if key in _STRICT else ">="
                raise ValueError(f"LLM option {key}={text!r}: expected a number {bound} 0")
            values[key] = number
        elif key == "fallback":
            if text not in FALLBACKS:
                raise ValueError(f"LLM option fallback={text!r}: expected one of {', '.join(FALLBACKS)}")
            values[key] = text
        elif key == "log":
            values[key] = text
        else:
            known = sorted([*_INT_OPTIONS, *_FLOAT_OPTIONS, "fallback", "log"])
            raise ValueError(f"unknown LLM option {key!r}; known: {', '.join(known)}")
    return LLMOptions(model=model, base_url=url, **values)


@dataclass
class Completion:
    """One reply of the model: its text and the tokens the server counted."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class LLMStats:
    """What an LLM agent counted (see the module docstring)."""

    moves: int = 0
    requests: int = 0
    invalid_replies: int = 0
    fallbacks: int = 0
    failed_requests: int = 0
    http_retries: int = 0
    timeouts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    @property
    def invalid_rate(self) -> float:
        """Invalid replies per reply (NaN before any reply)."""
        replies = self.requests - self.failed_requests
        return self.invalid_replies / replies if replies else math.nan

    @property
    def seconds_per_move(self) -> float:
        """Seconds waited for the model per move (NaN before any move)."""
        return self.seconds / self.moves if self.moves else math.nan

    def add(self, other: LLMStats) -> None:
        """Add another agent's counts to these."""
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)

    def summary(self) -> str:
        """One line of the figures."""
        tokens = self.prompt_tokens + self.completion_tokens
        per_move = tokens / self.moves if self.moves else math.nan
        return (
            f"llm: {self.moves} moves, invalid replies {self.invalid_replies}/"
            f"{self.requests - self.failed_requests} ({self.invalid_rate:.1%}), fallbacks {self.fallbacks}, "
            f"failed requests {self.failed_requests} "
            f"(timeouts {self.timeouts}, HTTP retries {self.http_retries}), "
            f"tokens {self.prompt_tokens} in + {self.completion_tokens} out ({per_move:.0f} per move), "
            f"{self.seconds_per_move:.2f} s per move"
        )


class ChatClient:
    """The HTTP side of the LLM agents of one spec: requests, retries, the concurrency cap.

    Thread-safe: agents of many games share one client.
    """

    def __init__(self, options: LLMOptions, api_key: str | None = None):
        self.options = options
        self.api_key = api_key
        self.semaphore = threading.BoundedSemaphore(options.concurrency)
        """At most ``concurrency`` requests at once."""

    def _request(self, url: str, body: bytes | None, timeout: float) -> tuple[int, dict[str, str], bytes]:
        """One HTTP request: ``(status, headers, body)``; raises ``OSError`` when no answer came."""
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(url, data=body, headers=headers, method="POST" if body else "GET")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, dict(response.headers), response.read(MAX_RESPONSE_BYTES)
        except urllib.error.HTTPError as error:
            with error:
                return error.code, dict(error.headers or {}), error.read(MAX_RESPONSE_BYTES)

    def check(self) -> None:
        """Check once that the server answers (``GET BASE_URL/models``); any HTTP answer but a
        refused key counts.

        Raises:
            LLMUnavailable: naming the server and the reason.
        """
        url = self.options.base_url.rstrip("/") + "/models"
        try:
            status, _, _ = self._request(url, None, min(self.options.timeout, 10.0))
        except (OSError, ValueError) as error:
            raise LLMUnavailable(
                f"cannot reach the model server at {self.options.base_url}: {_reason(error)}"
            ) from None
        if status in (401, 403):
            raise LLMUnavailable(
                f"the model server at {self.options.base_url} refused the key (HTTP {status}); "
                "set OPENAI_API_KEY"
            )

    def complete(self, messages: list[dict[str, str]], stats: LLMStats) -> Completion:
        """Send a conversation, return the model's reply (trying again as the module says).

        Raises:
            LLMError: when every try failed (the last reason named).
        """
        options = self.options
        payload: dict[str, Any] = {"model": options.model, "messages": messages}
        if options.temperature is not None:
            payload["temperature"] = options.temperature
        if options.max_tokens is not None:
            payload["max_tokens"] = options.max_tokens
        body = json.dumps(payload).encode("utf-8")
        reason = "no try made"
        for attempt in range(options.http_retries + 1):
            wait = min(options.backoff * 2**attempt, options.max_wait)
            stats.requests += 1
            try:
                with self.semaphore:
                    status, headers, data = self._request(options.endpoint, body, options.timeout)
            except TimeoutError as error:
                stats.timeouts += 1
                reason = f"no answer within {options.timeout:g} s ({_reason(error)})"
            except (OSError, ValueError) as error:
                if isinstance(getattr(error, "reason", None), (TimeoutError, socket.timeout)):
                    stats.timeouts += 1
                reason = _reason(error)
            else:
                if status == 200:
                    try:
                        return _completion(data)
                    except ValueError as error:
                        stats.failed_requests += 1
                        raise LLMError(f"the model server sent an unreadable reply: {error}") from None
                reason = f"HTTP {status}: {_snippet(data)}"
                if status != 429 and status < 500:
                    stats.failed_requests += 1
                    raise LLMError(f"the model server refused the request ({reason})")
                wait = min(_retry_after(headers, wait), options.max_wait)
            stats.failed_requests += 1
            if attempt < options.http_retries:
                stats.http_retries += 1
                time.sleep(wait)
        tries = options.http_retries + 1
        raise LLMError(f"the model server gave no reply after {tries} tries (last: {reason})")


def _reason(error: BaseException) -> str:
    inner = getattr(error, "reason", None)
    return str(inner if inner is not None else error) or type(error).__name__


def _snippet(data: bytes, limit: int = 120) -> str:
    text = data.decode("utf-8", "replace").strip().replace("\n", " ")
    return text[:limit] + ("…" if len(text) > limit else "") or "(empty body)"


def _retry_after(headers: dict[str, str], default: float) -> float:
    """Seconds the server's ``Retry-After`` asks for (seconds or an HTTP date), else ``default``."""
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if value is None:
        return default
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return default
        seconds = when.timestamp() - time.time()
    return max(0.0, seconds) if math.isfinite(seconds) else default


def _completion(data: bytes) -> Completion:
    """Read a chat-completions response body."""
    try:
        body = json.loads(data.decode("utf-8", "replace"))
        text = body["choices"][0]["message"]["content"]
    except (json.JSONDecodeError, KeyError, IndexError, TypeError) as error:
        raise ValueError(f"no choices[0].message.content ({type(error).__name__})") from None
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    usage = body.get("usage") if isinstance(body, dict) else None
    usage = usage if isinstance(usage, dict) else {}

    def count(key: str) -> int:
        value = usage.get(key, 0)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

    return Completion(text, count("prompt_tokens"), count("completion_tokens"))


_LOG_LOCK = threading.Lock()
_CLIENTS: dict[tuple[Any, ...], ChatClient] = {}
_CLIENTS_LOCK = threading.Lock()


def client_for(options: LLMOptions) -> ChatClient:
    """The client shared by every agent with these options and the current key."""
    api_key = os.environ.get("OPENAI_API_KEY") or None
    key = (options, api_key)
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(key)
        if client is None:
            client = _CLIENTS[key] = ChatClient(options, api_key)
        return client


def check_server(kind: str) -> None:
    """Check once, before games start, that the server of an ``llm:`` spec answers.

    Raises:
        ValueError: for a bad spec.
        LLMUnavailable: when the server cannot be reached.
    """
    client_for(parse_llm_options(kind)).check()


class LLMAgent:
    """A language model playing one seat of an env (see the module docstring).

    Args:
        env: the env it plays (raw or wrapped); the agent reads the game from it and turns on
            its move tracking (for "what happened since your last turn").
        options: :class:`LLMOptions` or an agent name ``llm:MODEL@URL[,key=value...]``.
        seed: seed of the fallback's random moves.
        client: the HTTP client (default: the one shared by this spec's agents).

    Raises:
        ValueError: for a bad spec or a game without a text face.
    """

    needs_observation = False
    """The agent reads the env's game through the seat's text view, not the vector."""
    keeps_game_state = True
    """One conversation per game: batched callers give each game seat its own copy."""

    def __init__(self, env: Any, options: LLMOptions | str, seed: int | None = None,
                 client: ChatClient | None = None):
        self.env = env.unwrapped
        self.options = parse_llm_options(options) if isinstance(options, str) else options
        self.name = f"llm:{self.options.model}"
        self.client = client or client_for(self.options)
        game = self.env.info.name
        from cardgames_env.text.view import view_module

        view = view_module(self.env)  # a game without a text face fails here
        self.system_prompt = SYSTEM_PROMPT.format(
            title=view.TITLE, rules=rules_summary(game).strip(), example="[" + _example_move(self.env) + "]",
        )
        self.env.track_moves()
        self.rng = make_rng(seed)
        self.stats = LLMStats()
        self.transcript: list[dict[str, str]] = [{"role": "system", "content": self.system_prompt}]
        """The conversation of the game in progress (every message, all turns)."""
        self._turns: list[list[dict[str, str]]] = []
        self._plan: tuple[str, Any] | None = None
        self.game_id = secrets.token_hex(6)
        """Names the game in progress in the ``log`` file."""

    def __deepcopy__(self, memo: dict[int, Any]) -> LLMAgent:
        """A copy for another game seat: same env, options and client, its own conversation."""
        copied = LLMAgent.__new__(LLMAgent)
        copied.__dict__.update(self.__dict__)
        copied.rng = make_rng(int(self.rng.integers(2**63)))
        copied.stats = LLMStats()
        copied.transcript = [{"role": "system", "content": self.system_prompt}]
        copied._turns = []
        copied._plan = None
        copied.game_id = secrets.token_hex(6)
        return copied

    def reset(self, seed: int | None = None) -> None:
        """Start a new game's conversation; re-seed when ``seed`` is given."""
        self.game_id = secrets.token_hex(6)
        self.transcript = [{"role": "system", "content": self.system_prompt}]
        self._turns = []
        self._plan = None
        if seed is not None:
            self.rng = make_rng(seed)

    def _log_turn(self, seat: int, turn: list[dict[str, str]]) -> None:
        """Append one turn's messages to the ``log`` file (one JSON line per turn)."""
        line = {"format": "cardgames-transcript/1", "env": self.env.metadata["name"],
                "model": self.options.model, "game": self.game_id, "seat": seat,
                "turn": len(self._turns), "messages": turn}
        assert self.options.log is not None
        with _LOG_LOCK, open(self.options.log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return the next action of the move the model picks for the seat to move.

        Raises:
            ValueError: if the mask allows nothing.
            LLMError: with ``fallback=none``, when the model gave no legal move.
        """
        legal_actions(action_mask)  # raises when the seat is not to move
        raw = self.env
        state = raw.game_state()
        if self._plan is not None and self._plan[1] is state:  # the next sub-step of the move
            try:
                action = int(raw.string_to_action(self._plan[0]))
            except ValueError:
                action = -1
            if 0 <= action < len(action_mask) and action_mask[action]:
                return action
        self._plan = None
        move = self.choose_move()
        if move is None:  # the fallback: a uniformly random legal move (counted)
            moves = legal_moves(raw)
            move = moves[int(self.rng.integers(len(moves)))]
        action = int(raw.string_to_action(move))
        if not action_mask[action]:  # a listed move is legal: this would be a broken encoding
            raise RuntimeError(f"{move!r} was listed as legal but its action {action} is not")
        self._plan = (move, state)
        return action

    def choose_move(self) -> str | None:
        """Ask the model for the seat to move's move: its notation, or ``None`` for the
        fallback's random move (counted).

        Raises:
            LLMError: with ``fallback=none``, when the model gave no legal move.
        """
        raw = self.env
        seat = raw._to_move
        turn = [{"role": "user", "content": describe(raw, seat)}]
        self.transcript.append(turn[0])
        self._turns.append(turn)
        started = time.perf_counter()
        problem = ""
        try:
            for _ in range(self.options.retries + 1):
                try:
                    reply = self.client.complete(self._messages(), self.stats)
                except LLMError as error:
                    problem = str(error)
                    break
                self.stats.prompt_tokens += reply.prompt_tokens
                self.stats.completion_tokens += reply.completion_tokens
                answer = {"role": "assistant", "content": reply.text}
                turn.append(answer)
                self.transcript.append(answer)
                try:
                    return parse_reply(raw, reply.text)
                except MoveParseError as error:
                    self.stats.invalid_replies += 1
                    problem = str(error)
                    again = {"role": "user", "content": (
                        f"That answer was not accepted: {error}. Reply again, ending with one of "
                        "the legal moves listed above in square brackets.")}
                    turn.append(again)
                    self.transcript.append(again)
        finally:
            self.stats.moves += 1
            self.stats.seconds += time.perf_counter() - started
            if self.options.log:
                self._log_turn(seat, turn)
        if self.options.fallback == "none":
            raise LLMError(f"{self.name} gave no legal move: {problem}")
        self.stats.fallbacks += 1
        self.transcript.append({"role": "system", "content": f"fallback: a random legal move ({problem})"})
        return None

    def _messages(self) -> list[dict[str, str]]:
        """The messages of the next request: the system prompt and the latest turns."""
        turns = self._turns if not self.options.context else self._turns[-self.options.context :]
        return [self.transcript[0], *(message for turn in turns for message in turn)]


def _example_move(env: Any) -> str:
    """A move of the game's notation for the system prompt's example (the first legal move of
    a copy of the env dealt with seed 0: the same for every game played)."""
    probe = copy.deepcopy(env)
    probe.reset(seed=0)
    moves = legal_moves(probe)
    return moves[0] if moves else "move"


__all__ = [
    "FALLBACKS", "LLM_KIND", "ChatClient", "Completion", "LLMAgent", "LLMError", "LLMOptions", "LLMStats",
    "LLMUnavailable", "check_server", "client_for", "is_llm_kind", "parse_llm_options",
]
