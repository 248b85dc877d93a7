"""A person never meets internals: the text of every screen a support agent sees is read and
checked for command ids, JSON-quoted ids, and the words parameter, schema and WebMCP."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PySide6.QtWidgets import QAbstractButton, QLabel, QListWidget, QTableWidget
from test_teach_e2e import click, publish_from_editor, teach_assign_refund

from understudy_desktop.catalogue import current_catalogue
from understudy_desktop.queue_io import preview_queue_file
from understudy_desktop.shell.about import about_facts
from understudy_desktop.shell.pack_dialogs import ExportPackDialog, ImportPackDialog
from understudy_desktop.shell.queue_preview import QueuePreviewDialog

FIXTURES = Path(__file__).parent / "fixtures"
COMMAND_IDS = sorted(current_catalogue().commands)
INTERNAL = [
    (re.compile(r"\b(" + "|".join(COMMAND_IDS) + r")\b"), "a command id"),
    (re.compile(r"\"[A-Za-z0-9_.\-]+\""), "a JSON-quoted id"),
    (re.compile(r"[{\[]\s*\"|\"\s*:"), "JSON"),
    (re.compile(r"parameter", re.IGNORECASE), "the word parameter"),
    (re.compile(r"schema", re.IGNORECASE), "the word schema"),
    (re.compile(r"webmcp", re.IGNORECASE), "the word WebMCP"),
]


def internals(text: str) -> list[str]:
    """What in `text` a support agent should never have to read."""
    found = []
    for pattern, what in INTERNAL:
        for match in pattern.finditer(text):
            start = max(0, match.start() - 30)
            found.append(f"{what}: …{text[start : match.end() + 30]}…")
    return found


@pytest.mark.parametrize(
    "bad",
    [
        'Assign — ticket: the one from step 1; person: "priya"',
        "Parameter | Name | Recorded | Description | Default to recorded",
        "Steps: select_ticket, set_ticket_assignee",
        "Status: WebMCP bridged",
        'Does not fit the input schema: {"ticket_id": 7}',
    ],
)
def test_the_check_catches_what_people_met_before(bad):
    assert internals(bad)


def test_the_check_lets_plain_sentences_through():
    assert (
        internals("Assign the same ticket to Priya Raman. Fill the reply with “Refund approved”.")
        == []
    )


def widget_text(widget) -> str:
    """What a person reads in `widget`: the isolates around outside text are invisible."""
    parts = [label.text() for label in widget.findChildren(QLabel) if label.isVisibleTo(widget)]
    parts += [b.text() for b in widget.findChildren(QAbstractButton) if b.isVisibleTo(widget)]
    for table in widget.findChildren(QTableWidget):
        parts += [
            table.horizontalHeaderItem(c).text()
            for c in range(table.columnCount())
            if table.horizontalHeaderItem(c) is not None
        ]
    for listing in widget.findChildren(QListWidget):
        parts += [listing.item(i).text() for i in range(listing.count())]
    return "\n".join(parts).replace("\u2068", "").replace("\u2069", "")


def page_text(console, element_id: str) -> str:
    return console.js(f"document.getElementById({json.dumps(element_id)}).innerText")


@pytest.mark.slow
def test_every_screen_a_person_meets_is_in_plain_words(console_factory, tmp_path, monkeypatch):
    console = console_factory(tmp_path / "data", keep_welcome=True)
    screens: dict[str, str] = {
        "welcome": page_text(console, "welcome"),
        "window title": console.window.windowTitle(),
        "about": about_facts(console.window.webmcp_state).as_text(),
    }
    console.js("document.getElementById('welcome').hidden = true; true")
    screens["queue"] = page_text(console, "queue-list")
    console.js("document.dispatchEvent(new KeyboardEvent('keydown', {key: '?'})); true")
    console.qtbot.waitUntil(lambda: console.js("!document.getElementById('shortcuts-help').hidden"))
    screens["shortcuts"] = page_text(console, "shortcuts-help")
    console.js("document.getElementById('shortcuts-close').click(); true")

    # Make a tool: the editor, the approval dialog, the library, the run form.
    teach_assign_refund(console, "T-1006")
    screens["make a tool"] = page_text(console, "teach-panel")
    for ask in ("ask-assignee", "ask-template_id"):  # the switches, turned on and off again
        console.js(f"document.getElementById({json.dumps(ask)}).click(); true")
    screens["make a tool, choosing"] = page_text(console, "teach-panel")
    for ask in ("ask-assignee", "ask-template_id"):
        console.js(f"document.getElementById({json.dumps(ask)}).click(); true")
    gate = console.session.consent.gate
    seen: list[str] = []
    gate.dialog_opened.connect(lambda d: seen.append(d.text_shown()))
    publish_from_editor(console, "assign_refund", title="Refund to billing")
    console.qtbot.waitUntil(lambda: console.taught() == ["assign_refund"])
    screens["approval dialog"] = seen[0]
    console.qtbot.waitUntil(lambda: "Published" in page_text(console, "toast-text"))
    screens["published"] = page_text(console, "toast-text")
    screens["approval overlay"] = page_text(console, "approval")
    click(console, "#library-button")
    console.qtbot.waitUntil(lambda: "Refund to billing" in page_text(console, "library-panel"))
    screens["library"] = page_text(console, "library-panel")
    console.js("document.querySelector('[data-tool=assign_refund] .btn.primary').click(); true")
    console.qtbot.waitUntil(
        lambda: console.js("Boolean(document.querySelector('#library-panel form'))")
    )
    screens["run form"] = page_text(console, "library-panel")
    click(console, "#library-button")
    console.qtbot.waitUntil(lambda: console.js("!document.querySelector('#library-panel form')"))
    console.js(
        "[...document.querySelectorAll('#library-panel .btn')]"
        ".find((b) => b.textContent.startsWith('Revoke')).click(); true"
    )
    screens["revoke"] = page_text(console, "library-panel")

    # Sharing: the export dialog, the import preview (with a name this queue lacks).
    screens["export"] = widget_text(ExportPackDialog([console.library.get("assign_refund")]))
    pack = json.loads((FIXTURES / "packs" / "good.understudy-pack.json").read_text())
    pack["tools"][0]["steps"][1]["args"]["assignee"] = {
        "from": "const",
        "value": "p-17",
        "ref": {"kind": "person", "name": "P. Raman"},
    }
    pack_path = tmp_path / "team.understudy-pack.json"
    pack_path.write_text(json.dumps(pack), encoding="utf-8")

    def read_import(dialog):
        screens["import preview"] = dialog.text_shown() + "\n" + widget_text(dialog)
        return 0

    monkeypatch.setattr(ImportPackDialog, "exec", read_import)
    with console.qtbot.waitSignal(console.window.packs.import_failed):
        console.window.packs.import_pack(pack_path, confirm=True)

    # Opening a helpdesk file: the preview, then the console with it open.
    preview = preview_queue_file(FIXTURES / "queues" / "freshdesk_export.csv")
    dialog = QueuePreviewDialog(preview)
    screens["queue preview"] = widget_text(dialog)
    dialog.deleteLater()
    console.flush()
    screens["status bar"] = "\n".join(
        w.text() for w in console.window.statusBar().findChildren(QLabel)
    )

    problems = {name: internals(text) for name, text in screens.items()}
    assert {name: p for name, p in problems.items() if p} == {}
    # And the screens say the things that matter, in words.
    assert "Assign the same ticket to Priya Raman" in screens["approval dialog"]
    assert "If it ran now" in screens["approval dialog"]
    assert "Let whoever runs it choose" in screens["make a tool"]
    assert "P. Raman" in screens["import preview"]
    assert "No agent connected" in screens["status bar"] or "Agents: off" in screens["status bar"]
    # A tool is called by its name in words; what agents call it stays in the editor's own
    # field for it, and out of every other screen.
    for name in ("approval dialog", "published", "library", "run form", "revoke", "export"):
        assert "Refund to billing" in screens[name], name
        assert "assign_refund" not in screens[name], name
