"""Where the MCP server (on its own asyncio thread) meets the page (on the Qt thread).

The server reads a snapshot of the tool mirror under a lock, and asks for tool calls by
emitting a queued Qt signal; the answer comes back on the server's loop through
call_soon_threadsafe. Cancelling the awaiting coroutine cancels the page call, whose
AbortSignal then fires.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal

from understudy_desktop.bridge.page_bridge import BridgeResult, PageBridge, PageTool

MAX_CONCURRENT_CALLS = 8


@dataclass
class _Job:
    name: str
    arguments: dict[str, Any]
    timeout_s: float
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[BridgeResult]
    call_id: str = ""
    cancelled: bool = False


@dataclass
class AgentActivity:
    """What the status bar shows about agents."""

    last_seen: float = 0.0
    client: str = ""
    last_tool: str = ""
    calls: int = 0
    sessions: set[str] = field(default_factory=set)


class QtToolPort(QObject):
    _invoke = Signal(object)
    tools_changed = Signal()
    activity_changed = Signal()

    def __init__(self, bridge: PageBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._lock = threading.Lock()
        self._tools: list[PageTool] = bridge.tools
        self._ready = bridge.ready
        self._running = 0
        self.activity = AgentActivity()
        self._listeners: list[Callable[[], None]] = []
        self._definition_listeners: list[Callable[[], None]] = []
        self._invoke.connect(self._on_invoke, Qt.ConnectionType.QueuedConnection)
        bridge.tools_changed.connect(self._on_tools_changed)
        # Saved definitions changed (a repair, a new approval, a tool held back): listeners
        # that cache definitions must drop them.
        bridge.store_changed.connect(self._on_definitions_changed)
        bridge.ready_changed.connect(self._on_ready_changed)

    # --- any thread ---------------------------------------------------------------------
    def snapshot(self) -> list[PageTool]:
        with self._lock:
            return list(self._tools)

    @property
    def page_ready(self) -> bool:
        with self._lock:
            return self._ready

    def add_listener(self, listener: Callable[[], None]) -> None:
        """`listener` runs on the Qt thread whenever the tool list changes."""
        self._listeners.append(listener)

    def note_activity(self, client: str = "", tool: str = "", session: str = "") -> None:
        with self._lock:
            self.activity.last_seen = time.time()
            if client:
                self.activity.client = client
            if tool:
                self.activity.last_tool = tool
                self.activity.calls += 1
            if session:
                self.activity.sessions.add(session)
        self.activity_changed.emit()

    def forget_session(self, session: str) -> None:
        with self._lock:
            self.activity.sessions.discard(session)
        self.activity_changed.emit()

    async def call(self, name: str, arguments: dict[str, Any], timeout_s: float) -> BridgeResult:
        """Run the page's tool; raises asyncio.CancelledError through if the caller cancels."""
        with self._lock:
            if self._running >= MAX_CONCURRENT_CALLS:
                return BridgeResult(
                    False, error_name="Busy", error_message="too many calls at once"
                )
            self._running += 1
        loop = asyncio.get_running_loop()
        job = _Job(name, arguments, timeout_s, loop, loop.create_future())
        self._invoke.emit(("execute", job))
        try:
            return await job.future
        except asyncio.CancelledError:
            job.cancelled = True
            self._invoke.emit(("cancel", job))
            raise
        finally:
            with self._lock:
                self._running -= 1

    async def on_qt(self, work: Callable[[Callable[[Any], None]], None]) -> Any:
        """Run `work(resolve)` on the Qt thread and await the value it resolves with."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()

        def resolve(value: Any) -> None:
            def settle() -> None:
                if not future.done():
                    future.set_result(value)

            loop.call_soon_threadsafe(settle)

        self._invoke.emit(("qt", (work, resolve)))
        return await future

    # --- Qt thread ----------------------------------------------------------------------
    def _on_invoke(self, item: tuple[str, Any]) -> None:
        kind, job = item
        if kind == "qt":
            work, resolve = job
            work(resolve)
            return
        if kind == "cancel":
            if job.call_id:
                self._bridge.cancel(job.call_id, "cancelled")
            return
        if job.cancelled:
            return

        def answered(result: BridgeResult) -> None:
            def settle() -> None:
                if not job.future.done():
                    job.future.set_result(result)

            job.loop.call_soon_threadsafe(settle)

        job.call_id = self._bridge.request(
            "execute", {"name": job.name, "input": job.arguments}, answered, job.timeout_s
        )

    def _on_tools_changed(self) -> None:
        with self._lock:
            self._tools = self._bridge.tools
        self.tools_changed.emit()
        for listener in self._listeners:
            listener()

    def add_definitions_listener(self, listener: Callable[[], None]) -> None:
        self._definition_listeners.append(listener)

    def _on_definitions_changed(self) -> None:
        for listener in self._definition_listeners:
            listener()

    def _on_ready_changed(self, ready: bool) -> None:
        with self._lock:
            self._ready = ready
