"""Start-up time and memory of the whole app.

Start-up: launch `python -m understudy_desktop` (offscreen) and time
  ready     until agent.json is written (the console is ready and the endpoint listens), and
  listed    until the MCP client lists the meta-tools,
cold (a fresh data dir each time) and warm (the same data dir again); median of 5 each.

Memory: the proportional set size (PSS) of the app and all its QtWebEngine processes together,
idle on the demo queue and after opening a 100,000-ticket queue.
Usage: .venv/bin/python bench/startup_memory.py
"""

from __future__ import annotations

import asyncio
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2
from harness import application, start_console, wait
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from understudy_desktop.agent.runtime_file import read_runtime

RUNS = 5
IDLE_S = 3.0  # how long a started app idles before its memory is read
META = "understudy_draft_tool"


async def list_names(url: str, token: str) -> list[str]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):
        return [t.name for t in (await client.list_tools()).tools]


def launch(
    data_dir: Path, command: list[str] | None = None, idle: list[float] | None = None
) -> tuple[float, float]:
    """Seconds until agent.json is written and until the meta-tools are listed. With `idle`,
    the app then idles IDLE_S and the PSS of its process tree (MB) is appended to it."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    t0 = time.perf_counter()
    app = subprocess.Popen(
        [*(command or [sys.executable, "-m", "understudy_desktop"]), "--data-dir", str(data_dir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        while (runtime := read_runtime(data_dir)) is None or runtime.pid != app.pid:
            if time.perf_counter() - t0 > 120:
                raise TimeoutError("the app did not start")
            time.sleep(0.01)
        ready = time.perf_counter() - t0
        while META not in asyncio.run(list_names(runtime.url, runtime.token)):
            time.sleep(0.01)
        listed = time.perf_counter() - t0
        if idle is not None:
            time.sleep(IDLE_S)
            idle.append(tree_pss_mb(app.pid))
    finally:
        app.terminate()
        app.wait(30)
    return ready, listed


def tree_pss_mb(root_pid: int) -> float:
    """Proportional set size of a process and all its descendants, from /proc (Linux): shared
    pages (Qt and Chromium libraries) are split between the processes instead of counted in
    each, so the sum is what the app really occupies."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    total_kb, todo = 0, [root_pid]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
        except OSError:
            continue
    return total_kb / 1024


def memory() -> tuple[float, float]:
    app = application()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        session = start_console(app, Path(tmp) / "data")
        end = time.monotonic() + 3
        wait(app, lambda: time.monotonic() > end)
        idle = tree_pss_mb(os.getpid())
        demo = json.loads(
            (
                Path(__file__).resolve().parent.parent / "web_assets/data" / "default_queue.json"
            ).read_text()
        )
        path = Path(tmp) / "big.csv"
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["id", "subject", "body", "status", "priority", "created"])
            for i in range(100_000):
                t = demo["tickets"][i % 40]
                writer.writerow(
                    [f"B-{i}", t["subject"], t["body"], t["status"], t["priority"], t["created"]]
                )
        loaded: list[int] = []
        session.window.queue_loaded.connect(loaded.append)
        session.window.open_queue(path, confirm=False)
        wait(app, lambda: bool(loaded), 300)
        end = time.monotonic() + 3
        wait(app, lambda: time.monotonic() > end)
        big = tree_pss_mb(os.getpid())
        session.close()
    return idle, big


def frozen(app_path: str) -> int:
    """Cold start of a frozen build (installer/build calls this)."""
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        runs = [launch(Path(tmp) / f"d{i}", [app_path]) for i in range(3)]
    print(
        f"frozen app cold start: endpoint up {statistics.median(r[0] for r in runs):.2f} s, "
        f"tools listed {statistics.median(r[1] for r in runs):.2f} s (median of 3)"
    )
    return 0


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--frozen":
        return frozen(sys.argv[2])
    cold, warm = [], []
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        for i in range(RUNS):
            cold.append(launch(Path(tmp) / f"cold-{i}"))
        for _ in range(RUNS):
            warm.append(launch(Path(tmp) / "cold-0"))
    idle, big = memory()
    print()
    print(f"Start-up (offscreen, this machine; median of {RUNS})")
    print(f"{'':<6} | {'endpoint up (s)':>17} | {'meta-tools listed (s)':>21}")
    print("-" * 52)
    for label, runs in (("cold", cold), ("warm", warm)):
        print(
            f"{label:<6} | {statistics.median(r[0] for r in runs):>17.2f} | "
            f"{statistics.median(r[1] for r in runs):>21.2f}"
        )
    print()
    print("Memory: proportional set size of the app and all its QtWebEngine processes")
    print(f"idle, demo queue (40 tickets): {idle:8.0f} MB")
    print(f"after opening 100,000 tickets: {big:8.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
