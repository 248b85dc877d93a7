"""A full disk during work: the change is refused in words (not SQLite's), the footer says
"Not saved: …", and once space is freed saving works again by itself, and the footer says
so without the person changing anything. Runs on a real small disk (a tmpfs)."""

from __future__ import annotations

import pytest
from conftest import start_console
from small_disk import fill, mounted

# The page's own cache (IndexedDB) cannot save on a full disk either, and says so.
pytestmark = [pytest.mark.slow, pytest.mark.js_errors_expected]


@pytest.fixture
def small_disk(tmp_path):
    with mounted(tmp_path / "disk", "160m") as disk:
        yield disk


def footer(console) -> str:
    return str(console.js("document.getElementById('save-state').textContent"))


def test_saving_resumes_by_itself_when_space_returns(qtbot, small_disk):
    console = start_console(qtbot, small_disk / "data")
    try:
        console.flush()
        # An empty write-ahead log: the next change needs new room on the disk (SQLite
        # reuses a log's old room, so a small change would still fit without this).
        console.session.db.read("PRAGMA wal_checkpoint(TRUNCATE)")
        fill(small_disk)
        console.dispatch("set_ticket_priority", {"ticket_id": "T-1005", "priority": "low"}, "ui")
        qtbot.waitUntil(lambda: footer(console).startswith("Not saved"))
        said = footer(console)
        assert "full" in said, said
        assert not any(raw in said.lower() for raw in ("sqlite", "i/o error", "database or"))
        (small_disk / "filler").unlink()
        qtbot.waitUntil(lambda: footer(console) == "All changes saved")
        console.dispatch("set_ticket_priority", {"ticket_id": "T-1005", "priority": "urgent"})
        qtbot.waitUntil(
            lambda: console.window.keeper.store.rows(["T-1005"])["T-1005"]["priority"] == "urgent",
        )
    finally:
        console.session.close()
