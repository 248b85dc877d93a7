"""Zendesk and Freshdesk as small HTTP servers on loopback, for the adapters' tests.

Neither service can be reached from a test machine, so these follow their documented
request and answer shapes (Zendesk Support API v2, Freshdesk API v2) for the calls the
adapters make, and keep everything in memory. Each is a real ``ThreadingHTTPServer`` on
127.0.0.1 and a free port, in a thread of its own, so the adapters' whole HTTP path runs.

Both offer:

* seeding from a test (``add_ticket``, ``add_agent``, ...) and ``change_ticket``, a change
  made "in the helpdesk" that moves the ticket's ``updated_at`` on, as a person would;
* a clock of their own that moves one second a change, so times are predictable;
* ``busy(count, status, retry_after)``: the next requests are answered 429 or 503 with that
  Retry-After, as both services do when a client goes over its rate limit;
* a check of the Authorization header on every request (401 when it is wrong);
* ``log``/``requests``: every request seen, so a test can count calls.

Usage::

    with FakeZendesk(page_size=2) as zendesk:
        alice = zendesk.add_user("Alice", "alice@example.com")
        number = zendesk.add_ticket("Printer on fire", requester_id=alice)
        adapter = Zendesk(zendesk.url, zendesk.email, zendesk.token)
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

# 2024-03-01T09:00:00Z: where both fakes' clocks start.
CLOCK_START = 1_709_283_600


def iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def seconds_of(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp())


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@dataclass(frozen=True)
class Seen:
    """One request as the fake received it."""

    method: str
    path: str
    query: dict[str, list[str]]
    body: Any


@dataclass
class Answer:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


Route = Callable[[re.Match[str], dict[str, list[str]], Any], Answer]


def first(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[0] if values else None


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        answer = self.server.fake.answer(self.command, self.path, self.headers, raw)
        data = b"" if answer.body is None else json.dumps(answer.body).encode()
        self.send_response(answer.status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    # http.server calls do_<METHOD>; every method goes the same way.
    do_GET = do_PUT = do_POST = do_DELETE = _serve  # noqa: N815

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the fakes' log is self.server.fake.log; stderr stays quiet


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeServer


MOST_REQUESTS = 2_000  # the most any test makes is under 300


class FakeServer:
    """What both fakes share: the server and its thread, the clock, the log, rate limits."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.log: list[Seen] = []
        self._busy: list[tuple[int, str]] = []
        self._clock = CLOCK_START
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def requests(self) -> list[tuple[str, str]]:
        with self._lock:
            return [(seen.method, seen.path) for seen in self.log]

    def count(self, method: str, path: str) -> int:
        return self.requests.count((method, path))

    def now(self) -> str:
        return iso(self._clock)

    def tick(self) -> str:
        """The time of a new change: one second after the last."""
        with self._lock:
            self._clock += 1
            return iso(self._clock)

    def busy(self, count: int = 1, status: int = 429, retry_after: str = "1") -> None:
        """Answer the next `count` requests with `status` and this Retry-After."""
        with self._lock:
            self._busy.extend([(status, retry_after)] * count)

    def start(self) -> None:
        # A short poll: shutdown() waits for the loop to look, 0.5 s a test by default.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeServer:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    def answer(self, method: str, target: str, headers: Any, raw: bytes) -> Answer:
        parts = urlsplit(target)
        query = parse_qs(parts.query, keep_blank_values=True)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            return self.bad_body()
        with self._lock:
            self.log.append(Seen(method, parts.path, query, body))
            if len(self.log) > MOST_REQUESTS:
                # A client that asks again and again (a page loop that never ends) fails
                # at once, not after the test's hang deadline, or never.
                return Answer(400, {"error": "more requests than any test makes"})
            if self._busy:
                status, wait = self._busy.pop(0)
                return Answer(status, self.busy_body(status), {"Retry-After": wait})
            if not self.signed_in(headers.get("Authorization") or ""):
                return self.unauthorized()
            for verb, pattern, route in self.routes():
                match = pattern.fullmatch(parts.path)
                if match and verb == method:
                    return route(match, query, body)
            return Answer(404, self.not_found_body())

    # What each fake says in its own words.

    def routes(self) -> list[tuple[str, re.Pattern[str], Route]]:
        raise NotImplementedError

    def signed_in(self, authorization: str) -> bool:
        raise NotImplementedError

    def unauthorized(self) -> Answer:
        raise NotImplementedError

    def bad_body(self) -> Answer:
        return Answer(400, {"error": "Unprocessable body"})

    def busy_body(self, status: int) -> Any:
        return None

    def not_found_body(self) -> Any:
        return None


# Zendesk ------------------------------------------------------------------------------------

ZENDESK_STATUSES = ("new", "open", "pending", "hold", "solved")
ZENDESK_PRIORITIES = ("low", "normal", "high", "urgent")


def _cursor(*parts: int) -> str:
    return base64.urlsafe_b64encode(":".join(map(str, parts)).encode()).decode().rstrip("=")


def _uncursor(text: str) -> list[int] | None:
    try:
        decoded = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
        return [int(part) for part in decoded.split(":")]
    except ValueError:
        return None


def _zendesk_invalid(name: str, description: str) -> Answer:
    return Answer(
        422,
        {
            "error": "RecordInvalid",
            "description": "Record validation errors",
            "details": {name: [{"description": description, "error": "InvalidValue"}]},
        },
    )


class FakeZendesk(FakeServer):
    """Zendesk Support: users (the signed-in one is ``me``), tickets, groups, macros.

    `page_size` caps every page: the incremental export's (Zendesk's own is 1000) and the
    lists' (100), so that a test pages with a handful of records."""

    def __init__(
        self,
        email: str = "avery@example.com",
        token: str = "zd-secret-token-123",
        role: str = "admin",
        page_size: int = 1000,
    ) -> None:
        super().__init__()
        self.email, self.token, self.page_size = email, token, page_size
        self.users: dict[int, dict[str, Any]] = {}
        self.tickets: dict[int, dict[str, Any]] = {}
        self.groups: dict[int, dict[str, Any]] = {}
        self.macros: dict[int, dict[str, Any]] = {}
        self._ids = {"user": 1000, "ticket": 0, "group": 500, "macro": 900, "audit": 0}
        self.me = self.add_user("Avery Admin", email, role)

    def _id(self, kind: str) -> int:
        self._ids[kind] += 1
        return self._ids[kind]

    # Seeding, as a test would.

    def add_user(self, name: str, email: str, role: str = "end-user", **extra: Any) -> int:
        with self._lock:
            number, now = self._id("user"), self.tick()
            self.users[number] = {
                "id": number, "name": name, "email": email, "role": role, "active": True,
                "ticket_restriction": None, "created_at": now, "updated_at": now, **extra,
            }  # fmt: skip
            return number

    def add_agent(self, name: str, email: str, role: str = "agent") -> int:
        return self.add_user(name, email, role)

    def add_ticket(self, subject: str, description: str = "", **fields: Any) -> int:
        with self._lock:
            number, now = self._id("ticket"), self.tick()
            self.tickets[number] = {
                "id": number, "url": f"{self.url}/api/v2/tickets/{number}.json",
                "subject": subject, "raw_subject": subject, "description": description,
                "status": "new", "priority": None, "type": None, "requester_id": None,
                "submitter_id": None, "assignee_id": None, "group_id": None, "tags": [],
                "created_at": now, "updated_at": now, **fields,
            }  # fmt: skip
            return number

    def change_ticket(self, number: int, **fields: Any) -> str:
        """A change made in Zendesk itself; the ticket's new updated_at."""
        with self._lock:
            self.tickets[number].update(fields, updated_at=self.tick())
            return str(self.tickets[number]["updated_at"])

    def delete_ticket(self, number: int) -> None:
        self.change_ticket(number, status="deleted")

    def add_group(self, name: str) -> int:
        with self._lock:
            number, now = self._id("group"), self.tick()
            self.groups[number] = {
                "id": number, "name": name, "deleted": False, "created_at": now, "updated_at": now,
            }  # fmt: skip
            return number

    def add_macro(self, title: str, actions: list[tuple[str, Any]], active: bool = True) -> int:
        with self._lock:
            number = self._id("macro")
            self.macros[number] = {
                "id": number, "title": title, "active": active, "description": None,
                "actions": [{"field": name, "value": value} for name, value in actions],
            }  # fmt: skip
            return number

    # The service.

    def signed_in(self, authorization: str) -> bool:
        return authorization == basic(f"{self.email}/token", self.token)

    def unauthorized(self) -> Answer:
        return Answer(401, {"error": "Couldn't authenticate you"})

    def busy_body(self, status: int) -> Any:
        return {"error": "TooManyRequests" if status == 429 else "ServiceUnavailable"}

    def not_found_body(self) -> Any:
        return {"error": "RecordNotFound", "description": "Not found"}

    def routes(self) -> list[tuple[str, re.Pattern[str], Route]]:
        return [
            ("GET", re.compile(r"/api/v2/users/me\.json"), self._me),
            ("GET", re.compile(r"/api/v2/users\.json"), self._users),
            ("GET", re.compile(r"/api/v2/users/(\d+)\.json"), self._user),
            ("GET", re.compile(r"/api/v2/groups\.json"), self._groups),
            ("GET", re.compile(r"/api/v2/macros\.json"), self._macros),
            ("GET", re.compile(r"/api/v2/incremental/tickets/cursor\.json"), self._export),
            ("GET", re.compile(r"/api/v2/tickets/(\d+)\.json"), self._show),
            ("PUT", re.compile(r"/api/v2/tickets/(\d+)\.json"), self._update),
        ]

    def _me(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        return Answer(200, {"user": self.users[self.me]})

    def _user(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        user = self.users.get(int(match[1]))
        return Answer(200, {"user": user}) if user else Answer(404, self.not_found_body())

    def _users(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        roles = query.get("role[]") or query.get("role") or []
        rows = [u for u in self.users.values() if not roles or u["role"] in roles]
        return self._listing("users", rows, query, match.string)

    def _groups(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        return self._listing("groups", list(self.groups.values()), query, match.string)

    def _macros(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        rows = list(self.macros.values())
        if first(query, "active") is not None:
            wanted = first(query, "active") == "true"
            rows = [row for row in rows if row["active"] == wanted]
        return self._listing("macros", rows, query, match.string)

    def _listing(
        self, key: str, rows: list[dict[str, Any]], query: dict[str, list[str]], path: str
    ) -> Answer:
        """A list page: cursor pagination when page[size] is given, offset pagination (with
        next_page) otherwise, as Zendesk's list endpoints do."""
        rows = sorted(rows, key=lambda row: int(row["id"]))
        size_text = first(query, "page[size]")
        if size_text is None:
            page, size = int(first(query, "page") or 1), min(100, self.page_size)
            chunk = rows[(page - 1) * size : page * size]
            following = f"{self.url}{path}?page={page + 1}" if page * size < len(rows) else None
            return Answer(200, {key: chunk, "next_page": following, "count": len(rows)})
        if not size_text.isdigit() or not 0 < int(size_text) <= 100:
            return Answer(
                400,
                {"error": "InvalidPaginationParameter", "description": "page[size] is too big"},
            )
        size = min(int(size_text), self.page_size)
        after = _uncursor(first(query, "page[after]") or "") if "page[after]" in query else [0]
        if after is None:
            return Answer(400, {"error": "InvalidPaginationParameter", "description": "cursor"})
        rest = [row for row in rows if int(row["id"]) > after[0]]
        chunk, more = rest[:size], len(rest) > size
        after_cursor = _cursor(int(chunk[-1]["id"])) if chunk else None
        following = None
        if more:
            following = f"{self.url}{path}?" + urlencode(
                {"page[size]": size, "page[after]": after_cursor}
            )
        meta = {"has_more": more, "after_cursor": after_cursor, "before_cursor": None}
        return Answer(200, {key: chunk, "meta": meta, "links": {"prev": None, "next": following}})

    def _side_loaded(self, tickets: list[dict[str, Any]], query: dict[str, list[str]]) -> Any:
        if "users" not in (first(query, "include") or "").split(","):
            return None
        wanted = {t.get(k) for t in tickets for k in ("requester_id", "assignee_id")}
        return [user for number, user in self.users.items() if number in wanted]

    def _export(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        """The cursor-based incremental export: tickets by when they changed, each at most
        once a page; a ticket that changes again comes again after the cursor."""
        if self.users[self.me]["role"] != "admin":
            return Answer(
                403,
                {
                    "error": {
                        "title": "Forbidden",
                        "message": "You do not have access to this page.",
                    }
                },
            )
        if "cursor" in query:
            position = _uncursor(first(query, "cursor") or "")
            if position is None or len(position) != 2:
                return Answer(
                    400, {"error": "InvalidPaginationParameter", "description": "Invalid cursor"}
                )
        elif (first(query, "start_time") or "").isdigit():
            position = [int(first(query, "start_time") or 0) - 1, 1 << 62]
        else:
            return Answer(
                400,
                {
                    "error": "InvalidPaginationParameter",
                    "description": "start_time or cursor is required",
                },
            )
        order = sorted(self.tickets.values(), key=lambda t: (seconds_of(t["updated_at"]), t["id"]))
        rest = [t for t in order if [seconds_of(t["updated_at"]), t["id"]] > position]
        chunk = rest[: self.page_size]
        if chunk:
            position = [seconds_of(chunk[-1]["updated_at"]), chunk[-1]["id"]]
        after = _cursor(*position)
        data: dict[str, Any] = {
            "tickets": chunk,
            "after_url": f"{self.url}{match.string}?cursor={after}",
            "after_cursor": after,
            "before_url": None,
            "before_cursor": None,
            "end_of_stream": len(rest) <= self.page_size,
        }
        users = self._side_loaded(chunk, query)
        if users is not None:
            data["users"] = users
        return Answer(200, data)

    def _live(self, number: str) -> dict[str, Any] | None:
        ticket = self.tickets.get(int(number))
        return None if ticket is None or ticket["status"] == "deleted" else ticket

    def _show(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        ticket = self._live(match[1])
        if ticket is None:
            return Answer(404, self.not_found_body())
        data: dict[str, Any] = {"ticket": ticket}
        users = self._side_loaded([ticket], query)
        if users is not None:
            data["users"] = users
        return Answer(200, data)

    def _update(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        ticket = self._live(match[1])
        if ticket is None:
            return Answer(404, self.not_found_body())
        if not isinstance(body, dict) or not isinstance(body.get("ticket"), dict):
            return self.bad_body()
        sent = dict(body["ticket"])
        if (
            sent.pop("safe_update", False)
            and sent.pop("updated_stamp", None) != ticket["updated_at"]
        ):
            return Answer(409, {
                "error": "UpdateConflict",
                "description": "Safe Update prevented the update due to outdated ticket data. "
                "Please fetch the latest ticket data and try again.",
            })  # fmt: skip
        sent.pop("updated_stamp", None)
        refusal = self._refusal(ticket, sent)
        if refusal is not None:
            return refusal
        ticket.update(sent, updated_at=self.tick())
        audit = {"id": self._id("audit"), "ticket_id": ticket["id"], "events": []}
        return Answer(200, {"ticket": ticket, "audit": audit})

    def _refusal(self, ticket: dict[str, Any], sent: dict[str, Any]) -> Answer | None:
        if ticket["status"] == "closed":
            return _zendesk_invalid("status", "Status: closed prevents ticket update")
        if "status" in sent and sent["status"] not in ZENDESK_STATUSES:
            return _zendesk_invalid("status", f"Status: {sent['status']} is not valid")
        if "priority" in sent and sent["priority"] not in (*ZENDESK_PRIORITIES, None):
            return _zendesk_invalid("priority", f"Priority: {sent['priority']} is not valid")
        if sent.get("assignee_id") is not None:
            user = self.users.get(sent["assignee_id"])
            if user is None or user["role"] not in ("agent", "admin"):
                return _zendesk_invalid("assignee", "Assignee: is not an agent in this account")
        if "tags" in sent and not isinstance(sent["tags"], list):
            return _zendesk_invalid("tags", "Tags: must be a list")
        return None


# Freshdesk ----------------------------------------------------------------------------------

FRESHDESK_STATUSES = (2, 3, 4, 5)


def _freshdesk_invalid(name: str, message: str, code: str = "invalid_value") -> Answer:
    return Answer(
        400,
        {
            "description": "Validation failed",
            "errors": [{"field": name, "message": message, "code": code}],
        },
    )


class FakeFreshdesk(FakeServer):
    """Freshdesk: agents (the signed-in one is ``me``), contacts, tickets, groups, canned
    responses in folders, and custom statuses (6 and up) an admin added.

    `page_cap` is the last page a list serves (Freshdesk's is 300)."""

    def __init__(
        self,
        api_key: str = "fd-secret-key-456",
        page_cap: int = 300,
        custom_statuses: tuple[int, ...] = (6,),
        ticket_scope: int = 1,
    ) -> None:
        super().__init__()
        self.api_key, self.page_cap = api_key, page_cap
        self.statuses = (*FRESHDESK_STATUSES, *custom_statuses)
        self.agents: dict[int, dict[str, Any]] = {}
        self.contacts: dict[int, dict[str, Any]] = {}
        self.tickets: dict[int, dict[str, Any]] = {}
        self.groups: dict[int, dict[str, Any]] = {}
        self.folders: dict[int, dict[str, Any]] = {}
        self.responses: dict[int, list[dict[str, Any]]] = {}
        self._ids = {"agent": 7000, "contact": 8000, "ticket": 0, "group": 600, "folder": 40}
        self.me = self.add_agent("Robin Agent", "robin@example.com", ticket_scope=ticket_scope)

    def _id(self, kind: str) -> int:
        self._ids[kind] += 1
        return self._ids[kind]

    # Seeding, as a test would.

    def add_agent(self, name: str, email: str, ticket_scope: int = 1) -> int:
        with self._lock:
            number, now = self._id("agent"), self.tick()
            contact = {"name": name, "email": email, "active": True, "created_at": now}
            self.agents[number] = {
                "id": number, "contact": contact, "ticket_scope": ticket_scope,
                "available": True, "occasional": False, "type": "support_agent",
                "created_at": now, "updated_at": now,
            }  # fmt: skip
            return number

    def add_contact(self, name: str, email: str) -> int:
        with self._lock:
            number = self._id("contact")
            self.contacts[number] = {
                "id": number, "name": name, "email": email, "mobile": None, "phone": None,
            }  # fmt: skip
            return number

    def add_ticket(
        self, subject: str, requester_id: int, at: str | None = None, **fields: Any
    ) -> int:
        """A ticket; `at` sets its created_at and updated_at (several at one instant)."""
        with self._lock:
            number, now = self._id("ticket"), at or self.tick()
            html = fields.pop("description", f"<div>{subject}</div>")
            self.tickets[number] = {
                "id": number, "subject": subject, "description": html,
                "description_text": fields.pop("description_text", subject),
                "status": 2, "priority": 1, "source": 2, "type": None, "spam": False,
                "requester_id": requester_id, "responder_id": None, "group_id": None,
                "tags": [], "custom_fields": {}, "created_at": now, "updated_at": now,
                **fields,
            }  # fmt: skip
            return number

    def change_ticket(self, number: int, at: str | None = None, **fields: Any) -> str:
        """A change made in Freshdesk itself; the ticket's new updated_at."""
        with self._lock:
            self.tickets[number].update(fields, updated_at=at or self.tick())
            return str(self.tickets[number]["updated_at"])

    def delete_ticket(self, number: int) -> None:
        self.change_ticket(number, deleted=True)

    def add_group(self, name: str) -> int:
        with self._lock:
            number = self._id("group")
            self.groups[number] = {"id": number, "name": name, "agent_ids": []}
            return number

    def add_canned(self, folder: str, title: str, html: str) -> int:
        """A canned response in the folder of that name (made when new)."""
        with self._lock:
            found = [n for n, f in self.folders.items() if f["name"] == folder]
            number = found[0] if found else self._id("folder")
            if not found:
                self.folders[number] = {"id": number, "name": folder, "personal": False}
                self.responses[number] = []
            response_id = number * 1000 + len(self.responses[number]) + 1
            self.responses[number].append({
                "id": response_id, "title": title, "folder_id": number, "content_html": html,
                "content": re.sub(r"<[^>]+>", "", html), "attachments": [],
            })  # fmt: skip
            self.folders[number]["responses_count"] = len(self.responses[number])
            return response_id

    # The service.

    def signed_in(self, authorization: str) -> bool:
        # Freshdesk takes the API key as the user name and ignores the password.
        if not authorization.startswith("Basic "):
            return False
        try:
            pair = base64.b64decode(authorization.removeprefix("Basic ")).decode()
        except ValueError:
            return False
        return pair.partition(":")[0] == self.api_key

    def unauthorized(self) -> Answer:
        return Answer(
            401,
            {
                "code": "invalid_credentials",
                "message": "You have to be logged in to perform this action.",
            },
        )

    def routes(self) -> list[tuple[str, re.Pattern[str], Route]]:
        return [
            ("GET", re.compile(r"/api/v2/agents/me"), self._me),
            ("GET", re.compile(r"/api/v2/agents"), self._agents),
            ("GET", re.compile(r"/api/v2/groups"), self._groups),
            ("GET", re.compile(r"/api/v2/canned_response_folders"), self._folders),
            ("GET", re.compile(r"/api/v2/canned_response_folders/(\d+)/responses"), self._canned),
            ("GET", re.compile(r"/api/v2/tickets"), self._list_tickets),
            ("GET", re.compile(r"/api/v2/tickets/(\d+)"), self._show),
            ("PUT", re.compile(r"/api/v2/tickets/(\d+)"), self._update),
        ]

    def _me(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        return Answer(200, self.agents[self.me])

    def _paged(self, rows: list[Any], query: dict[str, list[str]], path: str) -> Answer:
        """One page of a list, with the Link header Freshdesk sends when another follows."""
        per_text, page_text = first(query, "per_page") or "30", first(query, "page") or "1"
        if not per_text.isdigit() or not 0 < int(per_text) <= 100:
            return _freshdesk_invalid(
                "per_page", "It should be a/an Positive Integer less than or equal to 100"
            )
        if not page_text.isdigit() or not 0 < int(page_text) <= self.page_cap:
            return _freshdesk_invalid(
                "page", f"It should be a/an Positive Integer less than or equal to {self.page_cap}"
            )
        per, page = int(per_text), int(page_text)
        headers = {}
        if page * per < len(rows) and page < self.page_cap:
            following = {k: v[0] for k, v in query.items()} | {"page": str(page + 1)}
            headers["Link"] = f'<{self.url}{path}?{urlencode(following)}>; rel="next"'
        return Answer(200, rows[(page - 1) * per : page * per], headers)

    def _agents(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        return self._paged(sorted(self.agents.values(), key=lambda a: a["id"]), query, match[0])

    def _groups(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        return self._paged(sorted(self.groups.values(), key=lambda g: g["id"]), query, match[0])

    def _folders(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        return Answer(200, list(self.folders.values()))

    def _canned(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        found = self.responses.get(int(match[1]))
        return Answer(200, found) if found is not None else Answer(404)

    def _shown(self, ticket: dict[str, Any], include: set[str], listed: bool) -> dict[str, Any]:
        shown = {k: v for k, v in ticket.items() if k != "deleted"}
        if listed and "description" not in include:
            # The list leaves the description out unless asked for it.
            shown.pop("description", None)
            shown.pop("description_text", None)
        if "requester" in include:
            shown["requester"] = self.contacts.get(ticket["requester_id"])
        return shown

    def _list_tickets(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        include = set(filter(None, (first(query, "include") or "").split(",")))
        if include - {"requester", "description", "stats"}:
            return _freshdesk_invalid(
                "include", "It should be one of these values: 'requester,description,stats'"
            )
        wanted = first(query, "filter")
        if wanted not in (None, "deleted"):
            return _freshdesk_invalid("filter", "It should be one of these values: 'deleted'")
        rows = [t for t in self.tickets.values() if bool(t.get("deleted")) == (wanted is not None)]
        since = first(query, "updated_since")
        if since is not None:
            try:
                start = seconds_of(since)
            except ValueError:
                return _freshdesk_invalid(
                    "updated_since", "It should be in the 'valid date time' format"
                )
            rows = [t for t in rows if seconds_of(t["updated_at"]) >= start]
        order_by = first(query, "order_by") or "created_at"
        if order_by not in ("created_at", "updated_at", "due_by", "status"):
            return _freshdesk_invalid(
                "order_by",
                "It should be one of these values: 'created_at,due_by,updated_at,status'",
            )
        descending = (first(query, "order_type") or "desc") == "desc"
        rows.sort(key=lambda t: t["id"])  # ties keep the order they were made in
        rows.sort(key=lambda t: t.get(order_by) or "", reverse=descending)
        shown = [self._shown(t, include, listed=True) for t in rows]
        return self._paged(shown, query, match[0])

    def _show(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        ticket = self.tickets.get(int(match[1]))
        if ticket is None or ticket.get("deleted"):
            return Answer(404)
        include = set((first(query, "include") or "").split(","))
        return Answer(200, self._shown(ticket, include, listed=False))

    def _update(self, match: re.Match[str], query: dict[str, list[str]], body: Any) -> Answer:
        ticket = self.tickets.get(int(match[1]))
        if ticket is None or ticket.get("deleted"):
            return Answer(404)
        if not isinstance(body, dict):
            return self.bad_body()
        refusal = self._refusal(body)
        if refusal is not None:
            return refusal
        ticket.update(body, updated_at=self.tick())
        return Answer(200, self._shown(ticket, set(), listed=False))

    def _refusal(self, body: dict[str, Any]) -> Answer | None:
        known = {"status", "priority", "responder_id", "tags", "group_id", "subject", "type"}
        for name in body:
            if name not in known:
                return _freshdesk_invalid(
                    name, "Unexpected/invalid field in request", "invalid_field"
                )
        if "status" in body and body["status"] not in self.statuses:
            allowed = ",".join(map(str, self.statuses))
            return _freshdesk_invalid("status", f"It should be one of these values: '{allowed}'")
        if "priority" in body and body["priority"] not in (1, 2, 3, 4):
            return _freshdesk_invalid("priority", "It should be one of these values: '1,2,3,4'")
        if body.get("responder_id") is not None and body["responder_id"] not in self.agents:
            return _freshdesk_invalid(
                "responder_id", "There is no agent matching the given responder_id"
            )
        tags = body.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
            return _freshdesk_invalid("tags", "It should be a/an Array", "datatype_mismatch")
        return None
