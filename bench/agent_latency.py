"""tools/call through the agent endpoint against the same call made inside the page.

Both arms call the same page tool (an echo) 1,000 times in one run:
  in page   document.modelContext.executeTool(...) from page script (the floor)
  endpoint  the official MCP client -> streamable HTTP -> jsonschema check -> Qt thread ->
            QWebChannel -> relay -> executeTool -> back
Prints median / p95 / p99 per arm and the endpoint's overhead over the in-page call.
Usage: .venv/bin/python bench/agent_latency.py [calls]
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ["QTWEBENGINE_DISABLE_SANDBOX"] = "1"

from harness import client_process, timed_calls
from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication

from understudy_desktop.app import open_session, prepare_qt
from understudy_desktop.consent.approvals import definition_hash
from understudy_desktop.paths import DataPaths

REGISTER = """document.modelContext.registerTool({
  name: 'echo', description: 'Echo.',
  inputSchema: {type: 'object', properties: {n: {type: 'integer'}}, required: ['n']},
  execute: (input) => ({n: input.n}),
}); true"""

IN_PAGE = """(async () => {
  const mc = document.modelContext;
  const tool = (await mc.getTools()).find((t) => t.name === 'echo');
  const times = [];
  for (let i = 0; i < %d; i++) {
    const t0 = performance.now();
    await mc.executeTool(tool, {n: i});
    times.push(performance.now() - t0);
  }
  window.__inpage = times;
})(); true"""


def pump_until(app: QApplication, done, timeout_s: float = 600) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)


def js(app: QApplication, page, script: str):
    box: list = []
    page.runJavaScript(script, 0, box.append)
    pump_until(app, lambda: bool(box))
    return box[0]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--client":
        url, token, n = sys.argv[2], sys.argv[3], int(sys.argv[4])
        calls = [("echo", {"n": i}) for i in range(n)]
        print(json.dumps(asyncio.run(timed_calls(url, token, calls, warm_up=20))))
        return 0
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    prepare_qt()
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        session = open_session(DataPaths(Path(tmp)), agent_port=0)
        window = session.window
        window.load_console()
        window.show()
        pump_until(app, lambda: window.link.ready)
        js(app, window.page, REGISTER)
        pump_until(app, lambda: window.bridge.tool("echo") is not None)
        # The benchmark plays the person who approved this tool.
        echo = window.bridge.tool("echo")
        assert echo is not None
        session.consent.approvals.record("echo", definition_hash(echo.as_definition()))

        js(app, window.page, IN_PAGE % calls)
        pump_until(app, lambda: js(app, window.page, "Array.isArray(window.__inpage)"))
        in_page_ms = json.loads(js(app, window.page, "JSON.stringify(window.__inpage)"))

        server = session.agent
        assert server is not None
        # The client runs in its own process, as a real agent does; the app meanwhile idles in
        # its event loop (app.exec), as it does for a person.
        out = client_process(
            app, [sys.executable, __file__, "--client", server.url, server.token, str(calls)]
        )
        endpoint_ms = json.loads(out)
        session.close()

    print()
    print(f"tools/call latency, {calls:,} calls per arm (offscreen QtWebEngine, this machine)")
    head = (
        f"{'arm':<10} | {'median (ms)':>11} | {'mean (ms)':>9} | {'p95 (ms)':>9} | {'p99 (ms)':>9}"
    )
    print(head)
    print("-" * len(head))
    for name, values in (("in page", in_page_ms), ("endpoint", endpoint_ms)):
        print(
            f"{name:<10} | {statistics.median(values):>11.2f} | {statistics.fmean(values):>9.3f} | "
            f"{percentile(values, 95):>9.2f} | {percentile(values, 99):>9.2f}"
        )
    print("(the page's clock moves in 0.1 ms steps, so its median rounds to 0: see the mean)")
    overhead = statistics.median(endpoint_ms) - statistics.median(in_page_ms)
    print(f"endpoint overhead over the in-page call (median): {overhead:.2f} ms (target < 5 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
