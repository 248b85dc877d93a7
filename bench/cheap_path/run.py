"""One command for the cheap-path comparison: every task through every arm, a table, a chart.

Usage: .venv/bin/python bench/cheap_path/run.py [--tasks N] [--chart PATH]
No model is called: each arm is scripted (what an agent would do with that interface).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import statistics
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from arms import ROOT, Outcome, run_app_arm, run_dom_arm, start_app  # noqa: E402
from harness import application  # noqa: E402
from tasks import task_set  # noqa: E402

ARMS = ("taught", "catalogue", "dom")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def serve_assets() -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(ROOT / "web_assets"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def run_all(limit: int | None = None) -> list[Outcome]:
    demo = json.loads((ROOT / "web_assets/data/default_queue.json").read_text())
    tasks = task_set(demo)[:limit] if limit else task_set(demo)
    outcomes: list[Outcome] = []
    app = application()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        session = start_app(app, Path(tmp) / "data")
        for arm in ("taught", "catalogue"):
            outcomes.extend(run_app_arm(arm, app, session, t) for t in tasks)
        session.close()
    from playwright.sync_api import sync_playwright

    server, base = serve_assets()
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS
        )
        outcomes.extend(run_dom_arm(browser, base, t) for t in tasks)
        browser.close()
    server.shutdown()
    return outcomes


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def report(outcomes: list[Outcome]) -> str:
    lines = [
        "",
        "The cheap path: the same tasks through three interfaces (scripted, no model)",
        f"{'arm':<10} | {'solved':>7} | {'steps':>5} | {'median s':>8} | {'p95 s':>6} | "
        f"{'bytes read':>10} | {'written':>7} | {'~tokens':>8}",
        "-" * 82,
    ]
    by_arm = {a: [o for o in outcomes if o.arm == a] for a in ARMS}
    for arm, rows in by_arm.items():
        if not rows:
            continue
        times = [o.seconds for o in rows]
        read = sum(o.bytes_read for o in rows)
        written = sum(o.bytes_written for o in rows)
        lines.append(
            f"{arm:<10} | {sum(o.solved for o in rows):>3}/{len(rows):<3} | "
            f"{sum(o.steps for o in rows):>5} | {statistics.median(times):>8.3f} | "
            f"{p95(times):>6.3f} | {read:>10,} | {written:>7,} | {(read + written) // 4:>8,}"
        )
    taught, dom = by_arm["taught"], by_arm["dom"]
    if taught and dom:
        time_ratio = statistics.median(o.seconds for o in taught) / statistics.median(
            o.seconds for o in dom
        )
        byte_ratio = sum(o.bytes_read + o.bytes_written for o in taught) / sum(
            o.bytes_read + o.bytes_written for o in dom
        )
        lines.append(f"taught : DOM  time (median) {time_ratio:.2f}   bytes {byte_ratio:.2f}")
    lines.append("tokens are estimated as bytes / 4")
    return "\n".join(lines)


def chart(outcomes: list[Outcome], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = sorted({o.task for o in outcomes}, key=[o.task for o in outcomes].index)
    fig, (ax_time, ax_bytes) = plt.subplots(2, 1, figsize=(11, 7), sharex=True)
    width = 0.27
    for i, arm in enumerate(ARMS):
        rows = {o.task: o for o in outcomes if o.arm == arm}
        xs = [j + (i - 1) * width for j in range(len(tasks))]
        ax_time.bar(xs, [rows[t].seconds * 1000 for t in tasks], width, label=arm)
        ax_bytes.bar(
            xs, [rows[t].bytes_read + rows[t].bytes_written for t in tasks], width, label=arm
        )
    ax_time.set_ylabel("wall time (ms)")
    ax_bytes.set_ylabel("bytes read + written")
    ax_time.set_yscale("log")
    ax_bytes.set_yscale("log")
    ax_time.legend()
    ax_bytes.set_xticks(range(len(tasks)))
    ax_bytes.set_xticklabels(tasks, rotation=40, ha="right", fontsize=8)
    fig.suptitle("Taught tool vs catalogue tools vs DOM driving, per task")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=None)
    parser.add_argument("--chart", type=Path, default=ROOT / "docs" / "cheap-path.png")
    args = parser.parse_args()
    outcomes = run_all(args.tasks)
    print(report(outcomes))
    chart(outcomes, args.chart)
    print(f"chart: {args.chart}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
