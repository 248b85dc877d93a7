"""The team library's costs, measured with real app instances on one shared folder.

  notice       a folder holding 200 packs from 10 authors: from the app's start (a real
               process, the folder remembered from an earlier run) until it says "200 new
               tools from someone you do not trust yet", beside the same start without a team
               folder; and, in a
               running app, from choosing the folder until the status bar says it; the scan
               alone beside them (cold: every file read and its signature checked; warm: the
               files known, only listed, as on every later poll)
  idle CPU     CPU of the app process (all its threads) per minute while it sits idle, with
               no folder, watching the 200-pack folder and watching a 5,000-file folder, arms
               in turn, at the shipped poll interval and at a 1 s poll; and the process's
               memory with each (resident set, after a collection)
  share        one instance shares a tool; time until the other's notice, through the file
               system's notification (a local or synced folder) and through polling alone
               (a network file system that never notifies), at the shipped interval
Usage: .venv/bin/python bench/team_library.py [rounds]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness import application, start_console, wait
from proc_cpu import cpu_seconds, stat_path

from understudy_desktop.agent.runtime_file import read_runtime
from understudy_desktop.store.database import Database
from understudy_desktop.store.settings import Settings
from understudy_desktop.team.folder import RELIST_S, FolderReader, write_shared
from understudy_desktop.team.identity import Identity
from understudy_desktop.team.watcher import POLL_MS

GOOD = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "packs"
PACK = json.loads((GOOD / "good.understudy-pack.json").read_text())


def pack_for(author: str, index: int) -> dict[str, Any]:
    pack = json.loads(json.dumps(PACK))
    pack["author"] = author
    pack["tools"][0]["name"] = f"assign_refund_{index}"
    pack["tools"][0]["description"] = f"Assign a refund ticket to Priya (variant {index})."
    return pack


def signed_packs(scratch: Path, authors: int, each: int) -> Iterator[bytes]:
    """`each` signed packs from each of `authors` authors, every author a key of their own."""
    for a in range(authors):
        root = scratch / f"author-{a}-{authors}x{each}"
        root.mkdir(parents=True)
        db = Database(root)
        try:
            who = Identity(root, Settings(db), use_keyring=False)
            for i in range(each):
                yield who.sign(pack_for(f"Author {a}", a * each + i))
        finally:
            db.close()


def fill(folder: Path, scratch: Path, authors: int = 10, each: int = 20) -> None:
    for data in signed_packs(scratch, authors, each):
        write_shared(folder, "tools", data)


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:,.0f} ms"


def idle_wait(app: Any, predicate: Any, timeout_s: float) -> None:
    """Wait as the app's own event loop does, mostly asleep: a loop that spins on
    processEvents() holds the GIL and starves the scan's worker thread."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("benchmark step timed out")
        app.processEvents()
        time.sleep(0.001)


def time_notice(app: Any, session: Any, folder: Path, want: int) -> float:
    team = session.team
    team.set_folder(None)
    t0 = time.perf_counter()
    team.set_folder(folder)
    idle_wait(app, lambda: team.status.startswith(f"{want} new tool"), 120)
    return time.perf_counter() - t0


def idle_cpu(app: Any, seconds: float) -> float:
    """CPU seconds per minute of this process (every thread) while the event loop idles."""
    me = stat_path(os.getpid())
    start, t0 = cpu_seconds(me), time.monotonic()
    deadline = t0 + seconds
    while time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.02)
    return (cpu_seconds(me) - start) / (time.monotonic() - t0) * 60


def rss_mb() -> float:
    """This process's resident memory, after a collection."""
    import gc

    gc.collect()
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def share_to_notice(app: Any, sharer: Any, watcher: Any, index: int) -> float:
    team = watcher.team
    before = len(team.view.offered)
    t0 = time.perf_counter()
    write_shared(team.folder, "tools", sharer.sign(pack_for("Dana Ortiz", 1000 + index)))
    idle_wait(app, lambda: len(team.view.offered) > before, 120)
    return time.perf_counter() - t0


def started_until(data: Path, said: str | None, *args: str) -> tuple[float, float]:
    """Seconds from launching the app process until the console is ready and the endpoint
    listens, and until its log says `said` (0 when None)."""
    log = data / "logs" / "understudy.log"
    log.unlink(missing_ok=True)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    t0 = time.perf_counter()
    app = subprocess.Popen(
        [sys.executable, "-m", "understudy_desktop", "--data-dir", str(data), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    ready = noticed = 0.0
    try:
        while not ready or (said is not None and not noticed):
            now = time.perf_counter() - t0
            runtime = read_runtime(data)
            if not ready and runtime is not None and runtime.pid == app.pid:
                ready = now
            text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
            if said is not None and not noticed and said in text:
                noticed = now
            if now > 120:
                raise TimeoutError("the app did not get there")
            time.sleep(0.01)
        return ready, noticed
    finally:
        app.terminate()
        app.wait(timeout=60)


def start_arms(
    base: Path, folder: Path, rounds: int
) -> tuple[list[float], list[float], list[float]]:
    """The app's start with no team folder, and with the 200-pack folder remembered, in turn:
    console ready without a folder, console ready with one, and the notice."""
    plain, team = base / "start-plain", base / "start-team"
    started_until(plain, None)
    started_until(team, "200 new tools", "--team-folder", str(folder))  # remembers it
    bare, ready, noticed = [], [], []
    for _ in range(rounds):
        bare.append(started_until(plain, None)[0])
        with_folder, notice = started_until(team, "200 new tools from someone")
        ready.append(with_folder)
        noticed.append(notice)
    return bare, ready, noticed


class Member:
    def __init__(self, session: Any) -> None:
        self.session = session
        self.team = session.team


def print_notice(app: Any, base: Path, folder: Path, rounds: int) -> Member:
    t0 = time.perf_counter()
    fill(folder, base / "authors")
    made = time.perf_counter() - t0
    bare, ready, started = start_arms(base, folder, rounds)
    sam = Member(start_console(app, base / "sam"))
    notices = [time_notice(app, sam.session, folder, 200) for _ in range(rounds)]
    cold = [FolderReader().scan(folder).took_s for _ in range(rounds)]
    reader = FolderReader()
    reader.scan(folder)
    warm = [reader.scan(folder).took_s for _ in range(rounds * 4)]
    print(f"\n200 packs from 10 authors (written and signed in {made:.1f} s)\n")
    print("| measure | median |")
    print("|---|---:|")
    print(f"| app start → console ready, no team folder | {median_ms(bare)} |")
    print(f"| app start → console ready, watching the folder | {median_ms(ready)} |")
    print(f"| app start → “200 new tools from …” shown | {median_ms(started)} |")
    print(f"| folder chosen → “200 new tools from …” shown | {median_ms(notices)} |")
    print(f"| scan, cold (read and check all 200) | {median_ms(cold)} |")
    print(f"| scan, warm (nothing added or removed: folder times only) | {median_ms(warm)} |")
    return sam


def print_poll_costs(big: Path) -> None:
    """What one poll of the 5,000-file folder costs on the scan's thread, timed directly: the
    usual poll (nothing added or removed) and the once-a-minute full listing."""
    now = [time.time() + 10]
    reader = FolderReader(clock=lambda: now[0])
    reader.scan(big)
    quick, full = [], []
    for _ in range(20):
        quick.append(reader.scan(big).took_s)
        now[0] += RELIST_S + 1
        full.append(reader.scan(big).took_s)
    print("\nOne poll of the 5,000-file folder, on the scan's thread (20 of each)\n")
    print("| poll | median | per minute at the shipped interval |")
    print("|---|---:|---:|")
    per_minute = 60_000 / POLL_MS
    q, f = statistics.median(quick), statistics.median(full)
    print(
        f"| nothing added or removed (folder times only) | {q * 1e6:,.0f} µs | "
        f"{q * (per_minute - 1) * 1000:,.1f} ms |"
    )
    print(f"| full listing (once a minute) | {f * 1000:,.1f} ms | {f * 1000:,.1f} ms |")


def print_idle(app: Any, sam: Member, folder: Path, big: Path) -> None:
    seconds = 30.0
    idle_cpu(app, 10)  # let the page finish drawing what the notices changed
    arms: dict[str, list[float]] = {k: [] for k in ("none", "200", "5000", "5000 fast")}
    memory: dict[str, list[float]] = {k: [] for k in ("none", "200", "5000")}
    for _ in range(3):  # the arms take turns, three times, so a busy moment hits all alike
        sam.team.set_folder(None)
        idle_cpu(app, 3)
        arms["none"].append(idle_cpu(app, seconds))
        memory["none"].append(rss_mb())
        for name, where in (("200", folder), ("5000", big)):
            sam.team.set_folder(where)
            wait(app, lambda n=name: sam.team.status.startswith(f"{n} new"), 120)
            idle_cpu(app, 3)  # the first scan and the window's redraw are not idle
            arms[name].append(idle_cpu(app, seconds))
            memory[name].append(rss_mb())
        sam.team.watcher.set_poll_ms(1000)
        arms["5000 fast"].append(idle_cpu(app, seconds))
        sam.team.watcher.set_poll_ms(POLL_MS)
    none = statistics.median(arms["none"])
    print(f"\nIdle CPU of the app process: {seconds:.0f} s per arm, arms in turn, 3 times\n")
    print("| watching | CPU per minute | vs no folder | memory (RSS) |")
    print("|---|---:|---:|---:|")
    rows = (
        ("no team folder", "none", "none"),
        (f"200 packs, poll every {POLL_MS / 1000:.0f} s (shipped)", "200", "200"),
        (f"5,000 packs, poll every {POLL_MS / 1000:.0f} s (shipped)", "5000", "5000"),
        ("5,000 packs, poll every 1 s", "5000 fast", "5000"),
    )
    for label, arm, mem in rows:
        cpu = statistics.median(arms[arm])
        print(
            f"| {label} | {cpu * 1000:,.0f} ms | {cpu / none:.2f} | "
            f"{statistics.median(memory[mem]):,.0f} MB |"
        )


def print_share(app: Any, base: Path, sam: Member, folder: Path, big: Path, rounds: int) -> None:
    db = Database(base / "dana")
    try:
        dana = Identity(base / "dana", Settings(db), use_keyring=False)
        sam.team.set_folder(folder)
        wait(app, lambda: sam.team.status.startswith("200 new"), 120)
        notified = [share_to_notice(app, dana, sam, i) for i in range(rounds)]
        sam.team.set_folder(big)
        wait(app, lambda: sam.team.status.startswith("5000 new"), 120)
        notified_big = [share_to_notice(app, dana, sam, 500 + i) for i in range(rounds)]
        # A network file system that never notifies: the poll alone finds it.
        sam.team.watcher._fs.removePaths(sam.team.watcher._fs.directories())
        sam.team.watcher._rewatch = lambda _scan: None  # type: ignore[method-assign]
        polled = [share_to_notice(app, dana, sam, 100 + i) for i in range(max(2, rounds // 2))]
    finally:
        db.close()
    print("\nA share on one instance → the notice on the other\n")
    print("| folder | median | worst |")
    print("|---|---:|---:|")
    for label, times in (
        ("notifies (local or synced folder), 200 packs", notified),
        ("notifies, 5,000 packs", notified_big),
        (f"never notifies (network share), 5,000 packs, poll every {POLL_MS / 1000:.0f} s", polled),
    ):
        print(f"| {label} | {median_ms(times)} | {max(times) * 1000:,.0f} ms |")


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    app = application()
    with tempfile.TemporaryDirectory(prefix="understudy-team-bench-") as tmp:
        base = Path(tmp)
        folder = base / "team"
        folder.mkdir()
        sam = print_notice(app, base, folder, rounds)
        big = base / "team-5000"
        big.mkdir()
        fill(big, base / "authors", authors=50, each=100)
        print_poll_costs(big)
        print_idle(app, sam, folder, big)
        print_share(app, base, sam, folder, big, rounds)
        sam.session.close()


if __name__ == "__main__":
    main()
