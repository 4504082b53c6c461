"""The text view of a seat: only what it may know, its legal moves all listed, each parsing back."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cardgames_env.registry import load
from cardgames_env.text import LEGAL_MOVES_HEADER, describe, legal_moves, parse_move, parse_reply
from cardgames_env.text.view import raw_env
from tests.envs.leak import variant_id

from .helpers import ALL_ENVS, FACE_UP_MOVES, HIDDEN_CODES, positions, short_env


def listed(text: str) -> list[str]:
    """The ``[move]`` lines after the legal-moves header."""
    if LEGAL_MOVES_HEADER not in text:
        return []
    return [line[1:-1] for line in text.split(LEGAL_MOVES_HEADER, 1)[1].splitlines() if line.startswith("[")]


VARIANTS = [(name, {}) for name in ALL_ENVS] + [
    (name, options) for name in ALL_ENVS for options in load(name).TEST_VARIANTS if options
]
"""Every env with its default rules, then each of its test variants."""


@pytest.mark.parametrize("name, options", VARIANTS, ids=[f"{n}-{variant_id(o)}" for n, o in VARIANTS])
def test_view_unchanged_when_hidden_cards_are_swapped(name: str, options: dict) -> None:
    """Every seat's view, at every decision, is the same for a state whose hidden cards were
    re-dealt by the rules' resample_hidden; and it names none of the others' hidden cards."""
    rng = np.random.default_rng(7)
    checks = changed = 0
    hidden_codes = HIDDEN_CODES.get(name.split("_")[0])
    if options.get("num_players", 0) > 6:  # two copies of each Haggle rule card: names are shared
        hidden_codes = None
    for env in positions(name, episodes=5 if not options else 2, **options):
        decision = env._decision
        state = env.game_state()
        for seat in range(len(env.possible_agents)):
            real = describe(env, seat)
            other = env.rules.resample_hidden(state, seat, rng)
            env._decision = env.encoding.replace_rules_state(decision, other)
            env._mask = None
            try:
                swapped = describe(env, seat)
            finally:
                env._decision, env._mask = decision, None
            assert swapped == real, f"{name}: seat {seat} sees a hidden change"
            checks += 1
            changed += other != state
            if hidden_codes is not None:
                # cards played face up (in an earlier hand, the same card may be in a hidden
                # hand again, and the table may still show that hand's last trick) are public
                public = set()
                if name.split("_")[0] in FACE_UP_MOVES:
                    public = set(re.findall(r"[A-Za-z0-9]+", " ".join(m[2] for m in env.move_log)))
                words = set(re.findall(r"[A-Za-z0-9]+", real))
                leaked = (hidden_codes(state, seat) - public) & words
                assert not leaked, f"{name}: seat {seat}'s view names hidden cards {leaked}"
    assert checks > 15 and changed > checks // 4


@pytest.mark.parametrize("name", ALL_ENVS)
def test_every_listed_move_parses_back_to_itself(name: str) -> None:
    """The moves listed are exactly the legal actions; each one, bracketed after reasoning
    that names other moves, with other case and spacing, parses back to its own action."""
    rng = np.random.default_rng(3)
    seen = 0
    for index, env in enumerate(positions(name, episodes=1, seed=5)):
        if index % 3:
            continue
        seat = env._to_move
        text = describe(env, seat)
        moves = listed(text)
        assert moves == legal_moves(env)
        # every legal action starts a listed move (moves built over sub-steps share a first action)
        actions = {env.string_to_action(m) for m in moves}
        assert sorted(actions) == np.flatnonzero(env.action_mask()).tolist()
        for move in rng.choice(moves, size=min(len(moves), 12), replace=False):
            others = " and ".join(f"[{m}]" for m in rng.choice(moves, size=2))
            spaced = "  ".join(str(move).upper().split())
            reply = f"I weighed {others}.\nFinal answer:  [ {spaced} ]  "
            assert parse_reply(env, reply) == move
            assert parse_move(env, seat, reply) == env.string_to_action(str(move))
            assert parse_move(env, f"player_{seat}", f"[{move}]") == env.string_to_action(str(move))
            seen += 1
    assert seen > 20


@pytest.mark.parametrize("name", ALL_ENVS)
def test_view_sections_and_other_seats(name: str) -> None:
    """The same section words in every game; a seat not to move gets no move list."""
    env = short_env(name)
    env.reset(seed=1)
    mover = env._to_move
    text = describe(env, mover)
    for words in ("What happened since your last turn:", "Your hand:", "Table:", "It is your turn.",
                  LEGAL_MOVES_HEADER):
        assert words in text
    other = (mover + 1) % len(env.possible_agents)
    assert f"It is P{mover}'s turn, not yours." in describe(env, other)
    assert LEGAL_MOVES_HEADER not in describe(env, other)
    assert describe(env, mover) == text  # deterministic


def test_history_lists_the_others_moves_since_the_seats_last_turn() -> None:
    """A two-player game: after P0 and P1 moved, P0's view names P1's move (not its own)."""
    env = short_env("red7_v0")
    env.reset(seed=2)
    first = env._to_move
    first_move = legal_moves(env)[0]
    env.step(env.string_to_action(first_move))
    second = env._to_move
    second_move = legal_moves(env)[0]
    env.step(env.string_to_action(second_move))
    if env._to_move != first:
        pytest.skip("the seat left the game")
    text = describe(env, first)
    section = text.split("What happened since your last turn:", 1)[1].split("Your hand:", 1)[0]
    assert f"P{second}: {second_move}" in section
    assert f"P{first}:" not in section


def test_untracked_env_says_so() -> None:
    from cardgames_env.registry import load

    env = load("red7_v0").raw_env()
    env.reset(seed=0)
    assert "not recorded" in describe(env, 0)


def test_describe_errors() -> None:
    env = short_env("red7_v0")
    with pytest.raises(RuntimeError):
        describe(env, 0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent"):
        describe(env, "player_9")
    with pytest.raises(ValueError, match="unknown agent"):
        describe(env, True)  # type: ignore[arg-type]
    assert raw_env(env) is env


def test_in_the_middle_of_a_move_built_over_sub_steps() -> None:
    """Haggis selects a play's cards one at a time: after the first card, the moves listed are
    the whole plays that complete the selection, and the one started parses back."""
    env = short_env("haggis_v0")
    env.reset(seed=0)
    move = next(m for m in legal_moves(env) if len(m.split()) > 5)
    env.step(env.string_to_action(move))
    text = describe(env, env._to_move)
    assert "Part of your move is chosen already" in text
    moves = listed(text)
    assert move in moves and len(moves) < 300
    first_card = move.split()[1]
    assert all(m.split()[1] == first_card for m in moves)
    assert parse_move(env, env._to_move, f"[{move}]") == env.string_to_action(move)
