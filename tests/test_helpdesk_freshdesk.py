"""The Freshdesk adapter against a fake Freshdesk on loopback (tests/helpdesk_fakes.py): the
updated_since cursor (and how it goes on past Freshdesk's last page), the read-then-update
conflict check, refusals, rate limits, sign-in, agents, groups and canned responses, and
Freshdesk's numbers mapped to the console's words both ways."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing

import httpx2
import pytest
from helpdesk_fakes import FakeFreshdesk, iso

from understudy_desktop.helpdesk.base import (
    ConflictError,
    FieldChange,
    GoneError,
    NotAllowedError,
    Page,
    RefusedError,
    UnreachableError,
)
from understudy_desktop.helpdesk.freshdesk import Freshdesk

LIST = "/api/v2/tickets"


def changes_asked(fake):
    """The lists of changed tickets asked for (not those of deleted tickets, the filter)."""
    return [seen for seen in fake.log if seen.path == LIST and "filter" not in seen.query]


T0 = 1_800_000_000  # an instant well after the fake's clock, for tickets made "at" it


@pytest.fixture
def fake() -> Iterator[FakeFreshdesk]:
    with FakeFreshdesk() as server:
        yield server


def connect(fake: FakeFreshdesk, key: str | None = None, **options: int) -> Freshdesk:
    # An explicit transport: no proxy from the environment between the test and loopback.
    transport = httpx2.HTTPTransport()
    return Freshdesk(fake.url, key or fake.api_key, transport=transport, **options)


@pytest.fixture
def freshdesk(fake: FakeFreshdesk) -> Iterator[Freshdesk]:
    adapter = connect(fake, page_size=2)
    yield adapter
    adapter.close()


def read_all(adapter: Freshdesk, cursor: str | None = None) -> tuple[list[Page], str]:
    pages = []
    while True:
        page = adapter.changed_since(cursor)
        pages.append(page)
        cursor = page.cursor
        if not page.more:
            return pages, cursor
        assert len(pages) < 50, "the sync never caught up"


def first_seen(pages: list[Page]) -> list[str]:
    """Ticket ids in the order they first came, repeats dropped as the caller drops them."""
    seen: dict[str, str] = {}
    for page in pages:
        for ticket in page.tickets:
            seen.setdefault(ticket.remote_id, ticket.version)
    return list(seen)


def test_the_first_page_and_paging_to_the_end(fake, freshdesk):
    bo = fake.add_contact("Bo Requester", "bo@example.com")
    numbers = [fake.add_ticket(f"Ticket {n}", bo, description_text=f"Body {n}") for n in range(5)]
    fake.delete_ticket(numbers[4])  # Freshdesk leaves deleted tickets out of the list

    pages, cursor = read_all(freshdesk)

    first = pages[0]
    assert [t.remote_id for t in first.tickets] == ["1", "2"] and first.more
    assert first_seen(pages) == ["1", "2", "3", "4"]
    assert not pages[-1].more
    one = first.tickets[0]
    assert (one.subject, one.body, one.requester) == ("Ticket 0", "Body 0", "Bo Requester")
    asked = fake.log[0].query
    assert asked["updated_since"] == ["1970-01-01T00:00:00Z"]
    assert (asked["order_by"], asked["order_type"]) == (["updated_at"], ["asc"])
    assert (asked["per_page"], asked["page"]) == (["2"], ["1"])
    assert set(asked["include"][0].split(",")) == {"requester", "description"}

    # Caught up: the last instant comes again (same version, which the caller drops); a
    # ticket changed in Freshdesk comes with its new version.
    again = freshdesk.changed_since(cursor)
    assert [(t.remote_id, t.version) for t in again.tickets] == [
        ("4", fake.tickets[4]["updated_at"])
    ]
    moved = fake.change_ticket(numbers[1], priority=4)
    later = freshdesk.changed_since(again.cursor)
    assert [(t.remote_id, t.version, t.priority) for t in later.tickets][-1] == (
        "2",
        moved,
        "urgent",
    )


def test_the_cursor_goes_on_from_the_last_change_seen_never_past_the_last_page():
    with FakeFreshdesk(page_cap=2) as fake, closing(connect(fake, page_size=2, page_cap=2)) as fd:
        bo = fake.add_contact("Bo Requester", "bo@example.com")
        # Four tickets at one instant (two whole pages of it), then a long backlog after.
        for n in range(4):
            fake.add_ticket(f"Same instant {n}", bo, at=iso(T0))
        for n in range(9):
            fake.add_ticket(f"Later {n}", bo, at=iso(T0 + 1 + n))

        pages, _ = read_all(fd)

        assert first_seen(pages) == [str(n) for n in range(1, 14)]
        listed = changes_asked(fake)
        asked = [int(seen.query["page"][0]) for seen in listed]
        assert max(asked) == 2  # page 2 only for the instant that fills pages
        assert len(listed) == len(pages)  # no request was refused for its page


def test_an_instant_with_more_than_the_last_page_holds_is_left_behind_not_looped_on():
    with FakeFreshdesk(page_cap=2) as fake, closing(connect(fake, page_size=2, page_cap=2)) as fd:
        bo = fake.add_contact("Bo Requester", "bo@example.com")
        for n in range(5):
            fake.add_ticket(f"Same instant {n}", bo, at=iso(T0))
        fake.add_ticket("After", bo, at=iso(T0 + 5))

        pages, _ = read_all(fd)

        seen = first_seen(pages)
        assert seen[-1] == "6"  # the sync went on past the crowded instant
        assert seen[:4] == ["1", "2", "3", "4"]
        assert all(int(s.query["page"][0]) <= 2 for s in changes_asked(fake))


def test_a_change_reads_the_ticket_then_updates_it(fake, freshdesk):
    bo = fake.add_contact("Bo Requester", "bo@example.com")
    number = fake.add_ticket("Printer on fire", bo)
    before = freshdesk.ticket(str(number))

    after = freshdesk.apply(FieldChange(str(number), "status", "solved", before.version))

    assert after.status == "solved" and fake.tickets[number]["status"] == 4
    assert after.version == fake.tickets[number]["updated_at"] != before.version
    assert after.requester == "Bo Requester"  # kept from the read before the update
    path = f"/api/v2/tickets/{number}"
    assert fake.requests[-2:] == [("GET", path), ("PUT", path)]
    assert fake.log[-1].body == {"status": 4}


def test_a_stale_version_is_a_conflict_carrying_the_ticket_as_it_is_now(fake, freshdesk):
    sam = fake.add_agent("Sam Agent", "sam@example.com")
    number = fake.add_ticket("Printer on fire", fake.add_contact("Bo", "bo@example.com"))
    seen = freshdesk.ticket(str(number))
    moved = fake.change_ticket(number, priority=3, responder_id=sam, tags=["vip"])

    with pytest.raises(ConflictError) as caught:
        freshdesk.apply(FieldChange(str(number), "status", "solved", seen.version))

    current = caught.value.current
    assert (current.version, current.priority, current.assignee) == (moved, "high", str(sam))
    assert current.tags == ("vip",)
    assert fake.count("PUT", f"/api/v2/tickets/{number}") == 0
    assert fake.tickets[number]["status"] == 2


@pytest.mark.parametrize(("status", "wait"), [(429, "1"), (503, "12")])
def test_a_request_to_wait_is_unreachable_for_as_long_as_freshdesk_said(
    fake, freshdesk, status, wait
):
    fake.busy(1, status=status, retry_after=wait)
    with pytest.raises(UnreachableError) as caught:
        freshdesk.people()
    assert caught.value.retry_after_s == float(wait)
    assert "wait" in str(caught.value)
    assert [p.name for p in freshdesk.people()] == ["Robin Agent"]


def test_a_wrong_key_is_not_allowed_in_words_without_the_key(fake):
    with closing(connect(fake, key="not-the-key-000")) as adapter:
        for call in (adapter.check, lambda: adapter.changed_since(None), adapter.people):
            with pytest.raises(NotAllowedError) as caught:
                call()
            words = str(caught.value)
            assert "sign-in" in words
            assert "not-the-key-000" not in words and fake.api_key not in words
            assert "key" not in words.lower()


def test_freshdesk_refusals_come_in_its_own_words(fake, freshdesk):
    number = fake.add_ticket("Printer on fire", fake.add_contact("Bo", "bo@example.com"))
    version = fake.tickets[number]["updated_at"]
    with pytest.raises(RefusedError) as caught:
        freshdesk.apply(FieldChange(str(number), "assignee", "424242", version))
    assert str(caught.value) == (
        "Freshdesk refused the change: There is no agent matching the given responder_id."
    )
    assert fake.tickets[number]["responder_id"] is None


def test_a_value_freshdesk_has_no_number_for_is_refused_before_sending(fake, freshdesk):
    number = fake.add_ticket("Printer on fire", fake.add_contact("Bo", "bo@example.com"))
    version = fake.tickets[number]["updated_at"]
    for name, value in [("priority", "frantic"), ("status", "hold"), ("due", "tomorrow")]:
        with pytest.raises(RefusedError):
            freshdesk.apply(FieldChange(str(number), name, value, version))
    assert fake.count("PUT", f"/api/v2/tickets/{number}") == 0


def test_a_deleted_or_unknown_ticket_is_gone(fake, freshdesk):
    number = fake.add_ticket("Printer on fire", fake.add_contact("Bo", "bo@example.com"))
    fake.delete_ticket(number)
    for remote_id in (str(number), "999", "../agents"):
        with pytest.raises(GoneError):
            freshdesk.ticket(remote_id)


@pytest.mark.parametrize(
    ("theirs", "ours"),
    [
        ({"status": 2, "priority": 1}, ("open", "low")),
        ({"status": 3, "priority": 2}, ("pending", "normal")),
        ({"status": 4, "priority": 3}, ("solved", "high")),
        ({"status": 5, "priority": 4}, ("closed", "urgent")),
        ({"status": 6, "priority": 2}, ("pending", "normal")),  # a custom "waiting" status
    ],
)
def test_freshdesk_numbers_read_as_the_consoles_words(fake, freshdesk, theirs, ours):
    sam = fake.add_agent("Sam Agent", "sam@example.com")
    bo = fake.add_contact("", "bo@example.com")
    number = fake.add_ticket("Printer on fire", bo, responder_id=sam, tags=["printer"])
    fake.change_ticket(number, **theirs)
    ticket = freshdesk.ticket(str(number))
    assert (ticket.status, ticket.priority) == ours
    assert (ticket.assignee, ticket.tags) == (str(sam), ("printer",))
    assert ticket.requester == "bo@example.com"  # no name: the email


@pytest.mark.parametrize(
    ("field", "value", "sent", "reads"),
    [
        ("status", "new", {"status": 2}, "open"),  # Freshdesk has no "new"
        ("status", "open", {"status": 2}, "open"),
        ("status", "pending", {"status": 3}, "pending"),
        ("status", "solved", {"status": 4}, "solved"),
        ("status", "closed", {"status": 5}, "closed"),
        ("priority", "low", {"priority": 1}, "low"),
        ("priority", "normal", {"priority": 2}, "normal"),
        ("priority", "high", {"priority": 3}, "high"),
        ("priority", "urgent", {"priority": 4}, "urgent"),
        ("tags", ["a", "b"], {"tags": ["a", "b"]}, ["a", "b"]),
        ("assignee", None, {"responder_id": None}, None),
    ],
)
def test_console_words_go_as_freshdesks_numbers(fake, freshdesk, field, value, sent, reads):
    number = fake.add_ticket("Printer on fire", fake.add_contact("Bo", "bo@example.com"))
    fake.change_ticket(number, status=3, priority=3, tags=["old"], responder_id=fake.me)
    version = fake.tickets[number]["updated_at"]
    after = freshdesk.apply(FieldChange(str(number), field, value, version))
    assert fake.log[-1].method == "PUT" and fake.log[-1].body == sent
    assert after.value(field) == reads


def test_an_assignee_goes_as_freshdesks_responder_number(fake, freshdesk):
    sam = fake.add_agent("Sam Agent", "sam@example.com")
    number = fake.add_ticket("Printer on fire", fake.add_contact("Bo", "bo@example.com"))
    version = fake.tickets[number]["updated_at"]
    after = freshdesk.apply(FieldChange(str(number), "assignee", str(sam), version))
    assert fake.log[-1].body == {"responder_id": sam}
    assert after.assignee == str(sam) and fake.tickets[number]["responder_id"] == sam


def test_agents_are_read_page_by_page_through_the_link_header(fake):
    for n in range(120):
        fake.add_agent(f"Agent {n:03}", f"agent{n}@example.com")
    with closing(connect(fake)) as adapter:
        people = adapter.people()
    assert len(people) == 121 and len({p.remote_id for p in people}) == 121
    assert (people[0].name, people[0].email) == ("Robin Agent", "robin@example.com")
    assert people[-1].name == "Agent 119"
    pages = [seen.query["page"] for seen in fake.log if seen.path == "/api/v2/agents"]
    assert pages == [["1"], ["2"]]


def test_groups_and_canned_responses_are_read(fake, freshdesk):
    for name in ("Billing", "Hardware"):
        fake.add_group(name)
    fake.add_canned("General", "Thanks", "<p>Thanks for writing!</p><p>Robin</p>")
    fake.add_canned("General", "Logs", "<div>Could you send the <b>logs</b>?</div>")
    fake.add_canned("Billing", "Refund", "<p>Your refund is on its way &amp; soon.</p>")

    assert [g.name for g in freshdesk.groups()] == ["Billing", "Hardware"]
    templates = freshdesk.templates()
    assert [(t.title, t.body) for t in templates] == [
        ("Thanks", "Thanks for writing!\n\nRobin"),
        ("Logs", "Could you send the logs?"),
        ("Refund", "Your refund is on its way & soon."),
    ]
    assert all(t.actions == () for t in templates)
    assert fake.count("GET", "/api/v2/canned_response_folders") == 1


@pytest.mark.parametrize(
    ("scope", "note"),
    [(1, None), (2, "tickets of their groups"), (3, "tickets assigned to them")],
)
def test_check_names_the_agent_and_what_they_can_see(scope, note):
    with FakeFreshdesk(ticket_scope=scope) as fake, closing(connect(fake)) as adapter:
        abilities = adapter.check()
    assert abilities.account == "Robin Agent"
    assert abilities.can_read and abilities.can_update
    if note is None:
        assert abilities.notes == ()
    else:
        assert len(abilities.notes) == 1 and note in abilities.notes[0]
