"""Run slow file work (parsing a 100,000-ticket queue) off the GUI thread.

The result comes back as a Qt signal, which Qt queues onto the GUI thread, so callers touch
widgets only from there. The window stays responsive meanwhile (the worker releases the GIL
every few milliseconds, and Qt paints in between).
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import QObject, Signal


@contextlib.contextmanager
def garbage_collection_paused() -> Iterator[None]:
    """For building hundreds of thousands of objects at once (a big queue): Python's cycle
    collector would otherwise walk the whole growing heap again and again (a third of the time
    of reading 100,000 tickets, two thirds of preparing them). Nothing built here is cyclic
    garbage; collection resumes, and catches up, as soon as the work is done."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class BackgroundJob(QObject):
    succeeded = Signal(object)
    failed = Signal(object)

    def __init__(self, work: Callable[[], Any], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._work = work
        self._thread = threading.Thread(target=self._run, name="understudy-background", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        try:
            result = self._work()
        except Exception as exc:  # handed to the GUI thread, which decides what to show
            self.failed.emit(exc)
            return
        self.succeeded.emit(result)
