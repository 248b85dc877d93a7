"""The SQL the commands run on the queue's tables (store/ticket_tables.py): finding the
tickets a filter matches, one ticket read and written, and every match changed at once.

Everything here runs inside a writer transaction (store/database.py) on its connection.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from understudy_desktop.js_text import needle
from understudy_desktop.model.views import UNASSIGNED, Filter
from understudy_desktop.store.ticket_tables import tags_text

FIELDS = ("status", "priority", "assignee", "tags", "reply_draft")
SCALARS = ("status", "priority", "assignee", "reply_draft")
MAX_TAGS = 20


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
