"""Run the tests again and again with every core kept busy: a test that waits for a guessed
delay instead of the state it needs fails here first.

Usage: .venv/bin/python tools/stress_tests.py [--runs 10] [--hogs N] [-- PYTEST ARGS]
  (default: the whole suite, 10 runs, one busy loop per core; exit 1 if any run failed)

The busy loops are processes of plain Python spinning at normal priority, as a build or a
virus scan would on a person's machine; they stop when the runs end or the script is stopped.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def spin() -> None:
    while True:
        pass


def one_run(pytest_args: list[str], keep: Path) -> tuple[int, str, float]:
    """One pytest run; its whole output goes to `keep` when it fails."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    if os.geteuid() == 0:
        env["QTWEBENGINE_DISABLE_SANDBOX"] = "1"
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *pytest_args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    output = done.stdout + done.stderr
    if done.returncode != 0:
        keep.write_text(output, encoding="utf-8")
    lines = output.strip().splitlines()
    failed = [line for line in lines if line.startswith(("FAILED", "ERROR", "Fatal"))]
    summary = (failed[0] if failed else "") or (lines[-1] if lines else "")
    return done.returncode, summary, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args()
    hogs = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.hogs)]
    for hog in hogs:
        hog.start()
    results = []
    try:
        for run in range(1, args.runs + 1):
            keep = Path(tempfile.gettempdir()) / f"understudy-stress-run-{run}.log"
            code, summary, seconds = one_run(args.pytest_args, keep)
            results.append(code)
            verdict = "passed" if code == 0 else "FAILED"
            print(f"run {run:>2}/{args.runs}  {verdict}  {seconds:7.1f} s  {summary}", flush=True)
            if code != 0:
                print(f"        its output: {keep}", flush=True)
    finally:
        for hog in hogs:
            hog.terminate()
    failures = sum(1 for code in results if code != 0)
    print(f"{len(results) - failures} of {len(results)} runs passed with {args.hogs} busy cores")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
