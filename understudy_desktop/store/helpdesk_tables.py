"""The connected helpdesk's tables and the outbox's triggers, as migrations 8 and 9
(database.py) create them. What is read and written in them is helpdesk/tables.py's.

They sit here, with the migrations, because the database is below the helpdesk: the store
creates every table without importing the packages that use them. The triggers are the one
source of what reaches the outbox, so the fields they watch (SENT_FIELDS) are named here too.
"""

from __future__ import annotations

import sqlite3

# The fields a connected queue sends to its helpdesk: each has a trigger on ticket_fields.
SENT_FIELDS = ("status", "priority", "assignee", "tags")

_TRIGGER = """
CREATE TRIGGER outbox_{field} AFTER UPDATE OF {field} ON ticket_fields
WHEN NEW.{field} IS NOT OLD.{field} AND EXISTS (
    SELECT 1 FROM helpdesk_link
    WHERE quiet = 0 AND instr(fields, ',{field},') > 0
      AND generation = (SELECT json_extract(value, '$') FROM queue_meta WHERE key = 'generation')
)
BEGIN
    INSERT INTO outbox (ticket, field, value, base, at)
    VALUES (
        NEW.id, '{field}', {new_value},
        coalesce((SELECT fields -> '$.{field}' FROM helpdesk_seen WHERE ticket = NEW.id), 'null'),
        (julianday('now') - 2440587.5) * 86400.0
    );
END
"""


def _trigger(field: str) -> str:
    new_value = "NEW.tags" if field == "tags" else f"json_quote(NEW.{field})"
    return _TRIGGER.format(field=field, new_value=new_value)


_TABLES = """
    CREATE TABLE helpdesk_link (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        kind TEXT NOT NULL,
        generation TEXT NOT NULL,
        settings TEXT NOT NULL,
        fields TEXT NOT NULL,
        cursor TEXT NOT NULL DEFAULT '',
        quiet INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE helpdesk_ids (
        kind TEXT NOT NULL CHECK (kind IN ('ticket', 'person', 'template')),
        console_id TEXT NOT NULL,
        remote_id TEXT NOT NULL,
        PRIMARY KEY (kind, console_id),
        UNIQUE (kind, remote_id)
    );
    CREATE TABLE helpdesk_seen (
        ticket TEXT PRIMARY KEY,
        version TEXT NOT NULL,
        updated TEXT NOT NULL,
        fields TEXT NOT NULL
    );
    CREATE TABLE outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        ticket TEXT NOT NULL,
        field TEXT NOT NULL,
        value TEXT NOT NULL,
        base TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'waiting'
            CHECK (state IN ('waiting', 'sent', 'refused', 'conflict', 'settled')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_at REAL NOT NULL DEFAULT 0,
        words TEXT NOT NULL DEFAULT '',
        theirs TEXT,
        at REAL NOT NULL,
        done_at REAL
    );
    CREATE INDEX outbox_open ON outbox (state, ticket, field) WHERE state != 'sent'
    """


LEFT_TABLE = """
    CREATE TABLE helpdesk_left (
        ticket TEXT PRIMARY KEY,
        subject TEXT NOT NULL,
        why TEXT NOT NULL CHECK (why IN ('moved', 'deleted')),
        unsent INTEGER NOT NULL,
        at REAL NOT NULL
    )
    """


def create_left_table(conn: sqlite3.Connection) -> None:
    """Migration 9 (database.py)."""
    conn.execute(LEFT_TABLE)


def create_tables(conn: sqlite3.Connection) -> None:
    """Migration 8 (database.py). A trigger's body holds semicolons, so each statement
    is run on its own rather than split from one script."""
    for statement in _TABLES.split(";"):
        conn.execute(statement)
    for field in SENT_FIELDS:
        conn.execute(_trigger(field))


def watch_changes(conn: sqlite3.Connection) -> None:
    """The outbox's triggers exist exactly while a helpdesk is linked (migration 11, and
    whenever the link is written or forgotten, in that write's own transaction).

    A trigger costs every UPDATE of its field a row image and a check per row, even when its
    condition is false: a change to 100,000 tickets took ~60 ms longer with them there and no
    helpdesk to send to. Created with the link, in the same transaction, they never miss a
    change made while it stands."""
    linked = conn.execute("SELECT 1 FROM helpdesk_link").fetchone() is not None
    there = {
        str(row[0]) for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    }
    for field in SENT_FIELDS:
        name = f"outbox_{field}"
        if linked and name not in there:
            conn.execute(_trigger(field))
        elif not linked and name in there:
            conn.execute(f"DROP TRIGGER {name}")
