"""Hidden-information checks with perturbations written in each game's tests.

A game's test supplies ``perturb(state, observer, rng)``: a rules state that differs from
``state`` only in what ``observer`` cannot know (cards moved between hidden places, keeping
everything the observer can infer), built without the game's own ``resample_hidden``, and
``valid(state, perturbed, observer)``: the game's own checks that the perturbed state is one
the public history allows. The observer's observation must not change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .helpers import make_raw, play_episode

Perturb = Callable[..., Any]
Validate = Callable[[Any, Any, int], None]


def check_perturbations(
    name: str,
    options: dict[str, Any],
    perturb: Perturb,
    valid: Validate,
    episodes: int,
    seed: int = 0,
    per_decision: int = 1,
    with_decision: bool = False,
) -> tuple[int, int]:
    """Play random episodes; at every decision, perturb for every seat and compare observations.

    With ``with_decision``, ``perturb`` also gets the env's decision state (a move being built
    over sub-steps limits what may move) as a fourth argument.

    Returns:
        ``(checks, changed)``: observations compared, and how many of the perturbed states
        differed from the real one (a test should require many).
    """
    env = make_raw(name, options)
    encoding = env.encoding
    rng = np.random.default_rng(seed)
    checks = changed = 0

    def on_decision(env: Any, agent: str, obs: dict) -> None:
        nonlocal checks, changed
        decision = env._decision
        state = encoding.rules_state(decision)
        for observer in range(len(env.possible_agents)):
            real = encoding.observe(decision, observer)
            for _ in range(per_decision):
                extra = (decision,) if with_decision else ()
                other = perturb(state, observer, rng, *extra)
                if other is None:
                    continue
                valid(state, other, observer)
                seen = encoding.observe(encoding.replace_rules_state(decision, other), observer)
                checks += 1
                changed += other != state
                np.testing.assert_array_equal(
                    seen, real, err_msg=f"{name} {options}: seat {observer} sees a hidden change"
                )

    for episode in range(episodes):
        play_episode(env, seed=seed * 1000 + episode, rng=rng, on_decision=on_decision)
    return checks, changed


def variant_id(options: dict[str, Any]) -> str:
    """Test id of an option set (``default`` for none)."""
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"
