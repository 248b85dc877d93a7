"""The transport between the shell and the console page: QWebChannel in an isolated world.

The page answers through one JSON-in slot. Every message is parsed against the protocol
(bridge/protocol.py); anything else is dropped with a log line. What goes to the page is one
of to_page.py's models, made JSON here. Python never sends a request
before the current document said hello, and every document starts over: a new document's
hello (a reload) or a dead renderer fails calls that were in flight; a navigation the page
refuses changes nothing. This module only carries messages; what they may
do is decided by their receivers (console_port.py and the shell's services).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import QWebEnginePage

from understudy_desktop.bridge.page_pace import PagePace
from understudy_desktop.bridge.protocol import Ask, ConsoleReady, Hello, PageTools, parse_push
from understudy_desktop.bridge.to_page import CancelRequest, ShellRequest, wire_text
from understudy_desktop.web.scripts import BRIDGE_WORLD, bridge_scripts, install

log = logging.getLogger(__name__)

KINDS = frozenset({"push", "response"})


@dataclass
class BridgeResult:
    ok: bool
    value: Any = None
    error_name: str = ""
    error_message: str = ""


ResultCallback = Callable[[BridgeResult], None]


@dataclass
class _Call:
    callback: ResultCallback
    timer: QTimer


class _ChannelObject(QObject):
    """The only object on the channel. Page -> Python: call(); Python -> page: toPage."""

    toPage = Signal(str)  # noqa: N815 (the name JavaScript sees)

    def __init__(self, receive: Callable[[str], bool]) -> None:
        super().__init__()
        self._receive = receive

    @Slot(str, result=str)
    def call(self, message: str) -> str:
        return json.dumps({"accepted": self._receive(message)})


class PageBridge(QObject):
    ready_changed = Signal(bool)
    console_ready_changed = Signal(bool)
    pushed = Signal(object)  # a parsed push other than hello / console-ready / tools
    too_fast = Signal(str)  # an ask (its id) past the page's pace, not carried out
    page_tools_changed = Signal()

    def __init__(self, page: QWebEnginePage, with_shim: bool = True) -> None:
        super().__init__(page)
        self._page = page
        self._object = _ChannelObject(self._receive)
        self._channel = QWebChannel(self)
        self._channel.registerObject("understudyBridge", self._object)
        page.setWebChannel(self._channel, BRIDGE_WORLD)
        install(page.scripts(), bridge_scripts(with_shim))
        self._ready = False
        self._console_ready = False
        self._webmcp = "degraded"
        self._page_tools: list[dict[str, Any]] = []
        self._page_tools_total = 0
        self._calls: dict[str, _Call] = {}
        self._queued: list[tuple[str, ShellRequest, ResultCallback | None, float]] = []
        self._seq = 0
        self.pace: PagePace[Ask] = PagePace()
        self._told_too_fast = 0
        self._pace_timer = QTimer(self)
        self._pace_timer.setSingleShot(True)
        self._pace_timer.timeout.connect(self._let_through)
        # Not on loadStarted: a navigation the page refuses (a script's location.href, a
        # link in a ticket) starts a load that never commits, and the document, with its
        # bridge, stays. A new document says hello (only the relay of a document's own
        # creation can: it holds the private port); a dead renderer says nothing at all.
        page.renderProcessTerminated.connect(lambda *_args: self._reset())

    # --- state --------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        return self._ready

    @property
    def console_ready(self) -> bool:
        return self._console_ready

    @property
    def webmcp(self) -> str:
        """native, bridged or degraded, as the current document reported it."""
        return self._webmcp

    @property
    def page_tools(self) -> list[dict[str, Any]]:
        """What the page says it registered with WebMCP. Diagnostics only: agents are shown
        what the shell holds, never this."""
        return list(self._page_tools)

    @property
    def page_tools_total(self) -> int:
        """How many tools the page registered (page_tools names the first of them)."""
        return self._page_tools_total

    # --- calls into the page ------------------------------------------------------------
    def request(
        self,
        message: ShellRequest,
        callback: ResultCallback | None,
        timeout_s: float = 30.0,
    ) -> str:
        """Send `message`; `callback` (if any) gets the answer. Returns a call id for cancel()."""
        self._seq += 1
        call_id = f"py{self._seq}"
        if not self._ready:
            self._queued.append((call_id, message, callback, timeout_s))
            return call_id
        self._send(call_id, message, callback, timeout_s)
        return call_id

    def cancel(self, call_id: str, reason: str = "cancelled") -> None:
        """Abort a call: the page's AbortSignal for it fires; the caller hears `reason`."""
        pending = self._calls.pop(call_id, None)
        if pending is None:
            self._queued = [q for q in self._queued if q[0] != call_id]
            return
        pending.timer.stop()
        self._object.toPage.emit(wire_text(CancelRequest(target=call_id)))
        pending.callback(BridgeResult(False, error_name="AbortError", error_message=reason))

    def _send(
        self,
        call_id: str,
        message: ShellRequest,
        callback: ResultCallback | None,
        timeout_s: float,
    ) -> None:
        if callback is not None:
            timer = QTimer(self)
            timer.setSingleShot(True)
            timer.timeout.connect(lambda: self.cancel(call_id, "timeout"))
            timer.start(int(timeout_s * 1000))
            self._calls[call_id] = _Call(callback, timer)
        self._object.toPage.emit(wire_text(message, call_id))

    # --- messages from the page ---------------------------------------------------------
    def _receive(self, text: str) -> bool:
        if len(text) > self.pace.limits.messageBytes:
            log.warning("dropped a bridge message of %d characters", len(text))
            return False
        try:
            envelope = json.loads(text)
            kind = envelope["kind"]
            body = json.loads(envelope["body"])
        except (ValueError, KeyError, TypeError):
            log.warning("dropped an unreadable bridge message")
            return False
        if kind not in KINDS or not isinstance(body, dict):
            log.warning("dropped a bridge message of unknown kind")
            return False
        if kind == "response":
            self._on_response(body)
            return True
        push = parse_push(body)
        if push is None:
            log.warning("dropped a bridge push outside the protocol: %.40s", body.get("event"))
            return False
        if isinstance(push, Ask):
            self._paced(push, len(text))
            return True
        if isinstance(push, Hello):
            self._on_hello(push)
        elif isinstance(push, ConsoleReady):
            if not self._console_ready:
                self._console_ready = True
                self.console_ready_changed.emit(True)
        elif isinstance(push, PageTools):
            self._page_tools = [t for t in push.tools if isinstance(t, dict)]
            self._page_tools_total = push.total
            self.page_tools_changed.emit()
        else:
            self.pushed.emit(push)
        return True

    def _paced(self, ask: Ask, size: int) -> None:
        admitted = self.pace.admit(ask, size)
        if admitted == "now":
            self.pushed.emit(ask)
        elif admitted == "later":
            if not self._pace_timer.isActive():
                self._pace_timer.start(max(1, int(self.pace.next_in() * 1000)))
        else:
            if self.pace.refused > self._told_too_fast * 2:  # 1, 2, 4, 8… refusals: a line each
                self._told_too_fast = self.pace.refused
                log.warning("the page asked too fast: %d asks refused so far", self.pace.refused)
            self.too_fast.emit(ask.ask)

    def _let_through(self) -> None:
        # Asks held for the page's pace go on in the order they came, whatever document
        # is there now: each is what was asked, and its answer goes where the page expects.
        for ask in self.pace.due():
            self.pushed.emit(ask)
        if self.pace.waiting:
            self._pace_timer.start(max(1, int(self.pace.next_in() * 1000)))

    def _on_hello(self, hello: Hello) -> None:
        if self._ready:
            # A new document (a reload): nothing of the old one's calls or state carries over.
            self._reset()
        self._webmcp = hello.webmcp
        self._ready = True
        self.ready_changed.emit(True)
        queued, self._queued = self._queued, []
        for call_id, message, callback, timeout_s in queued:
            self._send(call_id, message, callback, timeout_s)

    def _on_response(self, body: dict[str, Any]) -> None:
        pending = self._calls.pop(str(body.get("id")), None)
        if pending is None:
            return  # cancelled or timed out already
        pending.timer.stop()
        if body.get("ok"):
            pending.callback(BridgeResult(True, value=body.get("value")))
        else:
            raw = body.get("error")
            error: dict[str, Any] = raw if isinstance(raw, dict) else {}
            pending.callback(
                BridgeResult(
                    False,
                    error_name=str(error.get("name", "Error"))[:64],
                    error_message=str(error.get("message", ""))[:500],
                )
            )

    def _reset(self) -> None:
        """A new document: nothing of the old one's state may leak into it."""
        was_ready, was_console = self._ready, self._console_ready
        self._ready = False
        self._console_ready = False
        for call_id in list(self._calls):
            pending = self._calls.pop(call_id)
            pending.timer.stop()
            pending.callback(
                BridgeResult(False, error_name="AbortError", error_message="the page reloaded")
            )
        self._page_tools = []
        self._page_tools_total = 0
        if was_ready:
            self.ready_changed.emit(False)
        if was_console:
            self.console_ready_changed.emit(False)
