"""What agents, the page and the library's buttons are told when a call or an ask cannot be
done, word for word, in the running app: the call path (agent/calls.py), the queue of runs
(library/runner.py), and what the console page asks the shell. The lower-level refusals are
in tests/test_refusals.py and tests/test_model.py."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from agent_helpers import TEST_TOOLS, publish_definitions
from waiting import HANG_S

from understudy_desktop.agent import builtins
from understudy_desktop.bridge.protocol import LibraryAsk, PublishAsk, TeachAsk
from understudy_desktop.library.runner import RunJob, RunResult


@pytest.fixture
def shell(console):
    publish_definitions(console, [TEST_TOOLS["lookup_ticket"], TEST_TOOLS["close_ticket"]])
    console.library.save_recording(
        {
            "id": "rec-taught",
            "name": "Looked at a ticket",
            "createdAt": "2026-12-01T09:00:00Z",
            "steps": [{"command": "get_ticket", "payload": {"ticket_id": "T-1001"}}],
        }
    )
    return console


def call(console, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return console.wait_for(
        lambda done: console.session.calls.call(name, arguments, "a test", done)
    )


def refusal(answer: dict[str, Any]) -> tuple[str, str]:
    assert answer.get("isError") is True, answer
    return answer["code"], answer["message"]


DRAFT = {"recording_id": "rec-taught", "name": "look_again", "description": "Looks again."}


def test_a_call_that_cannot_be_made_is_told_why_in_words(shell):
    said = {
        "unknown tool": refusal(call(shell, "no_such_tool", {})),
        "no recording": refusal(call(shell, builtins.DRAFT_TOOL, {**DRAFT, "recording_id": "x"})),
        "no pair": refusal(call(shell, builtins.DRAFT_TOOL, {**DRAFT, "pair_with": "rec-x"})),
    }
    assert said == {
        "unknown tool": ("not_found", "There is no tool by that name. Call tools/list."),
        "no recording": (
            "not_found",
            "No recording has that id. Call understudy_list_recordings.",
        ),
        "no pair": ("not_found", "The recording to pair with does not exist."),
    }
    code, message = refusal(call(shell, builtins.DRAFT_TOOL, {"name": "x"}))
    assert code == "invalid_input" and message.startswith("The arguments do not fit: ")
    code, message = refusal(call(shell, "lookup_ticket", {"ticket_id": 5}))
    assert code == "invalid_input"
    assert message.startswith("The arguments do not fit the tool's schema: ")
    # A recording the shell cannot turn into a tool (tests/test_draft_without_page.py has more).
    shell.library.save_recording(
        {"id": "rec-empty", "name": "Nothing", "createdAt": "2026-12-01T09:00:00Z", "steps": []}
    )
    assert refusal(call(shell, builtins.DRAFT_TOOL, {**DRAFT, "recording_id": "rec-empty"})) == (
        "cannot_generalize",
        "This recording has no steps. Press Teach, do the routine once, then Stop.",
    )


def test_every_listed_built_in_tool_is_answered(shell):
    """A built-in tool in builtin_tools.json with no code to answer it would fail as a bug;
    each one listed gets an answer (here: what it says about arguments that name nothing)."""
    samples = {
        builtins.LIST_RECORDINGS: {},
        builtins.DRAFT_TOOL: {**DRAFT, "recording_id": "rec-none"},
        builtins.RUN_TOOL: {"name": "no_such_tool"},
        "understudy_publish_tool": {"draft_id": "draft-none"},
        "understudy_revoke_tool": {"name": "no_such_tool"},
    }
    assert set(samples) == set(builtins.builtin_tools())
    answers = {name: call(shell, name, args) for name, args in samples.items()}
    assert "recordings" in answers[builtins.LIST_RECORDINGS]
    assert {n: a.get("code") for n, a in answers.items() if n != builtins.LIST_RECORDINGS} == {
        builtins.DRAFT_TOOL: "not_found",
        builtins.RUN_TOOL: "not_found",
        "understudy_publish_tool": "not_found",
        "understudy_revoke_tool": "not_found",
    }


def test_a_run_the_person_did_not_approve_says_the_agent_cannot_approve_it(shell):
    library = shell.library
    shell.wait_for(lambda done: library.ask_every_time("lookup_ticket", done))
    answers: list[dict[str, Any]] = []
    shell.session.calls.call("lookup_ticket", {"ticket_id": "T-1001"}, "a test", answers.append)
    gate = shell.session.consent.gate
    # Until the dialog opens, or the call is answered without one (which fails at once).
    shell.qtbot.waitUntil(lambda: bool(gate.open_dialogs()) or bool(answers))
    assert gate.open_dialogs(), f"the run was answered without asking the person: {answers}"
    gate.open_dialogs()[0].reject_button.click()
    shell.qtbot.waitUntil(lambda: bool(answers))
    assert refusal(answers[0]) == (
        "consent_denied",
        "lookup_ticket asks the person before each run, and they did not approve this one (or "
        "did not answer in time). You cannot approve it yourself.",
    )


def test_a_run_from_the_page_the_person_did_not_approve_says_so(shell, monkeypatch):
    """The library's Run… (or a script sending the same ask) for a tool that asks each time:
    the native dialog opens, and a No is said in words."""
    library = shell.library
    shell.wait_for(lambda done: library.ask_every_time("lookup_ticket", done))
    gate = shell.session.consent.gate
    port = shell.window.port
    replies: list[Any] = []
    monkeypatch.setattr(port, "reply", lambda _ask_id, value: replies.append(value))
    run = LibraryAsk(
        kind="library", action="run", tool="lookup_ticket", input={"ticket_id": "T-1001"}
    )
    port.asked.emit("ask-run", run)
    shell.qtbot.waitUntil(lambda: bool(gate.open_dialogs()) or bool(replies))
    assert gate.open_dialogs(), f"the run was answered without asking the person: {replies}"
    gate.open_dialogs()[0].reject_button.click()
    shell.qtbot.waitUntil(lambda: bool(replies))
    reply = replies[0].model_dump(mode="json")
    assert (reply["code"], reply["message"]) == (
        "consent_denied",
        "Lookup ticket did not run: it asks before each run, and this one was not approved.",
    )


def job(console, results: list[RunResult]) -> RunJob:
    tool = console.library.callable("close_ticket")
    assert tool is not None
    return RunJob(tool, {"ticket_id": "T-1002"}, "agent", "a test", 30.0, results.append)


def test_a_run_cancelled_before_it_began_is_told_so_and_changes_nothing(shell):
    runner = shell.session.calls.runner
    db = shell.session.db
    before = shell.dispatch("get_ticket", {"ticket_id": "T-1002"})["result"]["status"]
    # The writer is busy, so the first run has not begun its transaction and the second waits.
    held = threading.Event()
    busy = db.submit(lambda _conn: held.wait(HANG_S))
    first: list[RunResult] = []
    second: list[RunResult] = []
    running = runner.submit(job(shell, first))
    waiting = runner.submit(job(shell, second))
    runner.cancel(waiting)
    runner.cancel(running)
    held.set()
    busy.result()
    shell.qtbot.waitUntil(lambda: bool(first) and bool(second))
    for result in (first[0], second[0]):
        assert result.outcome == "cancelled"
        assert refusal(result.answer) == (
            "cancelled",
            "close_ticket was stopped before it started.",
        )
    shell.flush()
    assert shell.dispatch("get_ticket", {"ticket_id": "T-1002"})["result"]["status"] == before


def asked(console, monkeypatch, body: object) -> dict[str, Any]:
    """Something the page asks the shell, and the shell's reply to it."""
    port = console.window.port
    replies: list[Any] = []
    monkeypatch.setattr(port, "reply", lambda _ask_id, value: replies.append(value))
    port.asked.emit("ask-1", body)
    console.qtbot.waitUntil(lambda: bool(replies))
    reply = replies[0]
    # The shell's reply is a model of bridge/to_page.py; the page gets its plain form.
    return reply if isinstance(reply, dict) else reply.model_dump(mode="json")


def test_what_the_page_asks_about_a_tool_that_is_not_there_is_refused(shell, monkeypatch):
    gone = LibraryAsk(kind="library", action="run", tool="ghost_tool")
    repair = PublishAsk(kind="publish", replaces="ghost_tool", repairStep=0)
    teach = TeachAsk(kind="teach", action="start", repairTool="lookup_ticket", repairStep=9)
    said = {
        "gone": refusal(asked(shell, monkeypatch, gone)),
        "repair": refusal(asked(shell, monkeypatch, repair)),
        "teach": refusal(asked(shell, monkeypatch, teach)),
    }
    assert said == {
        "gone": ("not_found", "That tool is not in your library any more."),
        "repair": ("not_found", "There is no such tool to repair."),
        "teach": ("not_found", "There is no such tool or step to repair."),
    }
    assert shell.session.consent.gate.open_dialogs() == []
    assert not shell.session.model.teaching.active


def test_a_run_from_the_library_that_cannot_run_or_does_not_fit_is_refused(shell, monkeypatch):
    unfit = LibraryAsk(kind="library", action="run", tool="lookup_ticket", input={"ticket_id": 5})
    code, message = refusal(asked(shell, monkeypatch, unfit))
    assert code == "invalid_input" and message.startswith("Some answers do not fit: ")
    shell.wait_for(lambda done: shell.library.disable("lookup_ticket", done))
    off = LibraryAsk(kind="library", action="run", tool="lookup_ticket", input={})
    shown = shell.library.get("lookup_ticket").shown_name
    assert refusal(asked(shell, monkeypatch, off)) == (
        "not_found",
        f"{shown} cannot run now. Check its status in the library.",
    )


def test_a_recording_the_page_cannot_be_given_is_not_drafted(shell):
    # An odd recording left by an older version: no createdAt, so it does not fit the page's
    # protocol; the agent is told it cannot be used, and nothing is sent to the page.
    shell.library.save_recording({"id": "rec-odd", "name": "Odd", "steps": []})
    answer = call(shell, builtins.DRAFT_TOOL, {**DRAFT, "recording_id": "rec-odd"})
    assert refusal(answer) == ("cannot_generalize", "The recording cannot be used.")


def test_an_answer_for_the_page_that_fits_no_reply_is_refused_not_left_waiting():
    from understudy_desktop.bridge.to_page import CommandDone, reply_of

    shown = reply_of({"ok": "perhaps"}, CommandDone)
    assert (shown.code, shown.message) == ("internal", "The app's answer was not understood.")


def test_a_rename_the_person_cancels_is_told_so(shell, monkeypatch):
    from understudy_desktop.bridge.protocol import RecordingAsk

    port = shell.window.port
    replies: list[Any] = []
    monkeypatch.setattr(port, "reply", lambda _ask_id, value: replies.append(value))
    port.asked.emit("ask-1", RecordingAsk(kind="recording", action="rename", id="rec-taught"))
    person = shell.window.person
    shell.qtbot.waitUntil(lambda: getattr(person, "rename_dialog", None) is not None)
    person.rename_dialog.reject()
    shell.qtbot.waitUntil(lambda: bool(replies))
    told = replies[0]
    told = told if isinstance(told, dict) else told.model_dump()
    assert (told["code"], told["message"]) == ("consent_denied", "Not renamed.")
    assert shell.library.recording("rec-taught")["name"] == "Looked at a ticket"


def test_an_agents_typo_in_a_ticket_id_does_not_count_against_the_tool(shell):
    """The tool rightly refused a ticket this queue does not have: the agent is told, and the
    library's card does not say the tool failed (nor offer to repair it)."""
    before = shell.library.usage("close_ticket")
    answer = call(shell, "close_ticket", {"ticket_id": "T-9999"})
    assert refusal(answer) == (
        "step_failed",
        "Step 1 (Set status) failed: That ticket is not in this queue. Check its id (for "
        "example T-1001). Nothing had changed yet.",
    )
    assert answer["badInput"] is True
    shell.settled()
    after = shell.library.usage("close_ticket")
    assert (after.runs, after.successes, after.last_failure) == (
        before.runs,
        before.successes,
        before.last_failure,
    )
    # A failure of the tool's own counts as ever.
    ok = call(shell, "close_ticket", {"ticket_id": "T-1003"})
    assert ok["ok"] is True
    assert shell.library.usage("close_ticket").runs == before.runs + 1
