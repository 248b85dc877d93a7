"""A tools/call on a session the SDK already holds, answered without the SDK's message loop.

The SDK's server path turns every request into pydantic models, passes it through memory
streams to a session task and a dispatcher, and back: about half a millisecond of Python per
call on the endpoint's thread, where every agent call waits (bench/native_anchor.py). This
lane answers the one request agents make over and over, a tools/call, with the same checks
and the same bytes, and leaves everything else to the SDK.

It takes a request only when all of these hold, and otherwise hands it on untouched:
- a POST whose Content-Type, Accept, Host and Origin the SDK's own checks accept;
- on a session the SDK's session manager holds, not ended, which negotiated a version of
  the 2025 handshake and says that version in its Mcp-Protocol-Version header (or none, on
  2025-03-26, which had no such header), and which has already been heard from through the
  SDK (so it was initialised);
- one JSON-RPC request, tools/call, with a string or integer id and a known tool's name.

While it runs it counts as the session's request in flight, as the SDK's transport counts
its own, so an agent that only calls tools keeps its session. A notifications/cancelled for
it stops it: the call is cancelled on the Qt thread and the POST ends with no answer, as the
SDK's path does (http_edges.py). The answer is the SDK's own serialisation of the result;
tests/test_agent_endpoint.py compares the two byte for byte.

The SDK attributes read here (the manager's sessions and owners, a transport's security
settings and idle scope) are pinned with the SDK's version in pyproject.toml; if one is
missing the lane steps aside and the SDK answers as before.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio
from mcp.server.streamable_http import check_accept_headers
from mcp_types import methods
from mcp_types.jsonrpc import JSONRPCResponse
from starlette.requests import Request

from understudy_desktop.agent.http_edges import valid_id
from understudy_desktop.agent.mcp_shapes import mcp_result

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]
Call = Callable[[str, dict[str, Any], str], Awaitable[dict[str, Any]]]

REQUEST_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
PARAM_KEYS = frozenset({"name", "arguments", "_meta"})
UNSAID_VERSION = "2025-03-26"


class DirectCalls:
    """See the module's text. `manager` gives the SDK's session manager (None until the
    endpoint's app exists), `versions` the version each session negotiated, `client_of` the
    client's name for a session the SDK has served (None: not yet), `knows` whether a tool
    name is known, `note` tells the status bar, `call` runs the call on the Qt thread."""

    def __init__(
        self,
        manager: Callable[[], Any],
        versions: Callable[[str], str | None],
        client_of: Callable[[str], str | None],
        knows: Callable[[str], bool],
        note: Callable[[str, str], None],
        call: Call,
    ) -> None:
        self._manager = manager
        self._versions = versions
        self._client_of = client_of
        self._knows = knows
        self._note = note
        self._call = call
        # (session, request id) -> the task answering it, for notifications/cancelled.
        self._running: dict[tuple[str, str | int], asyncio.Task[dict[str, Any]]] = {}
        self.taken = 0  # calls answered here (tests and benchmarks read it)

    # --- taking a request ---------------------------------------------------------------
    async def take(self, scope: Scope, message: dict[str, Any], send: Send) -> bool:
        """Answer `message` (the POST's JSON, read once by http_edges.py) here if it is a
        call this lane may take (see the module's text); False: nothing was sent, the SDK
        answers it."""
        request = self._request_of(message)
        if request is None:
            return False
        headers = dict(scope["headers"])
        session = headers.get(b"mcp-session-id", b"").decode("latin-1")
        transport = await self._transport_for(scope, headers, session)
        if transport is None:
            return False
        client = self._client_of(session)
        version = self._versions(session)
        if client is None or version is None:
            return False
        request_id, name, arguments = request
        await self._answer(transport, session, version, request_id, name, arguments, client, send)
        return True

    def _request_of(self, message: dict[str, Any]) -> tuple[str | int, str, dict[str, Any]] | None:
        if message.keys() - REQUEST_KEYS:
            return None
        request_id = message.get("id")
        params = message.get("params")
        if (
            message.get("jsonrpc") != "2.0"
            or message.get("method") != "tools/call"
            or not valid_id(request_id)
            or not isinstance(params, dict)
            or params.keys() - PARAM_KEYS
        ):
            return None
        name = params.get("name")
        arguments = params.get("arguments", {})
        meta = params.get("_meta", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return None
        if not isinstance(meta, dict) or not self._knows(name):
            return None
        return request_id, name, arguments

    async def _transport_for(
        self, scope: Scope, headers: dict[bytes, bytes], session: str
    ) -> Any | None:
        """The SDK's transport of `session`, if the SDK would serve this POST on it."""
        manager = self._manager()
        if manager is None or not session:
            return None
        try:
            transport = manager._server_instances.get(session)
            owned = manager._session_owners.get(session)
            security = transport._security if transport is not None else None
            idle = transport.idle_scope if transport is not None else None
            ended = transport.is_terminated if transport is not None else True
        except AttributeError:  # another SDK: step aside
            return None
        if transport is None or owned is not None or ended or security is None:
            return None
        if idle is not None and idle.cancel_called:
            return None
        version = self._versions(session)
        said = headers.get(b"mcp-protocol-version", b"").decode("latin-1")
        # 2025-03-26's clients send no version header; the SDK reads none as that version.
        if version is None or (said != version and (said or version != UNSAID_VERSION)):
            return None
        checked = Request(scope)
        if await security.validate_request(checked, is_post=True) is not None:
            return None
        if not check_accept_headers(checked)[0]:
            return None
        return transport

    # --- answering -----------------------------------------------------------------------
    async def _answer(
        self,
        transport: Any,
        session: str,
        version: str,
        request_id: str | int,
        name: str,
        arguments: dict[str, Any],
        client: str,
        send: Send,
    ) -> None:
        self.taken += 1
        self._note(client, name)
        key = (session, request_id)
        task = asyncio.ensure_future(self._call(name, arguments, client))
        self._running[key] = task
        held = _hold(transport)
        try:
            reply = await task
        except asyncio.CancelledError:
            if not task.cancelled():
                raise  # this request itself is being torn down (the server stopping)
            await _end_without_answer(send, session)
            return
        finally:
            if self._running.get(key) is task:
                del self._running[key]
            _release(transport, held)
        # As the SDK's server shapes a result: dumped, then sieved to what the session's
        # version of the protocol has (no cache hints are set for tools/call here).
        dumped = mcp_result(reply).model_dump(by_alias=True, mode="json", exclude_none=True)
        result = methods.serialize_server_result("tools/call", version, dumped)
        response = JSONRPCResponse(jsonrpc="2.0", id=request_id, result=result)
        payload = response.model_dump_json(by_alias=True, exclude_unset=True).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-length", str(len(payload)).encode()),
                    (b"content-type", b"application/json"),
                    (b"mcp-session-id", session.encode("latin-1")),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    def cancel(self, session: str, message: dict[str, Any]) -> None:
        """A notifications/cancelled for a call this lane is answering stops it (the SDK
        gets the notification too, and answers it)."""
        if not self._running or message.get("method") != "notifications/cancelled":
            return
        params = message.get("params")
        request_id = params.get("requestId") if isinstance(params, dict) else None
        task = self._running.get((session, request_id)) if valid_id(request_id) else None
        if task is not None:
            task.cancel()


def _hold(transport: Any) -> bool:
    """Count as the session's request in flight, as the SDK's transport does for its own:
    the idle countdown waits while any request is served."""
    idle = getattr(transport, "idle_scope", None)
    if idle is None or getattr(transport, "_idle_timeout", None) is None:
        return False
    transport._requests_in_flight += 1
    idle.deadline = math.inf
    return True


def _release(transport: Any, held: bool) -> None:
    if not held:
        return
    transport._requests_in_flight -= 1
    if not transport._requests_in_flight:
        transport.idle_scope.deadline = anyio.current_time() + transport._idle_timeout


async def _end_without_answer(send: Send, session: str) -> None:
    """A cancelled request gets no response (MCP's cancellation: the receiver SHOULD NOT
    send one); the POST ends as an event stream with no events, as http_edges.py ends the
    SDK's own."""
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"text/event-stream"),
                (b"mcp-session-id", session.encode("latin-1")),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})
