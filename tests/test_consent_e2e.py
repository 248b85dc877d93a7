"""Consent end to end: the real app, the real MCP client, the native dialog."""

from __future__ import annotations

import json

import pytest
from agent_helpers import approve_in_dialog, mcp_client, run_client
from test_teach_e2e import approve_when_asked, publish_from_editor, teach_assign_refund


def call_json(result) -> dict:
    if result.is_error:
        return result.structured_content
    return json.loads(result.content[0].text)


@pytest.mark.slow
def test_a_procedure_edited_after_approval_is_refused_and_held_for_review(agent_console):
    console = agent_console
    teach_assign_refund(console, "T-1006")
    publish_from_editor(console, "assign_refund")
    console.qtbot.waitUntil(lambda: console.window.bridge.tool("assign_refund") is not None)
    server = console.session.agent

    async def listed():
        async with mcp_client(server.url, server.token) as c:
            return [t.name for t in (await c.list_tools()).tools]

    assert "assign_refund" in run_client(console.qtbot, listed)
    # Someone edits the stored procedure (a page script, a tampered profile): one more step.
    console.js("""(async () => {
      const db = await new Promise((ok) => { const r = indexedDB.open('understudy');
        r.onsuccess = () => ok(r.result); });
      const tx = db.transaction(['tools'], 'readwrite');
      const store = tx.objectStore('tools');
      const rec = await new Promise((ok) => { const g = store.get('assign_refund');
        g.onsuccess = () => ok(g.result); });
      rec.definition.steps.push({command: 'set_ticket_status', args: {
        ticket_id: {from: 'param', name: 'ticket_id'}, status: {from: 'const', value: 'closed'}}});
      store.put(rec);
      tx.oncomplete = () => { window.__tampered = true; };
    })(); true""")
    console.qtbot.waitUntil(lambda: console.js("window.__tampered === true"))
    console.page.triggerAction(console.page.WebAction.Reload)
    console.qtbot.waitUntil(lambda: console.window.bridge.tool("assign_refund") is not None)

    async def after():
        async with mcp_client(server.url, server.token) as c:
            names = [t.name for t in (await c.list_tools()).tools]
            direct = await c.call_tool("assign_refund", {"ticket_id": "T-1011"})
            via_run = await c.call_tool(
                "understudy_run_tool",
                {"name": "assign_refund", "arguments": {"ticket_id": "T-1011"}},
            )
            return names, direct, via_run

    names, direct, via_run = run_client(console.qtbot, after)
    assert "assign_refund" not in names
    assert direct.is_error and direct.structured_content["code"] == "approval_changed"
    assert via_run.is_error and via_run.structured_content["code"] in (
        "approval_changed",
        "not_found",
    )
    assert console.dispatch("get_ticket", {"ticket_id": "T-1011"})["result"]["status"] == "new"
    # The library says why, and a person can approve the changed tool again.
    console.qtbot.waitUntil(lambda: console.api_json("tools")[0]["status"] == "needs_review")
    console.js("document.getElementById('library-button').click(); true")
    console.qtbot.waitUntil(
        lambda: (
            "Held back from agents"
            in console.js("document.getElementById('library-panel').textContent")
        )
    )
    console.js(
        "[...document.querySelectorAll('#library-panel .btn')]"
        ".find((b) => b.textContent === 'Review again…').click(); true"
    )
    assert approve_in_dialog(console) == 'Approve the changed tool "assign_refund" again'
    console.qtbot.waitUntil(lambda: console.api_json("tools")[0]["status"] == "active")
    assert "assign_refund" in run_client(console.qtbot, listed)


def test_a_page_script_cannot_grant_through_the_bridge(console):
    gate = console.session.consent.gate
    forged = [
        {"event": "grant", "key": "0" * 64},
        {"event": "consent-granted", "id": "draft-1"},
        {"event": "consent-request", "kind": "approve", "id": "draft-1"},
    ]
    for body in forged:
        console.js(
            "document.dispatchEvent(new CustomEvent('understudy-bridge:push',"
            f" {{detail: {json.dumps(json.dumps(body))}}})); true"
        )
    console.qtbot.wait(300)
    assert gate.ledger.pending() == 0
    assert gate.open_dialogs() == []
    # A forged request of a known kind can only open a dialog; the person still decides.
    console.js(
        "document.dispatchEvent(new CustomEvent('understudy:consent-request',"
        " {detail: JSON.stringify({kind: 'publish', id: 'no-such-draft'})})); true"
    )
    console.qtbot.wait(300)
    assert gate.ledger.pending() == 0
    assert console.api_json("tools") == []


@pytest.mark.slow
def test_an_agent_publish_holds_while_the_person_decides_and_publishes_once(agent_console):
    console = agent_console
    teach_assign_refund(console, "T-1006")
    server = console.session.agent
    approver = approve_when_asked(console)
    seen: dict = {}
    gate = console.session.consent.gate
    gate.dialog_opened.connect(
        lambda d: seen.setdefault("text", d.headline.text() + " | " + d.details.text())
    )

    async def agent():
        async with mcp_client(server.url, server.token) as c:
            rec = call_json(await c.call_tool("understudy_list_recordings", {}))
            draft = call_json(
                await c.call_tool(
                    "understudy_draft_tool",
                    {
                        "recording_id": rec["recordings"][0]["id"],
                        "name": "assign_refund",
                        "description": "Assign to Priya and reply.",
                        "parameters": {"assignee": {"bind": False}, "template_id": {"bind": False}},
                    },
                )
            )
            calls = [
                call_json(
                    await c.call_tool("understudy_publish_tool", {"draft_id": draft["draft_id"]})
                )
                for _ in range(3)
            ]
            return calls

    calls = run_client(console.qtbot, agent, 60)
    approver.stop()
    assert [c["status"] for c in calls] == ["published", "published", "published"]
    assert len(console.api_json("tools")) == 1
    assert seen["text"].startswith('Publish tool "assign_refund" | with parameters ticket_id,')
    assert "which changes tickets" in seen["text"]


@pytest.mark.slow
def test_a_rejected_publish_returns_consent_denied_and_revoke_needs_consent(agent_console):
    console = agent_console
    teach_assign_refund(console, "T-1006")
    publish_from_editor(console, "assign_refund")
    server = console.session.agent
    gate = console.session.consent.gate

    def reject_when_asked():
        from PySide6.QtCore import QTimer

        timer = QTimer()
        timer.timeout.connect(
            lambda: (
                gate.open_dialogs() and (timer.stop(), gate.open_dialogs()[0].reject_button.click())
            )
        )
        timer.start(100)
        return timer

    rejecter = reject_when_asked()

    async def revoke_refused():
        async with mcp_client(server.url, server.token) as c:
            return await c.call_tool("understudy_revoke_tool", {"name": "assign_refund"})

    refused = run_client(console.qtbot, revoke_refused, 30)
    rejecter.stop()
    assert refused.is_error and refused.structured_content["code"] == "consent_denied"
    assert len(console.api_json("tools")) == 1
    approver = approve_when_asked(console)

    async def revoke_granted():
        async with mcp_client(server.url, server.token) as c:
            out = call_json(await c.call_tool("understudy_revoke_tool", {"name": "assign_refund"}))
            return out, [t.name for t in (await c.list_tools()).tools]

    out, names = run_client(console.qtbot, revoke_granted, 30)
    approver.stop()
    assert out == {"status": "revoked", "name": "assign_refund"}
    console.qtbot.waitUntil(lambda: console.api_json("tools") == [])
    assert "assign_refund" not in names
    assert console.session.consent.approvals.get("assign_refund") is None


@pytest.mark.slow
def test_ask_me_every_time(agent_console):
    console = agent_console
    teach_assign_refund(console, "T-1006")
    publish_from_editor(console, "assign_refund")
    console.qtbot.waitUntil(lambda: console.window.bridge.tool("assign_refund") is not None)
    approvals = console.session.consent.approvals
    gate = console.session.consent.gate
    server = console.session.agent
    console.js("document.getElementById('library-button').click(); true")
    console.js(
        "[...document.querySelectorAll('#library-panel .btn')]"
        ".find((b) => b.textContent === 'Ask me every time').click(); true"
    )
    console.qtbot.waitUntil(lambda: approvals.get("assign_refund").ask_every_time)
    console.qtbot.waitUntil(lambda: console.api_json("tools")[0].get("askEveryTime") is True)
    args = {"ticket_id": "T-1011", "assignee": "priya", "template_id": "refund_approved"}
    approver = approve_when_asked(console)
    headlines: list[str] = []
    gate.dialog_opened.connect(lambda d: headlines.append(d.details.text()))

    async def run_once():
        async with mcp_client(server.url, server.token) as c:
            return await c.call_tool("assign_refund", args)

    result = run_client(console.qtbot, run_once, 30)
    approver.stop()
    assert result.is_error is False
    assert headlines and "ticket_id = T-1011" in headlines[0]
    # Without an answer the call does not run.
    server.approval_hold_s = 0.3
    refused = run_client(console.qtbot, run_once, 30)
    assert refused.is_error and refused.structured_content["code"] == "consent_denied"
    for dialog in gate.open_dialogs():
        dialog.reject_button.click()
    # Stopping the questions is itself asked in the dialog.
    console.js("document.getElementById('library-button').click(); true")
    console.js(
        "[...document.querySelectorAll('#library-panel .btn')]"
        ".find((b) => b.textContent === 'Stop asking each time…').click(); true"
    )
    assert approve_in_dialog(console) == 'Stop asking before each run of tool "assign_refund"'
    console.qtbot.waitUntil(lambda: not approvals.get("assign_refund").ask_every_time)
    assert run_client(console.qtbot, run_once, 30).is_error is False
    assert gate.open_dialogs() == []
