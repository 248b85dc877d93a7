"""Tool Packs through the running app: export, import into a fresh data dir, run; menus,
the command line, and markup shown as text."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDialog, QLabel
from test_teach_e2e import publish_from_editor, teach_assign_refund
from waiting import HANG_S

from understudy_desktop.catalogue import current_catalogue
from understudy_desktop.consent.ledger import ConsentLedger
from understudy_desktop.definition import Definition
from understudy_desktop.library.checks import complete
from understudy_desktop.library.model import definition_hash
from understudy_desktop.packs.importer import ImportPlan
from understudy_desktop.shell.pack_dialogs import ImportPackDialog
from understudy_desktop.team.signing import check

PACKS = Path(__file__).parent / "fixtures" / "packs"
CATALOGUE = current_catalogue()
EXAMPLES = sorted((Path(__file__).parent.parent / "packs").glob("*.understudy-pack.json"))


def import_and_wait(console, path: Path, replace: bool = False) -> list[str]:
    packs = console.window.packs
    with console.qtbot.waitSignal(packs.imported) as blocker:
        packs.import_pack(path, confirm=False, replace=replace)
    return blocker.args[0]


def refused(console, path: Path) -> str:
    packs = console.window.packs
    shown: list[str] = []
    packs._show_problem = lambda title, message: shown.append(message)
    with console.qtbot.waitSignal(packs.import_failed) as blocker:
        packs.import_pack(path, confirm=False)
    assert shown, "a refusal is shown to the person"
    return blocker.args[0]


@pytest.mark.slow
def test_export_then_import_into_a_fresh_data_dir_runs_the_same(console_factory, tmp_path):
    first = console_factory(tmp_path / "a")
    teach_assign_refund(first, "T-1006")
    publish_from_editor(first, "assign_refund")
    first.qtbot.waitUntil(lambda: len(first.taught()) == 1)
    pack_path = tmp_path / "shared.understudy-pack.json"
    first.window.packs.set_author("Dana Ortiz")
    with first.qtbot.waitSignal(first.window.packs.exported):
        first.window.packs.export_pack(pack_path, ["assign_refund"])
    data = pack_path.read_bytes()
    assert b"T-1006" not in data and b"Derek" not in data
    # The author is the name the person gave, not the computer's login; the file is signed
    # with her key, and a colleague's app reads it as hers.
    assert json.loads(data)["author"] == "Dana Ortiz"
    checked = check(data)
    assert checked.verdict == "signed"
    assert checked.key == first.session.team.identity.public_key
    # Clicking straight through made a tool that asks only for the ticket.
    args = {"ticket_id": "T-1011"}
    here = first.run_tool("assign_refund", args)
    ticket_here = first.dispatch("get_ticket", {"ticket_id": "T-1011"})["result"]

    second = console_factory(tmp_path / "b")
    provenance = second.window.packs.provenance(data, "Dana Ortiz")
    assert provenance.signature_line() == f"Signed by Dana Ortiz (key {checked.key_id})"
    assert import_and_wait(second, pack_path) == ["assign_refund"]
    tool = second.library.callable("assign_refund")
    assert tool.origin.by == "pack" and tool.origin.pack == pack_path.name
    # The import approved exactly the imported definition.
    assert tool.digest == definition_hash(tool.definition)
    assert tool.origin.author == "Dana Ortiz"
    there = second.run_tool("assign_refund", args)
    ticket_there = second.dispatch("get_ticket", {"ticket_id": "T-1011"})["result"]
    assert there == here
    assert ticket_there == ticket_here
    # The routine as taught, with nothing but the ticket given.
    assert ticket_here["assignee"] == "priya"
    assert ticket_here["reply_draft"].startswith("Hi ")


@pytest.mark.slow
def test_a_clash_is_renamed_or_replaced_and_bad_packs_change_nothing(console, tmp_path):
    good = PACKS / "good.understudy-pack.json"
    assert import_and_wait(console, good) == ["assign_refund"]
    # The same tools again: nothing is offered as new, and nothing is imported.
    told: list[str] = []
    console.window.packs._notify = told.append
    assert import_and_wait(console, good) == []
    assert told == [
        "You have “Assign refund” already, as good.understudy-pack.json has it. Nothing to import."
    ]
    assert console.taught() == ["assign_refund"]
    # Another tool under the same name: kept apart under a new name, or replacing.
    other = json.loads(good.read_text(encoding="utf-8"))
    other["tools"][0]["description"] = "Assigns a refund ticket, another way."
    variant = tmp_path / "variant.understudy-pack.json"
    variant.write_text(json.dumps(other), encoding="utf-8")
    assert import_and_wait(console, variant) == ["assign_refund_2"]
    assert import_and_wait(console, variant, replace=True) == ["assign_refund"]
    before = console.library.tools()
    for bad in sorted((PACKS / "bad").glob("*.json"))[:6]:
        message = refused(console, bad)
        assert "Nothing was changed" in message or bad.name in message
    assert console.library.tools() == before


def test_names_and_descriptions_from_a_pack_are_shown_as_text(qtbot):
    hostile = '<img src=x onerror="alert(1)"><b>bold</b>'
    definition = json.loads((PACKS / "good.understudy-pack.json").read_text())["tools"][0]
    definition = {**definition, "description": hostile, "title": ""}
    plan = ImportPlan(definitions=[complete(Definition.of(definition), CATALOGUE)], author=hostile)
    dialog = ImportPackDialog(
        plan, "<h1>evil</h1>.understudy-pack.json", ConsentLedger(), lambda _r, _m: {}, CATALOGUE
    )
    qtbot.addWidget(dialog)
    labels = dialog.findChildren(QLabel)
    assert labels
    assert all(label.textFormat() == Qt.TextFormat.PlainText for label in labels)
    text = dialog.text_shown()
    assert hostile in text  # the description and the author, shown as typed
    assert "<h1>evil</h1>.understudy-pack.json" in text


def preview_of(console, path: Path, choose: dict[str, str] | None = None) -> str:
    """Open the import preview for `path` as the person would, read it, pick `choose`
    (a missing name -> the entry to choose for it), and click Import."""
    shown: list[str] = []

    def read_and_import(dialog):
        for wanted, pick in (choose or {}).items():
            combo = next(
                c
                for c in dialog.findChildren(QComboBox)
                if c.accessibleName() == f"{wanted} on this queue"
            )
            combo.setCurrentIndex(combo.findText(pick))
        shown.append(dialog.text_shown())
        dialog.import_button.click()
        return dialog.result()

    original = ImportPackDialog.exec
    ImportPackDialog.exec = read_and_import
    try:
        with console.qtbot.waitSignal(console.window.packs.imported):
            console.window.packs.import_pack(path, confirm=True)
    finally:
        ImportPackDialog.exec = original
    return shown[0]


@pytest.mark.slow
def test_a_pack_preview_says_what_each_tool_does_with_its_values(console):
    text = preview_of(console, PACKS / "good.understudy-pack.json")
    # Who made it and when, each step in words with its fixed values, what it asks, what it
    # changes: the things a person judges a pack by.
    # Unsigned: the name is the file's word for it, and said to be.
    assert "which says it was made by test (nobody signed it) on 30 Nov 2026" in text
    assert "1. Open the ticket you choose" in text
    assert "2. Assign the same ticket to Priya Raman" in text
    assert "The ticket." in text
    assert "Tickets: assign." in text
    assert "select_ticket" not in text and "set_ticket_assignee" not in text
    # A tool with no title is named in words, not by the identifier agents call.
    assert "Assign refund" in text and "assign_refund" not in text


def pack_with(tmp_path: Path, name: str, value: str, ref_name: str | None) -> Path:
    pack = json.loads((PACKS / "good.understudy-pack.json").read_text())
    spec = pack["tools"][0]["steps"][1]["args"]["assignee"]
    spec["value"] = value
    if ref_name:
        spec["ref"] = {"kind": "person", "name": ref_name}
    pack["tools"][0]["name"] = name
    path = tmp_path / f"{name}.understudy-pack.json"
    path.write_text(json.dumps(pack), encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_tool_made_on_another_queue_runs_here_by_name_or_after_mapping(console, tmp_path):
    # Made where Priya Raman's id was "priya-raman": found here by her name, id "priya".
    same_name = pack_with(tmp_path, "by_name", "priya-raman", "Priya Raman")
    text = preview_of(console, same_name)
    assert "does not have" not in text  # nothing to map
    assert console.run_tool("by_name", {"ticket_id": "T-1011"})["ok"] is True
    assert console.dispatch("get_ticket", {"ticket_id": "T-1011"})["result"]["assignee"] == "priya"

    # Made where she is "P. Raman": the preview asks who that is here, before importing.
    other = pack_with(tmp_path, "mapped", "p-17", "P. Raman")
    text = preview_of(console, other, {"P. Raman": "Marcus Hale"})
    assert "P. Raman →" in text and "your queue does not have" in text
    tool = console.library.callable("mapped")
    assert tool.steps[1]["args"]["assignee"] == {
        "from": "const",
        "value": "marcus",
        "ref": {"kind": "person", "name": "Marcus Hale"},
    }
    assert console.run_tool("mapped", {"ticket_id": "T-1012"})["ok"] is True
    assert console.dispatch("get_ticket", {"ticket_id": "T-1012"})["result"]["assignee"] == "marcus"

    # Left unmapped, the run stops before changing anything and says which step's person is
    # missing (not the name: it came from the pack, and an agent reads the error too).
    unmapped = pack_with(tmp_path, "unmapped", "p-17", "P. Raman")
    preview_of(console, unmapped)
    before = console.dispatch("get_ticket", {"ticket_id": "T-1013"})["result"]
    failed = console.run_tool("unmapped", {"ticket_id": "T-1013"})
    assert failed.get("ok") is not True and failed["code"] == "not_found"
    assert failed["message"].startswith("The person step ") and failed["failedStep"] >= 1
    assert "P. Raman" not in failed["message"] and "Nothing was changed" in failed["message"]
    assert console.dispatch("get_ticket", {"ticket_id": "T-1013"})["result"] == before


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_each_example_pack_imports(console, path):
    data = path.read_bytes()
    # Made by teaching on T-1006 and T-1008: those recorded tickets must not travel.
    assert b"T-1006" not in data and b"T-1008" not in data
    names = import_and_wait(console, path)
    assert names
    assert set(console.taught()) == set(names)


def test_a_pack_on_the_command_line_is_imported(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "understudy_desktop",
            "--data-dir",
            str(tmp_path / "d"),
            "--no-agent",
            "--quit-after-load",
            str(PACKS / "good.understudy-pack.json"),
        ],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-1500:]
    db = sqlite3.connect(tmp_path / "d" / "understudy.sqlite3")
    rows = db.execute("SELECT name, status, digest, definition FROM tools").fetchall()
    db.close()
    assert [(name, status) for name, status, _d, _j in rows] == [("assign_refund", "active")]
    assert rows[0][2] == definition_hash(json.loads(rows[0][3]))


def test_dropping_a_pack_on_the_window_imports_it_after_the_preview(console, monkeypatch):
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    shown: list[str] = []

    def accept(dialog):
        # The person reads the preview and clicks Import: that click is the approval.
        shown.append(dialog.text_shown())
        dialog.import_button.click()
        return dialog.result()

    monkeypatch.setattr(ImportPackDialog, "exec", accept)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(PACKS / "good.understudy-pack.json"))])
    drop = QDropEvent(
        QPointF(50, 50),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    with console.qtbot.waitSignal(console.window.packs.imported) as blocker:
        console.window.dropEvent(drop)
    assert blocker.args[0] == ["assign_refund"]
    assert shown and "Assign refund\n" in shown[0]


def test_a_pack_whose_file_name_is_not_utf8_imports_with_a_readable_name(console, tmp_path):
    """A file name with bytes that are not UTF-8 (a name from an old zip or a Windows share):
    the pack imports, and the name the library keeps for where it came from is readable."""
    import os

    odd = tmp_path / os.fsdecode(b"caf\xe9-tools.understudy-pack.json")
    odd.write_bytes(EXAMPLES[0].read_bytes())
    names = import_and_wait(console, odd)
    assert names and set(names) <= set(console.taught())
    packs = [console.library.get(n).origin.pack for n in names]
    assert packs == ["caf\ufffd-tools.understudy-pack.json"] * len(names)


# --- what the import flow itself decides ---------------------------------------------------


def outcome_of_import(console, path: Path, confirm: bool) -> tuple[str, object, list[str]]:
    """('imported', names) or ('failed', message), and what the person was shown."""
    packs = console.window.packs
    shown: list[str] = []
    packs._show_problem = lambda title, message: shown.append(message)
    heard: list[tuple[str, object]] = []
    packs.imported.connect(lambda names: heard.append(("imported", names)))
    packs.import_failed.connect(lambda message: heard.append(("failed", message)))
    packs.import_pack(path, confirm=confirm)
    console.qtbot.waitUntil(lambda: bool(heard))
    return heard[0][0], heard[0][1], shown


def test_a_signed_pack_given_on_the_command_line_trusts_nobody(console, tmp_path):
    """--yes imports the file the person named, and nothing more: its signer stays a stranger
    (trusting a key is the preview's to ask)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from understudy_desktop.team import signing

    doc = json.loads((PACKS / "good.understudy-pack.json").read_text(encoding="utf-8"))
    signed = tmp_path / "signed.understudy-pack.json"
    signed.write_bytes(signing.sign(doc, Ed25519PrivateKey.generate()))
    decisions = console.window.packs._decisions
    before = decisions.trusted()
    assert outcome_of_import(console, signed, confirm=False)[:2] == ("imported", ["assign_refund"])
    assert decisions.trusted() == before


def test_a_pack_that_would_pass_the_cap_is_refused_whole(console, monkeypatch):
    from understudy_desktop.rules import rules

    monkeypatch.setattr(console.library, "active_count", lambda: rules().maxTaughtTools)
    kind, message, shown = outcome_of_import(
        console, PACKS / "good.understudy-pack.json", confirm=False
    )
    assert kind == "failed" and "Nothing was changed" in str(message) and shown
    assert console.taught() == []


def test_an_import_button_that_granted_nothing_imports_nothing(console, monkeypatch):
    """The preview closed as accepted, but no approval of exactly this import was made (the
    Import button was never clicked): nothing is imported."""
    monkeypatch.setattr(ImportPackDialog, "exec", lambda d: QDialog.DialogCode.Accepted.value)
    kind, message, _shown = outcome_of_import(
        console, PACKS / "good.understudy-pack.json", confirm=True
    )
    assert (kind, message) == (
        "failed",
        "good.understudy-pack.json was not imported: the approval did not match. Try again.",
    )
    assert console.taught() == []


def test_an_import_the_library_refuses_is_said_and_changes_nothing(console, monkeypatch):
    """Two previews of one pack: the second Import finds the tool there already. It is told,
    and the tool from the first stays as it was."""
    good = PACKS / "good.understudy-pack.json"
    packs = console.window.packs
    shown: list[str] = []
    packs._show_problem = lambda title, message: shown.append(message)
    heard: list[tuple[str, object]] = []

    def import_meanwhile(dialog):
        assert import_and_wait(console, good) == ["assign_refund"]
        # From here on, what the second import comes to.
        packs.imported.connect(lambda names: heard.append(("imported", names)))
        packs.import_failed.connect(lambda message: heard.append(("failed", message)))
        dialog.import_button.click()
        return dialog.result()

    monkeypatch.setattr(ImportPackDialog, "exec", import_meanwhile)
    packs.import_pack(good, confirm=True)
    console.qtbot.waitUntil(lambda: bool(heard))
    [(kind, message)] = heard
    assert kind == "failed" and str(message).startswith(
        "good.understudy-pack.json was not imported. Nothing was changed."
    )
    assert shown == [message]
    assert console.taught() == ["assign_refund"]


def test_the_authors_name_on_packs_is_kept_to_its_limit(console):
    from understudy_desktop.rules import rules

    console.window.packs.set_author("  " + "Dana Ortiz " * 40)
    assert console.window.packs.author() == ("Dana Ortiz " * 40)[: rules().limits.authorName]
