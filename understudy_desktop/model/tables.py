"""The queue's tables and the SQL the commands run on them.

A ticket is three rows, split by how they are used (store/database.py, migration 6):
- ticket_text: what the customer wrote (id, subject, body, requester, created), never changed
  by a command;
- ticket_hay: what a search looks in, lower-cased once when the ticket arrives;
- ticket_fields: what commands change (status, priority, assignee, tags, reply draft).
A set-based command over 100,000 tickets then rewrites only the small rows it changes, and a
search scans only the text it needs. The view `tickets` joins them back into one row per ticket
for readers (saving a queue file, checks, tests). `n` is the ticket's place in the queue.

Everything here runs inside a writer transaction (store/database.py) on its connection.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from understudy_desktop.model.text import haystack, needle
from understudy_desktop.model.views import UNASSIGNED, Filter

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
FIELDS = ("status", "priority", "assignee", "tags", "reply_draft")
SCALARS = ("status", "priority", "assignee", "reply_draft")
MAX_TAGS = 20
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


def column_value(field: str, value: Any) -> Any:
    return tags_text(value) if field == "tags" else value


def stored_value(field: str, raw: Any) -> Any:
    return json.loads(raw) if field == "tags" else raw


# --- finding tickets --------------------------------------------------------------------------
def _has_tag(column: str, param: str) -> str:
    """SQL: `column` (tags as JSON text) holds the tag bound to `param`. The plain substring
    test is exact for a tag of the catalogue's pattern when the text has no escapes, which is
    nearly always; otherwise SQLite's JSON reader decides."""
    return (
        f"(instr({column}, '\"' || {param} || '\"') > 0 AND (instr({column}, '\\') = 0"
        f" OR EXISTS (SELECT 1 FROM json_each({column}) WHERE value = {param})))"
    )


class Searches:
    """The tickets whose text holds a phrase, found once per transaction: a run that searches
    and then changes every match in three steps scans the text once, not three times (the
    text never changes; the other criteria are checked afresh at each step)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._tables: dict[str, str] = {}

    def table(self, words: str) -> str:
        found = self._tables.get(words)
        if found is not None:
            return found
        name = f"temp.hits{len(self._tables)}"
        self._conn.execute(
            f"CREATE TEMP TABLE IF NOT EXISTS hits{len(self._tables)} (n INTEGER PRIMARY KEY)"
        )
        self._conn.execute(f"DELETE FROM {name}")
        self._conn.execute(
            f"INSERT INTO {name} SELECT n FROM ticket_hay WHERE instr(hay, ?) > 0", (words,)
        )
        self._tables[words] = name
        return name


def where(flt: Filter, searches: Searches | None = None) -> tuple[str, list[Any]]:
    """A WHERE clause over ticket_fields for the tickets `flt` matches, as the page's
    ticketMatches does (js/queue_state.js)."""
    clauses: list[str] = []
    params: list[Any] = []
    if flt.status:
        clauses.append("ticket_fields.status = ?")
        params.append(flt.status)
    if flt.priority:
        clauses.append("ticket_fields.priority = ?")
        params.append(flt.priority)
    if flt.assignee:
        if flt.assignee == UNASSIGNED:
            clauses.append("ticket_fields.assignee IS NULL")
        else:
            clauses.append("ticket_fields.assignee = ?")
            params.append(flt.assignee)
    if flt.tag:
        clauses.append(_has_tag("ticket_fields.tags", "?"))
        params += [flt.tag, flt.tag]
    words = needle(flt.text)
    if words and searches is not None:
        clauses.append(f"ticket_fields.n IN {searches.table(words)}")
    elif words:
        clauses.append("ticket_fields.n IN (SELECT n FROM ticket_hay WHERE instr(hay, ?) > 0)")
        params.append(words)
    return (" AND ".join(clauses) or "1"), params


def count_matching(conn: sqlite3.Connection, flt: Filter, searches: Searches | None = None) -> int:
    clause, params = where(flt, searches)
    return int(
        conn.execute(f"SELECT count(*) FROM ticket_fields WHERE {clause}", params).fetchone()[0]
    )


def first_matching(
    conn: sqlite3.Connection, flt: Filter, limit: int, searches: Searches | None = None
) -> tuple[int, list[str]]:
    """How many tickets match, and the first `limit` ids in queue order. Two statements: a
    count, and the first rows in the table's own order; one with count(*) OVER () would keep
    every match to count them (100,000 matches: 53 ms against 8 ms)."""
    clause, params = where(flt, searches)
    matched = int(
        conn.execute(f"SELECT count(*) FROM ticket_fields WHERE {clause}", params).fetchone()[0]
    )
    if not matched:
        return 0, []
    rows = conn.execute(
        f"SELECT id FROM ticket_fields WHERE {clause} ORDER BY n LIMIT ?", [*params, limit]
    ).fetchall()
    return matched, [r[0] for r in rows]


# --- one ticket -------------------------------------------------------------------------------
@dataclass(frozen=True)
class TicketRow:
    id: str
    subject: str
    body: str
    requester: str
    created: str
    status: str
    priority: str
    assignee: str | None
    tags: list[str]
    reply_draft: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "subject": self.subject,
            "body": self.body,
            "requester": self.requester,
            "created": self.created,
            "status": self.status,
            "priority": self.priority,
            "assignee": self.assignee,
            "tags": list(self.tags),
            "reply_draft": self.reply_draft,
        }

    def value(self, field: str) -> Any:
        return list(self.tags) if field == "tags" else getattr(self, field)


def ticket(conn: sqlite3.Connection, ticket_id: str) -> TicketRow | None:
    row = conn.execute(
        "SELECT t.id, t.subject, t.body, t.requester, t.created, f.status, f.priority,"
        " f.assignee, f.tags, f.reply_draft FROM ticket_fields f JOIN ticket_text t USING (n)"
        " WHERE f.id = ?",
        (ticket_id,),
    ).fetchone()
    if row is None:
        return None
    return TicketRow(
        id=row[0],
        subject=row[1],
        body=row[2],
        requester=row[3],
        created=row[4],
        status=row[5],
        priority=row[6],
        assignee=row[7],
        tags=json.loads(row[8]),
        reply_draft=row[9],
    )


def write_field(conn: sqlite3.Connection, ticket_id: str, field: str, value: Any) -> None:
    # `field` is one of FIELDS (checked by the caller), never text from a message.
    assert field in FIELDS
    conn.execute(
        f"UPDATE ticket_fields SET {field} = ? WHERE id = ?",
        (column_value(field, value), ticket_id),
    )


def write_if(
    conn: sqlite3.Connection, ticket_id: str, field: str, expected: Any, value: Any
) -> bool:
    """Write `value` only where the field still holds `expected` (undo and redo never touch a
    field someone changed since). True if it was written."""
    assert field in FIELDS
    test = "json(tags) = json(?)" if field == "tags" else f"{field} IS ?"
    cursor = conn.execute(
        f"UPDATE ticket_fields SET {field} = ? WHERE id = ? AND {test}",
        (column_value(field, value), ticket_id, column_value(field, expected)),
    )
    return cursor.rowcount > 0


# --- every matching ticket at once ------------------------------------------------------------
def set_matching(
    conn: sqlite3.Connection,
    flt: Filter,
    field: str,
    value: Any,
    want_before: bool,
    searches: Searches | None = None,
) -> tuple[tuple[str, ...], tuple[Any, ...] | None]:
    """Set a scalar field on every match that differs; returns the ids of the changed tickets
    in queue order, and their values before (only when asked: a run rolls back by
    transaction)."""
    assert field in SCALARS
    clause, params = where(flt, searches)
    differs = f"ticket_fields.{field} IS NOT ?"
    # The rows first, then one UPDATE over the same rows, inside the same transaction: an
    # UPDATE ... RETURNING keeps every changed row aside before handing it over, which costs
    # more than reading them (100,000 matches: 135 ms against 104 ms).
    wanted = f"id, {field}" if want_before else "id"
    rows = conn.execute(
        f"SELECT {wanted} FROM ticket_fields WHERE {clause} AND {differs} ORDER BY n",
        [*params, value],
    ).fetchall()
    if not rows:
        return (), (() if want_before else None)
    conn.execute(
        f"UPDATE ticket_fields SET {field} = ? WHERE {clause} AND {differs}",
        [value, *params, value],
    )
    ids = tuple([r[0] for r in rows])
    return ids, (tuple([r[1] for r in rows]) if want_before else None)


_ADD_TAG = (
    "CASE WHEN tags = '[]' THEN json_array(?1)"
    " WHEN instr(tags, '\\') = 0 AND ?1 > json_extract(tags, '$[#-1]')"
    "   THEN substr(tags, 1, length(tags) - 1) || ',\"' || ?1 || '\"]'"
    " ELSE (SELECT json_group_array(value) FROM (SELECT value FROM json_each(ticket_fields.tags)"
    "   UNION ALL SELECT ?1 ORDER BY 1)) END"
)
_REMOVE_TAG = (
    "(SELECT json_group_array(value) FROM (SELECT value FROM json_each(ticket_fields.tags)"
    " WHERE value != ?1 ORDER BY key))"
)


def tag_matching(
    conn: sqlite3.Connection,
    flt: Filter,
    tag: str,
    add: bool,
    want_before: bool,
    searches: Searches | None = None,
) -> list[tuple[str, list[str] | None, list[str] | None]]:
    """Add `tag` to every match that lacks it and has room (fewer than 20 tags), or remove it
    from every match that has it. Returns (id, tags after, tags before) per changed ticket, in
    queue order; the tags only when asked (they cost a JSON read per ticket). Tags are kept
    sorted, so the tags before are the tags after with the tag taken out or put back."""
    clause, params = where(flt, searches)
    # ?1 is the tag in the SET expression and the tests below; the filter's own parameters
    # follow, numbered after it.
    has = _has_tag("ticket_fields.tags", "?1")
    if add:
        sql = (
            f"UPDATE ticket_fields SET tags = {_ADD_TAG} WHERE NOT {has}"
            f" AND json_array_length(ticket_fields.tags) < {MAX_TAGS}"
        )
    else:
        sql = f"UPDATE ticket_fields SET tags = {_REMOVE_TAG} WHERE {has}"
    numbered, shifted = _renumber(clause, params, start=2)
    returning = "n, id, tags" if want_before else "n, id"
    rows = conn.execute(f"{sql} AND {numbered} RETURNING {returning}", [tag, *shifted]).fetchall()
    rows.sort()
    if not want_before:
        return [(r[1], None, None) for r in rows]
    out: list[tuple[str, list[str] | None, list[str] | None]] = []
    for _n, ticket_id, text in rows:
        after = json.loads(text)
        before = [t for t in after if t != tag] if add else sorted([*after, tag])
        out.append((ticket_id, after, before))
    return out


def _renumber(clause: str, params: list[Any], start: int) -> tuple[str, list[Any]]:
    """Turn the clause's bare ? into ?start, ?start+1, ... (a statement cannot mix them)."""
    parts = clause.split("?")
    text = parts[0]
    for i, part in enumerate(parts[1:]):
        text += f"?{start + i}{part}"
    return text, params


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
