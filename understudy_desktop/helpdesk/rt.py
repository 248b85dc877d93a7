"""Request Tracker 5, over its REST2 API with an auth token.

Why not the `rt` package from PyPI: its REST2 client does not send If-Match or hand back a
ticket's ETag, and a change must be sent against the version the person saw. The few calls
needed are plain JSON over the shared HTTP client (http.py).

How RT's words map to the console's:

- Status: new, open, stalled (pending), resolved (solved), rejected (closed). The console's
  "closed" is sent as "resolved": RT's "rejected" means turned away, not finished. A ticket
  RT has deleted is not listed.
- Priority: RT keeps a number and names 0 Low, 50 Medium, 100 High. Low, normal and high go
  to those; urgent goes to 100 as well, so it reads back as high (the connection says so).
- Owner: RT's user name; "Nobody" is nobody.
- Tags: the queue's "Tags" custom field, if it has one that takes several values; without one,
  tags stay in Understudy (the connection says so).
- Body: the text of the ticket's first message, read in bulk (one request per hundred
  tickets for their Create transactions, one for those transactions' text).

RT answers 200 to an update even when it dropped a value it did not accept, with the reason
among its messages; the ticket is read back after every change, and a value that did not
take is a refusal in RT's own words.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import httpx2

from understudy_desktop.helpdesk.base import (
    Abilities,
    ConflictError,
    Departure,
    FieldChange,
    GoneError,
    Kind,
    Page,
    RefusedError,
    RemotePerson,
    RemoteTemplate,
    RemoteTicket,
)
from understudy_desktop.helpdesk.http import Http
from understudy_desktop.queue_io.plain_text import html_to_text
from understudy_desktop.text import visible_controls

log = logging.getLogger(__name__)

REST = "REST/2.0/"
PER_PAGE = 100  # REST2's largest page
DEPARTURE_PAGES = 5  # tickets that left, read per sync (more are found by the next ones)
TAGS_FIELD = "Tags"
NOBODY = "Nobody"
MAX_PEOPLE_CHECKED = 500
TICKET_FIELDS = "Subject,Status,Priority,Owner,Requestor,Created,LastUpdated,CustomFields,Queue"

STATUS_TO_RT = {
    "new": "new",
    "open": "open",
    "pending": "stalled",
    "solved": "resolved",
    "closed": "resolved",
}
STATUS_FROM_RT = {
    "new": "new",
    "open": "open",
    "stalled": "pending",
    "resolved": "solved",
    "rejected": "closed",
}
PRIORITY_TO_RT = {"low": 0, "normal": 50, "high": 100, "urgent": 100}


def priority_from_rt(value: Any) -> str:
    try:
        number = int(str(value))
    except ValueError:
        return "normal"
    if number >= 75:
        return "high"
    if number >= 25:
        return "normal"
    return "low"


class RequestTracker:
    kind: Kind = "rt"
    title = "Request Tracker"

    def __init__(
        self,
        base_url: str,
        token: str,
        queue: str,
        transport: httpx2.BaseTransport | None = None,
    ) -> None:
        root = base_url.rstrip("/") + "/"
        self.queue = queue
        self._http = Http(
            root + REST,
            self.title,
            {"Authorization": f"token {token}", "Content-Type": "application/json"},
            transport=transport,
            # The queue's name is RT's (an administrator chose it): its controls made visible.
            # These words reach the page too, which sets helpdesk text apart itself.
            where=f"in the queue “{visible_controls(queue)}”",
        )
        self._tags: bool | None = None
        self._queue_id: str | None = None

    def close(self) -> None:
        self._http.close()

    # --- what the connection can do ------------------------------------------------------
    def check(self) -> Abilities:
        about = self._http.call("GET", "rt").json()
        try:
            queue = self._http.call("GET", f"queue/{_quoted(self.queue)}").json()
        except GoneError:
            # Not a ticket that went: the queue named has no such name in this RT.
            raise RefusedError(
                f"Request Tracker has no queue called “{visible_controls(self.queue)}”. Check "
                "its name (as RT shows it, for example General)."
            ) from None
        fields = ["status", "priority", "assignee"]
        notes = []
        if self._has_tags(queue):
            fields.append("tags")
        else:
            notes.append(f"The queue “{self.queue}” has no Tags field, so tags stay in Understudy.")
        notes.append("Request Tracker has three priorities: Urgent is kept there as High.")
        notes.append("Reply drafts stay in Understudy: send them from Request Tracker.")
        can_update = self._may_modify(queue)
        if not can_update:
            notes.append("This account may read the queue but not change its tickets.")
        version = str(about.get("Version", "")).split("+")[0]
        return Abilities(
            account=f"Request Tracker {version}, queue {self.queue}",
            can_update=can_update,
            fields=tuple(fields),
            notes=tuple(notes),
        )

    def _has_tags(self, queue: dict[str, Any]) -> bool:
        if self._tags is None:
            names = [str(cf.get("name", "")) for cf in queue.get("TicketCustomFields") or []]
            self._tags = TAGS_FIELD in names
        return self._tags

    def _may_modify(self, queue: dict[str, Any]) -> bool:
        """RT offers a ticket's lifecycle moves only to someone who may change it."""
        listed = self._search(f"Queue = {_sql(self.queue)}", 1, per_page=1)
        items = listed.get("items") or []
        if not items:
            return any(link.get("ref") == "create" for link in queue.get("_hyperlinks") or [])
        ticket = self._http.call("GET", f"ticket/{items[0]['id']}").json()
        return any(link.get("ref") == "lifecycle" for link in ticket.get("_hyperlinks") or [])

    # --- reading -------------------------------------------------------------------------
    def changed_since(self, cursor: str | None) -> Page:
        """Tickets whose LastUpdated is at or after the cursor (RT keeps whole seconds, so
        the cursor's own second is read again; the caller skips versions it holds). The
        cursor is "<time>|<page>" while a long backlog is paged through."""
        since, page = _cursor(cursor)
        query = f"Queue = {_sql(self.queue)} AND Status != 'deleted'"
        if since:
            query += f" AND LastUpdated >= {_sql(_rt_time(since))}"
        listed = self._search(query, page)
        items = listed.get("items") or []
        tickets = self._tickets(items)
        more = bool(listed.get("next_page")) and len(items) == PER_PAGE
        if more:
            return Page(tickets, f"{since}|{page + 1}", True)
        newest = max([since, *(t.updated for t in tickets)])
        gone = self._departures(since) if since else ()
        return Page(tickets, f"{newest}|1" if newest else "", False, gone)

    def _departures(self, since: str) -> tuple[Departure, ...]:
        """Tickets changed since the cursor that are now in another queue (the caller keeps
        those it holds). RT's REST2 search never lists a deleted ticket, nor one moved to a
        queue this sign-in cannot see: roll_call() finds those."""
        query = f"LastUpdated >= {_sql(_rt_time(since))} AND Queue != {_sql(self.queue)}"
        gone: list[Departure] = []
        for page in range(1, DEPARTURE_PAGES + 1):
            params = {"query": query, "orderby": "id", "per_page": PER_PAGE, "page": page}
            listed = self._http.call("GET", "tickets", params=params).json()
            items = listed.get("items") or []
            gone.extend(Departure(str(item["id"]), "moved") for item in items)
            if not listed.get("next_page") or len(items) < PER_PAGE:
                break
        return tuple(gone)

    def roll_call(self) -> set[str]:
        """Every ticket of the connected queue, by id alone. Paged by id rather than by page
        number, so a ticket leaving while it is read cannot push another out of view."""
        present: set[str] = set()
        after = 0
        while True:
            query = f"Queue = {_sql(self.queue)} AND Status != 'deleted' AND id > {after}"
            listed = self._http.call(
                "GET",
                "tickets",
                params={
                    "query": query,
                    "orderby": "id",
                    "order": "ASC",
                    "per_page": PER_PAGE,
                    "page": 1,
                },
            ).json()
            items = listed.get("items") or []
            for item in items:
                present.add(str(item["id"]))
            if len(items) < PER_PAGE:
                return present
            after = max(int(item["id"]) for item in items)

    def _search(self, query: str, page: int, per_page: int = PER_PAGE) -> dict[str, Any]:
        params = {
            "query": query,
            "orderby": "LastUpdated",
            "order": "ASC",
            "per_page": per_page,
            "page": page,
            "fields": TICKET_FIELDS,
            "fields[Requestor]": "RealName,EmailAddress,Name",
            "fields[Owner]": "RealName,Name",
        }
        answer: dict[str, Any] = self._http.call("GET", "tickets", params=params).json()
        return answer

    def ticket(self, remote_id: str) -> RemoteTicket:
        return self._read(remote_id, with_body=True)

    def current(self, remote_id: str) -> RemoteTicket:
        return self._read(remote_id, with_body=False)

    def _read(self, remote_id: str, with_body: bool) -> RemoteTicket:
        response = self._http.call("GET", f"ticket/{int(remote_id)}")
        found = response.json()
        if found.get("Status") == "deleted":
            raise GoneError("Request Tracker deleted that ticket.", "deleted")
        if str((found.get("Queue") or {}).get("id", "")) != self._connected_queue_id():
            # Every change is sent after this read: none is written into another queue.
            raise GoneError(
                "That ticket was moved to another queue in Request Tracker, so changes to it "
                "are no longer sent.",
                "moved",
            )
        etag = response.headers.get("etag", "")
        owner = self._owner(found)
        requestors = found.get("Requestor") or []
        requester = self._requester(requestors)
        body = self._bodies([remote_id]).get(remote_id, "") if with_body else ""
        return self._shape(found, etag, owner, requester, body)

    def _connected_queue_id(self) -> str:
        if self._queue_id is None:
            queue = self._http.call("GET", f"queue/{_quoted(self.queue)}").json()
            self._queue_id = str(queue.get("id", ""))
        return self._queue_id

    def _tickets(self, items: list[dict[str, Any]]) -> list[RemoteTicket]:
        bodies = self._bodies([str(item["id"]) for item in items])
        out = []
        for item in items:
            if item.get("Status") == "deleted":
                continue
            owner = str((item.get("Owner") or {}).get("id") or NOBODY)
            requester = self._requester(item.get("Requestor") or [])
            # A search gives no ETag; LastUpdated stands in until the ticket itself is read
            # (every change is sent after reading the ticket, with its real ETag).
            out.append(self._shape(item, "", owner, requester, bodies.get(str(item["id"]), "")))
        return out

    def _shape(
        self, item: dict[str, Any], etag: str, owner: str, requester: str, body: str
    ) -> RemoteTicket:
        tags: tuple[str, ...] = ()
        for cf in item.get("CustomFields") or []:
            if cf.get("name") == TAGS_FIELD:
                tags = tuple(sorted({str(v).strip().lower() for v in cf.get("values") or []}))
        status = STATUS_FROM_RT.get(str(item.get("Status")), "open")
        return RemoteTicket(
            remote_id=str(item["id"]),
            version=etag or str(item.get("LastUpdated", "")),
            updated=str(item.get("LastUpdated", "")),
            subject=str(item.get("Subject") or ""),
            body=body,
            requester=requester,
            created=str(item.get("Created", "")),
            status=status,
            priority=priority_from_rt(item.get("Priority")),
            assignee=None if owner == NOBODY else owner,
            tags=tuple(t for t in tags if t and " " not in t),
        )

    def _owner(self, ticket: dict[str, Any]) -> str:
        return str((ticket.get("Owner") or {}).get("id") or NOBODY)

    def _requester(self, requestors: list[dict[str, Any]]) -> str:
        if not requestors:
            return ""
        first = requestors[0]
        return str(first.get("RealName") or first.get("EmailAddress") or first.get("id") or "")

    def _bodies(self, ticket_ids: list[str]) -> dict[str, str]:
        """Each ticket's first message as text: its Create transaction's text/plain part
        (or its HTML part as text, when that is all there is)."""
        if not ticket_ids:
            return {}
        created = self._collect(
            "transactions",
            [
                {"field": "Type", "value": "Create"},
                {"field": "ObjectType", "value": "RT::Ticket"},
                {"field": "ObjectId", "operator": "IN", "value": [int(t) for t in ticket_ids]},
            ],
            "ObjectId",
        )
        by_transaction = {str(t["id"]): str(t["ObjectId"]) for t in created}
        if not by_transaction:
            return {}
        parts = self._collect(
            "attachments",
            [
                {
                    "field": "TransactionId",
                    "operator": "IN",
                    "value": [int(t) for t in by_transaction],
                },
                {"field": "ContentType", "operator": "LIKE", "value": "text/"},
            ],
            "TransactionId,Content,ContentType",
        )
        bodies: dict[str, str] = {}
        for part in sorted(parts, key=lambda p: int(p["id"])):
            ticket_id = by_transaction.get(str(part.get("TransactionId")))
            kind = str(part.get("ContentType", ""))
            if ticket_id is None or kind not in ("text/plain", "text/html"):
                continue
            text = str(part.get("Content") or "")
            if kind == "text/html":
                text = html_to_text(text)
            # The plain part wins over the HTML one; the first plain part over later ones.
            if ticket_id not in bodies or (kind == "text/plain" and bodies[ticket_id][0] == "h"):
                bodies[ticket_id] = ("p" if kind == "text/plain" else "h") + text
        return {k: v[1:].strip() for k, v in bodies.items()}

    def _collect(
        self, collection: str, query: list[dict[str, Any]], fields: str
    ) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        page = 1
        while True:
            params = {"fields": fields, "per_page": PER_PAGE, "page": page}
            answer = self._http.call("POST", collection, params=params, json=query).json()
            items.extend(answer.get("items") or [])
            if not answer.get("next_page") or page >= int(answer.get("pages") or 1):
                return items
            page += 1

    def people(self) -> list[RemotePerson]:
        """Everyone who can own a ticket: RT's privileged users, without Nobody and RT's own
        system user. REST2 cannot narrow a user search to privileged users, and an RT holds
        an account for every customer who ever wrote, so: RT names a customer's account by
        their email address, and only the other accounts (staff logins) are asked about,
        one by one, up to MAX_PEOPLE_CHECKED."""
        users = self._collect(
            "users", [{"field": "Disabled", "value": 0}], "Name,RealName,EmailAddress"
        )
        out = []
        checked = 0
        for user in users:
            name = str(user.get("Name") or user.get("id"))
            if name in (NOBODY, "RT_System") or name == user.get("EmailAddress"):
                continue
            if checked >= MAX_PEOPLE_CHECKED:
                log.warning("more than %d staff accounts in RT: the rest are left out", checked)
                break
            checked += 1
            found = self._http.call("GET", f"user/{_quoted(name)}").json()
            if str(found.get("Privileged")) != "1":
                continue
            shown = str(user.get("RealName") or name)
            out.append(RemotePerson(name, shown, str(user.get("EmailAddress") or "")))
        return out

    def groups(self) -> list[RemotePerson]:
        groups = self._collect("groups", [{"field": "Domain", "value": "UserDefined"}], "Name")
        return [RemotePerson(str(g["id"]), str(g.get("Name") or g["id"])) for g in groups]

    def templates(self) -> list[RemoteTemplate]:
        """RT's own templates are for mail it sends, not replies a person chooses: none."""
        return []

    # --- changing ------------------------------------------------------------------------
    def apply(self, change: FieldChange) -> RemoteTicket:
        body = self._update(change)
        headers = {"If-Match": change.version} if change.version.startswith('"') else {}
        response = self._http.call(
            "PUT", f"ticket/{int(change.remote_id)}", json=body, headers=headers, ok=(200, 412)
        )
        if response.status_code == 412:
            raise ConflictError(self.current(change.remote_id))
        said = response.json()
        after = self.current(change.remote_id)
        if not _took(change, after):
            messages = [str(m) for m in said] if isinstance(said, list) else []
            raise RefusedError(_refusal(messages))
        return after

    def _update(self, change: FieldChange) -> dict[str, Any]:
        if change.field == "status":
            return {"Status": STATUS_TO_RT[str(change.value)]}
        if change.field == "priority":
            return {"Priority": PRIORITY_TO_RT[str(change.value)]}
        if change.field == "assignee":
            return {"Owner": change.value if change.value is not None else NOBODY}
        if change.field == "tags":
            return {"CustomFields": {TAGS_FIELD: list(change.value)}}
        raise RefusedError("Request Tracker has no place for that change.")

    def reads_back(self, field: str, value: Any) -> Any:
        return reads_back(field, value)


def reads_back(field: str, value: Any) -> Any:
    """How a console value looks once RT has it and it is read again."""
    if field == "status":
        return STATUS_FROM_RT[STATUS_TO_RT[str(value)]]
    if field == "priority":
        return priority_from_rt(PRIORITY_TO_RT[str(value)])
    if field == "tags":
        return sorted(value)
    return value


def _took(change: FieldChange, after: RemoteTicket) -> bool:
    return bool(after.value(change.field) == reads_back(change.field, change.value))


def _refusal(messages: Iterable[str]) -> str:
    said = " ".join(m.strip() for m in messages if m.strip())
    if not said:
        return "Request Tracker did not take the change."
    return f"Request Tracker did not take the change: {said[:200]}"


def _cursor(cursor: str | None) -> tuple[str, int]:
    if not cursor:
        return "", 1
    since, _, page = cursor.partition("|")
    try:
        return since, max(1, int(page or 1))
    except ValueError:
        return since, 1


def _rt_time(iso: str) -> str:
    """A time for TicketSQL. RT does not read ISO 8601's "T…Z" there (it matches every
    ticket), and reads a bare date-time in the RT user's own timezone: so the zone is said."""
    return iso.replace("T", " ").removesuffix("Z") + " UTC"


def _sql(value: str) -> str:
    """A TicketSQL string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _quoted(name: str) -> str:
    from urllib.parse import quote

    return quote(name, safe="")
