"""The ticket data shared with the triage web page; field names must match the page's exactly."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from understudy_desktop.queue_io.columns import format_utc

Status = Literal["new", "open", "pending", "solved", "closed"]
Priority = Literal["low", "normal", "high", "urgent"]

# Unknown keys are refused rather than dropped: silently losing a field the page added would be
# worse than a clear error, and our own files are the only ones validated this strictly.
_CANONICAL_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_STRICT = ConfigDict(extra="forbid", validate_assignment=True)


class Ticket(BaseModel):
    model_config = _STRICT

    id: str = Field(min_length=1)
    subject: str
    body: str
    requester: str
    created: str
    status: Status
    priority: Priority
    assignee: str | None
    tags: list[str]
    # Written in the console; kept in the app's own queue files (helpdesk exports have no slot).
    reply_draft: str = ""

    @field_validator("id")
    @classmethod
    def _id_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the ticket id is empty")
        return value

    @field_validator("created")
    @classmethod
    def _created_is_iso(cls, value: str) -> str:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(
                f"“{value[:40]}” is not an ISO 8601 date-time like 2026-11-02T09:14:00Z"
            ) from None
        if _CANONICAL_TIME.fullmatch(value):
            return value  # already in the stored spelling; skipping the reformat saves 100k calls
        # One spelling per instant, so "changed?" comparisons and sorting on the page are exact.
        return format_utc(moment)

    @field_validator("tags")
    @classmethod
    def _tags_are_clean(cls, value: list[str]) -> list[str]:
        for tag in value:
            if tag.split() != [tag] or tag != tag.lower():
                raise ValueError(f"the tag “{tag[:40]}” must be lowercase, without spaces")
        if len(set(value)) != len(value):
            raise ValueError("a tag appears twice")
        return value


class Assignee(BaseModel):
    model_config = _STRICT

    id: str = Field(min_length=1)
    name: str
    role: str = ""


class Template(BaseModel):
    model_config = _STRICT

    id: str = Field(min_length=1)
    name: str
    body: str


class QueueDocument(BaseModel):
    """The app's own queue file."""

    model_config = _STRICT

    format: Literal["understudy-queue"] = "understudy-queue"
    version: Literal[1] = 1
    tickets: list[Ticket]
    assignees: list[Assignee] = Field(default_factory=list)
    templates: list[Template] = Field(default_factory=list)
    # Set by the console: the queue's display name and what was filtered and open.
    name: str | None = None
    view: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _references_hold(self) -> QueueDocument:
        for what, ids in (
            ("ticket", [t.id for t in self.tickets]),
            ("assignee", [a.id for a in self.assignees]),
            ("template", [t.id for t in self.templates]),
        ):
            seen: set[str] = set()
            for item_id in ids:
                if item_id in seen:
                    raise ValueError(f"the {what} id “{item_id[:40]}” is used twice")
                seen.add(item_id)
        known = {a.id for a in self.assignees}
        for ticket in self.tickets:
            if ticket.assignee is not None and ticket.assignee not in known:
                raise ValueError(
                    f"ticket “{ticket.id[:40]}” is assigned to “{ticket.assignee[:40]}”, "
                    "who is not in the list of assignees"
                )
        return self
