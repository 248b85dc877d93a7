"""The Request Tracker adapter and the outbox against a real RT 5 (Debian's packages, started
on loopback by tests/rt_server.py): reading the queue in pages, sending changes against the
version the person saw, conflicts, refusals in RT's words, and a send repeated after a crash
that RT must not see twice."""

from __future__ import annotations

import json
import time

import pytest
from helpdesk_helpers import (
    FlakyTransport,
    connected_db,
    make_desk,
    needs_rt,
)

from understudy_desktop.helpdesk import rt as rt_module
from understudy_desktop.helpdesk import sync
from understudy_desktop.helpdesk import tables as hd
from understudy_desktop.helpdesk.base import (
    ConflictError,
    FieldChange,
    NotAllowedError,
    RefusedError,
)
from understudy_desktop.helpdesk.outbox import Sender
from understudy_desktop.helpdesk.rt import RequestTracker
from understudy_desktop.model import tables

pytestmark = [pytest.mark.slow, needs_rt]


def outbox(db):
    return [
        (r["ticket"], r["field"], json.loads(r["value"]), r["state"])
        for r in db.read("SELECT ticket, field, value, state FROM outbox ORDER BY seq")
    ]


def drain(sender, most=50):
    """Send until nothing waits; a change taken again and again fails here at once."""
    results = []
    while (result := sender.send_one()) is not None:
        results.append(result)
        assert len(results) <= most, "the outbox took a change again and again"
    return results


# --- reading --------------------------------------------------------------------------------
def test_the_queue_is_read_in_pages_with_bodies_names_and_people(rt_server, monkeypatch):
    desk = make_desk(rt_server, tickets=5)
    monkeypatch.setattr(rt_module, "PER_PAGE", 2)
    first = sync.read_all(desk.adapter, desk.queue)
    assert [r[0] for r in first.rows] == [f"RT-{i}" for i in desk.ids]
    assert first.rows[2][2] == "Printer 2 on fire"
    assert first.rows[2][3] == "Hello 2\nIt burns"
    assert first.rows[0][6:8] == ("new", "low")
    names = {p["name"] for p in first.meta["assignees"]}
    # Privileged people can own tickets; a requester (unprivileged) and RT's own users cannot.
    assert {"Alice Martin", "Bob Okafor"} <= names
    assert "Chloé Dubois" not in names and "Nobody" not in names
    assert first.cursor.endswith("|1")
    again = desk.adapter.changed_since(first.cursor)
    assert {t.remote_id for t in again.tickets} <= {str(i) for i in desk.ids}
    assert not again.more


def test_what_the_connection_can_do_is_said_in_words(rt_server):
    with_tags = make_desk(rt_server, tickets=1).adapter.check()
    assert with_tags.can_update and "tags" in with_tags.fields
    assert "Request Tracker 5.0" in with_tags.account
    without = make_desk(rt_server, tickets=1, tags_field=False).adapter.check()
    assert "tags" not in without.fields
    assert any("no Tags field" in note for note in without.notes)


def test_a_wrong_token_is_refused_in_words_that_do_not_carry_it(rt_server):
    desk = make_desk(rt_server, tickets=1)
    wrong = RequestTracker(rt_server.web_url, "1-99-0123456789abcdef", desk.queue)
    with pytest.raises(NotAllowedError) as caught:
        wrong.check()
    assert "sign-in" in str(caught.value)
    assert "0123456789abcdef" not in str(caught.value)


def test_a_queue_name_rt_does_not_have_is_said_so_not_taken_for_a_ticket(rt_server):
    from understudy_desktop.helpdesk.base import RefusedError

    wrong = RequestTracker(rt_server.web_url, rt_server.token, "Nonexistent Queue")
    with pytest.raises(RefusedError) as caught:
        wrong.check()
    assert str(caught.value) == (
        "Request Tracker has no queue called “Nonexistent Queue”. Check its name (as RT shows "
        "it, for example General)."
    )
    assert "ticket" not in str(caught.value)


# --- changing -------------------------------------------------------------------------------
def test_changes_land_in_rt_and_a_stale_version_is_a_conflict(rt_server):
    desk = make_desk(rt_server, tickets=1)
    number = str(desk.ids[0])
    before = desk.adapter.ticket(number)
    after = desk.adapter.apply(FieldChange(number, "priority", "high", before.version))
    assert after.priority == "high" and desk.ticket(desk.ids[0])["Priority"] == "100"
    after = desk.adapter.apply(FieldChange(number, "assignee", "alice", after.version))
    assert desk.ticket(desk.ids[0])["Owner"]["id"] == "alice"
    after = desk.adapter.apply(FieldChange(number, "tags", ["vip", "billing"], after.version))
    assert desk.tags(desk.ids[0]) == ["billing", "vip"]
    with pytest.raises(ConflictError) as caught:
        desk.adapter.apply(FieldChange(number, "status", "solved", before.version))
    assert caught.value.current.priority == "high"
    assert desk.ticket(desk.ids[0])["Status"] == "new"


def test_a_value_rt_drops_is_a_refusal_in_rts_words(rt_server):
    desk = make_desk(rt_server, tickets=1)
    number = str(desk.ids[0])
    now = desk.adapter.ticket(number)
    with pytest.raises(RefusedError) as caught:
        desk.adapter.apply(FieldChange(number, "assignee", "nobody-of-ours", now.version))
    assert "does not exist" in str(caught.value)
    assert desk.ticket(desk.ids[0])["Owner"]["id"] == "Nobody"


# --- the outbox -----------------------------------------------------------------------------
def test_every_change_enters_the_outbox_in_its_own_transaction(rt_server, tmp_path):
    desk = make_desk(rt_server, tickets=2)
    db, _ = connected_db(tmp_path, desk)
    db.write(lambda conn: tables.write_field(conn, f"RT-{desk.ids[0]}", "priority", "high"))
    assert outbox(db) == [(f"RT-{desk.ids[0]}", "priority", "high", "waiting")]

    def rolled_back(conn):
        tables.write_field(conn, f"RT-{desk.ids[1]}", "status", "open")
        raise RuntimeError("the change fails after writing")

    with pytest.raises(RuntimeError):
        db.write(rolled_back)
    assert len(outbox(db)) == 1, "a change that was not kept left nothing to send"
    # The reply draft stays here: it is not a field of the helpdesk.
    db.write(lambda conn: tables.write_field(conn, f"RT-{desk.ids[1]}", "reply_draft", "Hi"))
    assert len(outbox(db)) == 1
    db.close()


def test_the_outbox_sends_in_order_and_coalesces_one_field(rt_server, tmp_path):
    desk = make_desk(rt_server, tickets=1)
    db, _ = connected_db(tmp_path, desk)
    ticket = f"RT-{desk.ids[0]}"
    for value in ("high", "normal", "high"):
        db.write(lambda conn, v=value: tables.write_field(conn, ticket, "priority", v))
    db.write(lambda conn: tables.write_field(conn, ticket, "assignee", "rt:bob"))
    results = drain(Sender(db, desk.adapter))
    assert [(r.field, r.outcome) for r in results] == [("priority", "sent"), ("assignee", "sent")]
    assert desk.changes_to(desk.ids[0], "Priority") == [("0", "100")]
    assert desk.ticket(desk.ids[0])["Owner"]["id"] == "bob"
    assert {state for *_, state in outbox(db)} == {"sent"}
    db.close()


def test_a_send_repeated_after_a_crash_reaches_rt_once(rt_server, tmp_path):
    """The change reached RT but the app died before it noted so: the next start reads the
    ticket first, sees the change there, and does not send it again."""
    desk = make_desk(rt_server, tickets=1)
    db, _ = connected_db(tmp_path, desk)
    ticket = f"RT-{desk.ids[0]}"
    db.write(lambda conn: tables.write_field(conn, ticket, "status", "pending"))
    now = desk.adapter.ticket(str(desk.ids[0]))
    desk.adapter.apply(FieldChange(str(desk.ids[0]), "status", "pending", now.version))
    [result] = drain(Sender(db, desk.adapter))
    assert result.outcome == "arrived"
    assert desk.changes_to(desk.ids[0], "Status") == [("new", "stalled")]
    db.close()


def test_a_change_made_in_rt_meanwhile_waits_for_the_person(rt_server, tmp_path):
    desk = make_desk(rt_server, tickets=2)
    db, _ = connected_db(tmp_path, desk)
    first, second = (f"RT-{i}" for i in desk.ids)
    rt_server.rest("PUT", f"ticket/{desk.ids[0]}", {"Priority": 50})
    rt_server.rest("PUT", f"ticket/{desk.ids[1]}", {"Priority": 50})
    db.write(lambda conn: tables.write_field(conn, first, "priority", "high"))
    db.write(lambda conn: tables.write_field(conn, second, "priority", "high"))
    results = drain(Sender(db, desk.adapter))
    assert [r.outcome for r in results] == ["conflict", "conflict"]
    assert desk.ticket(desk.ids[0])["Priority"] == "50", "nothing was overwritten"
    choices = db.write(hd.choices)
    assert [(c.ticket, c.mine, c.theirs) for c in choices] == [
        (first, "high", "normal"),
        (second, "high", "normal"),
    ]
    db.write(lambda conn: hd.keep_mine(conn, first, "priority"))
    db.write(lambda conn: hd.take_theirs(conn, second, "priority"))
    assert [r.outcome for r in drain(Sender(db, desk.adapter))] == ["sent"]
    assert desk.ticket(desk.ids[0])["Priority"] == "100"
    assert desk.ticket(desk.ids[1])["Priority"] == "50"
    db.close()


def test_offline_changes_wait_and_catch_up(rt_server, tmp_path):
    flaky = FlakyTransport()
    desk = make_desk(rt_server, tickets=1, transport=flaky)
    db, _ = connected_db(tmp_path, desk)
    ticket = f"RT-{desk.ids[0]}"
    db.write(lambda conn: tables.write_field(conn, ticket, "priority", "urgent"))
    offline: list[float | None] = []
    sender = Sender(db, desk.adapter, offline=offline.append)
    flaky.fail = 3
    [first] = drain(sender)
    assert first.outcome == "retry" and "could not be reached" in first.words
    assert offline and offline[-1] is not None
    assert sender.send_one() is None, "it waits its pause before trying again"
    db.write(lambda conn: conn.execute("UPDATE outbox SET next_at = 0"))
    assert sender.send_one() is None, "the connection waits, not only the change"
    sender._paused_until = 0.0  # the pause is over
    flaky.fail = 0
    assert [r.outcome for r in drain(sender)] == ["sent"]
    assert offline[-1] is None
    assert desk.ticket(desk.ids[0])["Priority"] == "100"
    db.close()


# --- the helpdesk's changes coming in -----------------------------------------------------------
def test_a_sync_brings_rt_changes_in_without_overwriting_ours(rt_server, tmp_path):
    desk = make_desk(rt_server, tickets=2)
    db, first = connected_db(tmp_path, desk)
    a, b = (f"RT-{i}" for i in desk.ids)
    db.write(lambda conn: tables.write_field(conn, a, "priority", "high"))  # waiting, ours
    rt_server.rest("PUT", f"ticket/{desk.ids[0]}", {"Priority": 50, "Status": "open"})
    rt_server.rest("PUT", f"ticket/{desk.ids[1]}", {"Owner": "alice"})
    new = rt_server.create_ticket(desk.queue, "Screen is blank", "dan@example.com", content="Hi")
    time.sleep(1.1)  # RT keeps whole seconds
    page = desk.adapter.changed_since(first.cursor)
    applied = db.write(
        lambda conn: sync.apply_remote(
            conn, page.tickets, page.cursor, time.time(), desk.adapter.reads_back
        )
    )
    row = {r["id"]: dict(r) for r in db.read("SELECT * FROM tickets")}
    assert row[a]["priority"] == "high", "our waiting change is kept"
    assert row[a]["status"] == "open"
    assert row[b]["assignee"] == "rt:alice"
    assert row[f"RT-{new}"]["subject"] == "Screen is blank"
    assert applied.arrived == 1
    assert outbox(db) == [(a, "priority", "high", "waiting")], "nothing of RT's goes back"
    db.close()


SET_TIMEZONE = """
my $user = RT::User->new(RT->SystemUser);
$user->Load('root');
my $prefs = $user->Preferences($RT::System) || {};
$prefs->{Timezone} = $ARGV[0];
my ($ok, $msg) = $user->SetPreferences($RT::System, $prefs);
die $msg unless $ok;
print "ok";
"""


@pytest.mark.parametrize("timezone", ["UTC", "America/New_York", "Asia/Tokyo"])
def test_an_incremental_sync_reads_only_what_changed_in_any_timezone(rt_server, timezone):
    """RT reads a TicketSQL time in the RT user's own timezone, and reads ISO 8601 not at
    all (every ticket matches): the cursor must mean the same instant whatever the user's."""
    desk = make_desk(rt_server, tickets=3)
    a, b, c = (str(i) for i in desk.ids)
    time.sleep(1.1)  # time passing is the point: RT keeps whole seconds
    rt_server.rest("PUT", f"ticket/{a}", {"Priority": 50})
    cursor = sync.read_all(desk.adapter, desk.queue).cursor
    time.sleep(1.1)  # (as above)
    rt_server.rest("PUT", f"ticket/{b}", {"Priority": 50})
    rt_server.run_perl(SET_TIMEZONE, timezone)
    try:
        page = desk.adapter.changed_since(cursor)
    finally:
        rt_server.run_perl(SET_TIMEZONE, "UTC")
    # The cursor's own second is read again (RT keeps whole seconds): a, then b; never c.
    assert sorted(t.remote_id for t in page.tickets) == sorted([a, b])
    assert c not in {t.remote_id for t in page.tickets}


def test_a_send_that_landed_before_a_crash_then_a_new_change_is_not_a_conflict(rt_server, tmp_path):
    """RT has our first change (sent just before a crash, never noted); the person changed
    the field again before the restart: RT holds our own value, so the newest is sent."""
    desk = make_desk(rt_server, tickets=1)
    db, _ = connected_db(tmp_path, desk)
    ticket, number = f"RT-{desk.ids[0]}", str(desk.ids[0])
    db.write(lambda conn: tables.write_field(conn, ticket, "priority", "high"))
    now = desk.adapter.ticket(number)
    desk.adapter.apply(FieldChange(number, "priority", "high", now.version))
    db.write(lambda conn: tables.write_field(conn, ticket, "priority", "normal"))
    assert [r.outcome for r in drain(Sender(db, desk.adapter))] == ["sent"]
    assert desk.changes_to(desk.ids[0], "Priority") == [("0", "100"), ("100", "50")]


class ChangesWhileSending:
    """The adapter, with the person making another change while a send is on its way."""

    def __init__(self, inner, during):
        self.inner = inner
        self.during = during

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def apply(self, change):
        during, self.during = self.during, None
        if during is not None:
            during()
        return self.inner.apply(change)


def test_a_change_made_while_the_last_was_on_its_way_follows_it(rt_server, tmp_path):
    desk = make_desk(rt_server, tickets=1)
    db, _ = connected_db(tmp_path, desk)
    ticket = f"RT-{desk.ids[0]}"
    db.write(lambda conn: tables.write_field(conn, ticket, "status", "open"))
    later = lambda: db.write(lambda conn: tables.write_field(conn, ticket, "status", "pending"))  # noqa: E731
    results = drain(Sender(db, ChangesWhileSending(desk.adapter, later)))
    assert [r.outcome for r in results] == ["sent", "sent"]
    assert desk.changes_to(desk.ids[0], "Status") == [("new", "open"), ("open", "stalled")]


def test_the_outbox_keeps_only_the_newest_sent_changes(rt_server, tmp_path):
    desk = make_desk(rt_server, tickets=1)
    db, _ = connected_db(tmp_path, desk)
    ticket = f"RT-{desk.ids[0]}"
    for value in ("high", "low", "urgent", "normal"):
        db.write(lambda conn, v=value: tables.write_field(conn, ticket, "priority", v))
        drain(Sender(db, desk.adapter))
    db.write(lambda conn: tables.write_field(conn, ticket, "status", "open"))  # waiting
    assert db.write(lambda conn: hd.prune_sent(conn, keep=2)) == 2
    assert [v for _, _, v, _ in outbox(db)] == ["urgent", "normal", "open"]
    db.close()


TOKEN_FOR = """
my $user = RT::User->new(RT->SystemUser);
$user->Load($ARGV[0]);
die "no user\\n" unless $user->Id;
my $token = RT::AuthToken->new(RT->SystemUser);
my ($id, $msg, $secret) = $token->Create(Owner => $user->Id, Description => 'tests');
die "$msg\\n" unless $id;
print "$secret\\n";
"""


def test_an_account_that_may_only_read_is_told_so_and_its_changes_are_refused(rt_server, tmp_path):
    """Bob may see and own tickets but not change them (the rights the test RT gives every
    privileged user): the connection says so before anything is sent, and a change sent
    anyway is refused in words and kept here, never retried for ever."""
    desk = make_desk(rt_server, tickets=1)
    token = rt_server.run_perl(TOKEN_FOR, "bob").strip()
    bob = RequestTracker(rt_server.web_url, token, desk.queue)
    abilities = bob.check()
    assert not abilities.can_update
    assert any("may read the queue but not change" in note for note in abilities.notes)
    db, _ = connected_db(tmp_path, desk)
    db.write(lambda conn: tables.write_field(conn, f"RT-{desk.ids[0]}", "priority", "high"))
    [result] = drain(Sender(db, bob))
    assert result.outcome == "refused", result
    assert desk.ticket(desk.ids[0])["Priority"] == "0"
    assert outbox(db)[0][3] == "refused"
    assert "Permission Denied" in result.words
    db.close()


def test_a_bulk_change_puts_one_change_per_ticket_in_the_outbox(rt_server, tmp_path):
    desk = make_desk(rt_server, tickets=3)
    db, _ = connected_db(tmp_path, desk)
    db.write(lambda conn: conn.execute("UPDATE ticket_fields SET status = 'pending'"))
    assert sorted(t for t, *_ in outbox(db)) == sorted(f"RT-{i}" for i in desk.ids)
    assert {f for _, f, _, _ in outbox(db)} == {"status"}
    db.close()


def test_a_sign_in_that_stopped_working_holds_every_change_back(rt_server, tmp_path):
    desk = make_desk(rt_server, tickets=1)
    db, _ = connected_db(tmp_path, desk)
    db.write(lambda conn: tables.write_field(conn, f"RT-{desk.ids[0]}", "status", "open"))
    revoked = RequestTracker(rt_server.web_url, "1-99-revoked", desk.queue)
    [result] = drain(Sender(db, revoked))
    assert result.outcome == "retry" and "sign-in" in result.words
    assert outbox(db)[0][3] == "waiting", "kept to send once the sign-in works again"
    db.close()


def test_a_huge_ticket_body_is_kept_cut_with_a_note_and_read_again_unchanged(rt_server, tmp_path):
    """A ticket whose text is past rules.json's limit (a mail thread of megabytes) is stored
    cut, saying so; the next sync reads it the same way, so it is not rewritten each time."""
    from understudy_desktop.rules import rules

    limit = rules().limits.ticketBody
    desk = make_desk(rt_server, tickets=0)
    huge = "A long thread. " * (limit // 15 + 5000)
    rt_server.create_ticket(desk.queue, "Long one", "chloe@dubois.example", content=huge)
    db, first = connected_db(tmp_path / "data", desk)
    [row] = first.rows
    body = row[3]
    assert len(body) < limit + 200 and body.startswith("A long thread. ")
    assert body.endswith(
        "more characters of this ticket are in the helpdesk: too long to keep here.]"
    )
    stored = db.submit(
        lambda conn: conn.execute("SELECT body FROM ticket_text").fetchone()[0], keep=False
    ).result()
    assert stored == body
    page = desk.adapter.changed_since(None)
    [again] = page.tickets
    assert again.body == body, "read again the same, so a sync finds nothing to rewrite"


def test_a_ticket_moved_to_another_queue_gets_no_change_of_ours(rt_server, tmp_path):
    """Someone moved the ticket to another queue in RT: the change made here is not sent, the
    ticket leaves this queue (test_helpdesk_departures.py), and nothing is written into the
    queue the ticket went to."""
    desk = make_desk(rt_server, tickets=1)
    elsewhere = f"{desk.queue} (elsewhere)"
    rt_server.create_queue(elsewhere)
    db, _ = connected_db(tmp_path, desk)
    ticket = f"RT-{desk.ids[0]}"
    rt_server.rest("PUT", f"ticket/{desk.ids[0]}", {"Queue": elsewhere})
    db.write(lambda conn: tables.write_field(conn, ticket, "priority", "high"))
    [result] = drain(Sender(db, desk.adapter))
    assert result.outcome == "left"
    assert "moved to another queue in Request Tracker" in result.words
    assert desk.changes_to(desk.ids[0], "Priority") == []
    assert outbox(db) == [(ticket, "priority", "high", "settled")]
    db.close()


@pytest.mark.parametrize(
    ("rt_holds", "outcome"),
    [
        (["old", "new"], "sent"),  # RT killed after adding ours, before deleting the old one
        ([], "sent"),  # killed after deleting the old one, before adding ours
        (["old", "theirs"], "conflict"),  # someone else's tag: their change, waits
        (["new", "theirs"], "conflict"),
    ],
)
def test_tags_left_halfway_by_an_rt_killed_mid_update_are_sent_again(
    rt_server, tmp_path, rt_holds, outcome
):
    """RT applies a tags change a value at a time; a server killed in between keeps a mix of
    the old and the new (seen by the crash harness). That mix is our change on its way, not
    someone else's: it is sent again. A tag neither value holds is someone's: a choice."""
    desk = make_desk(rt_server, tickets=1)
    number = desk.ids[0]
    rt_server.rest("PUT", f"ticket/{number}", {"CustomFields": {"Tags": ["old"]}})
    db, _ = connected_db(tmp_path, desk)
    ticket = f"RT-{number}"
    db.write(lambda conn: tables.write_field(conn, ticket, "tags", ["new"]))
    rt_server.rest("PUT", f"ticket/{number}", {"CustomFields": {"Tags": rt_holds}})
    [result] = drain(Sender(db, desk.adapter))
    assert result.outcome == outcome, result
    if outcome == "sent":
        assert desk.tags(number) == ["new"]
    else:
        assert sorted(desk.tags(number)) == sorted(rt_holds), "nothing overwritten"
    db.close()
