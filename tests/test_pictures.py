"""Pictures: ``render_mode="rgb_array"`` on every env, a batched slot's picture, the ``--gif``
option of ``play`` and ``replay``, and the error when Pillow is missing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import render_test

pytest.importorskip("PIL", reason="Pillow is not installed (the 'pictures' extra)")

from PIL import Image, ImageSequence  # noqa: E402

from cardgames_env import cli, vector  # noqa: E402
from cardgames_env.core.extras import install_command  # noqa: E402
from cardgames_env.display.picture import WIDTH, draw_position, frame_height  # noqa: E402
from cardgames_env.registry import ALL_ENVS, load, spec  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _positions(name: str, seed: int, every: int, limit: int, **options):
    """Raw ``rgb_array`` envs copied every ``every`` decisions of a random game (up to ``limit``)."""
    import copy

    env = load(name).raw_env(render_mode="rgb_array", **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    found = []
    step = 0
    while env.agents and len(found) < limit:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        if step % every == 0:
            found.append(copy.deepcopy(env))
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        step += 1
    return env, found


@pytest.mark.parametrize("name", ALL_ENVS)
def test_frame_is_an_rgb_uint8_array_of_one_size_through_an_episode(name):
    env, positions = _positions(name, seed=1, every=7, limit=6)
    frames = [p.render() for p in positions] + [env.render()]
    sizes = set()
    for frame in frames:
        assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
        assert frame.ndim == 3 and frame.shape[1] == WIDTH and frame.shape[2] == 3
        sizes.add(frame.shape)
    assert len(sizes) == 1, f"frames of one episode have several sizes: {sizes}"
    assert frames[0].shape[0] >= frame_height(0)
    assert env.metadata["render_fps"] > 0 and "rgb_array" in env.metadata["render_modes"]


@pytest.mark.parametrize("name", ALL_ENVS)
def test_same_state_same_frame_different_states_different_frames(name):
    first = load(name).raw_env(render_mode="rgb_array")
    second = load(name).raw_env(render_mode="rgb_array")
    first.reset(seed=5)
    second.reset(seed=5)
    a, b = first.render(), second.render()
    np.testing.assert_array_equal(a, b)
    other = load(name).raw_env(render_mode="rgb_array")
    other.reset(seed=6)
    assert other.game_state() != first.game_state()
    assert not np.array_equal(other.render(), a)
    start = first.game_state()
    while first.game_state() is start:  # one whole move (a sub-step alone draws nothing new)
        agent = first.agent_selection
        first.step(int(np.flatnonzero(first.observe(agent)["action_mask"])[0]))
    assert not np.array_equal(first.render(), a)


@pytest.mark.parametrize("name", ALL_ENVS)
def test_a_seat_frame_never_draws_another_seats_hidden_card(name):
    """Re-deal what a seat cannot know (``resample_hidden``): that seat's frame stays the same,
    the spectator's (every card face up) changes for some position."""
    rng = np.random.default_rng(3)
    rules = load(name).raw_env().rules
    checks = spectator_changes = 0
    for seed in (11, 12):
        _, positions = _positions(name, seed=seed, every=5, limit=5)
        for env in positions:
            state = env.game_state()
            for seat in range(len(env.possible_agents)):
                other = rules.resample_hidden(state, seat, rng)
                if other == state:
                    continue
                real, twin = env.__class__(**_options(env)), env.__class__(**_options(env))
                real.reset(seed=0)
                twin.reset(seed=0)
                real.set_game_state(state)
                twin.set_game_state(other)
                real.render_viewer = twin.render_viewer = seat
                np.testing.assert_array_equal(real.render(), twin.render(),
                                              err_msg=f"{name}: seat {seat}'s frame shows a hidden card")
                real.render_viewer = twin.render_viewer = None
                spectator_changes += not np.array_equal(real.render(), twin.render())
                checks += 1
    assert checks >= 5
    assert spectator_changes >= checks // 2


def test_another_seats_unfinished_move_is_not_drawn():
    """Haggis builds a play card by card: until the play is whole, the other seat's frame shows
    neither the cards selected nor their notation as the last move."""
    env = load("haggis_v0").raw_env(render_mode="rgb_array")
    env.reset(seed=4)
    env.render_viewer = 0
    rng = np.random.default_rng(4)
    substeps = 0
    while env.agents and substeps < 5:
        agent = env.agent_selection
        before_state, before_frame = env.game_state(), env.render()
        action = int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
        text = env.action_to_string(action)
        env.step(action)
        if agent == "player_1" and env.game_state() is before_state:
            assert text.startswith("select")
            np.testing.assert_array_equal(env.render(), before_frame)
            substeps += 1
    assert substeps == 5


def _options(env) -> dict:
    import dataclasses

    fields = dataclasses.fields(env.config)
    return {"render_mode": "rgb_array", **{f.name: getattr(env.config, f.name) for f in fields}}


def test_a_seat_frame_differs_from_the_spectator_frame_and_bad_viewers_are_refused():
    env = load("gongzhu_v0").raw_env(render_mode="rgb_array")
    env.reset(seed=2)
    spectator = env.render()
    env.render_viewer = 1
    seat = env.render()
    assert not np.array_equal(seat, spectator)
    for bad in (4, -1, True, "1"):
        env.render_viewer = bad
        with pytest.raises(ValueError, match="render_viewer"):
            env.render()


@pytest.mark.parametrize("name", ALL_ENVS)
def test_pettingzoo_render_test_passes_with_rgb_array(name):
    module = load(name)
    render_test(lambda render_mode=None: module.env(render_mode=render_mode))


def test_an_unknown_render_mode_is_refused():
    with pytest.raises(ValueError, match="render_mode"):
        load("red7_v0").raw_env(render_mode="rgb")


def test_a_batched_slot_is_drawn_through_its_rules_state():
    name = "gongzhu_v0"  # one engine: the drawing is the engine driver's, the same for every game
    assert name in vector.available()
    engine = vector.make(name, 3, seed=4)
    rules = load(name).raw_env().rules
    view = spec(name).load("view")
    for i in range(3):
        frame = engine.picture(i)
        assert frame.dtype == np.uint8 and frame.shape[1:] == (WIDTH, 3)
        np.testing.assert_array_equal(frame, draw_position(rules, view, engine.state(i)))
    assert not np.array_equal(engine.picture(0), engine.picture(1))
    np.testing.assert_array_equal(engine.picture(0, viewer=0),
                                  draw_position(rules, view, engine.state(0), 0))
    with pytest.raises(ValueError, match="viewer"):
        engine.picture(0, viewer=9)


def _gif_frames(path: Path) -> list[Image.Image]:
    with Image.open(path) as image:
        assert image.format == "GIF"
        return [frame.copy() for frame in ImageSequence.Iterator(image)]


@pytest.mark.parametrize("name", ["red7_v0", "haggle_v0"])
def test_play_gif_has_one_frame_per_move_after_the_deal(name, tmp_path, capsys):
    gif, record = tmp_path / "game.gif", tmp_path / "game.jsonl"
    code = cli.main(["play", name, "--agents", "random", "--seed", "2", "--quiet", "--no-progress",
                     "--gif", str(gif), "--record", str(record)])
    assert code == 0
    moves = json.loads(record.read_text().splitlines()[0])["moves"]
    frames = _gif_frames(gif)
    assert len(frames) == len(moves) + 1
    assert f"GIF of {len(moves) + 1} frames" in capsys.readouterr().out
    durations = [f.info["duration"] for f in frames]
    assert durations[-1] > max(durations[:-1])  # the end holds longer
    assert len({f.size for f in frames}) == 1


def test_replay_gif_follows_the_record_and_the_viewer(tmp_path):
    record = tmp_path / "games.jsonl"
    for seed in (3, 4):
        assert cli.main(["play", "red7_v0", "--agents", "random", "--seed", str(seed), "--quiet",
                         "--no-progress", "--record", str(record)]) == 0
    moves = [len(json.loads(line)["moves"]) for line in record.read_text().splitlines()]
    spectator, seat = tmp_path / "all.gif", tmp_path / "seat.gif"
    assert cli.main(["replay", str(record), "--game", "2", "--quiet", "--no-progress",
                     "--gif", str(spectator)]) == 0
    assert cli.main(["replay", str(record), "--game", "2", "--quiet", "--no-progress", "--viewer", "0",
                     "--gif", str(seat)]) == 0
    all_frames, seat_frames = _gif_frames(spectator), _gif_frames(seat)
    assert len(all_frames) == len(seat_frames) == moves[1] + 1
    first = np.asarray(all_frames[0].convert("RGB"))
    assert not np.array_equal(first, np.asarray(seat_frames[0].convert("RGB")))


@pytest.mark.parametrize("argv, message", [
    (["play", "red7_v0", "--gif", "{tmp}/missing/game.gif"], "--gif"),
    (["play", "red7_v0", "--gif", "{tmp}/game.png"], ".gif"),
    (["replay", "{tmp}/two.jsonl", "--gif", "{tmp}/game.gif"], "--game N"),
])
def test_bad_gif_arguments_exit_2_with_one_line_before_playing(argv, message, tmp_path, capsys):
    record = tmp_path / "two.jsonl"
    for seed in (1, 2):
        cli.main(["play", "red7_v0", "--agents", "random", "--seed", str(seed), "--quiet", "--no-progress",
                  "--record", str(record)])
    capsys.readouterr()
    code = cli.main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]
    assert not list(tmp_path.glob("*.gif"))


BLOCK_PILLOW = "import sys; sys.modules['PIL'] = None; "


def test_missing_pillow_is_one_clear_error_naming_the_extra():
    code = BLOCK_PILLOW + (
        "from cardgames_env import red7_v0\n"
        "try:\n"
        "    red7_v0.env(render_mode='rgb_array')\n"
        "except ImportError as error:\n"
        "    print('ImportError:', error)\n"
        "e = red7_v0.env(render_mode='ansi'); e.reset(seed=0); assert isinstance(e.render(), str)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ImportError:")
    assert install_command("pictures") in done.stdout


def test_missing_pillow_in_the_cli_exits_2_with_one_line(tmp_path):
    code = BLOCK_PILLOW + (
        "from cardgames_env.cli import main\n"
        f"sys.exit(main(['play', 'red7_v0', '--quiet', '--gif', {str(tmp_path / 'g.gif')!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and install_command("pictures") in lines[0]
