"""What a taught tool costs: time from a person's Approve to the tool being callable, and
the time of one run over 1 / 100 / 1,000 / 10,000 / 100,000 matching tickets (in the shell
with no endpoint, and through the MCP endpoint with the client in its own process), with the
memory (PSS) of the app and its QtWebEngine processes after the runs.

The tool is taught once through the console's own controls: filter for a phrase, tag the
matches, set their priority; the phrase and the priority stay parameters. Runs alternate the
priority (high, low, …) so that every run really changes all matching tickets.
Usage: .venv/bin/python bench/teach_costs.py
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

from harness import (
    EDITOR_OPEN,
    application,
    client_process,
    js,
    keep_recordings,
    start_console,
    timed_calls,
    wait,
)
from startup_memory import tree_pss_mb

SIZES = [1, 100, 1_000, 10_000, 100_000]
RUNS = 3
TOOL = "tag_phrase"

TEACH = """(() => {
  const $ = (id) => document.getElementById(id);
  $('teach-button').click();
  $('filter-text').value = 'bank feed';
  $('filter-text').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}));
  $('bulk-tag-input').value = 'bank-issue';
  $('bulk-tag-form').requestSubmit();
  const p = $('bulk-priority'); p.value = 'high'; p.dispatchEvent(new Event('change'));
  $('teach-button').click();
  return true;
})()"""
PUBLISH = """(() => {
  const $ = (id) => document.getElementById(id);
  for (const b of document.querySelectorAll('#teach-panel input[id^="ask-"]')) {
    if (['phrase', 'priority'].includes(b.id.slice(4)) !== b.checked) b.click();
  }
  const n = $('draft-name'); n.value = 'tag_phrase'; n.dispatchEvent(new Event('input'));
  $('draft-publish').click();
  return true;
})()"""


def shell_runs(app, session, runs: int) -> list[float]:
    """Runs through the shell's own run path (no endpoint), each changing every match."""
    tool = session.library.callable(TOOL)
    times: list[float] = []
    for i in range(runs):
        answers: list[dict] = []
        args = {"phrase": "bank feed", "priority": "low" if i % 2 else "high"}
        t0 = time.perf_counter()
        session.calls.run(tool, args, "person", "benchmark", answers.append)
        wait(app, lambda answers=answers: bool(answers), 600, every_ms=1)
        times.append((time.perf_counter() - t0) * 1000)
        if not answers[0].get("ok"):
            raise RuntimeError(answers[0].get("message"))
    return times


def queue(n: int) -> dict:
    tickets = []
    for i in range(n + max(10, n // 10)):
        match = i < n
        tickets.append(
            {
                "id": f"B-{i}",
                "subject": "Bank feed stopped" if match else "Question about VAT",
                "body": "Please help.",
                "requester": "Kim <kim@example.com>",
                "created": "2026-11-20T10:00:00Z",
                "status": "open",
                "priority": "normal",
                "assignee": None,
                "tags": [],
            }
        )
    return {
        "format": "understudy-queue",
        "version": 1,
        "tickets": tickets,
        "assignees": [{"id": "priya", "name": "Priya Raman"}],
        "templates": [],
    }


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--client":
        calls = [
            (TOOL, {"phrase": "bank feed", "priority": "high" if i % 2 else "low"})
            for i in range(int(sys.argv[4]))
        ]
        print(json.dumps(asyncio.run(timed_calls(sys.argv[2], sys.argv[3], calls))))
        return 0
    app = application()
    rows = []
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        session = start_console(app, Path(tmp) / "data", agent=True)
        window, server = session.window, session.agent
        assert server is not None
        keeping = keep_recordings(session)
        assert js(app, window.page, TEACH) is True
        wait(app, lambda: keeping.kept > 0, 30)
        keeping.stop()
        wait(app, lambda: js(app, window.page, EDITOR_OPEN), 30)
        assert js(app, window.page, PUBLISH) is True
        gate = session.consent.gate
        wait(app, lambda: bool(gate.open_dialogs()), 20)
        started = time.perf_counter()
        gate.open_dialogs()[0].approve_button.click()
        wait(app, lambda: session.library.callable(TOOL) is not None)
        listed_ms = (time.perf_counter() - started) * 1000
        wait(app, lambda: TOOL in [t["name"] for t in window.bridge.page_tools])
        in_page_ms = (time.perf_counter() - started) * 1000
        assert session.library.callable(TOOL) is not None

        for n in SIZES:
            path = Path(tmp) / f"q{n}.json"
            path.write_text(json.dumps(queue(n)), encoding="utf-8")
            loaded: list[int] = []
            window.queue_loaded.connect(loaded.append)
            window.open_queue(path, confirm=False)
            wait(app, lambda loaded=loaded: bool(loaded))
            window.queue_loaded.disconnect()
            page_runs = shell_runs(app, session, RUNS)
            out = client_process(
                app, [sys.executable, __file__, "--client", server.url, server.token, str(RUNS)]
            )
            endpoint_runs = json.loads(out)
            # Chromium's performance.memory is bucketed; the process tree's PSS is not.
            heap_mb = tree_pss_mb(os.getpid())
            rows.append(
                (n, statistics.median(page_runs), statistics.median(endpoint_runs), heap_mb)
            )
        session.close()

    print()
    print("Taught tool costs (offscreen QtWebEngine, this machine)")
    print(f"Approve -> listed to agents (stored, in the library): {listed_ms:8.1f} ms")
    print(f"Approve -> in the page's WebMCP registration (mirror):  {in_page_ms:8.1f} ms")
    print()
    print(
        f"{'matching tickets':>16} | {'in the shell (ms)':>17} | {'run via MCP (ms)':>16} | "
        f"{'app memory (MB)':>17}"
    )
    print("-" * 76)
    for n, page_ms, endpoint_ms, heap_mb in rows:
        print(f"{n:>16,} | {page_ms:>17.1f} | {endpoint_ms:>16.1f} | {heap_mb:>17.1f}")
    print(
        f"(median of {RUNS} runs each, every run changing all matches; tool: filter a phrase,"
        " tag the matches, set their priority)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
