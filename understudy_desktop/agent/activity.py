"""What the status bar says about agents: who is connected and what they last called."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Signal


@dataclass
class ActivitySnapshot:
    last_seen: float = 0.0
    client: str = ""
    last_tool: str = ""
    calls: int = 0
    sessions: set[str] = field(default_factory=set)


class AgentActivity(QObject):
    """Written from the endpoint's thread, read on the Qt thread."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._state = ActivitySnapshot()

    def note(self, client: str = "", tool: str = "", session: str = "") -> None:
        with self._lock:
            self._state.last_seen = time.time()
            if client:
                self._state.client = client
            if tool:
                self._state.last_tool = tool
                self._state.calls += 1
            if session:
                self._state.sessions.add(session)
        self.changed.emit()

    def forget_session(self, session: str) -> None:
        with self._lock:
            self._state.sessions.discard(session)
        self.changed.emit()

    def snapshot(self) -> ActivitySnapshot:
        with self._lock:
            s = self._state
            return ActivitySnapshot(s.last_seen, s.client, s.last_tool, s.calls, set(s.sessions))
