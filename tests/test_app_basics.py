"""What a polished desktop app does for the person: a log file and a crash handler that says
where it is, undo and redo of their own changes, a list of shortcuts, spoof-proof text."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

from test_teach_e2e import choose, click, ticket

from understudy_desktop.definition import Step
from understudy_desktop.logs import LOG_NAME, configure_logging, install_crash_handler
from understudy_desktop.model.runs import RunRequest
from understudy_desktop.paths import DataPaths
from understudy_desktop.text import visible_controls


def key(
    console, name: str, ctrl: bool = False, shift: bool = False, where: str = "queue-list"
) -> None:
    """A key pressed with the control `where` focused (its id)."""
    console.js(
        f"(() => {{ const at = document.getElementById({json.dumps(where)}); at.focus();"
        f"at.dispatchEvent(new KeyboardEvent('keydown', {{key: {json.dumps(name)},"
        f" ctrlKey: {json.dumps(ctrl)}, shiftKey: {json.dumps(shift)}, bubbles: true}}));"
        " return true; })()"
    )


def test_the_log_file_lives_in_the_data_folder_and_a_crash_says_where(tmp_path):
    import logging

    paths = DataPaths(tmp_path / "data")
    saved = (sys.excepthook, threading.excepthook, logging.getLogger().handlers[:])
    told: list[str] = []
    try:
        where = configure_logging(paths)
        assert where == paths.root / "logs" / LOG_NAME
        install_crash_handler(told.append)
        try:
            raise RuntimeError("the unexpected")
        except RuntimeError:
            sys.excepthook(*sys.exc_info())
        worker = threading.Thread(target=lambda: 1 / 0)
        worker.start()
        worker.join()
        for handler in logging.getLogger().handlers:
            handler.flush()
        text = where.read_text(encoding="utf-8")
        assert "RuntimeError: the unexpected" in text and "Traceback" in text
        assert "ZeroDivisionError" in text  # a worker thread's error is caught too
        # The person is told once, in plain words, with the file to send.
        assert len(told) == 1
        assert str(where) in told[0] and "Everything you saved is kept" in told[0]
    finally:
        sys.excepthook, threading.excepthook = saved[0], saved[1]
        logging.getLogger().handlers = saved[2]


def test_ctrl_z_undoes_and_ctrl_shift_z_redoes_the_persons_own_change(console):
    click(console, "#row-T-1003")
    console.qtbot.waitUntil(lambda: console.api_json("summary")["selected"] == "T-1003")
    before = ticket(console, "T-1003")["status"]
    choose(console, "#status-select", "pending")
    console.qtbot.waitUntil(lambda: ticket(console, "T-1003")["status"] == "pending")
    # An agent's run in between is not the person's to undo.
    step = {
        "command": "set_ticket_priority",
        "args": {
            "ticket_id": {"from": "const", "value": "T-1004"},
            "priority": {"from": "const", "value": "urgent"},
        },
    }
    request = RunRequest("escalate", [Step.model_validate(step)], {"type": "object"}, {})
    ran = console.wait_for(
        lambda done: console.session.model.run(request, lambda _c: None, "agent", "a test", done)
    )
    assert ran.ok
    console.qtbot.waitUntil(lambda: ticket(console, "T-1004")["priority"] == "urgent")
    # Straight after choosing in the dropdown (it still has the focus), as a person does.
    key(console, "z", ctrl=True, where="status-select")
    console.qtbot.waitUntil(lambda: ticket(console, "T-1003")["status"] == before)
    assert ticket(console, "T-1004")["priority"] == "urgent"
    key(console, "z", ctrl=True, shift=True)
    console.qtbot.waitUntil(lambda: ticket(console, "T-1003")["status"] == "pending")
    # Edit › Undo does the same from the menu, and what it did is saved like any change.
    console.window.undo_action.trigger()
    console.qtbot.waitUntil(lambda: ticket(console, "T-1003")["status"] == before)
    console.flush()
    rows = console.session.window.keeper.store.rows(["T-1003"])
    assert rows["T-1003"]["status"] == before


def test_ctrl_z_straight_after_a_change_undoes_that_change(console):
    """The page sends a change and a Ctrl+Z pressed at once straight after each other; the
    undo is taken only once the change is in the history (not "Nothing to undo", and not the
    change before it), and a redo sent with it waits for the undo."""
    model = console.session.model
    before = ticket(console, "T-1005")["priority"]
    answers: list[dict] = []
    # Nothing runs on the Qt thread between these calls: no answer can come back in between.
    model.person("set_ticket_status", {"ticket_id": "T-1005", "status": "solved"}, answers.append)
    model.person("set_ticket_priority", {"ticket_id": "T-1005", "priority": "low"}, answers.append)
    model.undo(answers.append)
    model.redo(answers.append)
    model.undo(answers.append)
    model.person("set_ticket_tags", {"ticket_id": "T-1005", "tags": ["later"]}, answers.append)
    console.qtbot.waitUntil(lambda: len(answers) == 6)
    assert [a.get("reverted") for a in answers[2:5]] == [1, 1, 1]
    assert all(a.get("ok") for a in answers), answers
    shown = ticket(console, "T-1005")
    assert (shown["status"], shown["priority"], shown["tags"]) == ("solved", before, ["later"])


def test_ctrl_z_in_a_text_field_is_left_to_the_field(console):
    click(console, "#row-T-1003")
    console.qtbot.waitUntil(lambda: console.api_json("summary")["selected"] == "T-1003")
    choose(console, "#status-select", "pending")
    console.qtbot.waitUntil(lambda: ticket(console, "T-1003")["status"] == "pending")
    key(console, "z", ctrl=True, where="filter-text")
    # A change sent after it is saved after anything the key asked for (one channel, one
    # writer): once it is in the database, an undo would be too.
    choose(console, "#priority-select", "low")
    store = console.session.window.keeper.store
    console.qtbot.waitUntil(lambda: store.rows(["T-1003"])["T-1003"]["priority"] == "low")
    assert store.rows(["T-1003"])["T-1003"]["status"] == "pending"


def test_question_mark_lists_the_keyboard_shortcuts(console):
    assert console.js("document.getElementById('shortcuts-help').hidden") is True
    key(console, "?")
    console.qtbot.waitUntil(
        lambda: console.js("document.getElementById('shortcuts-help').hidden") is False
    )
    text = console.js("document.getElementById('shortcuts-help').textContent")
    for shown in ("Ctrl+Z", "Ctrl+Shift+Z", "Teach", "library"):
        assert shown in text, shown
    key(console, "Escape")
    console.qtbot.waitUntil(
        lambda: console.js("document.getElementById('shortcuts-help').hidden") is True
    )


def test_bidi_controls_in_tickets_and_file_names_are_shown_not_obeyed(console, tmp_path):
    spoof = "Invoice \u202egpj.exe"
    queue = {
        "format": "understudy-queue",
        "version": 1,
        "tickets": [
            {
                "id": "B-1",
                "subject": spoof,
                "body": "See attachment.",
                "requester": "Eve \u202eliam <eve@example.com>",
                "created": "2026-11-20T10:00:00Z",
                "status": "new",
                "priority": "normal",
                "assignee": None,
                "tags": [],
            }
        ],
        "assignees": [],
        "templates": [],
    }
    path = tmp_path / "spoof\u202etxt.json"
    path.write_text(json.dumps(queue), encoding="utf-8")
    with console.qtbot.waitSignal(console.window.queue_loaded):
        console.window.open_queue(path, confirm=False)
    console.qtbot.waitUntil(lambda: console.js("Boolean(document.getElementById('row-B-1'))"))
    row = console.js("document.getElementById('row-B-1').textContent")
    assert "\u202e" not in row and "Invoice ⟨RLO⟩gpj.exe" in row
    click(console, "#row-B-1")
    console.qtbot.waitUntil(lambda: console.api_json("summary")["selected"] == "B-1")
    detail = console.js("document.getElementById('d-subject').textContent")
    assert detail == "Invoice ⟨RLO⟩gpj.exe"
    header = console.js("document.getElementById('queue-name').textContent")
    assert "\u202e" not in header and "⟨RLO⟩" in header
    assert visible_controls(Path(path).name) == "spoof⟨RLO⟩txt.json"


def test_a_file_the_system_hands_over_is_opened_like_a_dropped_one(console, monkeypatch):
    """macOS sends a Finder double-click as a file-open event: a queue file opens."""
    from PySide6.QtGui import QFileOpenEvent

    from understudy_desktop.shell.file_open import FileOpenEvents, UnderstudyApplication

    opened: list[Path] = []
    monkeypatch.setattr(console.window, "open_file", opened.append)
    events = FileOpenEvents(console.window)
    queue = Path(__file__).parent / "fixtures" / "helpdesk_comma.csv"
    assert events.handle(QFileOpenEvent(str(queue)))
    assert opened == [queue]
    # The app's QApplication hands such events over (called on a stand-in: this process's
    # QApplication is pytest-qt's).
    stand_in = SimpleNamespace(opener=events)
    pack = Path(__file__).parent.parent / "packs" / "refund-desk.understudy-pack.json"
    assert UnderstudyApplication.event(stand_in, QFileOpenEvent(str(pack))) is True
    assert opened == [queue, pack]


def test_without_a_file_manager_the_log_folder_is_said_and_copied(console, monkeypatch):
    from PySide6.QtGui import QDesktopServices, QGuiApplication

    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda _url: False))
    box = console.window.show_log_folder()
    assert box is not None and box.isVisible()
    folder = box.informativeText()
    assert folder.endswith("logs") and Path(folder).is_dir()
    assert QGuiApplication.clipboard().text() == folder
    box.close()
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda _url: True))
    assert console.window.show_log_folder() is None
