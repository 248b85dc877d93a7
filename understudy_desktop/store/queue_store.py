"""The queue's durable copy: tickets, the file the queue came from, and a journal of changes,
in the app's SQLite database.

The shell's model (model/service.py) applies every command here, and a change is
acknowledged (the person's "saved", an agent's tool result) only after COMMIT; a run is one
transaction, all or nothing. The tables are ticket_tables.py's. The page's IndexedDB is a cache
of this copy: each queue has a generation (a new one whenever a queue
replaces another) and a revision (one up per committed change), and the page's cache is used
only when it says it holds exactly this generation and revision, with nothing unsaved.
"""

from __future__ import annotations

import json
import logging
import secrets
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from understudy_desktop.qt_thread import call_on_main
from understudy_desktop.queue_io.models import Ticket
from understudy_desktop.store import ticket_tables
from understudy_desktop.store.database import Database
from understudy_desktop.store.ticket_tables import TICKET_JSON

log = logging.getLogger(__name__)

Row = ticket_tables.Row


def ticket_row(ticket: Any, position: int) -> Row:
    """A ticket (a queue_io Ticket) as a database row; its tags sorted, as commands keep them."""
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
        ticket_tables.tags_text(sorted(ticket.tags)),
        ticket.reply_draft or "",
    )


class QueueStoreError(Exception):
    """A change could not be kept; str() is for a person."""


@dataclass(frozen=True)
class QueueState:
    generation: str
    revision: int
    tickets: int


def _dumps(value: Any) -> str:
    # ASCII with escapes: a lone surrogate from a ticket's text (JSON allows "\ud800") could
    # not be stored as UTF-8, and SQLite's JSON functions read the escapes back exactly.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True)


# Characters of a long string, or items of a long list, encoded per call (see _source_json).
_TEXT_SLICE = 1 << 18
_ITEMS_SLICE = 2_000


def _source_json(source: dict[str, Any] | None) -> str:
    """`_dumps(source)`, made a piece at a time: the file's whole text (a CSV export's, kept
    for a faithful save) and its long lists and maps (where each record lies, a JSON export's
    records) in one call each would hold the interpreter, and every thread with it, the
    window's too, for up to a quarter of a second at 100,000 tickets. The pieces are joined
    once, at the end: each join of 50 MB is a copy of it. A slice of a str never parts a
    character, so the slices' escapes joined are the whole text's."""
    pieces: list[str] = []
    _add_pieces(source, pieces, top=True)
    return "".join(pieces)


def _add_pieces(value: Any, pieces: list[str], top: bool = False) -> None:
    if isinstance(value, str) and len(value) > _TEXT_SLICE:
        pieces.append('"')
        for at in range(0, len(value), _TEXT_SLICE):
            pieces.append(_dumps(value[at : at + _TEXT_SLICE])[1:-1])
        pieces.append('"')
    elif isinstance(value, list) and len(value) > _ITEMS_SLICE:
        pieces.append("[")
        for at in range(0, len(value), _ITEMS_SLICE):
            pieces.append("," if at else "")
            pieces.append(_dumps(value[at : at + _ITEMS_SLICE])[1:-1])
        pieces.append("]")
    elif isinstance(value, dict) and (top or len(value) > _ITEMS_SLICE):
        pieces.append("{")
        for index, (key, item) in enumerate(value.items()):
            pieces.append(f",{_dumps(key)}:" if index else f"{_dumps(key)}:")
            _add_pieces(item, pieces)
        pieces.append("}")
    else:
        pieces.append(_dumps(value))


def _meta(conn: sqlite3.Connection, key: str, value: Any) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO queue_meta (key, value) VALUES (?, ?)", (key, _dumps(value))
    )


def bump_revision(conn: sqlite3.Connection) -> int:
    """One revision up: every committed change to the tickets has its own."""
    row = conn.execute("SELECT value FROM queue_meta WHERE key = 'revision'").fetchone()
    revision = (int(json.loads(row[0])) if row else 0) + 1
    _meta(conn, "revision", revision)
    return revision


def journal(
    conn: sqlite3.Connection,
    actor: str,
    command: str,
    changes: Any,
    tool: str = "",
    client: str = "",
) -> None:
    """Who changed what: one row per committed change (a person's command, a run, an undo)."""
    conn.execute(
        "INSERT INTO journal (at, actor, tool, client, command, changes) VALUES (?, ?, ?, ?, ?, ?)",
        (time.time(), actor, tool, client, command, _dumps(changes)),
    )


def read_meta(conn: sqlite3.Connection, key: str) -> Any:
    row = conn.execute("SELECT value FROM queue_meta WHERE key = ?", (key,)).fetchone()
    return json.loads(row[0]) if row else None


def write_meta(conn: sqlite3.Connection, key: str, value: Any) -> None:
    _meta(conn, key, value)


def write_queue(
    conn: sqlite3.Connection,
    meta: dict[str, Any],
    rows: list[Row],
    source: dict[str, Any] | None,
    generation: str,
    hooks: Sequence[Callable[[sqlite3.Connection, dict[str, Any]], None]] = (),
) -> QueueState:
    """Replace every ticket with `rows`, and the queue's name, people, templates, view and
    source with `meta`'s, as the new `generation`; inside the caller's transaction."""
    ticket_tables.clear(conn)
    ticket_tables.insert_rows(conn, rows)
    _meta(conn, "generation", generation)
    _meta(conn, "name", meta.get("name"))
    _meta(conn, "assignees", meta.get("assignees") or [])
    _meta(conn, "templates", meta.get("templates") or [])
    _meta(conn, "view", meta.get("view"))
    conn.execute(
        "INSERT OR REPLACE INTO queue_meta (key, value) VALUES ('source', ?)",
        (_source_json(source),),
    )
    for hook in hooks:
        hook(conn, meta)
    revision = bump_revision(conn)
    return QueueState(generation, revision, len(rows))


class QueueStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        # Run inside a queue replacement's own transaction (the model resets the person's view
        # there, so no command submitted after the new queue acts on the old one's view).
        self.on_replace: list[Callable[[sqlite3.Connection, dict[str, Any]], None]] = []

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
        also: Callable[[sqlite3.Connection], None] | None = None,
    ) -> str:
        """A whole new queue as rows (ticket_row): one transaction, and a new generation, so
        no page cache of the old queue is ever taken for it. `meta` gives the name, people,
        templates and view; `also` writes what belongs with it, in the same transaction.
        Returns the generation at once (the page may show the queue while
        it is being saved)."""
        document = meta
        generation = generation or secrets.token_hex(8)

        hooks = list(self.on_replace)
        if also is not None:  # what comes with this queue (a helpdesk's link), after the hooks
            hooks.append(lambda conn, _meta: also(conn))

        def work(conn: sqlite3.Connection) -> QueueState:
            state = write_queue(conn, document, rows, source, generation, hooks)
            conn.execute(
                "INSERT INTO journal (at, actor, tool, client, command, changes)"
                " VALUES (?, 'person', '', '', ?, ?)",
                (time.time(), "open_queue", _dumps({"origin": origin, "tickets": len(rows)})),
            )
            return state

        self._settle(self._db.submit(work), done)
        return generation

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
