"""Child processes spoken to by JSON lines, while the app idles in its own Qt event loop.

The parent writes one JSON object a line to the child's stdin; the child answers one line on
its stdout: {"value": ...} or {"error": "..."}. While the parent waits it sits in
a Qt event loop (woken by a QSocketNotifier on the child's stdout), so an app hosted in the
parent process idles exactly as it does for a real agent: no busy polling is charged to it.
The loop is a local QEventLoop, not `QApplication.exec()`: in Qt 6, `QApplication.quit()`
also closes every top-level window, and a closed console window is a hidden page, whose
timers Chromium throttles to once a second.
The child's side (serve, serve_async, announce) does not load Qt.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from typing import Any


class Peer:
    def __init__(self, argv: list[str]) -> None:
        """Start the child; the parent must already have its QApplication."""
        from PySide6.QtCore import QEventLoop, QSocketNotifier  # only the parent needs Qt

        self._loop = QEventLoop()
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.process.stdout is not None and self.process.stdin is not None
        self._in = self.process.stdin
        self._fd = self.process.stdout.fileno()
        self._buffer = b""
        self._closed = False
        self._notifier = QSocketNotifier(self._fd, QSocketNotifier.Type.Read)
        self._notifier.activated.connect(self._readable)

    @property
    def pid(self) -> int:
        return self.process.pid

    def _readable(self) -> None:
        chunk = os.read(self._fd, 1 << 16)
        if not chunk:
            self._closed = True
            self._notifier.setEnabled(False)
        self._buffer += chunk
        if self._closed or b"\n" in self._buffer:
            self._loop.quit()

    def receive(self) -> Any:
        while b"\n" not in self._buffer:
            if self._closed:
                raise RuntimeError(f"the child process {self.process.args!r} ended")
            self._loop.exec()
        line, _, self._buffer = self._buffer.partition(b"\n")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"the child process failed: {answer['error']}")
        return answer["value"]

    def ask(self, message: dict[str, Any]) -> Any:
        self._in.write(json.dumps(message).encode() + b"\n")
        self._in.flush()
        return self.receive()

    def close(self) -> None:
        self._notifier.setEnabled(False)
        self._in.close()
        self.process.wait(60)


def serve(handle: Callable[[dict[str, Any]], Any]) -> None:
    """The child's side: answer each line on stdin with handle(message) until stdin ends."""
    for line in sys.stdin.buffer:
        try:
            answer: dict[str, Any] = {"value": handle(json.loads(line))}
        except Exception as exc:  # reported to the parent, which raises it
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


def announce(value: Any) -> None:
    """The child's first line, before it serves: that it is ready (and anything to say)."""
    sys.stdout.write(json.dumps({"value": value}) + "\n")
    sys.stdout.flush()


async def serve_async(handle: Callable[[dict[str, Any]], Awaitable[Any]]) -> None:
    """serve() for a child whose work is asyncio (the MCP SDK client)."""
    while line := await asyncio.to_thread(sys.stdin.buffer.readline):
        try:
            answer: dict[str, Any] = {"value": await handle(json.loads(line))}
        except Exception as exc:  # reported to the parent, which raises it
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
