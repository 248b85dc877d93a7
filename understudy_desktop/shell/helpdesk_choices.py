"""Changes to choose: a change of ours to a field someone also changed in the helpdesk.
Both values are shown in words, and the person keeps one; nothing is overwritten until then."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from understudy_desktop.helpdesk.tables import Choice, Left
from understudy_desktop.helpdesk.words import FIELD_WORDS, left_words, value_words
from understudy_desktop.shell.helpdesk_link import HelpdeskLink
from understudy_desktop.shell.plain_label import plain_label
from understudy_desktop.text import isolated

MAX_SHOWN = 200


def choice_words(title: str, choice: Choice, people: dict[str, str]) -> str:
    field = FIELD_WORDS.get(choice.field, choice.field).lower()
    mine = value_words(choice.field, choice.mine, people)
    theirs = value_words(choice.field, choice.theirs, people)
    # The subject and a helpdesk person's name are the helpdesk's (a customer wrote the
    # subject): each is set apart, so none can reorder the sentence around it.
    return (
        f"{choice.ticket} “{isolated(choice.subject)}”: you set the {field} to "
        f"{isolated(mine)}; meanwhile in {title} it was set to {isolated(theirs)}."
    )


class ChoicesDialog(QDialog):
    def __init__(
        self, link: HelpdeskLink, people: dict[str, str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.link = link
        self.people = people
        self.setWindowTitle("Changes to choose")
        self.setMinimumSize(560, 300)
        layout = QVBoxLayout(self)
        self.intro = plain_label()
        layout.addWidget(self.intro)
        self.rows = QVBoxLayout()
        holder = QWidget()
        holder.setLayout(self.rows)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(holder)
        layout.addWidget(scroll)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.fill()

    def fill(self) -> None:
        while self.rows.count():
            item = self.rows.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        found = self.link.choices()
        left = self.link.left_notes()
        title = self.link.title
        if not found:
            self.intro.setText(f"Nothing to choose: every change is settled with {title}.")
        else:
            self.intro.setText(
                f"These changes of yours met a change made in {title} at the same time. "
                "Choose which to keep for each."
            )
        for choice in found[:MAX_SHOWN]:
            self.rows.addWidget(self._row(title, choice))
        if left:
            self.rows.addWidget(self._left(title, left))
        self.rows.addStretch(1)

    def _left(self, title: str, notes: list[Left]) -> QWidget:
        """Tickets that left the queue in the helpdesk: said once, until the person has read
        them (nothing to choose: they are not this queue's any more)."""
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 12, 0, 0)
        column.addWidget(plain_label(f"These tickets are no longer in this queue in {title}:"))
        for note in notes[:MAX_SHOWN]:
            column.addWidget(plain_label(left_words(title, note)))
        if len(notes) > MAX_SHOWN:
            column.addWidget(plain_label(f"… and {len(notes) - MAX_SHOWN:,} more."))
        read = QPushButton("Clear this list")
        read.setToolTip("These notes go; the tickets stay as they are in the helpdesk.")
        read.clicked.connect(self._clear_left)
        line = QHBoxLayout()
        line.addStretch(1)
        line.addWidget(read)
        column.addLayout(line)
        return box

    def _clear_left(self) -> None:
        self.link.clear_left()
        self.fill()

    def _row(self, title: str, choice: Choice) -> QWidget:
        row = QWidget()
        line = QHBoxLayout(row)
        words = plain_label(choice_words(title, choice, self.people))
        mine = QPushButton("Keep mine")
        theirs = QPushButton(f"Keep what {title} has")
        mine.clicked.connect(lambda: self.link.choose(choice, True, self.fill))
        theirs.clicked.connect(lambda: self.link.choose(choice, False, self.fill))
        line.addWidget(words, 1)
        line.addWidget(mine)
        line.addWidget(theirs)
        return row
