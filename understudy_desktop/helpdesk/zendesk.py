"""Zendesk Support, through its REST API v2 with an API token.

Tickets come in through the cursor-based incremental ticket export, the one Zendesk call that
lists every change since a point without missing any; Zendesk allows it to admins only, which
check() says before a sync would fail on it. Changes go out as safe updates: Zendesk applies
one only while the ticket's updated_at still equals the `updated_stamp` sent with it, and
answers 409 otherwise, so a change made against an older ticket never overwrites a newer one.

Vocabulary, Zendesk → console: statuses new/open/pending/solved/closed are the same words;
"hold" (on-hold, waiting on a third party) reads as "pending", the console's word for "waiting
on someone else"; a ticket without a priority reads as "normal", which is how Zendesk's own
views sort it. Console → Zendesk: the same words, except "closed" (see _STATUS_OUT).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
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
    UnreachableError,
)
from understudy_desktop.helpdesk.http import Http
from understudy_desktop.queue_io.plain_text import html_to_text
from understudy_desktop.store.helpdesk_tables import SENT_FIELDS

log = logging.getLogger(__name__)

_STATUS_IN: Final = {
    "new": "new",
    "open": "open",
    "pending": "pending",
    "hold": "pending",
    "solved": "solved",
    "closed": "closed",
}
# Zendesk does not let an update close a ticket: closing is its own automation's step, some
# days after a ticket is solved (and a closed ticket can never be changed again). So "closed"
# is sent as "solved", the nearest state a person can set, and Zendesk closes it in its own
# time; the ticket returned by apply() then reads "solved", which is the truth at that moment.
_STATUS_OUT: Final = {
    "new": "new",
    "open": "open",
    "pending": "pending",
    "solved": "solved",
    "closed": "solved",
}
_PRIORITIES: Final = ("low", "normal", "high", "urgent")
# Zendesk's own maximum for cursor pagination of lists.
_LIST_PAGE_SIZE: Final = 100
_START_PREFIX: Final = "start_time="


class Zendesk:
    """One Zendesk account, acting as the user whose email goes with the API token."""

    kind: Kind = "zendesk"
    title: str = "Zendesk"

    def __init__(
        self,
        base_url: str,
        email: str,
        token: str,
        transport: httpx2.BaseTransport | None = None,
    ) -> None:
        # Zendesk's API token sign-in: the user is "{email}/token" and the token the password.
        self._http = Http(
            base_url.rstrip("/"),
            self.title,
            headers={"Accept": "application/json"},
            auth=(f"{email}/token", token),
            transport=transport,
        )
        # How to name each person met in a side-load, by Zendesk id: tickets name their
        # requester only by id, and an update's answer side-loads nobody.
        self._names: dict[str, str] = {}

    @staticmethod
    def cursor_at(unix_seconds: int) -> str:
        """A cursor that starts the export at a moment rather than at the very beginning."""
        return f"{_START_PREFIX}{max(0, int(unix_seconds))}"

    def reads_back(self, field: str, value: Any) -> Any:
        return reads_back(field, value)

    def close(self) -> None:
        self._http.close()

    def check(self) -> Abilities:
        user = _object(self._get("/api/v2/users/me.json"), "user")
        # Zendesk answers this call for a visitor it does not know with an anonymous user
        # rather than a refusal; that means the sign-in did not work all the same.
        if user.get("id") is None:
            raise NotAllowedError("Zendesk did not accept the sign-in details.")
        account = str(user.get("name") or user.get("email") or "this account")
        role = str(user.get("role") or "")
        if role == "end-user":
            return Abilities(
                account=account,
                can_read=False,
                can_update=False,
                fields=(),
                notes=(
                    "This account is a customer (end user) in Zendesk, not an agent: it can "
                    "neither see the team's tickets nor change them.",
                ),
            )
        notes: list[str] = []
        if role != "admin":
            notes.append(
                "Zendesk lets only admins follow every change to tickets, and this account "
                "is an agent, so the queue cannot keep up with Zendesk through it. Connect "
                "with an admin's email address and API token instead."
            )
        if user.get("ticket_restriction"):
            notes.append(
                "This account sees only some of the tickets in Zendesk (for example those "
                "assigned to it or to its groups); the others will not show in the queue."
            )
        return Abilities(account=account, can_read=role == "admin", notes=tuple(notes))

    def changed_since(self, cursor: str | None) -> Page:
        """Tickets changed since the cursor, in Zendesk's export order (oldest change first).

        Deleted tickets are in Zendesk's export too (with status "deleted"): they are the
        page's `gone`, and leave the console's queue."""
        params: dict[str, Any] = {"include": "users"}
        if cursor is None or cursor.startswith(_START_PREFIX):
            start = (cursor or self.cursor_at(0)).removeprefix(_START_PREFIX)
            params["start_time"] = int(start) if start.isdigit() else 0
        else:
            params["cursor"] = cursor
        data = self._get("/api/v2/incremental/tickets/cursor.json", params)
        self._remember(data.get("users"))
        rows = [raw for raw in _rows(data, "tickets") if raw.get("id") is not None]
        tickets = [self._ticket(raw) for raw in rows if raw.get("status") != "deleted"]
        gone = [
            Departure(str(raw["id"]), "deleted") for raw in rows if raw.get("status") == "deleted"
        ]
        after = data.get("after_cursor")
        # Without an after_cursor (nothing was ever exported) the next call starts where this
        # one did.
        next_cursor = str(after) if after else (cursor or self.cursor_at(0))
        more = not bool(data.get("end_of_stream"))
        return Page(tickets, cursor=next_cursor, more=more, gone=gone)

    def roll_call(self) -> None:
        """Zendesk's export lists deleted tickets too: changed_since tells of every one."""
        return None

    def current(self, remote_id: str) -> RemoteTicket:
        """One request reads the whole ticket here: the same as ticket()."""
        return self.ticket(remote_id)

    def ticket(self, remote_id: str) -> RemoteTicket:
        data = self._get(_ticket_path(remote_id), {"include": "users"})
        self._remember(data.get("users"))
        return self._ticket(_object(data, "ticket"))

    def people(self) -> list[RemotePerson]:
        """The agents and admins, the people a ticket can be assigned to."""
        return [
            RemotePerson(str(row["id"]), str(row.get("name") or ""), str(row.get("email") or ""))
            for row in self._list("/api/v2/users.json", "users", {"role[]": ["agent", "admin"]})
            if row.get("id") is not None
        ]

    def groups(self) -> list[RemotePerson]:
        return [
            RemotePerson(str(row["id"]), str(row.get("name") or ""))
            for row in self._list("/api/v2/groups.json", "groups")
            if row.get("id") is not None and not row.get("deleted")
        ]

    def templates(self) -> list[RemoteTemplate]:
        """The active macros: the reply each would write, and its actions as Zendesk names
        them (field and value as text; the caller decides what each means)."""
        return [
            _template(row)
            for row in self._list("/api/v2/macros.json", "macros", {"active": "true"})
            if row.get("id") is not None and row.get("active", True)
        ]

    def apply(self, change: FieldChange) -> RemoteTicket:
        name, value = _sent(change.field, change.value)
        body = {"ticket": {name: value, "safe_update": True, "updated_stamp": change.version}}
        response = self._http.call(
            "PUT", _ticket_path(change.remote_id), json=body, ok=(200, 409, 422)
        )
        if response.status_code == 409:
            raise ConflictError(self.ticket(change.remote_id))
        if response.status_code == 422:
            said = _refusal(response)
            raise RefusedError(f"Zendesk refused the change{': ' + said if said else ''}.")
        raw = _object(_body(response), "ticket")
        self._learn(raw.get("requester_id"))
        return self._ticket(raw)

    # Reading Zendesk's answers.

    def _get(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return _body(self._http.call("GET", path, params=params))

    def _list(
        self, path: str, key: str, params: dict[str, Any] | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every row of a list, page by page with Zendesk's cursor pagination. The next page
        is asked for with the cursor from `meta`, on the same path, rather than by following
        the `links.next` address: that address comes from the answer, and the credentials
        must go to the helpdesk the person set up and nowhere else."""
        query: dict[str, Any] = {**(params or {}), "page[size]": _LIST_PAGE_SIZE}
        while True:
            data = self._get(path, query)
            yield from _rows(data, key)
            meta = data.get("meta")
            after = meta.get("after_cursor") if isinstance(meta, dict) else None
            if not (isinstance(meta, dict) and meta.get("has_more") and after):
                return
            query["page[after]"] = after

    def _remember(self, users: Any) -> None:
        for user in users if isinstance(users, list) else ():
            if isinstance(user, dict) and user.get("id") is not None:
                named = str(user.get("name") or "").strip() or str(user.get("email") or "")
                if named.strip():
                    self._names[str(user["id"])] = named.strip()

    def _learn(self, user_id: Any) -> None:
        """Look up a requester no side-load has named yet (an update's answer names nobody)."""
        if user_id is None or str(user_id) in self._names or not str(user_id).isdigit():
            return
        try:
            user = _object(self._get(f"/api/v2/users/{user_id}.json"), "user")
        except (GoneError, NotAllowedError):
            return  # a deleted or hidden user: the ticket still reads, with a plainer name
        self._remember([user])

    def _ticket(self, raw: dict[str, Any]) -> RemoteTicket:
        updated = str(raw.get("updated_at") or "")
        requester_id = raw.get("requester_id")
        if requester_id is None:
            requester = ""
        else:
            requester = self._names.get(str(requester_id), f"Requester {requester_id}")
        assignee = raw.get("assignee_id")
        return RemoteTicket(
            remote_id=str(raw.get("id")),
            version=updated,  # safe_update's updated_stamp is the ticket's updated_at
            updated=updated,
            subject=str(raw.get("subject") or raw.get("raw_subject") or ""),
            body=str(raw.get("description") or ""),
            requester=requester,
            created=str(raw.get("created_at") or ""),
            status=read_status(raw.get("status")),
            priority=read_priority(raw.get("priority")),
            assignee=None if assignee is None else str(assignee),
            tags=tuple(str(tag) for tag in raw.get("tags") or ()),
        )


def reads_back(field: str, value: Any) -> Any:
    """How a console value reads once Zendesk holds it ("closed" is sent as "solved")."""
    if field == "status":
        return read_status(_STATUS_OUT.get(str(value), str(value)))
    if field == "priority":
        return read_priority(value)
    if field == "tags":
        return sorted(value or ())
    return value


def read_status(value: Any) -> str:
    # A status Zendesk adds later is treated as work still to do rather than hidden.
    return _STATUS_IN.get(str(value or "").lower(), "open")


def read_priority(value: Any) -> str:
    text = str(value or "").lower()
    return text if text in _PRIORITIES else "normal"


def _sent(field: str, value: Any) -> tuple[str, Any]:
    """A console field and value as the Zendesk ticket field and value that set it."""
    if field == "status":
        if value not in _STATUS_OUT:
            raise RefusedError(f"Zendesk has no status called “{value}”.")
        return "status", _STATUS_OUT[value]
    if field == "priority":
        if value not in _PRIORITIES:
            raise RefusedError(f"Zendesk has no priority called “{value}”.")
        return "priority", value
    if field == "assignee":
        if value is None or value == "":
            return "assignee_id", None
        if not str(value).isdigit():
            raise RefusedError("That person is not one of the people in Zendesk.")
        return "assignee_id", int(value)
    if field == "tags":
        if isinstance(value, str) or not all(isinstance(tag, str) for tag in value or ()):
            raise RefusedError("Tags must be a list of words.")
        return "tags", list(value or ())
    raise RefusedError(
        f"The console cannot set “{field}” in Zendesk; it sets {', '.join(SENT_FIELDS)}."
    )


def _template(row: dict[str, Any]) -> RemoteTemplate:
    actions: list[tuple[str, str]] = []
    text = html = ""
    for action in row.get("actions") or ():
        if not isinstance(action, dict) or not action.get("field"):
            continue
        name, value = str(action["field"]), action.get("value")
        actions.append((name, _as_text(value)))
        # A comment's value is its text, or (in older macros) a list ending with the text.
        said = value[-1] if isinstance(value, list) and value else value
        if name == "comment_value" and not text:
            text = str(said or "")
        elif name == "comment_value_html" and not html:
            html = str(said or "")
    body = text or (html_to_text(html) if html else "")
    return RemoteTemplate(str(row["id"]), str(row.get("title") or ""), body, tuple(actions))


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(_as_text(item) for item in value)
    return "" if value is None else str(value)


def _ticket_path(remote_id: str) -> str:
    # Zendesk ticket ids are numbers; anything else cannot name one of its tickets.
    if not str(remote_id).isdigit():
        raise GoneError("Zendesk does not have that ticket.")
    return f"/api/v2/tickets/{remote_id}.json"


def _body(response: httpx2.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        data = None
    if not isinstance(data, dict):
        log.info("Zendesk answered %s with a body that is not a JSON object", response.url.path)
        raise UnreachableError("Zendesk sent an answer the console could not read.")
    return data


def _object(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise UnreachableError("Zendesk sent an answer the console could not read.")
    return value


def _rows(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    rows = data.get(key)
    return [row for row in rows if isinstance(row, dict)] if isinstance(rows, list) else []


def _refusal(response: httpx2.Response) -> str:
    """What a 422 says, in Zendesk's words: the first field's own description ("Status:
    closed prevents ticket update") says more than the general one ("Record validation
    errors"), which is used only when there is none."""
    try:
        data = response.json()
    except ValueError:
        return ""
    if not isinstance(data, dict):
        return ""
    text = ""
    details = data.get("details")
    if isinstance(details, dict):
        for problems in details.values():
            first = problems[0] if isinstance(problems, list) and problems else None
            if isinstance(first, dict) and isinstance(first.get("description"), str):
                text = first["description"]
                break
    if not text and isinstance(data.get("description"), str):
        text = data["description"]
    return " ".join(text.split())[:200].rstrip(".")
