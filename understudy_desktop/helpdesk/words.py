"""What a person reads about a connected queue: per ticket, in the status bar, in a run's
result and when they choose between their value and the helpdesk's."""

from __future__ import annotations

import time
from typing import Any

from understudy_desktop.helpdesk.tables import Left, Standing
from understudy_desktop.text import isolated

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
    title: str,
    standing: Standing,
    offline_since: float | None,
    why: str = "unreachable",
    where: str = "",
) -> str:
    """One line for the status bar: "3 changes waiting · offline since 10:42", with what
    keeps the changes waiting told apart (`why`: UnreachableError.why, "sign-in" or
    "not-allowed"; `where`: what the connection works on, "in the queue “General”")."""
    parts = []
    if standing.waiting:
        parts.append(_count(standing.waiting, "change waiting", "changes waiting"))
    if standing.conflicts:
        parts.append(_count(standing.conflicts, "change to choose", "changes to choose"))
    if standing.refused:
        parts.append(_count(standing.refused, "change refused", "changes refused"))
    if standing.left:
        parts.append(_count(standing.left, "ticket left the queue", "tickets left the queue"))
    if offline_since is not None:
        since = time.strftime("%H:%M", time.localtime(offline_since))
        parts.append(_why_words(title, why, since, where))
    if not parts:
        return f"All changes are in {title}"
    return " · ".join(parts)


def _why_words(title: str, why: str, since: str, where: str = "") -> str:
    if why == "not-allowed":
        what = f"work {where}" if where else "read the tickets"
        return f"{title} does not let this account {what}: ask its administrator"
    if why == "sign-in":
        return f"{title} no longer accepts the sign-in: connect again (File › Connect to helpdesk…)"
    if why == "busy":
        return f"{title} asked to wait, since {since}"
    if why == "trouble":
        return f"{title} has a problem of its own since {since}"
    if why == "unreadable":
        return f"{title} answers with a page that is not its own since {since}"
    return f"offline since {since}"


def left_words(title: str, left: Left) -> str:
    """Why a ticket is no longer in the connected queue, and what became of our changes."""
    how = "was moved to another queue in" if left.why == "moved" else "was deleted in"
    said = f"{left.ticket} “{isolated(left.subject)}” {how} {title}, so it left this queue."
    if left.unsent == 1:
        said += " Your change to it was not sent."
    elif left.unsent:
        said += f" Your changes to {left.unsent:,} of its fields were not sent."
    return said


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
