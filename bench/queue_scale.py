"""Load, filter and scroll times of the console for 1k / 10k / 100k tickets.

Runs the real app page in offscreen QtWebEngine. For each size it writes a CSV export, then
measures (median of several runs where cheap):
  parse    Python reads and validates the CSV (queue_io)
  open     File › Open queue… end to end: parse, hand to the page, render, store in IndexedDB
  filter   one text + status filter over the whole queue, in the page (median of 7)
  scroll   jump to the middle of the list and render the visible rows (median of 7; this
           waits for two animation frames, so ~33 ms at 60 Hz is the floor)
  page     the longest time the page could not react while opening (largest gap in a 10 ms
           heartbeat inside the page)
  window   the same for the Qt window's event loop (menus, resizing, painting)
Prints a table. Usage: .venv/bin/python bench/queue_scale.py [sizes...]
"""

from __future__ import annotations

import csv
import json
import sys
import tempfile
import time
from pathlib import Path

from harness import application, js, js_async, start_console, wait
from PySide6.QtCore import QTimer

from understudy_desktop.paths import web_assets_dir
from understudy_desktop.queue_io import load_queue_file

DEFAULT_SIZES = [1_000, 10_000, 100_000]


class Heartbeat:
    """A 10 ms QTimer; the longest gap between ticks is how long the window was frozen."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._last = time.perf_counter()
        self._timer = QTimer()
        self._timer.setInterval(10)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.longest = max(self.longest, now - self._last)
        self._last = now

    def stop(self) -> float:
        self._timer.stop()
        self._tick()
        return self.longest


def write_csv(path: Path, n: int) -> None:
    demo = json.loads((web_assets_dir() / "data" / "default_queue.json").read_text())
    names = {a["id"]: a["name"] for a in demo["assignees"]}
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "id",
                "subject",
                "description",
                "requester",
                "status",
                "priority",
                "assignee",
                "tags",
                "created",
            ]
        )
        for i in range(n):
            t = demo["tickets"][i % len(demo["tickets"])]
            w.writerow(
                [
                    f"Q-{i + 1}",
                    t["subject"],
                    t["body"],
                    t["requester"],
                    t["status"],
                    t["priority"],
                    names.get(t["assignee"] or "", ""),
                    ",".join(t["tags"]),
                    t["created"],
                ]
            )


FILTER_JS = """(() => {
  const api = window.understudyShell.api; const times = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    api.dispatch('filter_tickets', {text: i % 2 ? 'bank feed' : 'refund', status: 'open'});
    times.push(performance.now() - t0);
    api.dispatch('filter_tickets', {});
  }
  times.sort((a, b) => a - b); return times[3];
})()"""

SCROLL_JS = """new Promise((resolve) => {
  const list = document.getElementById('queue-list'); const times = []; let i = 0;
  const step = () => {
    const t0 = performance.now();
    list.scrollTop = (list.scrollHeight / 2) * (i % 2 ? 0.5 : 1);
    list.dispatchEvent(new Event('scroll'));
    requestAnimationFrame(() => { requestAnimationFrame(() => {
      times.push(performance.now() - t0);
      if (++i < 7) step(); else { times.sort((a, b) => a - b); resolve(times[3]); }
    }); });
  };
  step();
})"""

# A 10 ms heartbeat in the page: the longest gap between beats is the longest time the window
# could not react to input while the queue was opening.
HEARTBEAT_JS = """(() => { clearInterval(window.__beat); window.__longest = 0;
  let last = performance.now();
  window.__beat = setInterval(() => { const now = performance.now();
    window.__longest = Math.max(window.__longest, now - last); last = now; }, 10);
  return true; })()"""


def main() -> int:
    sizes = [int(a) for a in sys.argv[1:]] or DEFAULT_SIZES
    app = application()
    rows = []
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        session = start_console(app, Path(tmp) / "data")
        window = session.window
        for n in sizes:
            path = Path(tmp) / f"queue-{n}.csv"
            write_csv(path, n)
            t0 = time.perf_counter()
            load_queue_file(path)
            parse_s = time.perf_counter() - t0

            js(app, window.page, HEARTBEAT_JS)
            loaded: list[int] = []
            window.queue_loaded.connect(loaded.append)
            beat = Heartbeat()
            t0 = time.perf_counter()
            window.open_queue(path, confirm=False)
            wait(app, lambda loaded=loaded: bool(loaded))
            open_s = time.perf_counter() - t0
            qt_gap = beat.stop()
            window.queue_loaded.disconnect()
            assert js(app, window.page, "window.understudyShell.api.summary().tickets") == n
            longest = js(app, window.page, "clearInterval(window.__beat), window.__longest")
            filter_ms = js(app, window.page, FILTER_JS)
            scroll_ms = js_async(app, window.page, SCROLL_JS)
            rows.append((n, parse_s, open_s, filter_ms, scroll_ms, longest, qt_gap))
        session.close()
        QTimer.singleShot(0, app.quit)

    print()
    print("Queue scale (offscreen QtWebEngine, this machine)")
    print(
        f"{'tickets':>9} | {'parse (s)':>9} | {'open (s)':>8} | {'filter (ms)':>11} | "
        f"{'scroll (ms)':>11} | {'page frozen (ms)':>16} | {'window frozen (ms)':>18}"
    )
    print("-" * 104)
    for n, parse_s, open_s, filter_ms, scroll_ms, longest, qt_gap in rows:
        print(
            f"{n:>9,} | {parse_s:>9.2f} | {open_s:>8.2f} | {filter_ms:>11.1f} | "
            f"{scroll_ms:>11.1f} | {longest:>16.0f} | {qt_gap * 1000:>18.0f}"
        )
    print(
        "filter and scroll: median of 7 in the page; open includes parse, hand-over, render "
        "and the IndexedDB write."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
