"""``benchmarks/red7_ceiling.py``'s solver gives every move the value that a plain minimax
over the rules engine gives it (late positions of random basic deals, small enough for the
minimax to list every line)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cardgames_env.envs.red7 import rules as r7

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _minimax(state: r7.State, me: int) -> float:
    """``me``'s result with both seats playing perfectly: every line, no table, no pruning."""
    if state.status == r7.GAME_OVER:
        return r7.returns(state)[me]
    results = [_minimax(r7.apply_legal_move(state, move), me) for move in r7.legal_moves(state)]
    return max(results) if state.player == me else min(results)


def test_the_solver_agrees_with_a_plain_minimax(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import red7_ceiling

    solver = red7_ceiling.Solver()
    rng = np.random.default_rng(0)
    config = r7.Config()
    checked, won, lost = 0, 0, 0
    while checked < 40:
        state = r7.new_game(config, r7.sample_deal(config, rng))
        while state.status != r7.GAME_OVER:
            moves = r7.legal_moves(state)
            if sum(hand.bit_count() for hand in state.hands) <= 8 and len(moves) > 1:
                me = state.player
                want = [_minimax(r7.apply_legal_move(state, move), me) for move in moves]
                assert solver.move_values(state, moves).tolist() == want
                checked += 1
                won += want.count(1.0)
                lost += want.count(-1.0)
                break
            state = r7.apply_legal_move(state, moves[int(rng.integers(len(moves)))])
    assert won > 0 and lost > 0  # both outcomes occur: the comparison can tell them apart
