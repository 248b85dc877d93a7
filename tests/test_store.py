"""Procedures on disk: atomic writes, quarantine, migration, and staying in step with the
page's IndexedDB."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from agent_helpers import mcp_client, run_client
from test_teach_e2e import publish_from_editor, teach_assign_refund

from understudy_desktop.store.procedure_store import ProcedureStore

GOOD_TOOL = {
    "fileVersion": 1,
    "name": "assign_refund",
    "revision": 3,
    "definition": {
        "name": "assign_refund",
        "title": "",
        "description": "d",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True, "untrustedContentHint": False},
        "steps": [{"command": "list_templates", "args": {}}],
    },
    "approved": {"hash": "0" * 64, "commands": ["list_templates"], "at": "2026-11-30T10:00:00Z"},
    "status": "active",
    "author": "person",
    "createdAt": "2026-11-30T10:00:00Z",
    "stats": {"invocations": 0, "successes": 0, "lastFailure": None},
}


def test_a_write_killed_half_way_leaves_the_old_file_intact(tmp_path):
    target = tmp_path / "tools" / "big.json"
    target.parent.mkdir()
    target.write_text('{"old": true}')
    # A child process writes 200 MB through the same atomic writer; it is killed mid-write.
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        from pathlib import Path
        from understudy_desktop.queue_io import write_atomically
        write_atomically(Path({str(target)!r}), b"x" * 200_000_000)
    """),
        ]
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not any(
        p.name != "big.json" for p in target.parent.iterdir()
    ):
        time.sleep(0.005)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert target.read_text() == '{"old": true}'


def test_a_damaged_file_is_quarantined_and_the_others_load(tmp_path):
    store = ProcedureStore(tmp_path)
    store.write_tool(GOOD_TOOL)
    (tmp_path / "tools" / "broken.json").write_text("{ not json")
    (tmp_path / "tools" / "wrong.json").write_text(json.dumps({**GOOD_TOOL, "status": "maybe"}))
    loaded = store.load()
    assert list(loaded.tools) == ["assign_refund"]
    assert {name for name, _ in loaded.quarantined} == {"broken.json", "wrong.json"}
    moved = sorted(p.name for p in (tmp_path / "quarantine").iterdir())
    assert any(n.endswith("broken.json") for n in moved)
    assert any(n.endswith("broken.reason.txt") for n in moved)
    assert not (tmp_path / "tools" / "broken.json").exists()


def test_an_older_file_version_is_migrated(tmp_path):
    old = {k: v for k, v in GOOD_TOOL.items() if k not in ("fileVersion", "revision")}
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "assign_refund.json").write_text(json.dumps(old))
    loaded = ProcedureStore(tmp_path).load()
    assert loaded.tools["assign_refund"].fileVersion == 1
    assert loaded.tools["assign_refund"].revision == 0
    assert loaded.quarantined == []


def test_unsafe_names_are_never_written(tmp_path):
    with pytest.raises(ValueError, match="safe file name"):
        ProcedureStore(tmp_path).write_tool({**GOOD_TOOL, "name": "../../escape"})
    assert not (tmp_path.parent / "escape.json").exists()


@pytest.mark.slow
def test_tools_reach_disk_and_come_back_after_the_browser_profile_is_deleted(
    console_factory, data_dir
):
    first = console_factory(data_dir, agent=True)
    teach_assign_refund(first, "T-1006")
    publish_from_editor(first, "assign_refund")
    first.qtbot.waitUntil(lambda: (data_dir / "tools" / "assign_refund.json").exists())
    first.qtbot.waitUntil(
        lambda: (data_dir / "recordings").exists() and any((data_dir / "recordings").iterdir())
    )
    on_disk = json.loads((data_dir / "tools" / "assign_refund.json").read_text())
    assert on_disk["status"] == "active" and on_disk["revision"] >= 1
    first.session.close()

    def delete_profile() -> bool:
        # Chromium may still be flushing files for a moment after the profile is released.
        try:
            shutil.rmtree(data_dir / "browser-profile")
        except OSError:
            return False
        return True

    first.qtbot.waitUntil(delete_profile)
    second = console_factory(data_dir, agent=True)
    second.qtbot.waitUntil(lambda: second.window.bridge.tool("assign_refund") is not None)
    assert len(second.api_json("recordings")) == 1
    server = second.session.agent

    async def listed():
        async with mcp_client(server.url, server.token) as c:
            return [t.name for t in (await c.list_tools()).tools]

    # Restored with its approval intact: agents see it again.
    assert "assign_refund" in run_client(second.qtbot, listed)


@pytest.mark.slow
def test_the_higher_revision_wins_both_ways(console_factory, data_dir):
    first = console_factory(data_dir)
    teach_assign_refund(first, "T-1006")
    publish_from_editor(first, "assign_refund")
    path = data_dir / "tools" / "assign_refund.json"
    first.qtbot.waitUntil(path.exists)
    first.session.close()
    # Disk newer than the page: a later revision with a different count wins.
    record = json.loads(path.read_text())
    record["revision"] += 10
    record["stats"]["invocations"] = 41
    path.write_text(json.dumps(record))
    second = console_factory(data_dir)
    second.qtbot.waitUntil(
        lambda: (
            second.api_json("tools") and second.api_json("tools")[0]["stats"]["invocations"] == 41
        )
    )
    # Page newer than disk: a run in the page bumps the revision; disk follows.
    second.call(
        "runTool",
        "assign_refund",
        {"ticket_id": "T-1014", "assignee": "priya", "template_id": "refund_approved"},
    )
    second.qtbot.waitUntil(lambda: json.loads(path.read_text())["stats"]["invocations"] == 42)
    # Revoked in the page: removed from disk too.
    second.js("document.getElementById('library-button').click(); true")
    second.js(
        "[...document.querySelectorAll('#library-panel .btn')]"
        ".find((b) => b.textContent === 'Revoke').click(); true"
    )
    second.qtbot.waitUntil(lambda: not path.exists())


@pytest.mark.slow
def test_a_damaged_tool_file_is_reported_in_the_window(console_factory, data_dir):
    (data_dir / "tools").mkdir(parents=True)
    (data_dir / "tools" / "broken.json").write_text("{ damaged")
    shown: list[tuple[str, str]] = []
    from understudy_desktop.shell.main_window import MainWindow

    original = MainWindow.show_problem
    MainWindow.show_problem = lambda self, t, m: shown.append((t, m))  # type: ignore[method-assign]
    try:
        console = console_factory(data_dir)
        console.qtbot.waitUntil(lambda: bool(shown))
    finally:
        MainWindow.show_problem = original  # type: ignore[method-assign]
    assert shown[0][0] == "Some saved tools could not be read"
    assert "broken.json" in shown[0][1]
