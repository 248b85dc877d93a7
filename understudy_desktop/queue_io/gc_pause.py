"""Holding the cycle collector while a queue's many objects are built."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_held = 0  # reads under way that hold the collector (any thread)
_lock = threading.Lock()


def collection_held() -> bool:
    """Whether a big read is under way: the app's own collector (gc_on_main.py) waits, or it
    would walk the read's millions of young objects on the window's thread, mid-read."""
    return _held > 0


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Hold the cycle collector while building many objects.

    Every 100k-ticket load allocates millions of objects that are all kept, so each collection
    rescans everything and finds nothing; pausing it halves the load time.
    """
    global _held
    was_enabled = gc.isenabled()
    gc.disable()
    with _lock:
        _held += 1
    try:
        yield
    finally:
        with _lock:
            _held -= 1
        # What was built is kept (a queue lives for the session): set apart from what the
        # collector walks, or its next full pass walks millions of tickets in one go, holding
        # the interpreter, and the window stops answering for as long (0.3 s at 100,000 here).
        # Refcounting still frees them when the queue is replaced.
        gc.freeze()
        if was_enabled:
            gc.enable()
