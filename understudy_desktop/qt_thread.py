"""Running a function on the Qt (GUI) thread from any other thread.

The database writer, the agent endpoint and the consent flows live on different threads; Qt
objects may only be touched from the thread that owns them. `call_on_main` queues a call onto
the thread of the QApplication's main loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, Signal


class _Dispatcher(QObject):
    queued = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.queued.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @staticmethod
    def _run(call: Callable[[], None]) -> None:
        call()


_dispatcher: _Dispatcher | None = None


def _instance() -> _Dispatcher:
    global _dispatcher
    if _dispatcher is None:
        app = QCoreApplication.instance()
        if app is None:
            raise RuntimeError("call_on_main needs a running QApplication")
        _dispatcher = _Dispatcher()
        _dispatcher.moveToThread(app.thread())
    return _dispatcher


def init_main_thread_dispatch() -> None:
    """Create the dispatcher on the main thread (call once, from the main thread), and keep
    Python's cycle collector on this thread (gc_on_main.py says why)."""
    from understudy_desktop.gc_on_main import collect_on_main_thread

    _instance()
    collect_on_main_thread()


def on_main_thread() -> bool:
    app = QCoreApplication.instance()
    return app is not None and QThread.currentThread() is app.thread()


def call_on_main(fn: Callable[..., Any], *args: Any) -> None:
    """Run fn(*args) on the main thread: later if we are elsewhere, later too if we are on it
    (so callers never re-enter themselves)."""
    _instance().queued.emit(lambda: fn(*args))
