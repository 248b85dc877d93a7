"""Each refusal the security core can give, asserted word for word, at the lowest level it is
decided: may this tool run, does a grant cover a change, the cap on active tools, a tool
following its recording, the output cut, a command the console does not have. Fast (no
browser), so tools/mutants.py can run them against every kept mutant in seconds."""

from __future__ import annotations

from typing import Any

import pytest

from understudy_desktop.agent.results import OUTPUT_BUDGET, error_result, fit
from understudy_desktop.catalogue import current_catalogue
from understudy_desktop.consent.ledger import ConsentLedger, DialogApproval, Grant, consent_key
from understudy_desktop.consent.manifest import ENABLE_TOOL, PUBLISH_TOOL, REVIEW_TOOL
from understudy_desktop.consent.manifest import RELAX_TOOL as RELAX
from understudy_desktop.consent.manifest import REPAIR_TOOL as REPAIR
from understudy_desktop.consent.manifest import REVOKE_TOOL as REVOKE
from understudy_desktop.consent.seal import load_seal
from understudy_desktop.definition import Approved, Definition
from understudy_desktop.library.checks import complete, follows_recording, follows_repair
from understudy_desktop.library.library import (
    Library,
    LibraryError,
    new_tool,
    publish_args,
    relax_args,
    repair_args,
    tool_args,
)
from understudy_desktop.library.may_run import ToolState, may_run
from understudy_desktop.library.model import Origin, TaughtTool
from understudy_desktop.model.commands import CommandError, apply
from understudy_desktop.qt_thread import init_main_thread_dispatch
from understudy_desktop.rules import rules
from understudy_desktop.store.database import Database

NOT_APPROVED = "A person has not approved exactly this change."
CAP = rules().maxTaughtTools


# --- may this tool run now -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("state", "approved", "deadline", "code", "message"),
    [
        (None, "d", None, "not_found", "t is not in the person's library (it was revoked)."),
        (
            ToolState("needs_review", "d", "withdrawn"),
            "d",
            None,
            "approval_changed",
            "t was withdrawn from the team library by its author, so it no longer runs.",
        ),
        (
            ToolState("needs_review", "d", "team_off"),
            "d",
            None,
            "approval_changed",
            "t was turned off for the whole team by the team lead, so it does not run.",
        ),
        (
            ToolState("needs_review", "d"),
            "d",
            None,
            "approval_changed",
            "t changed since a person approved it. It is held back until they review it again.",
        ),
        (
            ToolState("active", "other"),
            "d",
            None,
            "approval_changed",
            "t changed since a person approved it. It is held back until they review it again.",
        ),
        (
            ToolState("disabled", "d"),
            "d",
            None,
            "approval_changed",
            "t was turned off in the person's library.",
        ),
        (
            ToolState("active", "d"),
            "d",
            99.0,
            "timeout",
            "t waited its turn too long and did not run.",
        ),
    ],
)
def test_a_tool_that_may_not_run_is_told_why(state, approved, deadline, code, message):
    assert may_run("t", state, approved, deadline, now=100.0) == {
        "isError": True,
        "code": code,
        "message": message,
    }


def test_an_active_tool_as_approved_runs_until_its_deadline():
    assert may_run("t", ToolState("active", "d"), "d", None, now=100.0) is None
    assert may_run("t", ToolState("active", "d"), "d", 100.0, now=100.0) is None


# --- the library: grants, the cap, what may be called ----------------------------------------
def definition(name: str) -> Approved:
    raw = {
        "name": name,
        "title": "",
        "description": "Lists the templates.",
        "inputSchema": {"type": "object", "properties": {}},
        "steps": [{"command": "list_templates", "args": {}}],
    }
    return complete(Definition.of(raw), current_catalogue())


def grant(action: Any, args: dict[str, Any]) -> Grant:
    """What a person's Approve in the dialog hands over, for exactly these arguments."""
    ledger = ConsentLedger()
    ledger.grant(DialogApproval(consent_key(action.name, args)))
    made = ledger.consume(action.name, args)
    assert made is not None
    return made


@pytest.fixture
def library(qtbot, tmp_path):
    init_main_thread_dispatch()
    db = Database(tmp_path)
    lib = Library(db, load_seal(tmp_path / "keys"))
    lib.load()
    yield lib
    db.close()


def settle(qtbot, start) -> LibraryError | None:
    """Run a library call and wait for its answer."""
    answers: list[LibraryError | None] = []
    start(answers.append)
    qtbot.waitUntil(lambda: bool(answers))
    return answers[0]


def publish(qtbot, library: Library, tool: TaughtTool, given: Grant | None = None):
    given = given if given is not None else grant(PUBLISH_TOOL, publish_args(tool))
    return settle(qtbot, lambda done: library.publish(tool, given, done))


def test_no_change_is_made_without_a_grant_that_covers_exactly_it(qtbot, library):
    tool = new_tool(definition("lists"), Origin(by="person"))
    other = new_tool(definition("other_one"), Origin(by="person"))
    # A grant for another tool, and one for another action on this tool, cover nothing here.
    for given in (grant(PUBLISH_TOOL, publish_args(other)), grant(ENABLE_TOOL, tool_args(tool))):
        refused = publish(qtbot, library, tool, given)
        assert refused is not None and (refused.code, refused.message) == (
            "not_approved",
            NOT_APPROVED,
        )
    assert library.get("lists") is None
    assert publish(qtbot, library, tool) is None
    assert library.callable("lists") is not None


def _publish_ok(qtbot, library: Library, name: str) -> None:
    assert publish(qtbot, library, new_tool(definition(name), Origin(by="person"))) is None


def test_the_cap_on_active_tools_is_exact(qtbot, library):
    for i in range(CAP):
        _publish_ok(qtbot, library, f"tool_{i}")  # the last one reaches the cap exactly
    refused = publish(qtbot, library, new_tool(definition("one_too_many"), Origin(by="person")))
    assert refused is not None and refused.code == "cap_reached"
    assert refused.message == (
        f"You already have {CAP} active tools; {CAP} is the most agents can choose from well. "
        "Turn off or revoke one in the library first."
    )
    assert library.get("one_too_many") is None
    # A tool added turned off does not count; turning it on at the cap is refused.
    spare = new_tool(definition("spare"), Origin(by="person"), status="disabled")
    assert publish(qtbot, library, spare) is None
    on = settle(qtbot, lambda d: library.enable("spare", grant(ENABLE_TOOL, tool_args(spare)), d))
    assert on is not None and on.code == "cap_reached"
    assert on.message == f"{CAP} tools are active already. Turn another off first."
    # One place freed: now it may come on.
    assert settle(qtbot, lambda d: library.disable("tool_0", d)) is None
    assert library.callable("tool_0") is None  # a turned-off tool cannot be called
    spare = library.get("spare")
    assert spare is not None
    on = settle(qtbot, lambda d: library.enable("spare", grant(ENABLE_TOOL, tool_args(spare)), d))
    assert on is None and library.callable("spare") is not None


def test_a_name_in_use_is_refused_and_the_first_tool_kept(qtbot, library):
    _publish_ok(qtbot, library, "lists")
    again = new_tool(definition("lists").but(description="Another."), Origin(by="agent"))
    refused = publish(qtbot, library, again)
    assert refused is not None and refused.code == "name_taken"
    assert refused.message == "A tool with that name exists already. Choose another name."
    kept = library.get("lists")
    assert kept is not None and kept.definition["description"] == "Lists the templates."


def test_a_tool_whose_definition_no_longer_hashes_to_its_approval_cannot_be_called(qtbot, library):
    _publish_ok(qtbot, library, "lists")
    tool = library.get("lists")
    assert tool is not None
    tampered = tool.but(definition={**tool.definition, "description": "Something else."})
    assert not tampered.callable
    assert tool.but(status="disabled").callable is False
    assert tool.but(status="needs_review").callable is False
    assert tool.callable


def test_a_stored_definition_that_is_not_a_definition_never_runs():
    """A row edited by hand (or damaged) so that it still hashes to its digest, but is not a
    definition at all: what a run would execute is unknown, so it is not callable."""
    from understudy_desktop.library.model import definition_hash

    odd = definition("lists").stored()
    odd["steps"] = [{"command": "list_templates", "args": {"x": {"from": "elsewhere"}}}]
    tool = new_tool(definition("lists"), Origin(by="person"))
    broken = tool.but(definition=odd, digest=definition_hash(odd))
    assert broken.parsed is None and not broken.intact and not broken.callable
    assert tool.parsed is not None and tool.parsed.steps[0].command == "list_templates"
    # Its dialog says so rather than wording steps that do not exist.
    from understudy_desktop.approval.wording import tool_sections

    catalogue = current_catalogue()
    assert tool_sections(broken.parsed, catalogue) == (
        (
            "What it does",
            "Understudy cannot read this tool's steps: it is not the tool that was approved. "
            "Revoke it, or bring it in again from its pack.",
        ),
    )
    assert dict(tool_sections(tool.parsed, catalogue))["What it does"].startswith("1. ")


def test_a_tool_the_team_lead_turned_off_cannot_be_reviewed_back_on(qtbot, library):
    _publish_ok(qtbot, library, "lists")
    held = settle(qtbot, lambda d: library.hold_back("lists", "team", d, held="team_off"))
    assert held is None
    tool = library.get("lists")
    assert tool is not None
    args = {"name": "lists", "definition": tool.digest}
    refused = settle(qtbot, lambda d: library.review("lists", grant(REVIEW_TOOL, args), d))
    assert refused is not None and refused.code == "approval_changed"
    assert refused.message == (
        "Your team lead turned this tool off for the whole team. It can be used again once "
        "they turn it back on."
    )
    assert library.callable("lists") is None


# --- a tool follows its recording ------------------------------------------------------------
RECORDING = {"steps": [{"command": "select_ticket"}, {"command": "set_ticket_priority"}]}


def steps(*commands: str) -> Definition:
    return Definition.model_validate(
        {**definition("t").as_dict(), "steps": [{"command": c, "args": {}} for c in commands]}
    )


def test_a_tool_does_the_steps_it_was_recorded_doing():
    assert follows_recording(steps("select_ticket", "set_ticket_priority"), RECORDING) is None
    differs = "The tool's steps are not the steps of the recording it was made from."
    for other in (
        steps("select_ticket", "set_ticket_status"),
        steps("set_ticket_priority", "select_ticket"),
        steps("select_ticket"),
        steps("select_ticket", "set_ticket_priority", "set_ticket_priority"),
    ):
        assert follows_recording(other, RECORDING) == differs


def test_a_repair_changes_only_the_step_that_was_redone():
    catalogue = current_catalogue()
    old = steps("select_ticket", "set_ticket_priority", "set_ticket_status")
    redo = {"steps": [{"command": "set_ticket_assignee"}]}
    fixed = steps("select_ticket", "set_ticket_assignee", "set_ticket_status")
    assert follows_repair(fixed, old, 1, redo, catalogue) is None
    assert (
        follows_repair(steps("select_ticket", "set_ticket_assignee"), old, 1, redo, catalogue)
        == "A repair changes exactly one step of the tool."
    )
    both = steps("set_ticket_priority", "set_ticket_assignee", "set_ticket_status")
    assert (
        follows_repair(both, old, 1, redo, catalogue)
        == "A repair may only change the step that was re-done."
    )
    wrong = steps("select_ticket", "set_ticket_status", "set_ticket_status")
    assert (
        follows_repair(wrong, old, 1, redo, catalogue)
        == "The repaired step is not the step that was re-done."
    )


# --- a definition's problems name the field, never the value ---------------------------------
M = "zz_marker_text"  # a value an agent (or a colleague's pack) wrote


def test_each_problem_with_a_definition_is_said_without_repeating_what_it_holds():
    from understudy_desktop.library.checks import definition_problems

    budgets = rules().budgets
    const_bad = {"from": "const", "value": M}  # not a priority the command accepts
    definition = {
        "name": "understudy_" + M + "X" * 40,
        "title": M * 10,
        "description": M * 60,
        "inputSchema": {
            "type": "object",
            "additionalProperties": False,
            "required": [M + "_required"],
            "properties": {
                M.upper(): {"type": "string", "description": M * 20, M + "_kw": 1},
            },
        },
        "steps": [
            {"command": M, "args": {}},
            {"command": "set_ticket_priority", "args": {M: const_bad}},
            {
                "command": "set_ticket_priority",
                "args": {
                    "ticket_id": {"from": "param", "name": M},
                    "priority": const_bad,
                },
            },
            {
                "command": "set_ticket_status",
                "args": {"status": {"from": "step", "step": 5, "path": "status"}},
            },
        ],
    }
    problems = definition_problems(Definition.model_validate(definition), current_catalogue())
    assert problems == [
        f"The tool's name must have 1 to {budgets.name} lower-case letters, digits or _,"
        " starting with a letter.",
        "The tool's name may not start with understudy_: those are the app's own.",
        f"The tool's title is over {budgets.title} characters.",
        f"The tool's description is over {budgets.description} characters.",
        "What the tool asks for breaks a rule: /properties/1: a keyword that is not allowed.",
        "What the tool asks for breaks a rule: /: a required property is not among its properties.",
        "A question the tool asks has a name that is not allowed.",
        f"A question the tool asks is described in over {budgets.paramDescription} characters.",
        "Step 1 uses a command this console does not have.",
        "Step 2 (Set priority) leaves out ticket_id, which its command needs.",
        "Step 2 (Set priority) leaves out priority, which its command needs.",
        "Step 2 sets a field its command does not have.",
        "Step 3 fills ticket_id with the answer to a question the tool does not ask.",
        "Step 3 (Set priority) has a fixed priority that the command does not accept.",
        "Step 4 (Set status) leaves out ticket_id, which its command needs.",
        "Step 4 takes status from a step that does not come before it.",
    ]
    assert not any(M in p or M.upper() in p for p in problems)
    blank = Definition.model_validate({**definition, "description": " "})
    assert definition_problems(blank, current_catalogue())[3] == (
        "The tool's description is empty."
    )


# --- what an agent is sent, and what the console accepts -------------------------------------
def test_a_result_is_cut_to_the_budget_and_says_so():
    assert fit("x" * OUTPUT_BUDGET) == "x" * OUTPUT_BUDGET
    cut = fit("x" * (OUTPUT_BUDGET + 1))
    assert len(cut) == OUTPUT_BUDGET
    assert cut.endswith(
        f" … [cut: the result was {OUTPUT_BUDGET + 1:,} characters; the limit is {OUTPUT_BUDGET:,}]"
    )
    big = error_result("tool_error", "m" * 5000, {"extra": "e" * 5000})
    assert big.structured_content == {"code": "tool_error", "message": "m" * 500}
    assert len(big.content[0].text) == OUTPUT_BUDGET


def test_the_output_budget_is_the_one_rules_json_gives():
    assert rules().budgets.output == OUTPUT_BUDGET


def test_a_command_the_console_does_not_have_is_refused():
    with pytest.raises(CommandError) as refused:
        apply(current_catalogue(), None, "drop_all_tickets", {})  # type: ignore[arg-type]
    assert refused.value.code == "unknown_command"
    assert str(refused.value.message) == "That is not a command of this console."


# --- the library's other refusals: a tool that is not there, or not in that state -------------
GONE = "No taught tool has that name."


def test_an_action_on_a_tool_not_in_the_library_is_refused_and_changes_nothing(qtbot, library):
    _publish_ok(qtbot, library, "lists")
    ghost = new_tool(definition("ghost"), Origin(by="person"))
    refused = {
        "revoke": settle(
            qtbot, lambda d: library.revoke("ghost", grant(REVOKE, tool_args(ghost)), d)
        ),
        "relax": settle(
            qtbot, lambda d: library.relax("ghost", grant(RELAX, relax_args("ghost")), d)
        ),
        "ask": settle(qtbot, lambda d: library.ask_every_time("ghost", d)),
        "hold": settle(qtbot, lambda d: library.hold_back("ghost", "changed", d)),
        "repair": settle(
            qtbot,
            lambda d: library.repair(
                "ghost", definition("ghost"), grant(REPAIR, repair_args("ghost", "a", "b")), d
            ),
        ),
        "review": settle(qtbot, lambda d: library.review("ghost", grant(REVIEW_TOOL, {}), d)),
    }
    said = {k: (e.code, e.message) if e else None for k, e in refused.items()}
    assert said == {
        "revoke": ("not_found", GONE),
        "relax": ("not_found", GONE),
        "ask": ("not_found", GONE),
        "hold": ("not_found", GONE),
        "repair": ("not_found", "There is no tool with that name to repair."),
        "review": ("not_found", "That tool is gone."),
    }
    assert [t.name for t in library.tools()] == ["lists"]


def test_turning_on_what_is_on_or_off_what_is_off_is_refused(qtbot, library):
    _publish_ok(qtbot, library, "lists")
    tool = library.get("lists")
    assert tool is not None
    on = settle(qtbot, lambda d: library.enable("lists", grant(ENABLE_TOOL, tool_args(tool)), d))
    assert on is not None and (on.code, on.message) == ("not_found", "That tool is not turned off.")
    assert settle(qtbot, lambda d: library.disable("lists", d)) is None
    off = settle(qtbot, lambda d: library.disable("lists", d))
    assert off is not None and (off.code, off.message) == ("not_found", "That tool is not active.")
    assert library.get("lists").status == "disabled"


def test_a_change_to_a_tool_deleted_underneath_is_refused(qtbot, library):
    """Another copy of the app (or a damaged file) removed the row: the change is not made
    up again from memory."""
    _publish_ok(qtbot, library, "lists")
    library._db.submit(lambda c: c.execute("DELETE FROM tools WHERE name = 'lists'")).result()
    gone = settle(qtbot, lambda d: library.disable("lists", d))
    assert gone is not None and (gone.code, gone.message) == ("not_found", "That tool is gone.")


def test_a_change_the_disk_refuses_is_said_in_plain_words(qtbot, library, monkeypatch):
    import sqlite3

    from understudy_desktop.library import store

    _publish_ok(qtbot, library, "lists")

    def full(*_args: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store, "write_tool", full)
    refused = settle(qtbot, lambda d: library.disable("lists", d))
    assert refused is not None and (refused.code, refused.message) == (
        "storage",
        "The change was not saved: the disk is full. Free some space, then try again.",
    )
    assert library.get("lists").status == "active"


# --- the consent flow's refusals, before any dialog opens ------------------------------------
@pytest.fixture
def consent(qtbot, library):
    from understudy_desktop.approval.gate import ConsentGate
    from understudy_desktop.approval.service import ConsentService
    from understudy_desktop.library.drafts import Drafts

    service = ConsentService(ConsentGate(ConsentLedger()), library, Drafts())
    yield service
    for dialog in service.gate.open_dialogs():
        dialog.close()


def answer_of(qtbot, start) -> dict[str, Any]:
    answers: list[dict[str, Any]] = []
    start(answers.append)
    qtbot.waitUntil(lambda: bool(answers))
    return answers[0]


def refusal(answer: dict[str, Any]) -> tuple[str, str]:
    assert answer.get("isError") is True, answer
    return answer["code"], answer["message"]


def test_what_cannot_be_done_is_refused_without_a_dialog(qtbot, library, consent):
    _publish_ok(qtbot, library, "lists")
    drafts = consent.drafts
    with_problems = drafts.add(definition("needs_work"), ["Step 1 is not ready."], "agent")
    taken = drafts.add(definition("lists").but(description="Other."), [], "agent")
    repair = drafts.add(definition("ghost"), [], "person", replaces="ghost")
    asked = {
        "no draft": lambda a: consent.publish("draft-nope", "an agent", None, False, a),
        "problems": lambda a: consent.publish(with_problems.id, "an agent", None, False, a),
        "taken": lambda a: consent.publish(taken.id, "an agent", None, False, a),
        "repair": lambda a: consent.publish(repair.id, "you", None, False, a),
        "revoke": lambda a: consent.revoke("ghost", "an agent", None, False, a),
        "relax": lambda a: consent.relax("ghost", a),
        "enable": lambda a: consent.enable("lists", "you", a),
        "review": lambda a: consent.review("lists", "you", a),
        "recording": lambda a: consent.delete_recording("rec-nope", a),
    }
    said = {k: refusal(answer_of(qtbot, start)) for k, start in asked.items()}
    assert said == {
        "no draft": ("not_found", "No draft has that id. Draft it again first."),
        "problems": ("blocked", "Fix these first, then draft again: Step 1 is not ready."),
        "taken": (
            "name_taken",
            "A tool with that name exists already. Choose another name; nothing was changed.",
        ),
        "repair": ("not_found", "There is no tool with that name to repair."),
        "revoke": ("not_found", GONE),
        "relax": ("not_found", GONE),
        "enable": ("not_found", "That tool is not turned off."),
        "review": ("not_found", "That tool does not need a review."),
        "recording": ("not_found", "That recording is gone."),
    }
    assert consent.gate.open_dialogs() == []
    assert settle(qtbot, lambda d: library.disable("lists", d)) is None
    off = refusal(answer_of(qtbot, lambda a: consent.disable("lists", a)))
    assert off == ("not_found", "That tool is not active.")


def test_publishing_at_the_cap_is_refused_before_the_dialog(qtbot, library, consent):
    for i in range(CAP):
        _publish_ok(qtbot, library, f"tool_{i}")
    draft = consent.drafts.add(definition("one_more"), [], "agent")
    said = refusal(
        answer_of(qtbot, lambda a: consent.publish(draft.id, "an agent", None, False, a))
    )
    assert said == (
        "cap_reached",
        f"{CAP} tools are active already, the most agents can choose from well. The person has "
        "to turn one off or revoke one first.",
    )
    assert consent.gate.open_dialogs() == []


def test_a_rejected_dialog_and_a_second_ask_for_one_approval_are_told_apart(qtbot, consent):
    first = consent.drafts.add(definition("first_one"), [], "agent")
    answers: list[dict[str, Any]] = []
    consent.publish(first.id, "an agent", None, False, answers.append)
    qtbot.waitUntil(lambda: bool(consent.gate.open_dialogs()))
    consent.gate.open_dialogs()[0].reject_button.click()
    qtbot.waitUntil(lambda: bool(answers))
    assert refusal(answers[0]) == ("consent_denied", "The person rejected this in the dialog.")
    # The same request twice while one dialog is open: the approval does it once.
    again: list[dict[str, Any]] = []
    consent.publish(first.id, "an agent", None, False, again.append)
    consent.publish(first.id, "an agent", None, False, again.append)
    qtbot.waitUntil(lambda: bool(consent.gate.open_dialogs()))
    assert len(consent.gate.open_dialogs()) == 1
    consent.gate.open_dialogs()[0].approve_button.click()
    qtbot.waitUntil(lambda: len(again) == 2)
    assert sorted(a.get("status") or refusal(a)[1] for a in again) == [
        "This was approved once and has already been done.",
        "published",
    ]


def test_a_tool_saved_but_not_handed_out_is_not_said_to_be_published(qtbot, consent, monkeypatch):
    draft = consent.drafts.add(definition("saved_only"), [], "agent")
    monkeypatch.setattr(consent.library, "callable", lambda _name: None)
    answers: list[dict[str, Any]] = []
    consent.publish(draft.id, "an agent", None, False, answers.append)
    qtbot.waitUntil(lambda: bool(consent.gate.open_dialogs()))
    consent.gate.open_dialogs()[0].approve_button.click()
    qtbot.waitUntil(lambda: bool(answers))
    assert refusal(answers[0]) == ("tool_error", "The tool was saved but is not available.")
