"""The outbox's triggers stand exactly while a helpdesk is linked, made and dropped in the
link's own transaction (store/helpdesk_tables.py): with no helpdesk, a change to many tickets
pays nothing for them; with one, no change made while the link stands is missed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from understudy_desktop.helpdesk import tables as hd
from understudy_desktop.store import database
from understudy_desktop.store.helpdesk_tables import SENT_FIELDS
from understudy_desktop.store.ticket_tables import insert_rows

GENERATION = "g-1"


def fresh(tmp_path: Path, migrations: int | None = None) -> sqlite3.Connection:
    conn = database.connect(tmp_path / "queue.sqlite")
    if migrations is None:
        database.migrate(conn)
    else:
        kept = database.MIGRATIONS
        database.MIGRATIONS = kept[:migrations]  # an older app's database
        try:
            database.migrate(conn)
        finally:
            database.MIGRATIONS = kept
    conn.execute("BEGIN")
    insert_rows(
        conn,
        [
            (f"T-{i}", i, "Bank feed", "Help.", "Kim", "2026-11-20", "open", "low", None, "[]", "")
            for i in range(1, 4)
        ],
    )
    conn.execute(
        "INSERT INTO queue_meta (key, value) VALUES ('generation', ?)", (f'"{GENERATION}"',)
    )
    conn.execute("COMMIT")
    return conn


def triggers(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}


def outbox_triggers(conn: sqlite3.Connection) -> set[str]:
    return {t for t in triggers(conn) if t.startswith("outbox_")}


def link(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN")
    hd.write_link(conn, "rt", GENERATION, {}, SENT_FIELDS, "")
    conn.execute("COMMIT")


def change_all(conn: sqlite3.Connection, priority: str) -> None:
    conn.execute("BEGIN")
    conn.execute("UPDATE ticket_fields SET priority = ?", (priority,))
    conn.execute("COMMIT")


def waiting(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    return conn.execute(
        "SELECT ticket, field, value FROM outbox WHERE state != 'settled' ORDER BY ticket"
    ).fetchall()


def test_with_no_helpdesk_there_is_no_trigger_and_nothing_waits(tmp_path):
    conn = fresh(tmp_path)
    assert outbox_triggers(conn) == set()
    change_all(conn, "high")
    assert waiting(conn) == []


def test_a_link_makes_the_triggers_and_every_change_after_it_waits_to_be_sent(tmp_path):
    conn = fresh(tmp_path)
    link(conn)
    assert outbox_triggers(conn) == {f"outbox_{f}" for f in SENT_FIELDS}
    change_all(conn, "high")
    assert waiting(conn) == [(f"T-{i}", "priority", '"high"') for i in range(1, 4)]


def test_a_link_rolled_back_leaves_no_trigger(tmp_path):
    conn = fresh(tmp_path)
    conn.execute("BEGIN")
    hd.write_link(conn, "rt", GENERATION, {}, SENT_FIELDS, "")
    conn.execute("ROLLBACK")
    assert outbox_triggers(conn) == set()


def test_forgetting_the_link_drops_them_and_later_changes_wait_for_nothing(tmp_path):
    conn = fresh(tmp_path)
    link(conn)
    conn.execute("BEGIN")
    hd.forget_link(conn)
    conn.execute("COMMIT")
    assert outbox_triggers(conn) == set()
    change_all(conn, "high")
    assert waiting(conn) == []


@pytest.mark.parametrize("linked", [True, False])
def test_an_older_database_keeps_them_only_if_it_has_a_helpdesk(tmp_path, linked):
    conn = fresh(tmp_path, migrations=10)  # before migration 11: triggers always there
    assert outbox_triggers(conn) == {f"outbox_{f}" for f in SENT_FIELDS}
    if linked:
        conn.execute("BEGIN")
        conn.execute(
            "INSERT INTO helpdesk_link (id, kind, generation, settings, fields, cursor)"
            " VALUES (1, 'rt', ?, '{}', ?, '')",
            (GENERATION, "," + ",".join(SENT_FIELDS) + ","),
        )
        conn.execute("COMMIT")
    database.migrate(conn)
    assert bool(outbox_triggers(conn)) is linked
    change_all(conn, "high")
    assert len(waiting(conn)) == (3 if linked else 0)
