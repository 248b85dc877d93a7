"""The "Open queue" dialog: shows what we understood of a file before it replaces the queue.

The person can correct what was guessed: which ticket field each column feeds ("Use as…") and
what each status and priority value in the file means. Every change reads the file again, so
the first tickets and the notes always show what opening it would give; ``choices`` is what to
remember for the next file of the same kind (see ``source_signature``).
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from datetime import datetime

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
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

from understudy_desktop.queue_io import (
    FIELD_LABELS,
    FIELDS,
    ColumnPreview,
    ImportChoices,
    LoadedQueue,
    QueueFileError,
    QueuePreview,
    Ticket,
    preview_queue_file,
)
from understudy_desktop.queue_io.choices import PEOPLE, VALUE_FIELDS
from understudy_desktop.queue_io.columns import FIELD_VALUES, UNKNOWN_VALUE_DEFAULTS, FieldName
from understudy_desktop.queue_io.gc_pause import paused_gc
from understudy_desktop.queue_io.progress import ReadWatch, watched
from understudy_desktop.shell.background import BackgroundJob
from understudy_desktop.shell.screen_fit import fit_to_screen

MAPPING_HEADERS = ("File column", "Use as…", "Example")
VALUE_HEADERS = ("Field", "In the file", "Tickets", "Means", "Note")
TICKET_HEADERS = ("Id", "Subject", "Requester", "Status", "Priority", "Assignee", "Tags", "Created")
NOT_USED = "Not used"
EMPTY_VALUE = "(empty)"
NOBODY = "Nobody"
MAX_PEOPLE_ROWS = 200
# Tickets up to which a changed choice is read again at once (a few hundredths of a second);
# a bigger file is read again on a worker thread.
READ_AT_ONCE = 5000
# Column positions, for tests and for code that reads the tables.
MAPPING_USE_COLUMN = 1
VALUE_MEANS_COLUMN = 3
VALUE_NOTE_COLUMN = 4
# Soft yellow behind values nobody knows yet, with dark text so it reads in a dark theme too.
UNKNOWN_BACKGROUND = QColor(255, 241, 196)
UNKNOWN_FOREGROUND = QColor(32, 32, 32)


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


def value_label(value: str) -> str:
    """How a status or priority is shown in a choice: "open" -> "Open"."""
    return value.capitalize()


def _when(iso: str) -> str:
    """ "2 Nov 2026, 09:14" from the ticket's ISO time, as the console shows dates."""
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    return f"{moment.day} {moment.strftime('%b %Y, %H:%M')}"


def unknown_value_note(field_name: str, raw: str) -> str:
    shown = f"“{raw}”" if raw else "An empty cell"
    return (
        f"{shown} is not a {field_name} Understudy knows; choose what it means. "
        f"Until you do, it counts as {value_label(UNKNOWN_VALUE_DEFAULTS[field_name])}."
    )


def _table(headers: Sequence[str], rows: int, name: str, description: str) -> QTableWidget:
    table = QTableWidget(rows, len(headers))
    table.setHorizontalHeaderLabels(list(headers))
    # The cells themselves are never edited; choices are made in the combo boxes inside them.
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    # Tab should leave the table (or go to its combo boxes), not walk through every cell.
    table.setTabKeyNavigation(False)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    table.horizontalHeader().setStretchLastSection(True)
    table.setAccessibleName(name)
    table.setAccessibleDescription(description)
    return table


def _item(value: str, italic: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(value)
    # Cells are cut short in the preview; the tooltip keeps the full value readable.
    item.setToolTip(value)
    if italic:
        font = item.font()
        font.setItalic(True)
        item.setFont(font)
    return item


def _key(column: ColumnPreview) -> str:
    """How ImportChoices names a column (unique even when a header is repeated)."""
    return column.key or column.name


def _fill(table: QTableWidget, rows: Sequence[Sequence[str]], italic_rows: Set[int]) -> None:
    table.setRowCount(len(rows))
    for row, values in enumerate(rows):
        for column, value in enumerate(values):
            table.setItem(row, column, _item(value, row in italic_rows))


class QueuePreviewDialog(QDialog):
    """Modal preview; ``exec()`` returns Accepted when the user chose "Open queue".

    After it is accepted, ``preview`` (and ``queue``) is the file as read with the final
    ``choices``, which may differ from the preview the dialog was given.
    """

    def __init__(
        self,
        preview: QueuePreview,
        parent: QWidget | None = None,
        *,
        remembered: ImportChoices | None = None,
    ) -> None:
        super().__init__(parent)
        self.preview = preview
        # Every column's current use, and only the value meanings someone actually chose (so a
        # value left alone is guessed again next time, and still flagged if nobody knows it).
        self._columns: dict[str, FieldName | None] = {}
        self._values: dict[str, dict[str, str]] = {}
        self._value_rows: list[tuple[str, str]] = []
        self._column_combos: dict[str, QComboBox] = {}
        self._value_combos: dict[tuple[str, str], QComboBox] = {}
        # The people the file names, kept while choices change what each spelling means.
        self._people_offered: set[str] = set()
        self._reading: ReadWatch | None = None  # a read again under way on a worker thread
        self.setWindowTitle("Open queue")
        self.setModal(True)
        fit_to_screen(self, 960, 720)

        layout = QVBoxLayout(self)

        self.summary_label = self._plain_label("Summary")
        layout.addWidget(self.summary_label)

        self.notes_label = self._plain_label("Notes about this file")
        layout.addWidget(self.notes_label)

        # What the last change did, or why the file cannot be opened with the current choices.
        self.message_label = self._plain_label("What changed")
        self.message_label.setVisible(False)
        layout.addWidget(self.message_label)

        self._add_tables(layout)
        self._add_buttons(layout)

        wanted = remembered is not None and bool(remembered.columns or remembered.values)
        if remembered is not None and wanted and preview.choices != remembered:
            self._start_from(remembered)
        else:
            self._values = _copy_values(preview.choices.values if preview.choices else {})
        self._columns = {_key(column): column.field for column in self.preview.columns}
        self._show_preview()
        self.mapping_table.resizeColumnsToContents()
        self.open_button.setFocus()

    def _add_tables(self, layout: QVBoxLayout) -> None:
        """The file's columns, the values written in it, and its first tickets."""
        preview = self.preview
        self.mapping_table = _table(
            MAPPING_HEADERS,
            len(preview.columns),
            "Column mapping",
            "Each column of the file and the ticket field it is used as. "
            "Change a column's use with the list in its row.",
        )
        for row, column in enumerate(preview.columns):
            self.mapping_table.setCellWidget(row, MAPPING_USE_COLUMN, self._column_combo(column))
        mapping_label = QLabel("&Columns in the file")
        mapping_label.setBuddy(self.mapping_table)
        layout.addWidget(mapping_label)
        layout.addWidget(self.mapping_table, 2)

        self.values_table = _table(
            VALUE_HEADERS,
            0,
            "Values in the file",
            "Each status, priority and assignee written in the file and what it means in "
            "Understudy. "
            "Change a meaning with the list in its row.",
        )
        self.values_label = QLabel("&Values in the file")
        self.values_label.setBuddy(self.values_table)
        layout.addWidget(self.values_label)
        layout.addWidget(self.values_table, 2)

        self.tickets_table = _table(TICKET_HEADERS, 0, "First tickets", "")
        self.tickets_label = QLabel()
        self.tickets_label.setBuddy(self.tickets_table)
        layout.addWidget(self.tickets_label)
        layout.addWidget(self.tickets_table, 1)

    def _add_buttons(self, layout: QVBoxLayout) -> None:
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

    # --- what the caller reads --------------------------------------------------------------
    @property
    def choices(self) -> ImportChoices:
        """Every column's use as shown, and the value meanings that were chosen (not guessed)."""
        return ImportChoices(columns=dict(self._columns), values=_copy_values(self._values))

    @property
    def queue(self) -> LoadedQueue:
        """The whole file as read with the current choices; open this one when accepted."""
        return self.preview.queue

    def column_combo(self, key: str) -> QComboBox:
        """The "Use as…" list of one file column (by its name, "Name (2)" if repeated)."""
        return self._column_combos[key]

    def value_combo(self, field_name: str, raw: str) -> QComboBox:
        """The "Means" list of one status or priority value as written in the file."""
        return self._value_combos[(field_name, raw)]

    # --- building ---------------------------------------------------------------------------
    @staticmethod
    def _plain_label(name: str) -> QLabel:
        label = QLabel()
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setAccessibleName(name)
        return label

    def _column_combo(self, column: ColumnPreview) -> QComboBox:
        combo = QComboBox()
        combo.addItem(NOT_USED, None)
        combo.setItemData(0, "Kept and saved back as it is.", Qt.ItemDataRole.ToolTipRole)
        for name in FIELDS:
            combo.addItem(FIELD_LABELS[name], name)
        combo.setAccessibleName(f"Use column “{column.name}” as")
        combo.setToolTip(f"What the column “{column.name}” holds.")
        combo.setCurrentIndex(max(0, combo.findData(column.field)))
        key = _key(column)
        combo.currentIndexChanged.connect(lambda _index: self._column_changed(key))
        self._column_combos[key] = combo
        return combo

    def _value_combo(self, field_name: str, raw: str, current: str) -> QComboBox:
        combo = QComboBox()
        if field_name == PEOPLE:
            # Nobody, or one of the people the file names (so "Chen W." can be Chen Wei).
            combo.addItem(NOBODY, "")
            for name in self._people_named():
                combo.addItem(name, name)
        else:
            for value in FIELD_VALUES[field_name]:
                combo.addItem(value_label(value), value)
        combo.setCurrentIndex(max(0, combo.findData(current)))
        shown = f"“{raw}”" if raw else "an empty cell"
        combo.setAccessibleName(f"{FIELD_LABELS[field_name]} {shown} means")
        combo.currentIndexChanged.connect(lambda _index: self._value_changed(field_name, raw))
        # Also when the shown meaning is picked again: that confirms a guess as a choice.
        combo.activated.connect(lambda _index: self._value_changed(field_name, raw))
        self._value_combos[(field_name, raw)] = combo
        return combo

    # --- showing a preview ------------------------------------------------------------------
    def _show_preview(self) -> None:
        preview = self.preview
        self.summary_label.setText(summary_text(preview))
        self.notes_label.setText("\n".join(preview.notes))
        self.notes_label.setVisible(bool(preview.notes))
        self._show_mapping()
        self._show_values()
        self._show_tickets()

    def _show_mapping(self) -> None:
        for row, column in enumerate(self.preview.columns):
            unused = column.field is None
            label = NOT_USED if column.field is None else FIELD_LABELS[column.field]
            # In italics, so the eye goes to the columns that matter; they are still saved back.
            self.mapping_table.setItem(row, 0, _item(column.name, unused))
            self.mapping_table.setItem(row, MAPPING_USE_COLUMN, _item(label, unused))
            self.mapping_table.setItem(row, 2, _item(column.example, unused))
            combo = self._column_combos[_key(column)]
            combo.blockSignals(True)
            combo.setCurrentIndex(max(0, combo.findData(column.field)))
            combo.blockSignals(False)

    def _people_named(self) -> list[str]:
        """Everyone the file's assignee column names, as read (the nobody words left out)."""
        people = self.preview.people_choices
        return sorted({meant for meant in people.values() if meant} | self._people_offered)

    def _meaning(self, name: str, raw: str) -> str:
        if name == PEOPLE:
            return self.preview.people_choices.get(raw, "")
        return self.preview.value_choices[name][raw]

    def _show_values(self) -> None:
        preview = self.preview
        rows = [(name, raw) for name in VALUE_FIELDS for raw in preview.value_choices.get(name, {})]
        people = preview.people_choices
        if len(people) <= MAX_PEOPLE_ROWS:
            # Whom each assignee spelling means; a file naming hundreds of people is left to
            # the guess (names as written, the words for nobody as nobody).
            self._people_offered |= {raw for raw, meant in people.items() if meant == raw and raw}
            rows += [(PEOPLE, raw) for raw in people]
        if rows != self._value_rows:
            # Other values (another column became the status): new rows, new lists. A value's
            # own list is never replaced while it reports a change, because a change of meaning
            # never changes which values the file has.
            self.values_table.setRowCount(0)
            self._value_combos.clear()
            self.values_table.setRowCount(len(rows))
            for row, (name, raw) in enumerate(rows):
                current = self._meaning(name, raw)
                self.values_table.setCellWidget(
                    row, VALUE_MEANS_COLUMN, self._value_combo(name, raw, current)
                )
            self._value_rows = rows
        numbers = preview.queue.values.numbers
        for row, (name, raw) in enumerate(rows):
            current = self._meaning(name, raw)
            unknown = raw in preview.unknown_values.get(name, ())
            if unknown:
                note = unknown_value_note(name, raw)
            elif raw in numbers.get(name, ()) and raw not in self._values.get(name, {}):
                note = f"A Freshdesk number; it means {value_label(current)} there."
            elif name == PEOPLE and raw and not current and raw not in self._values.get(name, {}):
                note = "Read as nobody: the words exports use for an unassigned ticket."
            else:
                note = ""
            if name == PEOPLE:
                count = preview.queue.values.people_counts.get(raw, 0)
                shown = current or NOBODY
            else:
                count = preview.value_counts.get(name, {}).get(raw, 0)
                shown = value_label(current)
            cells = (FIELD_LABELS[name], raw or EMPTY_VALUE, f"{count:,}", shown, note)
            for column, text in enumerate(cells):
                item = _item(text)
                if unknown:
                    item.setBackground(QBrush(UNKNOWN_BACKGROUND))
                    item.setForeground(QBrush(UNKNOWN_FOREGROUND))
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.values_table.setItem(row, column, item)
            combo = self._value_combos[(name, raw)]
            combo.blockSignals(True)
            combo.setCurrentIndex(max(0, combo.findData(current)))
            combo.blockSignals(False)
            combo.setToolTip(note)
            combo.setAccessibleDescription(note)
        self.values_table.resizeColumnsToContents()
        self.values_label.setVisible(bool(rows))
        self.values_table.setVisible(bool(rows))

    def _show_tickets(self) -> None:
        rows = [self._ticket_cells(ticket) for ticket in self.preview.tickets]
        shown = len(rows)
        _fill(self.tickets_table, rows, frozenset())
        self.tickets_table.resizeColumnsToContents()
        self.tickets_table.setAccessibleDescription(
            f"The first {shown} tickets of the file, as they will appear in the queue."
        )
        self.tickets_label.setText(
            f"&First {shown} ticket{'s' if shown != 1 else ''}" if shown else "&Tickets"
        )

    def _ticket_cells(self, ticket: Ticket) -> tuple[str, ...]:
        return (
            ticket.id,
            ticket.subject,
            ticket.requester,
            value_label(ticket.status),
            value_label(ticket.priority),
            self.preview.assignee_name(ticket.assignee),
            ", ".join(ticket.tags),
            _when(ticket.created),
        )

    # --- changing choices -------------------------------------------------------------------
    def _start_from(self, remembered: ImportChoices) -> None:
        try:
            self.preview = self._read(remembered)
        except QueueFileError as exc:
            self._values = _copy_values(self.preview.choices.values if self.preview.choices else {})
            self._say(
                "The choices remembered for this kind of file do not fit this file, so "
                f"Understudy guessed again. {exc}"
            )
            return
        self._values = _copy_values(remembered.values)

    def _column_changed(self, key: str) -> None:
        chosen: FieldName | None = self._column_combos[key].currentData()
        before = dict(self._columns)
        choices = ImportChoices(columns=before, values=self._values).with_column(key, chosen)
        self._columns = dict(choices.columns)
        displaced = [
            other
            for other, used in before.items()
            if other != key and used != choices.columns[other]
        ]
        message = ""
        if displaced and chosen is not None:
            names = ", ".join(f"“{self._column_name(other)}”" for other in displaced)
            message = (
                f"{names} {'is' if len(displaced) == 1 else 'are'} now not used, because "
                f"“{self._column_name(key)}” is now used as {FIELD_LABELS[chosen]}."
            )
            for other in displaced:
                combo = self._column_combos[other]
                combo.blockSignals(True)
                combo.setCurrentIndex(0)
                combo.blockSignals(False)
        self._reread(choices, message)

    def _value_changed(self, field_name: str, raw: str) -> None:
        ours: str = self._value_combos[(field_name, raw)].currentData()
        if self._values.get(field_name, {}).get(raw) == ours:
            return  # already chosen and shown (a pick reports both "changed" and "activated")
        self._values.setdefault(field_name, {})[raw] = ours
        self._reread(self.choices, "")

    def _column_name(self, key: str) -> str:
        for column in self.preview.columns:
            if _key(column) == key:
                return column.name
        return key

    def _read(self, choices: ImportChoices) -> QueuePreview:
        # Only for the choices remembered for this kind of file, before the dialog shows.
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            return preview_queue_file(self.preview.path, rows=self.preview.rows, choices=choices)
        finally:
            QApplication.restoreOverrideCursor()

    def _reread(self, choices: ImportChoices, message: str) -> None:
        """Read the file again with the changed choice. A small file is read at once; a big
        one on a worker thread (seconds at 100,000 tickets), the window answering meanwhile,
        the choices held still and what is happening said, until it is read."""
        if self.preview.total <= READ_AT_ONCE:
            try:
                preview = self._read(choices)
            except QueueFileError as exc:
                self._cannot(exc)
                return
            self._reread_done(preview, message)
            return
        watch = ReadWatch()
        path, rows = self.preview.path, self.preview.rows

        def read() -> QueuePreview:
            with watched(watch), paused_gc():
                return preview_queue_file(path, rows=rows, choices=choices)

        job = BackgroundJob(read, self)
        self._reading = watch
        self._hold(True)
        self._say("Reading the file again with your choice…")
        job.succeeded.connect(lambda preview: self._reread_done(preview, message, watch))
        job.failed.connect(lambda exc: self._reread_failed(exc, watch))
        job.start()

    def _reread_done(
        self, preview: QueuePreview, message: str, watch: ReadWatch | None = None
    ) -> None:
        if watch is not None and not self._still_reading(watch):
            return
        self.preview = preview
        self.open_button.setEnabled(True)
        self._say(message)
        self._show_preview()

    def _reread_failed(self, exc: object, watch: ReadWatch) -> None:
        if not self._still_reading(watch):
            return
        if isinstance(exc, QueueFileError):
            self._cannot(exc)
        else:
            self.open_button.setEnabled(False)
            self._say("The file could not be read again. Choose Cancel and open it again.")

    def _still_reading(self, watch: ReadWatch) -> bool:
        """The read of `watch` is the one awaited (not one the dialog gave up on)."""
        if self._reading is not watch:
            return False
        self._reading = None
        self._hold(False)
        return True

    def _hold(self, held: bool) -> None:
        """While the file is read again, choices are held still (each would read it again)."""
        for widget in (self.mapping_table, self.values_table, self.open_button):
            widget.setEnabled(not held)

    def _cannot(self, exc: QueueFileError) -> None:
        # Keep the person's choice on screen so they can see what to change back.
        self.open_button.setEnabled(False)
        self._say(f"The file cannot be opened like this. {exc}")

    def done(self, result: int) -> None:
        # Closed while reading: that read is not waited for any more, and stops.
        if self._reading is not None:
            self._reading.stop.set()
            self._reading = None
        super().done(result)

    def _say(self, message: str) -> None:
        self.message_label.setText(message)
        self.message_label.setVisible(bool(message))


def _copy_values(values: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    return {name: dict(meanings) for name, meanings in values.items()}
