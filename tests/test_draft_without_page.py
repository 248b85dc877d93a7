"""An agent's draft is made by the shell from the recording it holds: the console page is not
asked, so a page that never answers, was wiped, or answers with a tool of its own choosing
neither breaks nor changes the draft."""

from __future__ import annotations

from typing import Any

import pytest
from agent_helpers import mcp_client, run_client

from understudy_desktop.agent import builtins
from understudy_desktop.catalogue import current_catalogue
from understudy_desktop.library.draft_compiler import build_draft
from understudy_desktop.library.drafts import check_draft

RECORDING = {
    "id": "rec-close",
    "name": "Closed a refund",
    "createdAt": "2026-12-01T09:00:00Z",
    "steps": [
        {
            "command": "select_ticket",
            "payload": {"ticket_id": "T-1001"},
            "result": {"ticket_id": "T-1001"},
        },
        {
            "command": "set_ticket_status",
            "payload": {"ticket_id": "T-1001", "status": "solved"},
            "provenance": {"status": "picked"},
        },
    ],
}
ARGS = {
    "recording_id": "rec-close",
    "name": "close_refund",
    "description": "Closes a refund ticket.",
    "parameters": {"ticket_id": {"description": "The refund ticket"}},
}


@pytest.fixture
def shell(console):
    console.library.save_recording(RECORDING)
    return console


def expected() -> dict[str, Any]:
    """The draft the shell's compiler and checks make of the recording, with no page."""
    catalogue = current_catalogue()
    built = build_draft(RECORDING, None, ARGS, catalogue)
    definition, _ = check_draft(built.definition, catalogue, RECORDING)
    assert definition is not None
    return definition.stored()


def draft(console, arguments: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = console.wait_for(
        lambda done: console.session.calls.call(builtins.DRAFT_TOOL, arguments, "a test", done),
    )
    return answer


def test_a_page_that_never_answers_is_not_asked_for_a_draft(shell, monkeypatch):
    bridge = shell.window.port.bridge
    sent: list[Any] = []
    # From here the page hears nothing and answers nothing.
    monkeypatch.setattr(bridge, "_send", lambda *message: sent.append(message))
    answer = draft(shell, ARGS)
    assert answer.get("isError") is not True, answer
    assert sent == []
    held = shell.session.consent.drafts.get(answer["draft_id"])
    assert held is not None and held.definition.stored() == expected()
    assert answer["problems"] == [] and answer["warnings"] == []
    assert answer["summary"]


def test_an_agent_drafts_while_the_page_reloads(shell):
    """A reload drops every call the page had not answered ("the page reloaded"); a draft
    asked meanwhile is made all the same, at once, without waiting for the page."""
    port = shell.window.port
    answers: list[dict[str, Any]] = []
    # Until the reloaded console says it is ready (one deadline, only to report a hang).
    with shell.qtbot.waitSignal(port.ready_changed, check_params_cb=bool):
        shell.page.triggerAction(shell.page.WebAction.Reload)
        shell.session.calls.call(builtins.DRAFT_TOOL, ARGS, "a test", answers.append)
        assert len(answers) == 1  # answered in the call itself: no page round trip
    answer = answers[0]
    assert answer.get("isError") is not True, answer
    held = shell.session.consent.drafts.get(answer["draft_id"])
    assert held is not None and held.definition.stored() == expected()


def test_an_agent_drafts_through_the_endpoint_with_the_page_silent(agent_console, monkeypatch):
    console = agent_console
    console.library.save_recording(RECORDING)
    monkeypatch.setattr(console.window.port.bridge, "_send", lambda *_message: None)
    server = console.session.agent

    async def go() -> Any:
        async with mcp_client(server.url, server.token) as client:
            return await client.call_tool(builtins.DRAFT_TOOL, ARGS)

    result = run_client(console.qtbot, go)
    assert not result.is_error, result
    made = result.structured_content
    held = console.session.consent.drafts.get(made["draft_id"])
    assert held is not None and held.definition.stored() == expected()
    assert made["tool"]["inputSchema"] == expected()["inputSchema"]
    assert made["summary"].startswith('"close_refund" does 2 recorded steps, asking for ticket_id.')


def test_a_recording_that_cannot_be_generalised_is_said_so_without_the_page(shell):
    shell.library.save_recording(
        {**RECORDING, "id": "rec-gone", "steps": [{"command": "no_such_command", "payload": {}}]}
    )
    answer = draft(shell, {**ARGS, "recording_id": "rec-gone"})
    assert (answer.get("code"), answer.get("message")) == (
        "cannot_generalize",
        'Step 1 uses "no_such_command", which this console no longer has.',
    )
    other = {**RECORDING, "id": "rec-other", "steps": RECORDING["steps"][:1]}
    shell.library.save_recording(other)
    paired = draft(shell, {**ARGS, "pair_with": "rec-other"})
    assert paired.get("code") == "cannot_generalize"
    assert paired["message"].startswith("These two recordings do not do the same steps")


def test_a_name_the_agent_gave_is_not_said_back(shell):
    marker = "Zq9echo7Zq"
    answer = draft(shell, {**ARGS, "parameters": {marker: {"bind": True}}})
    assert answer.get("code") == "cannot_generalize"
    assert marker not in str(answer)
    assert answer["message"].endswith("What could be asked: ticket_id, status.")
