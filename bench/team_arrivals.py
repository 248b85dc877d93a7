"""Does the window stall while thousands of team files arrive? (issue 48)

A real app instance (offscreen) watches an empty team folder with the team window open,
while another thread puts 5,000 signed packs from 50 authors into it the way a sync service
does (written under a temporary name, then renamed into place), 1,000 a second. A 10 ms
timer on the window's thread measures how late each of its ticks comes: a late tick is the
window stalled for that long. The same is measured with nothing arriving (the machine's own
noise) and with the window closed, arms side by side in one run. Then: how long the team
window takes to open on the 5,000 tools, and how long the view takes to be worked out (on the
team's thread) once the last file is in.

Usage: .venv/bin/python bench/team_arrivals.py [files]
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from harness import application, start_console, wait
from PySide6.QtCore import QTimer
from team_library import signed_packs

from understudy_desktop.team.folder import content_name

TICK_MS = 10
ARMS = (("window open", True), ("window closed", False))


def signed_files(scratch: Path, count: int, authors: int = 50) -> list[tuple[str, bytes]]:
    return [
        (content_name(data, "tools"), data)
        for data in signed_packs(scratch, authors, count // authors)
    ]


def arrive(folder: Path, files: list[tuple[str, bytes]], per_second: int) -> threading.Thread:
    """Put the files into folder/tools as a sync service does, at `per_second`."""

    def run() -> None:
        tools = folder / "tools"
        tools.mkdir(exist_ok=True)
        started = time.monotonic()
        for n, (name, data) in enumerate(files):
            temp = tools / f".syncthing.{name}.tmp"
            temp.write_bytes(data)
            os.replace(temp, tools / name)
            ahead = started + (n + 1) / per_second - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


class Heartbeat:
    """How late each tick of a timer on the window's thread comes."""

    def __init__(self) -> None:
        self.late: list[float] = []
        self._last = time.perf_counter()
        self._timer = QTimer()
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.late.append(max(0.0, (now - self._last) * 1000 - TICK_MS))
        self._last = now

    def start(self) -> None:
        self.late.clear()
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> list[float]:
        self._timer.stop()
        return list(self.late)


def row(label: str, late: list[float], seconds: float) -> str:
    over50 = sum(1 for x in late if x > 50)
    over100 = sum(1 for x in late if x > 100)
    worst = max(late, default=0.0)
    p99 = statistics.quantiles(late, n=100)[98] if len(late) > 100 else worst
    return (
        f"| {label} | {seconds:.1f} s | {len(late):,} | {over50} | {over100} | "
        f"{p99:.0f} ms | {worst:.0f} ms |"
    )


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    app = application()
    base = Path(tempfile.mkdtemp(prefix="understudy-arrivals-"))
    try:
        t0 = time.perf_counter()
        files = signed_files(base / "authors", count)
        made = time.perf_counter() - t0
        session = start_console(app, base / "sam")
        team = session.team
        team.watcher.set_poll_ms(1000)
        beat = Heartbeat()
        rows = []

        # The machine's own noise: nothing arriving, the window open.
        empty = base / "empty"
        (empty / "tools").mkdir(parents=True)
        team.set_folder(empty)
        dialog = session.window.team_menu.show_team()
        wait(app, team.settled)
        beat.start()
        quiet_until = time.monotonic() + 5
        wait(app, lambda: time.monotonic() > quiet_until, 30)
        rows.append(row("nothing arriving, window open", beat.stop(), 5))

        for label, open_window in ARMS:
            folder = base / f"team-{int(open_window)}"
            (folder / "tools").mkdir(parents=True)
            team.set_folder(folder)
            if open_window:
                dialog = session.window.team_menu.show_team()
            else:
                dialog.close()
            # The new folder's own (empty) view, not the last one's, before anything arrives.
            wait(app, lambda: team.settled() and team.view.reachable and not team.view.tools)
            beat.start()
            started = time.monotonic()
            writer = arrive(folder, files, per_second=1000)
            wait(app, lambda w=writer: not w.is_alive(), 600)
            last_in = time.monotonic()
            wait(app, lambda: team.settled() and len(team.view.tools) >= count, 600)
            shown = time.monotonic()
            took = shown - started
            rows.append(row(f"{count:,} files arriving, {label}", beat.stop(), took))
            after = (shown - last_in) * 1000
            rows[-1] += f" {after:.0f} ms |"
        rows[0] += " – |"
        dialog.close()

        # Opening the team window on the view of all of them.
        opens = []
        for _ in range(5):
            t = time.perf_counter()
            window = session.window.team_menu.show_team()
            app.processEvents()
            opens.append((time.perf_counter() - t) * 1000)
            window.close()
            session.window.team_menu.dialog = None
            window.deleteLater()
            app.processEvents()
        print(f"\n{count:,} signed packs from 50 authors (made in {made:.1f} s)\n")
        print(
            "| arm | took | ticks | late > 50 ms | late > 100 ms | 99th percentile | worst |"
            " last file in → view shown |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for line in rows:
            print(line)
        print(
            f"\nteam window opened on {len(team.view.tools):,} tools: median "
            f"{statistics.median(opens):.0f} ms (of 5: {', '.join(f'{x:.0f}' for x in opens)})"
        )
        session.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
