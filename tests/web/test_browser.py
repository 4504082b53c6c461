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
import tempfile
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
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from cardgames_env.web.app import create_app  # noqa: E402

from .conftest import free_port, running  # noqa: E402

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


class SlowAgent:
    """A random player that thinks for a second and a half before each move."""

    def __init__(self, seed: int | None):
        from cardgames_env.agents.base import RandomAgent

        self.inner = RandomAgent(seed)

    def act(self, observation, action_mask):
        time.sleep(1.5)
        return self.inner.act(observation, action_mask)

    def reset(self, seed=None):
        self.inner.reset(seed)


@pytest.fixture(scope="module")
def server():
    """The app served by uvicorn on a free localhost port, in a thread (with a slow agent)."""
    from cardgames_env.web.catalog import AgentCatalog

    app = create_app(catalog=AgentCatalog(extra={"slow": lambda env, seed: SlowAgent(seed)}))
    with running(app, free_port()) as base:
        yield base, app.state.store


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
        if isinstance(value, bool):
            page.set_checked(f"#variants input[data-option='{name}']", value)
        else:
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
    """Play/Pause runs an agent game to its end (Step and Play are then disabled, the winner is
    named); its record opens as a replay that steps."""
    base, store = server
    game_id = start(page, base, "red7_v0", ["random", "random"], seed=5)
    assert "Spectator view" in page.inner_text("#mode")
    page.click("#step")
    page.wait_for_function("() => window.cardgames.view.log.length === 1")
    page.select_option("#viewer", "1")  # as seat 1 sees it: seat 0's hand face down
    page.wait_for_function("() => window.cardgames.view.viewer === 1")
    assert page.locator("#table .zone[data-zone='hand0'] .card.back").count() > 0
    assert not page.is_disabled("#step") and not page.is_disabled("#play")
    page.click("#play")
    page.wait_for_function("() => window.cardgames.view.over")
    assert page.is_disabled("#step") and page.is_disabled("#play")
    winner = store.get(game_id).env.game_state().game_winner  # the rules' winner of the round
    assert winner >= 0 and f"game over: P{winner} wins" in page.inner_text("#status")
    assert f"P{winner} wins" in page.inner_text("#result")
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
    assert page.is_disabled("#step") and page.is_disabled("#play")


# -- the page's own troubles: races, reloads, errors, and what it shows ----------------------
def test_start_during_an_agent_step_never_shows_the_old_game(server, page):
    """Start while the old game's agent is thinking: its late answer is dropped, not shown."""
    base, store = server
    old = start(page, base, "red7_v0", ["slow", "slow"], seed=1)
    page.click("#step")  # the slow agent thinks 1.5 s
    page.wait_for_function("() => window.cardgames.pending > 0")
    page.select_option("#env", "jaipur_v0")
    page.select_option("#agent-0", "random")
    page.select_option("#agent-1", "random")
    page.click("#start")
    page.wait_for_function(f"() => window.cardgames.id && window.cardgames.id !== '{old}'")
    new = page.evaluate("window.cardgames.id")
    deadline = time.monotonic() + 10
    while len(store.get(old).log) < 1:  # the old step has been played on the server
        assert time.monotonic() < deadline, "the old game's step never finished"
        time.sleep(0.05)
    page.wait_for_function("() => window.cardgames.pending === 0 && window.cardgames.dropped > 0")
    view = page.evaluate("window.cardgames.view")
    assert view["env"] == "jaipur_v0" and view["log"] == [] and page.evaluate("window.cardgames.id") == new
    assert "Jaipur" in page.inner_text("#status")
    page.click("#step")  # the next request goes to the new game and works
    page.wait_for_function("() => window.cardgames.view.log.length === 1")
    assert page.evaluate("window.cardgames.view.env") == "jaipur_v0"
    assert page.inner_text("#game-error") == ""


def test_a_reload_keeps_the_game_and_another_tab_cannot_play_it(server, page):
    base, store = server
    game_id = start(page, base, "jaipur_v0", ["human", "random"], seed=4)
    for _ in range(2):
        view = wait_for_my_turn(page)
        play_by_clicking(page, view["moves"][0])
    view = wait_for_my_turn(page)
    assert page.url.endswith(f"#game={game_id}")
    assert view["env"] == "jaipur_v0"
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_function("() => window.cardgames.view")
    assert page.evaluate("window.cardgames.id") == game_id
    again = wait_for_my_turn(page)
    assert again["log"] == view["log"]
    play_by_clicking(page, again["moves"][0])  # the token survived the reload
    assert len(store.get(game_id).log) > len(view["log"])
    token = store.get(game_id).token
    assert token not in page.url
    other = page.context.new_page()  # a new tab with the same link holds no token
    try:
        other.goto(page.url)
        other.wait_for_selector("body[data-ready='1']")
        assert "tab that started it" in other.inner_text("#error")
        assert other.evaluate("window.cardgames.view") is None
    finally:
        other.close()


def test_an_error_shows_once_and_clears_after_a_legal_move(server, page):
    base, _ = server
    start(page, base, "jaipur_v0", ["human", "random"], seed=6)
    view = wait_for_my_turn(page)
    page.fill("#typed-move", "fly to the moon")
    page.press("#typed-move", "Enter")
    page.wait_for_function("() => document.getElementById('game-error').textContent !== ''")
    message = page.inner_text("#game-error")
    assert "not a move" in message
    assert page.inner_text("body").count(message) == 1
    play_by_clicking(page, view["moves"][0])
    page.wait_for_function("() => document.getElementById('game-error').textContent === ''")
    assert message not in page.inner_text("body")


def test_a_negative_seed_is_named_without_a_seat_and_the_game_goes_on(server, page):
    base, _ = server
    game_id = start(page, base, "jaipur_v0", ["human", "random"], seed=7)
    view = wait_for_my_turn(page)
    page.fill("#seed", "-3")
    page.click("#start")
    page.wait_for_function("() => document.getElementById('error').textContent !== ''")
    error = page.inner_text("#error")
    assert error.startswith("seed") and "seat" not in error
    page.wait_for_function("() => window.cardgames.pending === 0")
    assert page.evaluate("window.cardgames.id") == game_id
    play_by_clicking(page, view["moves"][0])  # the game on screen still plays


def test_trick_lines_keep_the_move_numbers_and_the_last_trick_stays(server, page):
    base, _ = server
    start(page, base, "gongzhu_v0", ["human", "random", "random", "random"], seed=8)
    rng = np.random.default_rng(2)
    led_after_a_trick = False
    while True:
        view = wait_for_my_turn(page)
        if view["over"] or (led_after_a_trick and len(view["log"]) >= 20):
            break
        trick = next(z for z in view["zones"] if z["id"] == "trick")
        if len(view["log"]) % 4 == 0 and view["log"]:  # a trick just ended and the human leads
            assert trick["label"] == "Last trick" and len(trick["cards"]) == 4
            assert page.locator("#table .zone[data-zone='trick'] .card").count() == 4
            led_after_a_trick = True
        play_by_clicking(page, view["moves"][int(rng.integers(len(view["moves"])))])
    view = page.evaluate("window.cardgames.view")
    items = page.locator("#log > li")
    assert items.count() == len(view["log"]) and page.evaluate("document.getElementById('log').start") == 1
    events = [e for e in view["log"] if e["event"]]
    assert len(events) >= 4 and page.locator("#log > li > .event").count() == len(events)
    for i, entry in enumerate(view["log"]):
        assert items.nth(i).inner_text().startswith(f"P{entry['seat']}: {entry['label']}")
    assert led_after_a_trick or view["over"]


def test_long_exchanges_stay_inside_the_moves_panel_and_read_take_give(server, page):
    base, _ = server
    start(page, base, "jaipur_v0", ["human", "random"], seed=21)
    longest = 0
    for _ in range(30):
        view = wait_for_my_turn(page)
        if view["over"]:
            break
        exchanges = [m for m in view["moves"] if m["text"].startswith("exchange")]
        if exchanges:
            move = max(exchanges, key=lambda m: len(m["text"]))
            assert move["label"].startswith("take ") and ", give " in move["label"]
            button = page.locator(f"#moves button[data-move='{move['text']}']")
            if button.count():
                assert button.first.inner_text() == move["label"]
            play_by_clicking(page, move)
            longest = max(longest, len(move["text"]))
            if longest >= 40:
                break
        else:
            play_by_clicking(page, view["moves"][0])
    assert longest >= 40
    overflow = page.evaluate("""() => {
        const panel = document.getElementById('log-panel').getBoundingClientRect();
        return [...document.querySelectorAll('#log li')].filter((li) => {
            const box = li.getBoundingClientRect();
            return box.right > panel.right + 0.5 || li.scrollWidth > li.clientWidth + 1;
        }).map((li) => li.textContent);
    }""")
    assert overflow == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    unbroken = page.evaluate("""() => {  // a move written without a space (notation) wraps too
        const log = document.getElementById('log');
        const li = document.createElement('li');
        li.textContent = 'P0: exchange:' + 'gold,silver,'.repeat(12);
        log.append(li);
        const panel = document.getElementById('log-panel').getBoundingClientRect();
        const wide = li.scrollWidth > li.clientWidth + 1 || li.getBoundingClientRect().right > panel.right;
        li.remove();
        return wide;
    }""")
    assert not unbroken


def test_red7_canvas_shows_the_card_that_set_the_rule_and_colour_letters(server, page):
    base, store = server
    game_id = start(page, base, "red7_v0", ["human", "random"], seed=3)
    page.eval_on_selector("#speed", "el => { el.value = 2000; el.dispatchEvent(new Event('input')); }")
    checked = False
    for _ in range(12):
        view = wait_for_my_turn(page)
        if view["over"]:
            break
        discards = [m for m in view["moves"] if "discard" in m["text"]]
        if discards:
            move = discards[0]
            play_by_clicking(page, move)
            discarded = move["text"].split()[-1]
            page.wait_for_function("() => window.cardgames.pending === 0")
            canvas = page.locator("#table .zone[data-zone='canvas'] .card")
            state = store.get(game_id).env.game_state()
            if state.round_number == 1 and state.canvas:  # the round goes on: the discard is on top
                assert canvas.first.get_attribute("data-code") == discarded
                assert "top" in (canvas.first.get_attribute("class") or "")
                assert f"set by {discarded}" in page.inner_text("#table .zone[data-zone='canvas']")
                checked = True
            break
        play_by_clicking(page, view["moves"][0])
    else:
        raise AssertionError("no discard was offered")
    labels = page.locator("#table .card[data-code]").all_inner_texts()
    assert checked and labels and all(re.fullmatch(r"[ROYGBIV][1-7]", label) for label in labels), labels


def test_round_ends_are_announced(server, page):
    base, _ = server
    start(page, base, "red7_v0", ["random", "random"], seed=2, options={"advanced": True})
    for steps in range(1, 200):
        page.click("#step")
        page.wait_for_function(f"() => window.cardgames.view.log.length === {steps}")
        view = page.evaluate("window.cardgames.view")
        if view["notice"] or view["over"]:
            break
    assert view["notice"] and view["notice"]["text"].startswith("Round 1 over")
    notice = page.locator("#notice")
    assert notice.is_visible() and notice.inner_text() == view["notice"]["text"]

