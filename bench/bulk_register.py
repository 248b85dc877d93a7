"""Registering many WebMCP tools at once: the app's page (the shim, the relay that reports
the page's tools to the shell) against native Chromium 156, side by side in one run.

A trial registers N tools and awaits every registerTool() promise: all in one go ("at once"),
or one after another, each awaited before the next is asked ("in turn", what a page that
registers its tools in a loop does); it is then undone (each tool's AbortSignal) before the
next. "settled" is the time until the last
promise settled; "listed" adds one getTools() that sees all N. The app's column also shows
when the shell heard of all N (the relay's report, read in Python).

Usage: .venv/bin/python bench/bulk_register.py [trials=5] [sizes=10,100,300,1000]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)]

from harness import application, js_async, start_console, wait  # noqa: E402
from native_page import AssetServer, NativeConsole  # noqa: E402

TRIAL = """(async () => {
  const n = %d, prefix = 'bulk%d_';
  const controller = new AbortController();
  const t0 = performance.now();
  const pending = [];
  for (let i = 0; i < n; i++) {
    const one = document.modelContext.registerTool({
      name: prefix + i, description: 'Bulk tool ' + i,
      inputSchema: {type: 'object', properties: {x: {type: 'string'}}},
      execute: () => 'ok',
    }, {signal: controller.signal});
    pending.push(one);
    if (%s) await one;
  }
  await Promise.all(pending);
  const settled = performance.now() - t0;
  const tools = await document.modelContext.getTools();
  const listed = performance.now() - t0;
  const seen = tools.filter((t) => t.name.startsWith(prefix)).length;
  window.__bulkAbort = () => controller.abort();
  return [settled, listed, seen];
})()"""


def trial(n: int, k: int, in_turn: bool) -> str:
    return TRIAL % (n, k, "true" if in_turn else "false")


def trial_app(app: Any, session: Any, n: int, k: int, in_turn: bool) -> tuple[float, float, float]:
    bridge = session.window.bridge
    prefix = f"bulk{k}_"
    started = time.perf_counter()
    settled, listed, seen = js_async(app, session.window.page, trial(n, k, in_turn))
    assert seen == n, f"the app listed {seen} of {n}"
    wait(
        app,
        lambda: (
            sum(1 for t in bridge.page_tools if str(t.get("name")).startswith(prefix))
            >= min(n, 200)
        ),
        300,
        every_ms=1,
    )
    shell_ms = (time.perf_counter() - started) * 1000
    js_async(app, session.window.page, "(async () => { window.__bulkAbort(); return true; })()")
    return settled, listed, shell_ms


def trial_native(native: NativeConsole, n: int, k: int, in_turn: bool) -> tuple[float, float]:
    settled, listed, seen = native.run_async(trial(n, k, in_turn))
    assert seen == n, f"Chromium listed {seen} of {n}"
    native.run_async("(async () => { window.__bulkAbort(); return true; })()")
    return settled, listed


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    sizes = [int(s) for s in (sys.argv[2] if len(sys.argv) > 2 else "10,100,300,1000").split(",")]
    # Chromium first: started beside a running QtWebEngine it may not come up here.
    server = AssetServer()
    native = NativeConsole(server.url)
    app = application()
    session = start_console(app, Path(tempfile.mkdtemp(prefix="understudy-bulk-")))
    rows = []
    k = 0
    try:
        for in_turn in (False, True):
            for n in sizes:
                ours: list[tuple[float, float, float]] = []
                theirs: list[tuple[float, float]] = []
                for _ in range(trials):  # interleaved, so both meet the same machine
                    k += 1
                    ours.append(trial_app(app, session, n, k, in_turn))
                    k += 1
                    theirs.append(trial_native(native, n, k, in_turn))
                rows.append(("in turn" if in_turn else "at once", n, ours, theirs))
    finally:
        native.close()
        server.close()
        session.close()
    med = statistics.median
    print(f"\nRegistering N tools, median of {trials} trials (ms)\n")
    print(
        "| how | N | app: settled | native: settled | ratio | app: listed | native: listed"
        " | ratio | shell heard |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for how, n, ours, theirs in rows:
        a_s, a_l, a_h = (med(x[i] for x in ours) for i in range(3))
        n_s, n_l = (med(x[i] for x in theirs) for i in range(2))
        print(
            f"| {how} | {n:,} | {a_s:.1f} | {n_s:.1f} | {a_s / max(n_s, 0.01):.1f}x | {a_l:.1f} "
            f"| {n_l:.1f} | {a_l / max(n_l, 0.01):.1f}x | {a_h:.1f} |"
        )


if __name__ == "__main__":
    main()
