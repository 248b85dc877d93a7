"""A bare Chrome DevTools Protocol client over --remote-debugging-pipe, for the native anchor.

No client library sits between the benchmark and the browser: messages are JSON, each ended
by a NUL byte, on file descriptors 3 (to Chromium) and 4 (from it). That makes the anchor as
cheap as a CDP call can be, so the app is compared with native WebMCP at its best.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import tempfile
import time
from typing import Any

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--enable-features=WebMCP",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
]


class PipeCDP:
    def __init__(self) -> None:
        self._profile = tempfile.TemporaryDirectory(prefix="understudy-cdp-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4; the shell moves our
        # pipe ends there (subprocess can pass descriptors, not renumber them).
        command = " ".join(
            [CHROMIUM, *ARGS, f"--user-data-dir={self._profile.name}", "about:blank"]
        )
        self.process = subprocess.Popen(
            ["/bin/sh", "-c", f"exec {command} 3<&{to_browser_r} 4>&{from_browser_w}"],
            pass_fds=(to_browser_r, from_browser_w),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""

    def send(self, method: str, params: dict[str, Any] | None = None, session: bool = True) -> Any:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_event(self, method: str, match: dict[str, Any], timeout_s: float = 30) -> Any:
        deadline = time.monotonic() + timeout_s
        while True:
            for i, event in enumerate(self.events):
                params = event.get("params", {})
                if event.get("method") == method and all(
                    params.get(k) == v for k, v in match.items()
                ):
                    return self.events.pop(i)["params"]
            if time.monotonic() > deadline:
                raise TimeoutError(method)
            self.events.append(self._read())

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        parsed: dict[str, Any] = json.loads(raw)
        return parsed

    def open_page(self, url: str) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = self.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, False
        )
        self.session = attached["sessionId"]
        self.send("Page.enable")
        self.send("Page.navigate", {"url": url})

    def evaluate(self, expression: str) -> Any:
        out = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return out.get("result", {}).get("value")

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):  # the browser may already be gone
            self.send("Browser.close", session=False)
        self.process.wait(10)
        os.close(self._to_browser)
        os.close(self._from_browser)
        self._profile.cleanup()
