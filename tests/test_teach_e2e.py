"""The whole teach loop through real interfaces: clicks in QtWebEngine, the MCP SDK client,
the approval overlay, the library and the cap."""

from __future__ import annotations

import json

import pytest
from agent_helpers import approve_in_dialog, mcp_client, run_client, stored_ticket
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest


def center(console, selector: str) -> QPoint:
    rect = console.value(
        f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
        ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    return QPoint(int(rect[0]), int(rect[1]))


def click(console, selector: str) -> None:
    console.qtbot.waitUntil(
        lambda: console.js(f"Boolean(document.querySelector({json.dumps(selector)}))")
    )
    QTest.mouseClick(
        console.window.view.focusProxy(), Qt.MouseButton.LeftButton, pos=center(console, selector)
    )


def choose(console, selector: str, value: str) -> None:
    """Pick an option the way a keyboard user does: focus the control, type, confirm. (A
    click would open the dropdown's list, which may choose its highlighted item again when
    it closes later, a change the test did not make.)"""
    console.qtbot.waitUntil(
        lambda: console.js(f"Boolean(document.querySelector({json.dumps(selector)}))")
    )
    console.js(
        f"(() => {{ const s = document.querySelector({json.dumps(selector)}); s.focus(); "
        f"s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change', {{bubbles: true}})); "
        "return true; })()"
    )


def ticket(console, ticket_id: str) -> dict:
    return console.dispatch("get_ticket", {"ticket_id": ticket_id})["result"]


def teach_assign_refund(console, ticket_id: str) -> None:
    """Record 'assign to Priya, apply the refund template' on one ticket with the mouse."""
    click(console, "#teach-button")
    console.qtbot.waitUntil(lambda: console.js("document.body.classList.contains('recording')"))
    click(console, f"#row-{ticket_id}")
    console.qtbot.waitUntil(lambda: console.api_json("summary")["selected"] == ticket_id)
    choose(console, "#assignee-select", "priya")
    choose(console, "#template-select", "refund_approved")
    click(console, "#template-apply")
    console.qtbot.waitUntil(lambda: ticket(console, ticket_id)["reply_draft"].startswith("Hi "))
    click(console, "#teach-button")
    keep_the_recording(console)
    console.qtbot.waitUntil(lambda: len(console.api_json("recordings")) == 1)


def keep_the_recording(console) -> str:
    """The person keeps what they recorded, in the shell's own dialog; returns what it says."""
    gate = console.session.consent.gate
    console.qtbot.waitUntil(
        lambda: any(d.headline.text().startswith("Keep the recording") for d in gate.open_dialogs())
    )
    dialog = next(d for d in gate.open_dialogs() if d.headline.text().startswith("Keep the"))
    text = dialog.text_shown()
    dialog.approve_button.click()
    return text


def approve_when_asked(console) -> QTimer:
    """A person at the window: clicks Approve in the native dialog as soon as it opens."""
    timer = QTimer()
    gate = console.session.consent.gate

    def look() -> None:
        if gate.open_dialogs():
            timer.stop()
            gate.open_dialogs()[0].approve_button.click()

    timer.timeout.connect(look)
    timer.start(100)
    return timer


@pytest.mark.slow
def test_teach_publish_and_call_on_another_ticket(agent_console):
    console = agent_console
    teach_assign_refund(console, "T-1006")
    recording = console.api_json("recordings")[0]
    assert [s["command"] for s in recording["steps"]] == [
        "select_ticket",
        "set_ticket_assignee",
        "set_ticket_template".replace("set_ticket_template", "apply_template"),
    ]
    # The person closes the draft editor the app opened; the agent drafts instead.
    before_a = ticket(console, "T-1006")
    before_b = ticket(console, "T-1011")
    assert before_b["assignee"] != "priya"
    server = console.session.agent
    approver = approve_when_asked(console)

    async def agent():
        async with mcp_client(server.url, server.token) as c:
            listed = json.loads(
                (await c.call_tool("understudy_list_recordings", {})).content[0].text
            )
            rec_id = listed["recordings"][0]["id"]
            drafted = await c.call_tool(
                "understudy_draft_tool",
                {
                    "recording_id": rec_id,
                    "name": "assign_refund",
                    "description": "Assign a refund ticket to Priya and fill the refund reply.",
                    "parameters": {
                        "ticket_id": {"description": "The ticket to handle."},
                        "assignee": {"bind": False},
                        "template_id": {"bind": False},
                    },
                },
            )
            draft = json.loads(drafted.content[0].text)
            published = json.loads(
                (await c.call_tool("understudy_publish_tool", {"draft_id": draft["draft_id"]}))
                .content[0]
                .text
            )
            via_run = await c.call_tool(
                "understudy_run_tool",
                {"name": "assign_refund", "arguments": {"ticket_id": "T-1011"}},
            )
            names = [t.name for t in (await c.list_tools()).tools]
            direct = await c.call_tool("assign_refund", {"ticket_id": "T-1014"})
            frozen = await c.call_tool("assign_refund", {})
            return draft, published, via_run, names, direct, frozen

    draft, published, via_run, names, direct, frozen = run_client(console.qtbot, agent, 90)
    approver.stop()
    assert draft["problems"] == []
    assert draft["tool"]["inputSchema"]["required"] == ["ticket_id"]
    assert draft["tool"]["annotations"]["readOnlyHint"] is False
    assert published["status"] == "published"
    assert via_run.is_error is False and "assign_refund" in names
    assert direct.is_error is False
    assert frozen.is_error and frozen.structured_content["code"] == "invalid_input"
    for other in ("T-1011", "T-1014"):
        changed = ticket(console, other)
        assert changed["assignee"] == "priya"
        assert changed["reply_draft"].startswith("Hi ")
    after_a = ticket(console, "T-1006")
    assert after_a == before_a, "ticket A is not touched again"
    # Badge, library counts.
    console.qtbot.waitUntil(
        lambda: (
            console.js("document.querySelector('#row-T-1011 .badge')?.textContent ?? ''")
            == "by agent via Assign refund"
        )
    )
    # The run's notice names the tool as people know it too (the agent gave it no title).
    assert console.js("document.getElementById('run-toast').textContent").startswith(
        "Assign refund (an agent) — step "
    )
    # run_tool and the direct call; the call without ticket_id was refused by the endpoint's
    # schema check before it reached the page.
    usage = console.library.usage("assign_refund")
    assert (usage.runs, usage.successes) == (2, 2)
    tool = console.library.get("assign_refund")
    assert tool.origin.by == "agent" and tool.origin.client == "mcp"
    # Revoke from the library asks in the native dialog, then removes it everywhere.
    console.js("document.getElementById('library-button').click(); true")
    click(console, "[data-tool='assign_refund'] .btn.danger")
    assert approve_in_dialog(console) == "Revoke tool “Assign refund”"
    console.qtbot.waitUntil(lambda: "assign_refund" not in console.listed())
    assert console.taught() == []
    console.qtbot.waitUntil(
        lambda: "assign_refund" not in [t["name"] for t in console.window.bridge.page_tools]
    )


@pytest.mark.slow
def test_the_publish_call_times_out_to_awaiting_approval_then_approval_publishes_once(
    agent_console, monkeypatch
):
    console = agent_console
    teach_assign_refund(console, "T-1006")
    server = console.session.agent
    server.approval_hold_s = 0.5  # a shorter hold than 45 s keeps the test quick

    async def ask():
        async with mcp_client(server.url, server.token) as c:
            listed = json.loads(
                (await c.call_tool("understudy_list_recordings", {})).content[0].text
            )
            draft = json.loads(
                (
                    await c.call_tool(
                        "understudy_draft_tool",
                        {
                            "recording_id": listed["recordings"][0]["id"],
                            "name": "assign_refund_b",
                            "description": "Assign to Priya and reply.",
                            "parameters": {
                                "ticket_id": {"description": "The ticket."},
                                "assignee": {"description": "Who takes it."},
                                "template_id": {"description": "Which reply."},
                            },
                        },
                    )
                )
                .content[0]
                .text
            )
            first = json.loads(
                (await c.call_tool("understudy_publish_tool", {"draft_id": draft["draft_id"]}))
                .content[0]
                .text
            )
            return draft["draft_id"], first

    draft_id, first = run_client(console.qtbot, ask, 60)
    assert first["status"] == "awaiting_approval"
    assert "cannot approve" in first["message"]
    # The dialog stayed open after the agent's call returned; the person approves now.
    assert approve_in_dialog(console) == "Publish tool “Assign refund b”"
    # What the person approved is done then, not left for the agent's retry to do.
    console.qtbot.waitUntil(lambda: console.taught() == ["assign_refund_b"])
    assert console.session.consent.gate.ledger.pending() == 0

    async def retry():
        async with mcp_client(server.url, server.token) as c:
            a = json.loads(
                (await c.call_tool("understudy_publish_tool", {"draft_id": draft_id, "poll": True}))
                .content[0]
                .text
            )
            b = json.loads(
                (await c.call_tool("understudy_publish_tool", {"draft_id": draft_id, "poll": True}))
                .content[0]
                .text
            )
            return a, b

    again, once_more = run_client(console.qtbot, retry, 30)
    assert again["status"] == "published" and once_more["status"] == "published"
    assert console.taught() == ["assign_refund_b"]
    assert console.session.consent.gate.ledger.pending() == 0
    assert console.session.consent.gate.open_dialogs() == []  # the second retry asked no one


def publish_from_editor(
    console, name: str, expect_dialog: bool = True, title: str | None = None
) -> None:
    """The person's path: the editor the app opened after Stop, then the overlay. With a
    `title`, the tool's name in words is typed first (what agents call it follows it)."""
    if title is not None:
        console.js(
            "(() => { const t = document.getElementById('draft-title');"
            f" t.value = {json.dumps(title)}; t.dispatchEvent(new Event('input'));"
            " return true; })()"
        )
    console.js(
        "(() => { const fields = '#teach-panel .described input';"
        " for (const i of document.querySelectorAll(fields)) if (!i.value)"
        " { i.value = 'The value to use.'; i.dispatchEvent(new Event('input')); }"
        f" const n = document.getElementById('draft-name'); n.value = {json.dumps(name)};"
        " n.dispatchEvent(new Event('input')); return true; })()"
    )
    console.qtbot.waitUntil(
        lambda: console.js("!document.getElementById('draft-publish').disabled")
    )
    console.js("document.getElementById('draft-publish').click(); true")
    if not expect_dialog:
        return
    # In the desktop app the overlay only says it is waiting; the native dialog decides.
    console.qtbot.waitUntil(
        lambda: (
            "Waiting for your approval in the Understudy dialog"
            in console.js("document.getElementById('approval').textContent")
        )
    )
    approve_in_dialog(console)


@pytest.mark.slow
def test_a_person_publishes_without_an_agent_and_tools_come_back_after_restart(
    console_factory, data_dir
):
    first = console_factory(data_dir)
    teach_assign_refund(first, "T-1006")
    # The person lets whoever runs it choose the assignee and the reply, besides the ticket.
    first.js(
        "(() => { for (const id of ['ask-assignee', 'ask-template_id'])"
        " document.getElementById(id).click(); return true; })()"
    )
    publish_from_editor(first, "handle_refund")
    first.qtbot.waitUntil(lambda: first.taught() == ["handle_refund"])
    assert first.library.get("handle_refund").origin.by == "person"
    first.qtbot.waitUntil(
        lambda: first.js("document.getElementById('library-count').textContent") == "1"
    )
    first.session.close()

    second = console_factory(data_dir)
    assert "handle_refund" in second.listed()
    tool = second.library.callable("handle_refund")
    assert tool.input_schema["required"] == ["ticket_id", "assignee", "template_id"]
    # The page mirrors it into its own WebMCP registration again, from the shell's copy.
    second.qtbot.waitUntil(
        lambda: "handle_refund" in [t["name"] for t in second.window.bridge.page_tools]
    )


@pytest.mark.slow
def test_a_seventeenth_tool_is_refused_with_a_message(console):
    teach_assign_refund(console, "T-1006")
    for i in range(16):
        console.js(
            "document.querySelector('#recordings-button').click();"
            "document.querySelector('#teach-panel .card .btn.primary').click(); true"
        )
        publish_from_editor(console, f"tool_{i:02d}")
        console.qtbot.waitUntil(lambda i=i: len(console.taught()) == i + 1)
    console.js(
        "document.querySelector('#recordings-button').click();"
        "document.querySelector('#teach-panel .card .btn.primary').click(); true"
    )
    publish_from_editor(console, "tool_16", expect_dialog=False)
    console.qtbot.waitUntil(
        lambda: (
            "16 tools are active" in console.js("document.getElementById('toast-text').textContent")
        )
    )
    assert len(console.taught()) == 16
    assert len([n for n in console.listed() if not n.startswith("understudy_")]) == 16


@pytest.mark.slow
def test_a_broken_step_is_repaired_and_the_rest_kept(console, tmp_path):
    teach_assign_refund(console, "T-1006")
    # By default the tool asks only for the ticket; the rest stays as taught.
    publish_from_editor(console, "assign_refund")
    console.qtbot.waitUntil(lambda: len(console.taught()) == 1)
    # A new queue arrives in which nobody is called Priya: the assign step now fails.
    queue = {
        "format": "understudy-queue",
        "version": 1,
        "tickets": [
            {
                "id": "N-1",
                "subject": "Refund please",
                "body": "Charged twice.",
                "requester": "Kim <kim@example.com>",
                "created": "2026-11-20T10:00:00Z",
                "status": "new",
                "priority": "normal",
                "assignee": None,
                "tags": [],
            }
        ],
        "assignees": [{"id": "ana", "name": "Ana García"}],
        "templates": [
            {
                "id": "refund_approved",
                "name": "Refund approved",
                "body": "Hi {{requester_first_name}}, refunded.",
            }
        ],
    }
    path = tmp_path / "next.json"
    path.write_text(json.dumps(queue), encoding="utf-8")
    with console.qtbot.waitSignal(console.window.queue_loaded):
        console.window.open_queue(path, confirm=False)
    assert console.library.usage("assign_refund").runs == 0
    # Run it from the library form: it fails at step 2 and changes nothing.
    console.js("document.getElementById('library-button').click(); true")
    console.js("document.querySelector('[data-tool=assign_refund] .btn.primary').click(); true")
    console.qtbot.waitUntil(
        lambda: console.js("Boolean(document.querySelector('#library-panel form'))")
    )
    console.js(
        "(() => { const i = document.querySelector('#library-panel form [name=ticket_id]');"
        " i.value = 'N-1'; document.querySelector('#library-panel form button').click();"
        " return true; })()"
    )
    console.qtbot.waitUntil(
        lambda: (console.library.usage("assign_refund").last_failure or {}).get("step") == 2
    )
    assert console.dispatch("get_ticket", {"ticket_id": "N-1"})["result"]["reply_draft"] == ""
    # Repair step 2: the person assigns to Ana instead, and approves the repaired tool.
    console.js("document.getElementById('library-button').click(); true")
    console.qtbot.waitUntil(
        lambda: console.js(
            "Boolean([...document.querySelectorAll('#library-panel .btn')]"
            ".find((b) => b.textContent === 'Repair step 2'))"
        )
    )
    console.js(
        "[...document.querySelectorAll('#library-panel .btn')]"
        ".find((b) => b.textContent === 'Repair step 2').click(); true"
    )
    console.qtbot.waitUntil(lambda: console.js("document.body.classList.contains('recording')"))
    console.dispatch("select_ticket", {"ticket_id": "N-1"})
    choose(console, "#assignee-select", "ana")
    described = console.library.get("assign_refund").parsed.description
    assert "Priya Raman" in described  # what agents read names the person of step 2
    click(console, "#teach-button")
    shown = approve_in_dialog(console, full=True)
    assert shown.startswith("Repair tool “Assign and reply”")
    # The repair brings what agents read up to date, and the approval shows it.
    assert "What agents will read" in shown and "Ana García" in shown
    console.qtbot.waitUntil(lambda: console.library.usage("assign_refund").last_failure is None)
    tool = console.library.callable("assign_refund")
    assert tool.parsed.description == described.replace("Priya Raman", "Ana García")
    assert [s["command"] for s in tool.steps] == [
        "select_ticket",
        "set_ticket_assignee",
        "apply_template",
    ]
    assert tool.steps[1]["args"]["assignee"] == {
        "from": "const",
        "value": "ana",
        "ref": {"kind": "person", "name": "Ana García"},
    }
    # Runs again, now end to end.
    console.js(
        "window.understudyShell.api.dispatch('set_ticket_assignee', {ticket_id: 'N-1',"
        " assignee: null}); true"
    )
    console.flush()  # the person's change is in before the run
    result = console.run_tool("assign_refund", {"ticket_id": "N-1"})
    assert result["ok"] is True
    assert stored_ticket(console.session.paths.root, "N-1")["assignee"] == "ana"
    # The page draws the run a moment later, from the change feed.
    console.qtbot.waitUntil(lambda: ticket(console, "N-1")["assignee"] == "ana")


@pytest.mark.slow
def test_library_disable_enable_badges_highlight_and_recording_housekeeping(console):
    teach_assign_refund(console, "T-1006")
    publish_from_editor(console, "assign_refund")
    console.qtbot.waitUntil(lambda: "assign_refund" in console.listed())
    # A person runs it: the row gets a "you" badge and the driven control lights up.
    result = console.run_tool("assign_refund", {"ticket_id": "T-1014"})
    assert result["ok"] is True
    # The page draws the run from the change feed, a moment after its answer.
    console.qtbot.waitUntil(
        lambda: console.js("document.querySelectorAll('.is-highlighted').length") == 1
    )
    assert "step 3" in console.js("document.getElementById('run-toast').textContent")
    shown = console.library.get("assign_refund").shown_name
    assert "_" not in shown
    console.qtbot.waitUntil(
        lambda: (
            console.js("document.querySelector('#row-T-1014 .badge')?.textContent ?? ''")
            == f"by you via {shown}"
        )
    )
    # Disable frees the slot and takes the tool away from agents; Enable brings it back.
    console.js("document.getElementById('library-button').click(); true")
    console.js(
        "[...document.querySelectorAll('[data-tool=assign_refund] .btn')]"
        ".find((b) => b.textContent === 'Turn off…').click(); true"
    )
    # What agents are shown changes only with the person's say in the shell's own dialog.
    assert approve_in_dialog(console) == "Turn tool off “Assign and reply”"
    console.qtbot.waitUntil(lambda: "assign_refund" not in console.listed())
    assert console.library.get("assign_refund").status == "disabled"
    console.qtbot.waitUntil(
        lambda: (
            "0 of 16 active" in console.js("document.getElementById('library-panel').textContent")
        )
    )
    console.qtbot.waitUntil(
        lambda: console.js(
            "Boolean([...document.querySelectorAll('[data-tool=assign_refund] .btn')]"
            ".find((b) => b.textContent === 'Turn on…'))"
        )
    )
    console.js(
        "[...document.querySelectorAll('[data-tool=assign_refund] .btn')]"
        ".find((b) => b.textContent === 'Turn on…').click(); true"
    )
    # Turning a tool back on gives agents power again: the person approves it natively.
    assert approve_in_dialog(console) == "Turn tool back on “Assign and reply”"
    console.qtbot.waitUntil(lambda: "assign_refund" in console.listed())
    # Recordings are renamed and deleted in the shell's own dialogs.
    console.js("document.getElementById('recordings-button').click(); true")
    console.js(
        "[...document.querySelectorAll('#teach-panel .card .btn')]"
        ".find((b) => b.textContent === 'Rename…').click(); true"
    )
    person = console.window.person
    console.qtbot.waitUntil(lambda: getattr(person, "rename_dialog", None) is not None)
    person.rename_dialog.setTextValue("Refund routine")
    person.rename_dialog.accept()
    console.qtbot.waitUntil(lambda: console.library.recordings()[0]["name"] == "Refund routine")
    console.qtbot.waitUntil(lambda: console.api_json("recordings")[0]["name"] == "Refund routine")
    console.js("document.querySelector('#teach-panel .card .btn.danger').click(); true")
    assert approve_in_dialog(console) == "Delete the recording “Refund routine”"
    console.qtbot.waitUntil(lambda: console.library.recordings() == [])
    console.qtbot.waitUntil(lambda: console.api_json("recordings") == [])


TEACH_BANK_FEEDS = """(() => {
  const $ = (id) => document.getElementById(id);
  const f = $('filter-text'); f.value = 'bank feed';
  f.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}));
  $('bulk-tag-input').value = 'bank-feed';
  $('bulk-tag-form').requestSubmit();
  return true;
})()"""


@pytest.mark.slow
def test_a_persons_publish_dialog_says_what_a_trial_run_would_change(console):
    click(console, "#teach-button")
    console.qtbot.waitUntil(lambda: console.js("document.body.classList.contains('recording')"))
    console.js(TEACH_BANK_FEEDS)
    click(console, "#teach-button")
    keep_the_recording(console)
    console.qtbot.waitUntil(lambda: len(console.api_json("recordings")) == 1)
    # Take the demonstration's tags off again, so a run now would have work to do.
    console.dispatch("untag_matching_tickets", {"tag": "bank-feed"})
    matching = console.api_json("summary")["matches"]
    assert matching >= 2
    log_before = len(console.api_json("log"))
    count_tagged = (
        "window.understudyShell.api.exportQueue().tickets"
        ".filter((t) => t.tags.includes('bank-feed')).length"
    )
    tagged = console.js(count_tagged)
    console.js(
        "(() => { const n = document.getElementById('draft-name'); n.value = 'tag_bank_feeds';"
        " n.dispatchEvent(new Event('input'));"
        " document.getElementById('draft-publish').click(); return true; })()"
    )
    text = approve_in_dialog(console, full=True)
    assert "If it ran now" in text
    assert f"it would change {matching} tickets: T-" in text
    # The trial was rolled back: no ticket was tagged, in the database or on screen.
    console.qtbot.waitUntil(lambda: "tag_bank_feeds" in console.taught())
    assert console.js(count_tagged) == tagged
    assert len(console.api_json("log")) == log_before
    saved = json.loads(console.window.keeper.store.document_json())["tickets"]
    assert sum("bank-feed" in t["tags"] for t in saved) == tagged
