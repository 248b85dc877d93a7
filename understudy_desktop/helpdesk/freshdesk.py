"""Freshdesk, through its API v2 with an agent's API key.

Freshdesk has no export of changes and no conditional update, so both are built here from
what it does have:

* Changes come from the ticket list filtered by `updated_since` and sorted by `updated_at`,
  oldest first. The cursor is "<updated_since>|<page>". After a page whose newest ticket
  changed later than `updated_since`, the next page starts again at page 1 from that newest
  instant, rather than going on to page 2: Freshdesk serves at most 300 pages of a list, and
  a ticket that changes while the pages are read moves to the end of the order and would
  shift a later page past a ticket it has not shown yet. Page 2, 3, … are used only while a
  whole page changed at one same instant. The price: tickets changed at exactly the cursor's
  instant come again in the next page (Freshdesk's `updated_since` includes that instant);
  the caller drops them, as their version has not moved.
* A change first reads the ticket and compares its `updated_at` with the version the change
  was made against (ConflictError when it moved on), then sends the update. A change made in
  Freshdesk in the moment between the two is not caught: Freshdesk offers nothing narrower.

Vocabulary, Freshdesk → console: statuses 2 Open, 3 Pending, 4 Resolved, 5 Closed read as
open, pending, solved, closed; Freshdesk has no "new" (a new ticket is Open), so "new" is sent
as Open. Custom statuses (6 and up) are the ones admins add for "waiting on the customer" or
"waiting on a third party"; they read as "pending", the console's word for waiting on someone
else, so that such tickets do not look like work for the agent. Priorities 1 Low, 2 Medium,
3 High, 4 Urgent read as low, normal, high, urgent.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import httpx2

from understudy_desktop.helpdesk.base import (
    Abilities,
    ConflictError,
    Departure,
    FieldChange,
    GoneError,
    Kind,
    NotAllowedError,
    Page,
    RefusedError,
    RemotePerson,
    RemoteTemplate,
    RemoteTicket,
    SignInError,
    UnreachableError,
)
from understudy_desktop.helpdesk.http import Http
from understudy_desktop.queue_io.plain_text import html_to_text, looks_like_html
from understudy_desktop.store.helpdesk_tables import SENT_FIELDS

log = logging.getLogger(__name__)

_STATUS_OUT: Final = {"new": 2, "open": 2, "pending": 3, "solved": 4, "closed": 5}
_STATUS_IN: Final = {2: "open", 3: "pending", 4: "solved", 5: "closed"}
_CUSTOM_STATUS: Final = "pending"
_PRIORITY_OUT: Final = {"low": 1, "normal": 2, "high": 3, "urgent": 4}
_PRIORITY_IN: Final = {number: name for name, number in _PRIORITY_OUT.items()}
# Freshdesk's limits for a list: at most 100 rows a page, and no page after the 300th.
PAGE_SIZE: Final = 100
PAGE_CAP: Final = 300
# Without updated_since Freshdesk lists only tickets created in the last 30 days.
_BEGINNING: Final = "1970-01-01T00:00:00Z"
_ISO: Final = "%Y-%m-%dT%H:%M:%SZ"
_UNREADABLE: Final = "Freshdesk sent an answer the console could not read."


class Freshdesk:
    """One Freshdesk account, acting as the agent whose API key it is."""

    kind: Kind = "freshdesk"
    title: str = "Freshdesk"

    def __init__(
        self,
        base_url: str,
        api_key: str,
        transport: httpx2.BaseTransport | None = None,
        *,
        page_size: int = PAGE_SIZE,
        page_cap: int = PAGE_CAP,
    ) -> None:
        # Freshdesk's sign-in: the API key as the user name, and any password ("X").
        self._http = Http(
            base_url.rstrip("/"),
            self.title,
            headers={"Accept": "application/json"},
            auth=(api_key, "X"),
            transport=transport,
        )
        self._page_size = max(1, min(page_size, PAGE_SIZE))
        self._page_cap = max(1, page_cap)
        self._said_deleted = False

    def reads_back(self, field: str, value: Any) -> Any:
        return reads_back(field, value)

    def close(self) -> None:
        self._http.close()

    def check(self) -> Abilities:
        agent = self._get("/api/v2/agents/me")
        if not isinstance(agent, dict):
            raise UnreachableError(_UNREADABLE)
        contact = _contact(agent)
        account = str(contact.get("name") or contact.get("email") or "this agent")
        notes: list[str] = []
        # ticket_scope: 1 every ticket, 2 those of the agent's groups, 3 their own.
        scope = agent.get("ticket_scope")
        if scope == 2:
            notes.append(
                "This agent sees only the tickets of their groups in Freshdesk; the others "
                "will not show in the queue."
            )
        elif scope == 3:
            notes.append(
                "This agent sees only the tickets assigned to them in Freshdesk; the others "
                "will not show in the queue."
            )
        return Abilities(account=account, notes=tuple(notes))

    def changed_since(self, cursor: str | None) -> Page:
        since, page = _read_cursor(cursor)
        params = {
            "updated_since": since,
            "order_by": "updated_at",
            "order_type": "asc",
            "per_page": self._page_size,
            "page": page,
            "include": "requester,description",
        }
        rows = _rows(self._get("/api/v2/tickets", params))
        tickets = [_ticket(row) for row in rows]
        full = len(rows) >= self._page_size
        gone = () if full or cursor is None else self._deleted()
        return Page(tickets, cursor=self._next(since, page, tickets, full), more=full, gone=gone)

    def _deleted(self) -> tuple[Departure, ...]:
        """The most recently deleted tickets (Freshdesk's list leaves deleted ones out; its
        "deleted" filter lists them, newest change first): the caller keeps those it holds.
        An agent who may not list them is not stopped from syncing: they are found when a
        change to one is sent instead."""
        params = {
            "filter": "deleted",
            "order_by": "updated_at",
            "order_type": "desc",
            "per_page": self._page_size,
        }
        try:
            rows = _rows(self._get("/api/v2/tickets", params))
        except (NotAllowedError, RefusedError) as exc:
            if isinstance(exc, SignInError):
                raise
            if not self._said_deleted:
                log.info("Freshdesk does not list deleted tickets for this agent: %s", exc)
                self._said_deleted = True
            return ()
        return tuple(Departure(str(row["id"]), "deleted") for row in rows if "id" in row)

    def roll_call(self) -> None:
        """Freshdesk's tickets do not move between queues; deleted ones are listed by
        changed_since."""
        return None

    def _next(self, since: str, page: int, tickets: list[RemoteTicket], full: bool) -> str:
        """Where the next page starts: see the module's words on the cursor."""
        moments = [moment for t in tickets if (moment := _moment(t.updated)) is not None]
        newest = max(moments, default=None)
        start = _moment(since) or datetime.now(UTC)
        if newest is not None and newest > start:
            return f"{newest.strftime(_ISO)}|1"
        if not tickets:
            # Nothing from this page on (tickets of this instant may have changed since and
            # moved on): the instant is read again from its first page.
            return f"{since}|1"
        if not full:
            # The last page of this instant for now: read it again, with what joins it.
            return f"{since}|{page}"
        if page < self._page_cap:
            return f"{since}|{page + 1}"
        # More tickets changed in this one second than Freshdesk will list (page_cap pages):
        # the rest of that second cannot be reached, so the sync goes on after it rather than
        # asking for the same last page for ever.
        log.warning("Freshdesk: over %d pages of tickets changed at one instant", page)
        return f"{(start + timedelta(seconds=1)).strftime(_ISO)}|1"

    def current(self, remote_id: str) -> RemoteTicket:
        """One request reads the whole ticket here: the same as ticket()."""
        return self.ticket(remote_id)

    def ticket(self, remote_id: str) -> RemoteTicket:
        return _ticket(self._raw_ticket(remote_id))

    def people(self) -> list[RemotePerson]:
        people = []
        for row in self._list("/api/v2/agents"):
            contact = _contact(row)
            if row.get("id") is not None:
                name, email = str(contact.get("name") or ""), str(contact.get("email") or "")
                people.append(RemotePerson(str(row["id"]), name, email))
        return people

    def groups(self) -> list[RemotePerson]:
        return [
            RemotePerson(str(row["id"]), str(row.get("name") or ""))
            for row in self._list("/api/v2/groups")
            if row.get("id") is not None
        ]

    def templates(self) -> list[RemoteTemplate]:
        """Canned responses, folder by folder; they only write a reply (no actions)."""
        templates = []
        for folder in _rows(self._get("/api/v2/canned_response_folders")):
            if not str(folder.get("id", "")).isdigit():
                continue
            path = f"/api/v2/canned_response_folders/{folder['id']}/responses"
            for row in _rows(self._get(path)):
                if row.get("id") is not None:
                    title = str(row.get("title") or "")
                    templates.append(RemoteTemplate(str(row["id"]), title, _canned_text(row)))
        return templates

    def apply(self, change: FieldChange) -> RemoteTicket:
        body = _sent(change.field, change.value)
        before = self._raw_ticket(change.remote_id)
        current = _ticket(before)
        if current.version != change.version:
            raise ConflictError(current)
        response = self._http.call("PUT", _ticket_path(change.remote_id), json=body, ok=(200, 400))
        if response.status_code == 400:
            said = _refusal(response)
            raise RefusedError(f"Freshdesk refused the change{': ' + said if said else ''}.")
        after = _body(response)
        if not isinstance(after, dict):
            raise UnreachableError(_UNREADABLE)
        # The update's answer does not name the requester; they are the same person as before.
        return _ticket({"requester": before.get("requester"), **after})

    # Reading Freshdesk's answers.

    def _get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        return _body(self._http.call("GET", path, params=params))

    def _raw_ticket(self, remote_id: str) -> dict[str, Any]:
        raw = self._get(_ticket_path(remote_id), {"include": "requester"})
        if not isinstance(raw, dict):
            raise UnreachableError(_UNREADABLE)
        return raw

    def _list(self, path: str) -> Iterator[dict[str, Any]]:
        """Every row of a list, following the Link header's rel="next". Only the page number
        is taken from that link and asked for on the same path: the address comes from the
        answer, and the credentials must go to the helpdesk the person set up and nowhere
        else."""
        page = 1
        while page <= PAGE_CAP:
            response = self._http.call("GET", path, params={"per_page": PAGE_SIZE, "page": page})
            yield from _rows(_body(response))
            following = response.links.get("next", {}).get("url")
            number = httpx2.URL(following).params.get("page") if following else None
            if not (number and number.isdigit() and int(number) > page):
                return
            page = int(number)


def _ticket(raw: dict[str, Any]) -> RemoteTicket:
    updated = str(raw.get("updated_at") or "")
    responder = raw.get("responder_id")
    body = raw.get("description_text")
    if body is None and raw.get("description"):
        body = html_to_text(str(raw["description"]))
    return RemoteTicket(
        remote_id=str(raw.get("id")),
        version=updated,
        updated=updated,
        subject=str(raw.get("subject") or ""),
        body=str(body or ""),
        requester=_requester(raw),
        created=str(raw.get("created_at") or ""),
        status=read_status(raw.get("status")),
        priority=read_priority(raw.get("priority")),
        assignee=None if responder is None else str(responder),
        tags=tuple(str(tag) for tag in raw.get("tags") or ()),
    )


def _contact(agent: dict[str, Any]) -> dict[str, Any]:
    contact = agent.get("contact")
    return contact if isinstance(contact, dict) else {}


def _requester(raw: dict[str, Any]) -> str:
    requester = raw.get("requester")
    if isinstance(requester, dict):
        named = str(requester.get("name") or "").strip() or str(requester.get("email") or "")
        if named.strip():
            return named.strip()
    if raw.get("requester_id") is not None:
        return f"Requester {raw['requester_id']}"
    return ""


def reads_back(field: str, value: Any) -> Any:
    """How a console value reads once Freshdesk holds it ("new" is sent as Open)."""
    if field == "status":
        return read_status(_STATUS_OUT.get(str(value)))
    if field == "priority":
        return read_priority(_PRIORITY_OUT.get(str(value)))
    if field == "tags":
        return sorted(value or ())
    return value


def read_status(value: Any) -> str:
    if isinstance(value, int) and value in _STATUS_IN:
        return _STATUS_IN[value]
    return _CUSTOM_STATUS  # a custom status: see the module's words on vocabulary


def read_priority(value: Any) -> str:
    return _PRIORITY_IN.get(value, "normal") if isinstance(value, int) else "normal"


def _sent(field: str, value: Any) -> dict[str, Any]:
    """A console field and value as the Freshdesk ticket fields that set it."""
    if field == "status":
        if value not in _STATUS_OUT:
            raise RefusedError(f"Freshdesk has no status called “{value}”.")
        return {"status": _STATUS_OUT[value]}
    if field == "priority":
        if value not in _PRIORITY_OUT:
            raise RefusedError(f"Freshdesk has no priority called “{value}”.")
        return {"priority": _PRIORITY_OUT[value]}
    if field == "assignee":
        if value is None or value == "":
            return {"responder_id": None}
        if not str(value).isdigit():
            raise RefusedError("That person is not one of the agents in Freshdesk.")
        return {"responder_id": int(value)}
    if field == "tags":
        if isinstance(value, str) or not all(isinstance(tag, str) for tag in value or ()):
            raise RefusedError("Tags must be a list of words.")
        return {"tags": list(value or ())}
    raise RefusedError(
        f"The console cannot set “{field}” in Freshdesk; it sets {', '.join(SENT_FIELDS)}."
    )


def _canned_text(row: dict[str, Any]) -> str:
    html = row.get("content_html")
    if isinstance(html, str) and html.strip():
        return html_to_text(html)
    text = str(row.get("content") or "")
    return html_to_text(text) if looks_like_html(text) else text


def _read_cursor(cursor: str | None) -> tuple[str, int]:
    if cursor:
        since, _, page = cursor.rpartition("|")
        if _moment(since) is not None and page.isdigit() and int(page) >= 1:
            return since, int(page)
        # Not a cursor this adapter wrote: starting over repeats tickets (which the caller
        # drops by version) but never misses one.
        log.warning("Freshdesk: unreadable sync cursor, starting from the beginning")
    return _BEGINNING, 1


def _moment(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _ticket_path(remote_id: str) -> str:
    # Freshdesk ticket ids are numbers; anything else cannot name one of its tickets.
    if not str(remote_id).isdigit():
        raise GoneError("Freshdesk does not have that ticket.")
    return f"/api/v2/tickets/{remote_id}"


def _body(response: httpx2.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        log.info("Freshdesk answered %s with a body that is not JSON", response.url.path)
        raise UnreachableError(_UNREADABLE) from None


def _rows(data: Any) -> list[dict[str, Any]]:
    if not isinstance(data, list):
        raise UnreachableError(_UNREADABLE)
    return [row for row in data if isinstance(row, dict)]


def _refusal(response: httpx2.Response) -> str:
    """What a 400 says, in Freshdesk's words: the first error's message ("There is no agent
    matching the given responder_id") rather than the general "Validation failed"."""
    try:
        data = response.json()
    except ValueError:
        return ""
    text = ""
    if isinstance(data, dict):
        errors = data.get("errors")
        first = errors[0] if isinstance(errors, list) and errors else None
        if isinstance(first, dict) and isinstance(first.get("message"), str):
            text = first["message"]
        elif isinstance(data.get("description"), str):
            text = data["description"]
    return " ".join(text.split())[:200].rstrip(".")
