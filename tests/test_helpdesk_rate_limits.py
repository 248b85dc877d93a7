"""A first sync of a big queue meets the helpdesk's rate limit on its way (a Zendesk export
allows 10 pages a minute; a Freshdesk Growth account 20 lists): it waits as long as the
helpdesk says (Retry-After) and goes on from the page it was on, instead of failing. Against
the Zendesk and Freshdesk fakes (tests/helpdesk_fakes.py: no real Zendesk or Freshdesk can
run here), which answer 429 over real HTTP."""

from __future__ import annotations

from contextlib import closing

import httpx2
import pytest
from helpdesk_fakes import FakeFreshdesk, FakeZendesk

from understudy_desktop.helpdesk import sync
from understudy_desktop.helpdesk.base import UnreachableError
from understudy_desktop.helpdesk.freshdesk import Freshdesk
from understudy_desktop.helpdesk.zendesk import Zendesk


def zendesk_with_tickets(fake: FakeZendesk, count: int) -> Zendesk:
    alice = fake.add_user("Alice Example", "alice@example.com")
    for n in range(count):
        fake.add_ticket(f"Ticket {n}", requester_id=alice)
    return Zendesk(fake.url, fake.email, fake.token, transport=httpx2.HTTPTransport())


def freshdesk_with_tickets(fake: FakeFreshdesk, count: int) -> Freshdesk:
    chloe = fake.add_contact("Chloé Dubois", "chloe@example.com")
    for n in range(count):
        fake.add_ticket(f"Ticket {n}", chloe)
    return Freshdesk(fake.url, fake.api_key, transport=httpx2.HTTPTransport(), page_size=2)


def busy_before_page(monkeypatch, adapter, fake, page: int, times: int, wait: str) -> None:
    """The helpdesk says "too many requests" `times` times when page number `page` is asked."""
    asked = {"n": 0}
    real = adapter.changed_since

    def changed_since(cursor):
        asked["n"] += 1
        if asked["n"] == page:
            fake.busy(times, status=429, retry_after=wait)
        return real(cursor)

    monkeypatch.setattr(adapter, "changed_since", changed_since)


@pytest.mark.parametrize("kind", ["zendesk", "freshdesk"])
def test_a_first_sync_waits_out_the_rate_limit_and_goes_on(monkeypatch, kind):
    fake_kind, make = {
        "zendesk": (lambda: FakeZendesk(page_size=2), zendesk_with_tickets),
        "freshdesk": (FakeFreshdesk, freshdesk_with_tickets),
    }[kind]
    with fake_kind() as fake, closing(make(fake, 7)) as adapter:
        fake.busy(1, status=429, retry_after="3")  # already at the people list
        busy_before_page(monkeypatch, adapter, fake, page=2, times=2, wait="2")
        waits: list[float] = []
        first = sync.read_all(adapter, "Support", pause=waits.append)
        assert len(first.tickets) == 7, "every ticket, none lost to the pause"
        assert waits == [3.0, 2.0, 2.0], "as long as the helpdesk said, each time"


def test_a_helpdesk_that_never_stops_saying_wait_is_given_up_on_in_words():
    with FakeZendesk(page_size=2) as fake, closing(zendesk_with_tickets(fake, 2)) as adapter:
        fake.busy(1000, status=429, retry_after="60")
        waits: list[float] = []
        with pytest.raises(UnreachableError, match="asked to wait"):
            sync.read_all(adapter, "Support", pause=waits.append)
        assert sum(waits) >= sync.PATIENCE_S and len(waits) < 100
        assert sum(waits[:-1]) < sync.PATIENCE_S, "no pause begun after its patience ran out"


def test_a_helpdesk_that_cannot_be_reached_is_not_waited_for():
    with FakeZendesk(page_size=2) as fake, closing(zendesk_with_tickets(fake, 2)) as adapter:
        fake.stop()
        waits: list[float] = []
        with pytest.raises(UnreachableError):
            sync.read_all(adapter, "Support", pause=waits.append)
        assert waits == []
