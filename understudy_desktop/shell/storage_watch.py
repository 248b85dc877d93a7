"""After a change could not be saved (a full disk, a folder gone read-only), try a small
write every few seconds; once one works, saving works again: the footer says so, without
the person having to change something to find out."""

from __future__ import annotations

import logging
import sqlite3
import time

from PySide6.QtCore import QObject, QTimer, Signal

from understudy_desktop.bridge.console_port import ConsolePort
from understudy_desktop.model.service import ConsoleModel
from understudy_desktop.qt_thread import call_on_main
from understudy_desktop.store.database import Database

log = logging.getLogger(__name__)

PROBE_EVERY_MS = 3000
RECOVERED = "Saving works again."


def probe(conn: sqlite3.Connection) -> None:
    """A write as big as a small change (a page of the log and its sync), kept nowhere."""
    conn.execute(
        "INSERT OR REPLACE INTO settings (key, value) VALUES ('storage_probe', ?)",
        (f'"{time.time():.3f}{" " * 2048}"',),
    )
    conn.execute("DELETE FROM settings WHERE key = 'storage_probe'")


class StorageWatch(QObject):
    recovered = Signal(str)

    def __init__(
        self, db: Database, model: ConsoleModel, port: ConsolePort, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._db = db
        self._port = port
        self._timer = QTimer(self)
        self._timer.setInterval(PROBE_EVERY_MS)
        self._timer.timeout.connect(self._try)
        self._trying = False
        model.not_saved.connect(self._failed)

    @property
    def watching(self) -> bool:
        return self._timer.isActive()

    def _failed(self, _why: str) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def _try(self) -> None:
        if self._trying:
            return
        self._trying = True
        future = self._db.submit(probe)

        def settled(_f: object) -> None:
            call_on_main(self._settled, future.exception() is None)

        future.add_done_callback(settled)

    def _settled(self, ok: bool) -> None:
        self._trying = False
        if not ok or not self._timer.isActive():
            return
        self._timer.stop()
        log.info("saving works again")
        self._port.storage_ok()
        self.recovered.emit(RECOVERED)
