"""The page is hostile: a script in its main world (a ticket's markup that got through, a
hostile helpdesk export) does everything it can reach, and the shell's database and what
agents are shown stay exactly as the person and the approved tools left them.

Each attack runs as a script in the page's main world of a real QtWebEngine console, beside a
real MCP client; the database is read by the tests with SQLite directly.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from agent_helpers import (
    TEST_TOOLS,
    approve_in_dialog,
    mcp_client,
    publish_definitions,
    run_client,
    stored_ticket,
)
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from test_shell_authority import agent_calls, agents_see, page_script

from understudy_desktop.bridge.protocol import CommandAsk

FORGE = """
  const push = (b) => document.dispatchEvent(new CustomEvent('understudy-bridge:push',
    {detail: JSON.stringify(b)}));
  const respond = (id, value) => document.dispatchEvent(
    new CustomEvent('understudy-bridge:response', {detail: JSON.stringify({id, ok: true, value})}));
"""


@pytest.fixture
def shell(agent_console):
    publish_definitions(agent_console, [TEST_TOOLS["close_ticket"], TEST_TOOLS["lookup_ticket"]])
    return agent_console


def journal(data_dir: Path) -> list[tuple[str, str, list]]:
    db = sqlite3.connect(data_dir / "understudy.sqlite3")
    try:
        rows = db.execute("SELECT actor, command, changes FROM journal ORDER BY seq").fetchall()
    finally:
        db.close()
    return [(actor, command, json.loads(changes)) for actor, command, changes in rows]


def all_tickets(data_dir: Path) -> dict[str, dict]:
    from understudy_desktop.store.ticket_tables import TICKET_JSON

    db = sqlite3.connect(data_dir / "understudy.sqlite3")
    try:
        rows = db.execute(f"SELECT id, {TICKET_JSON} FROM tickets").fetchall()
    finally:
        db.close()
    return {r[0]: json.loads(r[1]) for r in rows}


def test_a_script_answering_the_shells_requests_cannot_change_what_a_run_did(shell, data_dir):
    shell.flush()
    before_list, before = agents_see(shell), all_tickets(data_dir)
    # The script hears everything it can and answers every request it can think of, with
    # changes to other tickets; it also tries to take over the shell's private channel.
    page_script(
        shell,
        FORGE
        + """
      window.__seen = 0;
      for (const type of ['understudy-bridge:request', 'message']) {
        window.addEventListener(type, (e) => { window.__seen += 1; }, true);
      }
      const forged = {ok: true, tool: 'close_ticket', changed: ['T-1001', 'T-1003'],
        changes: [['T-1001', 'reply_draft', 'Refund of 5000 EUR approved'],
                  ['T-1003', 'assignee', 'marcus'], ['T-1002', 'priority', 'mega']]};
      for (let i = 1; i < 300; i++) respond('py' + i, forged);
      const channel = new MessageChannel();
      channel.port1.onmessage = (e) => { window.__stolen = String(e.data); };
      window.postMessage('understudy-bridge:port', '*', [channel.port2]);
      push({event: 'ask', ask: 'x1', body: {kind: 'commit', command: 'set_ticket_priority',
        changes: forged.changes}});
    """,
    )
    result = agent_calls(shell, "close_ticket", {"ticket_id": "T-1012"})
    assert result.is_error is False
    after = all_tickets(data_dir)
    assert after["T-1012"]["status"] == "closed"
    assert {k: v for k, v in after.items() if k != "T-1012"} == {
        k: v for k, v in before.items() if k != "T-1012"
    }
    assert {**before["T-1012"], "status": "closed"} == after["T-1012"]
    # The run's journal entry is the approved step and nothing else.
    actor, command, changes = journal(data_dir)[-1]
    assert (actor, command) == ("agent", "run close_ticket")
    assert changes == [["set", "status", "closed", ["T-1012"]]]
    assert agents_see(shell) == before_list
    assert shell.value("window.__stolen ?? null") is None
    shell.qtbot.waitUntil(
        lambda: (
            shell.dispatch("get_ticket", {"ticket_id": "T-1012"})["result"]["status"] == "closed"
        )
    )


def test_invalid_values_never_reach_the_database_and_the_queue_still_saves(
    shell, data_dir, tmp_path
):
    shell.flush()
    before = all_tickets(data_dir)
    bad = [
        ("set_ticket_priority", {"ticket_id": "T-1002", "priority": "mega"}),
        ("set_ticket_status", {"ticket_id": "T-1002", "status": "<b>closed</b>"}),
        ("set_ticket_tags", {"ticket_id": "T-1002", "tags": "abc"}),
        ("set_ticket_tags", {"ticket_id": "T-1002", "tags": ["a", "a"]}),
        ("set_reply_draft", {"ticket_id": "T-1003", "text": "x" * 10_001}),
        ("set_matching_priority", {"priority": "mega"}),
        ("no_such_command", {}),
    ]
    # Through the page: its own model refuses them; forged DOM messages never arrive.
    for name, payload in bad:
        assert shell.dispatch(name, payload)["ok"] is False
    page_script(
        shell,
        FORGE
        + f"""
      for (const [command, payload] of {json.dumps(bad)}) {{
        push({{event: 'ask', ask: 'c' + command, body: {{kind: 'command', command, payload}}}});
      }}
    """,
    )
    # Straight into the shell, as if a message had got through: refused, with the reason.
    answers: list[dict] = []
    for name, payload in bad:
        shell.window.port.asked.emit("t", CommandAsk(kind="command", command=name, payload=payload))
        shell.session.model.person(name, payload, answers.append)
    shell.qtbot.waitUntil(lambda: len(answers) == len(bad))
    assert all(
        a["isError"] and a["code"] in ("invalid_payload", "unknown_command") for a in answers
    )
    assert all("mega" not in a["message"] and "<b>" not in a["message"] for a in answers)
    shell.flush()
    assert all_tickets(data_dir) == before
    # Save queue as… still writes the queue (nothing invalid was stored).
    out = tmp_path / "queue.json"
    with shell.qtbot.waitSignal(shell.window.queue_saved):
        shell.window.save_queue(out)
    saved = json.loads(out.read_text("utf-8"))
    assert {t["priority"] for t in saved["tickets"]} <= {"low", "normal", "high", "urgent"}


def test_recordings_cannot_be_forged_and_agents_read_only_the_shells(shell, monkeypatch):
    gate = shell.session.consent.gate
    server = shell.session.agent

    async def listed():
        async with mcp_client(server.url, server.token) as c:
            result = await c.call_tool("understudy_list_recordings", {})
            return json.loads(result.content[0].text)["recordings"]

    before, known = run_client(shell.qtbot, listed), shell.library.recordings()
    recording = {
        "id": "rec-forged",
        "name": "Forged",
        "createdAt": "2026-12-01T00:00:00Z",
        "revision": 9,
        "steps": [{"command": "set_matching_status", "payload": {"status": "closed"}}],
    }
    page_script(
        shell,
        FORGE
        + f"""
      push({{event: 'recording-saved', recording: {json.dumps(recording)}}});
      push({{event: 'ask', ask: 'r1', body: {{kind: 'recording', action: 'rename',
        id: 'rec-forged'}}}});
      // Teach, as a script: untrusted clicks and commands, then Stop.
      document.getElementById('teach-button').click();
      window.understudyShell.api.dispatch('filter_tickets', {{}});
      window.understudyShell.api.dispatch('set_matching_status', {{status: 'closed'}});
      await new Promise((ok) => setTimeout(ok, 300));
      document.getElementById('teach-button').click();
    """,
    )
    # Whatever was recorded is kept only if the person says so in the shell's dialog.
    shell.qtbot.waitUntil(lambda: len(gate.open_dialogs()) == 1)
    dialog = gate.open_dialogs()[0]
    assert dialog.headline.text().startswith("Keep the recording")
    assert "Set every matching ticket's status to Closed" in dialog.text_shown()
    from PySide6.QtWidgets import QMessageBox

    # Discard asks first ("cannot be brought back"); the person says Discard.
    monkeypatch.setattr(
        QMessageBox, "question", lambda *_a, **_k: QMessageBox.StandardButton.Discard
    )
    dialog.reject_button.click()
    shell.settled()
    assert shell.library.recordings() == known
    assert run_client(shell.qtbot, listed) == before
    assert "rec-forged" not in [r["id"] for r in shell.api_json("recordings")]


def test_a_script_cannot_turn_a_tool_off_without_the_person(shell):
    gate = shell.session.consent.gate
    before = agents_see(shell)
    shell.js("document.getElementById('library-button').click(); true")
    page_script(
        shell,
        FORGE
        + """
      push({event: 'ask', ask: 'd1', body: {kind: 'library', action: 'disable',
        tool: 'close_ticket'}});
      [...document.querySelectorAll('[data-tool=close_ticket] .btn')]
        .find((b) => b.textContent === 'Turn off…').click();
    """,
    )
    shell.qtbot.waitUntil(lambda: len(gate.open_dialogs()) == 1)
    gate.open_dialogs()[0].reject_button.click()
    shell.settled()
    assert shell.library.get("close_ticket").status == "active"
    assert agents_see(shell) == before


def test_an_edited_page_store_changes_nothing_after_a_restart(console_factory, data_dir):
    first = console_factory(data_dir, agent=True)
    publish_definitions(first, [TEST_TOOLS["close_ticket"]])
    first.flush()
    before_list = agents_see(first)
    # The script rewrites the page's IndexedDB: other values under the same revision, and a
    # tool of its own.
    page_script(
        first,
        """
      const db = await new Promise((ok) => { const r = indexedDB.open('understudy');
        r.onsuccess = () => ok(r.result); });
      const tx = db.transaction(['chunks', 'tools'], 'readwrite');
      const chunks = tx.objectStore('chunks');
      const chunk = await new Promise((ok) => {
        const g = chunks.get(0); g.onsuccess = () => ok(g.result); });
      for (const t of chunk) { t.priority = 'urgent'; t.subject = 'FORGED'; }
      chunks.put(chunk, 0);
      tx.objectStore('tools').put({name: 'backdoor', definition: {steps: []}});
      await new Promise((ok) => { tx.oncomplete = ok; });
    """,
    )
    first.session.close()
    second = console_factory(data_dir, agent=True)
    shown = second.dispatch("get_ticket", {"ticket_id": "T-1001"})["result"]
    assert shown["subject"] != "FORGED" and shown == stored_ticket(data_dir, "T-1001")
    assert agents_see(second) == before_list


def in_own_world(console, script: str):
    """Evaluate `script` in a world of the test's own: the page's replaced globals are the
    page's, so a person's mouse and keys (what this stands for) are untouched by them."""
    from understudy_desktop.web.scripts import BRIDGE_WORLD

    with console.qtbot.waitCallback() as callback:
        console.page.runJavaScript(script, BRIDGE_WORLD, callback)
    return callback.args[0]


def test_replaced_json_and_dispatch_event_leave_the_console_working(shell, data_dir):
    page_script(
        shell,
        """
      JSON.stringify = () => '{}';
      JSON.parse = () => ({});
      EventTarget.prototype.dispatchEvent = () => true;
      window.CustomEvent = function () { throw new Error('no'); };
      MessagePort.prototype.postMessage = () => {};
    """,
    )
    # The person opens a ticket and sets its priority: it is saved.
    rect = in_own_world(
        shell,
        "(() => { const r = document.querySelector('#row-T-1005').getBoundingClientRect();"
        " return `${r.x + r.width / 2} ${r.y + r.height / 2}`; })()",
    )
    x, y = (int(float(v)) for v in rect.split())
    view = shell.window.view.focusProxy()
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, pos=QPoint(x, y))
    opened = "document.getElementById('d-id').textContent"
    shell.qtbot.waitUntil(lambda: in_own_world(shell, opened) == "T-1005")
    in_own_world(
        shell,
        "(() => { const s = document.getElementById('priority-select'); s.value = 'urgent';"
        " s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()",
    )
    shell.qtbot.waitUntil(lambda: stored_ticket(data_dir, "T-1005")["priority"] == "urgent")
    # An agent's run is still applied, and drawn in the page.
    assert agent_calls(shell, "close_ticket", {"ticket_id": "T-1009"}).is_error is False
    assert stored_ticket(data_dir, "T-1009")["status"] == "closed"
    pill = "document.querySelector('#row-T-1009 .status-pill').textContent"
    shell.qtbot.waitUntil(lambda: in_own_world(shell, pill) == "Closed")


# --- a waiting run meets Turn off, Revoke, and an ask-every-time dialog ------------------------


def calls_in_flight(shell, *ticket_ids: str):
    """Start one close_ticket call per ticket, all at once; returns a function that waits for
    and returns their results."""
    import threading

    server = shell.session.agent
    results: dict[str, object] = {}

    def call(ticket_id: str) -> None:
        async def go():
            async with mcp_client(server.url, server.token) as c:
                return await c.call_tool("close_ticket", {"ticket_id": ticket_id})

        import anyio

        results[ticket_id] = anyio.run(go)

    threads = [threading.Thread(target=call, args=(t,)) for t in ticket_ids]
    for t in threads:
        t.start()

    def finished() -> dict[str, object]:
        shell.qtbot.waitUntil(lambda: not any(t.is_alive() for t in threads))
        return results

    return finished


@pytest.mark.parametrize(
    ("action", "code"), [("turn off", "approval_changed"), ("revoke", "not_found")]
)
def test_waiting_runs_end_when_their_tool_is_turned_off_or_revoked(shell, data_dir, action, code):
    runner = shell.session.calls.runner
    before = {t: stored_ticket(data_dir, t) for t in ("T-1007", "T-1008")}
    with shell.database_held():  # busy until both calls have been answered
        finished = calls_in_flight(shell, "T-1007", "T-1008")
        shell.qtbot.waitUntil(lambda: runner.running and runner.waiting == 1)
        if action == "turn off":
            shell.library.disable("close_ticket", lambda _e: None)
        else:
            from understudy_desktop.consent.ledger import command_line_grant
            from understudy_desktop.consent.manifest import REVOKE_TOOL
            from understudy_desktop.library.library import tool_args

            tool = shell.library.get("close_ticket")
            grant = command_line_grant(REVOKE_TOOL.name, tool_args(tool))  # the person said yes
            shell.library.revoke("close_ticket", grant, lambda _e: None)
        # Ended as the tool closes, before its change is even written (the database is held).
        left_waiting = runner.waiting
        if left_waiting == 0:
            results = finished()
    # Said once the database is let go: a run left waiting would wait for it until the end.
    assert left_waiting == 0, "a waiting run stayed after its tool was closed"
    shell.settled()
    for ticket_id in ("T-1007", "T-1008"):
        result = results[ticket_id]
        assert result.is_error and result.structured_content["code"] == code, result
        assert stored_ticket(data_dir, ticket_id) == before[ticket_id]


def test_a_run_approved_in_its_dialog_after_its_tool_was_turned_off_does_not_run(shell, data_dir):
    shell.library.ask_every_time("close_ticket", lambda _e: None)
    shell.qtbot.waitUntil(lambda: shell.library.get("close_ticket").ask_every_time)
    gate = shell.session.consent.gate
    before = stored_ticket(data_dir, "T-1010")
    finished = calls_in_flight(shell, "T-1010")
    shell.qtbot.waitUntil(lambda: len(gate.open_dialogs()) == 1)
    # While the dialog is open, the person turns the tool off; then approves the run.
    shell.library.disable("close_ticket", lambda _e: None)
    shell.qtbot.waitUntil(lambda: shell.library.get("close_ticket").status == "disabled")
    assert approve_in_dialog(shell).startswith("Run tool")
    result = finished()["T-1010"]
    assert result.is_error and result.structured_content["code"] == "approval_changed"
    assert stored_ticket(data_dir, "T-1010") == before


def test_a_run_whose_tool_was_turned_off_in_the_database_meanwhile_does_not_run(shell, data_dir):
    """The last word is the run's own transaction: the library in memory still says the tool
    is on, but the database turned it off just before the run began."""
    before = stored_ticket(data_dir, "T-1011")
    db = shell.session.db
    # The UPDATE is ahead of the run on the database's one writer.
    db.submit(
        lambda conn: conn.execute(
            "UPDATE tools SET status = 'disabled' WHERE name = 'close_ticket'"
        )
    )
    assert shell.library.get("close_ticket").status == "active"
    result = calls_in_flight(shell, "T-1011")()["T-1011"]
    assert result.is_error and result.structured_content["code"] == "approval_changed"
    assert stored_ticket(data_dir, "T-1011") == before


def test_a_page_rewriting_json_and_webmcp_cannot_see_or_change_the_relays_report(shell):
    """The relay reports the page's WebMCP tools with functions it took at document creation,
    and never writes JSON itself (a page's Object.prototype.toJSON would see every message)."""
    bridge = shell.window.bridge
    page_script(
        shell,
        """
      window.__seen = 0;
      Object.defineProperty(Object.prototype, 'toJSON', {configurable: true, writable: true,
        value: function () {
          if (this && (this.event === 'tools' || ('kind' in this && 'body' in this))) {
            window.__seen += 1;
            const forged = {event: 'tools', tools: [{name: 'forged'}]};
            return {kind: 'push', body: JSON.stringify(forged)};
          }
          return this;
        }});
      const proto = Object.getPrototypeOf(document.modelContext);
      proto.getTools = async () => {
        window.__seen += 1;
        return [{name: 'forged', description: ''}];
      };
      await document.modelContext.registerTool({name: 'page_probe', description: 'A probe.',
        execute: () => 'ok'});
    """,
    )
    shell.qtbot.waitUntil(lambda: any(t.get("name") == "page_probe" for t in bridge.page_tools))
    assert "forged" not in {t.get("name") for t in bridge.page_tools}
    assert shell.js("window.__seen") == 0


def test_a_script_submitting_the_run_form_is_asked_about_in_the_native_dialog(shell, data_dir):
    """A tool marked "ask me every time" asks whoever starts the run: a script that fills in
    and submits the library's Run… form meets the same native dialog as an agent."""
    shell.library.ask_every_time("close_ticket", lambda _e: None)
    shell.qtbot.waitUntil(lambda: shell.library.get("close_ticket").ask_every_time)
    gate = shell.session.consent.gate
    before = stored_ticket(data_dir, "T-1012")
    submit = """
      document.getElementById('library-button').click();
      await new Promise((r) => setTimeout(r, 200));
      [...document.querySelectorAll('[data-tool=close_ticket] .btn')]
        .find((b) => b.textContent.startsWith('Run')).click();
      await new Promise((r) => setTimeout(r, 200));
      const form = [...document.querySelectorAll('form')].find((f) => f.querySelector(
        '[name=ticket_id]'));
      form.querySelector('[name=ticket_id]').value = 'T-1012';
      form.requestSubmit();
    """
    page_script(shell, submit)
    # Until the dialog opens, or the ticket changes without one (which fails at once).
    shell.qtbot.waitUntil(
        lambda: len(gate.open_dialogs()) == 1 or stored_ticket(data_dir, "T-1012") != before
    )
    assert len(gate.open_dialogs()) == 1, "the script's run went ahead without asking"
    dialog = gate.open_dialogs()[0]
    assert dialog.headline.text().startswith("Run tool")
    dialog.reject_button.click()
    shell.settled()
    assert stored_ticket(data_dir, "T-1012") == before
    assert [c for _a, c, _ch in journal(data_dir) if "close_ticket" in c] == []
    # The person's own yes runs it.
    page_script(shell, submit)
    assert approve_in_dialog(shell).startswith("Run tool")
    shell.qtbot.waitUntil(lambda: stored_ticket(data_dir, "T-1012")["status"] == "closed")


def test_a_page_registering_tools_one_by_one_is_listed_a_few_times_not_once_per_tool(shell):
    """The relay lists the page's tools for the shell's report. A page that registers 300
    tools in a loop, awaiting each (each in a task of its own), is listed a few times, not
    once (of every tool) per tool, which made registering quadratic."""
    bridge = shell.window.bridge
    before = bridge.page_tools_total
    reports: list[int] = []
    bridge.page_tools_changed.connect(lambda: reports.append(bridge.page_tools_total))
    page_script(
        shell,
        """
      for (let i = 0; i < 300; i++) {
        await document.modelContext.registerTool({name: 'one_by_one_' + i,
          description: 'A tool.', execute: () => 'ok'});
      }
    """,
    )
    # All 300 reported (with the console's own few): by then the old relay had listed ~300 times.
    shell.qtbot.waitUntil(lambda: bridge.page_tools_total >= before + 300)
    assert len(reports) <= 10, len(reports)
