"""The queue's durable copy: tickets, the file the queue came from, and a journal of changes,
in the app's SQLite database.

The page applies a change at once (a person sees it), then hands it here; it is
acknowledged (the person's "saved", an agent's tool result) only after COMMIT. A run's
changes are one transaction, so a run is all or nothing on disk as in the page. The page's
IndexedDB is a cache of this copy: each queue has a generation (a new one whenever a queue
replaces another) and a revision (one up per committed change), and the page's cache is used
only when it says it holds exactly this generation and revision, with nothing unsaved.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from understudy_desktop.qt_thread import call_on_main
from understudy_desktop.queue_io.models import Ticket
from understudy_desktop.store.database import Database

log = logging.getLogger(__name__)

# Ticket fields a change may write (the page's ticket shape; see js/queue_state.js). Each is
# a column, so a change is a plain UPDATE; tags are kept as JSON text.
CHANGEABLE = frozenset({"status", "priority", "assignee", "tags", "reply_draft"})
COLUMNS = (
    "id",
    "subject",
    "body",
    "requester",
    "created",
    "status",
    "priority",
    "assignee",
    "tags",
    "reply_draft",
)
# One ticket as the page's JSON, built by SQLite itself (a 100,000-ticket queue in well under a
# second, with no Python object per ticket).
TICKET_JSON = (
    "json_object('id', id, 'subject', subject, 'body', body, 'requester', requester, "
    "'created', created, 'status', status, 'priority', priority, 'assignee', assignee, "
    "'tags', json(tags), 'reply_draft', reply_draft)"
)
Row = tuple[str, int, str, str, str, str, str, str, str | None, str, str]


_PLAIN_TAG = re.compile(r"[a-z0-9_.:/+-]*")


def tags_json(tags: list[str]) -> str:
    """Tags as JSON text. Nearly every tag is plain (a-z, digits, - and _), and writing those
    directly is ten times faster than json.dumps, which adds up over 100,000 tickets."""
    if all(_PLAIN_TAG.fullmatch(t) for t in tags):
        return '["' + '","'.join(tags) + '"]' if tags else "[]"
    return json.dumps(list(tags))


def ticket_row(ticket: Any, position: int) -> Row:
    """A ticket (a queue_io Ticket) as a database row."""
    return (
        str(ticket.id),
        position,
        ticket.subject,
        ticket.body,
        ticket.requester,
        ticket.created,
        ticket.status,
        ticket.priority,
        ticket.assignee,
        tags_json(ticket.tags),
        ticket.reply_draft or "",
    )


class QueueStoreError(Exception):
    """A change could not be kept; str() is for a person."""


@dataclass(frozen=True)
class Change:
    ticket_id: str
    field: str
    after: Any


@dataclass(frozen=True)
class QueueState:
    generation: str
    revision: int
    tickets: int


@dataclass(frozen=True)
class Committed:
    revision: int
    changed: int


def _dumps(value: Any) -> str:
    # ASCII with escapes: a lone surrogate from a ticket's text (JSON allows "\ud800") could
    # not be stored as UTF-8, and SQLite's JSON functions read the escapes back exactly.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True)


def _column(change: Change) -> Any:
    if change.field == "tags":
        return json.dumps(list(change.after or []))
    return change.after


def _meta(conn: sqlite3.Connection, key: str, value: Any) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO queue_meta (key, value) VALUES (?, ?)", (key, _dumps(value))
    )


def _bump(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM queue_meta WHERE key = 'revision'").fetchone()
    revision = (int(json.loads(row[0])) if row else 0) + 1
    _meta(conn, "revision", revision)
    return revision


class QueueStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        self.enabled = True  # off only for the durability benchmark's comparison arm

    # --- reads (any thread) ------------------------------------------------------------
    def state(self) -> QueueState | None:
        rows = {
            r["key"]: json.loads(r["value"])
            for r in self._db.read(
                "SELECT key, value FROM queue_meta WHERE key IN ('generation', 'revision')"
            )
        }
        if "generation" not in rows:
            return None
        count = self._db.read("SELECT COUNT(*) FROM tickets")[0][0]
        return QueueState(str(rows["generation"]), int(rows.get("revision", 0)), int(count))

    def meta(self, key: str) -> Any:
        rows = self._db.read("SELECT value FROM queue_meta WHERE key = ?", (key,))
        return json.loads(rows[0][0]) if rows else None

    def document_json(self) -> bytes:
        """The whole queue as the page's queue document."""
        meta = {
            r["key"]: r["value"]
            for r in self._db.read(
                "SELECT key, value FROM queue_meta WHERE key IN "
                "('name', 'assignees', 'templates', 'view', 'generation', 'revision')"
            )
        }
        tickets = [
            r[0] for r in self._db.read(f"SELECT {TICKET_JSON} FROM tickets ORDER BY position")
        ]
        parts = [
            '{"format":"understudy-queue","version":1',
            f',"name":{meta.get("name", "null")}',
            f',"assignees":{meta.get("assignees", "[]")}',
            f',"templates":{meta.get("templates", "[]")}',
            f',"view":{meta.get("view", "null")}',
            f',"generation":{meta.get("generation", "null")}',
            f',"revision":{meta.get("revision", "0")}',
            ',"tickets":[',
            ",".join(tickets),
            "]}",
        ]
        return "".join(parts).encode("utf-8")

    # --- writes (answered on the Qt thread, after COMMIT) -------------------------------
    def replace(
        self,
        document: dict[str, Any],
        source: dict[str, Any] | None,
        origin: str,
        done: Callable[[QueueState | Exception], None],
    ) -> None:
        """A whole new queue (the demo queue the first time, a document in hand), each ticket
        in the page's own shape (every field present)."""
        tickets = [Ticket.model_validate(t) for t in document.get("tickets") or []]
        rows = [ticket_row(t, i) for i, t in enumerate(tickets)]
        self.replace_rows(document, rows, source, origin, done)

    def replace_rows(
        self,
        meta: dict[str, Any],
        rows: list[Row],
        source: dict[str, Any] | None,
        origin: str,
        done: Callable[[QueueState | Exception], None],
        generation: str | None = None,
    ) -> str:
        """A whole new queue as rows (ticket_row): one transaction, and a new generation, so
        no page cache of the old queue is ever taken for it. `meta` gives the name, people,
        templates and view. Returns the generation at once (the page may show the queue while
        it is being saved)."""
        document = meta
        generation = generation or secrets.token_hex(8)
        if not self.enabled:
            call_on_main(done, QueueState(generation, 0, len(rows)))
            return generation

        def work(conn: sqlite3.Connection) -> QueueState:
            conn.execute("DELETE FROM tickets")
            conn.executemany(
                "INSERT INTO tickets (id, position, subject, body, requester, created, status,"
                " priority, assignee, tags, reply_draft) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                rows,
            )
            _meta(conn, "generation", generation)
            _meta(conn, "name", document.get("name"))
            _meta(conn, "assignees", document.get("assignees") or [])
            _meta(conn, "templates", document.get("templates") or [])
            _meta(conn, "view", document.get("view"))
            _meta(conn, "source", source)
            revision = _bump(conn)
            conn.execute(
                "INSERT INTO journal (at, actor, tool, client, command, changes)"
                " VALUES (?, 'person', '', '', ?, ?)",
                (time.time(), "open_queue", _dumps({"origin": origin, "tickets": len(rows)})),
            )
            return QueueState(generation, revision, len(rows))

        self._settle(self._db.submit(work), done)
        return generation

    def apply(
        self,
        changes: Iterable[Change],
        actor: str,
        command: str,
        done: Callable[[Committed | Exception], None],
        tool: str = "",
        client: str = "",
    ) -> None:
        """Changes as one transaction, journalled with who made them."""
        batch = [c for c in changes if c.field in CHANGEABLE]
        if not self.enabled:
            call_on_main(done, Committed(0, len(batch)))
            return

        def work(conn: sqlite3.Connection) -> Committed:
            updated = 0
            for fld in CHANGEABLE:
                some = [c for c in batch if c.field == fld]
                if not some:
                    continue
                # `fld` is one of the fixed column names above, never text from a message.
                cursor = conn.executemany(
                    f"UPDATE tickets SET {fld} = ? WHERE id = ?",
                    ((_column(c), c.ticket_id) for c in some),
                )
                updated += cursor.rowcount
            if updated < len(batch):
                raise QueueStoreError("A change names a ticket that is not in the queue.")
            revision = _bump(conn)
            conn.execute(
                "INSERT INTO journal (at, actor, tool, client, command, changes)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    time.time(),
                    actor,
                    tool,
                    client,
                    command,
                    _dumps([[c.ticket_id, c.field, c.after] for c in batch]),
                ),
            )
            return Committed(revision, len(batch))

        self._settle(self._db.submit(work), done)

    def remember_view(self, view: dict[str, Any]) -> None:
        """The person's filter and open ticket, for the next start (not a change to tickets)."""

        def work(conn: sqlite3.Connection) -> None:
            _meta(conn, "view", view)

        self._db.submit(work)

    def rows(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """Some tickets as the page has them (for checks and tests)."""
        marks = ",".join("?" for _ in ids)
        found = self._db.read(
            f"SELECT id, {TICKET_JSON} FROM tickets WHERE id IN ({marks})", tuple(ids)
        )
        return {str(r[0]): json.loads(r[1]) for r in found}

    @staticmethod
    def _settle(future: Future[Any], done: Callable[[Any], None]) -> None:
        def settled(f: Future[Any]) -> None:
            exc = f.exception()
            if exc is not None:
                log.error("a queue change could not be saved: %s", exc)
                call_on_main(done, exc)
            else:
                call_on_main(done, f.result())

        future.add_done_callback(settled)
