"""Progress bars on stderr for work that runs longer than a few seconds (games, moves, steps).

A :class:`Progress` counts finished units against a known total and shows them with their
rate and the time left (tqdm; with no total known, the count and the rate), on stderr, so
the results a command prints on stdout (a table, a summary line, JSON) stay clean. Whether a
bar is shown is decided once, when it is made: ``show=None`` shows it only when stderr is a
terminal (logs and pipes get nothing), ``True`` always, ``False`` never.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any

from cardgames_env.core.terminal import is_terminal


def progress_shown(show: bool | None) -> bool:
    """Return whether a bar is shown: ``show`` itself, or (``None``) whether stderr is a terminal."""
    return bool(show) if show is not None else is_terminal(sys.stderr)


class Progress:
    """A counter of finished units out of ``total``, drawn on stderr while it runs.

    Use it as a context manager (the bar is closed, its last state left on screen, at the
    end)::

        with Progress(200, "games", "eval") as bar:
            for game in range(200):
                play(game)
                bar.advance()

    Args:
        total: the number of units the work will finish; ``None`` when it is not known in
            advance (the bar then shows the count and the rate).
        unit: what a unit is, plural (``"games"``, ``"steps"``, ``"moves"``).
        label: a few words before the bar naming the work.
        show: ``None``: only when stderr is a terminal; ``True``: always; ``False``: never
            (and never for a total of 0: nothing to count).

    Raises:
        ValueError: for a negative total.
    """

    def __init__(self, total: int | None, unit: str, label: str = "", show: bool | None = None):
        if total is not None and total < 0:
            raise ValueError(f"a progress total must be 0 or more, got {total}")
        self.total = None if total is None else int(total)
        self.done = 0
        self._stage_open = False
        self.shown = progress_shown(show) and self.total != 0
        self._bar: Any = None
        if self.shown:
            from tqdm import tqdm

            # A terminal that reports 0 columns or rows (some pseudo-terminals) would hide the
            # bar: shutil falls back to 80 x 24 then.
            columns, rows = shutil.get_terminal_size()
            # The rate always as units per second ("0.31 games/s", not tqdm's "3.21s/ games").
            head = "{desc}: " if label else ""
            if self.total is None:
                shape = head + "{n_fmt}{unit} [{elapsed}, {rate_noinv_fmt}{postfix}]"
            else:
                shape = head + "{percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, " \
                    "{rate_noinv_fmt}{postfix}]"
            self._bar = tqdm(
                total=self.total, unit=f" {unit}", desc=label or None, file=sys.stderr, bar_format=shape,
                ncols=min(columns, 120), nrows=rows, mininterval=0.5, smoothing=0.1,
            )

    def advance(self, count: int = 1) -> None:
        """Count ``count`` more finished units."""
        self.done += count
        if self._bar is not None:
            self._bar.update(count)

    def begin(self, stage: str) -> None:
        """Start the next stage of work counted in stages: the one before it (if any) is done,
        and ``stage`` is shown while it runs; leaving the ``with`` block counts the last one."""
        if self._stage_open:
            self.advance()
        self._stage_open = True
        self.note(stage)

    def note(self, text: str) -> None:
        """Show ``text`` after the counts (e.g. ``"evaluating"``), or clear it with ``""``."""
        if self._bar is not None:
            self._bar.set_postfix_str(text)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Clear the bar while the body prints to the terminal, then draw it again below."""
        if self._bar is None:
            yield
            return
        with self._bar.external_write_mode():
            yield

    def close(self) -> None:
        """Stop drawing; the bar's last state stays on screen."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if error is None and self._stage_open:
            self._stage_open = False
            self.advance()
            self.note("")
        self.close()


__all__ = ["Progress", "is_terminal", "progress_shown"]
