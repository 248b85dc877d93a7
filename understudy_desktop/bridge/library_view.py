"""The library as the console page shows it. The shell pushes it whenever tools or their
usage change and whenever a new document is ready; the page renders it and mirrors the
callable tools into its WebMCP registration. It is a view: the page changes nothing by
editing it."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

from understudy_desktop.bridge import to_page
from understudy_desktop.bridge.console_port import ConsolePort
from understudy_desktop.bridge.to_page import LastFailure, LibraryRequest, Origin, ToolView, Usage
from understudy_desktop.library.freshness import days_unused, freshness, is_stale
from understudy_desktop.library.library import Library
from understudy_desktop.library.model import TaughtTool
from understudy_desktop.rules import rules

USAGE_DEBOUNCE_MS = 200


def tool_view(tool: TaughtTool, library: Library) -> ToolView:
    usage = library.usage(tool.name)
    days = days_unused(usage.last_used, tool.created_at)
    failure = usage.last_failure
    # What agents see of it (title and annotations only where the definition has them).
    public = {k: v for k, v in tool.public().items() if k in ("title", "annotations")}
    return ToolView(
        name=tool.name,
        description=str(tool.definition.get("description", "")),
        inputSchema=tool.input_schema,
        **public,
        shownAs=tool.shown_name,  # what people see it called; the name is for agents
        steps=tool.steps,
        status=tool.status,
        callable=tool.callable,
        reviewReason=tool.review_reason,
        note=tool.note,
        askEveryTime=tool.ask_every_time,
        origin=_origin(tool),
        createdAt=int(tool.created_at * 1000),
        approvedAt=int(tool.approved_at * 1000),
        usage=Usage(
            runs=usage.runs,
            successes=usage.successes,
            lastUsed=usage.last_used,
            lastFailure=LastFailure.model_validate(failure) if failure is not None else None,
        ),
        daysUnused=int(days),
        freshness=round(freshness(days), 2),
        stale=is_stale(days),
    )


def _origin(tool: TaughtTool) -> Origin:
    # Origin.as_dict() is the one spelling of its fields in files and messages (sharedAs).
    return Origin.model_validate(tool.origin.as_dict())


def library_view(library: Library) -> LibraryRequest:
    """The tools and the recordings, as the shell holds them (the page keeps no copy of its
    own that could differ)."""
    shown = (to_page.recording(r) for r in library.recordings())
    return LibraryRequest(
        tools=[tool_view(t, library) for t in library.tools()],
        max=rules().maxTaughtTools,
        active=library.active_count(),
        recordings=[r for r in shown if r is not None],
    )


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
