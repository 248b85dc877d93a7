"""The app's durable state: one SQLite database in the data dir (WAL).

Every write runs on one writer thread, in the order it was submitted, as one transaction: a
change is either wholly on disk or not at all, and callers hear back only after COMMIT
returned. Reads at start-up use their own connection (WAL lets them run beside the writer).

synchronous=FULL: in WAL mode SQLite then syncs the log at every commit, so a change that was
acknowledged survives a power cut as well as a killed process. NORMAL would survive a killed
process only; the difference is one fsync per commit, which the benchmarks measure (bench/
durability.py) and which stays well under a frame for a person's single edit.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from understudy_desktop.store import helpdesk_tables
from understudy_desktop.store.ticket_tables import CREATE_TABLES, insert_rows, tags_text

log = logging.getLogger(__name__)

DB_FILE = "understudy.sqlite3"
T = TypeVar("T")
Work = Callable[[sqlite3.Connection], Any]


# Each entry moves the schema one version up; PRAGMA user_version says where a file is.
def _split_tickets(conn: sqlite3.Connection) -> None:
    """6: a ticket in three rows (ticket_tables.py): what the customer wrote, what a search looks
    in, and what commands change, so a change to 100,000 tickets rewrites only small rows. The
    view `tickets` keeps the old shape for readers. Tags are sorted, as commands keep them."""
    for statement in _statements(CREATE_TABLES):
        conn.execute(statement)
    old = conn.execute(
        "SELECT id, position, subject, body, requester, created, status, priority, assignee,"
        " tags, reply_draft FROM tickets ORDER BY position"
    ).fetchall()
    rows = [
        (
            r[0],
            n,
            r[2],
            r[3],
            r[4],
            r[5],
            r[6],
            r[7],
            r[8],
            tags_text(sorted(json.loads(r[9]))),
            r[10],
        )
        for n, r in enumerate(old)
    ]
    conn.execute("DROP TABLE tickets")
    insert_rows(conn, rows)
    conn.execute(TICKETS_VIEW)
    conn.execute(TICKETS_VIEW_UPDATE)


TICKETS_VIEW = (
    "CREATE VIEW tickets AS SELECT t.id AS id, t.n AS position, t.subject AS subject,"
    " t.body AS body, t.requester AS requester, t.created AS created, f.status AS status,"
    " f.priority AS priority, f.assignee AS assignee, f.tags AS tags,"
    " f.reply_draft AS reply_draft FROM ticket_text t JOIN ticket_fields f ON f.n = t.n"
)

# Writing through the view still works, for tools and people who edit the file directly (an
# administrator's fix, a test): the change lands in the tables the app reads. A search over
# text changed this way is lower-cased by SQLite, which folds ASCII only.
TICKETS_VIEW_UPDATE = """
CREATE TRIGGER tickets_update INSTEAD OF UPDATE ON tickets BEGIN
    UPDATE ticket_fields SET status = NEW.status, priority = NEW.priority,
        assignee = NEW.assignee, tags = NEW.tags, reply_draft = NEW.reply_draft
        WHERE n = OLD.position;
    UPDATE ticket_text SET subject = NEW.subject, body = NEW.body, requester = NEW.requester,
        created = NEW.created WHERE n = OLD.position;
    UPDATE ticket_hay SET hay = lower(OLD.id || char(10) || NEW.subject || char(10) || NEW.body
        || char(10) || NEW.requester) WHERE n = OLD.position
        AND (NEW.subject IS NOT OLD.subject OR NEW.body IS NOT OLD.body
             OR NEW.requester IS NOT OLD.requester);
END"""

Migration = str | Callable[[sqlite3.Connection], None]
MIGRATIONS: tuple[Migration, ...] = (
    # 1: taught tools (definition and approval in one row), their usage apart, recordings.
    """
    CREATE TABLE tools (
        name TEXT PRIMARY KEY,
        definition TEXT NOT NULL,
        digest TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'disabled', 'needs_review')),
        review_reason TEXT NOT NULL DEFAULT '',
        note TEXT NOT NULL DEFAULT '',
        ask_every_time INTEGER NOT NULL DEFAULT 0,
        origin TEXT NOT NULL,
        created_at REAL NOT NULL,
        approved_at REAL NOT NULL
    );
    CREATE TABLE tool_usage (
        name TEXT PRIMARY KEY,
        runs INTEGER NOT NULL DEFAULT 0,
        successes INTEGER NOT NULL DEFAULT 0,
        last_used REAL,
        last_failure TEXT
    );
    CREATE TABLE recordings (
        id TEXT PRIMARY KEY,
        revision INTEGER NOT NULL,
        body TEXT NOT NULL
    );
    """,
    # 2: each approval is sealed with a key kept outside the data dir (consent/seal.py).
    """
    ALTER TABLE tools ADD COLUMN seal TEXT NOT NULL DEFAULT ''
    """,
    # 3: the queue's durable copy (store/queue_store.py): tickets, the queue's identity and
    # the file it came from, and a journal of every change with who made it.
    """
    CREATE TABLE queue_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE tickets (
        id TEXT PRIMARY KEY,
        position INTEGER NOT NULL,
        subject TEXT NOT NULL,
        body TEXT NOT NULL,
        requester TEXT NOT NULL,
        created TEXT NOT NULL,
        status TEXT NOT NULL,
        priority TEXT NOT NULL,
        assignee TEXT,
        tags TEXT NOT NULL,
        reply_draft TEXT NOT NULL
    );
    CREATE TABLE journal (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at REAL NOT NULL,
        actor TEXT NOT NULL,
        tool TEXT NOT NULL DEFAULT '',
        client TEXT NOT NULL DEFAULT '',
        command TEXT NOT NULL,
        changes TEXT NOT NULL
    )
    """,
    # 4: the person's settings and remembered choices (store/settings.py).
    """
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)
    """,
    # 5: the team library (team/): authors this person trusts, by key, and shared tools they
    # turned down (by the digest of the file).
    """
    CREATE TABLE team_authors (
        key TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        trusted_at REAL NOT NULL
    );
    CREATE TABLE team_declined (
        file TEXT PRIMARY KEY,
        at REAL NOT NULL
    )
    """,
    _split_tickets,
    # 7: the team library a team can trust (team/): why a tool is held back when the team
    # took it away (its author withdrew it, the team lead turned it off), the shared files
    # this person accepted (never offered as new again), the newest version seen of each
    # shared tool (an older one is never offered after it, even once the newer file is gone),
    # and an author's keys vouched for by their earlier key.
    """
    ALTER TABLE tools ADD COLUMN held TEXT NOT NULL DEFAULT '';
    CREATE TABLE team_accepted (
        file TEXT PRIMARY KEY,
        key TEXT NOT NULL,
        tool TEXT NOT NULL,
        at REAL NOT NULL
    );
    CREATE TABLE team_versions (
        key TEXT NOT NULL,
        tool TEXT NOT NULL,
        version INTEGER NOT NULL,
        file TEXT NOT NULL,
        PRIMARY KEY (key, tool)
    )
    """,
    # 8: the queue as the team's helpdesk (helpdesk_tables.py): the connection, the ids that
    # map its tickets and people to the console's, what was last read from it, and the outbox
    # every change leaves by (filled by triggers, in the change's own transaction).
    helpdesk_tables.create_tables,
    # 9: tickets that left the connected queue (moved or deleted in the helpdesk), for the
    # person's note.
    helpdesk_tables.create_left_table,
    # 10: the team folder's signed rules, withdrawals, hand-overs and reviews this person's
    # app has seen (team/trust.py): deleting one from the folder changes nothing here.
    """
    CREATE TABLE team_kept (
        name TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        data BLOB NOT NULL,
        seen_at REAL NOT NULL
    )
    """,
    # 11: the outbox's triggers only while a helpdesk is linked (helpdesk_tables.py says why).
    helpdesk_tables.watch_changes,
    # 12: the team folder over time (team/): whether this person trusted a key themselves or
    # through its owner's hand-over (their own word settles a key handed over twice), and
    # when this app first saw each file of the folder (what a key signed after it was handed
    # over or revoked proves nothing about its owner; the history says so).
    """
    ALTER TABLE team_authors ADD COLUMN how TEXT NOT NULL DEFAULT 'direct';
    CREATE TABLE team_seen (
        name TEXT PRIMARY KEY,
        seen_at REAL NOT NULL
    )
    """,
)


class DatabaseError(RuntimeError):
    """The database could not be opened or is damaged; str() is for a person."""


def _private_file(path: Path) -> None:
    """Create the file readable by its owner alone (customer messages and tools live here)."""
    if not path.exists():
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
    with contextlib.suppress(OSError):
        path.chmod(0o600)


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
    # Before anything is written (WAL mode rewrites the file's header): a database from a
    # newer Understudy is left exactly as it was.
    try:
        too_new = int(conn.execute("PRAGMA user_version").fetchone()[0]) > len(MIGRATIONS)
    except BaseException:
        conn.close()
        raise
    if too_new:
        conn.close()
        raise DatabaseError(
            "The data folder was written by a newer Understudy. Update Understudy to open it."
        )
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def migrate(conn: sqlite3.Connection) -> int:
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > len(MIGRATIONS):
        raise DatabaseError(
            "The data folder was written by a newer Understudy. Update Understudy to open it."
        )
    for target in range(version + 1, len(MIGRATIONS) + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            step = MIGRATIONS[target - 1]
            if callable(step):
                step(conn)
            else:
                for statement in _statements(step):
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version={target}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return len(MIGRATIONS)


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


# The write-ahead log is copied back into the database file when the writer has been idle a
# moment, not inside a commit a person waits for (SQLite's own default does it at the commit
# that crosses 1,000 pages). A writer that is never idle still does it every so many commits.
CHECKPOINT_IDLE_S = 0.5
CHECKPOINT_EVERY = 2000


class _Writer(threading.Thread):
    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(name="understudy-db-writer", daemon=True)
        self._conn = conn
        self._conn.execute("PRAGMA wal_autocheckpoint=0")
        self._since_checkpoint = 0
        self._jobs: queue.Queue[tuple[Work, Future[Any], bool] | None] = queue.Queue()

    def submit(self, work: Work, keep: bool = True) -> Future[Any]:
        future: Future[Any] = Future()
        self._jobs.put((work, future, keep))
        return future

    def stop(self) -> None:
        self._jobs.put(None)

    def _checkpoint(self) -> None:
        try:
            self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as exc:  # a reader holds it back; the next idle moment tries again
            log.info("the database's log was not copied back yet: %s", exc)
            return
        self._since_checkpoint = 0

    def run(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=CHECKPOINT_IDLE_S if self._since_checkpoint else None)
            except queue.Empty:
                self._checkpoint()
                continue
            if job is None:
                if self._since_checkpoint:
                    self._checkpoint()
                break
            work, future, keep = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    result = work(self._conn)
                    # A trial (what a run would change) is rolled back, whatever it did.
                    self._conn.execute("COMMIT" if keep else "ROLLBACK")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
            except BaseException as exc:  # handed to whoever waits for this write
                future.set_exception(exc)
            else:
                future.set_result(result)
            self._since_checkpoint += 1
            if self._since_checkpoint >= CHECKPOINT_EVERY:
                self._checkpoint()
        self._conn.close()


class Database:
    def __init__(self, data_dir: Path) -> None:
        data_dir.mkdir(parents=True, exist_ok=True)
        self.path = data_dir / DB_FILE
        _private_file(self.path)
        try:
            self._reader = connect(self.path)
            migrate(self._reader)
            writer_conn = connect(self.path)
        except sqlite3.DatabaseError as exc:
            raise DatabaseError(
                f"Understudy's database in {data_dir} cannot be read ({exc})."
            ) from exc
        self._writer = _Writer(writer_conn)
        self._writer.start()
        self._lock = threading.Lock()

    def read(self, query: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """Rows of a read-only query (any thread; serialised on one reading connection)."""
        with self._lock:
            cursor = self._reader.execute(query, params)
            cursor.row_factory = sqlite3.Row
            return list(cursor.fetchall())

    def submit(self, work: Work, keep: bool = True) -> Future[Any]:
        """Run `work(conn)` as one transaction on the writer thread; the future settles after
        COMMIT (or with the exception, after ROLLBACK). With keep=False the transaction is
        rolled back even when `work` returns: what it would do, doing nothing."""
        return self._writer.submit(work, keep)

    def write(self, work: Work, timeout_s: float = 60.0) -> Any:
        """submit() and wait: for start-up and tests, never on a path a person waits on."""
        return self.submit(work).result(timeout_s)

    def integrity_problems(self) -> list[str]:
        rows = self.read("PRAGMA integrity_check")
        found = [str(r[0]) for r in rows]
        return [] if found == ["ok"] else found

    def close(self) -> None:
        self._writer.stop()
        self._writer.join(10)
        with self._lock:
            self._reader.close()


def storage_words(exc: BaseException) -> str:
    """Why a change could not be kept, in words for the footer (the details go to the log)."""
    text = str(exc).lower()
    if "full" in text:
        return "the disk is full. Free some space, then try again"
    if isinstance(exc, sqlite3.Error | OSError):
        return "Understudy could not write to its data folder (it may be read-only or full)"
    return "the database refused the change"
