"""Every window and dialog opens within the screen it is on: the test screen (offscreen) is
800x800, smaller than the main window, the queue preview and the pack dialogs would like."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect
from waiting import HANG_S

from understudy_desktop.app import open_session
from understudy_desktop.paths import DataPaths
from understudy_desktop.queue_io import preview_queue_file
from understudy_desktop.shell.connect_dialog import ConnectAgentDialog
from understudy_desktop.shell.helpdesk_dialog import HelpdeskDialog
from understudy_desktop.shell.queue_preview import QueuePreviewDialog
from understudy_desktop.shell.screen_fit import available, fit_size

FIXTURES = Path(__file__).parent / "fixtures"


def within(widget) -> bool:
    room = available(widget)
    frame = widget.frameGeometry()
    return (
        room.contains(frame.topLeft())
        and frame.width() <= room.width()
        and (frame.height() <= room.height())
    )


def clipped(dialog) -> list[str]:
    """The words of each label shown cut short: a wrapped label lower than its text needs, or
    a single line narrower than its text (a label in a scroll area can be scrolled to)."""
    from PySide6.QtWidgets import QApplication, QLabel, QScrollArea

    QApplication.processEvents()
    out = []
    for label in dialog.findChildren(QLabel):
        if not label.isVisibleTo(dialog) or not label.text().strip():
            continue
        parent, scrolled = label.parentWidget(), False
        while parent is not None and parent is not dialog:
            scrolled = scrolled or isinstance(parent, QScrollArea)
            parent = parent.parentWidget()
        if scrolled:
            continue
        if label.wordWrap():
            short = label.height() + 1 < label.heightForWidth(label.width())
        else:
            short = label.width() + 1 < label.sizeHint().width()
        if short:
            out.append(label.text()[:60])
    return out


def test_sizes_are_cut_to_a_small_screen():
    assert fit_size(1360, 860, QRect(0, 0, 1024, 640)) == (983, 614)
    assert fit_size(600, 400, QRect(0, 0, 1024, 640)) == (600, 400)
    # 1920x1080 at 150% is 1280x720 in Qt's device-independent pixels.
    assert fit_size(1360, 860, QRect(0, 0, 1280, 720)) == (1228, 691)


def test_the_window_and_its_dialogs_open_within_the_screen(qtbot, data_dir):
    session = open_session(DataPaths(data_dir), agent_port=None)
    try:
        window = session.window
        assert available(window).width() < 1360, "the test screen is smaller than the window"
        assert within(window)
        queue = preview_queue_file(FIXTURES / "queues" / "freshdesk_export.csv")
        from understudy_desktop.approval.dialog import ConsentDialog, DialogText
        from understudy_desktop.shell.settings_dialog import (
            InvitationDialog,
            InviteDialog,
            RulesDialog,
            SettingsDialog,
        )
        from understudy_desktop.shell.team_dialog import TeamDialog

        steps = "\n".join(f"{n}. Set the status of the ticket to pending." for n in range(1, 31))
        approval = DialogText(
            'Publish "escalate"',
            "It can change many tickets at once (every ticket a search matches).",
            "Claude Desktop",
            sections=(("What it does", steps),),
        )
        for dialog in (
            QueuePreviewDialog(queue, window),
            HelpdeskDialog(session.helpdesk, window),
            ConnectAgentDialog({"Claude Desktop": "{}"}, window),
            ConsentDialog(session.consent.gate.ledger, "k", approval, window),
            SettingsDialog(session.team, window),
            RulesDialog(session.team, window),
            InvitationDialog(session.team, window),
            InviteDialog(session.team, window),
            TeamDialog(session.team, lambda: None, window),
        ):
            dialog.show()
            assert within(dialog), type(dialog).__name__
            assert clipped(dialog) == [], type(dialog).__name__
            dialog.close()
    finally:
        session.close()


def test_a_dialog_opens_centred_over_its_window_not_at_the_screens_corner(qtbot):
    from PySide6.QtWidgets import QDialog, QMainWindow

    from understudy_desktop.shell.screen_fit import fit_to_screen

    window = QMainWindow()
    qtbot.addWidget(window)
    window.resize(600, 500)
    window.move(100, 120)
    window.show()
    dialog = QDialog(window)
    fit_to_screen(dialog, 300, 200)
    dialog.show()
    assert abs(dialog.frameGeometry().center().x() - window.frameGeometry().center().x()) <= 2
    assert abs(dialog.frameGeometry().center().y() - window.frameGeometry().center().y()) <= 2
    assert within(dialog)
    alone = QDialog()
    qtbot.addWidget(alone)
    fit_to_screen(alone, 300, 200)
    room = available(alone)
    assert abs(alone.frameGeometry().center().x() - room.center().x()) <= 2


def test_the_clip_check_sees_words_cut_short(qtbot):
    """The check above is not blind: a label squeezed below its words is reported, and the
    same label with room is not."""
    from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout

    dialog = QDialog()
    qtbot.addWidget(dialog)
    layout = QVBoxLayout(dialog)
    words = QLabel("Every word of this sentence must be readable by the person. " * 4)
    words.setWordWrap(True)
    layout.addWidget(words)
    dialog.setFixedSize(220, 60)
    dialog.show()
    assert clipped(dialog) == [words.text()[:60]]
    dialog.setFixedSize(900, 300)
    assert clipped(dialog) == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("physical", "scale"), [((1024, 640), "1"), ((1536, 960), "1.5")], ids=["1024x640", "150%"]
)
def test_every_dialog_fits_a_small_screen_with_no_words_cut(tmp_path, physical, scale):
    """On a 1024x640 screen, and on one at 150% scaling (1024x640 of Qt's pixels): each of the
    app's dialogs opens within the screen and shows all of its words (or lets them scroll)."""
    import json
    import os
    import subprocess
    import sys

    config = tmp_path / "screen.json"
    width, height = physical
    config.write_text(
        json.dumps(
            {"screens": [{"name": "small", "x": 0, "y": 0, "width": width, "height": height}]}
        ),
        encoding="utf-8",
    )
    env = dict(
        os.environ,
        QT_QPA_PLATFORM=f"offscreen:configfile={config}",
        QT_SCALE_FACTOR=scale,
        QTWEBENGINE_DISABLE_SANDBOX="1",
    )
    done = subprocess.run(
        [sys.executable, str(Path(__file__).parent / "dialog_fit_probe.py")],
        env=env, capture_output=True, text=True, timeout=2 * HANG_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(report) == 10
    assert {n: r for n, r in report.items() if not r["within"] or r["clipped"]} == {}
