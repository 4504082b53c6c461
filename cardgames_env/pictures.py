"""Pictures of recorded games: one frame per move, and animated GIFs.

A game record (:mod:`cardgames_env.records`) is replayed and every position drawn with
:func:`cardgames_env.display.picture.draw_position` from the game's view: the deal, then the
position after each move, headed with the move's number and its notation as the viewer may
read it. The frame that ends a hand or round (and the last one) stays up longer. Drawing needs
Pillow (the ``pictures`` extra).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .core.view import public_move, remember, round_message
from .display.picture import draw_position, game_view, pad_frames, require_pillow
from .records import GameRecord, make_env, replay
from .registry import spec

MOVE_MS = 700
"""How long a frame after an ordinary move shows, in milliseconds."""
HAND_END_MS = 2500
"""How long the frame that ends a hand or round shows."""
LAST_MS = 5000
"""How long the last frame shows."""
COLOURS = 128
"""Colours of a GIF's palette."""
PALETTE_SAMPLES = 8
"""Frames a GIF's palette is taken from."""


@dataclass(frozen=True)
class Frame:
    """One picture of a game and how long it shows in an animation (milliseconds)."""

    image: np.ndarray
    duration: int


def record_frames(record: GameRecord, viewer: int | None = None) -> Iterator[Frame]:
    """Replay ``record`` and yield the deal's picture, then one picture after each move.

    Args:
        record: a game record.
        viewer: draw what this seat sees (``None``: every card).

    Raises:
        RecordError: when the record does not replay (see :func:`cardgames_env.records.replay`).
        ValueError: for a viewer that is not a seat, or a game without a view.
        ImportError: when Pillow is missing (the message names the extra).
    """
    view = game_view(spec(record.env), record.env)
    env = make_env(record)
    rules = env.rules
    seats = len(env.possible_agents)
    if viewer is not None and (isinstance(viewer, bool) or viewer not in range(seats)):
        raise ValueError(f"the viewer must be a seat 0..{seats - 1}, got {viewer!r}")
    memory: dict = {}
    total = len(record.moves)
    state = env.game_state()
    yield Frame(draw_position(rules, view, state, viewer, memory, last_move=f"the deal · {total} moves"),
                LAST_MS if total == 0 else MOVE_MS)
    for step in replay(record, env):
        memory = remember(view, memory, step.before, step.after, step.move)
        message = round_message(view, step.before, step.after)
        shown = public_move(view, step.before, step.seat, step.move, viewer)
        last = step.index + 1 == total
        truncated = last and record.truncated
        image = draw_position(rules, view, step.after, viewer, memory,
                              last_move=f"move {step.index + 1}/{total}: P{step.seat} {shown}",
                              message=message, truncated=truncated)
        yield Frame(image, LAST_MS if last else HAND_END_MS if message else MOVE_MS)


def write_gif(path: str | Path, frames: list[Frame]) -> None:
    """Write ``frames`` as an animated GIF that loops, each frame for its duration.

    Frames of different heights are padded to the tallest. Every frame is kept (one image in
    the file per frame); all share one palette of :data:`COLOURS` colours, taken from up to
    :data:`PALETTE_SAMPLES` frames spread over the game.

    Raises:
        ValueError: for no frames.
        OSError: when the file cannot be written.
    """
    if not frames:
        raise ValueError("a GIF needs at least one frame")
    image_module = require_pillow()
    padded = pad_frames([f.image for f in frames])
    last = len(padded) - 1
    picks = sorted({round(i * last / (PALETTE_SAMPLES - 1)) for i in range(PALETTE_SAMPLES)})
    sample = image_module.fromarray(np.concatenate([padded[i] for i in picks]))
    palette = sample.quantize(colors=COLOURS, method=image_module.Quantize.MEDIANCUT,
                              dither=image_module.Dither.NONE)
    images = [image_module.fromarray(f).quantize(palette=palette, dither=image_module.Dither.NONE)
              for f in padded]
    images[0].save(path, format="GIF", save_all=True, append_images=images[1:], loop=0,
                   duration=[f.duration for f in frames], disposal=1, optimize=True)


__all__ = ["HAND_END_MS", "LAST_MS", "MOVE_MS", "Frame", "record_frames", "write_gif"]
