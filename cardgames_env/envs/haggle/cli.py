"""``haggle NAME=HAND ...``: score a game of Haggle (the scorer's command).

Prints one ``Name: score`` line per player, the non-eliminated players by score descending
(ties keep the command-line order), then ``Name: ELIMINATED`` lines in command-line order.
Bad input prints one line on stderr, nothing on stdout, and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

import numpy as np

from .scoring import Config, score_hands

DESCRIPTION = """\
Score the hands of a game of Haggle (Sid Sackson's original rules, as the Haggle Scorer
README states them). Give one NAME=HAND argument per player; HAND is a string of colour
letters, case-insensitive: Y Yellow (1 point), B Blue (2), R Red (3), O Orange (4),
W White (5). NAME= is an empty hand.

Modifiers, applied in this order: at most 13 cards are scored (the excess is removed at
random; --seed fixes it); 7 or more cards of one colour -> ELIMINATED; more than 3 White ->
White worth 0; only as many Orange score as there are Blue; +10 per set of 5 different
colours; each 2 Yellow double one White; each 3 Blue quadruple one Orange; 5 or more Blue
-> 10 points off every other player, each 3 Red protect from one such penalty; most Yellow
-> + that count squared (a tie passes it to the next most); unique most Red -> Red doubled;
a pyramid (4/3/2/1 of four colours and nothing else) doubles the final total. Eliminated
players take no part in the Blue, Yellow and Red comparisons.

Output: 'Name: score' by score descending (ties in argument order), then
'Name: ELIMINATED' in argument order."""

EPILOG = "example: haggle Taylor=YYR Tyler=OWB OtherTaylor=WBRO Dummy=WWWWWWW"


class UsageError(Exception):
    """A user mistake on the command line (reported on one line, exit status 2)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _build_parser() -> _Parser:
    parser = _Parser(
        prog="haggle",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("players", nargs="*", metavar="NAME=HAND", help="a player and the cards handed in")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random 13-card cap (N >= 0)")
    variants = parser.add_argument_group("variants (the rules' alternatives, docs/rules/haggle.md)")
    variants.add_argument(
        "--eliminated-in-globals",
        action="store_true",
        help="eliminated players still take part in the Blue penalty and Yellow/Red majorities",
    )
    variants.add_argument(
        "--no-yellow-cascade",
        action="store_true",
        help="a tie for most Yellow passes the bonus to the second-most count only",
    )
    variants.add_argument(
        "--yellow-min-count",
        type=int,
        default=1,
        metavar="N",
        help="fewest Yellow that can win the bonus (default 1)",
    )
    variants.add_argument(
        "--elimination-penalty",
        type=int,
        default=None,
        metavar="P",
        help="instead of ELIMINATED, add P (e.g. -10) per colour with 7 or more cards",
    )
    variants.add_argument(
        "--pyramid-subtotal",
        action="store_true",
        help="the pyramid doubles the subtotal before the Blue penalty and Yellow/Red bonuses",
    )
    return parser


def parse_players(arguments: Sequence[str]) -> dict[str, str]:
    """Return ``{name: hand}`` from ``NAME=HAND`` arguments (hands not yet validated).

    Raises:
        UsageError: no players, an argument without ``=``, an empty or a duplicate name.
    """
    if not arguments:
        raise UsageError("no players given: write NAME=HAND for each player, e.g. Taylor=YYR")
    hands: dict[str, str] = {}
    for argument in arguments:
        name, equals, hand = argument.partition("=")
        if not equals:
            raise UsageError(f"argument {argument!r} has no '=': write NAME=HAND, e.g. Taylor=YYR")
        if not name:
            raise UsageError(f"argument {argument!r} has an empty player name")
        if name in hands:
            raise UsageError(f"duplicate player name {name!r}")
        hands[name] = hand
    return hands


def format_scores(scores: dict[str, int | None]) -> list[str]:
    """Return the output lines: scores descending (stable), then ELIMINATED in input order."""
    alive = [(name, s) for name, s in scores.items() if s is not None]
    alive.sort(key=lambda item: -item[1])  # sort is stable: ties keep input order
    lines = [f"{name}: {s}" for name, s in alive]
    lines += [f"{name}: ELIMINATED" for name, s in scores.items() if s is None]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run the scorer; exit status 0, or 2 with a one-line error on stderr for bad input."""
    parser = _build_parser()
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as done:  # --help printed the help text
            return int(done.code or 0)
        if args.seed is not None and args.seed < 0:
            raise UsageError(f"--seed must be a non-negative integer, got {args.seed}")
        config = Config(
            eliminated_in_globals=args.eliminated_in_globals,
            yellow_cascade=not args.no_yellow_cascade,
            yellow_min_count=args.yellow_min_count,
            elimination_penalty=args.elimination_penalty,
            pyramid_final=not args.pyramid_subtotal,
        )
        hands = parse_players(args.players)
        scores = score_hands(hands, rng=np.random.default_rng(args.seed), config=config)
    except (UsageError, ValueError) as error:
        print(f"haggle: error: {error}", file=sys.stderr)
        return 2
    print("\n".join(format_scores(scores)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
