"""The library as the console page shows it. The shell pushes it whenever tools or their
usage change and whenever a new document is ready; the page renders it and mirrors the
callable tools into its WebMCP registration. It is a view: the page changes nothing by
editing it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer

from understudy_desktop.bridge.console_port import ConsolePort
from understudy_desktop.library.freshness import days_unused, freshness, is_stale
from understudy_desktop.library.library import Library
from understudy_desktop.library.model import TaughtTool
from understudy_desktop.rules import rules

USAGE_DEBOUNCE_MS = 200


def tool_view(tool: TaughtTool, library: Library) -> dict[str, Any]:
    usage = library.usage(tool.name)
    days = days_unused(usage.last_used, tool.created_at)
    return {
        **tool.public(),
        "shownAs": tool.shown_name,  # what people see it called; the name is for agents
        "steps": tool.steps,
        "status": tool.status,
        "callable": tool.callable,
        "reviewReason": tool.review_reason,
        "note": tool.note,
        "askEveryTime": tool.ask_every_time,
        "origin": tool.origin.as_dict(),
        "createdAt": int(tool.created_at * 1000),
        "approvedAt": int(tool.approved_at * 1000),
        "usage": usage.as_dict(),
        "daysUnused": int(days),
        "freshness": round(freshness(days), 2),
        "stale": is_stale(days),
    }


def library_view(library: Library) -> dict[str, Any]:
    """The tools and the recordings, as the shell holds them (the page keeps no copy of its
    own that could differ)."""
    return {
        "tools": [tool_view(t, library) for t in library.tools()],
        "max": rules().maxTaughtTools,
        "active": library.active_count(),
        "recordings": library.recordings(),
    }


class ConsoleLibraryView(QObject):
    def __init__(self, library: Library, port: ConsolePort, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._library = library
        self._port = port
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(USAGE_DEBOUNCE_MS)
        self._timer.timeout.connect(self.push)
        library.changed.connect(self.push)
        library.recordings_changed.connect(self.push)
        library.usage_changed.connect(self._timer.start)
        port.ready_changed.connect(self._on_ready)

    def _on_ready(self, ready: bool) -> None:
        if ready:
            self.push()

    def push(self) -> None:
        self._timer.stop()
        if not self._port.ready:
            return
        self._port.show_library(library_view(self._library))
