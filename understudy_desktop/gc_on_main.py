"""Python's cycle collector runs on the Qt thread only.

The collector runs in whichever thread happens to allocate when a threshold is crossed: the
agent endpoint's or the database writer's. A cycle it frees there can hold a Qt object (a
window's closure, a timer, a dialog), and a Qt object destroyed off its own thread corrupts
the Qt thread's state; the app then crashes later, far from the cause. So automatic
collection is off, and a timer on the Qt thread collects whenever the counts say it is due,
as the collector itself would have.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

from understudy_desktop.queue_io.gc_pause import collection_held

CHECK_MS = 500

_collector: QObject | None = None


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
