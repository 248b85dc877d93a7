"""What a usage-count file says about this person's team tools: numbers only (runs, failures,
the last day used), never an input, a result or a ticket. Pure, so tests and the service
(library_service.py) share one definition of a row."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from understudy_desktop.library.model import TaughtTool, Usage
from understudy_desktop.team.inbox import TeamView

# A sync service then carries one small file per person an hour, not a stream of them.
USAGE_EVERY_S = 3600.0


def usage_rows(
    tools: Iterable[TaughtTool], usage_of: Callable[[str], Usage], mine: str, view: TeamView
) -> list[dict[str, Any]]:
    """A row for each team tool here: one accepted from a colleague (counted under its
    author's key and shared name), or one this person shared themselves (under their key)."""
    rows = []
    for tool in tools:
        if tool.origin.by == "team" and tool.origin.key:
            shared_by, shared_as = tool.origin.key, tool.origin.shared_as
        elif mine and any(t.state == "mine" and t.tool == tool.name for t in view.tools):
            shared_by, shared_as = mine, tool.name
        else:
            continue
        usage = usage_of(tool.name)
        last = usage.last_used
        rows.append(
            {
                "sharedBy": shared_by,
                "tool": shared_as,
                "runs": usage.runs,
                "failures": usage.runs - usage.successes,
                "lastUsed": datetime.fromtimestamp(last, UTC).strftime("%Y-%m-%d") if last else "",
            }
        )
    return rows
