"""Checks that an output destination can be written, made before any work that would be lost.

Permission bits cannot answer that question (they say nothing for root, nor for special file
systems such as ``/proc``), so each check tries: it creates what is missing and a probe file,
then removes everything it created.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def check_output_folder(path: str | Path, what: str = "--out") -> Path:
    """Return ``path`` if it is, or can be created as, a writable folder; leave nothing behind.

    The folder may exist (it must then be a folder in which a file can be created) or not
    (then it and its missing parents are created for the check and removed again).

    Raises:
        ValueError: naming ``what`` and the path, when a file stands in the way or the folder
            cannot be created or written.
    """
    folder = Path(path)
    missing: list[Path] = []
    probe = folder
    while not probe.exists() and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        where = "is a file" if probe == folder else f"cannot be created: {probe} is a file"
        raise ValueError(f"{what} {folder} {where}, not a folder")
    made: list[Path] = []
    try:
        for parent in reversed(missing):
            parent.mkdir()
            made.append(parent)
        handle, name = tempfile.mkstemp(prefix=".write-check-", dir=folder)
        os.close(handle)
        os.unlink(name)
    except OSError as error:
        raise ValueError(f"{what} {folder} cannot be written: {error.strerror or error}") from None
    finally:
        for created in reversed(made):
            try:
                created.rmdir()
            except OSError:
                pass
    return folder


def check_output_file(path: str | Path, what: str = "--out") -> Path:
    """Return ``path`` if a file can be written there: not a folder, in an existing folder,
    openable for writing; an existing file is left as it is, a new one is not left behind.

    Raises:
        ValueError: naming ``what`` and the path otherwise.
    """
    file = Path(path)
    if file.is_dir():
        raise ValueError(f"{what} {file} is a folder, not a file")
    if not file.parent.is_dir():
        raise ValueError(f"{what} {file} cannot be written: no folder {file.parent}")
    existed = file.exists()
    try:
        with file.open("ab"):  # appending nothing changes neither the content nor the time
            pass
    except OSError as error:
        raise ValueError(f"{what} {file} cannot be written: {error.strerror or error}") from None
    if not existed:
        file.unlink(missing_ok=True)
    return file
