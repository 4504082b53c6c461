"""Parametrisation of the shared env test-suite: every registered env and its test variants.

A new game joins by being listed in ``cardgames_env.registry`` with ``TEST_VARIANTS`` in its
env module; no test code changes.
"""

from __future__ import annotations

import pytest

from cardgames_env.registry import ALL_ENVS, load


def _cases() -> list:
    cases = []
    for name in ALL_ENVS:
        for index, options in enumerate(load(name).TEST_VARIANTS):
            label = ",".join(f"{k}={v}" for k, v in options.items()) or "default"
            cases.append(pytest.param(name, options, index == 0, id=f"{name}[{label}]"))
    return cases


CASES = _cases()
