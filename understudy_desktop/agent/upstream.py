"""understudy-mcp's connection to the app's endpoint, made again whenever the app restarts.

A restarted app has a new port and token (agent.json). The connection lives in a task of its
own (an MCP client must be closed by the task that opened it); when it fails, or a request
through it fails, it is dropped, and the next request reads agent.json again and replays
initialize on a fresh connection. A request that was in flight when the app went away gets a
clean error; nothing is retried behind the caller's back, since a call may already have run.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
import mcp_types as types
from anyio.abc import TaskGroup
from mcp import Client
from mcp.client.session import MessageHandlerFnT
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import CONNECTION_CLOSED, REQUEST_TIMEOUT

from understudy_desktop import __version__
from understudy_desktop.agent.results import PROXY_NAME
from understudy_desktop.agent.runtime_file import AgentRuntime

log = logging.getLogger("understudy-mcp")

FindApp = Callable[[], AgentRuntime]  # raises AppUnavailableError (blocking: run in a thread)
OnReconnect = Callable[[], Awaitable[None]]


IN_FLIGHT = (
    "Understudy restarted or stopped while this call was in flight, so it may or may not have "
    "run. Check before calling again."
)


class UpstreamUnavailableError(RuntimeError):
    """No connection to the app could be made; str() is one line for the client."""


class Upstream:
    def __init__(
        self,
        tasks: TaskGroup,
        find_app: FindApp,
        on_message: MessageHandlerFnT,
        on_reconnect: OnReconnect,
    ) -> None:
        self._tasks = tasks
        self._find_app = find_app
        self._on_message = on_message
        self._on_reconnect = on_reconnect
        self._client: Client | None = None
        self._stop: anyio.Event | None = None
        self._lock = anyio.Lock()
        self._connections = 0

    @property
    def connections(self) -> int:
        """How many connections were made so far (the first, then one per restart seen)."""
        return self._connections

    async def client(self) -> Client:
        async with self._lock:
            if self._client is None:
                await self._connect()
            assert self._client is not None
            return self._client

    async def drop(self, client: Client | None = None) -> None:
        """Forget the connection (`client`, if given, only if it is still the current one)."""
        async with self._lock:
            if client is not None and client is not self._client:
                return
            if self._stop is not None:
                self._stop.set()
            self._client = None
            self._stop = None

    async def close(self) -> None:
        await self.drop()

    async def _connect(self) -> None:
        try:
            runtime = await anyio.to_thread.run_sync(self._find_app)
        except Exception as exc:  # AppUnavailableError and anything reading agent.json
            raise UpstreamUnavailableError(str(exc) or "Understudy is not running.") from None
        ready = anyio.Event()
        stop = anyio.Event()
        box: dict[str, Any] = {}

        async def hold() -> None:
            headers = {"Authorization": f"Bearer {runtime.token}"}
            try:
                async with (
                    httpx2.AsyncClient(
                        headers=headers, timeout=httpx2.Timeout(30, read=600)
                    ) as http,
                    Client(
                        streamable_http_client(runtime.url, http_client=http),
                        mode="legacy",  # the classic list_changed on a standing stream
                        message_handler=self._on_message,
                        client_info=types.Implementation(name=PROXY_NAME, version=__version__),
                    ) as client,
                ):
                    box["client"] = client
                    ready.set()
                    await stop.wait()
            except Exception as exc:  # the app went away: the next request connects again
                log.info("connection to Understudy ended: %s", type(exc).__name__)
                box.setdefault("error", exc)
            finally:
                ready.set()
                current = box.get("client")
                if current is not None and current is self._client:
                    self._client = None
                    self._stop = None

        self._tasks.start_soon(hold)
        await ready.wait()
        if "client" not in box:
            raise UpstreamUnavailableError("Understudy's endpoint did not answer.")
        first = self._connections == 0
        self._client, self._stop = box["client"], stop
        self._connections += 1
        if not first:
            # The restarted app may hold other tools than the one before.
            await self._on_reconnect()


async def list_through(upstream: Upstream, meta: types.RequestParamsMeta) -> types.ListToolsResult:
    """tools/list, once more on a fresh connection if the app restarted (listing is safe to
    repeat)."""
    for attempt in range(2):
        client = await upstream.client()
        try:
            return await client.list_tools(meta=meta, cache_mode="bypass")
        except Exception:
            await upstream.drop(client)
            if attempt:
                raise UpstreamUnavailableError("Understudy stopped answering.") from None
    raise UpstreamUnavailableError("Understudy stopped answering.")


def unavailable_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)],
        is_error=True,
        structured_content={"code": "unavailable", "message": message},
    )


async def call_through(
    upstream: Upstream, name: str, arguments: dict[str, Any] | None, meta: types.RequestParamsMeta
) -> types.CallToolResult:
    """tools/call. A call whose connection fails gets a clean error and is not repeated: it may
    have run before the app went away."""
    try:
        client = await upstream.client()
    except UpstreamUnavailableError as exc:
        return unavailable_result(f"Understudy is not available: {exc} Try again shortly.")
    try:
        result: types.CallToolResult = await client.session.call_tool(name, arguments, meta=meta)
    except anyio.get_cancelled_exc_class():
        raise
    except MCPError as exc:
        if exc.code not in (CONNECTION_CLOSED, REQUEST_TIMEOUT):
            raise  # the app's own answer, such as an unknown tool (-32602): the client's to see
        await upstream.drop(client)
        return unavailable_result(IN_FLIGHT)
    except Exception:
        await upstream.drop(client)
        return unavailable_result(IN_FLIGHT)
    return result


__all__ = [
    "Upstream",
    "UpstreamUnavailableError",
    "call_through",
    "list_through",
    "unavailable_result",
]
