"""A ticket that leaves the connected queue in the helpdesk (moved to another queue, deleted)
leaves the console's queue too, with a note in words; none of our changes is ever written
into a queue other than the connected one.

Against a real Request Tracker (moves and deletions as RT's own REST2 makes them) for the
adapter and the running app; against the Zendesk and Freshdesk fakes (tests/helpdesk_fakes.py,
written from their public API documentation: neither can run here) for their deletions.
"""

from __future__ import annotations

import json

import pytest
from helpdesk_fakes import FakeFreshdesk, FakeZendesk
from helpdesk_helpers import connected_db, make_desk, needs_rt
from test_plain_words import internals, widget_text

from understudy_desktop.helpdesk import sync
from understudy_desktop.helpdesk import tables as hd
from understudy_desktop.helpdesk.base import Departure, GoneError
from understudy_desktop.helpdesk.freshdesk import Freshdesk
from understudy_desktop.helpdesk.outbox import Sender
from understudy_desktop.helpdesk.words import left_words, status_words
from understudy_desktop.helpdesk.zendesk import Zendesk
from understudy_desktop.model import tables
from understudy_desktop.store.database import Database
from understudy_desktop.store.queue_store import write_queue
from understudy_desktop.text import FSI, PDI


def held(db: Database) -> list[str]:
    return [str(r[0]) for r in db.read("SELECT id FROM ticket_text ORDER BY n")]


def open_changes(db: Database) -> list[tuple[str, str, str]]:
    return [
        (str(r[0]), str(r[1]), str(r[2]))
        for r in db.read("SELECT ticket, field, state FROM outbox ORDER BY seq")
    ]


def sync_once(db: Database, adapter) -> sync.Applied:
    link = db.write(hd.link)
    page = adapter.changed_since(link.cursor or None)

    def work(conn):
        return sync.apply_remote(
            conn, page.tickets, page.cursor, 0.0, adapter.reads_back, page.gone
        )

    return db.write(work)


# --- Request Tracker ------------------------------------------------------------------------
@pytest.mark.slow
@needs_rt
def test_moved_and_deleted_rt_tickets_leave_with_a_note_and_their_changes_unsent(
    rt_server, tmp_path
):
    desk = make_desk(rt_server, tickets=3)
    elsewhere = f"{desk.queue} (elsewhere)"
    rt_server.create_queue(elsewhere)
    db, _ = connected_db(tmp_path, desk)
    moved, deleted, stays = (f"RT-{i}" for i in desk.ids)
    db.write(lambda conn: tables.write_field(conn, moved, "priority", "high"))
    status, _, said = rt_server.rest("PUT", f"ticket/{desk.ids[0]}", {"Queue": elsewhere})
    assert status == 200, said
    status, _, said = rt_server.rest("DELETE", f"ticket/{desk.ids[1]}")
    assert status in (200, 204), said

    # The changes feed tells of the move; RT's search never lists a deleted ticket, so the
    # roll call of the queue finds that one.
    applied = sync_once(db, desk.adapter)
    assert [(n.ticket, n.why, n.unsent) for n in applied.left] == [(moved, "moved", 1)]
    remote = set(db.write(lambda conn: hd.console_ids(conn, "ticket")))
    gone = sync.roll_call(desk.adapter, remote, checks=10)
    assert gone == [Departure(str(desk.ids[1]), "deleted")]
    assert [n.ticket for n in db.write(lambda conn: sync.leave_all(conn, gone))] == [deleted]

    assert held(db) == [stays]
    assert open_changes(db) == [(moved, "priority", "settled")]
    assert (
        db.read("SELECT count(*) FROM helpdesk_ids WHERE console_id IN (?, ?)", (moved, deleted))[
            0
        ][0]
        == 0
    )
    # Nothing of ours went anywhere: not to RT's other queue, not to the deleted ticket.
    assert desk.changes_to(desk.ids[0], "Priority") == []
    notes = db.write(hd.left_notes)
    words = {n.ticket: left_words("Request Tracker", n) for n in notes}
    assert words[moved] == (
        f"{moved} “{FSI}Printer 0 on fire{PDI}” was moved to another queue in Request Tracker, "
        "so it left this queue. Your change to it was not sent."
    )
    assert "was deleted in Request Tracker" in words[deleted]
    standing = db.write(hd.standing)
    assert standing.left == 2
    assert "2 tickets left the queue" in status_words("Request Tracker", standing, None)
    # A later sync finds them again among RT's changes (their LastUpdated is past the cursor)
    # and leaves them be: nothing is said twice.
    assert sync_once(db, desk.adapter).left == []
    db.close()


@pytest.mark.slow
@needs_rt
def test_a_ticket_moved_where_the_sign_in_cannot_see_is_found_by_the_roll_call(
    rt_server, tmp_path, monkeypatch
):
    """RT lists a ticket moved into a queue the sign-in cannot see nowhere: the changes feed
    is silent (here: its search made blind to moves), the roll call of the queue notices."""
    desk = make_desk(rt_server, tickets=2)
    elsewhere = f"{desk.queue} (hidden)"
    rt_server.create_queue(elsewhere)
    rt_server.rest("PUT", f"ticket/{desk.ids[1]}", {"Queue": elsewhere})
    monkeypatch.setattr(desk.adapter, "_departures", lambda since: ())
    assert desk.adapter.changed_since("2000-01-01T00:00:00Z|1").gone == ()
    assert desk.adapter.roll_call() == {str(desk.ids[0])}
    with pytest.raises(GoneError) as caught:
        desk.adapter.ticket(str(desk.ids[1]))
    assert caught.value.why == "moved"
    both = {str(i) for i in desk.ids}
    assert sync.roll_call(desk.adapter, both, checks=10) == [Departure(str(desk.ids[1]), "moved")]
    assert sync.roll_call(desk.adapter, both, checks=0) == [], "checks bound the reads"


@pytest.mark.slow
@needs_rt
def test_the_roll_call_reads_every_page_by_id(rt_server, monkeypatch):
    from understudy_desktop.helpdesk import rt as rt_module

    desk = make_desk(rt_server, tickets=5)
    monkeypatch.setattr(rt_module, "PER_PAGE", 2)
    assert desk.adapter.roll_call() == {str(i) for i in desk.ids}


@pytest.mark.slow
@needs_rt
def test_a_send_that_finds_its_ticket_moved_takes_it_out_of_the_queue(rt_server, tmp_path):
    desk = make_desk(rt_server, tickets=2)
    elsewhere = f"{desk.queue} (elsewhere)"
    rt_server.create_queue(elsewhere)
    db, _ = connected_db(tmp_path, desk)
    ticket = f"RT-{desk.ids[0]}"
    rt_server.rest("PUT", f"ticket/{desk.ids[0]}", {"Queue": elsewhere})
    db.write(lambda conn: tables.write_field(conn, ticket, "status", "solved"))
    told = []
    result = Sender(db, desk.adapter, left=told.append).send_one()
    assert result is not None and result.outcome == "left"
    assert [n.ticket for n in told] == [ticket]
    assert ticket not in held(db)
    assert open_changes(db) == [(ticket, "status", "settled")]
    assert desk.changes_to(desk.ids[0], "Status") == []
    db.close()


@pytest.mark.slow
@needs_rt
def test_in_the_app_a_moved_ticket_leaves_the_page_and_the_person_is_told(
    console, qtbot, rt_server
):
    from test_helpdesk_in_app import connected

    desk = make_desk(rt_server, tickets=2)
    elsewhere = f"{desk.queue} (elsewhere)"
    rt_server.create_queue(elsewhere)
    connected(console, qtbot, desk)
    moved = f"RT-{desk.ids[0]}"
    rt_server.rest("PUT", f"ticket/{desk.ids[0]}", {"Queue": elsewhere})
    menu = console.window.helpdesk_menu
    menu.link.refresh()
    qtbot.waitUntil(lambda: not console.js(f"!!document.getElementById('row-{moved}')"))
    assert console.js("document.querySelectorAll('.row').length") == 1
    qtbot.waitUntil(lambda: "1 ticket left the queue" in menu.notice.text())
    said = console.window.statusBar().full_message  # shown whole, or ending in "…" with a tooltip
    assert "was moved to another queue in Request Tracker" in said
    # An agent asking for it hears it is not there; nothing is sent anywhere.
    answer = console.dispatch("set_ticket_priority", {"ticket_id": moved, "priority": "high"})
    assert "error" in answer, answer
    dialog = menu.show_choices()
    text = widget_text(dialog)
    assert "no longer in this queue in Request Tracker" in text
    assert not internals(text)
    clear = next(b for b in dialog.findChildren(type(menu.notice)) if b.text() == "Clear this list")
    clear.click()
    qtbot.waitUntil(lambda: menu.notice.text() == "All changes are in Request Tracker")
    dialog.reject()
    assert desk.changes_to(desk.ids[0], "Priority") == []


# --- Zendesk and Freshdesk (fakes) ----------------------------------------------------------
def _connected(tmp_path, adapter, kind: str) -> Database:
    first = sync.read_all(adapter, kind, pause=lambda s: None)
    first.settings = {"kind": kind, "url": "https://example.invalid"}
    db = Database(tmp_path)
    db.write(
        lambda conn: write_queue(
            conn, first.meta, first.rows, None, "g1", [lambda c, _m: first.store(c)]
        )
    )
    return db


def test_a_ticket_deleted_in_zendesk_leaves_the_queue(tmp_path):
    with FakeZendesk() as zd:
        kept = zd.add_ticket("Kept")
        gone = zd.add_ticket("Deleted soon")
        adapter = Zendesk(zd.url, zd.email, zd.token)
        db = _connected(tmp_path, adapter, "zendesk")
        assert held(db) == [f"ZD-{kept}", f"ZD-{gone}"]
        zd.delete_ticket(gone)
        applied = sync_once(db, adapter)
        assert [(n.ticket, n.why) for n in applied.left] == [(f"ZD-{gone}", "deleted")]
        assert held(db) == [f"ZD-{kept}"]
        db.close()


def test_a_ticket_deleted_in_freshdesk_leaves_the_queue(tmp_path):
    with FakeFreshdesk() as fd:
        customer = fd.add_contact("Chloé Dubois", "chloe@example.com")
        kept = fd.add_ticket("Kept", customer)
        gone = fd.add_ticket("Deleted soon", customer)
        adapter = Freshdesk(fd.url, fd.api_key)
        db = _connected(tmp_path, adapter, "freshdesk")
        fd.delete_ticket(gone)
        applied = sync_once(db, adapter)
        assert [(n.ticket, n.why) for n in applied.left] == [(f"FD-{gone}", "deleted")]
        assert held(db) == [f"FD-{kept}"]
        db.close()


def test_departures_of_tickets_never_held_change_nothing(tmp_path):
    db = Database(tmp_path)
    meta = {"name": "q", "assignees": [], "templates": [], "view": None}
    rows = [("RT-1", 0, "s", "b", "r", "2026-01-01T00:00:00Z", "open", "low", None, "[]", "")]
    first = sync.first_from("rt", "q", [], [], [], "")
    db.write(lambda conn: write_queue(conn, meta, rows, None, "g1", [lambda c, _m: first.store(c)]))
    assert db.write(lambda conn: sync.leave_all(conn, [Departure("99", "moved")])) == []
    assert held(db) == ["RT-1"]
    db.close()


def test_a_subject_in_a_note_cannot_reorder_it():
    note = hd.Left("RT-7", "\u202etxet elbadaer", "moved", 2)
    said = left_words("Request Tracker", note)
    assert f"{FSI}" in said and said.index(PDI) < said.index("was moved")
    assert "\u202e" not in said, "a control character is shown, never obeyed"
    assert said.endswith("Your changes to 2 of its fields were not sent.")
    assert json.dumps(said)  # plain text, no markup to interpret
