"""The shell's one handle on the console page: a method per protocol request, a signal per
push. Nothing else in the shell names a page operation. Every request is one of to_page.py's
models (built by the caller, or here from typed arguments), never a dict. Requests wait until
the page says its console is ready (its stored queue is loaded); answers are parsed into their
models, since whatever the page sends is untrusted. Nothing the page answers is taken as what
happened to the queue: the shell's model applies every change and tells the page (feed)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel
from PySide6.QtCore import QObject, Signal

from understudy_desktop.bridge.page_bridge import BridgeResult, PageBridge
from understudy_desktop.bridge.page_pace import TOO_FAST
from understudy_desktop.bridge.protocol import Ask, Summary, parse_answer
from understudy_desktop.bridge.to_page import (
    FeedRequest,
    FlushRequest,
    HelpdeskRequest,
    LibraryRequest,
    LoadQueueRequest,
    ReplyRequest,
    ReplyValue,
    SavedRequest,
    ShellRequest,
    ShowRequest,
    StorageOkRequest,
    SummaryRequest,
    TeachingRequest,
    TeachingState,
    refused,
)
from understudy_desktop.error_codes import ErrorCode


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
        self._queue: list[tuple[ShellRequest, ResultCallback | None, float]] = []
        bridge.console_ready_changed.connect(self._on_console_ready)
        bridge.pushed.connect(self._on_push)
        bridge.too_fast.connect(
            lambda ask_id: self.reply(ask_id, refused(ErrorCode.BUSY, TOO_FAST))
        )

    @property
    def ready(self) -> bool:
        return self.bridge.console_ready

    # --- requests ---------------------------------------------------------------------------
    def feed(self, batch: FeedRequest) -> None:
        """What commits changed (in commit order), for the page to draw. Held while the console
        starts; it skips what its starting queue already holds, and asks for the saved copy
        when it sees a revision missing (resync)."""
        self._call(batch, None)

    def teaching(self, state: TeachingState) -> None:
        """Teaching started or stopped (the page shows the red edge and the step count)."""
        self._call(TeachingRequest(**state.model_dump()), None)

    def show_library(self, view: LibraryRequest) -> None:
        """The library as the page shows it and mirrors it into WebMCP (no answer)."""
        self._call(view, None)

    def storage_ok(self) -> None:
        """Saving works again (after "Not saved: the disk is full"): the footer says so."""
        self._call(StorageOkRequest(), None)

    def helpdesk(self, standing: HelpdeskRequest) -> None:
        """The connected helpdesk's name and, per ticket with changes not yet in it, where
        they stand in words."""
        self._call(standing, None)

    def reply(self, ask_id: str, value: ReplyValue) -> None:
        # Not held for console-ready: the console asks while it boots and waits for this.
        self.bridge.request(ReplyRequest(to=ask_id, value=value), None)

    def saved(self, revision: int | None, error: str = "", generation: str | None = None) -> None:
        """A whole queue (`generation`) is in the database (or, with `error`, could not be
        saved)."""
        self._call(SavedRequest(revision=revision, error=error, generation=generation), None)

    def show(self, what: Literal["library", "recordings", "shortcuts"]) -> None:
        """Open the library, the recordings or the list of shortcuts (a menu was used)."""
        self._call(ShowRequest(what=what), None)

    def summary(self, answer: Callable[[Summary | None], None]) -> None:
        self._call(SummaryRequest(), lambda r: answer(_typed(Summary, r)))

    def load_queue(
        self,
        url: str,
        generation: str | None,
        revision: int | None,
        answer: ResultCallback,
        notice: str = "",
    ) -> None:
        request = LoadQueueRequest(url=url, generation=generation, revision=revision, notice=notice)
        self._call(request, answer, timeout_s=120)

    def flush(self, answer: ResultCallback) -> None:
        self._call(FlushRequest(), answer)

    # --- plumbing -------------------------------------------------------------------------
    def _call(
        self, request: ShellRequest, answer: ResultCallback | None, timeout_s: float = 30.0
    ) -> None:
        if not self.ready:
            self._queue.append((request, answer, timeout_s))
            # A console that never comes back must not hold every change in memory; the one
            # that does comes back reads the saved queue and resyncs on the first gap.
            del self._queue[:-MAX_HELD]
            return
        self._send(request, answer, timeout_s)

    def _send(self, request: ShellRequest, answer: ResultCallback | None, timeout_s: float) -> None:
        callback = None
        if answer is not None:
            callback = _wrap(answer)
        self.bridge.request(request, callback, timeout_s)

    def _on_console_ready(self, ready: bool) -> None:
        self.ready_changed.emit(ready)
        if ready:
            queued, self._queue = self._queue, []
            for item in queued:
                self._send(*item)

    def _too_fast(self, ask_id: str) -> None:
        self.reply(ask_id, refused(ErrorCode.BUSY, TOO_FAST))

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
