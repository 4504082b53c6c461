"""Pictures of a table: RGB frames drawn from a game's view (:mod:`cardgames_env.core.view`).

One drawing function serves every game: it draws the zones that the game's view module
produces (one row of cards per zone, face-down backs for the cards the viewer does not see),
a heading with the game's name, whose turn it is and the last move, and a side panel with the
view's info lines and, at the end, the score breakdown and the winners. A spectator's picture
(``viewer=None``) shows every card; a seat's picture shows what that seat may see and no more,
because it is drawn from that seat's view only.

Frames are ``H×W×3`` ``uint8`` arrays, drawn with Pillow (the ``pictures`` extra:
``pip install -e ".[pictures]"`` in the checkout) in the DejaVu Sans font shipped in
``display/fonts/``, so the same position gives the same pixels on every machine. The width is
fixed; the height grows with the number of zone rows (``rows`` pads a frame to a given number
of rows, so that every frame of a game has one size).
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np

from cardgames_env.core.extras import install_command
from cardgames_env.core.game import CHANCE, TERMINAL
from cardgames_env.core.view import Json, result_line

EXTRA = "pictures"
"""The optional extra that installs Pillow."""
INSTALL = install_command(EXTRA)
"""The command that installs the extra."""

WIDTH = 1120
"""Width of every frame, in pixels."""
MARGIN = 12
PANEL = 330
"""Width of the side panel (info lines, scores)."""
HEADER = 58
CARD_W = 46
CARD_H = 64
CARD_GAP = 4
GROUP_GAP = 14
ROW_H = 24 + CARD_H + 12
MIN_ROWS = 4
BACKGROUND = (22, 96, 62)
"""Table felt."""
INK = (245, 245, 240)
MUTED = (190, 214, 198)
ACCENT = (255, 214, 90)
PANEL_FILL = (16, 72, 46)
CARD_BACK = (38, 58, 122)
CARD_BACK_LINE = (120, 140, 200)
CARD_EDGE = (60, 60, 60)


class PicturesUnavailable(ImportError):
    """Pillow, which draws the pictures, is not installed (the message names the extra)."""


def require_pillow() -> Any:
    """Return Pillow's ``Image`` module, or raise :class:`PicturesUnavailable` naming the extra."""
    try:
        from PIL import Image
    except ImportError:
        raise PicturesUnavailable(
            f"pictures (render_mode='rgb_array', --gif) need Pillow: {INSTALL}"
        ) from None
    return Image


@functools.lru_cache(maxsize=32)
def game_view(spec: Any, name: str) -> Any:
    """Return the view module that draws game ``spec`` (a ``GameSpec`` or None), Pillow checked.

    Raises:
        ValueError: when the game declares no view (``name`` names it in the message).
        ImportError: (``PicturesUnavailable``) when Pillow is missing, naming the extra.
    """
    if spec is None or spec.view is None:
        raise ValueError(f"{name} has no view to draw: pictures need a GameSpec with a view")
    require_pillow()
    return spec.load("view")


def font(size: int, bold: bool = False) -> Any:
    """The shipped DejaVu Sans font (bold or regular) at ``size`` pixels."""
    require_pillow()
    from PIL import ImageFont

    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    data = (resources.files(__package__) / "fonts" / name).read_bytes()
    return ImageFont.truetype(io.BytesIO(data), size)


@functools.lru_cache(maxsize=256)
def colour(value: str | None, default: tuple[int, int, int]) -> tuple[int, int, int]:
    """An RGB triple of a CSS colour (``#rgb``, ``#rrggbb``, a colour name); ``default`` for none."""
    if not value:
        return default
    from PIL import ImageColor

    try:
        rgb = ImageColor.getrgb(value)
    except ValueError:
        return default
    return (rgb[0], rgb[1], rgb[2])


def frame_height(rows: int) -> int:
    """Height of a frame with ``rows`` zone rows."""
    return HEADER + max(rows, MIN_ROWS) * ROW_H + MARGIN


def draw_table(
    view: Any,
    table: Json,
    *,
    status: str,
    viewer: int | None = None,
    mover: int | None = None,
    last_move: str | None = None,
    message: str | None = None,
    scores: Json | None = None,
    rows: int = 0,
) -> np.ndarray:
    """Draw a view's table (``view.table(...)``'s JSON) as an RGB frame.

    Args:
        view: the game's view module (its ``TITLE`` and ``CARD_COLOURS``).
        table: ``{"zones": [...], "info": [[label, text], ...]}`` of the view.
        status: the heading's second part, e.g. ``"P1 to move"`` or the result.
        viewer: the seat whose view this is (``None``: the spectator's).
        mover: the seat to move, whose zones are marked.
        last_move: the last move as the viewer may read it, e.g. ``"P0: play R7"``.
        message: a line announcing the end of a hand or round, drawn in the heading.
        scores: ``{"rows": [[label, value per seat...]]}``, drawn in the side panel.
        rows: the number of zone rows to leave room for (at least the table's).

    Returns:
        An ``H×W×3`` ``uint8`` array; ``W`` is :data:`WIDTH`, ``H`` is :func:`frame_height`.
    """
    image_module = require_pillow()
    from PIL import ImageDraw

    zones = table.get("zones", [])
    height = frame_height(max(rows, len(zones)))
    image = image_module.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    who = "spectator: every card shown" if viewer is None else f"P{viewer}'s view: other seats' cards hidden"
    title = str(getattr(view, "TITLE", "game"))
    draw.text((MARGIN, 8), title, font=font(22, True), fill=INK)
    x = MARGIN + draw.textlength(title, font=font(22, True)) + 14
    draw.text((x, 13), status, font=font(16, True), fill=ACCENT)
    x += draw.textlength(status, font=font(16, True)) + 14
    _clipped_text(draw, (x, 15), who, font(13), MUTED, WIDTH - MARGIN - x)
    x = MARGIN
    if last_move:
        text = f"last move: {last_move}"
        _clipped_text(draw, (x, 36), text, font(14), INK, WIDTH - 2 * MARGIN)
        x += draw.textlength(text, font=font(14)) + 16
    if message and x < WIDTH - 2 * MARGIN:
        _clipped_text(draw, (x, 36), message, font(14, True), ACCENT, WIDTH - MARGIN - x)
    colours: dict[str, dict[str, str]] = dict(getattr(view, "CARD_COLOURS", {}))
    left = WIDTH - PANEL - MARGIN
    for index, zone in enumerate(zones):
        _draw_zone(draw, zone, colours, MARGIN, HEADER + index * ROW_H, left - 2 * MARGIN, mover)
    _draw_panel(draw, table.get("info", []), scores, left, HEADER, height - HEADER - MARGIN)
    return np.asarray(image, dtype=np.uint8)


def draw_position(
    rules: Any,
    view: Any,
    state: Any,
    viewer: int | None = None,
    memory: Json | None = None,
    *,
    last_move: str | None = None,
    message: str | None = None,
    truncated: bool = False,
    rows: int = 0,
) -> np.ndarray:
    """Draw a rules ``State`` as ``viewer`` sees it (``None``: the spectator, every card).

    Whose turn it is comes from ``rules.current_player``; a finished game shows the view's
    score breakdown and its winners.

    Args:
        rules: the game's rules module.
        view: the game's view module.
        state: a rules ``State``.
        viewer: a seat, or ``None``.
        memory: the view's memory of public facts the state forgets (see
            :func:`cardgames_env.core.view.remember`).
        last_move: the last move as the viewer may read it.
        message: a line announcing the end of a hand or round.
        truncated: the game was cut off by the turn limit.
        rows: the number of zone rows to leave room for.

    Raises:
        ValueError: for a viewer that is not a seat of the state.
    """
    if viewer is not None:
        count = len(rules.returns(state))
        if isinstance(viewer, bool) or not isinstance(viewer, (int, np.integer)) or not 0 <= viewer < count:
            raise ValueError(f"viewer must be None or a seat 0..{count - 1}, got {viewer!r}")
        viewer = int(viewer)
    table = view.table(state, viewer, memory or {})
    mover = rules.current_player(state)
    scores = None
    if truncated or mover == TERMINAL:
        scores = view.scores(state)
        status = result_line([] if truncated else view.winners(state), truncated)
        mover = None
    elif mover == CHANCE:
        status, mover = "dealing", None
    else:
        status = f"P{mover} to move"
    return draw_table(view, table, status=status, viewer=viewer, mover=mover, last_move=last_move,
                      message=message, scores=scores, rows=rows)


def zone_rows(view: Any, state: Any, viewer: int | None, memory: Json | None = None) -> int:
    """The number of zone rows of ``state``'s table as ``viewer`` sees it."""
    return len(view.table(state, viewer, memory or {}).get("zones", []))


def pad_frames(frames: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The frames padded at the bottom with the table's colour to the tallest one's height."""
    height = max((f.shape[0] for f in frames), default=0)
    padded = []
    for f in frames:
        if f.shape[0] < height:
            extra = np.empty((height - f.shape[0], *f.shape[1:]), dtype=np.uint8)
            extra[...] = BACKGROUND
            f = np.concatenate([f, extra])
        padded.append(f)
    return padded


def _clipped_text(draw: Any, xy: tuple[float, float], text: str, face: Any, fill: Any, width: float) -> None:
    """Draw ``text``, cut with an ellipsis to ``width`` pixels."""
    if draw.textlength(text, font=face) > width:
        while text and draw.textlength(text + "…", font=face) > width:
            text = text[:-1]
        text += "…"
    draw.text(xy, text, font=face, fill=fill)


def _draw_zone(
    draw: Any, zone: Json, colours: dict[str, dict[str, str]], x: int, y: int, width: int,
    mover: int | None,
) -> None:
    """One zone row: its label and note, then its cards and face-down backs."""
    owner = zone.get("owner")
    to_move = mover is not None and owner == mover
    label = str(zone.get("label", ""))
    if to_move:
        draw.polygon([(x, y + 4), (x + 9, y + 10), (x, y + 16)], fill=ACCENT)
    lx = x + (13 if to_move else 0)
    face = font(15, True)
    draw.text((lx, y + 2), label, font=face, fill=ACCENT if to_move else INK)
    nx = lx + draw.textlength(label, font=face) + 10
    cards: list[Json] = list(zone.get("cards", []))
    hidden = int(zone.get("hidden", 0))
    note = str(zone.get("note", ""))
    extra = f"{hidden} hidden" if hidden else ""
    if not cards and not hidden and not note:
        extra = "empty"
    note = " · ".join(t for t in (extra, note) if t)
    _clipped_text(draw, (nx, y + 4), note, font(13), MUTED, x + width - nx)
    top = y + 24
    widths = [_card_width(draw, c) for c in cards] + [CARD_W] * hidden
    groups = [c.get("group") for c in cards] + [None] * hidden
    gaps = [GROUP_GAP if i and groups[i] != groups[i - 1] else CARD_GAP for i in range(len(widths))]
    natural = sum(widths) + sum(gaps[1:])
    squeeze = 1.0
    if len(widths) > 1 and natural > width:  # overlap the cards, keeping each one's corner
        room = width - widths[-1]
        squeeze = room / (natural - widths[-1])
    cx = float(x)
    for i, w in enumerate(widths):
        if i:
            cx += (widths[i - 1] + gaps[i]) * squeeze
        if i < len(cards):
            _draw_card(draw, cards[i], colours, int(cx), top, w, covered=squeeze < 1.0)
        else:
            _draw_back(draw, int(cx), top)
    if zone.get("done"):  # a finished trick: underlined
        draw.line([(x, top + CARD_H + 5), (x + width, top + CARD_H + 5)], fill=MUTED, width=1)


def _card_width(draw: Any, card: Json) -> int:
    """A card's width: wide enough for its label in the corner font."""
    label = str(card.get("label", ""))
    return max(CARD_W, int(draw.textlength(label, font=font(14, True))) + 12)


def _draw_card(
    draw: Any, card: Json, colours: dict[str, dict[str, str]], x: int, y: int, w: int, covered: bool
) -> None:
    """A card face: the kind's colours, its label in the corner and, when not overlapped, large."""
    style = colours.get(str(card.get("kind", "")), {})
    fill = colour(style.get("background"), (255, 255, 255))
    ink = colour(style.get("color"), (29, 29, 31))
    edge = colour(style.get("border-color"), CARD_EDGE)
    marked = bool(card.get("top"))
    draw.rounded_rectangle([x, y, x + w, y + CARD_H], radius=6, fill=fill,
                           outline=ACCENT if marked else edge, width=3 if marked else 1)
    label = str(card.get("label", ""))
    draw.text((x + 5, y + 3), label, font=font(14, True), fill=ink)
    sub = str(card.get("sub", "rule" if marked else ""))
    if not covered and len(label) <= 3:  # a short label also large in the middle
        big = font(22, True)
        tw = draw.textlength(label, font=big)
        draw.text((x + (w - tw) / 2, y + 22), label, font=big, fill=ink)
    if sub:
        face = font(10, True)
        tw = draw.textlength(sub, font=face)
        draw.text((x + max(3, (w - tw) / 2), y + CARD_H - 14), sub, font=face, fill=ink)


def _draw_back(draw: Any, x: int, y: int) -> None:
    """A face-down card."""
    draw.rounded_rectangle([x, y, x + CARD_W, y + CARD_H], radius=6, fill=CARD_BACK, outline=CARD_EDGE)
    draw.rounded_rectangle([x + 5, y + 5, x + CARD_W - 5, y + CARD_H - 5], radius=4,
                           outline=CARD_BACK_LINE, width=1)
    for k in range(-CARD_H, CARD_W, 8):  # a diagonal hatch inside the inner frame
        x0, y0 = x + 6 + max(k, 0), y + 6 + max(-k, 0)
        span = min(CARD_W - 12 - max(k, 0), CARD_H - 12 - max(-k, 0))
        if span > 0:
            draw.line([(x0, y0), (x0 + span, y0 + span)], fill=CARD_BACK_LINE, width=1)


def _wrap(draw: Any, text: str, face: Any, width: float) -> list[str]:
    """``text`` cut into lines of at most ``width`` pixels, at spaces where it can be."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if draw.textlength(candidate, font=face) <= width or not line:
            line = candidate
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


def _draw_panel(
    draw: Any, info: Sequence[Sequence[Any]], scores: Json | None, x: int, y: int, height: int
) -> None:
    """The side panel: each info line (label, then its text wrapped), then the scores."""
    draw.rounded_rectangle([x, y, x + PANEL, y + height], radius=8, fill=PANEL_FILL)
    inner = PANEL - 20
    cy = y + 8
    bottom = y + height - 16
    lines: list[tuple[str, Any, Any]] = []
    for item in info:
        label, text = (str(item[0]), str(item[1])) if len(item) > 1 else (str(item[0]), "")
        lines.append((label, font(13, True), MUTED))
        lines.extend((t, font(13), INK) for t in _wrap(draw, text, font(13), inner))
    if scores is not None:
        lines.append(("", font(13), INK))
        lines.append(("Scores", font(14, True), ACCENT))
        for row in scores.get("rows", []):
            label = str(row[0])
            values = "  ".join(f"P{s} {v}" for s, v in enumerate(row[1:]) if str(v) != "")
            lines.append((label, font(13, True), MUTED))
            lines.extend((t, font(13), INK) for t in _wrap(draw, values or "-", font(13), inner))
    for text, face, fill in lines:
        if cy > bottom:
            draw.text((x + 10, cy - 2), "…", font=face, fill=fill)
            break
        draw.text((x + 10, cy), text, font=face, fill=fill)
        cy += 17


__all__ = [
    "EXTRA", "INSTALL", "PicturesUnavailable", "WIDTH", "draw_position", "draw_table", "font",
    "frame_height", "pad_frames", "require_pillow", "zone_rows",
]
