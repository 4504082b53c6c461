"""An episode loop on the text env, the shape a multi-turn RL trainer for language models uses.

The observation is the seat's view in words ending with its legal moves as ``[move]`` lines;
the action is the model's reply. A stand-in policy plays here (it copies a listed move, and
now and then answers junk to show the invalid-reply penalty); put a model's generate call in
its place. Run: ``python examples/llm_text_env.py [ENV] [EPISODES]``.
"""

from __future__ import annotations

import random
import sys

from cardgames_env.text import LEGAL_MOVES_HEADER
from cardgames_env.wrappers.text_env import TextEnv


def stand_in_policy(observation: str, rng: random.Random) -> str:
    """A reply to a view: some reasoning, then one listed move in brackets (junk one time in ten)."""
    if rng.random() < 0.1:
        return "Hmm, I am not sure what to do."
    listed = observation.split(LEGAL_MOVES_HEADER, 1)[-1].splitlines()
    moves = [line for line in listed if line.startswith("[") and line.endswith("]")]
    return f"Let me think about {rng.choice(moves)} first. I play {rng.choice(moves)}"


def main(env_name: str = "red7_v0", episodes: int = 3) -> None:
    """Play ``episodes`` episodes against the heuristic and print each one's figures."""
    env = TextEnv(env_name, opponents="heuristic", invalid_penalty=-0.1)
    rng = random.Random(0)
    for episode in range(episodes):
        observation, info = env.reset(seed=episode)
        total, turns, done = 0.0, 0, False
        while not done:
            reply = stand_in_policy(observation, rng)
            observation, reward, terminated, truncated, info = env.step(reply)
            total += reward
            turns += 1
            done = terminated or truncated
        print(f"episode {episode}: seat {info['learner_seat']}, {turns} replies "
              f"({info['invalid_replies']} invalid), return {total:+.2f}, points {info.get('points')}")
    print("last observation:\n" + observation)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "red7_v0", int(sys.argv[2]) if len(sys.argv) > 2 else 3)
