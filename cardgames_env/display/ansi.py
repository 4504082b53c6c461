"""Small text helpers for the games' ``ansi`` renderings."""

from __future__ import annotations

from collections.abc import Iterable


def seat_label(player: int, viewer: int | None) -> str:
    """Return ``"P2"`` or ``"P2 (you)"`` when ``player`` is the viewer."""
    return f"P{player} (you)" if player == viewer else f"P{player}"


def boxed(title: str, lines: Iterable[str]) -> str:
    """Return ``lines`` under an underlined title."""
    body = list(lines)
    return "\n".join([title, "-" * max(len(title), 8), *body])
