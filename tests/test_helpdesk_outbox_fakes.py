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
from understudy_desktop.helpdesk import tables as hd
from understudy_desktop.helpdesk.base import ConflictError, SignInError, UnreachableError
from understudy_desktop.helpdesk.freshdesk import Freshdesk
from understudy_desktop.helpdesk.outbox import BACKOFF_S, Sender
from understudy_desktop.helpdesk.zendesk import Zendesk
from understudy_desktop.model import tables
from understudy_desktop.model.views import Filter
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


def drain(sender: Sender, most: int = 50) -> list[str]:
    """Send until nothing waits. A change taken again and again (never marked done) fails
    here at once, rather than sending forever."""
    out: list[str] = []
    while (result := sender.send_one()) is not None:
        out.append(result.outcome)
        assert len(out) <= most, f"the outbox took a change again and again: {out[:6]}"
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


# --- what becomes of a change, and what the person is told ------------------------------------
class Flaky:
    """The connected adapter, except that reading a ticket first fails with each of `reads` in
    turn, and sending first meets each of `sends` (someone changed the ticket meanwhile)."""

    def __init__(self, adapter: Any, reads: tuple[Exception, ...] = (), sends: int = 0) -> None:
        self._adapter = adapter
        self._reads = list(reads)
        self._sends = sends

    def __getattr__(self, name: str) -> Any:
        return getattr(self._adapter, name)

    def current(self, remote: str) -> Any:
        if self._reads:
            raise self._reads.pop(0)
        return self._adapter.current(remote)

    def apply(self, change: Any) -> Any:
        if self._sends:
            self._sends -= 1
            raise ConflictError(self._adapter.current(change.remote_id))
        return self._adapter.apply(change)


def _pause(desk: Connected) -> float:
    """How long the waiting change waits from now."""
    next_at = desk.db.read("SELECT max(next_at) FROM outbox WHERE state = 'waiting'")[0][0]
    return float(next_at) - time.time()


def _due_now(desk: Connected, sender: Sender, attempts: int | None = None) -> None:
    """The pause is over (and the change has been tried `attempts` times before)."""
    sql = "UPDATE outbox SET next_at = 0" + ("" if attempts is None else f", attempts = {attempts}")
    desk.db.write(lambda conn: conn.execute(sql))
    sender._paused_until = 0.0


def test_a_stopped_sender_sends_nothing_more(desk):
    """A sender replaced (a new sign-in) is stopped: a change it would still take is left to
    the new one, not sent twice."""
    desk.write(0, "priority", "urgent")
    sender = Sender(desk.db, desk.adapter)
    sender.stop()
    assert sender.send_one() is None
    assert desk.outbox() == [("priority", "waiting")] and _puts(desk) == []


def test_a_change_to_a_ticket_not_linked_to_the_helpdesk_is_refused(desk):
    desk.write(0, "priority", "urgent")
    desk.db.write(lambda conn: conn.execute("DELETE FROM helpdesk_ids WHERE kind = 'ticket'"))
    results = []
    assert drain(Sender(desk.db, desk.adapter, changed=results.append)) == ["refused"]
    assert desk.outbox() == [("priority", "refused")] and _puts(desk) == []
    assert results[0].words == "The ticket is not linked to the helpdesk."


def test_a_change_whose_ticket_was_deleted_there_leaves_the_queue_and_says_so(desk):
    desk.write(1, "priority", "urgent")
    desk.fake.delete_ticket(desk.numbers[1])
    notes = []
    assert drain(Sender(desk.db, desk.adapter, left=notes.append)) == ["left"]
    assert [n.ticket for n in notes] == [desk.console(1)] and notes[0].unsent == 1
    ids = [r[0] for r in desk.db.read("SELECT id FROM tickets ORDER BY position")]
    assert ids == [desk.console(0), desk.console(2)] and _puts(desk) == []


def test_a_change_the_helpdesk_refuses_is_refused_and_the_next_one_goes(tmp_path):
    for desk in _zendesk(tmp_path):
        desk.fake.change_ticket(desk.numbers[0], status="closed")
        desk.write(0, "priority", "urgent")
        desk.write(1, "priority", "urgent")
        desk.fake.busy(1, status=429, retry_after="1")
        sender = Sender(desk.db, desk.adapter)
        assert drain(sender) == ["retry"]
        _due_now(desk, sender)
        refused = sender.send_one()
        assert refused is not None and refused.outcome == "refused"
        assert sender.offline_since is None, "a refusal is an answer: the helpdesk is back"
        assert drain(sender) == ["sent"]
        assert desk.outbox() == [("priority", "refused"), ("priority", "sent")]
        desk.db.close()


def test_sign_in_trouble_holds_every_change_and_says_so(desk):
    """A refused sign-in is the connection's trouble, not this change's: it waits (the
    longest pause), the status line says why, and nothing is refused."""
    desk.write(0, "priority", "urgent")
    sender = Sender(desk.db, Flaky(desk.adapter, reads=(SignInError("The password is wrong."),)))
    assert drain(sender) == ["retry"]
    assert sender.offline_reason == "sign-in" and sender.offline_since is not None
    assert BACKOFF_S[-1] - 2 < _pause(desk) <= BACKOFF_S[-1]
    assert desk.outbox() == [("priority", "waiting")]


def test_an_answer_that_cannot_be_read_waits_like_a_helpdesk_away(desk):
    desk.write(0, "priority", "urgent")
    sender = Sender(desk.db, Flaky(desk.adapter, reads=(ValueError("not JSON"),)))
    assert drain(sender) == ["retry"]
    assert sender.offline_reason == "trouble" and desk.outbox() == [("priority", "waiting")]
    _due_now(desk, sender)
    assert drain(sender) == ["sent"]


def test_the_helpdesk_going_away_and_answering_again_is_told_once_each(desk):
    desk.write(0, "priority", "urgent")
    desk.write(1, "priority", "urgent")
    offline: list[float | None] = []
    told: list[str] = []
    away = tuple(UnreachableError("No answer.") for _ in range(2))
    sender = Sender(
        desk.db,
        Flaky(desk.adapter, reads=away),
        changed=lambda r: told.append(r.outcome),
        offline=offline.append,
    )
    assert drain(sender) == ["retry"]
    _due_now(desk, sender)
    assert drain(sender) == ["retry"]
    assert len(offline) == 1 and offline[0] == sender.offline_since is not None
    _due_now(desk, sender)
    assert drain(sender) == ["sent", "sent"]
    assert offline[1:] == [None] and sender.offline_since is None
    assert told == ["retry", "retry", "sent", "sent"]


def test_pauses_grow_from_about_a_second_to_five_minutes(desk):
    """With no Retry-After, a helpdesk away is tried again after about a second, then after
    longer pauses, and never more than five minutes apart."""
    desk.write(0, "priority", "urgent")
    away = tuple(UnreachableError("No answer.") for _ in range(3))
    sender = Sender(desk.db, Flaky(desk.adapter, reads=away))
    assert drain(sender) == ["retry"]
    assert 0.7 < _pause(desk) <= 1.2
    _due_now(desk, sender, attempts=3)
    assert drain(sender) == ["retry"]
    assert 0.8 * BACKOFF_S[3] - 0.1 < _pause(desk) <= 1.2 * BACKOFF_S[3]
    _due_now(desk, sender, attempts=20)
    assert drain(sender) == ["retry"]
    assert 0.8 * BACKOFF_S[-1] - 0.1 < _pause(desk) <= BACKOFF_S[-1]


def test_a_ticket_changed_between_our_read_and_our_send_is_read_again(desk):
    desk.write(0, "priority", "urgent")
    assert drain(Sender(desk.db, Flaky(desk.adapter, sends=1))) == ["sent"]
    assert desk.remote(0)["priority"] in ("urgent", 4)


def test_a_ticket_that_keeps_changing_waits_and_is_not_overwritten(desk):
    desk.write(0, "priority", "urgent")
    results = []
    sender = Sender(desk.db, Flaky(desk.adapter, sends=99), changed=results.append)
    assert drain(sender) == ["retry"]
    assert "keeps changing" in results[0].words and _puts(desk) == []


def test_an_earlier_change_of_ours_found_there_is_no_one_elses(desk):
    """Our first value reached the helpdesk just before a crash, and the person changed the
    field again meanwhile: the helpdesk holds our own earlier value, so the newest is sent,
    not held as a conflict."""
    zendesk = desk.adapter.kind == "zendesk"
    desk.write(0, "priority", "high")
    desk.write(0, "priority", "urgent")
    desk.fake.change_ticket(desk.numbers[0], priority="high" if zendesk else 3)
    assert drain(Sender(desk.db, desk.adapter)) == ["sent"]
    assert desk.remote(0)["priority"] in ("urgent", 4)


def _tags_sent(desk: Connected, k: int, first: list[str], then: list[str], held: list[str]) -> str:
    """Our tags `first` are sent, then `then` waits while the helpdesk holds `held`."""
    desk.write(k, "tags", first)
    assert drain(Sender(desk.db, desk.adapter)) == ["sent"]
    desk.write(k, "tags", then)
    desk.fake.change_ticket(desk.numbers[k], tags=held)
    [outcome] = drain(Sender(desk.db, desk.adapter))
    return outcome


def test_tags_held_halfway_from_our_last_change_to_this_one_are_sent_again(desk):
    """RT applies a tags change a value at a time; a server stopped in between keeps a mix of
    our two sets, which is ours to finish, not someone else's change."""
    assert _tags_sent(desk, 0, ["billing", "vip"], ["billing", "urgent"], ["billing"]) == "sent"
    assert sorted(desk.remote(0)["tags"]) == ["billing", "urgent"]
    both = ["billing", "urgent", "vip"]
    assert _tags_sent(desk, 1, ["billing", "vip"], ["billing", "urgent"], both) == "sent"
    assert sorted(desk.remote(1)["tags"]) == ["billing", "urgent"]


def test_a_tag_someone_removed_there_meanwhile_is_theirs(desk):
    outcome = _tags_sent(desk, 0, ["billing", "vip"], ["billing", "urgent", "vip"], ["billing"])
    assert outcome == "conflict"
    assert desk.remote(0)["tags"] == ["billing"]


def test_unassigning_is_sent_and_an_unknown_person_is_refused(desk):
    me = f"{desk.adapter.kind}:{desk.agent}"

    def owner() -> Any:
        remote = desk.remote(0)
        return remote.get("assignee_id", remote.get("responder_id"))

    desk.write(0, "assignee", me)
    desk.write(0, "assignee", None)
    assert drain(Sender(desk.db, desk.adapter)) == ["arrived"]
    assert owner() is None and _puts(desk) == []
    desk.write(0, "assignee", me)
    assert drain(Sender(desk.db, desk.adapter)) == ["sent"] and owner() == desk.agent
    desk.write(0, "assignee", None)
    assert drain(Sender(desk.db, desk.adapter)) == ["sent"] and owner() is None
    desk.write(0, "assignee", f"{desk.adapter.kind}:424242")
    assert drain(Sender(desk.db, desk.adapter)) == ["refused"] and owner() is None


def _sync(desk: Connected, cursor: str) -> sync.Applied:
    """One later sync from `cursor`, every page of it: what it applied, all pages together."""
    total = sync.Applied()
    while True:
        page = desk.adapter.changed_since(cursor)
        applied = desk.db.write(
            lambda conn, p=page: sync.apply_remote(
                conn, p.tickets, p.cursor, time.time(), desk.adapter.reads_back
            )
        )
        total.writes += applied.writes
        total.arrived += applied.arrived
        total.retext += applied.retext
        total.cursor = page.cursor
        if not page.more:
            return total
        cursor = page.cursor


def _new_ticket(desk: Connected) -> int:
    if desk.adapter.kind == "zendesk":
        return int(desk.fake.add_ticket("Screen is blank", "Nothing shows", status="open"))
    return int(desk.fake.add_ticket("Screen is blank", next(iter(desk.fake.contacts))))


def test_a_sync_counts_the_tickets_that_arrived_and_the_texts_that_changed(desk):
    """The page is given the queue again only when tickets arrived or their text changed:
    a sync of a field alone says neither."""
    zendesk = desk.adapter.kind == "zendesk"
    cursor = desk.db.read("SELECT cursor FROM helpdesk_link")[0][0]
    desk.fake.change_ticket(desk.numbers[0], status="pending" if zendesk else 3)
    applied = _sync(desk, cursor)
    assert (applied.arrived, applied.retext) == (0, 0) and len(applied.writes) == 1
    kept = desk.db.read("SELECT cursor FROM helpdesk_link")[0][0]
    assert kept == applied.cursor != cursor, "the next sync goes on from where this one ended"
    cursor = kept
    desk.fake.change_ticket(desk.numbers[1], subject="Printer on fire")
    applied = _sync(desk, cursor)
    assert (applied.arrived, applied.retext) == (0, 1)
    row = desk.db.read("SELECT subject FROM tickets WHERE id = ?", (desk.console(1),))[0]
    assert row[0] == "Printer on fire"
    found = desk.db.write(lambda conn: tables.first_matching(conn, Filter.of({"text": "fire"}), 5))
    assert found == (1, [desk.console(1)]), "found by its new words"
    _new_ticket(desk)
    applied = _sync(desk, applied.cursor)
    assert (applied.arrived, applied.retext) == (1, 0)


def test_a_sync_read_before_the_helpdesk_was_forgotten_changes_nothing(desk):
    zendesk = desk.adapter.kind == "zendesk"
    cursor = desk.db.read("SELECT cursor FROM helpdesk_link")[0][0]
    before = desk.db.read("SELECT status FROM tickets WHERE id = ?", (desk.console(0),))[0][0]
    desk.fake.change_ticket(desk.numbers[0], status="pending" if zendesk else 3)
    page = desk.adapter.changed_since(cursor)
    desk.db.write(hd.forget_link)
    applied = desk.db.write(
        lambda conn: sync.apply_remote(
            conn, page.tickets, page.cursor, time.time(), desk.adapter.reads_back
        )
    )
    assert applied.writes == [] and applied.arrived == 0
    after = desk.db.read("SELECT status FROM tickets WHERE id = ?", (desk.console(0),))[0][0]
    assert after == before


def test_a_change_the_person_makes_after_a_sync_goes_out(desk):
    """A sync writes quietly (nothing it brings in goes back), and only while it writes."""
    zendesk = desk.adapter.kind == "zendesk"
    cursor = desk.db.read("SELECT cursor FROM helpdesk_link")[0][0]
    desk.fake.change_ticket(desk.numbers[0], status="pending" if zendesk else 3)
    assert len(_sync(desk, cursor).writes) == 1 and desk.outbox() == []
    desk.write(1, "priority", "urgent")
    assert desk.outbox() == [("priority", "waiting")]


def test_a_ticket_that_arrived_in_a_sync_takes_changes_like_any_other(desk):
    """It is linked to its helpdesk ticket, and what was read of it is the base a change is
    made over: the person's change is sent, not refused nor held as someone else's."""
    cursor = desk.db.read("SELECT cursor FROM helpdesk_link")[0][0]
    number = _new_ticket(desk)
    assert _sync(desk, cursor).arrived == 1
    console = f"{desk.prefix}-{number}"
    desk.db.write(lambda conn: tables.write_field(conn, console, "priority", "urgent"))
    assert drain(Sender(desk.db, desk.adapter)) == ["sent"]
    assert dict(desk.fake.tickets[number])["priority"] in ("urgent", 4)


def test_an_owner_set_in_the_helpdesk_comes_in_as_the_queues_person(desk):
    cursor = desk.db.read("SELECT cursor FROM helpdesk_link")[0][0]
    owner = "assignee_id" if desk.adapter.kind == "zendesk" else "responder_id"
    desk.fake.change_ticket(desk.numbers[0], **{owner: desk.agent})
    applied = _sync(desk, cursor)
    me = f"{desk.adapter.kind}:{desk.agent}"
    assert [(w.field, w.value) for w in applied.writes] == [("assignee", me)]
    row = desk.db.read("SELECT assignee FROM tickets WHERE id = ?", (desk.console(0),))[0]
    assert row[0] == me


def test_a_closed_ticket_zendesk_calls_solved_stays_closed_here(tmp_path):
    """Zendesk has no "closed" an agent may set: ours is sent as "solved", and a sync that
    reads "solved" back finds nothing changed (the person's word is kept)."""
    for desk in _zendesk(tmp_path):
        cursor = desk.db.read("SELECT cursor FROM helpdesk_link")[0][0]
        desk.write(0, "status", "closed")
        assert drain(Sender(desk.db, desk.adapter)) == ["sent"]
        assert desk.remote(0)["status"] == "solved"
        assert _sync(desk, cursor).writes == []
        row = desk.db.read("SELECT status FROM tickets WHERE id = ?", (desk.console(0),))[0]
        assert row[0] == "closed"
        desk.db.close()


def test_a_change_made_over_a_value_a_sync_brought_in_is_sent(desk):
    """The helpdesk's value a sync brought in is what the person's next change is made over:
    sent, not taken for someone else's change meanwhile."""
    zendesk = desk.adapter.kind == "zendesk"
    cursor = desk.db.read("SELECT cursor FROM helpdesk_link")[0][0]
    desk.fake.change_ticket(desk.numbers[0], status="pending" if zendesk else 3)
    assert len(_sync(desk, cursor).writes) == 1
    desk.write(0, "status", "open")
    assert drain(Sender(desk.db, desk.adapter)) == ["sent"]
    assert desk.remote(0)["status"] in ("open", 2)


def test_an_owner_new_to_the_queue_comes_in_among_its_people_once(desk):
    """An agent added in the helpdesk after the first sync, who now owns two tickets: they
    join the queue's people (once), and both tickets are theirs here."""
    cursor = desk.db.read("SELECT cursor FROM helpdesk_link")[0][0]
    owner = "assignee_id" if desk.adapter.kind == "zendesk" else "responder_id"
    newcomer = desk.fake.add_agent("Sam Lee", "sam@example.com")
    for k in (0, 1):
        desk.fake.change_ticket(desk.numbers[k], **{owner: newcomer})
    _sync(desk, cursor)
    them = f"{desk.adapter.kind}:{newcomer}"
    people = json.loads(desk.db.read("SELECT value FROM queue_meta WHERE key = 'assignees'")[0][0])
    assert [p["id"] for p in people].count(them) == 1
    rows = desk.db.read("SELECT id FROM tickets WHERE assignee = ? ORDER BY position", (them,))
    assert [r[0] for r in rows] == [desk.console(0), desk.console(1)]
