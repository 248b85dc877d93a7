"""The window a long open shows: what is being read, how many tickets so far, and Stop.

It appears only if the open takes more than a moment, never blocks the console (the queue
already open stays usable), and Stop (or Esc) ends the read between two tickets with nothing
kept. Once the file is read, the part that cannot be stopped halfway (saving it and showing
it) is said without the button.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QProgressDialog, QWidget

from understudy_desktop.queue_io.progress import ReadWatch
from understudy_desktop.shell.screen_fit import fit_to_screen

SHOW_AFTER_MS = 400  # a quick open never flashes a window


class OpenProgress(QProgressDialog):
    def __init__(self, name: str, watch: ReadWatch, parent: QWidget | None = None) -> None:
        super().__init__(f"Reading {name}…", "Stop", 0, 0, parent)
        self._name = name
        self._watch = watch
        self.setWindowTitle("Opening a queue")
        self.setWindowModality(Qt.WindowModality.NonModal)
        self.setMinimumDuration(SHOW_AFTER_MS)
        self.setAutoClose(False)
        self.setAutoReset(False)
        self._over = False  # finished: closing it then is not a Stop
        self.canceled.connect(self._stop)
        self.rejected.connect(self._stop)  # Esc
        self._timer = QTimer(self)
        self._timer.setInterval(150)
        self._timer.timeout.connect(self._tell)
        self._timer.start()
        self.setValue(0)  # starts the minimum-duration clock
        fit_to_screen(self, 420, 130)

    def _tell(self) -> None:
        if self._watch.stop.is_set():
            return
        read = self._watch.tickets
        if read:
            self.setLabelText(f"Reading {self._name}… {read:,} tickets so far")

    def _stop(self) -> None:
        if self._over:
            return
        self._watch.stop.set()
        self.setLabelText("Stopping…")

    def saving(self, count: int) -> None:
        """The file is read: now saved and shown, which is not stopped halfway."""
        self._timer.stop()
        self.setCancelButton(None)
        self.setLabelText(f"Saving and showing {count:,} tickets…")

    def finish(self) -> None:
        self._over = True
        self._timer.stop()
        self.close()
        self.deleteLater()
