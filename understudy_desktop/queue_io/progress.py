"""How far a queue file's read has got, and the person's Stop, seen from the reading thread.

A read of 100,000 tickets takes seconds. Whoever starts it on a worker thread can watch it
(`watched`): the readers say every so many tickets how many they have read, and raise
`OpenStoppedError` there once the person pressed Stop, so the read ends between two tickets with
nothing kept. A read nobody watches (tests, the command line) pays one lookup per batch.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

from understudy_desktop.queue_io.errors import QueueFileError

# Tickets between two looks at the watch: often enough for Stop to act within a blink, rare
# enough to cost nothing next to reading them.
EVERY = 500


class OpenStoppedError(QueueFileError):
    """The person stopped the read; nothing of the file was kept."""

    def __init__(self) -> None:
        super().__init__("Opening the file was stopped. The queue you had is unchanged.")


@dataclass
class ReadWatch:
    """Shared by the reading thread (writes `tickets`) and the window (reads it, sets stop)."""

    stop: threading.Event = field(default_factory=threading.Event)
    tickets: int = 0  # read so far, in the read under way


_WATCH: ContextVar[ReadWatch | None] = ContextVar("understudy_queue_read_watch", default=None)


@contextlib.contextmanager
def watched(watch: ReadWatch) -> Iterator[ReadWatch]:
    """Reads on this thread inside the block report to `watch` and obey its stop."""
    token = _WATCH.set(watch)
    try:
        yield watch
    finally:
        _WATCH.reset(token)


def tickets_read(count: int) -> None:
    """The readers' report: `count` tickets read so far. Raises OpenStoppedError after a Stop."""
    watch = _WATCH.get()
    if watch is None:
        return
    watch.tickets = count
    if watch.stop.is_set():
        raise OpenStoppedError()
