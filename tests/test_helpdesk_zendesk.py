"""The Zendesk adapter against a fake Zendesk on loopback (tests/helpdesk_fakes.py): the
incremental export, safe updates and their conflicts, refusals, rate limits, sign-in, the
people, groups and macros, and Zendesk's words mapped to the console's both ways."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing

import httpx2
import pytest
from helpdesk_fakes import FakeZendesk

from understudy_desktop.helpdesk.base import (
    ConflictError,
    FieldChange,
    GoneError,
    NotAllowedError,
    RefusedError,
    UnreachableError,
)
from understudy_desktop.helpdesk.zendesk import Zendesk

EXPORT = "/api/v2/incremental/tickets/cursor.json"


@pytest.fixture
def fake() -> Iterator[FakeZendesk]:
    with FakeZendesk(page_size=2) as server:
        yield server


def connect(fake: FakeZendesk, token: str | None = None) -> Zendesk:
    # An explicit transport: no proxy from the environment between the test and loopback.
    transport = httpx2.HTTPTransport()
    return Zendesk(fake.url, fake.email, token or fake.token, transport=transport)


@pytest.fixture
def zendesk(fake: FakeZendesk) -> Iterator[Zendesk]:
    adapter = connect(fake)
    yield adapter
    adapter.close()


def test_the_export_pages_to_its_end_oldest_change_first(fake, zendesk):
    alice = fake.add_user("Alice Example", "alice@example.com")
    numbers = [fake.add_ticket(f"Ticket {n}", requester_id=alice) for n in range(5)]
    fake.delete_ticket(numbers[2])  # deleted now: last in the export, and left out

    pages, cursor = [], None
    while True:
        page = zendesk.changed_since(cursor)
        pages.append([ticket.remote_id for ticket in page.tickets])
        cursor = page.cursor
        if not page.more:
            break
        assert len(pages) < 10, "the export never ended"

    assert pages == [["1", "2"], ["4", "5"], []]
    assert fake.count("GET", EXPORT) == 3
    first, later, _last = (seen for seen in fake.log if seen.path == EXPORT)
    assert first.query["start_time"] == ["0"] and "cursor" not in first.query
    assert later.query["cursor"] and "start_time" not in later.query
    assert first.query["include"] == ["users"]

    one = zendesk.ticket("1")
    assert (one.requester, one.subject, one.status) == ("Alice Example", "Ticket 0", "new")

    # Caught up: only what changes from now on comes, once.
    assert list(zendesk.changed_since(cursor).tickets) == []
    moved = fake.change_ticket(numbers[0], priority="high")
    again = zendesk.changed_since(cursor)
    assert [(t.remote_id, t.version, t.priority) for t in again.tickets] == [("1", moved, "high")]
    assert not again.more


def test_a_start_time_cursor_starts_the_export_at_that_moment(fake, zendesk):
    fake.add_ticket("Old")
    page = zendesk.changed_since(Zendesk.cursor_at(1_900_000_000))
    assert page.tickets == []
    assert fake.log[-1].query["start_time"] == ["1900000000"]


def test_the_requester_is_named_by_name_then_email_then_number(fake, zendesk):
    nameless = fake.add_user("", "nameless@example.com")
    fake.add_ticket("By email", requester_id=nameless)
    fake.add_ticket("By nobody we know", requester_id=4242)
    by_email, by_number = zendesk.changed_since(None).tickets
    assert by_email.requester == "nameless@example.com"
    assert by_number.requester == "Requester 4242"


def test_a_change_goes_as_a_safe_update_and_comes_back_as_the_ticket_after(fake, zendesk):
    alice = fake.add_user("Alice Example", "alice@example.com")
    number = fake.add_ticket("Printer on fire", requester_id=alice)
    before = zendesk.ticket(str(number))

    after = zendesk.apply(FieldChange(str(number), "priority", "high", before.version))

    assert after.priority == "high" and fake.tickets[number]["priority"] == "high"
    assert after.version == fake.tickets[number]["updated_at"] != before.version
    assert after.requester == "Alice Example"
    put = next(seen for seen in fake.log if seen.method == "PUT")
    assert put.body == {
        "ticket": {"priority": "high", "safe_update": True, "updated_stamp": before.version}
    }


def test_an_update_from_a_fresh_session_still_names_the_requester(fake):
    alice = fake.add_user("Alice Example", "alice@example.com")
    number = fake.add_ticket("Printer on fire", requester_id=alice)
    version = fake.tickets[number]["updated_at"]
    with closing(connect(fake)) as adapter:  # has read nothing yet, so knows no names
        after = adapter.apply(FieldChange(str(number), "status", "open", version))
    assert after.requester == "Alice Example"
    assert fake.count("GET", f"/api/v2/users/{alice}.json") == 1


def test_a_stale_version_is_a_conflict_carrying_the_ticket_as_it_is_now(fake, zendesk):
    agent = fake.add_agent("Sam Agent", "sam@example.com")
    number = fake.add_ticket("Printer on fire")
    seen = zendesk.ticket(str(number))
    moved = fake.change_ticket(number, priority="urgent", assignee_id=agent, tags=["vip"])

    with pytest.raises(ConflictError) as caught:
        zendesk.apply(FieldChange(str(number), "status", "solved", seen.version))

    current = caught.value.current
    assert (current.version, current.priority, current.assignee) == (moved, "urgent", str(agent))
    assert current.tags == ("vip",)
    assert fake.tickets[number]["status"] == "new"  # the stale change was not applied
    assert "changed" in str(caught.value)


@pytest.mark.parametrize(("status", "wait"), [(429, "1"), (503, "7")])
def test_a_request_to_wait_is_unreachable_for_as_long_as_zendesk_said(fake, zendesk, status, wait):
    fake.add_ticket("Printer on fire")
    fake.busy(1, status=status, retry_after=wait)
    with pytest.raises(UnreachableError) as caught:
        zendesk.changed_since(None)
    assert caught.value.retry_after_s == float(wait)
    assert "wait" in str(caught.value)
    assert [t.subject for t in zendesk.changed_since(None).tickets] == ["Printer on fire"]


def test_wrong_credentials_are_not_allowed_in_words_without_the_token(fake):
    with closing(connect(fake, token="wrong-token-789")) as adapter:
        for call in (adapter.check, lambda: adapter.changed_since(None)):
            with pytest.raises(NotAllowedError) as caught:
                call()
            words = str(caught.value)
            assert "sign-in" in words
            assert "wrong-token-789" not in words and fake.token not in words
            assert "token" not in words.lower()


def test_zendesk_refusals_come_in_its_own_words(fake, zendesk):
    customer = fake.add_user("Cleo Customer", "cleo@example.com")
    number = fake.add_ticket("Printer on fire")
    version = fake.tickets[number]["updated_at"]
    with pytest.raises(RefusedError) as caught:
        zendesk.apply(FieldChange(str(number), "assignee", str(customer), version))
    assert str(caught.value) == (
        "Zendesk refused the change: Assignee: is not an agent in this account."
    )

    closed = fake.add_ticket("Long gone", status="closed")
    version = fake.tickets[closed]["updated_at"]
    with pytest.raises(RefusedError, match="closed prevents ticket update"):
        zendesk.apply(FieldChange(str(closed), "priority", "low", version))


def test_a_value_zendesk_has_no_word_for_is_refused_before_sending(fake, zendesk):
    number = fake.add_ticket("Printer on fire")
    version = fake.tickets[number]["updated_at"]
    for name, value in [("priority", "frantic"), ("status", "hold"), ("assignee", "sam")]:
        with pytest.raises(RefusedError):
            zendesk.apply(FieldChange(str(number), name, value, version))
    assert fake.count("PUT", f"/api/v2/tickets/{number}.json") == 0


def test_a_deleted_or_unknown_ticket_is_gone(fake, zendesk):
    number = fake.add_ticket("Printer on fire")
    fake.delete_ticket(number)
    for remote_id in (str(number), "999", "not-a-number"):
        with pytest.raises(GoneError):
            zendesk.ticket(remote_id)


@pytest.mark.parametrize(
    ("theirs", "ours"),
    [
        ({"status": "new"}, ("new", "normal")),
        ({"status": "open", "priority": "low"}, ("open", "low")),
        ({"status": "pending", "priority": "high"}, ("pending", "high")),
        ({"status": "hold", "priority": "urgent"}, ("pending", "urgent")),
        ({"status": "solved", "priority": "normal"}, ("solved", "normal")),
        ({"status": "closed", "priority": None}, ("closed", "normal")),
    ],
)
def test_zendesk_words_read_as_the_consoles(fake, zendesk, theirs, ours):
    agent = fake.add_agent("Sam Agent", "sam@example.com")
    number = fake.add_ticket("Printer on fire", assignee_id=agent, tags=["printer", "fire"])
    fake.change_ticket(number, **theirs)
    ticket = zendesk.ticket(str(number))
    assert (ticket.status, ticket.priority) == ours
    assert ticket.assignee == str(agent) and ticket.tags == ("printer", "fire")


@pytest.mark.parametrize(
    ("field", "value", "sent"),
    [
        ("status", "new", {"status": "new"}),
        ("status", "open", {"status": "open"}),
        ("status", "pending", {"status": "pending"}),
        ("status", "solved", {"status": "solved"}),
        ("status", "closed", {"status": "solved"}),  # Zendesk closes solved tickets itself
        ("priority", "low", {"priority": "low"}),
        ("priority", "normal", {"priority": "normal"}),
        ("priority", "urgent", {"priority": "urgent"}),
        ("assignee", None, {"assignee_id": None}),
        ("tags", ["a", "b"], {"tags": ["a", "b"]}),
    ],
)
def test_console_words_go_as_zendesks(fake, zendesk, field, value, sent):
    number = fake.add_ticket("Printer on fire", status="open", tags=["old"])
    version = fake.tickets[number]["updated_at"]
    after = zendesk.apply(FieldChange(str(number), field, value, version))
    put = fake.log[-1]
    assert put.method == "PUT"
    body = {
        k: v for k, v in put.body["ticket"].items() if k not in ("safe_update", "updated_stamp")
    }
    assert body == sent
    if field == "status":
        assert after.status == sent["status"]
    elif field != "assignee":
        assert after.value(field) == value


def test_an_assignee_goes_as_zendesks_number_and_reads_back(fake, zendesk):
    agent = fake.add_agent("Sam Agent", "sam@example.com")
    number = fake.add_ticket("Printer on fire")
    version = fake.tickets[number]["updated_at"]
    after = zendesk.apply(FieldChange(str(number), "assignee", str(agent), version))
    assert fake.log[-1].body["ticket"]["assignee_id"] == agent
    assert after.assignee == str(agent)
    cleared = zendesk.apply(FieldChange(str(number), "assignee", None, after.version))
    assert cleared.assignee is None and fake.tickets[number]["assignee_id"] is None


def test_people_are_the_agents_and_admins_page_by_page(fake, zendesk):
    fake.add_agent("Sam Agent", "sam@example.com")
    fake.add_agent("Kim Admin", "kim@example.com", role="admin")
    fake.add_agent("Lee Agent", "lee@example.com")
    fake.add_user("Cleo Customer", "cleo@example.com")

    people = zendesk.people()

    assert [(p.name, p.email) for p in people] == [
        ("Avery Admin", "avery@example.com"),
        ("Sam Agent", "sam@example.com"),
        ("Kim Admin", "kim@example.com"),
        ("Lee Agent", "lee@example.com"),
    ]
    assert all(p.remote_id.isdigit() for p in people)
    calls = [seen for seen in fake.log if seen.path == "/api/v2/users.json"]
    assert len(calls) == 2  # four people, two a page
    assert calls[0].query["role[]"] == ["agent", "admin"]
    assert "page[after]" in calls[1].query


def test_groups_and_active_macros_are_read(fake, zendesk):
    for name in ("Billing", "Hardware", "Returns"):
        fake.add_group(name)
    fake.add_macro(
        "Close as fixed",
        [("status", "solved"), ("comment_value", "Glad it works now!"), ("set_tags", "fixed")],
    )
    fake.add_macro(
        "Ask for logs",
        [("comment_value_html", "<p>Could you send the <b>logs</b>?</p>"),
         ("priority", "high"), ("assignee_id", 1234), ("comment_mode_is_public", True)],
    )  # fmt: skip
    fake.add_macro("Retired", [("status", "open")], active=False)

    assert [g.name for g in zendesk.groups()] == ["Billing", "Hardware", "Returns"]
    fixed, logs = zendesk.templates()
    assert (fixed.title, fixed.body) == ("Close as fixed", "Glad it works now!")
    assert fixed.actions == (
        ("status", "solved"),
        ("comment_value", "Glad it works now!"),
        ("set_tags", "fixed"),
    )
    assert logs.body == "Could you send the logs?"
    assert ("priority", "high") in logs.actions and ("assignee_id", "1234") in logs.actions
    assert ("comment_mode_is_public", "true") in logs.actions


def test_check_says_what_an_admin_an_agent_and_a_customer_can_do():
    with FakeZendesk() as admin_side, closing(connect(admin_side)) as adapter:
        abilities = adapter.check()
        assert abilities.account == "Avery Admin"
        assert abilities.can_read and abilities.can_update and abilities.notes == ()
    with FakeZendesk(role="agent") as agent_side, closing(connect(agent_side)) as adapter:
        abilities = adapter.check()
        assert abilities.can_update and not abilities.can_read
        assert "admin" in abilities.notes[0]
        with pytest.raises(NotAllowedError):
            adapter.changed_since(None)  # Zendesk's export is for admins only
    with FakeZendesk(role="end-user") as customer_side, closing(connect(customer_side)) as adapter:
        abilities = adapter.check()
        assert not abilities.can_update and abilities.fields == ()
        assert "end user" in abilities.notes[0]


def test_a_restricted_agent_is_told_some_tickets_will_not_show():
    with FakeZendesk(role="agent") as fake, closing(connect(fake)) as adapter:
        fake.users[fake.me]["ticket_restriction"] = "groups"
        notes = adapter.check().notes
        assert len(notes) == 2 and "only some of the tickets" in notes[1]
