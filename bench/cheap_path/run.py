"""One command for the cheap-path comparison: every task through every arm, a table, a chart.

Usage: .venv/bin/python bench/cheap_path/run.py [--tasks N] [--chart PATH]
No model is called: each arm is scripted (what an agent would do with that interface).
Arms: taught, catalogue (MCP to the app), cdm (chrome-devtools-mcp driving the page in
Chromium 156 over MCP, see cdm_arm.py) and dom (scripted Playwright, the floor).
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
from cdm_arm import run_cdm_arm  # noqa: E402
from harness import application  # noqa: E402
from tasks import task_set  # noqa: E402

ARMS = ("taught", "catalogue", "cdm", "dom")
# Issue 15's targets against the cdm arm, on every task: taught-tool time and bytes this many
# times lower.
TARGET_TIME = 20
TARGET_BYTES = 10
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
    outcomes.extend(run_cdm_arm(base, tasks))
    server.shutdown()
    return outcomes


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def total_bytes(o: Outcome) -> int:
    return o.bytes_read + o.bytes_written


def ratio(taught: float, other: float) -> str:
    """taught : other, as 1 : N (N times lower for the taught tool)."""
    return f"1:{other / taught:.1f}" if taught > 0 else "-"


def target_met(taught: Outcome, cdm: Outcome) -> bool:
    return (
        taught.solved
        and cdm.solved
        and cdm.seconds >= TARGET_TIME * taught.seconds
        and total_bytes(cdm) >= TARGET_BYTES * total_bytes(taught)
    )


def report(outcomes: list[Outcome]) -> str:
    lines = [
        "",
        "The cheap path: the same tasks through four interfaces (scripted, no model)",
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
    lines.append(
        "steps: MCP calls (round trips) for taught, catalogue and cdm; Playwright actions for dom"
    )
    taught = {o.task: o for o in by_arm["taught"]}
    for arm in ("cdm", "dom"):
        other = by_arm[arm]
        if taught and other:
            time_ratio = ratio(
                statistics.median(taught[o.task].seconds for o in other),
                statistics.median(o.seconds for o in other),
            )
            byte_ratio = ratio(
                sum(total_bytes(taught[o.task]) for o in other), sum(total_bytes(o) for o in other)
            )
            lines.append(
                f"taught : {arm:<4} time (median) {time_ratio:>8}   bytes (total) {byte_ratio:>8}"
            )
    cdm = {o.task: o for o in by_arm["cdm"]}
    dom = {o.task: o for o in by_arm["dom"]}
    if taught and cdm:
        lines += [
            "",
            f"Per task (ms, bytes read + written; target against cdm: time {TARGET_TIME}x lower, "
            f"bytes {TARGET_BYTES}x lower)",
            f"{'task':<34} | {'taught':>15} | {'cdm':>19} | {'dom':>15} | "
            f"{'taught:cdm time':>15} {'bytes':>8} {'target':>6} | {'taught:dom time':>15} "
            f"{'bytes':>7}",
            "-" * 156,
        ]

        def cell(o: Outcome | None, width: int) -> str:
            if o is None:
                return f"{'-':>{width}}"
            text = f"{o.steps}c {o.seconds * 1000:,.0f} {total_bytes(o):,}"
            return f"{text + ('' if o.solved else '!'):>{width}}"

        met = 0
        for task, t in taught.items():
            c, d = cdm.get(task), dom.get(task)
            ok = c is not None and target_met(t, c)
            met += ok
            lines.append(
                f"{task:<34} | {cell(t, 15)} | {cell(c, 19)} | {cell(d, 15)} | "
                f"{ratio(t.seconds, c.seconds) if c else '-':>15} "
                f"{ratio(total_bytes(t), total_bytes(c)) if c else '-':>8} "
                f"{'met' if ok else 'missed':>6} | "
                f"{ratio(t.seconds, d.seconds) if d else '-':>15} "
                f"{ratio(total_bytes(t), total_bytes(d)) if d else '-':>7}"
            )
        lines.append(
            f"target against cdm (time {TARGET_TIME}x, bytes {TARGET_BYTES}x lower on every "
            f"task): {'met' if met == len(taught) else 'missed'} ({met}/{len(taught)} tasks)"
        )
        lines.append("cells: steps (c), ms, bytes read + written; ! = not solved")
    lines.append("tokens are estimated as bytes / 4")
    return "\n".join(lines)


def chart(outcomes: list[Outcome], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = sorted({o.task for o in outcomes}, key=[o.task for o in outcomes].index)
    fig, (ax_time, ax_bytes) = plt.subplots(2, 1, figsize=(12, 8), sharex=True)
    arms = [a for a in ARMS if any(o.arm == a for o in outcomes)]
    width = 0.8 / len(arms)
    by_arm = {a: {o.task: o for o in outcomes if o.arm == a} for a in arms}
    for i, arm in enumerate(arms):
        rows = by_arm[arm]
        xs = [j + (i - (len(arms) - 1) / 2) * width for j in range(len(tasks))]
        # An unsolved task's bar is hatched: its cost bought nothing.
        hatch = ["//" if not rows[t].solved else "" for t in tasks]
        for ax, values in (
            (ax_time, [rows[t].seconds * 1000 for t in tasks]),
            (ax_bytes, [total_bytes(rows[t]) for t in tasks]),
        ):
            bars = ax.bar(xs, values, width, label=arm, color=f"C{i}")
            for bar, h in zip(bars, hatch, strict=True):
                bar.set_hatch(h)
    ax_time.set_ylabel("wall time (ms)")
    ax_bytes.set_ylabel("bytes read + written")
    ax_time.set_yscale("log")
    ax_bytes.set_yscale("log")
    ax_time.legend(ncol=len(arms), fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0))
    labels = tasks
    if "taught" in by_arm and "cdm" in by_arm:
        labels = [
            f"{t}\n{'met' if target_met(by_arm['taught'][t], by_arm['cdm'][t]) else 'missed'}"
            for t in tasks
        ]
    ax_bytes.set_xticks(range(len(tasks)))
    ax_bytes.set_xticklabels(labels, rotation=40, ha="right", fontsize=8)
    fig.suptitle(
        "Taught tool vs catalogue tools vs chrome-devtools-mcp (cdm) vs scripted Playwright (dom)"
        f"\nper task; under each task: target against cdm (time {TARGET_TIME}x, bytes "
        f"{TARGET_BYTES}x lower) met or missed; hatched = not solved",
        fontsize=10,
    )
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
