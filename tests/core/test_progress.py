"""The progress bar: on stderr when asked or when stderr is a terminal, counts and stages."""

from __future__ import annotations

import pytest

from cardgames_env.display.progress import Progress


def test_a_bar_counts_to_its_total_on_stderr(capsys):
    with Progress(5, "games", "eval", show=True) as bar:
        for _ in range(5):
            bar.advance()
    captured = capsys.readouterr()
    assert captured.out == "" and "eval" in captured.err and "5/5" in captured.err
    assert bar.done == 5


def test_no_bar_when_off_when_stderr_is_not_a_terminal_or_nothing_to_count(capsys):
    for bar in (Progress(3, "games", show=False), Progress(3, "games"), Progress(0, "games", show=True)):
        with bar:
            bar.advance(3)
        assert not bar.shown and bar.done == 3
    assert capsys.readouterr().err == ""


def test_the_terminal_decides_by_default(terminal_stderr):
    with Progress(2, "moves") as bar:
        bar.advance(2)
    assert bar.shown and "2/2" in terminal_stderr.readouterr().err


def test_stages_count_as_they_end(capsys):
    with Progress(3, "stages", "export", show=True) as bar:
        bar.begin("reading")
        assert bar.done == 0
        bar.begin("encoding")
        bar.begin("writing")
        assert bar.done == 2
    assert bar.done == 3 and "3/3" in capsys.readouterr().err


def test_a_negative_total_is_refused():
    with pytest.raises(ValueError, match="0 or more, got -1"):
        Progress(-1, "games")


class _Stream:
    """A stream whose ``isatty`` answers ``answer`` (or raises it, for an exception)."""

    def __init__(self, answer):
        self.answer = answer

    def isatty(self):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_is_terminal_asks_the_stream():
    from cardgames_env.display.progress import is_terminal

    assert is_terminal(_Stream(True)) and not is_terminal(_Stream(False))
    assert not is_terminal(_Stream(ValueError("I/O operation on closed file")))
    assert not is_terminal(object())  # no isatty at all
