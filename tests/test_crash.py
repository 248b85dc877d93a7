"""A fast subset of bench/crash.py: the real app killed with SIGKILL at random moments in each
scenario, and nothing acknowledged lost, nothing there in part, the queue still the person's.
The harness is checked too: told to acknowledge without saving, it must report losses."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import crash


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    os.environ["UNDERSTUDY_CRASH_OPEN_SIZE"] = "10000"
    crash.OPEN_SIZE = 10_000
    path = tmp_path_factory.mktemp("crash")
    crash.prepare(path)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("scenario", crash.SCENARIOS)
def test_nothing_acknowledged_is_lost_when_the_app_is_killed(work, scenario):
    tally = crash.run_scenario(scenario, kills=2, work=work, seed=3, acked_first=True)
    assert tally.kills == 2
    assert tally.acked > 0, "the app acknowledged something before it was killed"
    problems = (tally.losses, tally.partial, tally.not_theirs, tally.damaged, tally.page_mismatches)
    assert problems == (0, 0, 0, 0, 0), tally.notes


@pytest.mark.slow
def test_the_harness_reports_losses_when_acknowledgements_are_not_saved(work, monkeypatch):
    monkeypatch.setenv("UNDERSTUDY_CRASH_SABOTAGE", "1")
    tally = crash.run_scenario("single", kills=2, work=work, seed=5, acked_first=True)
    assert tally.acked > 0
    assert tally.losses > 0
