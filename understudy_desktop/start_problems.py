"""What stops the app from starting, said as a person can act on it: a damaged database, a
database from a newer Understudy, a data folder that is a file or that it may not write to, a
full disk. Nothing is changed by the attempt: a damaged
database is left as it is for a backup or a helper to look at."""

from __future__ import annotations

import errno
import sqlite3
from dataclasses import dataclass
from pathlib import Path

READ_ONLY = {errno.EACCES, errno.EPERM, errno.EROFS}


class StartProblemError(Exception):
    """The data folder cannot be used, for a reason other than another Understudy."""


@dataclass(frozen=True)
class Problem:
    title: str
    words: str


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and seen not in chain:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    return chain


def problem_of(exc: BaseException, data_dir: Path) -> Problem | None:
    """The problem `exc` stands for, or None when it is none of these (a bug: traceback)."""
    texts = " ".join(str(e).lower() for e in _causes(exc))
    numbers = {e.errno for e in _causes(exc) if isinstance(e, OSError)}
    where = str(data_dir)
    if "newer understudy" in texts:
        return Problem(
            "Understudy needs updating",
            f"Understudy could not start: its data folder ({where}) was last used by a newer "
            "Understudy, whose saved data this one cannot read. Install the newer Understudy "
            "again (or start this one with another folder: understudy --data-dir FOLDER). "
            "Nothing was changed.",
        )
    if numbers & {errno.ENOTDIR, errno.EEXIST} or (data_dir.exists() and not data_dir.is_dir()):
        return Problem(
            "Understudy's data folder is a file",
            f"Understudy could not start: where its data folder should be ({where}) there is "
            "a file. Move that file somewhere else, or start Understudy with another folder "
            "(understudy --data-dir FOLDER). Nothing was changed.",
        )
    if errno.ENOSPC in numbers or "disk is full" in texts or "no space" in texts:
        return Problem(
            "The disk is full",
            f"Understudy could not start: there is no space left on the disk that holds its "
            f"data folder ({where}). Free some space, then start Understudy again. Nothing "
            "of yours was changed.",
        )
    if (
        numbers & READ_ONLY
        or "readonly" in texts
        or "read-only" in texts
        or ("unable to open database file" in texts)
    ):
        return Problem(
            "Understudy cannot use its data folder",
            f"Understudy could not start: it may not read or write its data folder ({where}). "
            "Make the folder yours, readable and writable again, or start Understudy with "
            "another folder (understudy --data-dir FOLDER). Nothing was changed.",
        )
    damaged = ("not a database", "malformed", "file is encrypted", "database corrupt")
    if any(d in texts for d in damaged) or isinstance(exc, sqlite3.DatabaseError):
        return Problem(
            "Understudy's saved data is damaged",
            f"Understudy could not start: its saved data (understudy.sqlite3 in {where}) is "
            "damaged and cannot be read. It was left as it is. To start afresh, move that "
            "file somewhere else (keep it: a helper may be able to recover it), then start "
            "Understudy again; or restore it from a backup.",
        )
    if isinstance(exc, StartProblemError):
        return Problem("Understudy could not start", str(exc))
    return None
