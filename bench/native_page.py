"""The console page standing alone in Chromium 156 (native WebMCP), driven over a CDP pipe.

`AssetServer` serves web_assets/ over plain http.server on loopback (a secure context, so the
page gets `document.modelContext`); it can hand out another queue at `data/default_queue.json`,
the file the page fetches on its first run in a fresh profile. `NativeConsole` opens the page
in a fresh Chromium profile (bench/cdp_pipe.py), waits for it, teaches and publishes through
the page's own controls and overlay, and calls its WebMCP tools with WebMCP.invokeTool.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
import time
from pathlib import Path
from typing import Any

from cdp_pipe import PipeCDP

ASSETS = Path(__file__).resolve().parent.parent / "web_assets"
DEMO_QUEUE = "/data/default_queue.json"


class _Handler(http.server.SimpleHTTPRequestHandler):
    queue_bytes: bytes | None = None

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.queue_bytes is not None and self.path.split("?")[0] == DEMO_QUEUE:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(self.queue_bytes)))
            self.end_headers()
            self.wfile.write(self.queue_bytes)
            return
        super().do_GET()


class AssetServer:
    """web_assets/ on 127.0.0.1; `queue` (a queue document) replaces the demo queue."""

    def __init__(self, queue: dict[str, Any] | None = None) -> None:
        handler_class = type(
            "Handler",
            (_Handler,),
            {"queue_bytes": None if queue is None else json.dumps(queue).encode()},
        )
        handler = functools.partial(handler_class, directory=str(ASSETS))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/index.html"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


READY = "document.documentElement.dataset.consoleReady === 'true'"


class NativeConsole:
    """Chromium 156 with the console page in a fresh profile, over a CDP pipe."""

    def __init__(self, url: str, timeout_s: float = 120) -> None:
        self.cdp = PipeCDP()
        self.cdp.open_page(url)
        self.cdp.send("WebMCP.enable")
        deadline = time.monotonic() + timeout_s
        while not self.cdp.evaluate(READY):
            if time.monotonic() > deadline:
                raise TimeoutError("the console did not start in Chromium")
            time.sleep(0.02)
        self.frame = self.cdp.send("Page.getFrameTree")["frameTree"]["frame"]["id"]

    def resize(self, width: int, height: int) -> None:
        """Give the page a viewport of width x height CSS pixels (the app's, for a fair
        comparison: both paint what they show)."""
        inner = self.cdp.evaluate(
            "JSON.stringify([outerWidth - innerWidth, outerHeight - innerHeight])"
        )
        dw, dh = json.loads(inner)
        window = self.cdp.send("Browser.getWindowForTarget")["windowId"]
        bounds = {"width": width + dw, "height": height + dh}
        self.cdp.send("Browser.setWindowBounds", {"windowId": window, "bounds": bounds})
        deadline = time.monotonic() + 10
        while self.cdp.evaluate("JSON.stringify([innerWidth, innerHeight])") != json.dumps(
            [width, height], separators=(",", ":")
        ):
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium's window did not take the app's size")
            time.sleep(0.02)

    def run_async(self, expression: str, timeout_s: float = 300) -> Any:
        """Await an expression (a promise) in the page and return its JSON value."""
        out = self.cdp.send(
            "Runtime.evaluate",
            {
                "expression": expression,
                "awaitPromise": True,
                "returnByValue": True,
                "timeout": timeout_s * 1000,
            },
        )
        if "exceptionDetails" in out:
            details = out["exceptionDetails"]
            raise RuntimeError(details.get("exception", {}).get("description", str(details)))
        return out.get("result", {}).get("value")

    def invoke(self, tool: str, arguments: dict[str, Any], timeout_s: float = 300) -> Any:
        """Call one of the page's WebMCP tools as a native agent does; its output."""
        sent = self.cdp.send(
            "WebMCP.invokeTool", {"frameId": self.frame, "toolName": tool, "input": arguments}
        )
        answer = self.cdp.wait_event(
            "WebMCP.toolResponded", {"invocationId": sent["invocationId"]}, timeout_s
        )
        if answer.get("status") != "Completed":
            raise RuntimeError(f"{tool} failed in Chromium: {answer}")
        return answer.get("output")

    def publish_taught(self, teach_script: str, tool: str) -> None:
        """Teach with the page's controls (`teach_script` awaits its own steps and ends by
        pressing Publish), approve in the page's overlay, wait until the tool is listed."""
        self.run_async(teach_script)
        self.run_async(
            """(async () => {
              for (let i = 0; i < 400; i++) {
                const b = document.getElementById('approve-button');
                if (b) { b.click(); return true; }
                await new Promise((r) => setTimeout(r, 25));
              }
              throw new Error('the approval overlay did not open');
            })()"""
        )
        deadline = time.monotonic() + 60
        while tool not in self.tools():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{tool} was not registered in Chromium")
            time.sleep(0.05)
            self.cdp.send("Runtime.evaluate", {"expression": "0"})  # reads pending events

    def tools(self) -> dict[str, dict[str, Any]]:
        """The tools CDP has reported added so far (WebMCP.toolsAdded events), by name."""
        return {
            str(t.get("name")): t
            for e in self.cdp.events
            if e.get("method") == "WebMCP.toolsAdded"
            for t in e.get("params", {}).get("tools", [])
        }

    def close(self) -> None:
        self.cdp.close()


def cold_start_s(url: str, tools: set[str], idle: list[float] | None = None) -> float:
    """Seconds from launching Chromium (a fresh profile) to CDP reporting every one of `tools`
    registered by the page at `url`. WebMCP is enabled on the blank tab before navigating, so
    every registration is seen as it happens. With `idle`, Chromium then idles IDLE_S and the
    PSS of its process tree (MB) is appended to it."""
    t0 = time.perf_counter()
    cdp = PipeCDP()
    try:
        target = cdp.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = cdp.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, False
        )
        cdp.session = attached["sessionId"]
        cdp.send("WebMCP.enable")
        cdp.send("Page.navigate", {"url": url})
        missing = set(tools)
        while missing:
            added = cdp.wait_event("WebMCP.toolsAdded", {}, 120)
            missing -= {t.get("name") for t in added.get("tools", [])}
        started = time.perf_counter() - t0
        if idle is not None:
            from startup_memory import IDLE_S, tree_pss_mb

            time.sleep(IDLE_S)
            idle.append(tree_pss_mb(cdp.process.pid))
        return started
    finally:
        cdp.close()
