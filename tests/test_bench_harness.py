"""The cheap-path benchmark's harness, fast: one task through each arm, and every predicate
able to say "not solved"."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path[:0] = [str(BENCH / "cheap_path"), str(BENCH)]

from arms import (  # noqa: E402
    DEMO,
    reset_app,
    run_app_arm,
    run_dom_arm,
    start_app,
)
from cdm_arm import run_cdm_arm  # noqa: E402
from run import CHROMIUM_ARGS, report, serve_assets  # noqa: E402
from tasks import task_set  # noqa: E402

TASKS = task_set(json.loads(DEMO.read_text()))


def test_there_are_at_least_12_tasks_of_each_kind():
    assert len(TASKS) >= 12
    assert {t.kind for t in TASKS} == {"single", "set", "question"}


def test_every_predicate_judges_the_untouched_queue_or_a_wrong_answer_unsolved():
    demo = {t["id"]: dict(t, reply_draft="") for t in json.loads(DEMO.read_text())["tickets"]}
    for task in TASKS:
        assert not task.solved(lambda tid: demo[tid], -1), task.id


@pytest.mark.slow
def test_one_task_runs_through_every_arm(qapp, tmp_path):
    task = TASKS[0]
    session = start_app(qapp, tmp_path / "data")
    try:
        outcomes = [run_app_arm(arm, qapp, session, task) for arm in ("taught", "catalogue")]
        # A deliberately wrong end state: reset, and judge without running the task.
        reset_app(qapp, session)
        from arms import app_ticket

        assert not task.solved(app_ticket(qapp, session), None)
    finally:
        session.close()
    from playwright.sync_api import sync_playwright

    server, base = serve_assets()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS
            )
            outcomes.append(run_dom_arm(browser, base, task))
            browser.close()
        outcomes.extend(run_cdm_arm(base, [task]))
    finally:
        server.shutdown()
    assert [o.arm for o in outcomes] == ["taught", "catalogue", "dom", "cdm"]
    assert all(o.solved for o in outcomes), outcomes
    assert [o.steps for o in outcomes[:3]] == [1, len(task.catalogue), len(task.dom)]
    # chrome-devtools-mcp reads a snapshot before each action: more round trips than actions.
    assert outcomes[3].steps > len(task.dom)
    assert outcomes[0].bytes_read < outcomes[2].bytes_read < outcomes[3].bytes_read
    text = report(outcomes)
    assert "taught : dom" in text and "taught : cdm" in text
