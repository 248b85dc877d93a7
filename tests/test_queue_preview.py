"""The "Open queue" preview dialog."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDialog, QTableWidget

from understudy_desktop.queue_io import (
    FIELDS,
    ImportChoices,
    QueueFileError,
    load_queue_file,
    preview_queue_file,
    save_queue_file,
    source_signature,
)
from understudy_desktop.shell.queue_preview import (
    MAPPING_USE_COLUMN,
    UNKNOWN_BACKGROUND,
    VALUE_MEANS_COLUMN,
    VALUE_NOTE_COLUMN,
    QueuePreviewDialog,
    summary_text,
)

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
    assert "“Group”" in dialog.notes_label.text()


def test_summary_counts_singular_and_thousands(tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    one.write_text('[{"id": "1"}]', encoding="utf-8")
    assert summary_text(preview_queue_file(one)).startswith("1 ticket found in one.json (JSON")
    many = tmp_path / "many.csv"
    many.write_text("id\n" + "".join(f"{i}\n" for i in range(1234)), encoding="utf-8")
    assert summary_text(preview_queue_file(many)).startswith("1,234 tickets found in many.csv")


def test_every_kind_of_file_is_named_in_the_summary(tmp_path: Path) -> None:
    """A Zendesk JSON Lines export (one ticket per line) opened through the preview: the
    summary names each kind the reader can make, so none ends in an error."""
    from typing import get_args

    from understudy_desktop.queue_io.loaded import SourceKind
    from understudy_desktop.queue_io.preview import _KIND_LABELS

    assert set(get_args(SourceKind)) <= set(_KIND_LABELS)
    for name in ("export.jsonl", "export.json"):
        lines = tmp_path / name
        lines.write_text('{"id": 1, "subject": "A"}\n{"id": 2, "subject": "B"}\n', "utf-8")
        assert summary_text(preview_queue_file(lines)).startswith(
            f"2 tickets found in {name} (JSON Lines"
        )


def test_mapping_table_lists_every_file_column(dialog: QueuePreviewDialog) -> None:
    table = dialog.mapping_table
    assert header_texts(table) == ["File column", "Use as…", "Example"]
    assert cell_texts(table, 0)[:3] == ["Id", "Subject", "Description"]
    used = {name: dialog.column_combo(name).currentText() for name in cell_texts(table, 0)}
    assert used["Id"] == "Ticket id"
    assert used["Description"] == "Description"
    assert used["Assignee"] == "Assignee"
    assert used["Group"] == "Not used"
    assert table.cellWidget(0, MAPPING_USE_COLUMN) is dialog.column_combo("Id")
    examples = dict(zip(cell_texts(table, 0), cell_texts(table, 2), strict=True))
    assert examples["Status"] == "Open"
    assert examples["Satisfaction"] == "good"


def test_rows_table_shows_first_tickets_with_assignee_names(dialog: QueuePreviewDialog) -> None:
    table = dialog.tickets_table
    assert table.rowCount() == 3
    assert cell_texts(table, 0) == ["1001", "1002", "1003"]
    assert cell_texts(table, 3) == ["Open", "Open", "Pending"]
    assert cell_texts(table, 5) == ["Chen Wei", "Ana García", ""]
    assert cell_texts(table, 6)[0] == "login, sso"


def test_tables_and_buttons_have_accessible_names(dialog: QueuePreviewDialog) -> None:
    assert dialog.mapping_table.accessibleName() == "Column mapping"
    assert dialog.tickets_table.accessibleName() == "First tickets"
    assert dialog.open_button.accessibleName() == "Open queue"
    assert dialog.open_button.text() == "Open queue"
    assert dialog.cancel_button.accessibleName() == "Cancel"
    # Choices are made in the lists inside the cells, never by typing into a cell.
    assert dialog.mapping_table.editTriggers() == QTableWidget.EditTrigger.NoEditTriggers
    assert dialog.values_table.accessibleName() == "Values in the file"
    assert dialog.column_combo("Status").accessibleName() == "Use column “Status” as"
    assert dialog.value_combo("status", "In Progress").accessibleName() == (
        "Status “In Progress” means"
    )
    for label in (dialog.summary_label, dialog.notes_label, dialog.message_label):
        assert label.textFormat() == Qt.TextFormat.PlainText


def test_escape_cancels(qtbot: Any, dialog: QueuePreviewDialog) -> None:
    with qtbot.waitSignal(dialog.finished):
        qtbot.keyClick(dialog.tickets_table, Qt.Key.Key_Escape)
    assert dialog.result() == QDialog.DialogCode.Rejected


def test_enter_opens_even_from_a_table(qtbot: Any, dialog: QueuePreviewDialog) -> None:
    dialog.tickets_table.setFocus()
    with qtbot.waitSignal(dialog.finished):
        qtbot.keyClick(dialog.tickets_table, Qt.Key.Key_Return)
    assert dialog.result() == QDialog.DialogCode.Accepted


def test_buttons_accept_and_reject(qtbot: Any, dialog: QueuePreviewDialog) -> None:
    with qtbot.waitSignal(dialog.finished):
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Rejected
    dialog.show()
    with qtbot.waitSignal(dialog.finished):
        qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Accepted


# ---- choosing columns and values -----------------------------------------------------------------

FRESHDESK = FIXTURES / "freshdesk_export.csv"


def show(qtbot: Any, dialog: QueuePreviewDialog) -> QueuePreviewDialog:
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


@pytest.fixture
def freshdesk(qtbot: Any) -> QueuePreviewDialog:
    return show(qtbot, QueuePreviewDialog(preview_queue_file(FRESHDESK, rows=5)))


def pick(combo: QComboBox, text: str) -> None:
    """Choose an entry the way a person does: the list changes and reports it was activated."""
    index = combo.findText(text)
    assert index >= 0, f"{text!r} is not offered"
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def value_rows(dialog: QueuePreviewDialog) -> list[tuple[str, ...]]:
    table = dialog.values_table
    rows = []
    for row in range(table.rowCount()):
        cells = []
        for column in range(table.columnCount()):
            item = table.item(row, column)
            assert item is not None
            cells.append(item.text())
        rows.append(tuple(cells))
    return rows


def test_use_as_lists_every_ticket_field_and_not_used(freshdesk: QueuePreviewDialog) -> None:
    combo = freshdesk.column_combo("description_text")
    offered = [combo.itemText(i) for i in range(combo.count())]
    assert offered == [
        "Not used", "Ticket id", "Subject", "Description", "Requester", "Status", "Priority",
        "Assignee", "Tags", "Created",
    ]  # fmt: skip
    assert [combo.itemData(i) for i in range(combo.count())] == [None, *FIELDS]
    assert combo.currentText() == "Description"  # the plain-text description, guessed
    assert freshdesk.column_combo("requester_email").currentText() == "Requester"
    assert freshdesk.column_combo("group_name").currentText() == "Not used"


def test_values_table_offers_every_value_and_highlights_the_unknown_one(
    freshdesk: QueuePreviewDialog,
) -> None:
    rows = [row for row in value_rows(freshdesk) if row[0] != "Assignee"]
    assert [row[:4] for row in rows] == [
        ("Status", "2", "2", "Open"),
        ("Status", "3", "2", "Pending"),
        ("Status", "Escalated to L2", "1", "Open"),
        ("Status", "4", "1", "Solved"),
        ("Status", "5", "1", "Closed"),
        ("Priority", "3", "1", "High"),
        ("Priority", "2", "1", "Normal"),
        ("Priority", "4", "2", "Urgent"),
        ("Priority", "1", "3", "Low"),
    ]
    escalated = rows[2][VALUE_NOTE_COLUMN]
    assert escalated == (
        "“Escalated to L2” is not a status Understudy knows; choose what it means. "
        "Until you do, it counts as Open."
    )
    assert rows[0][VALUE_NOTE_COLUMN] == "A Freshdesk number; it means Open there."
    item = freshdesk.values_table.item(2, 1)
    assert item is not None and item.background().color() == UNKNOWN_BACKGROUND
    other = freshdesk.values_table.item(0, 1)
    assert other is not None and other.background().color() != UNKNOWN_BACKGROUND
    combo = freshdesk.value_combo("status", "Escalated to L2")
    assert freshdesk.values_table.cellWidget(2, VALUE_MEANS_COLUMN) is combo
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "New", "Open", "Pending", "Solved", "Closed"
    ]  # fmt: skip
    assert combo.accessibleDescription() == escalated
    priorities = freshdesk.value_combo("priority", "1")
    assert [priorities.itemText(i) for i in range(priorities.count())] == [
        "Low", "Normal", "High", "Urgent"
    ]  # fmt: skip
    assert "Escalated to L2" in freshdesk.notes_label.text()


def test_changing_choices_reads_the_file_again_and_returns_them(
    qtbot: Any, freshdesk: QueuePreviewDialog
) -> None:
    first = freshdesk.preview
    assert cell_texts(freshdesk.tickets_table, 5)[:3] == ["Chen Wei", "Ana García", "Priya Nair"]
    pick(freshdesk.column_combo("responder_name"), "Not used")
    assert freshdesk.preview is not first
    assert cell_texts(freshdesk.tickets_table, 5)[:3] == ["", "", ""]
    pick(freshdesk.column_combo("responder_name"), "Assignee")
    assert cell_texts(freshdesk.tickets_table, 5)[:3] == ["Chen Wei", "Ana García", "Priya Nair"]
    pick(freshdesk.column_combo("description_text"), "Not used")
    assert freshdesk.preview.tickets[1].body == ""
    assert "“description_text”" in freshdesk.notes_label.text()
    pick(freshdesk.column_combo("description_text"), "Description")
    assert freshdesk.preview.tickets[1].body == "Please refund the second charge on my card."
    assert "“description_text”" not in freshdesk.notes_label.text()

    pick(freshdesk.value_combo("status", "Escalated to L2"), "Pending")
    assert cell_texts(freshdesk.tickets_table, 3)[:3] == ["Open", "Pending", "Pending"]
    row = value_rows(freshdesk)[2]
    assert row[1] == "Escalated to L2" and row[3] == "Pending" and row[VALUE_NOTE_COLUMN] == ""
    item = freshdesk.values_table.item(2, 1)
    assert item is not None and item.background().color() != UNKNOWN_BACKGROUND
    assert "Escalated to L2" not in freshdesk.notes_label.text()
    assert not freshdesk.message_label.isVisible()

    choices = freshdesk.choices
    assert choices.columns == {
        "id": "id", "subject": "subject", "description_text": "body", "status": "status",
        "priority": "priority", "requester_email": "requester", "responder_name": "assignee",
        "tags": "tags", "created_at": "created", "group_name": None,
    }  # fmt: skip
    # Only what was chosen: guessed meanings are guessed again next time.
    assert choices.values == {"status": {"Escalated to L2": "pending"}}
    assert ImportChoices.from_json(choices.to_json()) == choices

    with qtbot.waitSignal(freshdesk.finished):
        qtbot.mouseClick(freshdesk.open_button, Qt.MouseButton.LeftButton)
    assert freshdesk.result() == QDialog.DialogCode.Accepted
    # What to open: the whole file as read with the final choices.
    assert freshdesk.queue.tickets == load_queue_file(FRESHDESK, choices).tickets
    assert freshdesk.queue is freshdesk.preview.queue


def test_confirming_the_shown_meaning_of_an_unknown_value_is_a_choice(
    freshdesk: QueuePreviewDialog,
) -> None:
    combo = freshdesk.value_combo("status", "Escalated to L2")
    assert combo.currentText() == "Open"
    combo.activated.emit(combo.currentIndex())
    assert freshdesk.choices.values == {"status": {"Escalated to L2": "open"}}
    assert freshdesk.preview.unknown_values["status"] == ()
    assert value_rows(freshdesk)[2][VALUE_NOTE_COLUMN] == ""


def test_a_field_chosen_for_a_second_column_leaves_the_first(
    freshdesk: QueuePreviewDialog,
) -> None:
    pick(freshdesk.column_combo("description_text"), "Subject")
    assert freshdesk.column_combo("subject").currentText() == "Not used"
    assert freshdesk.message_label.text() == (
        "“subject” is now not used, because “description_text” is now used as Subject."
    )
    assert freshdesk.message_label.isVisible()
    assert freshdesk.choices.columns["subject"] is None
    assert freshdesk.preview.tickets[1].subject == "Please refund the second charge on my card."


def test_a_choice_that_cannot_work_says_why_and_blocks_opening(
    freshdesk: QueuePreviewDialog,
) -> None:
    pick(freshdesk.column_combo("subject"), "Created")
    assert not freshdesk.open_button.isEnabled()
    assert freshdesk.message_label.text().startswith(
        "The file cannot be opened like this. Could not open freshdesk_export.csv. "
        "Row 2, column “subject”: “Cannot reset my password” is not a date we can read."
    )
    # The person's choice stays on screen, so they can see what to change back.
    assert freshdesk.column_combo("subject").currentText() == "Created"
    assert freshdesk.column_combo("created_at").currentText() == "Not used"
    pick(freshdesk.column_combo("id"), "Not used")
    assert "No column is used as the ticket id." in freshdesk.message_label.text()
    pick(freshdesk.column_combo("id"), "Ticket id")
    assert not freshdesk.open_button.isEnabled()
    pick(freshdesk.column_combo("subject"), "Subject")
    assert freshdesk.open_button.isEnabled()
    assert not freshdesk.message_label.isVisible()
    assert cell_texts(freshdesk.tickets_table, 0)[:2] == ["4101", "4102"]
    assert freshdesk.choices.columns["created_at"] is None


def test_moving_the_status_column_rebuilds_the_values_table(
    freshdesk: QueuePreviewDialog,
) -> None:
    pick(freshdesk.column_combo("group_name"), "Status")
    assert freshdesk.column_combo("status").currentText() == "Not used"
    rows = value_rows(freshdesk)
    assert [row[1] for row in rows if row[0] == "Status"] == ["Tier 1", "Billing", "Tier 2"]
    assert all("is not a status Understudy knows" in row[VALUE_NOTE_COLUMN]
               for row in rows if row[0] == "Status")  # fmt: skip
    pick(freshdesk.value_combo("status", "Billing"), "Pending")
    assert freshdesk.choices.values == {"status": {"Billing": "pending"}}


def test_dialog_starts_from_remembered_choices(qtbot: Any) -> None:
    remembered = ImportChoices(
        columns={"description_text": "body", "responder_name": "assignee", "gone": "tags"},
        values={"status": {"Escalated to L2": "solved", "Waiting on L3": "pending"}},
    )
    preview = preview_queue_file(FRESHDESK)
    dialog = show(qtbot, QueuePreviewDialog(preview, remembered=remembered))
    assert dialog.preview.choices == remembered
    assert dialog.column_combo("responder_name").currentText() == "Assignee"
    assert dialog.value_combo("status", "Escalated to L2").currentText() == "Solved"
    assert cell_texts(dialog.tickets_table, 3)[2] == "Solved"
    assert not dialog.message_label.isVisible()
    # Remembered meanings of values this file lacks are kept for the next file.
    assert dialog.choices.values == remembered.values
    assert "gone" not in dialog.choices.columns
    # Read with the same choices already: the dialog does not read the file again.
    again = preview_queue_file(FRESHDESK, choices=remembered)
    assert show(qtbot, QueuePreviewDialog(again, remembered=remembered)).preview is again


def test_remembered_choices_that_do_not_fit_fall_back_to_the_guess(qtbot: Any) -> None:
    preview = preview_queue_file(FRESHDESK)
    dialog = show(qtbot, QueuePreviewDialog(preview, remembered=ImportChoices({"id": None})))
    assert dialog.preview is preview
    assert dialog.message_label.text().startswith(
        "The choices remembered for this kind of file do not fit this file, so Understudy "
        "guessed again."
    )
    assert dialog.open_button.isEnabled()
    assert dialog.choices.columns["id"] == "id"


def test_values_table_is_hidden_for_a_file_without_status_or_priority(qtbot: Any) -> None:
    preview = preview_queue_file(FIXTURES / "understudy_queue.json")
    dialog = show(qtbot, QueuePreviewDialog(preview))
    assert dialog.values_table.rowCount() == 0
    assert not dialog.values_table.isVisible()


def test_choices_are_remembered_by_kind_of_file(freshdesk: QueuePreviewDialog) -> None:
    """What Open queue does (shell/queue_files.py): store dialog.choices under the signature."""
    store = {source_signature(freshdesk.preview): freshdesk.choices.to_json()}
    pick(freshdesk.column_combo("responder_name"), "Assignee")
    store[source_signature(freshdesk.preview)] = freshdesk.choices.to_json()
    assert len(store) == 1
    later = preview_queue_file(FRESHDESK)
    restored = ImportChoices.from_json(store[source_signature(later)])
    assert restored.columns["responder_name"] == "assignee"


def test_each_assignee_spelling_can_be_said_to_be_someone_or_nobody(qtbot: Any, tmp_path) -> None:
    """ "Chen W." is Chen Wei, "No Agent" is nobody (guessed), "Sam (temp)" is chosen as
    nobody; the queue opens that way, and saving writes back the cells as they were."""
    path = tmp_path / "people.csv"
    path.write_text(
        "id,subject,agent\n1,A,Chen Wei\n2,B,Chen W.\n3,C,No Agent\n4,D,Sam (temp)\n",
        encoding="utf-8",
    )
    dialog = show(qtbot, QueuePreviewDialog(preview_queue_file(path, rows=5)))
    people = {row[1]: row for row in value_rows(dialog) if row[0] == "Assignee"}
    assert set(people) == {"Chen Wei", "Chen W.", "No Agent", "Sam (temp)"}
    assert people["No Agent"][3] == "Nobody"
    assert people["No Agent"][VALUE_NOTE_COLUMN].startswith("Read as nobody")
    combo = dialog.value_combo("assignee", "Chen W.")
    offered = [combo.itemText(i) for i in range(combo.count())]
    assert offered[0] == "Nobody" and "Chen Wei" in offered and "No Agent" not in offered
    pick(combo, "Chen Wei")
    pick(dialog.value_combo("assignee", "Sam (temp)"), "Nobody")
    assert cell_texts(dialog.tickets_table, 5) == ["Chen Wei", "Chen Wei", "", ""]
    choices = dialog.choices
    assert choices.values["assignee"] == {"Chen W.": "Chen Wei", "Sam (temp)": ""}
    # Remembered choices survive the trip through JSON, and are checked on the way back.
    assert ImportChoices.from_json(json.loads(json.dumps(choices.to_json()))) == choices
    with pytest.raises(QueueFileError):
        ImportChoices(values={"assignee": {"x": "y" * 121}})

    queue = load_queue_file(path, choices)
    assert [t.assignee for t in queue.tickets] == ["chen-wei", "chen-wei", None, None]
    assert [a.name for a in queue.assignees] == ["Chen Wei"]
    before = path.read_bytes()
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)
    assert path.read_bytes() == before  # nothing changed: every cell as it was
