"""What durability costs: each change committed to the database before it counts as saved.

Side by side in one run of one app, with the database on and then turned off (the shell then
acknowledges at once, which is what the app did before the queue had a saved copy):
  person's edit    one priority change from the console, until the page hears "saved"
  set-based run    a taught tool over 1,000 matching tickets, until its caller has the result
  open 100,000     File › Open queue… of a 100,000-ticket CSV, until it is saved and shown,
                   with the longest freeze of the page and of the window meanwhile
Usage: .venv/bin/python bench/durability.py [edits] [runs]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import application, js, js_async, publish_definitions, start_console, wait
from queue_scale import HEARTBEAT_JS, Heartbeat, write_csv

# A person's edit, timed in the page from the dispatch to the shell's "saved". A person's
# edits are a click or a keypress apart, so each starts 100 ms after the last was saved (back
# to back, every edit would also wait for the previous one's drawing).
EDITS = """(async () => {
  const api = window.understudyShell.api;
  const times = [];
  for (let i = 0; i < %d; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    api.dispatch('set_ticket_priority',
      {ticket_id: 'T-1001', priority: i %% 2 ? 'low' : 'high'}, 'ui');
    await api.whenSaved();
    times.push(performance.now() - t0);
  }
  return times;
})()"""

SET_TOOL = {
    "name": "prioritise_matches",
    "title": "",
    "description": "Set the priority of every ticket mentioning a phrase.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "phrase": {"type": "string", "maxLength": 200, "description": "Words."},
            "priority": {"enum": ["low", "high"], "description": "The priority."},
        },
        "required": ["phrase", "priority"],
        "additionalProperties": False,
    },
    "steps": [
        {"command": "filter_tickets", "args": {"text": {"from": "param", "name": "phrase"}}},
        {
            "command": "set_matching_priority",
            "args": {"priority": {"from": "param", "name": "priority"}},
        },
    ],
}


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def set_queue(n: int) -> dict[str, Any]:
    tickets = [
        {
            "id": f"S-{i}",
            "subject": "Bank feed stopped" if i < n else "VAT question",
            "body": "Please help.",
            "requester": "Kim <kim@example.com>",
            "created": "2026-11-20T10:00:00Z",
            "status": "open",
            "priority": "normal",
            "assignee": None,
            "tags": [],
        }
        for i in range(n + 100)
    ]
    return {"format": "understudy-queue", "version": 1, "tickets": tickets, "assignees": []}


def timed_runs(app: Any, session: Any, runs: int) -> list[float]:
    tool = session.library.callable(SET_TOOL["name"])
    times: list[float] = []
    for i in range(runs):
        answers: list[dict[str, Any]] = []
        args = {"phrase": "bank feed", "priority": "low" if i % 2 else "high"}
        t0 = time.perf_counter()
        session.calls.run(tool, args, "person", "benchmark", answers.append)
        wait(app, lambda answers=answers: bool(answers), 120)
        times.append((time.perf_counter() - t0) * 1000)
        assert answers[0].get("ok"), answers[0]
    return times


def open_big(app: Any, window: Any, path: Path) -> tuple[float, float, float]:
    js(app, window.page, HEARTBEAT_JS)
    loaded: list[int] = []
    window.queue_loaded.connect(loaded.append)
    beat = Heartbeat()
    t0 = time.perf_counter()
    window.open_queue(path, confirm=False)
    wait(app, lambda: bool(loaded), 600)
    seconds = time.perf_counter() - t0
    window_gap = beat.stop()
    window.queue_loaded.disconnect()
    page_gap = js(app, window.page, "clearInterval(window.__beat), window.__longest")
    return seconds, float(page_gap), window_gap * 1000


def main() -> int:
    edits = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    app = application()
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        session = start_console(app, Path(tmp) / "data")
        window = session.window
        store = window.keeper.store
        publish_definitions(session, [SET_TOOL], lambda p: wait(app, p, 30))
        big = Path(tmp) / "big.csv"
        write_csv(big, 100_000)
        mid = Path(tmp) / "set.json"
        mid.write_text(json.dumps(set_queue(1000)))
        for arm in ("database", "no database"):
            store.enabled = arm == "database"
            edit_ms = js_async(app, window.page, EDITS % edits)
            loaded: list[int] = []
            window.queue_loaded.connect(loaded.append)
            window.open_queue(mid, confirm=False)
            wait(app, lambda loaded=loaded: bool(loaded), 120)
            window.queue_loaded.disconnect()
            run_ms = timed_runs(app, session, runs)
            open_s, page_gap, window_gap = open_big(app, window, big)
            results[arm] = {"edit": edit_ms, "run": run_ms, "open": (open_s, page_gap, window_gap)}
            # Back to the demo queue for the next arm's edits.
            demo = Path(tmp) / "demo.json"
            demo.write_text(
                (
                    Path(__file__).resolve().parents[1] / "web_assets/data/default_queue.json"
                ).read_text()
            )
            window.queue_loaded.connect(loaded.append)
            window.open_queue(demo, confirm=False)
            wait(app, lambda loaded=loaded: len(loaded) > 1, 120)
            window.queue_loaded.disconnect()
        session.close()

    print()
    print(f"The cost of durability ({edits} edits, {runs} runs per arm; offscreen, this machine)")
    head = f"{'':<34} | {'database':>18} | {'no database':>18}"
    print(head)
    print("-" * len(head))

    def both(label: str, pick: Any) -> None:
        print(f"{label:<34} | {pick(results['database']):>18} | {pick(results['no database']):>18}")

    both("person's edit, median", lambda r: f"{statistics.median(r['edit']):.2f} ms")
    both("person's edit, p95", lambda r: f"{percentile(r['edit'], 95):.2f} ms")
    both("1,000-ticket run, median", lambda r: f"{statistics.median(r['run']):.1f} ms")
    both("1,000-ticket run, p95", lambda r: f"{percentile(r['run'], 95):.1f} ms")
    both("open 100,000 tickets", lambda r: f"{r['open'][0]:.2f} s")
    both("  longest page freeze", lambda r: f"{r['open'][1]:.0f} ms")
    both("  longest window freeze", lambda r: f"{r['open'][2]:.0f} ms")
    p95 = percentile(results["database"]["edit"], 95)
    print(
        f"person's edit p95 under one frame (16 ms): {'yes' if p95 < 16 else 'no'} ({p95:.2f} ms)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
