"""Files the system hands the running app: on macOS a Finder double-click on a queue or a
pack arrives as a file-open event, not as an argument. Each is opened as a file dropped on
the window is (a pack's preview asks first); those that arrive before the console is ready
wait for it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtWidgets import QApplication

from understudy_desktop.shell.main_window import MainWindow


class FileOpenEvents(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        self._waiting: list[Path] = []
        window.port.ready_changed.connect(self._ready)

    def handle(self, event: QFileOpenEvent) -> bool:
        if not event.file():
            return False
        self.open(Path(event.file()))
        return True

    def open(self, path: Path) -> None:
        if self._window.port.ready:
            self._window.open_file(path)
        else:
            self._waiting.append(path)

    def _ready(self, ready: bool) -> None:
        if not ready:
            return
        waiting, self._waiting = self._waiting, []
        for path in waiting:
            self._window.open_file(path)


class UnderstudyApplication(QApplication):
    """The app's QApplication: the system sends file-open events to it, and only to it (an
    event filter on the whole application would see every event of every object)."""

    opener: FileOpenEvents | None = None

    def event(self, event: QEvent) -> bool:
        opener = self.opener
        is_file = event.type() == QEvent.Type.FileOpen and isinstance(event, QFileOpenEvent)
        if is_file and opener is not None and opener.handle(event):  # type: ignore[arg-type]
            return True
        return super().event(event)
