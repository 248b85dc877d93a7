"""The queue's tables: their layout, a ticket as the page's JSON, and whole queues written.

A ticket is three rows, split by how they are used (database.py, migration 6):
- ticket_text: what the customer wrote (id, subject, body, requester, created), never changed
  by a command;
- ticket_hay: what a search looks in, lower-cased once when the ticket arrives;
- ticket_fields: what commands change (status, priority, assignee, tags, reply draft).
A set-based command over 100,000 tickets then rewrites only the small rows it changes, and a
search scans only the text it needs. The view `tickets` joins them back into one row per ticket
for readers (saving a queue file, checks, tests). `n` is the ticket's place in the queue.

The layout sits here, with the migrations that create it, rather than beside the commands
(model/tables.py): the database is below the model, and the queue's copy (queue_store.py) and
the migrations write whole queues without the model. Everything here runs inside a writer
transaction (database.py) on its connection.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Sequence

from understudy_desktop.js_text import haystack

CREATE_TABLES = """
CREATE TABLE ticket_text (
    n INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    requester TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE ticket_hay (n INTEGER PRIMARY KEY, hay TEXT NOT NULL);
CREATE TABLE ticket_fields (
    n INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    priority TEXT NOT NULL,
    assignee TEXT,
    tags TEXT NOT NULL,
    reply_draft TEXT NOT NULL
)
"""
_PLAIN_TAG = re.compile(r"[a-z0-9_.:/+-]*")

# One ticket as the page's JSON, built by SQLite itself (100,000 tickets in well under a
# second, with no Python object per ticket). Reads the `tickets` view.
TICKET_JSON = (
    "json_object('id', id, 'subject', subject, 'body', body, 'requester', requester, "
    "'created', created, 'status', status, 'priority', priority, 'assignee', assignee, "
    "'tags', json(tags), 'reply_draft', reply_draft)"
)


def tags_text(tags: Sequence[str]) -> str:
    """Tags as the JSON text they are stored as: compact, UTF-8 as it is (SQLite's own JSON
    functions write the same spelling). Nearly every tag is plain, written directly."""
    if all(_PLAIN_TAG.fullmatch(t) for t in tags):
        return '["' + '","'.join(tags) + '"]' if tags else "[]"
    text = json.dumps(list(tags), separators=(",", ":"), ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (JSON allows "\ud800"): keep it escaped
        text = json.dumps(list(tags), separators=(",", ":"))
    return text


# --- whole queues -----------------------------------------------------------------------------
Row = tuple[str, int, str, str, str, str, str, str, str | None, str, str]


def insert_rows(conn: sqlite3.Connection, rows: Iterable[Row]) -> int:
    """Insert tickets (id, position, subject, body, requester, created, status, priority,
    assignee, tags as JSON text, reply draft); returns how many."""
    rows = list(rows)
    conn.executemany(
        "INSERT INTO ticket_text (n, id, subject, body, requester, created) VALUES (?,?,?,?,?,?)",
        ((r[1], r[0], r[2], r[3], r[4], r[5]) for r in rows),
    )
    conn.executemany(
        "INSERT INTO ticket_hay (n, hay) VALUES (?, ?)",
        ((r[1], haystack(r[0], r[2], r[3], r[4])) for r in rows),
    )
    conn.executemany(
        "INSERT INTO ticket_fields (n, id, status, priority, assignee, tags, reply_draft)"
        " VALUES (?,?,?,?,?,?,?)",
        ((r[1], r[0], r[6], r[7], r[8], r[9], r[10]) for r in rows),
    )
    return len(rows)


def remove_ticket(conn: sqlite3.Connection, ticket_id: str) -> bool:
    """One ticket out of the queue (a helpdesk ticket that left it); the others keep their
    positions, and a gap in them is harmless (the queue is read in their order)."""
    row = conn.execute("SELECT n FROM ticket_text WHERE id = ?", (ticket_id,)).fetchone()
    if row is None:
        return False
    for table in ("ticket_fields", "ticket_hay", "ticket_text"):
        conn.execute(f"DELETE FROM {table} WHERE n = ?", (row[0],))
    return True


def clear(conn: sqlite3.Connection) -> None:
    for table in ("ticket_fields", "ticket_hay", "ticket_text"):
        conn.execute(f"DELETE FROM {table}")
