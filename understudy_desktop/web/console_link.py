"""The shell's calls into the console page's own API (open a queue, export it, a summary).

A thin layer over the bridge: it waits for the console to say it is ready (its IndexedDB is
loaded), then runs `window.understudyShell.api.<method>` through the bridge's relay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from understudy_desktop.bridge.page_bridge import BridgeResult, PageBridge

ResultCallback = Callable[["CallResult"], None]


@dataclass
class CallResult:
    ok: bool
    value: Any = None
    error: str = ""


class ConsoleLink(QObject):
    ready_changed = Signal(bool)

    def __init__(self, bridge: PageBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._queue: list[tuple[str, list[Any], ResultCallback, float]] = []
        bridge.console_ready_changed.connect(self._on_console_ready)

    @property
    def ready(self) -> bool:
        return self._bridge.console_ready

    def call(
        self, method: str, args: list[Any], callback: ResultCallback, timeout_s: float = 30.0
    ) -> None:
        """Run console method `method` once the page is ready; `callback` gets the result."""
        if not self.ready:
            self._queue.append((method, args, callback, timeout_s))
            return
        self._start(method, args, callback, timeout_s)

    def _start(
        self, method: str, args: list[Any], callback: ResultCallback, timeout_s: float
    ) -> None:
        def done(result: BridgeResult) -> None:
            if result.ok:
                callback(CallResult(True, value=result.value))
            else:
                callback(CallResult(False, error=result.error_message or result.error_name))

        self._bridge.request("shell", {"method": method, "args": args}, done, timeout_s)

    def _on_console_ready(self, ready: bool) -> None:
        self.ready_changed.emit(ready)
        if ready:
            queued, self._queue = self._queue, []
            for item in queued:
                self._start(*item)
