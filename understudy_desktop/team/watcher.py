"""Watching the team folder: QFileSystemWatcher for local and synced folders, a slow poll for
network file systems that never notify, and every scan on a worker thread (listing a network
share can take seconds, or hang while it reconnects; the window must not).

An idle watch costs a listing per poll: files are named by their content and never change, so
the reader keeps what it read and opens only new names."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal
from shiboken6 import isValid

from understudy_desktop.qt_thread import call_on_main
from understudy_desktop.team.folder import KINDS, FolderReader, FolderScan

log = logging.getLogger(__name__)
POLL_MS = int(os.environ.get("UNDERSTUDY_TEAM_POLL_MS", "10000"))
SETTLE_MS = 150  # a sync service writes in bursts: scan once it has settled
ARRIVING_RETRY_MS = 700


class TeamWatcher(QObject):
    scanned = Signal(object)  # FolderScan, on the Qt thread

    def __init__(
        self,
        parent: QObject | None = None,
        poll_ms: int = POLL_MS,
        clock: Callable[[], float] = time.time,
        first_seen: Callable[[], dict[str, float]] = dict,
    ) -> None:
        super().__init__(parent)
        self._folder: Path | None = None
        self._clock = clock
        self._first_seen = first_seen
        self._reader = FolderReader(clock)
        self._busy = False
        self._again = False
        self.last_scan: FolderScan | None = None
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self.scan_now)
        self._fs = QFileSystemWatcher(self)
        self._fs.directoryChanged.connect(lambda _path: self._settle.start(SETTLE_MS))
        self._poll = QTimer(self)
        self._poll.setInterval(poll_ms)
        self._poll.timeout.connect(self.scan_now)

    @property
    def folder(self) -> Path | None:
        return self._folder

    def set_poll_ms(self, ms: int) -> None:
        self._poll.setInterval(ms)

    def watch(self, folder: Path | None) -> None:
        """Watch `folder` (None: stop watching). Scans at once."""
        if self._fs.directories():
            self._fs.removePaths(self._fs.directories())
        self._folder = folder
        self._reader = FolderReader(self._clock, self._first_seen())
        if folder is None:
            self._poll.stop()
            return
        self._poll.start()
        self.scan_now()

    def scan_now(self) -> None:
        if self._folder is None:
            return
        if self._busy:
            self._again = True
            return
        self._busy = True
        folder, reader = self._folder, self._reader

        def work() -> None:
            try:
                scan = reader.scan(folder)
            except Exception as exc:  # an odd file system must not end the watch
                log.warning("the team folder could not be read: %s", exc)
                scan = FolderScan(folder, reachable=False)
            call_on_main(self._done, scan)

        threading.Thread(target=work, name="understudy-team-scan", daemon=True).start()

    def _done(self, scan: FolderScan) -> None:
        self._busy = False
        if not isValid(self) or scan.folder != self._folder:
            # The window (and this watcher with it) closed while the scan ran, or the person
            # chose another folder meanwhile.
            return
        self.last_scan = scan
        self._rewatch(scan)
        self.scanned.emit(scan)
        if self._again:
            self._again = False
            self.scan_now()
        elif scan.arriving:
            # A file is still being copied in: look again soon, not at the next slow poll.
            self._settle.start(ARRIVING_RETRY_MS)

    def _rewatch(self, scan: FolderScan) -> None:
        """Watch the folder and its kinds' subfolders that exist now (a folder that came back,
        or a subfolder made by the first share, needs watching anew)."""
        if self._folder is None:
            return
        wanted = [self._folder, *(self._folder / k for k in KINDS)] if scan.reachable else []
        have = set(self._fs.directories())
        missing = [
            str(p) for p in wanted if str(p) not in have and p.is_dir() and not p.is_symlink()
        ]
        if missing:
            self._fs.addPaths(missing)
