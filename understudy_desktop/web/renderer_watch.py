"""The console's renderer stopped (it crashed, ran out of memory or was killed): start the
console again from the saved queue, and say so in plain words.

The bridge fails the calls that were in flight when the renderer went (page_bridge.py); every
change the shell had answered is in the database, and the console shows the database's copy
when it starts. A renderer that keeps dying is not restarted for ever: after RESTARTS_MAX
within RESTART_WINDOW_S the person is asked to restart Understudy instead.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWebEngineCore import QWebEnginePage

log = logging.getLogger(__name__)

RESTART_AFTER_MS = 300
RESTARTS_MAX = 3
RESTART_WINDOW_S = 60.0

RESTARTED = "The console stopped unexpectedly and was started again. Nothing saved was lost."
GIVEN_UP = "The console keeps stopping. Your changes are saved: close Understudy and open it again."


class RendererWatch(QObject):
    def __init__(
        self,
        page: QWebEnginePage,
        restart: Callable[[], None],
        say: Callable[[str], None],
    ) -> None:
        super().__init__(page)
        self._restart = restart
        self._say = say
        self._restarts: list[float] = []
        page.renderProcessTerminated.connect(self._terminated)

    def _terminated(self, status: QWebEnginePage.RenderProcessTerminationStatus, code: int) -> None:
        if status == QWebEnginePage.RenderProcessTerminationStatus.NormalTerminationStatus:
            return  # the app is closing
        log.warning("the console's renderer stopped (%s, exit code %s)", status.name, code)
        now = time.monotonic()
        self._restarts = [t for t in self._restarts if now - t < RESTART_WINDOW_S]
        if len(self._restarts) >= RESTARTS_MAX:
            self._say(GIVEN_UP)
            return
        self._restarts.append(now)
        QTimer.singleShot(RESTART_AFTER_MS, self, self._again)

    def _again(self) -> None:
        self._restart()
        self._say(RESTARTED)
