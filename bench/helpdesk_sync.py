"""The connected queue against a real Request Tracker 5 (Debian's, on loopback):

  first sync      10,000 tickets read from RT (pages of 100, each ticket's first message in
                  bulk) and stored as the console's queue
  to RT           a change acknowledged here (committed), until RT has it (its update answered
                  and the ticket read back): 60 changes one after another, as a person makes
                  them, with the outbox's sender running as in the app
  nothing new     a 100,000-ticket queue, in RT and here, asked what changed since the last
                  sync when nothing did: one incremental sync, 20 times

Tickets beyond the first few are written into RT's database directly (a ticket row, its Create
transaction and its first message), because creating 100,000 through RT's API takes hours;
RT then serves them like any other. Medians and 95th percentiles, in milliseconds.

Usage: .venv/bin/python bench/helpdesk_sync.py [first-sync tickets] [incremental tickets]
"""

from __future__ import annotations

import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "tests"))


def seed(rt: Any, queue: str, count: int) -> list[int]:
    """`count` tickets in `queue`, written into RT's database like RT writes them."""
    template = rt.create_ticket(queue, "Template", "dan@example.com", content="Template body")
    db = sqlite3.connect(rt.root / "rt.sqlite", timeout=60)
    row = db.execute(
        "SELECT Queue, Owner, LastUpdatedBy, Creator FROM Tickets WHERE id = ?", (template,)
    ).fetchone()
    start = int(db.execute("SELECT max(id) FROM Tickets").fetchone()[0]) + 1
    txn = int(db.execute("SELECT max(id) FROM Transactions").fetchone()[0]) + 1
    att = int(db.execute("SELECT max(id) FROM Attachments").fetchone()[0]) + 1
    now = time.time()
    tickets, transactions, attachments = [], [], []
    for k in range(count):
        number = start + k
        # Spread over the past, a second apart, as a real queue's history is.
        moment = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(now - 2 * (count - k) - 60))
        subject = f"Printer {number} jams"
        fields = (number, number, row[0], "ticket", row[1], subject, 0, 0, 0, 0, 0, "open", 0)
        tickets.append((*fields, row[2], moment, row[3], moment))
        transactions.append((txn + k, "RT::Ticket", number, 0, "Create", row[3], moment))
        body = f"Hello,\nprinter {number} jams on page two.\nThanks"
        attachments.append(
            (att + k, txn + k, 0, subject, "text/plain", "none", body, row[3], moment)
        )
    db.executemany(
        "INSERT INTO Tickets (id, EffectiveId, Queue, Type, Owner, Subject, InitialPriority,"
        " FinalPriority, Priority, TimeEstimated, TimeWorked, Status, TimeLeft, LastUpdatedBy,"
        " LastUpdated, Creator, Created) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        tickets,
    )
    db.executemany(
        "INSERT INTO Transactions (id, ObjectType, ObjectId, TimeTaken, Type, Creator, Created)"
        " VALUES (?,?,?,?,?,?,?)",
        transactions,
    )
    db.executemany(
        "INSERT INTO Attachments (id, TransactionId, Parent, Subject, ContentType,"
        " ContentEncoding, Content, Creator, Created) VALUES (?,?,?,?,?,?,?,?,?)",
        attachments,
    )
    db.commit()
    db.close()
    return [template, *range(start, start + count)]


def ms(seconds: float) -> float:
    return seconds * 1000.0


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


def first_sync(rt: Any, work: Path, count: int) -> tuple[float, Any, Any]:
    from helpdesk_helpers import Desk, connected_db

    from understudy_desktop.helpdesk.rt import RequestTracker

    queue = "First sync"
    rt.create_queue(queue)
    rt.create_custom_field("Tags", queue, "FreeformMultiple")
    ids = seed(rt, queue, count - 1)
    desk = Desk(rt, queue, ids, RequestTracker(rt.web_url, rt.token, queue))
    started = time.perf_counter()
    db, first = connected_db(work / "first", desk)
    took = time.perf_counter() - started
    assert len(first.rows) == count, len(first.rows)
    return took, db, desk


def to_rt(db: Any, desk: Any, changes: int) -> list[float]:
    """Acknowledged (committed) until RT has it, per change, with the sender running."""
    from understudy_desktop.helpdesk.outbox import Sender
    from understudy_desktop.model import tables

    done = threading.Event()
    sent: list[float] = []

    def changed(result: Any) -> None:
        sent.append(time.perf_counter())
        done.set()

    sender = Sender(db, desk.adapter, changed=changed)
    sender.start()
    times = []
    try:
        for k in range(changes):
            ticket = f"RT-{desk.ids[k % 10]}"
            # Each round of ten moves every ticket to a priority it does not have yet.
            value = ("high", "normal", "urgent", "low")[(k // 10) % 4]
            done.clear()
            sent.clear()
            db.write(lambda conn, t=ticket, v=value: tables.write_field(conn, t, "priority", v))
            acked = time.perf_counter()
            sender.poke()
            if not done.wait(30):
                raise RuntimeError("a change did not reach RT in 30 s")
            times.append(ms(sent[0] - acked))
    finally:
        sender.stop()
    return times


def nothing_new(rt: Any, work: Path, count: int, runs: int) -> list[float]:
    """One incremental sync of a `count`-ticket queue when nothing changed, `runs` times."""
    from helpdesk_helpers import Desk

    from understudy_desktop.helpdesk import sync
    from understudy_desktop.helpdesk import tables as hd
    from understudy_desktop.helpdesk.rt import RequestTracker
    from understudy_desktop.store.database import Database
    from understudy_desktop.store.queue_store import write_queue

    queue = "Big queue"
    rt.create_queue(queue)
    ids = seed(rt, queue, count - 1)
    adapter = RequestTracker(rt.web_url, rt.token, queue)
    # The queue here as a first sync leaves it, made from what RT holds (reading 100,000
    # tickets over REST2 first would take most of an hour, and is not what is measured).
    newest = Desk(rt, queue, ids, adapter).ticket(ids[-1])["LastUpdated"]
    shown = adapter.changed_since(f"{newest}|1")
    like = shown.tickets[0]
    tickets = [replace(like, remote_id=str(i), subject=f"Printer {i} jams") for i in ids]
    first = sync.first_from("rt", queue, tickets, [], [], shown.cursor)
    first.settings = {"kind": "rt", "url": rt.web_url, "queue": queue}
    db = Database(work / "big")
    db.write(
        lambda conn: write_queue(
            conn, first.meta, first.rows, None, "g", [lambda c, _m: first.store(c)]
        )
    )
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        link = db.write(hd.link)
        got = adapter.changed_since(link.cursor)
        db.write(
            lambda conn, g=got: sync.apply_remote(
                conn, g.tickets, g.cursor, time.time(), adapter.reads_back
            )
        )
        times.append(ms(time.perf_counter() - started))
    db.close()
    return times


def main() -> int:
    from rt_server import RTServer

    first_count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    big_count = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    with tempfile.TemporaryDirectory() as tmp, RTServer(Path(tmp) / "rt", workers=4) as rt:
        work = Path(tmp)
        took, db, desk = first_sync(rt, work, first_count)
        print(f"{'measure':<42} {'median ms':>10} {'p95 ms':>10} {'target':>12}")
        label = f"first sync, {first_count:,} tickets (whole)"
        print(f"{label:<42} {ms(took):>10,.0f}")
        print(f"{'  per ticket':<42} {ms(took) / first_count:>10.2f}")
        changes = to_rt(db, desk, 60)
        print(
            f"{'change acknowledged -> in RT (60)':<42} {statistics.median(changes):>10.0f}"
            f" {p95(changes):>10.0f} {'p95 < 1000':>12}"
        )
        db.close()
        quiet = nothing_new(rt, work, big_count, 20)
        print(
            f"{f'incremental sync, {big_count:,}, nothing new':<42}"
            f" {statistics.median(quiet):>10.0f} {p95(quiet):>10.0f} {'< 1000':>12}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
