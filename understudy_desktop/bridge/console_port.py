"""The shell's one handle on the console page: a method per protocol request, a signal per
push. Nothing else in the shell names a page operation. Requests wait until the page says its
console is ready (its stored queue is loaded); answers are parsed into their models, since
whatever the page sends is untrusted. Nothing the page answers is taken as what happened to
the queue: the shell's model applies every change and tells the page (feed)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from PySide6.QtCore import QObject, Signal

from understudy_desktop.bridge.page_bridge import BridgeResult, PageBridge
from understudy_desktop.bridge.protocol import Ask, DraftAnswer, Op, Summary, parse_answer


@dataclass
class CallResult:
    ok: bool
    value: Any = None
    error: str = ""
    error_name: str = ""


ResultCallback = Callable[[CallResult], None]
MAX_HELD = 10_000  # requests held for a console that is not ready yet


class ConsolePort(QObject):
    ready_changed = Signal(bool)
    asked = Signal(str, object)  # ask id, one of protocol.AskBody

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
    def feed(self, batch: dict[str, Any]) -> None:
        """What commits changed ({"entries": [...]}, in commit order), for the page to draw.
        Held while the console starts; it skips what its starting queue already holds, and
        asks for the saved copy when it sees a revision missing (resync)."""
        self._call(Op.FEED, batch, None)

    def teaching(self, state: dict[str, Any]) -> None:
        """Teaching started or stopped (the page shows the red edge and the step count)."""
        self._call(Op.TEACHING, state, None)

    def draft(
        self,
        recording: dict[str, Any],
        pair_with: dict[str, Any] | None,
        meta: dict[str, Any],
        answer: Callable[[DraftAnswer | None], None],
    ) -> None:
        payload = {"recording": recording, "pairWith": pair_with, "meta": meta}
        self._call(Op.DRAFT, payload, lambda r: answer(_typed(DraftAnswer, r)))

    def show_library(self, view: dict[str, Any]) -> None:
        """The library as the page shows it and mirrors it into WebMCP (no answer)."""
        self._call(Op.LIBRARY, view, None)

    def storage_ok(self) -> None:
        """Saving works again (after "Not saved: the disk is full"): the footer says so."""
        self._call(Op.STORAGE_OK, {}, None)

    def helpdesk(self, standing: dict[str, Any]) -> None:
        """The connected helpdesk's name and, per ticket with changes not yet in it, where
        they stand in words ({"title", "inWords", "tickets": {id: {"state", "words"}}})."""
        self._call(Op.HELPDESK, standing, None)

    def reply(self, ask_id: str, value: dict[str, Any]) -> None:
        # Not held for console-ready: the console asks while it boots and waits for this.
        self.bridge.request(Op.REPLY, {"to": ask_id, "value": value}, None)

    def saved(self, revision: int | None, error: str = "", generation: str | None = None) -> None:
        """A whole queue (`generation`) is in the database (or, with `error`, could not be
        saved)."""
        payload = {"revision": revision, "error": error, "generation": generation}
        self._call(Op.SAVED, payload, None)

    def show(self, what: str) -> None:
        """Open the library, the recordings or the list of shortcuts (a menu was used)."""
        self._call(Op.SHOW, {"what": what}, None)

    def summary(self, answer: Callable[[Summary | None], None]) -> None:
        self._call(Op.SUMMARY, {}, lambda r: answer(_typed(Summary, r)))

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
            # A console that never comes back must not hold every change in memory; the one
            # that does comes back reads the saved queue and resyncs on the first gap.
            del self._queue[:-MAX_HELD]
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
        if isinstance(push, Ask):
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
