"""Python's line to the console page: a readiness handshake, then asynchronous calls.

The page exposes `window.understudyShell` with `isReady()`, `start(id, method, args)` and
`take(id)`. Python never calls a console method before `isReady()` answered true for the
current document; after a reload or navigation it waits again. Results come back by polling
`take(id)`, because runJavaScript cannot await a promise. (The QWebChannel bridge of a later
release can replace the polling without changing this class's interface.)
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from understudy_desktop.web.js import js_call
from understudy_desktop.web.page import ConsolePage

log = logging.getLogger(__name__)

ResultCallback = Callable[["CallResult"], None]
POLL_MS = 15
READY_POLL_MS = 25


@dataclass
class CallResult:
    ok: bool
    value: Any = None
    error: str = ""


@dataclass
class _Pending:
    method: str
    args: list[Any]
    callback: ResultCallback
    deadline: float
    started: bool = False
    call_id: str = ""


class ConsoleLink(QObject):
    ready_changed = Signal(bool)

    def __init__(self, page: ConsolePage, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._page = page
        self._ready = False
        self._seq = 0
        self._queue: list[_Pending] = []
        self._running: dict[str, _Pending] = {}
        self._ready_timer = QTimer(self)
        self._ready_timer.setInterval(READY_POLL_MS)
        self._ready_timer.timeout.connect(self._probe_ready)
        self._poll_timer = QTimer(self)
        self._poll_timer.setInterval(POLL_MS)
        self._poll_timer.timeout.connect(self._poll)
        page.loadStarted.connect(self._on_load_started)
        page.loadFinished.connect(self._on_load_finished)

    @property
    def ready(self) -> bool:
        return self._ready

    def call(
        self, method: str, args: list[Any], callback: ResultCallback, timeout_s: float = 30.0
    ) -> None:
        """Run console method `method` once the page is ready; `callback` gets the result."""
        pending = _Pending(method, args, callback, time.monotonic() + timeout_s)
        if self._ready:
            self._start(pending)
        else:
            self._queue.append(pending)

    def _on_load_started(self) -> None:
        if self._ready:
            self._ready = False
            self.ready_changed.emit(False)
        # Calls in flight belonged to the old document: they will never answer.
        for pending in list(self._running.values()):
            pending.callback(CallResult(False, error="the console reloaded during the call"))
        self._running.clear()
        self._poll_timer.stop()

    def _on_load_finished(self, ok: bool) -> None:
        if ok:
            self._ready_timer.start()

    def _probe_ready(self) -> None:
        script = "Boolean(window.understudyShell && window.understudyShell.isReady())"
        self._page.runJavaScript(script, 0, self._on_ready_answer)

    def _on_ready_answer(self, answer: object) -> None:
        if answer is not True or self._ready:
            return
        self._ready_timer.stop()
        self._ready = True
        self.ready_changed.emit(True)
        queued, self._queue = self._queue, []
        for pending in queued:
            self._start(pending)

    def _start(self, pending: _Pending) -> None:
        self._seq += 1
        pending.call_id = f"c{self._seq}"
        pending.started = True
        self._running[pending.call_id] = pending
        self._page.runJavaScript(
            js_call("window.understudyShell.start", pending.call_id, pending.method, pending.args),
            0,
        )
        if not self._poll_timer.isActive():
            self._poll_timer.start()

    def _poll(self) -> None:
        now = time.monotonic()
        for call_id, pending in list(self._running.items()):
            if now > pending.deadline:
                del self._running[call_id]
                pending.callback(CallResult(False, error=f"{pending.method} took too long"))
                continue
            self._page.runJavaScript(
                js_call("window.understudyShell.take", call_id),
                0,
                lambda answer, cid=call_id: self._on_take(cid, answer),
            )
        if not self._running:
            self._poll_timer.stop()

    def _on_take(self, call_id: str, answer: object) -> None:
        # Still running: the page answers "" (PySide6 may also turn a JS null into "").
        if not isinstance(answer, str) or not answer:
            return
        pending = self._running.pop(call_id, None)
        if pending is None:
            return
        try:
            payload = json.loads(answer)
        except json.JSONDecodeError:
            log.warning("unreadable answer from the console: %r", answer[:200])
            pending.callback(CallResult(False, error="the console sent an unreadable answer"))
            return
        if payload.get("ok"):
            pending.callback(CallResult(True, value=payload.get("value")))
        else:
            pending.callback(CallResult(False, error=str(payload.get("error", "unknown error"))))
