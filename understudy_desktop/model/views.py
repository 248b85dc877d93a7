"""Whose view a command's view parts act on: the person's (their filter and open ticket) or a
run's own, so a taught tool's search and open ticket never become the person's."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

UNASSIGNED = "__unassigned__"


@dataclass(frozen=True)
class Filter:
    """What a view narrows the queue to; "" matches everything (js/queue_state.js)."""

    text: str = ""
    status: str = ""
    priority: str = ""
    assignee: str = ""
    tag: str = ""

    @staticmethod
    def of(payload: dict[str, Any]) -> Filter:
        """filter_tickets' payload as a filter: an omitted criterion matches everything."""

        def text(key: str) -> str:
            value = payload.get(key)
            return value if isinstance(value, str) else ""

        return Filter(text("text"), text("status"), text("priority"), text("assignee"), text("tag"))

    def as_dict(self) -> dict[str, str]:
        return {
            "text": self.text,
            "status": self.status,
            "priority": self.priority,
            "assignee": self.assignee,
            "tag": self.tag,
        }

    @property
    def narrows(self) -> bool:
        return any(self.as_dict().values())


@dataclass
class View:
    """A filter and an open ticket. The person has one (kept across restarts); every run
    makes its own, starting with no filter and nothing open."""

    filter: Filter = field(default_factory=Filter)
    selected: str | None = None

    def copy(self) -> View:
        return replace(self)

    def as_dict(self) -> dict[str, Any]:
        return {"filter": self.filter.as_dict(), "selectedId": self.selected}

    @staticmethod
    def from_dict(raw: Any) -> View:
        if not isinstance(raw, dict):
            return View()
        flt = raw.get("filter")
        selected = raw.get("selectedId")
        return View(
            Filter.of(flt if isinstance(flt, dict) else {}),
            selected if isinstance(selected, str) else None,
        )
