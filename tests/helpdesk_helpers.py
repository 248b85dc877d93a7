"""Shared by the helpdesk tests: a real Request Tracker per test module, a fresh queue in it
per test, and a database holding that queue as the console's connected queue."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from rt_server import RTServer, rt_available
from waiting import until

from understudy_desktop.helpdesk import sync
from understudy_desktop.helpdesk.rt import RequestTracker
from understudy_desktop.store.database import Database
from understudy_desktop.store.queue_store import write_queue

needs_rt = pytest.mark.skipif(
    not rt_available() and not os.environ.get("UNDERSTUDY_REQUIRE_RT"),
    reason="Debian's request-tracker5 is not installed (./run-tests installs it)",
)
_queues = itertools.count(1)


def rt_with_people(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RTServer]:
    """The body of conftest's `rt_server` fixture (one RT per test module)."""
    with RTServer(tmp_path_factory.mktemp("rt") / "rt") as server:
        for login, name in (("alice", "Alice Martin"), ("bob", "Bob Okafor")):
            server.create_user(login, name, f"{login}@example.com")
        server.create_user("chloe", "Chloé Dubois", "chloe@dubois.example", privileged=False)
        yield server


@dataclass
class Desk:
    """One test's RT queue, seeded with tickets, and an adapter on it."""

    rt: RTServer
    queue: str
    ids: list[int]
    adapter: RequestTracker

    def ticket(self, ticket_id: int) -> dict[str, Any]:
        status, _, body = self.rt.rest("GET", f"ticket/{ticket_id}")
        assert status == 200, body
        return dict(body)

    def tags(self, ticket_id: int) -> list[str]:
        for cf in self.ticket(ticket_id).get("CustomFields") or []:
            if cf.get("name") == "Tags":
                return sorted(cf.get("values") or [])
        return []

    def history(self, ticket_id: int) -> list[dict[str, Any]]:
        """Every transaction on the ticket, oldest first, with what it changed (all pages)."""
        items: list[dict[str, Any]] = []
        page = 1
        while True:
            status, _, body = self.rt.rest(
                "GET",
                f"ticket/{ticket_id}/history?per_page=100&page={page}"
                "&fields=Type,Field,OldValue,NewValue",
            )
            assert status == 200, body
            items.extend(body["items"])
            if not body.get("next_page"):
                return items
            page += 1

    def changes_to(self, ticket_id: int, rt_field: str) -> list[tuple[str, str]]:
        return [
            (str(t.get("OldValue")), str(t.get("NewValue")))
            for t in self.history(ticket_id)
            if t.get("Field") == rt_field
        ]


def make_desk(
    rt: RTServer,
    tickets: int = 3,
    tags_field: bool = True,
    transport: httpx2.BaseTransport | None = None,
) -> Desk:
    queue = f"Support {next(_queues)}"
    rt.create_queue(queue)
    if tags_field:
        rt.create_custom_field("Tags", queue, "FreeformMultiple")
    ids = [
        rt.create_ticket(
            queue, f"Printer {i} on fire", "chloe@dubois.example", content=f"Hello {i}\nIt burns"
        )
        for i in range(tickets)
    ]
    adapter = RequestTracker(rt.web_url, rt.token, queue, transport)
    return Desk(rt, queue, ids, adapter)


def connected_db(root: Path, desk: Desk) -> tuple[Database, sync.FirstSync]:
    """A database whose queue is `desk`'s, read by a first sync, as connecting leaves it."""
    first = sync.read_all(desk.adapter, desk.queue)
    first.settings = {"kind": "rt", "url": desk.rt.web_url, "queue": desk.queue}
    db = Database(root)

    def work(conn: Any) -> None:
        write_queue(conn, first.meta, first.rows, None, "g1", [lambda c, _m: first.store(c)])

    db.write(work)
    return db, first


def wait_for(check: Callable[[], Any], what: str = "") -> Any:
    return until(check, what or str(check))


class FlakyTransport(httpx2.BaseTransport):
    """A real transport that fails the next `fail` requests as if the network were down."""

    def __init__(self) -> None:
        self.inner = httpx2.HTTPTransport()
        self.fail = 0
        self.requests = 0

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self.requests += 1
        if self.fail > 0:
            self.fail -= 1
            raise httpx2.ConnectError("the network is down", request=request)
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()
