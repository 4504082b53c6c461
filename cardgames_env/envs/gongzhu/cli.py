"""``gongzhu-score CARDS``: print the Gong Zhu score of captured cards in the scorer's notation."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from .scoring import score


class _UsageError(Exception):
    """A command-line mistake, reported in one stderr line."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (no usage block before the message)."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the scorer; exit status 0, or 2 with a one-line error for bad input."""
    parser = _Parser(
        prog="gongzhu-score",
        description=(
            "Score one Gong Zhu (Chinese Hearts) player's captured cards. CARDS uses "
            "23456789TJQKA for hearts 2..A, P for the pig (♠Q), G for the goat (♦J), "
            "D for the transformer (♣10); e.g. 'gongzhu-score 23456789TJQKA' prints 200."
        ),
    )
    parser.add_argument("cards", nargs="?", help="captured point cards, e.g. G2P6D4 ('' = none)")
    try:
        args = parser.parse_args(argv)
    except _UsageError as error:
        print(f"gongzhu-score: error: {error} (usage: gongzhu-score CARDS)", file=sys.stderr)
        return 2
    if args.cards is None:
        print("gongzhu-score: error: give the captured cards, e.g. 'gongzhu-score TJQKP'", file=sys.stderr)
        return 2
    try:
        points = score(args.cards.strip().upper())
    except ValueError as error:
        print(f"gongzhu-score: error: {error}", file=sys.stderr)
        return 2
    print(points)
    return 0


if __name__ == "__main__":
    sys.exit(main())
