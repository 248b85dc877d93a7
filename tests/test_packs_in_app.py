"""Tool Packs through the running app: export, import into a fresh data dir, run; menus,
the command line, and markup shown as text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from test_teach_e2e import publish_from_editor, teach_assign_refund

from understudy_desktop.consent.approvals import definition_hash
from understudy_desktop.packs.importer import ImportPlan
from understudy_desktop.shell.pack_dialogs import ImportPackDialog

PACKS = Path(__file__).parent / "fixtures" / "packs"
EXAMPLES = sorted((Path(__file__).parent.parent / "packs").glob("*.understudy-pack.json"))


def import_and_wait(console, path: Path, replace: bool = False) -> list[str]:
    packs = console.window.packs
    with console.qtbot.waitSignal(packs.imported, timeout=20_000) as blocker:
        packs.import_pack(path, confirm=False, replace=replace)
    return blocker.args[0]


def refused(console, path: Path) -> str:
    packs = console.window.packs
    shown: list[str] = []
    packs._show_problem = lambda title, message: shown.append(message)
    with console.qtbot.waitSignal(packs.import_failed, timeout=20_000) as blocker:
        packs.import_pack(path, confirm=False)
    assert shown, "a refusal is shown to the person"
    return blocker.args[0]


@pytest.mark.slow
def test_export_then_import_into_a_fresh_data_dir_runs_the_same(console_factory, tmp_path):
    first = console_factory(tmp_path / "a")
    teach_assign_refund(first, "T-1006")
    publish_from_editor(first, "assign_refund")
    first.qtbot.waitUntil(lambda: len(first.api_json("tools")) == 1)
    pack_path = tmp_path / "shared.understudy-pack.json"
    with first.qtbot.waitSignal(first.window.packs.exported, timeout=20_000):
        first.window.packs.export_pack(pack_path, ["assign_refund"])
    data = pack_path.read_bytes()
    assert b"T-1006" not in data and b"Derek" not in data
    args = {"ticket_id": "T-1011", "assignee": "priya", "template_id": "refund_approved"}
    here = first.call("runTool", "assign_refund", args).value
    ticket_here = first.dispatch("get_ticket", {"ticket_id": "T-1011"})["result"]

    second = console_factory(tmp_path / "b")
    assert import_and_wait(second, pack_path) == ["assign_refund"]
    tool = second.api_json("tools")[0]
    assert tool["author"] == "pack"
    # The import wrote an approval record for exactly the imported definition.
    assert second.session.consent.approvals.matches(
        "assign_refund", definition_hash(tool["definition"])
    )
    there = second.call("runTool", "assign_refund", args).value
    ticket_there = second.dispatch("get_ticket", {"ticket_id": "T-1011"})["result"]
    assert there == here
    assert ticket_there == ticket_here


@pytest.mark.slow
def test_a_clash_is_renamed_or_replaced_and_bad_packs_change_nothing(console):
    good = PACKS / "good.understudy-pack.json"
    assert import_and_wait(console, good) == ["assign_refund"]
    assert import_and_wait(console, good) == ["assign_refund_2"]
    assert import_and_wait(console, good, replace=True) == ["assign_refund"]
    before = console.api_json("tools")
    records = console.session.consent.approvals.get("assign_refund")
    for bad in sorted((PACKS / "bad").glob("*.json"))[:6]:
        message = refused(console, bad)
        assert "Nothing was changed" in message or bad.name in message
    assert console.api_json("tools") == before
    assert console.session.consent.approvals.get("assign_refund") == records


def test_names_and_descriptions_from_a_pack_are_shown_as_text(qtbot):
    hostile = '<img src=x onerror="alert(1)"><b>bold</b>'
    plan = ImportPlan(
        definitions=[
            {
                "name": "x",
                "description": hostile,
                "annotations": {"readOnlyHint": True, "untrustedContentHint": False},
            }
        ],
        author=hostile,
    )
    dialog = ImportPackDialog(plan, "evil.understudy-pack.json")
    qtbot.addWidget(dialog)
    assert hostile in dialog.tools.item(0).text()  # list items never render markup
    labels = dialog.findChildren(QLabel)
    assert labels
    assert all(label.textFormat() == Qt.TextFormat.PlainText for label in labels)
    assert any(hostile in label.text() for label in labels)  # the author, shown as typed


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_each_example_pack_imports(console, path):
    data = path.read_bytes()
    # Made by teaching on T-1006 and T-1008: those recorded tickets must not travel.
    assert b"T-1006" not in data and b"T-1008" not in data
    names = import_and_wait(console, path)
    assert names
    assert {t["name"] for t in console.api_json("tools")} == set(names)


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
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-1500:]
    approvals = json.loads((tmp_path / "d" / "approvals.json").read_text())
    assert [a["name"] for a in approvals["approvals"]] == ["assign_refund"]


def test_dropping_a_pack_on_the_window_imports_it_after_the_preview(console, monkeypatch):
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    shown: list[str] = []

    def accept(dialog):
        shown.append(dialog.tools.item(0).text())
        return ImportPackDialog.DialogCode.Accepted

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
    with console.qtbot.waitSignal(console.window.packs.imported, timeout=20_000) as blocker:
        console.window.dropEvent(drop)
    assert blocker.args[0] == ["assign_refund"]
    assert shown and shown[0].startswith("assign_refund — ")
