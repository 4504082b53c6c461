"""Reading the move out of a reply: the last bracket, named errors, never another move."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames_env.text import MoveParseError, legal_moves, parse_move
from cardgames_env.text.moves import MAX_REPLY_SCAN, match_move, normalise

from .helpers import short_env


@pytest.fixture(scope="module")
def red7():
    env = short_env("red7_v0")
    env.reset(seed=4)
    return env


def test_last_bracket_wins(red7) -> None:
    seat = red7._to_move
    moves = legal_moves(red7)
    first, last = moves[0], moves[-1]
    assert parse_move(red7, seat, f"[{first}] or [{last}]?\nI choose [{last}]") == red7.string_to_action(last)
    assert parse_move(red7, seat, f"[{last}] hmm, [{first}]") == red7.string_to_action(first)


@pytest.mark.parametrize("reply, message", [
    ("I pass my turn", "no move in brackets"),
    ("", "no move in brackets"),
    ("[   ]", "brackets are empty"),
    ("[fly to the moon]", "not a legal move now"),
])
def test_named_errors(red7, reply: str, message: str) -> None:
    with pytest.raises(MoveParseError, match=message):
        parse_move(red7, red7._to_move, reply)


def test_an_illegal_last_move_is_refused_even_after_a_legal_one(red7) -> None:
    """The last bracket decides: a legal move earlier in the reply is never played instead."""
    legal = legal_moves(red7)
    with pytest.raises(MoveParseError, match="not a legal move now"):
        parse_move(red7, red7._to_move, f"[{legal[0]}] ... no wait: [play Z9]")


def test_not_the_seats_turn(red7) -> None:
    other = (red7._to_move + 1) % 2
    with pytest.raises(MoveParseError, match="not P.'s turn"):
        parse_move(red7, other, f"[{legal_moves(red7)[0]}]")
    with pytest.raises(ValueError, match="unknown agent"):
        parse_move(red7, "nobody", "[pass]")


def test_ambiguous_and_partial_moves() -> None:
    """A prefix of several legal moves is ambiguous; a prefix of one is refused with a hint
    (never completed); an exact repeat after normalising is ambiguous."""
    legal = ["play 7S as single 7", "play 7S J as pair 7", "play G1 discard V5"]
    with pytest.raises(MoveParseError, match="ambiguous"):
        match_move(legal, "play 7S")
    with pytest.raises(MoveParseError, match=r"did you mean \[play G1 discard V5\]"):
        match_move(legal, "play G1")
    with pytest.raises(MoveParseError, match="ambiguous"):
        match_move(["take Gold", "take gold"], "TAKE GOLD")
    assert match_move(legal, " PLAY 7s  j AS pair 7 ") == "play 7S J as pair 7"


def test_other_spellings_the_game_reads_as_the_same_move() -> None:
    """Jaipur's parser reads an exchange's cards in any order: the same move, not another."""
    env = short_env("jaipur_v0")
    env.reset(seed=1)
    exchanges = [m for m in legal_moves(env) if m.startswith("exchange ") and "," in m.split(" for ")[0]]
    if not exchanges:
        pytest.skip("no exchange of two different goods here")
    move = exchanges[0]
    give, take = move.removeprefix("exchange ").split(" for ")
    flipped = f"exchange {','.join(reversed(give.split(',')))} for {take}"
    try:
        expected = env.string_to_action(move)
        assert parse_move(env, env._to_move, f"[{flipped}]") == expected
    except MoveParseError:
        assert normalise(flipped) != normalise(move)  # the parser keeps the order: refused, not changed


def test_very_long_replies(red7) -> None:
    seat = red7._to_move
    move = legal_moves(red7)[0]
    long_reply = "blah " * 400_000 + f"[{move}]"
    assert parse_move(red7, seat, long_reply) == red7.string_to_action(move)
    with pytest.raises(MoveParseError, match="no move in brackets"):
        parse_move(red7, seat, "[" * 1_000_000)
    with pytest.raises(MoveParseError, match="no move in brackets"):
        parse_move(red7, seat, f"[{move}]" + "x" * (MAX_REPLY_SCAN + 10))
    with pytest.raises(MoveParseError, match="no move in brackets"):
        parse_move(red7, seat, "[" + "x" * 5000 + "]")


fragments = st.sampled_from(
    ["[", "]", "play", "discard", "give up", " ", "\n", "R7", "b2", "as", ",", "×", "`"]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reply=st.one_of(st.text(max_size=300), st.lists(fragments, max_size=40).map("".join)))
def test_fuzzed_replies_never_crash(red7, reply: str) -> None:
    """Any reply gives a legal action or a MoveParseError, nothing else."""
    try:
        action = parse_move(red7, red7._to_move, reply)
    except MoveParseError:
        return
    assert red7.action_mask()[action]


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=80))
def test_fuzzed_haggis_moves_never_crash(text: str) -> None:
    env = _haggis()
    try:
        action = parse_move(env, env._to_move, f"[{text}]")
    except MoveParseError:
        return
    assert env.action_mask()[action]


_HAGGIS = []


def _haggis():
    if not _HAGGIS:
        env = short_env("haggis_v0")
        env.reset(seed=0)
        _HAGGIS.append(env)
    return _HAGGIS[0]
