"""The consent ledger, the gate and the real dialog: seed 002's invariants and hostile cases."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from understudy_desktop.approval.dialog import DialogText
from understudy_desktop.approval.gate import ConsentGate, Decision
from understudy_desktop.consent.ledger import (
    CONSENT_TTL_S,
    ConsentLedger,
    DialogApproval,
    Grant,
    command_line_grant,
    consent_key,
)
from understudy_desktop.consent.manifest import (
    PUBLISH_TOOL,
    REVOKE_TOOL,
    SENSITIVE_META_TOOLS,
)

PACKAGE = Path(__file__).resolve().parent.parent / "understudy_desktop"
ARGS_A = {"name": "assign_refund", "definition": "a" * 64}
ARGS_B = {"name": "close_spam", "definition": "b" * 64}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def gate(qtbot, clock):
    g = ConsentGate(ConsentLedger(clock))
    yield g
    for dialog in g.open_dialogs():
        dialog.close()


def ask(gate, action=PUBLISH_TOOL, args=ARGS_A):
    """An action function guarded by the gate: it records whether it ran."""
    ran: list[Decision] = []

    def decided(decision: Decision, grant: Grant | None) -> None:
        # A grant comes with GRANTED and only with it, and covers exactly this action.
        assert (grant is not None) == (decision is Decision.GRANTED)
        assert grant is None or grant.covers(action.name, args)
        ran.append(decision)

    text = DialogText(f'{action.verb} "{args["name"]}"', "details", "test agent")
    gate.request(action, args, text, decided)
    return ran


def click(button) -> None:
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


# --- the four invariants ------------------------------------------------------------------


def test_without_consent_the_action_is_held_and_never_runs(gate):
    ran = ask(gate)
    assert ran == []
    assert len(gate.open_dialogs()) == 1
    click(gate.open_dialogs()[0].reject_button)
    assert ran == [Decision.DENIED]


def test_with_matching_consent_it_runs_once(gate):
    ran = ask(gate)
    click(gate.open_dialogs()[0].approve_button)
    assert ran == [Decision.GRANTED]
    assert gate.ledger.pending() == 0  # consumed at once by this one execution


def test_consent_for_one_action_does_not_pass_another(gate):
    gate.ledger.grant(DialogApproval(consent_key(PUBLISH_TOOL.name, ARGS_A)))
    assert not gate.ledger.consume(REVOKE_TOOL.name, ARGS_A)
    assert not gate.ledger.consume(PUBLISH_TOOL.name, ARGS_B)
    assert gate.ledger.consume(PUBLISH_TOOL.name, ARGS_A)


def test_a_consumed_consent_does_not_replay(gate):
    gate.ledger.grant(DialogApproval(consent_key(PUBLISH_TOOL.name, ARGS_A)))
    assert gate.ledger.consume(PUBLISH_TOOL.name, ARGS_A)
    assert not gate.ledger.consume(PUBLISH_TOOL.name, ARGS_A)
    ran = ask(gate)
    assert ran == [] and len(gate.open_dialogs()) == 1  # asks the person again


# --- a hostile model ------------------------------------------------------------------------


def test_twenty_hammered_calls_open_one_dialog_and_run_once(gate):
    outcomes = [ask(gate) for _ in range(20)]
    assert len(gate.open_dialogs()) == 1
    click(gate.open_dialogs()[0].approve_button)
    flat = [o[0] for o in outcomes]
    assert flat.count(Decision.GRANTED) == 1
    assert flat.count(Decision.ALREADY_USED) == 19


def test_reordered_argument_keys_cannot_buy_a_second_execution(gate):
    reordered = {"definition": ARGS_A["definition"], "name": ARGS_A["name"]}
    assert consent_key(PUBLISH_TOOL.name, reordered) == consent_key(PUBLISH_TOOL.name, ARGS_A)
    gate.ledger.grant(DialogApproval(consent_key(PUBLISH_TOOL.name, ARGS_A)))
    assert gate.ledger.consume(PUBLISH_TOOL.name, reordered)
    assert not gate.ledger.consume(PUBLISH_TOOL.name, ARGS_A)


def test_expiry_is_checked_on_both_sides_of_the_boundary(clock):
    ledger = ConsentLedger(clock)
    key = consent_key(PUBLISH_TOOL.name, ARGS_A)
    ledger.grant(DialogApproval(key))
    clock.now += CONSENT_TTL_S - 0.001
    assert ledger.consume(PUBLISH_TOOL.name, ARGS_A)  # just inside: valid
    ledger.grant(DialogApproval(key))
    clock.now += CONSENT_TTL_S
    assert not ledger.consume(PUBLISH_TOOL.name, ARGS_A)  # exactly at the limit: expired


def test_a_guessed_hash_fails_without_burning_the_real_consent(gate):
    real = consent_key(PUBLISH_TOOL.name, ARGS_A)
    gate.ledger.grant(DialogApproval(real))
    for guess in ("0" * 64, real[:-1] + ("0" if real[-1] != "0" else "1"), ""):
        assert not gate.ledger.consume_key(PUBLISH_TOOL.name, guess)
    assert gate.ledger.consume(PUBLISH_TOOL.name, ARGS_A)


def test_sensitivity_comes_from_the_manifest_not_from_arguments():
    # An agent adding "sensitive": false to its arguments changes nothing: the manifest is
    # keyed by the tool's name alone, and the key binds the full arguments.
    assert SENSITIVE_META_TOOLS["understudy_publish_tool"] is PUBLISH_TOOL
    with_flag = {**ARGS_A, "sensitive": False}
    assert consent_key(PUBLISH_TOOL.name, with_flag) != consent_key(PUBLISH_TOOL.name, ARGS_A)


def test_consent_for_tool_a_does_not_pass_for_tool_b_nor_publish_for_revoke(gate):
    ran_a = ask(gate, PUBLISH_TOOL, ARGS_A)
    click(gate.open_dialogs()[0].approve_button)
    assert ran_a == [Decision.GRANTED]
    ran_b = ask(gate, PUBLISH_TOOL, ARGS_B)
    ran_revoke = ask(gate, REVOKE_TOOL, ARGS_A)
    assert ran_b == [] and ran_revoke == []
    assert len(gate.open_dialogs()) == 2


def test_escape_rejects(gate, qtbot):
    ran = ask(gate)
    dialog = gate.open_dialogs()[0]
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    assert ran == [Decision.DENIED]
    assert gate.ledger.pending() == 0


def test_enter_alone_does_not_approve(gate):
    ran = ask(gate)
    dialog = gate.open_dialogs()[0]
    QTest.keyClick(dialog, Qt.Key.Key_Return)
    assert ran == [Decision.DENIED]


def test_what_is_approved_after_the_caller_stopped_waiting_is_done_at_once(gate):
    """The agent got "awaiting approval" after the hold; the person approves later: the
    action is carried out then (by the caller that asked), once, and nothing is left
    waiting in the ledger for a retry to do it again."""
    stopped: list[Decision] = []
    ticket = gate.request(
        PUBLISH_TOOL, ARGS_A, DialogText("h", "d", "agent"), lambda d, _g: stopped.append(d)
    )
    ticket.park()  # the agent got awaiting_approval
    click(gate.open_dialogs()[0].approve_button)
    assert stopped == [Decision.GRANTED]
    assert gate.ledger.pending() == 0
    assert ask(gate) == []  # a further call asks again: nothing is done twice


def test_the_dialog_text_is_plain_text(gate):
    hostile = {"name": "<b>x</b><img src=y>", "definition": "c" * 64}
    ask(gate, PUBLISH_TOOL, hostile)
    dialog = gate.open_dialogs()[0]
    assert dialog.headline.textFormat() == Qt.TextFormat.PlainText
    assert "<img" in dialog.headline.text()


def test_only_the_dialog_approve_handler_grants():
    """Every call of .grant( in the package, found by parsing the source (this fails the
    moment anyone adds a second grant)."""
    sites = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    if (
                        isinstance(inner, ast.Call)
                        and isinstance(inner.func, ast.Attribute)
                        and inner.func.attr == "grant"
                    ):
                        sites.append((path.relative_to(PACKAGE).as_posix(), node.name))
    assert sorted(sites) == [
        ("approval/dialog.py", "_on_approve"),
        ("shell/pack_dialogs.py", "_on_import"),
    ]


def test_grants_are_made_only_by_the_ledger():
    """A Grant is what the library demands for any change that makes a tool callable; code
    outside the ledger cannot forge one, and the command-line grant is used only for --yes."""
    with pytest.raises(TypeError):
        Grant("publish_tool", consent_key(PUBLISH_TOOL.name, ARGS_A), "dialog")
    sites = []
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("Grant", "command_line_grant")
            ):
                sites.append((path.relative_to(PACKAGE).as_posix(), node.func.id))
    assert sorted(set(sites)) == [
        ("consent/ledger.py", "Grant"),
        ("shell/pack_actions.py", "command_line_grant"),
    ]
    grant = command_line_grant(PUBLISH_TOOL.name, ARGS_A)
    assert grant.covers(PUBLISH_TOOL.name, ARGS_A)
    assert not grant.covers(PUBLISH_TOOL.name, ARGS_B)
    assert not grant.covers(REVOKE_TOOL.name, ARGS_A)


def test_a_withdrawn_request_closes_its_dialog_and_grants_nothing(gate):
    heard: list[Decision] = []
    first = gate.request(
        PUBLISH_TOOL, ARGS_A, DialogText("h", "d", "agent"), lambda d, _g: heard.append(d)
    )
    second = gate.request(
        PUBLISH_TOOL, ARGS_A, DialogText("h", "d", "agent"), lambda d, _g: heard.append(d)
    )
    dialog = gate.open_dialogs()[0]
    first.withdraw()
    assert gate.open_dialogs() == [dialog]  # another request still waits on it
    second.withdraw()
    assert gate.open_dialogs() == []
    assert not dialog.isVisible()
    assert heard == [] and gate.ledger.pending() == 0


def test_a_parked_request_keeps_the_dialog_when_others_withdraw(gate):
    parked = gate.request(PUBLISH_TOOL, ARGS_A, DialogText("h", "d", "agent"), lambda *_: None)
    parked.park()  # an agent told awaiting_approval may retry
    withdrawn = gate.request(PUBLISH_TOOL, ARGS_A, DialogText("h", "d", "a"), lambda *_: None)
    withdrawn.withdraw()
    assert len(gate.open_dialogs()) == 1


def test_the_ledger_refuses_anything_but_a_dialog_approval():
    ledger = ConsentLedger()
    with pytest.raises(TypeError):
        ledger.grant(consent_key(PUBLISH_TOOL.name, ARGS_A))  # type: ignore[arg-type]
    assert ledger.pending() == 0


def test_a_long_approval_scrolls_within_the_screen_and_nothing_is_cut(gate, qtbot):
    """Forty steps and a warning on the test's small screen: the dialog stays on the screen,
    its words scroll (the last line can be reached), and its buttons stay in view."""
    steps = "\n".join(f"{n}. Set the status of the ticket to pending." for n in range(1, 41))
    warning = "It can change many tickets at once (every ticket a search matches)."
    text = DialogText(
        'Publish "assign_refund"', warning, "test agent", sections=(("Steps", steps),)
    )
    gate.request(PUBLISH_TOOL, ARGS_A, text, lambda _d, _g: None)
    dialog = gate.open_dialogs()[0]
    qtbot.waitUntil(dialog.isVisible)
    room = dialog.screen().availableGeometry()
    assert dialog.frameGeometry().height() <= room.height()
    bar = dialog.scroller.verticalScrollBar()
    assert bar.maximum() > 0, "the words are longer than the dialog: they must scroll"
    last = dialog.sections[-1]
    assert last.text().endswith("40. Set the status of the ticket to pending.")
    assert dialog.scroller.widget().isAncestorOf(last)
    bar.setValue(bar.maximum())
    dialog.scroller.ensureWidgetVisible(last, 0, 0)
    assert dialog.approve_button.isVisible() and dialog.reject_button.isVisible()
    assert dialog.rect().contains(dialog.approve_button.geometry().bottomRight())


def test_keeping_a_recording_is_the_default_and_throwing_it_away_asks(gate, qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from understudy_desktop.consent.manifest import KEEP_RECORDING

    ran: list[Decision] = []
    text = DialogText(
        "Keep", "d", "you, in the console", approve="Keep", reject="Discard", keep_by_default=True
    )
    gate.request(KEEP_RECORDING, {"id": "r1", "steps": 2}, text, lambda d, _g: ran.append(d))
    dialog = gate.open_dialogs()[0]
    assert "Nothing is kept until you choose Keep." in dialog.text_shown()
    asked: list[str] = []

    def answer(_parent, _title, words, *_rest):
        asked.append(words)
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "question", answer)
    click(dialog.reject_button)
    assert ran == [] and len(asked) == 1 and "cannot be brought back" in asked[0]
    QTest.keyClick(dialog, Qt.Key.Key_Return)  # Enter keeps it
    assert ran == [Decision.GRANTED]
