"""The web app in a real browser: Debian's Chromium, driven by Playwright, plays by clicking.

Plays a full Jaipur game and a Gong Zhu hand against random agents (moves built by clicking
cards: Jaipur exchanges and sales card by card), checks at every turn that no hidden card of
an opponent is in the page, and saves a screenshot of each game (to ``tmp_path``; also to
the folder named by ``CARDGAMES_SCREENSHOTS``, e.g. ``docs/img``, to refresh the docs).

Skipped only when ``/usr/bin/chromium`` is missing (CI installs it); Playwright never
downloads a browser here.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

CHROMIUM = "/usr/bin/chromium"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no system Chromium at {CHROMIUM}"),
]
pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from cardgames_env.web.app import create_app  # noqa: E402

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@pytest.fixture(scope="module")
def server():
    """The app served by uvicorn on a free localhost port, in a thread."""
    app = create_app()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app.state.store
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page(server):
    profile = tempfile.mkdtemp(prefix="cardgames-chromium-")
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 900},
        )
        page = context.new_page()
        page.set_default_timeout(15_000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
        context.close()
    shutil.rmtree(profile, ignore_errors=True)
    assert not errors, f"script errors in the page: {errors}"


def screenshot(page, name: str, tmp_path: Path) -> None:
    path = tmp_path / f"web_{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000
    target = os.environ.get("CARDGAMES_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(target) / path.name)


def start(page, base: str, env: str, agents: list[str], seed: int, options: dict | None = None) -> str:
    """Open the page, pick the game, seats and seed, start; return the game id."""
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#env", env)
    if options:
        page.click("#variants-box summary")
    for name, value in (options or {}).items():
        page.fill(f"#variants input[data-option='{name}']", str(value))
        page.dispatch_event(f"#variants input[data-option='{name}']", "change")
    for seat, kind in enumerate(agents):
        page.select_option(f"#agent-{seat}", kind)
    page.fill("#seed", str(seed))
    page.eval_on_selector("#speed", "el => { el.value = 0; el.dispatchEvent(new Event('input')); }")
    page.click("#start")
    page.wait_for_function("() => window.cardgames.id && window.cardgames.view")
    return page.evaluate("window.cardgames.id")


def wait_for_my_turn(page) -> dict:
    """Wait until the human is to move or the game is over; return the view shown."""
    page.wait_for_function(
        "() => { const v = window.cardgames.view; return v && (v.over || v.to_move === v.human); }"
    )
    return page.evaluate("window.cardgames.view")


def play_by_clicking(page, move: dict) -> None:
    """Select the move's cards on the table one click at a time, then press its button."""
    before = page.evaluate("window.cardgames.view.log.length")
    for zone, codes in move["sel"].items():
        for code in codes:
            if page.evaluate("window.cardgames.view.log.length") != before:
                return  # played on the last click (only one move fitted)
            card = page.locator(f"#table .card[data-zone='{zone}'][data-code='{code}']:not(.selected)").first
            card.click()
            page.wait_for_function("() => window.cardgames.pending === 0")
    page.wait_for_function("() => window.cardgames.pending === 0")
    if page.evaluate("window.cardgames.view.log.length") == before:
        page.click(f"#moves button[data-move='{move['text']}']")
    page.wait_for_function(f"() => window.cardgames.view.log.length > {before}")


def jaipur_choice(moves: list[dict], turn: int, rng) -> dict:
    """A quick-ending but varied Jaipur policy: exchanges now and then, else camels, big sales, takes."""
    by_kind: dict[str, list[dict]] = {}
    for m in moves:
        by_kind.setdefault(m["text"].split()[0], []).append(m)
    if turn % 4 == 1 and "exchange" in by_kind:
        return by_kind["exchange"][int(rng.integers(len(by_kind["exchange"])))]
    if "sell" in by_kind:
        best = max(by_kind["sell"], key=lambda m: int(m["text"].split()[1]))
        if int(best["text"].split()[1]) >= 2 or "take" not in by_kind:
            return best
    for kind in ("camels", "take", "sell", "exchange"):
        if kind in by_kind:
            return by_kind[kind][int(rng.integers(len(by_kind[kind])))]
    raise AssertionError(f"no move to choose from {moves}")


def test_full_jaipur_game_by_clicking(server, page, tmp_path):
    base, store = server
    game_id = start(page, base, "jaipur_v0", ["human", "random"], seed=21)
    session = store.get(game_id)
    rng = np.random.default_rng(0)
    turns = exchanges = 0
    shot = False
    while True:
        view = wait_for_my_turn(page)
        if view["over"]:
            break
        # the opponent's hand is face down in the page: as many backs as cards, no faces
        state = session.env.game_state()
        hand1 = page.locator("#table .zone[data-zone='hand1']")
        assert hand1.locator(".card[data-code]").count() == 0
        assert hand1.locator(".card.back").count() == sum(state.hands[1])
        assert "hand1" not in [z["id"] for z in view["zones"] if z["cards"]]
        move = jaipur_choice(view["moves"], turns, rng)
        exchanges += move["text"].startswith("exchange")
        if not shot and turns >= 6:
            screenshot(page, "jaipur", tmp_path)
            shot = True
        play_by_clicking(page, move)
        turns += 1
    assert page.locator("#score-table").is_visible()
    assert "game over" in page.inner_text("#status")
    assert session.over and exchanges > 0 and turns > 10
    assert "Seals of excellence" in page.inner_text("#score-table")
    assert page.locator("#record-link").is_visible()
    screenshot(page, "jaipur_end", tmp_path)


def test_gongzhu_hand_by_clicking_without_hidden_cards(server, page, tmp_path):
    from cardgames_env.core.cards import cards_of, french_card_str
    from cardgames_env.envs.gongzhu.cards import pretty

    base, store = server
    game_id = start(page, base, "gongzhu_v0", ["human", "random", "random", "random"], seed=8)
    session = store.get(game_id)
    rng = np.random.default_rng(1)
    turns = 0
    while True:
        view = wait_for_my_turn(page)
        if view["over"]:
            break
        state = session.env.game_state()
        hidden = [c for s in (1, 2, 3) for c in cards_of(state.hands[s])]
        html = page.content()
        codes = set(re.findall(r'data-code="([^"]+)"', html)) | set(re.findall(r'title="([^"]+)"', html))
        labels = set(re.findall(r">([♠♥♦♣](?:10|[2-9JQKA]))<", html))
        assert not codes & {french_card_str(c) for c in hidden}
        assert not labels & {pretty(c) for c in hidden}
        assert page.locator("#table .card.back").count() == len(hidden)
        if turns == 6:
            screenshot(page, "gongzhu", tmp_path)
        move = view["moves"][int(rng.integers(len(view["moves"])))]
        play_by_clicking(page, move)
        turns += 1
    assert turns == 13
    assert "game over" in page.inner_text("#status")
    assert "Point cards captured" in page.inner_text("#score-table")


@pytest.mark.parametrize(
    "env,agents,options",
    [
        ("red7_v0", ["human", "random", "random"], {"num_players": 3}),
        ("haggis_v0", ["human", "random"], {}),
        ("haggle_v0", ["human", "random", "random", "random"], {}),
    ],
)
def test_other_games_open_at_the_human_turn(server, page, tmp_path, env, agents, options):
    base, _ = server
    start(page, base, env, agents, seed=3, options=options)
    view = wait_for_my_turn(page)
    assert not view["over"] and page.locator("#moves button.move, #table .card.selectable").count() > 0
    if env == "haggis_v0":  # build a play card by card: every card of the longest play
        move = max(view["moves"], key=lambda m: len(m["sel"].get("hand", [])))
        play_by_clicking(page, move)
        log = page.evaluate("window.cardgames.view.log")
        assert any(e["seat"] == 0 and e["move"] == move["text"] for e in log)
        wait_for_my_turn(page)
    screenshot(page, env.removesuffix("_v0"), tmp_path)


def test_watch_with_play_then_replay_the_record(server, page, tmp_path):
    """Play/Pause runs an agent game to its end; its record opens as a replay that steps."""
    base, _ = server
    start(page, base, "red7_v0", ["random", "random"], seed=5)
    assert "Spectator view" in page.inner_text("#mode")
    page.click("#step")
    page.wait_for_function("() => window.cardgames.view.log.length === 1")
    page.select_option("#viewer", "1")  # as seat 1 sees it: seat 0's hand face down
    page.wait_for_function("() => window.cardgames.view.viewer === 1")
    assert page.locator("#table .zone[data-zone='hand0'] .card.back").count() > 0
    page.click("#play")
    page.wait_for_function("() => window.cardgames.view.over")
    record = page.evaluate("fetch('/api/games/' + window.cardgames.id + '/record').then(r => r.text())")
    path = tmp_path / "red7.jsonl"
    path.write_text(record + "\n", encoding="utf-8")
    page.set_input_files("#record-file", str(path))
    page.click("#replay")
    page.wait_for_function("() => window.cardgames.view.replay && window.cardgames.view.replay.index === 0")
    total = page.evaluate("window.cardgames.view.replay.total")
    page.click("#step")
    page.wait_for_function("() => window.cardgames.view.replay.index === 1")
    page.click("#play")
    page.wait_for_function("() => window.cardgames.view.over")
    assert page.evaluate("window.cardgames.view.replay.index") == total
    assert page.locator("#score-table").is_visible()
