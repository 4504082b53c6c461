"""Checks that an output destination can be written, made before any work that would be lost."""

from __future__ import annotations

import os
from pathlib import Path


def check_output_folder(path: str | Path, what: str = "--out") -> Path:
    """Return ``path`` if it is, or can be created as, a writable folder; create nothing.

    The folder may exist (it must then be a writable folder) or not (its nearest existing
    ancestor must then be a writable folder).

    Raises:
        ValueError: naming ``what`` and the path, when a file stands in the way or a folder
            is not writable.
    """
    folder = Path(path)
    probe = folder
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        where = "is a file" if probe == folder else f"cannot be created: {probe} is a file"
        raise ValueError(f"{what} {folder} {where}, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ValueError(f"{what} {folder} cannot be written: no write permission on {probe}")
    return folder


def check_output_file(path: str | Path, what: str = "--out") -> Path:
    """Return ``path`` if a file can be written there: not a folder, in a writable folder.

    Raises:
        ValueError: naming ``what`` and the path otherwise.
    """
    file = Path(path)
    if file.is_dir():
        raise ValueError(f"{what} {file} is a folder, not a file")
    if not file.parent.is_dir():
        raise ValueError(f"{what} {file} cannot be written: no folder {file.parent}")
    if not os.access(file.parent, os.W_OK | os.X_OK) or (file.exists() and not os.access(file, os.W_OK)):
        raise ValueError(f"{what} {file} cannot be written: no write permission")
    return file
