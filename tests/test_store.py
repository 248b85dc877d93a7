"""The shell's durable state: tools, approvals, usage and recordings in one SQLite database,
atomic files where files are still written, and the move from 0.1's JSON files."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import textwrap

import pytest
from agent_helpers import mcp_client, run_client
from test_teach_e2e import publish_from_editor, teach_assign_refund
from waiting import until

from understudy_desktop.consent.seal import load_seal
from understudy_desktop.library.library import Library
from understudy_desktop.library.model import definition_hash
from understudy_desktop.store.database import DB_FILE, Database, DatabaseError

LEGACY_DEFINITION = {
    "name": "assign_refund",
    "title": "",
    "description": "d",
    "inputSchema": {"type": "object", "properties": {}},
    "annotations": {"readOnlyHint": True, "untrustedContentHint": False},
    "steps": [{"command": "list_templates", "args": {}}],
}


def legacy_tool(name: str, definition: dict) -> dict:
    return {
        "fileVersion": 1,
        "name": name,
        "revision": 3,
        "definition": {**definition, "name": name},
        "approved": {"hash": "0" * 64, "commands": ["list_templates"], "at": "2026-11-30"},
        "status": "active",
        "author": "agent",
        "createdAt": "2026-11-30T10:00:00Z",
        "stats": {"invocations": 7, "successes": 6, "lastFailure": None},
    }


def test_a_write_killed_half_way_leaves_the_old_file_intact(tmp_path):
    target = tmp_path / "exports" / "big.json"
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
    until(
        lambda: any(p.name != "big.json" for p in target.parent.iterdir()),
        "the new copy is being written beside the old",
    )
    child.kill()
    child.wait()
    assert json.loads(target.read_text()) == {"old": True}


def test_the_database_is_private_in_wal_mode_and_checks_clean(tmp_path):
    db = Database(tmp_path)
    try:
        assert (tmp_path / DB_FILE).stat().st_mode & 0o777 == 0o600
        assert db.read("PRAGMA journal_mode")[0][0] == "wal"
        assert db.integrity_problems() == []
    finally:
        db.close()


def test_a_database_that_is_not_one_is_refused_in_plain_words(tmp_path):
    (tmp_path / DB_FILE).write_bytes(b"this is not a database" * 100)
    with pytest.raises(DatabaseError, match="cannot be read"):
        Database(tmp_path)


def test_a_newer_database_is_refused_and_left_alone(tmp_path):
    Database(tmp_path).close()
    conn = sqlite3.connect(tmp_path / DB_FILE)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(DatabaseError, match="newer Understudy"):
        Database(tmp_path)
    conn = sqlite3.connect(tmp_path / DB_FILE)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 99


def test_files_of_the_previous_version_move_into_the_database_once(qapp, tmp_path):
    from understudy_desktop.library.legacy import migrate_legacy_files

    (tmp_path / "tools").mkdir()
    (tmp_path / "recordings").mkdir()
    approved = legacy_tool("approved_one", LEGACY_DEFINITION)
    unapproved = legacy_tool("edited_one", LEGACY_DEFINITION)
    (tmp_path / "tools" / "approved_one.json").write_text(json.dumps(approved))
    (tmp_path / "tools" / "edited_one.json").write_text(json.dumps(unapproved))
    (tmp_path / "tools" / "broken.json").write_text("{ damaged")
    (tmp_path / "recordings" / "rec-1.json").write_text(
        json.dumps({"id": "rec-1", "name": "r", "createdAt": "x", "steps": [{"command": "x"}]})
    )
    digest = definition_hash(approved["definition"])
    (tmp_path / "approvals.json").write_text(
        json.dumps({"version": 1, "approvals": [{"name": "approved_one", "hash": digest}]})
    )
    db = Database(tmp_path)
    seal = load_seal(tmp_path / "keys")
    try:
        assert migrate_legacy_files(tmp_path, db, seal) == 3
        assert migrate_legacy_files(tmp_path, db, seal) == 0  # once
        library = Library(db, seal)
        library.load()
        assert library.callable("approved_one") is not None
        assert library.usage("approved_one").runs == 7
        held = library.get("edited_one")
        assert held is not None and held.status == "needs_review"
        assert library.callable("edited_one") is None
        assert [r["id"] for r in library.recordings()] == ["rec-1"]
        assert not (tmp_path / "tools").exists() and not (tmp_path / "approvals.json").exists()
        kept = list((tmp_path / "legacy-files").glob("*/tools/broken.json"))
        assert len(kept) == 1  # a damaged file is kept for a person, never silently dropped
    finally:
        db.close()


@pytest.mark.slow
def test_tools_and_recordings_come_back_after_the_browser_profile_is_deleted(
    console_factory, data_dir
):
    first = console_factory(data_dir, agent=True)
    teach_assign_refund(first, "T-1006")
    publish_from_editor(first, "assign_refund")
    first.qtbot.waitUntil(lambda: "assign_refund" in first.listed())
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
    server = second.session.agent

    async def listed():
        async with mcp_client(server.url, server.token) as c:
            return [t.name for t in (await c.list_tools()).tools]

    # The shell's database holds them: agents see the tool with its approval intact, and the
    # page gets the recording back from the shell.
    assert "assign_refund" in run_client(second.qtbot, listed)
    second.qtbot.waitUntil(lambda: len(second.api_json("recordings")) == 1)
    second.qtbot.waitUntil(lambda: second.api_json("tools")[0]["name"] == "assign_refund")


@pytest.mark.slow
def test_usage_is_kept_apart_and_a_revoke_removes_the_row_and_its_usage(console_factory, data_dir):
    first = console_factory(data_dir)
    teach_assign_refund(first, "T-1006")
    publish_from_editor(first, "assign_refund")
    first.qtbot.waitUntil(lambda: "assign_refund" in first.listed())
    definition_before = first.library.get("assign_refund").definition
    for ticket in ("T-1011", "T-1014"):
        first.run_tool("assign_refund", {"ticket_id": ticket})
    assert first.library.get("assign_refund").definition == definition_before  # untouched
    first.session.close()
    db = sqlite3.connect(data_dir / DB_FILE)
    assert db.execute("SELECT runs, successes FROM tool_usage").fetchall() == [(2, 2)]
    db.close()

    second = console_factory(data_dir)
    assert second.library.usage("assign_refund").runs == 2
    second.js("document.getElementById('library-button').click(); true")
    second.qtbot.waitUntil(
        lambda: second.js("Boolean(document.querySelector('[data-tool=assign_refund]'))")
    )
    second.js("document.querySelector('[data-tool=assign_refund] .btn.danger').click(); true")
    from agent_helpers import approve_in_dialog

    assert approve_in_dialog(second) == "Revoke tool “Assign and reply”"
    second.qtbot.waitUntil(lambda: second.taught() == [])
    second.session.close()
    db = sqlite3.connect(data_dir / DB_FILE)
    assert db.execute("SELECT COUNT(*) FROM tools").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM tool_usage").fetchone()[0] == 0
    db.close()


@pytest.mark.slow
def test_an_unreadable_tool_row_is_reported_in_the_window(console_factory, data_dir):
    Database(data_dir).close()
    db = sqlite3.connect(data_dir / DB_FILE)
    db.execute(
        "INSERT INTO tools (name, definition, digest, status, origin, created_at, approved_at)"
        " VALUES ('broken', '{ damaged', 'x', 'active', '{}', 0, 0)"
    )
    db.commit()
    db.close()
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
    assert "broken" in shown[0][1]
    assert "broken" not in console.listed()


def test_the_listed_schema_drops_only_the_narrowing_keywords():
    from understudy_desktop.rules import listed_schema

    full = {
        "type": "object",
        "properties": {
            "ticket_id": {"type": "string", "minLength": 1, "maxLength": 64, "description": "T"},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 20}},
        },
        "required": ["ticket_id"],
        "additionalProperties": False,
    }
    assert listed_schema(full) == {
        "type": "object",
        "properties": {
            "ticket_id": {"type": "string", "description": "T"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["ticket_id"],
    }
    assert full["additionalProperties"] is False  # the approved schema is untouched
