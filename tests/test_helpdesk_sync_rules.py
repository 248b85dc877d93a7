"""What a first sync makes of the helpdesk's tickets, rule by rule: the creation time in the
console's one spelling, owners and tags as the console keeps them, the templates worth
offering, the progress told as it reads, and the roll call that confirms a departure."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from helpdesk_fakes import FakeZendesk

from understudy_desktop.helpdesk import sync
from understudy_desktop.helpdesk.base import (
    Departure,
    GoneError,
    NotAllowedError,
    RemotePerson,
    RemoteTemplate,
    RemoteTicket,
    SignInError,
)
from understudy_desktop.helpdesk.zendesk import Zendesk


def remote(
    number: str, when: str = "2024-05-01T10:00:00Z", assignee: str | None = None, **fields: Any
) -> RemoteTicket:
    return RemoteTicket(
        number, "v1", when, "Printer", "It jams", "chloe", when, "open", "", assignee, **fields
    )


def created(when: str) -> str:
    return str(sync.first_from("rt", "Support", [remote("7", when)], [], [], None).rows[0][5])


def test_a_creation_time_with_an_offset_is_stored_in_utc():
    assert created("2024-05-01T10:00:00+02:00") == "2024-05-01T08:00:00Z"
    assert created("2024-05-01T10:00:00Z") == "2024-05-01T10:00:00Z"


def test_a_creation_time_without_an_offset_is_taken_as_utc():
    assert created("2024-05-01T10:00:00") == "2024-05-01T10:00:00Z"


def test_a_first_sync_tells_how_many_tickets_it_has_read_so_far():
    with FakeZendesk(page_size=2) as fake:
        for n in range(5):
            fake.add_ticket(f"Ticket {n}", "It jams", status="open")
        adapter = Zendesk(fake.url, fake.email, fake.token, transport=httpx2.HTTPTransport())
        told: list[tuple[int, int | None]] = []
        first = sync.read_all(adapter, "Support", progress=lambda n, of: told.append((n, of)))
        adapter.close()
    assert len(first.tickets) == 5
    counts = [n for n, _of in told]
    assert len(counts) > 1 and counts == sorted(counts) and counts[-1] == 5


def test_an_owner_missing_from_the_people_listed_is_added_once():
    """An owner disabled since is not listed among the helpdesk's people, but still owns
    tickets: they are among the queue's people (once), as are those listed (once)."""
    people = [RemotePerson("1", "Alice Martin")]
    tickets = [remote("7", assignee="1"), remote("8", assignee="9"), remote("9", assignee="9")]
    first = sync.first_from("rt", "Support", tickets, people, [], "c")
    assignees = first.meta["assignees"]
    assert [a["id"] for a in assignees] == ["rt:1", "rt:9"]
    assert [r[8] for r in first.rows] == ["rt:1", "rt:9", "rt:9"]


def test_a_ticket_keeps_its_owner_and_its_tags_sorted():
    ticket = remote("7", assignee="1", tags=("vip", "billing"))
    row = sync.first_from("rt", "Support", [ticket], [], [], "c").rows[0]
    assert row[8] == "rt:1"
    assert json.loads(row[9]) == ["billing", "vip"]
    assert sync.first_from("rt", "Support", [remote("8")], [], [], "c").rows[0][8] is None


def test_a_template_with_no_reply_text_is_not_offered():
    templates = [
        RemoteTemplate("1", "Close it", "  \n"),
        RemoteTemplate("2", "Thanks", "Thank you"),
    ]
    first = sync.first_from("rt", "Support", [], [], templates, "c")
    assert [t["name"] for t in first.meta["templates"]] == ["Thanks"]


class Roll:
    """A helpdesk whose listing holds `present`, and whose reads of a ticket answer so."""

    def __init__(self, present: set[str] | None, answers: dict[str, Exception]) -> None:
        self.present = present
        self.answers = answers
        self.read: list[str] = []

    def roll_call(self) -> set[str] | None:
        return self.present

    def current(self, remote: str) -> None:
        self.read.append(remote)
        if remote in self.answers:
            raise self.answers[remote]


def test_a_roll_call_confirms_each_departure_by_reading_the_ticket():
    """Missing from the listing is not gone: each is read, lowest number first, at most
    `checks` of them; deleted or moved where this sign-in cannot see is gone, still there
    is not; a sign-in refused stops the roll call rather than dropping tickets."""
    held = {"2", "10", "9", "3", "4"}
    desk = Roll(
        {"4"},
        {
            "2": GoneError("Deleted.", "deleted"),
            "3": NotAllowedError("Not yours."),
            "10": GoneError("Moved.", "moved"),
        },
    )
    gone = sync.roll_call(desk, held, checks=3)
    assert desk.read == ["2", "3", "9"]
    assert gone == [Departure("2", "deleted"), Departure("3", "moved")]
    assert sync.roll_call(Roll(None, {}), held, checks=3) is None
    refused = Roll(set(), {"2": SignInError("The password is wrong.")})
    with pytest.raises(SignInError):
        sync.roll_call(refused, held, checks=3)
