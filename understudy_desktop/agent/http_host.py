"""The endpoint's HTTP side: uvicorn on a loopback socket in a thread of its own, and the gate
in front of the MCP app (bearer token, sessions that end only when the transport agrees).

What is listed and what a call does are not decided here (agent/server.py, agent/calls.py).
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import uvicorn

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
SessionEnded = Callable[[str], None]


# httptools (llhttp, in C) parses HTTP and uvloop (libuv) runs the server thread's event loop:
# a trivial call over plain HTTP takes 2.0 ms instead of 3.6 ms with uvicorn's pure-Python h11
# and asyncio's own loop (bench/transport.py measures both side by side).
@dataclass(frozen=True)
class Transport:
    http: Literal["h11", "httptools"]
    loop: Literal["asyncio", "uvloop"]


def available_transport() -> Transport:
    """The fast pair where it is installed; asyncio's own loop and h11 otherwise (uvloop has
    no Windows build, so it is only a dependency elsewhere: pyproject.toml)."""
    http: Literal["h11", "httptools"] = "httptools" if _importable("httptools") else "h11"
    loop: Literal["asyncio", "uvloop"] = "uvloop" if _importable("uvloop") else "asyncio"
    return Transport(http=http, loop=loop)


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


TRANSPORT = available_transport()


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def authorized(header: bytes, token: bytes) -> bool:
    """`Authorization: Bearer <token>`; the scheme's case does not matter (RFC 9110 §11.1)."""
    scheme, _, credentials = header.strip().partition(b" ")
    return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), token)


async def refuse_unauthorized(send: Send) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")],
        }
    )
    await send(
        {
            "type": "http.response.body",
            "body": b"A valid bearer token is required (see agent.json).",
        }
    )


class Contact(Protocol):
    """Told of every request a client holds open, and the session it belonged to."""

    def request_opened(self) -> None: ...
    def request_closed(self, session: str = "") -> None: ...


def guarded(
    inner: ASGIApp, token: str, session_ended: SessionEnded, contact: Contact | None = None
) -> ASGIApp:
    """`inner` behind the bearer token; `session_ended(id)` once a DELETE really ended one;
    `contact` told of each authorised request from its start to its end."""
    expected = token.encode()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await inner(scope, receive, send)
            return
        headers = dict(scope["headers"])
        if not authorized(headers.get(b"authorization", b""), expected):
            await refuse_unauthorized(send)
            return
        session_id = headers.get(b"mcp-session-id", b"").decode()
        if scope["method"] != "DELETE":
            await _in_contact(inner, scope, receive, send, session_id, contact)
            return
        # A session ends only if the transport agreed (a DELETE with a bad Origin gets 403 and
        # must leave the session, and its list_changed stream, as they were).

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 300:
                session_ended(session_id)
            await send(message)

        await inner(scope, receive, watch)

    return app


async def _in_contact(
    inner: ASGIApp,
    scope: Scope,
    receive: Receive,
    send: Send,
    session: str,
    contact: Contact | None,
) -> None:
    if contact is None:
        await inner(scope, receive, send)
        return
    given = [session]

    async def watch(message: Message) -> None:
        # initialize is sent without a session; its answer names the one it began.
        if message["type"] == "http.response.start" and not given[0]:
            for name, value in message.get("headers", []):
                if name.lower() == b"mcp-session-id":
                    given[0] = value.decode()
        await send(message)

    contact.request_opened()
    try:
        await inner(scope, receive, watch)
    finally:
        contact.request_closed(given[0])


class HttpHost:
    """uvicorn serving one ASGI app on a loopback port, in a daemon thread."""

    def __init__(self, host: str) -> None:
        if not is_loopback(host):
            raise ValueError(f"the agent endpoint only listens on loopback, not {host}")
        self.host = host
        self.port = 0
        self.transport = TRANSPORT
        self._uvicorn: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self, app: ASGIApp, port: int = 0) -> int:
        sock = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET)
        # Accepted connections inherit this: without it a small answer waits for the
        # client's delayed ACK (Nagle), about 40 ms a call on loopback.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((self.host, port))
        self.port = int(sock.getsockname()[1])
        config = uvicorn.Config(
            app,
            lifespan="on",
            log_level="warning",
            http=self.transport.http,
            loop=self.transport.loop,
        )
        self._uvicorn = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._uvicorn.run, kwargs={"sockets": [sock]}, name="understudy-mcp", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._uvicorn.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the agent endpoint did not start")
            time.sleep(0.01)
        log.info("agent endpoint listening on %s:%d", self.host, self.port)
        return self.port

    def stop(self) -> None:
        if self._uvicorn is not None:
            self._uvicorn.should_exit = True
        if self._thread is not None:
            self._thread.join(5)
