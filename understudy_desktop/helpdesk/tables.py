"""The helpdesk's tables in the app's database, and the SQL on them (the migrations create
them and the outbox's triggers: store/helpdesk_tables.py).

- helpdesk_link: the one connected queue (which helpdesk, which generation of the queue, the
  fields it sends), and `quiet`, set only inside a sync's own transaction so that what the
  helpdesk changed is not sent back to it.
- helpdesk_ids: the helpdesk's id of each ticket, person and template, beside the console's.
- helpdesk_seen: each ticket's version and field values as last read from the helpdesk: what
  the person's change was made over.
- helpdesk_left: tickets that left the connected queue (moved to another queue, or deleted,
  in the helpdesk), with what the person is told about them and their changes never sent.
- outbox: every change to a sent field of a connected ticket, one row per changed ticket and
  field, written by triggers on ticket_fields. A trigger runs inside the statement that
  changed the field, so the row is in the same transaction as the change whatever made it (a
  person's click, an agent's run, an undo, a bulk change): no path can forget it. The
  triggers exist only while the link does: writing or forgetting the link makes or drops
  them in the same transaction (watch_changes).

Rows leave the outbox in order (outbox.py); `state` says where each stands.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from understudy_desktop.helpdesk.base import RemoteTicket
from understudy_desktop.store.helpdesk_tables import SENT_FIELDS, watch_changes
from understudy_desktop.store.ticket_tables import remove_ticket

OPEN_STATES = ("waiting", "refused", "conflict")


@dataclass(frozen=True)
class Link:
    kind: str
    generation: str
    settings: dict[str, Any]
    fields: tuple[str, ...]
    cursor: str


@dataclass(frozen=True)
class Outgoing:
    """The changes waiting for one ticket's field, sent as one: the newest value, over the
    helpdesk value the first of them was made over."""

    seqs: tuple[int, ...]
    ticket: str
    field: str
    value: Any
    base: Any
    attempts: int
    earlier: tuple[Any, ...] = ()  # the values of the changes before the newest, in order


def link(conn: sqlite3.Connection) -> Link | None:
    row = conn.execute(
        "SELECT kind, generation, settings, fields, cursor FROM helpdesk_link WHERE id = 1"
    ).fetchone()
    if row is None:
        return None
    fields = tuple(f for f in str(row[3]).split(",") if f)
    return Link(str(row[0]), str(row[1]), json.loads(row[2]), fields, str(row[4]))


def write_link(
    conn: sqlite3.Connection,
    kind: str,
    generation: str,
    settings: dict[str, Any],
    fields: Sequence[str],
    cursor: str,
) -> None:
    """This queue is now the helpdesk's: an earlier connection's link goes. Its changes that
    never reached that helpdesk are kept, settled, for the record (the person agreed to leave
    them unsent: shell/helpdesk_dialog.py asks first)."""
    for table in _LINK_TABLES:
        conn.execute(f"DELETE FROM {table}")
    conn.execute("UPDATE outbox SET state = 'settled' WHERE state != 'sent'")
    conn.execute(
        "INSERT INTO helpdesk_link (id, kind, generation, settings, fields, cursor)"
        " VALUES (1, ?, ?, ?, ?, ?)",
        (kind, generation, json.dumps(settings), "," + ",".join(fields) + ",", cursor),
    )
    watch_changes(conn)


def move_link(conn: sqlite3.Connection, settings: dict[str, Any]) -> None:
    """The same helpdesk at a new address: only the link's settings change; the ids, what
    was read and every waiting change stay."""
    conn.execute("UPDATE helpdesk_link SET settings = ? WHERE id = 1", (json.dumps(settings),))


_LINK_TABLES = ("helpdesk_link", "helpdesk_ids", "helpdesk_seen", "helpdesk_left")


def forget_link(conn: sqlite3.Connection) -> None:
    for table in _LINK_TABLES:
        conn.execute(f"DELETE FROM {table}")
    # What never reached the helpdesk is kept, settled, for the record (journal has it too).
    conn.execute("UPDATE outbox SET state = 'settled' WHERE state != 'sent'")
    watch_changes(conn)


def set_cursor(conn: sqlite3.Connection, cursor: str) -> None:
    conn.execute("UPDATE helpdesk_link SET cursor = ? WHERE id = 1", (cursor,))


def set_quiet(conn: sqlite3.Connection, quiet: bool) -> None:
    conn.execute("UPDATE helpdesk_link SET quiet = ? WHERE id = 1", (1 if quiet else 0,))


# --- ids ---------------------------------------------------------------------------------
def map_ids(conn: sqlite3.Connection, kind: str, pairs: Iterable[tuple[str, str]]) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO helpdesk_ids (kind, console_id, remote_id) VALUES (?, ?, ?)",
        ((kind, c, r) for c, r in pairs),
    )


def remote_id(conn: sqlite3.Connection, kind: str, console_id: str) -> str | None:
    row = conn.execute(
        "SELECT remote_id FROM helpdesk_ids WHERE kind = ? AND console_id = ?",
        (kind, console_id),
    ).fetchone()
    return str(row[0]) if row else None


def console_ids(conn: sqlite3.Connection, kind: str) -> dict[str, str]:
    """remote id -> console id, for every one of `kind`."""
    rows = conn.execute(
        "SELECT remote_id, console_id FROM helpdesk_ids WHERE kind = ?", (kind,)
    ).fetchall()
    return {str(r[0]): str(r[1]) for r in rows}


# --- what was last read from the helpdesk --------------------------------------------------
def seen_fields(ticket: RemoteTicket) -> str:
    return json.dumps({f: ticket.value(f) for f in SENT_FIELDS}, separators=(",", ":"))


def write_seen(conn: sqlite3.Connection, console_id: str, ticket: RemoteTicket) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO helpdesk_seen (ticket, version, updated, fields)"
        " VALUES (?, ?, ?, ?)",
        (console_id, ticket.version, ticket.updated, seen_fields(ticket)),
    )


def seen(conn: sqlite3.Connection, console_id: str) -> tuple[str, dict[str, Any]] | None:
    row = conn.execute(
        "SELECT version, fields FROM helpdesk_seen WHERE ticket = ?", (console_id,)
    ).fetchone()
    return (str(row[0]), json.loads(row[1])) if row else None


# --- tickets that left the connected queue -----------------------------------------------------
@dataclass(frozen=True)
class Left:
    """A ticket that left the connected queue, for the person's note."""

    ticket: str
    subject: str
    why: str  # "moved" or "deleted"
    unsent: int  # changes of ours to it that can no longer be sent


KEEP_LEFT = 500  # notes kept (the newest); the journal has every change made before


def leave(conn: sqlite3.Connection, console_id: str, why: str) -> Left | None:
    """The ticket leaves the console's queue (inside the caller's transaction): its open
    changes are settled, counted for the note, and every row of it goes; None if it is not
    here."""
    row = conn.execute("SELECT subject FROM ticket_text WHERE id = ?", (console_id,)).fetchone()
    if row is None:
        return None
    unsent = conn.execute(
        f"SELECT count(DISTINCT field) FROM outbox WHERE ticket = ?"
        f" AND state IN ({_marks(OPEN_STATES)})",
        (console_id, *OPEN_STATES),
    ).fetchone()[0]
    conn.execute(
        f"UPDATE outbox SET state = 'settled', done_at = ?, words = ?"
        f" WHERE ticket = ? AND state IN ({_marks(OPEN_STATES)})",
        (time.time(), f"the ticket left the queue ({why})", console_id, *OPEN_STATES),
    )
    remove_ticket(conn, console_id)
    conn.execute("DELETE FROM helpdesk_ids WHERE kind = 'ticket' AND console_id = ?", (console_id,))
    conn.execute("DELETE FROM helpdesk_seen WHERE ticket = ?", (console_id,))
    left = Left(console_id, str(row[0]), why, int(unsent))
    conn.execute(
        "INSERT OR REPLACE INTO helpdesk_left (ticket, subject, why, unsent, at)"
        " VALUES (?, ?, ?, ?, ?)",
        (left.ticket, left.subject, left.why, left.unsent, time.time()),
    )
    conn.execute(
        "DELETE FROM helpdesk_left WHERE ticket NOT IN"
        " (SELECT ticket FROM helpdesk_left ORDER BY at DESC LIMIT ?)",
        (KEEP_LEFT,),
    )
    return left


def left_notes(conn: sqlite3.Connection) -> list[Left]:
    rows = conn.execute(
        "SELECT ticket, subject, why, unsent FROM helpdesk_left ORDER BY at DESC"
    ).fetchall()
    return [Left(str(r[0]), str(r[1]), str(r[2]), int(r[3])) for r in rows]


def clear_left(conn: sqlite3.Connection) -> int:
    return conn.execute("DELETE FROM helpdesk_left").rowcount


# --- the outbox ------------------------------------------------------------------------------
def next_outgoing(conn: sqlite3.Connection, now: float) -> Outgoing | None:
    """The oldest change that is due, with every later waiting change to the same field."""
    row = conn.execute(
        "SELECT ticket, field FROM outbox WHERE state = 'waiting' AND next_at <= ?"
        " ORDER BY seq LIMIT 1",
        (now,),
    ).fetchone()
    if row is None:
        return None
    rows = conn.execute(
        "SELECT seq, value, base, attempts FROM outbox"
        " WHERE state = 'waiting' AND ticket = ? AND field = ? ORDER BY seq",
        (row[0], row[1]),
    ).fetchall()
    return Outgoing(
        seqs=tuple(int(r[0]) for r in rows),
        ticket=str(row[0]),
        field=str(row[1]),
        value=json.loads(rows[-1][1]),
        base=json.loads(rows[0][2]),
        attempts=max(int(r[3]) for r in rows),
        earlier=tuple(json.loads(r[1]) for r in rows[:-1]),
    )


KEEP_SENT = 10_000  # sent changes kept for the record (the journal keeps every change too)


def prune_sent(conn: sqlite3.Connection, keep: int = KEEP_SENT) -> int:
    """Forget all but the newest `keep` sent changes: the outbox does not grow for ever."""
    return conn.execute(
        "DELETE FROM outbox WHERE state = 'sent' AND seq <= ("
        " SELECT seq FROM outbox WHERE state = 'sent' ORDER BY seq DESC LIMIT 1 OFFSET ?)",
        (keep,),
    ).rowcount


def next_due_at(conn: sqlite3.Connection) -> float | None:
    row = conn.execute("SELECT min(next_at) FROM outbox WHERE state = 'waiting'").fetchone()
    return float(row[0]) if row and row[0] is not None else None


def _marks(seqs: Sequence[object]) -> str:
    return ",".join("?" for _ in seqs)


def mark_sent(
    conn: sqlite3.Connection, out: Outgoing, console_id: str, after: RemoteTicket
) -> None:
    now = time.time()
    conn.execute(
        "UPDATE outbox SET state = 'sent', done_at = ?, words = ''"
        f" WHERE seq IN ({_marks(out.seqs)})",
        (now, *out.seqs),
    )
    write_seen(conn, console_id, after)
    # A change made while this one was on its way was made over what is there now.
    conn.execute(
        "UPDATE outbox SET base = ? WHERE state = 'waiting' AND ticket = ? AND field = ?",
        (json.dumps(after.value(out.field)), out.ticket, out.field),
    )


def mark_retry(conn: sqlite3.Connection, out: Outgoing, next_at: float, words: str) -> None:
    conn.execute(
        f"UPDATE outbox SET attempts = attempts + 1, next_at = ?, words = ?"
        f" WHERE seq IN ({_marks(out.seqs)}) AND state = 'waiting'",
        (next_at, words, *out.seqs),
    )


def mark_refused(conn: sqlite3.Connection, out: Outgoing, words: str) -> None:
    conn.execute(
        f"UPDATE outbox SET state = 'refused', words = ?, done_at = ?"
        f" WHERE seq IN ({_marks(out.seqs)}) AND state = 'waiting'",
        (words, time.time(), *out.seqs),
    )


def mark_conflict(
    conn: sqlite3.Connection, out: Outgoing, theirs: Any, current: RemoteTicket, console_id: str
) -> None:
    conn.execute(
        f"UPDATE outbox SET state = 'conflict', theirs = ?"
        f" WHERE seq IN ({_marks(out.seqs)}) AND state = 'waiting'",
        (json.dumps(theirs), *out.seqs),
    )
    write_seen(conn, console_id, current)


@dataclass(frozen=True)
class Standing:
    """Where the connected queue's changes stand, for the status bar and the tickets."""

    waiting: int
    refused: int
    conflicts: int
    by_ticket: dict[str, tuple[str, str]]  # ticket -> (state, words) of its open changes
    left: int = 0  # tickets that left the connected queue, not yet read by the person


def standing(conn: sqlite3.Connection, limit: int = 5000) -> Standing:
    counts = dict(
        conn.execute(
            "SELECT state, count(DISTINCT ticket || char(0) || field) FROM outbox"
            " WHERE state IN ('waiting', 'refused', 'conflict') GROUP BY state"
        ).fetchall()
    )
    by_ticket: dict[str, tuple[str, str]] = {}
    rank = {"waiting": 0, "refused": 1, "conflict": 2}
    for ticket, state, words in conn.execute(
        "SELECT ticket, state, words FROM outbox WHERE state IN ('waiting', 'refused', 'conflict')"
        " ORDER BY seq LIMIT ?",
        (limit,),
    ):
        kept = by_ticket.get(str(ticket))
        if kept is None or rank[str(state)] >= rank[kept[0]]:
            by_ticket[str(ticket)] = (str(state), str(words))
    left = conn.execute("SELECT count(*) FROM helpdesk_left").fetchone()[0]
    return Standing(
        int(counts.get("waiting", 0)),
        int(counts.get("refused", 0)),
        int(counts.get("conflict", 0)),
        by_ticket,
        int(left),
    )


def busy_fields(conn: sqlite3.Connection, console_id: str, since: float) -> set[str]:
    """Fields of a ticket that a sync must leave alone: a change of ours is waiting or in
    question, or was sent after the sync read the helpdesk (what it read is older)."""
    rows = conn.execute(
        "SELECT DISTINCT field FROM outbox WHERE ticket = ?"
        " AND (state IN ('waiting', 'conflict') OR (state = 'sent' AND done_at >= ?))",
        (console_id, since),
    ).fetchall()
    return {str(r[0]) for r in rows}


# --- conflicts: the person chooses -----------------------------------------------------------
@dataclass(frozen=True)
class Choice:
    """A change of ours and the helpdesk's own change to the same field: both values, in
    the console's terms (people by their console id)."""

    ticket: str
    subject: str
    field: str
    mine: Any
    theirs: Any


def choices(conn: sqlite3.Connection) -> list[Choice]:
    people = console_ids(conn, "person")
    rows = conn.execute(
        "SELECT o.ticket, o.field, o.value, o.theirs, coalesce(t.subject, '') FROM outbox o"
        " LEFT JOIN ticket_text t ON t.id = o.ticket"
        " WHERE o.state = 'conflict' ORDER BY o.seq"
    ).fetchall()
    latest: dict[tuple[str, str], Choice] = {}
    for ticket, name, value, theirs, subject in rows:
        their_value = json.loads(theirs) if theirs is not None else None
        if name == "assignee" and their_value is not None:
            their_value = people.get(str(their_value), str(their_value))
        latest[(str(ticket), str(name))] = Choice(
            str(ticket), str(subject), str(name), json.loads(value), their_value
        )
    return list(latest.values())


def keep_mine(conn: sqlite3.Connection, ticket: str, field: str) -> int:
    """Send ours after all, over the helpdesk's value the person has now seen."""
    return conn.execute(
        "UPDATE outbox SET state = 'waiting', base = coalesce(theirs, base), next_at = 0,"
        " attempts = 0 WHERE state = 'conflict' AND ticket = ? AND field = ?",
        (ticket, field),
    ).rowcount


def take_theirs(conn: sqlite3.Connection, ticket: str, field: str) -> bool:
    """Drop ours: the rows are settled; the caller writes the helpdesk's value here."""
    return (
        conn.execute(
            "UPDATE outbox SET state = 'settled', done_at = ?"
            " WHERE state = 'conflict' AND ticket = ? AND field = ?",
            (time.time(), ticket, field),
        ).rowcount
        > 0
    )


def open_count(conn: sqlite3.Connection) -> int:
    """Changes made here that have not reached the helpdesk: waiting, refused, or to choose."""
    marks = _marks(OPEN_STATES)
    row = conn.execute(f"SELECT count(*) FROM outbox WHERE state IN ({marks})", OPEN_STATES)
    return int(row.fetchone()[0])


def due_now(conn: sqlite3.Connection) -> int:
    """Every waiting change is due at once (the helpdesk answers again, or a new sign-in)."""
    return conn.execute(
        "UPDATE outbox SET next_at = 0 WHERE state = 'waiting' AND next_at > 0"
    ).rowcount


def retry_refused(conn: sqlite3.Connection) -> int:
    return conn.execute(
        "UPDATE outbox SET state = 'waiting', next_at = 0, attempts = 0, words = ''"
        " WHERE state = 'refused'"
    ).rowcount


def waiting_for(conn: sqlite3.Connection, tickets: Sequence[str]) -> int:
    """How many changes to these tickets have not reached the helpdesk yet."""
    if not tickets:
        return 0
    row = conn.execute(
        f"SELECT count(*) FROM outbox WHERE state = 'waiting' AND ticket IN ({_marks(tickets)})",
        tuple(tickets),
    ).fetchone()
    return int(row[0])
