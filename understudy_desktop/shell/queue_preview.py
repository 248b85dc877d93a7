"""The "Open queue" dialog: shows what we understood of a file before it replaces the queue."""

from __future__ import annotations

from collections.abc import Sequence, Set

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from understudy_desktop.queue_io import QueuePreview, Ticket, field_label

MAPPING_HEADERS = ("File column", "Used as", "Example")
TICKET_HEADERS = ("Id", "Subject", "Requester", "Status", "Priority", "Assignee", "Tags", "Created")


def summary_text(preview: QueuePreview) -> str:
    """The one sentence a support agent needs before deciding: how many, from where, in what."""
    if preview.total == 0:
        found = "No tickets found"
    elif preview.total == 1:
        found = "1 ticket found"
    else:
        found = f"{preview.total:,} tickets found"
    return (
        f"{found} in {preview.path.name} ({preview.description}). "
        "This replaces the queue you have open now."
    )


def _read_only_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    name: str,
    description: str,
    italic_rows: Set[int] = frozenset(),
) -> QTableWidget:
    table = QTableWidget(len(rows), len(headers))
    table.setHorizontalHeaderLabels(list(headers))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    # Tab should leave the table for the buttons, not walk through every cell.
    table.setTabKeyNavigation(False)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    table.horizontalHeader().setStretchLastSection(True)
    table.setAccessibleName(name)
    table.setAccessibleDescription(description)
    for row, values in enumerate(rows):
        for column, value in enumerate(values):
            item = QTableWidgetItem(value)
            # Cells are cut short in the preview; the tooltip keeps the full value readable.
            item.setToolTip(value)
            if row in italic_rows:
                font = item.font()
                font.setItalic(True)
                item.setFont(font)
            table.setItem(row, column, item)
    table.resizeColumnsToContents()
    return table


class QueuePreviewDialog(QDialog):
    """Modal preview; ``exec()`` returns Accepted when the user chose "Open queue"."""

    def __init__(self, preview: QueuePreview, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preview = preview
        self.setWindowTitle("Open queue")
        self.setModal(True)
        self.resize(900, 640)

        layout = QVBoxLayout(self)

        self.summary_label = QLabel(summary_text(preview))
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextFormat(Qt.TextFormat.PlainText)
        self.summary_label.setAccessibleName("Summary")
        layout.addWidget(self.summary_label)

        self.notes_label = QLabel("\n".join(preview.notes))
        self.notes_label.setWordWrap(True)
        self.notes_label.setTextFormat(Qt.TextFormat.PlainText)
        self.notes_label.setAccessibleName("Notes about this file")
        self.notes_label.setVisible(bool(preview.notes))
        layout.addWidget(self.notes_label)

        mapping_rows = [
            (column.name, field_label(column.field), column.example) for column in preview.columns
        ]
        self.mapping_table = _read_only_table(
            MAPPING_HEADERS,
            mapping_rows,
            "Column mapping",
            "Each column of the file and the ticket field it is used as.",
            # In italics, so the eye goes to the columns that matter; they are still saved back.
            italic_rows={i for i, column in enumerate(preview.columns) if column.field is None},
        )
        mapping_label = QLabel("&Columns in the file")
        mapping_label.setBuddy(self.mapping_table)
        layout.addWidget(mapping_label)
        layout.addWidget(self.mapping_table, 1)

        ticket_rows = [self._ticket_cells(ticket) for ticket in preview.tickets]
        shown = len(ticket_rows)
        self.tickets_table = _read_only_table(
            TICKET_HEADERS,
            ticket_rows,
            "First tickets",
            f"The first {shown} tickets of the file, as they will appear in the queue.",
        )
        tickets_label = QLabel(
            f"&First {shown} ticket{'s' if shown != 1 else ''}" if shown else "&Tickets"
        )
        tickets_label.setBuddy(self.tickets_table)
        layout.addWidget(tickets_label)
        layout.addWidget(self.tickets_table, 1)

        self.button_box = QDialogButtonBox()
        # In the dialog before setDefault(), or the dialog never learns which button is its main
        # default and Enter pressed in a table would hit whichever button last had focus.
        layout.addWidget(self.button_box)
        self.open_button: QPushButton = self.button_box.addButton(
            "Open queue", QDialogButtonBox.ButtonRole.AcceptRole
        )
        cancel = self.button_box.addButton(QDialogButtonBox.StandardButton.Cancel)
        assert cancel is not None
        self.cancel_button: QPushButton = cancel
        self.open_button.setAccessibleName("Open queue")
        self.open_button.setAccessibleDescription("Replace the current queue with this file.")
        self.cancel_button.setAccessibleName("Cancel")
        self.cancel_button.setAccessibleDescription("Keep the current queue.")
        self.open_button.setDefault(True)
        self.button_box.accepted.connect(self.accept)
        self.button_box.rejected.connect(self.reject)
        self.open_button.setFocus()

    def _ticket_cells(self, ticket: Ticket) -> tuple[str, ...]:
        return (
            ticket.id,
            ticket.subject,
            ticket.requester,
            ticket.status,
            ticket.priority,
            self.preview.assignee_name(ticket.assignee),
            ", ".join(ticket.tags),
            ticket.created,
        )
