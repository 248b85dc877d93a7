"""Bringing the helpdesk's tickets into the queue: the first sync builds the whole queue, each
later one applies what changed since the cursor.

What a sync writes is the helpdesk's doing, so it is written with the link `quiet` (nothing
goes back out), and it never overwrites a field with a change of ours on its way or in
question: that field is left to the outbox, which compares it with the helpdesk's value
before sending (outbox.py), so nothing is overwritten silently in either direction.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from understudy_desktop.helpdesk import tables as hd
from understudy_desktop.helpdesk.base import (
    Departure,
    GoneError,
    Helpdesk,
    NotAllowedError,
    RemotePerson,
    RemoteTemplate,
    RemoteTicket,
    SignInError,
    UnreachableError,
)
from understudy_desktop.js_text import haystack
from understudy_desktop.model import tables
from understudy_desktop.model.commands import Write
from understudy_desktop.queue_io.columns import format_utc
from understudy_desktop.store import ticket_tables
from understudy_desktop.store.helpdesk_tables import SENT_FIELDS
from understudy_desktop.store.queue_store import Row, read_meta, write_meta

PREFIX = {"rt": "RT", "zendesk": "ZD", "freshdesk": "FD"}
Progress = Callable[[int, int | None], None]  # tickets read so far, of how many (if known)


def ticket_id(kind: str, remote: str) -> str:
    """The console's id of a helpdesk ticket: the helpdesk's number, with whose it is."""
    return f"{PREFIX[kind]}-{remote}"


def person_id(kind: str, remote: str) -> str:
    return f"{kind}:{remote}"


def template_id(kind: str, remote: str) -> str:
    return f"{kind}-template:{remote}"


def _created(value: str) -> str:
    """The helpdesk's creation time in the console's one spelling (UTC, whole seconds)."""
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return format_utc(datetime.now(UTC))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return format_utc(moment)


@dataclass
class FirstSync:
    """A whole queue read from the helpdesk, ready to be stored in one transaction."""

    kind: str
    rows: list[Row]
    meta: dict[str, Any]
    tickets: list[RemoteTicket]
    people: list[RemotePerson]
    templates: list[RemoteTemplate]
    cursor: str
    fields: tuple[str, ...] = SENT_FIELDS
    settings: dict[str, Any] = field(default_factory=dict)

    def store(self, conn: sqlite3.Connection) -> None:
        """Inside the queue replacement's transaction: the link, the ids, what was read."""
        generation = str(read_meta(conn, "generation"))
        hd.write_link(conn, self.kind, generation, self.settings, self.fields, self.cursor)
        hd.map_ids(
            conn, "ticket", ((ticket_id(self.kind, t.remote_id), t.remote_id) for t in self.tickets)
        )
        hd.map_ids(
            conn, "person", ((person_id(self.kind, p.remote_id), p.remote_id) for p in self.people)
        )
        hd.map_ids(
            conn,
            "template",
            ((template_id(self.kind, t.remote_id), t.remote_id) for t in self.templates),
        )
        for ticket in self.tickets:
            hd.write_seen(conn, ticket_id(self.kind, ticket.remote_id), ticket)


# How long a first sync waits out a helpdesk's rate limit (a Zendesk export allows 10 pages a
# minute; Freshdesk Growth 20 lists) before it gives up and says so.
PATIENCE_S = 900.0
T = TypeVar("T")


def patiently(
    ask: Callable[[], T],
    pause: Callable[[float], None] = time.sleep,
    patience_s: float = PATIENCE_S,
) -> T:
    """`ask()`, again after the pause the helpdesk asked for each time it says to wait (429,
    503), from where it was: a big queue meets the rate limit on its way, not a failure."""
    waited = 0.0
    while True:
        try:
            return ask()
        except UnreachableError as exc:
            if exc.why != "busy" or waited >= patience_s:
                raise
            wait = min(exc.retry_after_s if exc.retry_after_s is not None else 5.0, 120.0)
            pause(wait)
            waited += max(wait, 0.1)


def read_all(
    helpdesk: Helpdesk,
    name: str,
    progress: Progress | None = None,
    cursor: str | None = None,
    pause: Callable[[float], None] = time.sleep,
) -> FirstSync:
    """Every ticket of the connected queue, its people and its templates (off the Qt thread),
    waiting out the helpdesk's rate limit where it asks to."""
    people = patiently(helpdesk.people, pause)
    templates = patiently(helpdesk.templates, pause)
    latest: dict[str, RemoteTicket] = {}
    while True:
        page = patiently(functools.partial(helpdesk.changed_since, cursor), pause)
        for ticket in page.tickets:
            latest[ticket.remote_id] = ticket
        cursor = page.cursor
        if progress is not None:
            progress(len(latest), None)
        if not page.more:
            break
    return first_from(helpdesk.kind, name, list(latest.values()), people, templates, cursor)


def first_from(
    kind: str,
    name: str,
    tickets: list[RemoteTicket],
    people: list[RemotePerson],
    templates: list[RemoteTemplate],
    cursor: str | None,
) -> FirstSync:
    """The queue a first sync makes of what it read."""
    known = {p.remote_id for p in people}
    for ticket in tickets:  # an owner who is not among the people listed (disabled since)
        if ticket.assignee is not None and ticket.assignee not in known:
            people.append(RemotePerson(ticket.assignee, ticket.assignee))
            known.add(ticket.assignee)
    rows = [_row(kind, t, i) for i, t in enumerate(tickets)]
    meta = {
        "name": name,
        "assignees": [{"id": person_id(kind, p.remote_id), "name": p.name} for p in people],
        "templates": [
            {"id": template_id(kind, t.remote_id), "name": t.title, "body": t.body}
            for t in templates
            if t.body.strip()
        ],
        "view": None,
    }
    return FirstSync(kind, rows, meta, tickets, people, templates, cursor or "")


def _row(kind: str, ticket: RemoteTicket, position: int) -> Row:
    assignee = person_id(kind, ticket.assignee) if ticket.assignee is not None else None
    return (
        ticket_id(kind, ticket.remote_id),
        position,
        ticket.subject,
        ticket.body,
        ticket.requester,
        _created(ticket.created),
        ticket.status,
        ticket.priority,
        assignee,
        ticket_tables.tags_text(sorted(ticket.tags)),
        "",
    )


# --- later syncs ------------------------------------------------------------------------------
@dataclass
class Applied:
    """What one sync changed here: field writes (drawn by the page as they come), and whether
    tickets arrived or their text changed (the page is then given the queue again)."""

    writes: list[Write] = field(default_factory=list)
    arrived: int = 0
    retext: int = 0
    cursor: str = ""
    left: list[hd.Left] = field(default_factory=list)  # tickets that left the queue


def apply_remote(
    conn: sqlite3.Connection,
    tickets: Sequence[RemoteTicket],
    cursor: str,
    read_at: float,
    reads_back: Callable[[str, Any], Any],
    gone: Sequence[Departure] = (),
) -> Applied:
    """Apply tickets read from the helpdesk at `read_at` (inside the writer's transaction),
    and let those that left the connected queue go."""
    link = hd.link(conn)
    if link is None:
        return Applied()
    hd.set_quiet(conn, True)
    try:
        applied = Applied(cursor=cursor)
        people = hd.console_ids(conn, "person")
        grouped: dict[tuple[str, str], list[str]] = {}
        for ticket in tickets:
            _apply_one(conn, link.kind, ticket, read_at, reads_back, people, grouped, applied)
        applied.left = leave_all(conn, gone)
        for (name, value_text), ids in grouped.items():
            applied.writes.append(Write(name, json.loads(value_text), tuple(ids)))
        hd.set_cursor(conn, cursor)
    finally:
        hd.set_quiet(conn, False)
    return applied


def leave_all(conn: sqlite3.Connection, gone: Sequence[Departure]) -> list[hd.Left]:
    """The tickets held here among `gone` leave the console's queue (the others were never
    here, or left already)."""
    held = hd.console_ids(conn, "ticket")
    left = []
    for departure in gone:
        console = held.pop(departure.remote_id, None)
        if console is None:
            continue
        note = hd.leave(conn, console, departure.why)
        if note is not None:
            left.append(note)
    return left


def roll_call(helpdesk: Helpdesk, held: set[str], checks: int) -> list[Departure] | None:
    """The held tickets (the helpdesk's ids) that are no longer in the connected queue, each
    confirmed by reading it (at most `checks` of them: the rest wait for the next roll call),
    so that a ticket is never dropped on a listing's say-so alone; None where the helpdesk's
    changes tell of every departure."""
    present = helpdesk.roll_call()
    if present is None:
        return None
    missing = sorted(held - present, key=lambda r: (len(r), r))[:checks]
    gone: list[Departure] = []
    for remote in missing:
        try:
            helpdesk.current(remote)
        except GoneError as exc:
            gone.append(Departure(remote, exc.why))
        except SignInError:
            raise
        except NotAllowedError:
            gone.append(Departure(remote, "moved"))  # into a queue this sign-in cannot see
    return gone


def _apply_one(
    conn: sqlite3.Connection,
    kind: str,
    ticket: RemoteTicket,
    read_at: float,
    reads_back: Callable[[str, Any], Any],
    people: dict[str, str],
    grouped: dict[tuple[str, str], list[str]],
    applied: Applied,
) -> None:
    console = ticket_id(kind, ticket.remote_id)
    assignee = _person(conn, kind, ticket.assignee, people)
    here = tables.ticket(conn, console)
    if here is None:
        position = conn.execute("SELECT coalesce(max(n), -1) + 1 FROM ticket_text").fetchone()[0]
        row = _row(kind, ticket, int(position))
        ticket_tables.insert_rows(conn, [(*row[:8], assignee, *row[9:])])
        hd.map_ids(conn, "ticket", [(console, ticket.remote_id)])
        hd.write_seen(conn, console, ticket)
        applied.arrived += 1
        return
    busy = hd.busy_fields(conn, console, read_at)
    for name in SENT_FIELDS:
        if name in busy:
            continue
        theirs: Any = assignee if name == "assignee" else ticket.value(name)
        mine: Any = getattr(here, name)
        if name == "assignee":
            same = mine == theirs
        else:
            same = _plain(name, reads_back(name, mine)) == _plain(name, theirs)
        if not same:
            tables.write_field(conn, console, name, _plain(name, theirs))
            key = (name, json.dumps(theirs, separators=(",", ":")))
            grouped.setdefault(key, []).append(console)
    if (here.subject, here.body, here.requester) != (ticket.subject, ticket.body, ticket.requester):
        _retext(conn, console, ticket)
        applied.retext += 1
    if not busy:
        hd.write_seen(conn, console, ticket)


def _plain(name: str, value: Any) -> Any:
    return sorted(value or ()) if name == "tags" else value


def _person(
    conn: sqlite3.Connection, kind: str, remote: str | None, people: dict[str, str]
) -> str | None:
    """The console's id of a helpdesk person, added to the queue's people if new."""
    if remote is None:
        return None
    known = people.get(remote)
    if known is not None:
        return known
    console = person_id(kind, remote)
    hd.map_ids(conn, "person", [(console, remote)])
    assignees = list(read_meta(conn, "assignees") or [])
    if not any(a.get("id") == console for a in assignees):
        assignees.append({"id": console, "name": remote})
        write_meta(conn, "assignees", assignees)
    people[remote] = console
    return console


def _retext(conn: sqlite3.Connection, console: str, ticket: RemoteTicket) -> None:
    conn.execute(
        "UPDATE ticket_text SET subject = ?, body = ?, requester = ? WHERE id = ?",
        (ticket.subject, ticket.body, ticket.requester, console),
    )
    row = conn.execute("SELECT n, created FROM ticket_text WHERE id = ?", (console,)).fetchone()
    conn.execute(
        "UPDATE ticket_hay SET hay = ? WHERE n = ?",
        (haystack(console, ticket.subject, ticket.body, ticket.requester), row[0]),
    )


def now() -> float:
    return time.time()
