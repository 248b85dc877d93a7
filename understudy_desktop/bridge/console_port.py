"""The shell's one handle on the console page: a method per protocol request, a signal per
push. Nothing else in the shell names a page operation. Requests wait until the page says its
console is ready (its stored queue is loaded); answers are parsed into their models, since
whatever the page sends is untrusted."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from PySide6.QtCore import QObject, Signal

from understudy_desktop.bridge.page_bridge import BridgeResult, PageBridge
from understudy_desktop.bridge.protocol import (
    Ask,
    DraftAnswer,
    Op,
    RecordingDeleted,
    RecordingSaved,
    RunAnswer,
    Summary,
    ViewChanged,
    parse_answer,
)


@dataclass
class CallResult:
    ok: bool
    value: Any = None
    error: str = ""
    error_name: str = ""


ResultCallback = Callable[[CallResult], None]


class ConsolePort(QObject):
    ready_changed = Signal(bool)
    recording_saved = Signal(object)  # protocol.Recording
    recording_deleted = Signal(str)
    view_changed = Signal(dict)
    asked = Signal(str, object)  # ask id, PublishAsk | LibraryAsk | CallAsk

    def __init__(self, bridge: PageBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self._queue: list[tuple[Op, dict[str, Any], ResultCallback | None, float]] = []
        bridge.console_ready_changed.connect(self._on_console_ready)
        bridge.pushed.connect(self._on_push)

    @property
    def ready(self) -> bool:
        return self.bridge.console_ready

    # --- requests ---------------------------------------------------------------------------
    def run(
        self,
        payload: dict[str, Any],
        answer: Callable[[RunAnswer | CallResult], None],
        timeout_s: float,
    ) -> str:
        """Run approved steps in the page (payload: tool, steps, inputSchema, input, by).
        Returns the call id (cancel it with cancel()). Sent at once: the run queue only runs
        when the console is ready."""

        def done(result: BridgeResult) -> None:
            if not result.ok:
                answer(CallResult(False, error=result.error_message, error_name=result.error_name))
                return
            parsed = parse_answer(RunAnswer, result.value)
            answer(parsed if parsed is not None else CallResult(False, error="bad answer"))

        return self.bridge.request(Op.RUN, payload, done, timeout_s)

    def cancel(self, call_id: str, reason: str = "cancelled") -> None:
        self.bridge.cancel(call_id, reason)

    def draft(
        self,
        recording: dict[str, Any],
        pair_with: dict[str, Any] | None,
        meta: dict[str, Any],
        answer: Callable[[DraftAnswer | None], None],
    ) -> None:
        payload = {"recording": recording, "pairWith": pair_with, "meta": meta}
        self._call(Op.DRAFT, payload, lambda r: answer(_typed(DraftAnswer, r)))

    def trial(
        self,
        payload: dict[str, Any],
        answer: Callable[[RunAnswer | CallResult], None],
        timeout_s: float = 30.0,
    ) -> None:
        """Run steps (as for run()) on a copy of the queue, for the approval dialog's "if it
        ran now": the queue itself, the saved copy and the undo history stay as they are."""

        def done(result: CallResult) -> None:
            parsed = parse_answer(RunAnswer, result.value) if result.ok else None
            answer(parsed if parsed is not None else result)

        self._call(Op.TRIAL, payload, done, timeout_s=timeout_s)

    def show_library(self, view: dict[str, Any]) -> None:
        """The library as the page shows it and mirrors it into WebMCP (no answer)."""
        self._call(Op.LIBRARY, view, None)

    def reply(self, ask_id: str, value: dict[str, Any]) -> None:
        # Not held for console-ready: the console asks while it boots and waits for this.
        self.bridge.request(Op.REPLY, {"to": ask_id, "value": value}, None)

    def saved(self, revision: int | None, error: str = "", generation: str | None = None) -> None:
        """A run's changes, or a whole queue (`generation`), are in the database (or, with
        `error`, could not be saved)."""
        payload = {"revision": revision, "error": error, "generation": generation}
        self._call(Op.SAVED, payload, None)

    def show(self, what: str) -> None:
        """Open the library, the recordings or the list of shortcuts (a menu was used)."""
        self._call(Op.SHOW, {"what": what}, None)

    def undo(self) -> None:
        self._call(Op.UNDO, {}, None)

    def redo(self) -> None:
        self._call(Op.REDO, {}, None)

    def summary(self, answer: Callable[[Summary | None], None]) -> None:
        self._call(Op.SUMMARY, {}, lambda r: answer(_typed(Summary, r)))

    def export_queue(self, answer: ResultCallback) -> None:
        self._call(Op.EXPORT_QUEUE, {}, answer, timeout_s=120)

    def load_queue(
        self,
        url: str,
        generation: str | None,
        revision: int | None,
        answer: ResultCallback,
        notice: str = "",
    ) -> None:
        payload = {"url": url, "generation": generation, "revision": revision, "notice": notice}
        self._call(Op.LOAD_QUEUE, payload, answer, timeout_s=120)

    def flush(self, answer: ResultCallback) -> None:
        self._call(Op.FLUSH, {}, answer)

    # --- plumbing -------------------------------------------------------------------------
    def _call(
        self,
        op: Op,
        payload: dict[str, Any],
        answer: ResultCallback | None,
        timeout_s: float = 30.0,
    ) -> None:
        if not self.ready:
            self._queue.append((op, payload, answer, timeout_s))
            return
        self._send(op, payload, answer, timeout_s)

    def _send(
        self, op: Op, payload: dict[str, Any], answer: ResultCallback | None, timeout_s: float
    ) -> None:
        callback = None
        if answer is not None:
            callback = _wrap(answer)
        self.bridge.request(op, payload, callback, timeout_s)

    def _on_console_ready(self, ready: bool) -> None:
        self.ready_changed.emit(ready)
        if ready:
            queued, self._queue = self._queue, []
            for item in queued:
                self._send(*item)

    def _on_push(self, push: object) -> None:
        if isinstance(push, RecordingSaved):
            self.recording_saved.emit(push.recording)
        elif isinstance(push, RecordingDeleted):
            self.recording_deleted.emit(push.id)
        elif isinstance(push, ViewChanged):
            self.view_changed.emit(dict(push.view))
        elif isinstance(push, Ask):
            self.asked.emit(push.ask, push.body)


def _wrap(answer: ResultCallback) -> Callable[[BridgeResult], None]:
    def done(result: BridgeResult) -> None:
        if result.ok:
            answer(CallResult(True, value=result.value))
        else:
            answer(
                CallResult(
                    False,
                    error=result.error_message or result.error_name,
                    error_name=result.error_name,
                )
            )

    return done


def _typed(model: type[BaseModel], result: CallResult) -> Any:
    return parse_answer(model, result.value) if result.ok else None
