"""The one way the app writes a file it must not lose: all or nothing across a crash.

The bytes go to a temporary file in the same folder, are flushed to the disk, and then take the
target's name in one rename (or one link, where the first writer must win); the folder itself
is flushed too, so the rename survives a power cut. Callers turn OSError into their own words.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def write_atomically(
    path: Path, data: bytes, *, mode: int | None = None, replace: bool = True
) -> None:
    """Put `data` at `path` in one step.

    mode     the file's permission bits; None keeps those of the file replaced (0o644 for a
             new one). The temporary file is private from its first byte either way.
    replace  False: an existing file is kept and FileExistsError raised (first writer wins).
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(21, "Is a directory", str(path))
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, _mode_for(path) if mode is None else mode)
        if replace:
            os.replace(temp_name, path)
        else:
            os.link(temp_name, path)
    finally:
        # After a rename there is nothing left to remove; after a link or a failure there is.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
    _sync_folder(path.parent)


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o644


def _sync_folder(folder: Path) -> None:
    if not hasattr(os, "O_DIRECTORY"):
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
