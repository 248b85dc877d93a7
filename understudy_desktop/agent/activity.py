"""What the status bar says about agents: who is connected and what they last called.

"Connected" follows the client's session, not its last call: a client is connected while it
holds a request open (the notification stream understudy-mcp keeps, a call waiting for the
person), or has been heard from within RECENT_S; it is gone at once when it ends its session
(a DELETE), and within RECENT_S when it just goes away without a word.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QTimer, Signal

from understudy_desktop.qt_thread import call_on_main

RECENT_S = 60.0  # a client with nothing open counts as connected this long after its last word
ENDED_KEPT = 1000  # ended sessions remembered, so a late request cannot revive one
NO_SESSION = ""  # requests without a session id (the stateless protocol revisions)
SETTLE_MS = 100  # changes this soon after the status bar was told wait to be told together


@dataclass
class ActivitySnapshot:
    last_seen: float = 0.0
    client: str = ""
    last_tool: str = ""
    calls: int = 0
    open_requests: int = 0
    heard: dict[str, float] = field(default_factory=dict)  # session -> last time heard from

    def connected(self, now: float | None = None) -> bool:
        now = time.time() if now is None else now
        return self.open_requests > 0 or any(now - t < RECENT_S for t in self.heard.values())

    def expires_in(self, now: float | None = None) -> float | None:
        """Seconds until `connected()` may turn false by itself (None: it will not)."""
        if self.open_requests > 0 or not self.heard:
            return None
        now = time.time() if now is None else now
        left = RECENT_S - (now - max(self.heard.values()))
        return left if left > 0 else None


class AgentActivity(QObject):
    """Written from the endpoint's thread, read on the Qt thread.

    `changed` is emitted on the Qt thread only: the endpoint's thread never emits a Qt signal
    itself (a signal emitted there to a Python slot can race the receiver's deletion and crash
    the process), it queues one emit through the app's dispatcher. After an emit, changes for
    the next SETTLE_MS make one more emit at its end: an agent making hundreds of calls a
    second costs the endpoint's thread no post per call (each waits for the interpreter while
    the Qt thread runs Python), and the status bar still shows the last word."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._state = ActivitySnapshot()
        self._ended: dict[str, None] = {}  # sessions ended, oldest first (an ordered set)
        # True from a post until the settling time after its emit ends: no other post.
        self._emit_queued = False
        self._dirty = False  # a change during the settling time, said at its end
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._settled)

    def _tell(self) -> None:
        with self._lock:
            self._dirty = True
            if self._emit_queued:
                return
            self._emit_queued = True
        call_on_main(self._emit)

    def _emit(self) -> None:
        with self._lock:
            self._dirty = False
        self._settle.start()
        self.changed.emit()

    def _settled(self) -> None:
        with self._lock:
            dirty = self._dirty
            self._dirty = False
            self._emit_queued = dirty
        if dirty:
            self._emit()

    def note(self, client: str = "", tool: str = "") -> None:
        """A request that named its client, or a tool it called."""
        with self._lock:
            self._state.last_seen = time.time()
            if client:
                self._state.client = client
            if tool:
                self._state.last_tool = tool
                self._state.calls += 1
        self._tell()

    def request_opened(self) -> None:
        with self._lock:
            self._state.open_requests += 1
        self._tell()

    def request_closed(self, session: str = NO_SESSION) -> None:
        """A request ended; `session` is the one it belonged to (for initialize, the one its
        answer gave). An ended session is not brought back by a request closing after it."""
        with self._lock:
            self._state.open_requests = max(0, self._state.open_requests - 1)
            if session not in self._ended:
                self._state.heard[session] = time.time()
        self._tell()

    def forget_session(self, session: str) -> None:
        """The client ended its session: it is no longer counted as heard from."""
        with self._lock:
            self._state.heard.pop(session, None)
            self._ended[session] = None
            while len(self._ended) > ENDED_KEPT:
                del self._ended[next(iter(self._ended))]
        self._tell()

    def snapshot(self) -> ActivitySnapshot:
        with self._lock:
            s = self._state
            return ActivitySnapshot(
                s.last_seen, s.client, s.last_tool, s.calls, s.open_requests, dict(s.heard)
            )
