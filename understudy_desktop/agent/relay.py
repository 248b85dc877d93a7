"""understudy-mcp's relay: JSON-RPC messages from the client's stdio to the app's HTTP
endpoint and back, passed through as they are.

The app already speaks MCP, so the proxy does not parse requests into a second MCP server and
make them again as a second MCP client: that cost about 4 ms a call (bench/transport.py). It
reads only what a relay must know: a message's method and id, the session the app gave, and
the protocol version that was agreed. The client's own initialize reaches the app, so the
approval dialog names the real client.

A restarted app has a new port and token (agent.json). When a request cannot reach the app,
or the app no longer knows the session (404) or the token (401), the relay reads agent.json
again, replays the client's initialize, and sends the request once more: it never ran. A
request whose connection broke after it was sent gets a clean error instead, since a tool
call may already have run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx2
from mcp_types import PROTOCOL_VERSION_META_KEY

from understudy_desktop.agent.http_edges import MAX_BODY as HTTP_MAX_BODY
from understudy_desktop.agent.http_edges import valid_id
from understudy_desktop.agent.results import UNAVAILABLE, error_result
from understudy_desktop.agent.runtime_file import AgentRuntime

log = logging.getLogger("understudy-mcp")

FindApp = Callable[[], AgentRuntime]  # raises AppUnavailableError (blocking: run in a thread)
Write = Callable[[dict[str, Any]], Awaitable[None]]

CONNECTION_CLOSED = -32000
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
# What the app's endpoint takes in one request (agent/http_edges.py refuses more with a 413).
MAX_BODY = HTTP_MAX_BODY
# Requests that name their target in an Mcp-Name header (protocol 2026-07-28 and later).
NAME_BEARING = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

IN_FLIGHT = (
    "Understudy restarted or stopped while this call was in flight, so it may or may not have "
    "run. Check before calling again."
)


# What the client's Timeout(30, read=None) says, for requests sent through the transport: an
# answer may take as long as the person takes to approve, so reading has no limit.
POST_TIMEOUT = {"connect": 30.0, "read": None, "write": 30.0, "pool": 30.0}


class NotSentError(Exception):
    """The request never reached the app: sending it again is safe."""


class Relay:
    def __init__(self, find_app: FindApp, write: Write) -> None:
        self._find_app = find_app
        self._write = write
        self._http = httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=None))
        # Each message is POSTed through the transport itself: the client's layers (URL
        # merging, auth, redirects, cookies, its log line) cost the relay about a fifth of
        # its time per call and do nothing for one loopback URL (bench/native_anchor.py).
        self._transport = httpx2.AsyncHTTPTransport()
        self._url: tuple[str, httpx2.URL] | None = None
        self._runtime: AgentRuntime | None = None
        self._session: str | None = None
        self._version: str | None = None
        self._initialize: dict[str, Any] | None = None  # the client's, replayed on reconnect
        self._initialized = False
        self._generation = 0  # bumped by every reconnect
        self._reconnecting = asyncio.Lock()
        self._stream: asyncio.Task[None] | None = None
        # Held while initialize or initialized is on its way: what follows waits for it.
        self._handshake = asyncio.Lock()

    async def close(self) -> None:
        if self._stream is not None:
            self._stream.cancel()
        if self._runtime is not None and self._session is not None:
            with contextlib.suppress(httpx2.HTTPError):  # ending the session is a courtesy
                await self._http.delete(self._runtime.url, headers=self._headers(None))
        await self._http.aclose()
        await self._transport.aclose()

    # --- one message from the client ----------------------------------------------------
    async def handle(self, line: bytes) -> None:
        """One message, in a task of its own. Messages are started in the order they came;
        the handshake's two are forwarded one at a time, and the rest wait for them."""
        if len(line) > MAX_BODY:
            # The app would refuse it (413) with nothing a client can read: said here, in
            # JSON-RPC, to the request it belongs to.
            await self._write(too_large(id_in(line), MAX_BODY))
            return
        try:
            message = json.loads(line)
        except ValueError:
            await self._write(_rpc_error(None, PARSE_ERROR, "Parse error: not JSON."))
            return
        method = _method(message)
        if method in ("initialize", "notifications/initialized"):
            async with self._handshake:
                await self._shake(message, line)
            return
        if self._handshake.locked():
            async with self._handshake:
                pass
        await self._forward(message, line)

    async def _shake(self, message: dict[str, Any], line: bytes) -> None:
        if message["method"] == "initialize":
            self._initialize = message
            await self._forward(message, line)
            return
        self._initialized = True
        await self._forward(message, line)
        self.open_stream()

    async def _forward(self, message: Any, body: bytes) -> None:
        for attempt in (1, 2):
            generation = self._generation
            try:
                await self._send(message, body)
                return
            except NotSentError as exc:
                log.info("not delivered (%s); reconnecting", exc)
                if attempt == 2:
                    await self._answer_unavailable(message, str(exc))
                    return
                try:
                    await self._reconnect(generation)
                except Exception as reconnect_failed:  # the app is gone for now
                    log.warning("reconnect failed: %s", reconnect_failed)
                    await self._answer_unavailable(message, str(reconnect_failed))
                    return
            except httpx2.HTTPError as exc:  # sent, then the connection broke
                log.warning("connection lost during %s: %s", _method(message), exc)
                await self._answer_unavailable(message, IN_FLIGHT)
                return

    async def _send(self, message: Any, body: bytes) -> None:
        runtime = self._runtime
        if runtime is None:
            raise NotSentError("not connected yet")
        request = httpx2.Request(
            "POST",
            self._url_of(runtime),
            content=body,
            headers=self._headers(message),
            extensions={"timeout": POST_TIMEOUT},
        )
        try:
            response = await self._transport.handle_async_request(request)
        except (httpx2.ConnectError, httpx2.ConnectTimeout) as exc:
            raise NotSentError(f"the app is not reachable: {exc}") from exc
        try:
            # 401: a new token (a restarted app); 404: a session the app no longer knows.
            if response.status_code in (401, 404) and _method(message) != "initialize":
                raise NotSentError(f"the app refused the session ({response.status_code})")
            await self._relay(response, message)
        finally:
            await response.aclose()

    def _url_of(self, runtime: AgentRuntime) -> httpx2.URL:
        """The app's URL, parsed once for each app the relay talks to."""
        if self._url is None or self._url[0] != runtime.url:
            self._url = (runtime.url, httpx2.URL(runtime.url))
        return self._url[1]

    def _headers(self, message: Any) -> dict[str, str]:
        assert self._runtime is not None
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "Authorization": f"Bearer {self._runtime.token}",
        }
        if self._session:
            headers["Mcp-Session-Id"] = self._session
        method = _method(message)
        meta = _params(message).get("_meta")
        stamped = meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None
        if isinstance(stamped, str):
            # Newer protocol revisions carry the version in each request and routing headers.
            headers["Mcp-Protocol-Version"] = stamped
            headers["Mcp-Method"] = method
            name = _params(message).get(NAME_BEARING.get(method, ""))
            if isinstance(name, str):
                headers["Mcp-Name"] = name
        elif self._version and method != "initialize":
            headers["Mcp-Protocol-Version"] = self._version
        return headers

    # --- answers -------------------------------------------------------------------------
    async def _relay(self, response: httpx2.Response, message: Any) -> None:
        kind = response.headers.get("content-type", "")
        if kind.startswith("text/event-stream"):
            async for event in _events(response):
                await self._write(event)
            return
        raw = await response.aread()
        if not raw.strip():
            return  # 202 Accepted for a notification, or nothing to say
        try:
            answer = json.loads(raw)
        except ValueError:
            answer = None
        if not isinstance(answer, dict | list):
            # Not an answer a client can match to its request (an HTTP error page, or
            # "null"): every request still gets one.
            if _has_id(message):
                text = f"Understudy answered HTTP {response.status_code}."
                await self._write(_rpc_error(message.get("id"), CONNECTION_CLOSED, text))
            return
        if _method(message) == "initialize" and isinstance(answer, dict):
            self._note_session(response, answer)
        await self._write(answer)

    def _note_session(self, response: httpx2.Response, answer: dict[str, Any]) -> None:
        self._session = response.headers.get("mcp-session-id") or self._session
        result = answer.get("result")
        if isinstance(result, dict) and isinstance(result.get("protocolVersion"), str):
            self._version = result["protocolVersion"]

    async def _answer_unavailable(self, message: Any, why: str) -> None:
        if not _has_id(message):
            return
        if _method(message) == "tools/call":
            # What a tool could not do is a result the model reads, not a protocol error.
            result = error_result(UNAVAILABLE, why[:300])
            payload = result.model_dump(by_alias=True, exclude_none=True, mode="json")
            await self._write({"jsonrpc": "2.0", "id": message["id"], "result": payload})
            return
        text = f"Understudy is not available: {why}"[:300]
        await self._write(_rpc_error(message["id"], CONNECTION_CLOSED, text))

    # --- connecting ------------------------------------------------------------------------
    async def connect(self) -> None:
        """Find the app (started if allowed) before the client's first message."""
        self._runtime = await asyncio.to_thread(self._find_app)

    async def _reconnect(self, seen: int) -> None:
        async with self._reconnecting:
            if self._generation != seen:
                return  # another request has already reconnected
            self._runtime = await asyncio.to_thread(self._find_app)
            self._session = None
            if self._initialize is not None:
                await self._replay()
            self._generation += 1
        if self._initialized:
            # Whatever was published meanwhile, the client should read the list again.
            note = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
            await self._write(note)

    async def _replay(self) -> None:
        """The client's initialize and initialized again, on the new app; answers dropped."""
        assert self._runtime is not None and self._initialize is not None
        init = {**self._initialize, "id": f"understudy-mcp-replay-{self._generation}"}
        response = await self._http.post(
            self._runtime.url, content=json.dumps(init).encode(), headers=self._headers(init)
        )
        response.raise_for_status()
        self._note_session(response, response.json())
        if self._initialized:
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await self._http.post(
                self._runtime.url, content=json.dumps(note).encode(), headers=self._headers(note)
            )
            self.open_stream()

    def open_stream(self) -> None:
        """The session's GET stream, for notifications the app sends on its own (the tool
        list changed). Opened after initialized; it ends with the app, and the next request
        that reconnects opens it again."""
        if self._stream is not None:
            self._stream.cancel()
        if self._session is not None:
            self._stream = asyncio.get_running_loop().create_task(self._listen())

    async def _listen(self) -> None:
        if self._runtime is None:
            return
        try:
            async with self._http.stream(
                "GET", self._runtime.url, headers=self._headers(None)
            ) as response:
                if response.status_code != 200:
                    return
                async for event in _events(response):
                    await self._write(event)
        except httpx2.HTTPError as exc:
            log.info("the notification stream ended: %s", exc)


async def _events(response: httpx2.Response) -> AsyncIterator[dict[str, Any]]:
    """The JSON-RPC messages of a server-sent event stream."""
    data: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif not line and data:
            with contextlib.suppress(ValueError):  # a keep-alive or a partial event
                yield json.loads("\n".join(data))
            data = []


def _method(message: Any) -> str:
    method = message.get("method") if isinstance(message, dict) else None
    return method if isinstance(method, str) else ""


def _params(message: Any) -> dict[str, Any]:
    params = message.get("params") if isinstance(message, dict) else None
    return params if isinstance(params, dict) else {}


def _has_id(message: Any) -> bool:
    return isinstance(message, dict) and "id" in message and "method" in message


def too_large(request_id: Any, limit: int) -> dict[str, Any]:
    megabytes = limit // (1024 * 1024)
    text = f"The request is larger than Understudy takes ({megabytes} MB); it was not sent."
    return _rpc_error(request_id, INVALID_REQUEST, text)


def id_in(line: bytes) -> Any:
    """The id of a request too large to pass on, read from the top level of its object
    without parsing what comes after the id: `line` may be only the head of a line that was
    skipped. None when the id is not there (or not a valid one)."""
    text = line.decode("utf-8", errors="replace")
    decoder = json.JSONDecoder()
    at = _past_space(text, 0)
    if not text.startswith("{", at):
        return None
    at += 1
    while True:
        try:
            at = _past_space(text, at)
            key, at = decoder.raw_decode(text, at)
            at = _past_space(text, at)
            if not isinstance(key, str) or not text.startswith(":", at):
                return None
            value, at = decoder.raw_decode(text, _past_space(text, at + 1))
        except ValueError:  # cut short, or not JSON
            return None
        if key == "id":
            return value if valid_id(value) else None
        at = _past_space(text, at)
        if not text.startswith(",", at):
            return None
        at += 1


def _past_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _rpc_error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
