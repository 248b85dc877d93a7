"""Two places where the endpoint follows MCP's text more closely than the SDK's HTTP transport.

- A request the client cancelled (notifications/cancelled) gets no response: the spec says
  the receiver SHOULD NOT send one. The SDK answers it with a -32800 error so that a resumed
  stream ends; with one JSON answer per POST there is no resuming, so the POST ends instead as
  an event stream with no events, which tells the client nothing it did not already decide.
- JSON-RPC batches on sessions that negotiated 2025-03-26, whose transport requires them (the
  later versions removed them, and the SDK refuses them for every version). Each message of
  the batch goes through the transport on its own, in order; the answers come back as one
  JSON array, or 202 when the batch held no requests.
- A message that is no JSON-RPC request, notification or response (a batch member included)
  is an Invalid Request, -32600, as JSON-RPC 2.0 says; the SDK calls it -32602 (Invalid
  params), and its text retells pydantic's account of what was sent, which an error here
  never repeats. So is a request whose id is neither a string nor an integer (null, a
  fraction, an object, true): the SDK takes those for notifications and answers nothing.
- A GET that asks to resume a stream (Last-Event-ID) opens a new one: this endpoint sends no
  event ids, so there is nothing to replay from, and the SDK without an event store answers
  it with no response at all (a 500). The new stream starts with a tools/list_changed, so a
  client that missed a change while it was away lists the tools again and loses nothing.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Protocol, TypeGuard

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

REQUEST_CANCELLED = -32800
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INVALID_REQUEST_ANSWER = {
    "jsonrpc": "2.0",
    "id": None,
    "error": {
        "code": INVALID_REQUEST,
        "message": "Invalid Request: not a JSON-RPC 2.0 request, notification or response.",
    },
}
INVALID_ID_ANSWER = {
    "jsonrpc": "2.0",
    "id": None,
    "error": {
        "code": INVALID_REQUEST,
        "message": "Invalid Request: a request's id must be a string or an integer.",
    },
}
BATCH_VERSION = "2025-03-26"


class Lane(Protocol):
    """Answers some POSTs itself (agent/direct_calls.py)."""

    async def take(self, scope: Scope, message: dict[str, Any], send: Send) -> bool: ...
    def cancel(self, session: str, message: dict[str, Any]) -> None: ...


MAX_BODY = 4 * 1024 * 1024


async def read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = bytes(message.get("body", b""))
        size += len(chunk)
        if size > MAX_BODY:
            raise ValueError("request body too large")
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def replay(body: bytes, then: Receive | None = None) -> Receive:
    """The body already read, then what the connection says next (a disconnect, when the
    client goes away: a long answer such as a subscription must still see it)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return receive


class Captured:
    """One response of the inner app, held back whole (small JSON answers only)."""

    def __init__(self) -> None:
        self.status = 0
        self.headers: list[tuple[bytes, bytes]] = []
        self.body = b""

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
            self.headers = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            self.body += bytes(message.get("body", b""))

    def header(self, name: bytes) -> bytes:
        return next((v for k, v in self.headers if k.lower() == name), b"")

    def replace_body(self, body: bytes) -> None:
        self.body = body
        kept = [(k, v) for k, v in self.headers if k.lower() != b"content-length"]
        self.headers = [*kept, (b"content-length", str(len(body)).encode())]

    async def forward(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        await send({"type": "http.response.body", "body": self.body})


def name_invalid_requests(answer: Captured) -> None:
    """The SDK's answer to a message it could not read as JSON-RPC (400, no id, -32602: it
    uses that code with no id nowhere else; a tool's -32602 names its request and comes with
    200) becomes JSON-RPC's own for it."""
    if answer.status != 400:
        return
    try:
        said = json.loads(answer.body)
    except ValueError:
        return
    if not isinstance(said, dict) or said.get("id") is not None:
        return
    error = said.get("error")
    if isinstance(error, dict) and error.get("code") == INVALID_PARAMS:
        answer.replace_body(json.dumps(INVALID_REQUEST_ANSWER, separators=(",", ":")).encode())


def is_cancelled_answer(body: bytes) -> bool:
    if b"-32800" not in body:  # most answers: not parsed a second time to find out
        return False
    try:
        answer = json.loads(body)
    except ValueError:
        return False
    error = answer.get("error") if isinstance(answer, dict) else None
    return isinstance(error, dict) and error.get("code") == REQUEST_CANCELLED


async def end_without_answer(send: Send, headers: list[tuple[bytes, bytes]]) -> None:
    kept = [(k, v) for k, v in headers if k.lower() not in (b"content-type", b"content-length")]
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [*kept, (b"content-type", b"text/event-stream")],
        }
    )
    await send({"type": "http.response.body", "body": b""})


def json_response(status: int, payload: Any) -> Captured:
    out = Captured()
    out.status = status
    if payload is None:
        out.replace_body(b"")
        return out
    out.headers = [(b"content-type", b"application/json")]
    out.replace_body(json.dumps(payload, separators=(",", ":")).encode())
    return out


NOT_JSON = object()  # what `parsed` gives for a body that is not JSON


def parsed(body: bytes) -> Any:
    """The POST body as JSON (read once here, for every check and the lane), or NOT_JSON."""
    try:
        return json.loads(body)
    except ValueError:
        return NOT_JSON


def valid_id(value: Any) -> TypeGuard[str | int]:
    """MCP's request ids: a string or an integer (JSON-RPC's null and fractions are not)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def has_invalid_id(message: Any) -> bool:
    """A single JSON-RPC request whose id MCP does not allow."""
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return False
    return not valid_id(message["id"])


LIST_CHANGED_EVENT = (
    b'event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\r\n\r\n'
)


async def resume_as_new(inner: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """A GET with Last-Event-ID, served as a new stream whose first event says the tool list
    may have changed (see the module's text)."""
    headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"last-event-id"]

    async def first_say_changed(message: Message) -> None:
        await send(message)
        if message["type"] == "http.response.start" and int(message["status"]) == 200:
            await send(
                {"type": "http.response.body", "body": LIST_CHANGED_EVENT, "more_body": True}
            )

    await inner({**scope, "headers": headers}, receive, first_say_changed)


class HttpEdges:
    """ASGI middleware around the SDK's streamable HTTP app (see the module's text)."""

    def __init__(self, inner: ASGIApp) -> None:
        self._inner = inner
        # Session id -> the version it negotiated, read off each initialize answer.
        self._versions: dict[str, str] = {}
        # Takes the calls it can answer past the SDK's message loop (direct_calls.py).
        self.lane: Lane | None = None

    def version_of(self, session: str) -> str | None:
        """The protocol version `session` negotiated, if its initialize came through here."""
        return self._versions.get(session)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            if scope["type"] == "http" and scope["method"] == "GET" and _asks_to_resume(scope):
                await resume_as_new(self._inner, scope, receive, send)
                return
            await self._inner(scope, receive, send)
            return
        try:
            body = await read_body(receive)
        except ValueError:
            await json_response(413, None).forward(send)
            return
        message = parsed(body)
        if has_invalid_id(message):
            await json_response(400, INVALID_ID_ANSWER).forward(send)
            return
        headers = dict(scope["headers"])
        session = headers.get(b"mcp-session-id", b"").decode()
        if body.lstrip()[:1] == b"[" and session and self._batches_allowed(session, headers):
            await self._batch(scope, message, send)
            return
        if self.lane is not None and isinstance(message, dict):
            if session:
                self.lane.cancel(session, message)
            if await self.lane.take(scope, message, send):
                return
        await self._forward(scope, body, receive, send)

    def _batches_allowed(self, session: str, headers: dict[bytes, bytes]) -> bool:
        """A session that negotiated 2025-03-26 (and does not claim another version)."""
        said = headers.get(b"mcp-protocol-version", b"").decode()
        known = self._versions.get(session)
        if said:
            return said == BATCH_VERSION and known == BATCH_VERSION
        return known == BATCH_VERSION

    async def _forward(self, scope: Scope, body: bytes, receive: Receive, send: Send) -> None:
        """The inner app's answer, passed on as it comes, except that a single JSON answer is
        held until whole, to drop it if it only says the client cancelled, or to name an
        Invalid Request as such (event streams, such as a 2026 subscription, pass straight
        through)."""
        held = Captured()
        holding = False
        initializing = b'"initialize"' in body

        async def watch(message: Message) -> None:
            nonlocal holding
            if message["type"] == "http.response.start":
                types = [v for k, v in message.get("headers", []) if k.lower() == b"content-type"]
                if (
                    int(message["status"]) in (200, 400)
                    and types
                    and types[0].startswith(b"application/json")
                ):
                    holding = True
                    await held.send(message)
                    return
            elif holding and message["type"] == "http.response.body":
                await held.send(message)
                if message.get("more_body", False):
                    return
                if initializing:
                    self._note_version(held)
                name_invalid_requests(held)
                if held.status == 200 and is_cancelled_answer(held.body):
                    await end_without_answer(send, held.headers)
                else:
                    await held.forward(send)
                return
            await send(message)

        await self._inner(scope, replay(body, receive), watch)

    def _note_version(self, answer: Captured) -> None:
        session = answer.header(b"mcp-session-id").decode()
        try:
            result = json.loads(answer.body).get("result") or {}
        except (ValueError, AttributeError):
            return
        if session and isinstance(result, dict) and isinstance(result.get("protocolVersion"), str):
            self._versions[session] = result["protocolVersion"]

    async def _one(self, scope: Scope, body: bytes) -> Captured:
        captured = Captured()
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await self._inner({**scope, "headers": headers}, replay(body), captured.send)
        name_invalid_requests(captured)
        return captured

    async def _batch(self, scope: Scope, messages: Any, send: Send) -> None:
        if messages is NOT_JSON:
            error = {"code": -32700, "message": "Parse error"}
            await json_response(400, {"jsonrpc": "2.0", "id": None, "error": error}).forward(send)
            return
        if not isinstance(messages, list) or not messages:
            error = {"code": -32600, "message": "Invalid Request: an empty batch"}
            await json_response(400, {"jsonrpc": "2.0", "id": None, "error": error}).forward(send)
            return
        answers: list[Any] = []
        for message in messages:
            if has_invalid_id(message):
                answers.append(INVALID_ID_ANSWER)
                continue
            one = await self._one(scope, json.dumps(message).encode())
            if one.status == 200 and one.body and not is_cancelled_answer(one.body):
                try:
                    answers.append(json.loads(one.body))
                except ValueError:
                    continue  # an event stream (never with JSON answers): nothing to add
            elif one.status >= 400 and one.body:
                try:
                    answers.append(json.loads(one.body))
                except ValueError:
                    continue
        if answers:
            await json_response(200, answers).forward(send)
        else:
            await json_response(202, None).forward(send)


def _asks_to_resume(scope: Scope) -> bool:
    return any(k.lower() == b"last-event-id" for k, _ in scope["headers"])
