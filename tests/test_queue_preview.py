"""The "Open queue" preview dialog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QTableWidget

from understudy_desktop.queue_io import preview_queue_file
from understudy_desktop.shell.queue_preview import QueuePreviewDialog, summary_text

FIXTURES = Path(__file__).parent / "fixtures" / "queues"

# The offscreen platform cannot size windows and says so whenever a dialog is shown.


def cell_texts(table: QTableWidget, column: int) -> list[str]:
    texts = []
    for row in range(table.rowCount()):
        item = table.item(row, column)
        assert item is not None
        texts.append(item.text())
    return texts


def header_texts(table: QTableWidget) -> list[str]:
    texts = []
    for column in range(table.columnCount()):
        item = table.horizontalHeaderItem(column)
        assert item is not None
        texts.append(item.text())
    return texts


@pytest.fixture
def dialog(qtbot: Any) -> QueuePreviewDialog:
    preview = preview_queue_file(FIXTURES / "helpdesk_comma.csv", rows=3)
    dialog = QueuePreviewDialog(preview)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_title_and_summary_sentence(dialog: QueuePreviewDialog) -> None:
    assert dialog.windowTitle() == "Open queue"
    assert dialog.summary_label.text() == (
        "5 tickets found in helpdesk_comma.csv (CSV, UTF-8, comma-separated). "
        "This replaces the queue you have open now."
    )
    assert dialog.notes_label.isVisible()
    assert '"Group"' in dialog.notes_label.text()


def test_summary_counts_singular_and_thousands(tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    one.write_text('[{"id": "1"}]', encoding="utf-8")
    assert summary_text(preview_queue_file(one)).startswith("1 ticket found in one.json (JSON")
    many = tmp_path / "many.csv"
    many.write_text("id\n" + "".join(f"{i}\n" for i in range(1234)), encoding="utf-8")
    assert summary_text(preview_queue_file(many)).startswith("1,234 tickets found in many.csv")


def test_mapping_table_lists_every_file_column(dialog: QueuePreviewDialog) -> None:
    table = dialog.mapping_table
    assert header_texts(table) == ["File column", "Used as", "Example"]
    assert cell_texts(table, 0)[:3] == ["Id", "Subject", "Description"]
    used = dict(zip(cell_texts(table, 0), cell_texts(table, 1), strict=True))
    assert used["Id"] == "Ticket id"
    assert used["Description"] == "Description"
    assert used["Assignee"] == "Assignee"
    assert used["Group"] == "not used"
    examples = dict(zip(cell_texts(table, 0), cell_texts(table, 2), strict=True))
    assert examples["Status"] == "Open"
    assert examples["Satisfaction"] == "good"


def test_rows_table_shows_first_tickets_with_assignee_names(dialog: QueuePreviewDialog) -> None:
    table = dialog.tickets_table
    assert table.rowCount() == 3
    assert cell_texts(table, 0) == ["1001", "1002", "1003"]
    assert cell_texts(table, 3) == ["open", "open", "pending"]
    assert cell_texts(table, 5) == ["Chen Wei", "Ana García", ""]
    assert cell_texts(table, 6)[0] == "login, sso"


def test_tables_and_buttons_have_accessible_names(dialog: QueuePreviewDialog) -> None:
    assert dialog.mapping_table.accessibleName() == "Column mapping"
    assert dialog.tickets_table.accessibleName() == "First tickets"
    assert dialog.open_button.accessibleName() == "Open queue"
    assert dialog.open_button.text() == "Open queue"
    assert dialog.cancel_button.accessibleName() == "Cancel"
    assert dialog.mapping_table.editTriggers() == QTableWidget.EditTrigger.NoEditTriggers


def test_escape_cancels(qtbot: Any, dialog: QueuePreviewDialog) -> None:
    with qtbot.waitSignal(dialog.finished, timeout=2000):
        qtbot.keyClick(dialog.tickets_table, Qt.Key.Key_Escape)
    assert dialog.result() == QDialog.DialogCode.Rejected


def test_enter_opens_even_from_a_table(qtbot: Any, dialog: QueuePreviewDialog) -> None:
    dialog.tickets_table.setFocus()
    with qtbot.waitSignal(dialog.finished, timeout=2000):
        qtbot.keyClick(dialog.tickets_table, Qt.Key.Key_Return)
    assert dialog.result() == QDialog.DialogCode.Accepted


def test_buttons_accept_and_reject(qtbot: Any, dialog: QueuePreviewDialog) -> None:
    with qtbot.waitSignal(dialog.finished, timeout=2000):
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Rejected
    dialog.show()
    with qtbot.waitSignal(dialog.finished, timeout=2000):
        qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Accepted
