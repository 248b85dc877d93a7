"""What a person reads about a connected queue: per ticket, in the status bar, in a run's
result and when they choose between their value and the helpdesk's."""

from __future__ import annotations

import time
from typing import Any

from understudy_desktop.helpdesk.tables import Standing

FIELD_WORDS = {"status": "Status", "priority": "Priority", "assignee": "Assignee", "tags": "Tags"}


def ticket_words(title: str, state: str | None, said: str = "") -> str:
    """Where one ticket's changes stand ("In Zendesk", "Waiting to reach Zendesk", …)."""
    if state == "waiting":
        return f"Waiting to reach {title}"
    if state == "refused":
        return f"Refused by {title}: {said}" if said else f"Refused by {title}"
    if state == "conflict":
        return f"Changed in {title} too: choose which to keep"
    return f"In {title}"


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def status_words(
    title: str, standing: Standing, offline_since: float | None, why: str = "unreachable"
) -> str:
    """One line for the status bar: "3 changes waiting · offline since 10:42", with what
    keeps the changes waiting told apart (`why`: UnreachableError.why, or "sign-in")."""
    parts = []
    if standing.waiting:
        parts.append(_count(standing.waiting, "change waiting", "changes waiting"))
    if standing.conflicts:
        parts.append(_count(standing.conflicts, "change to choose", "changes to choose"))
    if standing.refused:
        parts.append(_count(standing.refused, "change refused", "changes refused"))
    if offline_since is not None:
        parts.append(_why_words(title, why, time.strftime("%H:%M", time.localtime(offline_since))))
    if not parts:
        return f"All changes are in {title}"
    return " · ".join(parts)


def _why_words(title: str, why: str, since: str) -> str:
    if why == "sign-in":
        return f"{title} no longer accepts the sign-in: connect again (File › Connect to helpdesk…)"
    if why == "busy":
        return f"{title} asked to wait, since {since}"
    if why == "trouble":
        return f"{title} has a problem of its own since {since}"
    if why == "unreadable":
        return f"{title} answers with a page that is not its own since {since}"
    return f"offline since {since}"


def run_words(title: str, waiting: int) -> str:
    """For an agent's run on a connected queue: whether its changes reached the helpdesk."""
    if waiting:
        return f"The changes are saved here and on their way to {title} ({waiting:,} waiting)."
    return f"The changes are in {title}."


def value_words(field: str, value: Any, people: dict[str, str]) -> str:
    """A field's value as the person reads it in the console."""
    if field == "assignee":
        return people.get(str(value), str(value)) if value is not None else "Nobody"
    if field == "tags":
        return ", ".join(value) if value else "no tags"
    return str(value).capitalize()
