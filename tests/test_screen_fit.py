"""Every window and dialog opens within the screen it is on: the test screen (offscreen) is
800x800, smaller than the main window, the queue preview and the pack dialogs would like."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect

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
        for dialog in (
            QueuePreviewDialog(queue, window),
            HelpdeskDialog(session.helpdesk, window),
            ConnectAgentDialog({"Claude Desktop": "{}"}, window),
        ):
            dialog.show()
            assert within(dialog), type(dialog).__name__
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
