"""The text env: views in, replies out; invalid replies cost a penalty and change nothing."""

from __future__ import annotations

import random

import pytest

from cardgames_env.text import LEGAL_MOVES_HEADER
from cardgames_env.wrappers.text_env import TextEnv

from .helpers import ALL_ENVS, MAX_STEPS


def listed(observation: str) -> list[str]:
    """The ``[move]`` lines of a view."""
    return [line for line in observation.split(LEGAL_MOVES_HEADER, 1)[1].splitlines() if line.startswith("[")]


def pick(observation: str, rng: random.Random) -> str:
    moves = listed(observation)
    return f"Thinking of {rng.choice(moves)}... final: {rng.choice(moves)}"


@pytest.mark.parametrize("name", ALL_ENVS)
def test_episodes_complete(name: str) -> None:
    env = TextEnv(name, options={"max_steps": MAX_STEPS[name]}, opponents="random", seed=0)
    rng = random.Random(0)
    observation, info = env.reset(seed=1)
    assert env.observation_space.contains(observation) and LEGAL_MOVES_HEADER in observation
    done, steps = False, 0
    while not done:
        observation, reward, terminated, truncated, info = env.step(pick(observation, rng))
        assert isinstance(reward, float) and env.observation_space.contains(observation)
        done = terminated or truncated
        steps += 1
    assert steps > 0 and "move" in info
    with pytest.raises(RuntimeError, match="reset"):
        env.step("[anything]")


def test_invalid_reply_changes_nothing_and_costs_the_penalty() -> None:
    env = TextEnv("jaipur_v0", opponents="heuristic", invalid_penalty=-0.25, max_invalid=3, seed=0)
    observation, _ = env.reset(seed=2)
    state = env.raw.game_state()
    again, reward, terminated, truncated, info = env.step("no idea")
    assert (reward, terminated, truncated) == (-0.25, False, False)
    assert again.startswith(observation) and "no move in brackets" in again
    assert info["invalid_reply"] and env.raw.game_state() is state
    env.step("[sell 9 diamond]")
    _, _, _, truncated, info = env.step("[fly]")
    assert truncated and info["invalid_replies"] == 3  # max_invalid in a row ends the episode
    with pytest.raises(TypeError):
        TextEnv("red7_v0").step(3)  # type: ignore[arg-type]


def test_a_move_over_sub_steps_is_one_reply() -> None:
    """Haggis builds a play card by card: one reply plays the whole move."""
    env = TextEnv("haggis_v0", opponents="random", learner_seat=0, seed=0)
    observation, _ = env.reset(seed=0)
    moves = [line[1:-1] for line in listed(observation)]
    longest = max(moves, key=len)
    before = len(env.raw.move_log)
    env.step(f"[{longest}]")
    assert (0, longest) in [(seat, text) for _, seat, text, _ in env.raw.move_log[before:]]


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="max_invalid"):
        TextEnv("red7_v0", max_invalid=0)
    with pytest.raises(ValueError, match="render_mode"):
        TextEnv("red7_v0", render_mode="human")
    env = TextEnv("red7_v0", render_mode="ansi")
    observation, _ = env.reset(seed=0)
    assert env.render() == observation


def test_example_episode_loop_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/llm_text_env.py plays its episodes with the stand-in policy."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "llm_text_env.py"
    spec = importlib.util.spec_from_file_location("example_llm_text_env", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main("red7_v0", episodes=2)
    out = capsys.readouterr().out
    assert out.count("episode ") == 2 and "last observation:" in out
