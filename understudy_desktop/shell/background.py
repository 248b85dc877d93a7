"""Run slow file work (parsing a 100,000-ticket queue) off the GUI thread.

The result comes back as a Qt signal, which Qt queues onto the GUI thread, so callers touch
widgets only from there. The window stays responsive meanwhile (the worker releases the GIL
every few milliseconds, and Qt paints in between).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal


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
            self._tell(self.failed, exc)
            return
        self._tell(self.succeeded, result)

    @staticmethod
    def _tell(signal: Any, value: object) -> None:
        # The job's owner may have been closed meanwhile (a preview the person stopped and
        # shut): Qt deleted the job with it, emitting raises, and nobody waits for the answer.
        with contextlib.suppress(RuntimeError):
            signal.emit(value)
