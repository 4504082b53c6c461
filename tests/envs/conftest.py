"""Parametrisation of the shared env test-suite: every registered env and its test variants,
and the sixth game that only the tests define (registered for each of its tests alone).

A new game joins by being listed in ``cardgames_env.registry`` with ``TEST_VARIANTS`` in its
env module; no test code changes.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cardgames_env.registry import ALL_ENVS, load
from tests.sixth_game import SPEC as SIXTH_GAME
from tests.sixth_game import registered
from tests.sixth_game.env import TEST_VARIANTS as SIXTH_VARIANTS

ENV_NAMES: tuple[str, ...] = (*ALL_ENVS, SIXTH_GAME.env_name)
"""The shipped envs and the sixth game's."""


def _cases() -> list:
    cases = []
    for name in ENV_NAMES:
        variants = SIXTH_VARIANTS if name == SIXTH_GAME.env_name else load(name).TEST_VARIANTS
        for index, options in enumerate(variants):
            label = ",".join(f"{k}={v}" for k, v in options.items()) or "default"
            cases.append(pytest.param(name, options, index == 0, id=f"{name}[{label}]"))
    return cases


CASES = _cases()


@pytest.fixture(autouse=True)
def _sixth_game_registered(request: pytest.FixtureRequest) -> Iterator[None]:
    """Register the sixth game for the tests parametrised with it (and only while they run)."""
    callspec = getattr(request.node, "callspec", None)
    if callspec is None or callspec.params.get("name") != SIXTH_GAME.env_name:
        yield
        return
    with registered():
        yield
