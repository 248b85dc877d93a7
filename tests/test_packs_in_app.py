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
from PySide6.QtWidgets import QLabel
from test_teach_e2e import publish_from_editor, teach_assign_refund

from understudy_desktop.consent.ledger import ConsentLedger
from understudy_desktop.library.model import definition_hash
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
    first.qtbot.waitUntil(lambda: len(first.taught()) == 1)
    pack_path = tmp_path / "shared.understudy-pack.json"
    with first.qtbot.waitSignal(first.window.packs.exported, timeout=20_000):
        first.window.packs.export_pack(pack_path, ["assign_refund"])
    data = pack_path.read_bytes()
    assert b"T-1006" not in data and b"Derek" not in data
    args = {"ticket_id": "T-1011", "assignee": "priya", "template_id": "refund_approved"}
    here = first.run_tool("assign_refund", args)
    ticket_here = first.dispatch("get_ticket", {"ticket_id": "T-1011"})["result"]

    second = console_factory(tmp_path / "b")
    assert import_and_wait(second, pack_path) == ["assign_refund"]
    tool = second.library.callable("assign_refund")
    assert tool.origin.by == "pack" and tool.origin.pack == pack_path.name
    # The import approved exactly the imported definition.
    assert tool.digest == definition_hash(tool.definition)
    there = second.run_tool("assign_refund", args)
    ticket_there = second.dispatch("get_ticket", {"ticket_id": "T-1011"})["result"]
    assert there == here
    assert ticket_there == ticket_here


@pytest.mark.slow
def test_a_clash_is_renamed_or_replaced_and_bad_packs_change_nothing(console):
    good = PACKS / "good.understudy-pack.json"
    assert import_and_wait(console, good) == ["assign_refund"]
    assert import_and_wait(console, good) == ["assign_refund_2"]
    assert import_and_wait(console, good, replace=True) == ["assign_refund"]
    before = console.library.tools()
    for bad in sorted((PACKS / "bad").glob("*.json"))[:6]:
        message = refused(console, bad)
        assert "Nothing was changed" in message or bad.name in message
    assert console.library.tools() == before


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
    dialog = ImportPackDialog(plan, "evil.understudy-pack.json", ConsentLedger(), lambda _r: {})
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
        timeout=120,
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
        shown.append(dialog.tools.item(0).text())
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
    with console.qtbot.waitSignal(console.window.packs.imported, timeout=20_000) as blocker:
        console.window.dropEvent(drop)
    assert blocker.args[0] == ["assign_refund"]
    assert shown and shown[0].startswith("assign_refund — ")
