"""The same outbox and sync over Zendesk and Freshdesk, each against its local fake (their
services cannot be reached from here): a connected queue read from them, changes sent once,
a helpdesk that asks to wait (429 with Retry-After) waited for, a change made there meanwhile
left to the person, and their own changes brought in."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from helpdesk_fakes import FakeFreshdesk, FakeZendesk

from understudy_desktop.helpdesk import sync
from understudy_desktop.helpdesk.freshdesk import Freshdesk
from understudy_desktop.helpdesk.outbox import Sender
from understudy_desktop.helpdesk.zendesk import Zendesk
from understudy_desktop.model import tables
from understudy_desktop.store.database import Database
from understudy_desktop.store.queue_store import write_queue


@dataclass
class Connected:
    fake: Any
    adapter: Any
    db: Database
    numbers: list[int]
    prefix: str
    agent: int

    def console(self, k: int) -> str:
        return f"{self.prefix}-{self.numbers[k]}"

    def remote(self, k: int) -> dict[str, Any]:
        return dict(self.fake.tickets[self.numbers[k]])

    def write(self, k: int, field: str, value: Any) -> None:
        self.db.write(lambda conn: tables.write_field(conn, self.console(k), field, value))

    def outbox(self) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self.db.read("SELECT field, state FROM outbox ORDER BY seq")]


def _zendesk(tmp_path) -> Iterator[Connected]:
    with FakeZendesk(page_size=2) as fake:
        agent = fake.add_agent("Priya Raman", "priya@example.com")
        numbers = [fake.add_ticket(f"Printer {i}", "It jams", status="open") for i in range(3)]
        adapter = Zendesk(fake.url, fake.email, fake.token, transport=httpx2.HTTPTransport())
        yield _connected(tmp_path, fake, adapter, numbers, "ZD", agent)


def _freshdesk(tmp_path) -> Iterator[Connected]:
    with FakeFreshdesk() as fake:
        agent = fake.add_agent("Priya Raman", "priya@example.com")
        chloe = fake.add_contact("Chloé Dubois", "chloe@dubois.example")
        numbers = [fake.add_ticket(f"Printer {i}", chloe) for i in range(3)]
        adapter = Freshdesk(fake.url, fake.api_key, transport=httpx2.HTTPTransport(), page_size=2)
        yield _connected(tmp_path, fake, adapter, numbers, "FD", agent)


def _connected(tmp_path, fake, adapter, numbers, prefix, agent) -> Connected:
    first = sync.read_all(adapter, "Support")
    db = Database(tmp_path / "data")
    db.write(
        lambda conn: write_queue(
            conn, first.meta, first.rows, None, "g1", [lambda c, _m: first.store(c)]
        )
    )
    return Connected(fake, adapter, db, numbers, prefix, agent)


@pytest.fixture(params=["zendesk", "freshdesk"])
def desk(request, tmp_path) -> Iterator[Connected]:
    make = _zendesk if request.param == "zendesk" else _freshdesk
    for connected in make(tmp_path):
        yield connected
        connected.db.close()


def drain(sender: Sender) -> list[str]:
    out = []
    while (result := sender.send_one()) is not None:
        out.append(result.outcome)
    return out


def test_the_queue_comes_from_the_helpdesk_with_its_people(desk):
    rows = desk.db.read("SELECT id, subject, status FROM tickets ORDER BY position")
    assert [r["id"] for r in rows] == [desk.console(k) for k in range(3)]
    assert rows[0]["subject"] == "Printer 0" and rows[0]["status"] == "open"
    people = json.loads(desk.db.read("SELECT value FROM queue_meta WHERE key = 'assignees'")[0][0])
    assert "Priya Raman" in {p["name"] for p in people}


def test_changes_are_sent_once_and_a_pause_asked_for_is_kept(desk):
    desk.write(0, "priority", "urgent")
    desk.write(0, "assignee", f"{desk.adapter.kind}:{desk.agent}")
    desk.fake.busy(1, status=429, retry_after="7")
    sender = Sender(desk.db, desk.adapter)
    assert drain(sender) == ["retry"]
    next_at = desk.db.read("SELECT max(next_at) FROM outbox WHERE state = 'waiting'")[0][0]
    assert 5.5 < next_at - time.time() <= 7.5, "the helpdesk's Retry-After is the pause"
    assert sender.send_one() is None, "nothing else is sent while the helpdesk said wait"
    desk.db.write(lambda conn: conn.execute("UPDATE outbox SET next_at = 0"))
    sender._paused_until = 0.0  # the pause is over
    assert drain(sender) == ["sent", "sent"]
    remote = desk.remote(0)
    assert remote["priority"] in ("urgent", 4)
    assert remote.get("assignee_id", remote.get("responder_id")) == desk.agent
    puts = [r for r in desk.fake.requests if r[0] == "PUT"]
    assert len(puts) == 2, "each change was sent once"
    # Sent again after a crash that came before it was noted: read first, not sent again.
    desk.db.write(lambda conn: conn.execute("UPDATE outbox SET state = 'waiting'"))
    assert drain(sender) == ["arrived", "arrived"]
    assert len([r for r in desk.fake.requests if r[0] == "PUT"]) == 2


def test_a_change_made_in_the_helpdesk_meanwhile_is_not_overwritten(desk):
    zendesk = desk.adapter.kind == "zendesk"
    desk.fake.change_ticket(desk.numbers[1], priority="high" if zendesk else 3)
    desk.write(1, "priority", "urgent")
    assert drain(Sender(desk.db, desk.adapter)) == ["conflict"]
    assert desk.remote(1)["priority"] in ("high", 3)
    assert desk.outbox() == [("priority", "conflict")]


def test_the_helpdesks_own_changes_come_in_and_do_not_go_back(desk):
    zendesk = desk.adapter.kind == "zendesk"
    cursor = desk.db.read("SELECT cursor FROM helpdesk_link")[0][0]
    desk.fake.change_ticket(desk.numbers[2], status="pending" if zendesk else 3)
    if zendesk:
        desk.fake.add_ticket("Screen is blank", "Nothing shows")
    else:
        desk.fake.add_ticket("Screen is blank", next(iter(desk.fake.contacts)))
    page = desk.adapter.changed_since(cursor)
    while True:
        applied = desk.db.write(
            lambda conn, p=page: sync.apply_remote(
                conn, p.tickets, p.cursor, time.time(), desk.adapter.reads_back
            )
        )
        if not page.more:
            break
        page = desk.adapter.changed_since(page.cursor)
    rows = {r["id"]: dict(r) for r in desk.db.read("SELECT * FROM tickets")}
    assert rows[desk.console(2)]["status"] == "pending"
    assert any(r["subject"] == "Screen is blank" for r in rows.values())
    assert applied is not None and desk.outbox() == []


def _puts(desk: Connected) -> list[tuple[str, Any]]:
    return [(seen.path, seen.body) for seen in desk.fake.log if seen.method == "PUT"]


def test_the_newest_of_several_waiting_values_is_sent_once_and_in_order(desk):
    """Three values for one field, none like another: only the last is sent (once), and the
    ticket changed first goes first. `high, normal, high` could not tell the oldest value
    from the newest."""
    for value in ("high", "low", "urgent"):
        desk.write(0, "priority", value)
    desk.write(1, "status", "pending")
    assert drain(Sender(desk.db, desk.adapter)) == ["sent", "sent"]
    assert desk.remote(0)["priority"] in ("urgent", 4)
    puts = _puts(desk)
    assert len(puts) == 2, "the three values of one field went as one change"
    assert str(desk.numbers[0]) in puts[0][0] and str(desk.numbers[1]) in puts[1][0]
    assert desk.outbox() == [("priority", "sent")] * 3 + [("status", "sent")]


def test_tags_that_arrived_in_the_helpdesks_own_order_are_not_sent_again(desk):
    """A send that reached the helpdesk before a crash: the helpdesk keeps the tags in an
    order of its own, and they are still our tags (compared as sets, not as lists)."""
    desk.write(0, "tags", ["billing", "vip"])
    desk.fake.change_ticket(desk.numbers[0], tags=["vip", "billing"])
    # One that answers a tag twice still holds the same tags.
    desk.write(1, "tags", ["billing", "vip"])
    desk.fake.change_ticket(desk.numbers[1], tags=["vip", "billing", "vip"])
    assert drain(Sender(desk.db, desk.adapter)) == ["arrived", "arrived"]
    assert _puts(desk) == []


def test_a_tag_whose_case_someone_changed_in_the_helpdesk_is_theirs(tmp_path):
    """Freshdesk keeps a tag's case: "VIP" put there by someone is not our "vip". Ours waits
    for the person's choice instead of taking theirs for ours (or overwriting it)."""
    for desk in _freshdesk(tmp_path):
        desk.write(0, "tags", ["vip"])
        desk.fake.change_ticket(desk.numbers[0], tags=["VIP"])
        assert drain(Sender(desk.db, desk.adapter)) == ["conflict"]
        assert desk.remote(0)["tags"] == ["VIP"] and _puts(desk) == []
        desk.db.close()


def test_a_value_written_over_itself_is_no_change_to_send(desk):
    """The outbox's triggers fire only for a value that differs: writing what the field
    already holds (any path: a sync, an undo, a run) puts nothing on its way."""
    status = desk.db.read("SELECT status FROM tickets WHERE id = ?", (desk.console(0),))[0][0]
    desk.write(0, "status", status)
    desk.write(0, "tags", [])
    assert desk.outbox() == []
    assert drain(Sender(desk.db, desk.adapter)) == []


def test_a_sync_leaves_a_field_with_a_change_of_ours_on_its_way(desk):
    """The helpdesk changed the priority and so did the person, whose change waits: the sync
    brings the status in but leaves the priority to the outbox (which then finds theirs and
    asks the person), never overwriting ours here."""
    zendesk = desk.adapter.kind == "zendesk"
    cursor = desk.db.read("SELECT cursor FROM helpdesk_link")[0][0]
    desk.write(0, "priority", "urgent")
    desk.fake.change_ticket(
        desk.numbers[0], priority="high" if zendesk else 3, status="pending" if zendesk else 3
    )
    page = desk.adapter.changed_since(cursor)
    desk.db.write(
        lambda conn: sync.apply_remote(
            conn, page.tickets, page.cursor, time.time(), desk.adapter.reads_back
        )
    )
    row = desk.db.read("SELECT priority, status FROM tickets WHERE id = ?", (desk.console(0),))[0]
    assert (row["priority"], row["status"]) == ("urgent", "pending")
    assert drain(Sender(desk.db, desk.adapter)) == ["conflict"]


def test_tags_a_sync_brings_in_are_kept_sorted_and_a_new_order_alone_is_no_change(desk):
    """The console keeps a ticket's tags sorted; the helpdesk keeps its own order. A sync
    brings theirs in sorted, and a later read that differs only in order changes nothing."""
    cursor = desk.db.read("SELECT cursor FROM helpdesk_link")[0][0]

    def synced() -> Any:
        page = desk.adapter.changed_since(cursor)
        return desk.db.write(
            lambda conn: sync.apply_remote(
                conn, page.tickets, page.cursor, time.time(), desk.adapter.reads_back
            )
        )

    desk.fake.change_ticket(desk.numbers[0], tags=["vip", "billing"])
    first = synced()
    tags = desk.db.read("SELECT tags FROM tickets WHERE id = ?", (desk.console(0),))[0][0]
    assert json.loads(tags) == ["billing", "vip"]
    assert [(w.field, w.ids) for w in first.writes] == [("tags", (desk.console(0),))]
    desk.fake.change_ticket(desk.numbers[0], tags=["billing", "vip"])
    assert synced().writes == []
    assert desk.outbox() == []
