"""Nothing the person typed or the app confirmed is lost: runs in their own context, the
queue's saved copy in the database, the page's cache rebuilt from it, the opened file's shape
kept across a restart, and a private data folder."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest
from agent_helpers import mcp_client, publish_definitions, run_client, stored_ticket
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from test_teach_e2e import click

from understudy_desktop.queue_io import load_queue_file

FIXTURES = Path(__file__).parent / "fixtures" / "queues"

ONE_TICKET = {
    "name": "escalate_one",
    "title": "",
    "description": "Open one ticket and make it urgent.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "ticket_id": {"type": "string", "pattern": "^T-[0-9]+$", "description": "The ticket."}
        },
        "required": ["ticket_id"],
        "additionalProperties": False,
    },
    "steps": [
        {"command": "select_ticket", "args": {"ticket_id": {"from": "param", "name": "ticket_id"}}},
        {
            "command": "set_ticket_priority",
            "args": {
                "ticket_id": {"from": "step", "step": 0, "path": "ticket_id"},
                "priority": {"from": "const", "value": "urgent"},
            },
        },
    ],
}
SET_BASED = {
    "name": "tag_phrase",
    "title": "",
    "description": "Tag every ticket mentioning a phrase as seen by the agent.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "phrase": {"type": "string", "maxLength": 200, "description": "Words to find."}
        },
        "required": ["phrase"],
        "additionalProperties": False,
    },
    "steps": [
        {"command": "filter_tickets", "args": {"text": {"from": "param", "name": "phrase"}}},
        {
            "command": "tag_matching_tickets",
            "args": {"tag": {"from": "const", "value": "agent-saw"}},
        },
    ],
}


def ticket(console, ticket_id: str) -> dict:
    return console.dispatch("get_ticket", {"ticket_id": ticket_id})["result"]


@pytest.mark.slow
def test_fifty_agent_runs_leave_the_persons_view_and_typing_alone(agent_console, data_dir):
    console = agent_console
    publish_definitions(console, [ONE_TICKET, SET_BASED])
    # The person narrows the queue, opens a ticket and starts typing a reply, unsaved yet.
    search = "refund"
    console.js(
        "(() => { const f = document.getElementById('filter-text'); f.value = 'refund';"
        " f.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); return true; })()"
    )
    console.qtbot.waitUntil(lambda: console.api_json("summary")["matches"] < 40)
    first_row = console.js("document.querySelector('.row').dataset.ticketId")
    click(console, f"#row-{first_row}")
    console.qtbot.waitUntil(lambda: console.api_json("summary")["selected"] == first_row)
    click(console, "#reply-draft")
    console.qtbot.waitUntil(lambda: console.js("document.activeElement.id") == "reply-draft")
    typed = "Thanks for your patience, "
    QTest.keyClicks(console.window.view.focusProxy(), typed)
    console.qtbot.waitUntil(
        lambda: console.js("document.getElementById('reply-draft').value") == typed
    )
    scroll = console.js("document.getElementById('queue-list').scrollTop")
    others = [f"T-{1001 + i}" for i in range(26) if f"T-{1001 + i}" != first_row][:25]
    phrases = ["bank feed", "invoice", "login", "export", "refund"]
    server = console.session.agent

    async def agents():
        async def one_ticket(tid: str):
            async with mcp_client(server.url, server.token) as c:
                return await c.call_tool("escalate_one", {"ticket_id": tid})

        async def set_based(i: int):
            async with mcp_client(server.url, server.token) as c:
                return await c.call_tool("tag_phrase", {"phrase": phrases[i % len(phrases)]})

        calls = [one_ticket(t) for t in others] + [set_based(i) for i in range(25)]
        return await asyncio.gather(*calls)

    results = run_client(console.qtbot, agents, 120)
    assert len(results) == 50 and not any(r.is_error for r in results)
    # The person's view is exactly as they left it: open ticket, filter, search text,
    # scroll, focus, and the reply they are typing.
    after = console.value("window.understudyShell.api.summary()")
    assert after["selected"] == first_row
    assert console.value("document.getElementById('filter-text').value") == search
    assert console.js("document.activeElement.id") == "reply-draft"
    assert console.js("document.getElementById('reply-draft').value") == typed
    assert console.js("document.getElementById('queue-list').scrollTop") == scroll
    # Every run changed the right tickets.
    for tid in others:
        assert ticket(console, tid)["priority"] == "urgent"
    for t in console.dispatch("filter_tickets", {"text": "bank feed"}, "test")["result"][
        "ticket_ids"
    ]:
        assert "agent-saw" in ticket(console, t)["tags"]
    # The typed reply belongs to the ticket it was typed in, and is saved there.
    QTest.keyClicks(console.window.view.focusProxy(), "we are on it.")
    QTest.keyClick(console.window.view.focusProxy(), Qt.Key.Key_Tab)
    console.qtbot.waitUntil(lambda: ticket(console, first_row)["reply_draft"].endswith("on it."))
    assert all(not ticket(console, t)["reply_draft"].startswith("Thanks") for t in others)
    console.flush()
    assert stored_ticket(data_dir, first_row)["reply_draft"] == typed + "we are on it."
    assert stored_ticket(data_dir, others[0])["priority"] == "urgent"


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["deleted", "corrupted"])
def test_a_lost_browser_cache_is_rebuilt_from_the_database_and_the_person_told(
    console_factory, data_dir, damage
):
    first = console_factory(data_dir)
    first.dispatch("set_ticket_status", {"ticket_id": "T-1002", "status": "closed"}, "ui")
    first.dispatch("add_ticket_tag", {"ticket_id": "T-1002", "tag": "kept"}, "ui")
    first.flush()
    first.session.close()
    idb = data_dir / "browser-profile" / "IndexedDB"

    def damage_cache() -> bool:
        try:
            if damage == "deleted":
                shutil.rmtree(idb)
            else:
                for path in idb.rglob("*"):
                    if path.is_file():
                        path.write_bytes(b"\x00garbage" * 64)
        except OSError:
            return False
        return True

    first.qtbot.waitUntil(damage_cache)
    second = console_factory(data_dir)
    restored = ticket(second, "T-1002")
    assert restored["status"] == "closed" and "kept" in restored["tags"]
    assert second.api_json("summary")["tickets"] == 40
    second.qtbot.waitUntil(
        lambda: (
            "restored from Understudy's saved copy"
            in second.js("document.getElementById('toast-text').textContent")
        )
    )


@pytest.mark.slow
def test_a_change_made_to_the_database_wins_over_an_older_cache(console_factory, data_dir):
    first = console_factory(data_dir)
    first.flush()
    first.session.close()
    db = sqlite3.connect(data_dir / "understudy.sqlite3")
    db.execute("UPDATE tickets SET priority = 'urgent' WHERE id = 'T-1003'")
    db.execute("UPDATE queue_meta SET value = value + 1 WHERE key = 'revision'")
    db.commit()
    db.close()
    second = console_factory(data_dir)
    assert ticket(second, "T-1003")["priority"] == "urgent"


@pytest.mark.slow
def test_a_helpdesk_csv_round_trips_exactly_across_a_restart(console_factory, data_dir, tmp_path):
    source = FIXTURES / "helpdesk_semicolon.csv"
    assert source.read_bytes().startswith(b"\xef\xbb\xbf")  # a BOM, extra columns, multi-line
    first = console_factory(data_dir)
    with first.qtbot.waitSignal(first.window.queue_loaded):
        first.window.open_queue(source, confirm=False)
    tid = load_queue_file(source).tickets[0].id
    assert first.dispatch("set_ticket_priority", {"ticket_id": tid, "priority": "urgent"}, "ui")
    before = tmp_path / "before.csv"
    with first.qtbot.waitSignal(first.window.queue_saved):
        first.window.save_queue(before)
    first.session.close()
    second = console_factory(data_dir)
    # The window still knows the file the queue came from.
    second.qtbot.waitUntil(lambda: "helpdesk_semicolon.csv" in second.window._status.text())
    after = tmp_path / "after.csv"
    with second.qtbot.waitSignal(second.window.queue_saved):
        second.window.save_queue(after)
    assert after.read_bytes() == before.read_bytes()
    assert after.read_bytes().startswith(b"\xef\xbb\xbf")


def test_a_change_that_cannot_be_saved_is_said_and_the_saved_copy_comes_back(console):
    before = ticket(console, "T-1004")["priority"]
    # The database refuses every write from now on, as a full or read-only disk would.
    db = console.session.db
    db.write(lambda conn: conn.execute("PRAGMA query_only = 1"))
    console.dispatch("set_ticket_priority", {"ticket_id": "T-1004", "priority": "urgent"}, "ui")
    console.qtbot.waitUntil(
        lambda: "Not saved" in console.js("document.getElementById('save-state').textContent")
    )
    console.qtbot.waitUntil(lambda: ticket(console, "T-1004")["priority"] == before)
    console.qtbot.waitUntil(
        lambda: (
            "could not be saved" in console.js("document.getElementById('toast-text').textContent")
        )
    )
    # The disk is writable again (set outside a transaction, which refused to begin).
    db._writer._conn.execute("PRAGMA query_only = 0")
    assert console.session.window.keeper.store.rows(["T-1004"])["T-1004"]["priority"] == before


def test_the_data_folder_and_everything_in_it_are_private(console, data_dir):
    console.flush()
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    shared = [
        p
        for p in data_dir.rglob("*")
        if p.is_file() and not p.is_symlink() and p.stat().st_mode & 0o077
    ]
    assert shared == []
