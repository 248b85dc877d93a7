"""Python's side of the bridge: readiness, a live mirror of the page's tools, and calls.

The page answers through one JSON-in slot. Messages it may send are allow-listed; anything
else is dropped with a log line. Python never sends a request before the current document
said hello, and every document starts over: a reload or navigation resets the mirror and
fails calls that were in flight.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import QWebEnginePage

from understudy_desktop.web.scripts import BRIDGE_WORLD, bridge_scripts, install

log = logging.getLogger(__name__)

PUSH_EVENTS = frozenset({"hello", "tools", "console-ready", "consent-request", "store"})
CONSENT_KINDS = frozenset({"publish", "review", "ask", "relax"})
KINDS = frozenset({"push", "response"})


@dataclass(frozen=True)
class PageTool:
    """One tool as the page registered it (what an agent may see)."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any] | None
    annotations: dict[str, bool]

    def as_definition(self) -> dict[str, Any]:
        """The tool as the page registered it, in the shape approval hashes are taken over."""
        mirrored = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": self.annotations,
        }
        return {k: v for k, v in mirrored.items() if v is not None}

    @staticmethod
    def from_page(raw: dict[str, Any]) -> PageTool:
        schema = raw.get("inputSchema")
        notes = raw.get("annotations") or {}
        return PageTool(
            name=str(raw["name"]),
            title=str(raw.get("title") or ""),
            description=str(raw.get("description") or ""),
            input_schema=schema if isinstance(schema, dict) else None,
            annotations={str(k): bool(v) for k, v in notes.items()},
        )


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
    op: str
    extra: dict[str, Any] = field(default_factory=dict)


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
    tools_changed = Signal()
    # The page asks for a consent dialog. It can only ask: deciding is the dialog's alone.
    consent_requested = Signal(dict)
    # Taught tools or recordings changed in the page: the shell writes them to disk.
    store_changed = Signal()

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
        self._tools: list[PageTool] = []
        self._calls: dict[str, _Call] = {}
        self._queued: list[tuple[str, dict[str, Any], ResultCallback, float]] = []
        self._seq = 0
        page.loadStarted.connect(self._reset)

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
    def tools(self) -> list[PageTool]:
        return list(self._tools)

    def tool(self, name: str) -> PageTool | None:
        return next((t for t in self._tools if t.name == name), None)

    # --- calls into the page ------------------------------------------------------------
    def request(
        self, op: str, payload: dict[str, Any], callback: ResultCallback, timeout_s: float = 30.0
    ) -> str:
        """Ask the page to do `op` ('tools', 'execute', 'shell'); returns a call id."""
        self._seq += 1
        call_id = f"py{self._seq}"
        if not self._ready:
            self._queued.append((call_id, {"op": op, **payload}, callback, timeout_s))
            return call_id
        self._send(call_id, {"op": op, **payload}, callback, timeout_s)
        return call_id

    def cancel(self, call_id: str, reason: str = "cancelled") -> None:
        """Abort a call: the page's AbortSignal for it fires; the caller hears `reason`."""
        pending = self._calls.pop(call_id, None)
        if pending is None:
            self._queued = [q for q in self._queued if q[0] != call_id]
            return
        pending.timer.stop()
        self._object.toPage.emit(json.dumps({"op": "cancel", "target": call_id}))
        pending.callback(BridgeResult(False, error_name="AbortError", error_message=reason))

    def _send(
        self, call_id: str, message: dict[str, Any], callback: ResultCallback, timeout_s: float
    ) -> None:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.timeout.connect(lambda: self.cancel(call_id, "timeout"))
        timer.start(int(timeout_s * 1000))
        self._calls[call_id] = _Call(callback, timer, str(message.get("op")))
        self._object.toPage.emit(json.dumps({"id": call_id, **message}))

    # --- messages from the page ---------------------------------------------------------
    def _receive(self, text: str) -> bool:
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
        event = body.get("event")
        if event not in PUSH_EVENTS:
            log.warning("dropped a bridge push not on the allow-list: %.40s", event)
            return False
        if event == "hello":
            self._webmcp = str(body.get("webmcp", "degraded"))
            if not self._ready:
                self._ready = True
                self.ready_changed.emit(True)
                queued, self._queued = self._queued, []
                for call_id, message, callback, timeout_s in queued:
                    self._send(call_id, message, callback, timeout_s)
        elif event == "tools":
            self._set_tools(body.get("tools"))
        elif event == "console-ready" and not self._console_ready:
            self._console_ready = True
            self.console_ready_changed.emit(True)
        elif event == "store":
            self.store_changed.emit()
        elif event == "consent-request":
            kind = body.get("kind")
            if kind not in CONSENT_KINDS:
                log.warning("dropped a consent request of unknown kind")
                return False
            self.consent_requested.emit(
                {
                    "kind": kind,
                    "id": str(body.get("id", ""))[:64],
                    "tool": str(body.get("tool", ""))[:64],
                }
            )
        return True

    def _on_response(self, body: dict[str, Any]) -> None:
        pending = self._calls.pop(str(body.get("id")), None)
        if pending is None:
            return  # cancelled or timed out already
        pending.timer.stop()
        if body.get("ok"):
            pending.callback(BridgeResult(True, value=body.get("value")))
        else:
            error = body.get("error") or {}
            pending.callback(
                BridgeResult(
                    False,
                    error_name=str(error.get("name", "Error")),
                    error_message=str(error.get("message", "")),
                )
            )

    def _set_tools(self, raw: object) -> None:
        if not isinstance(raw, list):
            return
        parsed = []
        for item in raw:
            try:
                parsed.append(PageTool.from_page(item))
            except (KeyError, TypeError, AttributeError):
                log.warning("ignored a malformed tool entry from the page")
        parsed.sort(key=lambda t: t.name)
        if parsed != self._tools:
            self._tools = parsed
            self.tools_changed.emit()

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
        had_tools = bool(self._tools)
        self._tools = []
        if had_tools:
            self.tools_changed.emit()
        if was_ready:
            self.ready_changed.emit(False)
        if was_console:
            self.console_ready_changed.emit(False)
