"""The mutation gate itself (tools/mutants.py, run by ./run-tests): its list cannot rot, and
a mutant no test catches fails the gate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import mutants  # noqa: E402


def test_every_kept_mutant_changes_exactly_one_place():
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "mutants.py"), "--check-list"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert mutants.check_list(mutants.MUTANTS) == []
    # Each part of the core the issue names has mutants of its own.
    files = {m.file for m in mutants.MUTANTS}
    parts = (
        "consent/",
        "library/",
        "team/signing.py",
        "team/inbox.py",
        "team/trust.py",
        "team/library_service.py",
        "agent/results.py",
        "helpdesk/outbox.py",
        "helpdesk/tables.py",
        "store/helpdesk_tables.py",
        "helpdesk/sync.py",
        "model/history.py",
        "model/tables.py",
        "web/scheme.py",
        "approval/wording.py",
    )
    for part in parts:
        assert any(part in f for f in files), part


def test_a_mutant_found_twice_or_not_at_all_is_a_broken_list():
    twice = mutants.Mutant("x", "understudy_desktop/library/may_run.py", "return", "pass", ())
    gone = mutants.Mutant("y", "understudy_desktop/library/may_run.py", "no such", "x", ())
    assert [p.split(":")[0] for p in mutants.check_list((twice, gone))] == ["x", "y"]


@pytest.mark.slow
def test_a_mutant_no_test_catches_fails_the_gate(capsys):
    # Changing a docstring breaks no rule: the refusal tests pass, so it "survives".
    harmless = mutants.Mutant(
        "harmless",
        "understudy_desktop/library/may_run.py",
        '"""The tool\'s approval as the database holds it now (inside a transaction)."""',
        '"""Changed."""',
        mutants.refusals("may_not_run"),
    )
    assert mutants.gate((harmless,), jobs=1) == 1
    assert "SURVIVED: harmless" in capsys.readouterr().err
