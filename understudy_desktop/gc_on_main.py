"""Python's cycle collector runs on the Qt thread only.

The collector runs in whichever thread happens to allocate when a threshold is crossed: the
agent endpoint's or the database writer's. A cycle it frees there can hold a Qt object (a
window's closure, a timer, a dialog), and a Qt object destroyed off its own thread corrupts
the Qt thread's state; the app then crashes later, far from the cause. So automatic
collection is off, and a timer on the Qt thread collects whenever the counts say it is due,
as the collector itself would have.

Start-up holds the collector from its first line (cli.py): importing the app and
the MCP SDK builds a few hundred thousand objects that all live for the session, and each
automatic pass over them found nothing to free while adding ~50 ms to every start. Once the
app is up and idle (`set_start_apart`), one pass frees what start-up left behind and the rest
is set apart for good, so the later passes the timer makes never walk it again.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

from understudy_desktop.queue_io.gc_pause import collection_held

CHECK_MS = 500
SET_APART_AFTER_MS = 2000  # after the first tools are listed: an agent's first calls come first

_collector: QObject | None = None
_set_apart = False


class _Collector(QTimer):
    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.setInterval(CHECK_MS)
        self.timeout.connect(self.collect_if_due)

    @staticmethod
    def collect_if_due() -> None:
        if collection_held():
            return  # a queue is being read; what it built is set apart when it is done
        thresholds = gc.get_threshold()
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > thresholds[generation]:
                gc.collect(generation)
                return


def collect_on_main_thread() -> None:
    """Call once, on the Qt thread, with a QCoreApplication running."""
    global _collector
    app = QCoreApplication.instance()
    if app is None or _collector is not None:
        return
    gc.disable()
    collector = _Collector(app)
    collector.start()
    _collector = collector


def set_start_apart() -> None:
    """Once the app is up: a little later, on the Qt thread, free what start-up left and set
    the rest apart from the collector's later passes (idempotent)."""
    global _set_apart
    app = QCoreApplication.instance()
    if app is None or _set_apart:
        return
    _set_apart = True

    def settle() -> None:
        if collection_held():
            QTimer.singleShot(SET_APART_AFTER_MS, settle)  # a queue is being read: later
            return
        gc.collect()
        gc.freeze()

    QTimer.singleShot(SET_APART_AFTER_MS, app, settle)
