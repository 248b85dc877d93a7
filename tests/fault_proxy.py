"""A small HTTP proxy the tests put between the app and a real Request Tracker, to fail on
purpose: it passes requests through, or answers with a login page, a status of its choosing
(401, 403, 429 with Retry-After, 503), an empty body, or cuts the connection. It counts what
it was asked, so a test can tell a sender that waits from one that hammers."""

from __future__ import annotations

import http.server
import socket
import struct
import threading
import time
from dataclasses import dataclass, field

import httpx2

LOGIN_PAGE = b"<!doctype html><html><body><form>Sign in to continue</form></body></html>"


@dataclass
class Mode:
    kind: str = "pass"  # pass, html, status, empty, reset, delay
    status: int = 200
    retry_after: str = ""
    delay_s: float = 0.0


@dataclass
class FaultProxy:
    upstream: str
    mode: Mode = field(default_factory=Mode)
    requests: list[tuple[float, str, str]] = field(default_factory=list)  # (when, mode, path)

    def __post_init__(self) -> None:
        proxy = self
        client = httpx2.Client(base_url=self.upstream, timeout=30.0)

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _serve(self) -> None:
                mode = proxy.mode
                proxy.requests.append((time.monotonic(), mode.kind, self.path))
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                if mode.kind == "reset":
                    # An abortive close (RST), at once: shutdown reaches the socket even while
                    # the handler's own file objects still hold it.
                    self.connection.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                    )
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                if mode.kind == "html":
                    self._answer(200, LOGIN_PAGE, "text/html; charset=utf-8")
                    return
                if mode.kind == "empty":
                    self._answer(200, b"", "application/json")
                    return
                if mode.kind == "status":
                    extra = {"Retry-After": mode.retry_after} if mode.retry_after else {}
                    self._answer(mode.status, b'{"message": "no"}', "application/json", extra)
                    return
                if mode.kind == "delay":
                    time.sleep(mode.delay_s)
                headers = {
                    k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")
                }
                try:
                    answer = client.request(self.command, self.path, content=body, headers=headers)
                except RuntimeError:
                    # The proxy was closed while this request waited (its test has ended):
                    # the connection just ends, as a helpdesk going away would end it.
                    self.close_connection = True
                    return
                passed = {
                    k: v
                    for k, v in answer.headers.items()
                    if k.lower() in ("content-type", "etag", "location", "retry-after")
                }
                self._answer(answer.status_code, answer.content, "", passed)

            def _answer(
                self, status: int, data: bytes, kind: str, extra: dict[str, str] | None = None
            ) -> None:
                self.send_response(status)
                if kind:
                    self.send_header("Content-Type", kind)
                for name, value in (extra or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = do_PATCH = _serve  # noqa: N815 (http.server names)

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._client = client
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def asked_since(self, moment: float) -> int:
        return sum(1 for when, _kind, _path in self.requests if when >= moment)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._client.close()
