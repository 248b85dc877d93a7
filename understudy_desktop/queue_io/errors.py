"""The one error type queue files raise, worded for support staff rather than programmers, and
the helpers that word it: a file that cannot be opened, row problems gathered into one message."""

from __future__ import annotations

from pathlib import Path
from typing import Final, NoReturn

# Cells can hold whole e-mail threads; an error dialog that echoes one is unreadable.
MAX_ECHO_CHARS = 40
# Stop collecting row problems after this many; the count keeps going so the message stays honest.
_MAX_PROBLEMS: Final = 50


def shorten(value: object, limit: int = MAX_ECHO_CHARS) -> str:
    """Render a value for an error message, cut short and kept on one line."""
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    if len(text) > limit:
        return text[: limit - 1].rstrip() + "…"
    return text


class QueueFileError(Exception):
    """A queue file could not be read or written.

    ``str(error)`` is the whole plain-language message, ready for a message box. The parts are
    kept as attributes so the shell can also highlight the row or column that caused it.
    """

    def __init__(
        self,
        message: str,
        *,
        path: Path | None = None,
        row: int | None = None,
        column: str | None = None,
        problems: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.row = row
        self.column = column
        # Every row-level problem found (capped), so a UI can list them all, not just the first.
        self.problems = problems or (message,)

    def __str__(self) -> str:
        return self.message


def cannot_open(
    path: Path, text: str, *, row: int | None = None, column: str | None = None
) -> NoReturn:
    raise QueueFileError(f"Could not open {path.name}. {text}", path=path, row=row, column=column)


def more_problems(others: int) -> str:
    if others <= 0:
        return ""
    if others == 1:
        return " (There is 1 more problem like this in the file.)"
    return f" (There are {others:,} more problems like this in the file.)"


class RowProblems:
    """Row-level problems, gathered so one message can say how many rows need fixing."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.items: list[tuple[str, int | None, str | None]] = []
        self.count = 0

    def add(self, where: str, text: str, row: int | None = None, column: str | None = None) -> None:
        self.count += 1
        if len(self.items) < _MAX_PROBLEMS:
            self.items.append((f"{where}: {text}", row, column))

    def raise_if_any(self) -> None:
        if not self.count:
            return
        first, row, column = self.items[0]
        message = f"Could not open {self.path.name}. {first}{more_problems(self.count - 1)}"
        raise QueueFileError(
            message,
            path=self.path,
            row=row,
            column=column,
            problems=tuple(item[0] for item in self.items),
        )
