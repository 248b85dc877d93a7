"""Run the time-sensitive tests again and again with every core kept busy: a test that waits
for a guessed delay instead of the state it needs fails here first.

Usage: .venv/bin/python tools/stress_tests.py [--runs 3] [--hogs N] [--whole] [-- PYTEST ARGS]
  (default: the files in TIME_SENSITIVE, 3 runs, one busy loop per core; --whole: the whole
  suite instead; every run goes to its end, and the last lines list every failure; exit 1 if
  any run failed)

The busy loops are processes of plain Python spinning at normal priority, as a build or a
virus scan would on a person's machine; they stop when the runs end or the script is stopped
(Ctrl+C or kill), and so does the run under way, with what it started.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The test files that wait on something outside the test's own thread: another process, a Qt
# timer, the network, a real server. Each with why. tests/test_stress_list.py keeps this list
# from rotting: every test file that waits on those is here or in NOT_TIME_SENSITIVE.
TIME_SENSITIVE: tuple[tuple[str, str], ...] = (
    ("tests/test_agent_endpoint.py", "MCP calls over HTTP, runs behind a held database"),
    ("tests/test_stdio_proxy.py", "the proxy's process, and the app processes it starts"),
    ("tests/test_proxy_waits.py", "the proxy waits for an app starting in another process"),
    ("tests/test_cli_process.py", "app processes started, asked and stopped"),
    ("tests/test_team_processes.py", "three app processes over one team folder"),
    ("tests/test_shell_authority.py", "app processes killed at random moments, MCP calls"),
    ("tests/test_store.py", "a writing process killed mid-write; the writer thread"),
    ("tests/test_hostile_page.py", "runs waiting behind a busy database while tools close"),
    ("tests/test_cancelled_runs.py", "runs cancelled while they wait their turn"),
    ("tests/test_consent_e2e.py", "MCP calls waiting on the consent dialog"),
    ("tests/test_run_notice.py", "an agent's run and the notice it leaves"),
    ("tests/test_native_mode.py", "MCP calls to the page's own WebMCP"),
    ("tests/test_recordings_paging.py", "MCP calls that page through recordings"),
    ("tests/test_page_pace.py", "the bridge's pace timer under a flood, an agent call meanwhile"),
    ("tests/test_page_stays.py", "reloads, a killed renderer, the channel coming back"),
    ("tests/test_durable_queue.py", "saves on timers, agent calls, restarts"),
    ("tests/test_gc_on_main.py", "the collector kept on the Qt thread by a timer"),
    ("tests/test_reply_typed.py", "the typing notice's expiry"),
    ("tests/test_draft_without_page.py", "agents' drafts while the page never answers"),
    ("tests/test_teach_e2e.py", "agent calls on taught tools, dialogs step by step"),
    ("tests/test_open_progress.py", "a big file read on a thread, with progress and Stop"),
    ("tests/test_team_library.py", "the team folder's watcher: file events, polls, scans"),
    ("tests/test_team_lead.py", "the team folder's watcher across several consoles"),
    (
        "tests/test_team_over_time.py",
        "the team's thread and watcher across consoles, the lead's confirmations",
    ),
    ("tests/test_team_syncthing.py", "two real Syncthing processes"),
    ("tests/test_helpdesk_rt.py", "a real Request Tracker"),
    ("tests/test_helpdesk_in_app.py", "a real Request Tracker, synced from the app"),
    ("tests/test_helpdesk_bad_day.py", "a real Request Tracker behind a failing proxy"),
    ("tests/test_helpdesk_reconnect.py", "a real Request Tracker going away and back"),
    ("tests/test_helpdesk_departures.py", "a real Request Tracker, tickets moved away"),
    ("tests/test_helpdesk_crash.py", "a real Request Tracker and a killed app process"),
    ("tests/test_secrets_stay_out.py", "a real Request Tracker asked from a dialog"),
)

# Test files that use the same means (a Qt wait, a process, a server) where timing is not at
# stake, each with why; the whole suite (--whole) runs them under load too.
NOT_TIME_SENSITIVE: tuple[tuple[str, str], ...] = (
    ("tests/test_accessibility.py", "waits only for the page to draw"),
    ("tests/test_app_basics.py", "waits only for the page to draw or a dialog to open"),
    ("tests/test_background_job.py", "one worker thread the test itself releases"),
    ("tests/test_bootstrap.py", "runs the set-up scripts against fake package answers"),
    ("tests/test_change_feed.py", "waits only for the page to draw a change"),
    ("tests/test_command_bus.py", "waits only for the page to draw"),
    ("tests/test_consent.py", "one wait for a dialog to open"),
    ("tests/test_console_boot.py", "waits only for the page to load"),
    ("tests/test_draft_parity.py", "one Node process comparing the two drafters"),
    ("tests/test_drift.py", "waits only for the page to draw"),
    ("tests/test_helpdesk_macros.py", "a fake helpdesk in the test's process"),
    ("tests/test_installer.py", "builds for minutes: the whole suite runs it"),
    ("tests/test_limits_from_rules.py", "app processes reading another rules file, to their end"),
    ("tests/test_model_parity.py", "one Node process comparing two models"),
    ("tests/test_mutation_gate.py", "runs pytest on a copy; the gate's own time"),
    ("tests/test_packaging.py", "builds and installs a wheel"),
    ("tests/test_packs.py", "a process only to read a file's bytes"),
    ("tests/test_packs_in_app.py", "waits only for dialogs to open and close"),
    ("tests/test_plain_words.py", "waits only for the page and dialogs to draw"),
    ("tests/test_platform_recipes.py", "runs the recipes' scripts to their end"),
    ("tests/test_publish_compiled.py", "waits only for dialogs and the page"),
    ("tests/test_queue_in_app.py", "waits only for a file to be read and drawn"),
    ("tests/test_queue_preview.py", "waits only for a dialog to close"),
    ("tests/test_refusals.py", "waits only for answers to the person's commands"),
    ("tests/test_refusals_said.py", "waits only for answers to the person's commands"),
    ("tests/test_repair_parity.py", "one Node process comparing the two repairs"),
    ("tests/test_rule_parity.py", "one Node process comparing the rules"),
    ("tests/test_screen_fit.py", "one process drawing the dialogs at 150%"),
    ("tests/test_selection_run.py", "waits only for a dialog and the page to draw"),
    ("tests/test_shell.py", "waits only for the page, the menus and dialogs"),
    ("tests/test_start_problems.py", "app processes that stop at once with a message"),
    ("tests/test_storage_recovers.py", "waits only for the page to draw"),
    ("tests/test_stress_list.py", "names these means in its pattern; waits on nothing"),
    ("tests/test_theme.py", "one process drawing the console"),
    ("tests/test_thread_errors_fail.py", "one pytest process on a test that fails at once"),
    ("tests/test_ticket_tools.py", "waits only for the page to draw"),
    ("tests/test_waits_said.py", "reads the tests' source; waits on nothing"),
    ("tests/test_webmcp_conformance.py", "native Chromium for minutes: the whole suite runs it"),
)


def spin() -> None:
    while True:
        pass


def one_run(pytest_args: list[str], keep: Path) -> tuple[int, list[str], str, float]:
    """One pytest run to its end (no -x); its whole output goes to `keep`, passed or not.
    Returns its exit status, its failures (pytest's -ra lines), its last line and seconds."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    if os.geteuid() == 0:
        env["QTWEBENGINE_DISABLE_SANDBOX"] = "1"
    started = time.monotonic()
    # In a process group of its own: stopping this script stops the run and what it started
    # (an installer build, app processes), not only pytest.
    with subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-ra", "-p", "no:cacheprovider", *pytest_args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    ) as run:
        try:
            output, _ = run.communicate()
        finally:
            if run.poll() is None:
                os.killpg(run.pid, signal.SIGKILL)
                run.wait()
    keep.write_text(output, encoding="utf-8")
    lines = output.strip().splitlines()
    failed = [line for line in lines if line.startswith(("FAILED", "ERROR", "Fatal"))]
    return run.returncode, failed, (lines[-1] if lines else ""), time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--whole", action="store_true", help="the whole suite, not the list")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args()
    # Stopped with `kill`, as with Ctrl+C: the runs and the busy loops are stopped on the way out.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(143))
    files = [] if args.whole else [name for name, _why in TIME_SENSITIVE]
    kind = "whole" if args.whole else "list"
    hogs = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.hogs)]
    for hog in hogs:
        hog.start()
    results: list[tuple[int, list[str]]] = []
    try:
        for run in range(1, args.runs + 1):
            keep = Path(tempfile.gettempdir()) / f"understudy-stress-{kind}-{run}.log"
            code, failed, last, seconds = one_run([*files, *args.pytest_args], keep)
            results.append((code, failed))
            verdict = "passed" if code == 0 else "FAILED"
            print(f"run {run:>2}/{args.runs}  {verdict}  {seconds:7.1f} s  {last}", flush=True)
            print(f"        its output: {keep}", flush=True)
    finally:
        for hog in hogs:
            hog.terminate()
    failures = sum(1 for code, _failed in results if code != 0)
    what = "the whole suite" if args.whole else f"{len(files)} time-sensitive files"
    print(f"{len(results) - failures} of {len(results)} runs of {what} passed", end="")
    print(f" with {args.hogs} busy cores")
    for run, (_code, failed) in enumerate(results, start=1):
        for line in failed:
            print(f"run {run}: {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
