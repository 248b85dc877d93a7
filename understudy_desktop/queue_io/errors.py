"""The one error type queue files raise, worded for support staff rather than programmers."""

from __future__ import annotations

from pathlib import Path

# Cells can hold whole e-mail threads; an error dialog that echoes one is unreadable.
MAX_ECHO_CHARS = 40


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
