"""A fast subset of bench/helpdesk_crash.py: the real app killed with SIGKILL while it sends
changes to a real Request Tracker, then RT's own history read: nothing acknowledged lost,
nothing sent twice. The harness is checked too: told to acknowledge without the outbox, it
must report losses."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpdesk_helpers import needs_rt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import helpdesk_crash

pytestmark = [pytest.mark.slow, needs_rt]


def test_no_change_is_lost_or_sent_twice_when_the_app_is_killed(rt_server, tmp_path):
    """Eight lives: among them RT killed and back, the token revoked and replaced, and the
    person connecting again (lives 1, 4 and 7 of every 9 have their bad day)."""
    tally = helpdesk_crash.run(8, tmp_path, rt_server, seed=3)
    assert tally.kills == 8
    assert (tally.rt_restarts, tally.token_changes, tally.reconnects) == (1, 1, 1), tally
    assert tally.acked > 0 and tally.sent_to_rt > 0, tally
    assert (tally.lost, tally.duplicated, tally.unsettled) == (0, 0, 0), tally.notes
    assert any("emptied the outbox" in note for note in tally.notes), tally.notes


def test_the_harness_reports_losses_when_changes_skip_the_outbox(rt_server, tmp_path, monkeypatch):
    monkeypatch.setenv("UNDERSTUDY_HELPDESK_SABOTAGE", "1")
    tally = helpdesk_crash.run(2, tmp_path, rt_server, seed=5)
    assert tally.acked > 0
    assert tally.lost > 0
