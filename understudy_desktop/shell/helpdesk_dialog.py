"""File › Connect to helpdesk…: which helpdesk, its address and the sign-in; Test connection
says what the connection can do with the permissions it has; Connect reads the queue (with
progress) and makes it the console's queue. Connecting again to the same helpdesk and queue
is a new sign-in: the queue and its waiting changes stay, and sending resumes. So is the same
helpdesk at a new address, once its tickets are found there. Another helpdesk or queue would
leave waiting changes unsent: the person is asked first.

The secret field never echoes and is never logged; the connection's words come from the
adapters (helpdesk/), which never put a secret in them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from understudy_desktop.helpdesk.base import Abilities
from understudy_desktop.helpdesk.connect import (
    SECRET_WORDS,
    TITLES,
    Settings,
    SettingsError,
    checked,
)
from understudy_desktop.shell.helpdesk_link import HelpdeskLink
from understudy_desktop.shell.plain_label import plain_label
from understudy_desktop.store.queue_store import QueueState
from understudy_desktop.text import isolated

FIELD_NAMES = {
    "status": "status",
    "priority": "priority",
    "assignee": "who it is assigned to",
    "tags": "tags",
}
HINTS = {
    "rt": "In Request Tracker: your name › Settings › Auth Tokens › Create.",
    "zendesk": "In Zendesk: Admin Center › Apps and integrations › Zendesk API › Add API token.",
    "freshdesk": "In Freshdesk: your profile picture › Profile settings › View API key.",
}
PLACEHOLDERS = {
    "rt": "https://rt.example.com",
    "zendesk": "https://yourteam.zendesk.com",
    "freshdesk": "https://yourteam.freshdesk.com",
}


def abilities_words(title: str, abilities: Abilities) -> str:
    fields = [FIELD_NAMES[f] for f in abilities.fields if f in FIELD_NAMES]
    if abilities.can_update and fields:
        can = f"It can read the tickets and change their {_join(fields)}."
    else:
        can = "It can read the tickets, but not change them."
    lines = [f"Connected to {isolated(abilities.account)}.", can, *abilities.notes]
    return "\n".join(lines)


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


class HelpdeskDialog(QDialog):
    def __init__(self, link: HelpdeskLink, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        self.setWindowTitle("Connect to helpdesk")
        self.setMinimumWidth(480)
        self.result_state: QueueState | None = None
        self.signed_in_again = False
        self.asking: QMessageBox | None = None
        self.kind = QComboBox()
        for kind, title in TITLES.items():
            self.kind.addItem(title, kind)
        self.kind.setAccessibleName("Helpdesk")
        self.address = QLineEdit()
        self.address.setAccessibleName("Address")
        self.queue = QLineEdit()
        self.queue.setAccessibleName("Queue")
        self.email = QLineEdit()
        self.email.setAccessibleName("Email")
        self.secret = QLineEdit()
        self.secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.secret.setAccessibleName("Sign-in key")
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: palette(placeholder-text);")
        self.form = QFormLayout()
        self.form.addRow("Helpdesk:", self.kind)
        self.form.addRow("Address:", self.address)
        self.form.addRow("Queue:", self.queue)
        self.form.addRow("Your email:", self.email)
        self.form.addRow("Key:", self.secret)
        self.form.addRow("", self.hint)
        self.said = plain_label()
        self.said.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.said.setAccessibleName("Connection")
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.test_button = QPushButton("&Test connection")
        self.connect_button = QPushButton("&Connect")
        self.connect_button.setDefault(True)
        self.buttons.addButton(self.test_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.connect_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.rejected.connect(self.reject)
        self.test_button.clicked.connect(self.test)
        self.connect_button.clicked.connect(self.connect_now)
        layout = QVBoxLayout(self)
        intro = QLabel(
            "Work on your helpdesk's tickets here: what you and your tools change is sent to "
            "the helpdesk, and what colleagues change there shows up here."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        layout.addLayout(self.form)
        layout.addWidget(self.said)
        layout.addWidget(self.progress)
        layout.addWidget(self.buttons)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        if link.settings is not None:
            self._fill(link.settings)
        self._kind_changed()

    def _fill(self, settings: Settings) -> None:
        self.kind.setCurrentIndex(max(0, self.kind.findData(settings.kind)))
        self.address.setText(settings.url)
        self.queue.setText(settings.queue)
        self.email.setText(settings.email)

    def _kind_changed(self) -> None:
        kind = str(self.kind.currentData())
        self.form.setRowVisible(self.queue, kind == "rt")
        self.form.setRowVisible(self.email, kind == "zendesk")
        label = self.form.labelForField(self.secret)
        if isinstance(label, QLabel):
            label.setText(f"{SECRET_WORDS[kind]}:")
        self.secret.setAccessibleName(SECRET_WORDS[kind])
        self.address.setPlaceholderText(PLACEHOLDERS[kind])
        self.hint.setText(HINTS[kind])

    def settings(self) -> Settings | None:
        raw = Settings(
            str(self.kind.currentData()),  # type: ignore[arg-type]
            self.address.text(),
            self.queue.text(),
            self.email.text(),
        )
        try:
            return checked(raw)
        except SettingsError as exc:
            self._say(str(exc), bad=True)
            return None

    def _say(self, text: str, bad: bool = False) -> None:
        self.said.setText(text)
        self.said.setStyleSheet("color: #b91c1c;" if bad else "")

    def _busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.test_button.setEnabled(not busy)
        self.connect_button.setEnabled(not busy)

    def test(self) -> None:
        settings = self.settings()
        if settings is None:
            return
        self._busy(True)
        self._say(f"Asking {settings.title}…")

        def done(result: Abilities | str) -> None:
            self._busy(False)
            if isinstance(result, str):
                self._say(result, bad=True)
            else:
                self._say(abilities_words(settings.title, result))

        self.link.test(settings, self.secret.text(), done)

    def connect_now(self) -> None:
        settings = self.settings()
        if settings is None:
            return
        if self.link.same_place(settings):
            # The same helpdesk and queue: a new sign-in, nothing of the queue is replaced.
            self._sign_in_again(settings)
            return
        if self.link.new_address(settings):
            # Perhaps the same helpdesk, moved: if its tickets are there, nothing is replaced
            # and nothing waiting is dropped; if not, it says so and nothing changes.
            self._sign_in_again(settings, new_address=True)
            return
        waiting = self.link.waiting() if self.link.settings is not None else 0
        if waiting and not self._discard_confirmed(waiting, settings):
            self._say(f"Nothing was changed: your {_changes(waiting)} still wait for "
                      f"{self.link.title}.")  # fmt: skip
            return
        self._busy(True)
        self._say(f"Reading the tickets from {settings.title}…")

        def progress(count: int) -> None:
            self._say(f"Read {count:,} tickets from {settings.title}…")

        def read(result: QueueState) -> None:
            self.result_state = result

        self.link.connect_queue(settings, self.secret.text(), progress, self._finished(read))

    def _sign_in_again(self, settings: Settings, new_address: bool = False) -> None:
        self._busy(True)
        if new_address:
            self._say(f"Checking that this is the same {settings.title} at a new address…")
        else:
            self._say(f"Signing in to {settings.title} again…")

        def signed_in(_abilities: Abilities) -> None:
            self.signed_in_again = True

        self.link.sign_in_again(
            settings, self.secret.text(), self._finished(signed_in), new_address=new_address
        )

    def _finished(self, succeeded: Callable[[Any], None]) -> Callable[[Any], None]:
        """The end of a connection attempt: its words when it failed (the dialog stays open),
        otherwise `succeeded` and the dialog closes."""

        def done(result: Any) -> None:
            self._busy(False)
            if isinstance(result, str):
                self._say(result, bad=True)
                return
            succeeded(result)
            self.accept()

        return done

    def _discard_confirmed(self, waiting: int, settings: Settings) -> bool:
        """Another helpdesk or queue leaves this queue's unsent changes behind: only when the
        person says so, by a button that names how many."""
        where = self.link.title
        ask = QMessageBox(self)
        ask.setTextFormat(Qt.TextFormat.PlainText)
        ask.setIcon(QMessageBox.Icon.Warning)
        ask.setWindowTitle("Changes not sent yet")
        ask.setText(
            f"{_changes(waiting).capitalize()} made here {'has' if waiting == 1 else 'have'} "
            f"not reached {where} yet. Connecting to {_place(settings)} instead means "
            f"{'it is' if waiting == 1 else 'they are'} never sent."
        )
        ask.setInformativeText(
            f"To keep {'it' if waiting == 1 else 'them'}, choose Keep, then connect to {where} "
            "again with a new key if it no longer accepts the old one."
        )
        discard = ask.addButton(
            f"Disconnect and discard {_changes(waiting)}", QMessageBox.ButtonRole.DestructiveRole
        )
        keep = ask.addButton("Keep", QMessageBox.ButtonRole.RejectRole)
        ask.setDefaultButton(keep)
        ask.setEscapeButton(keep)
        self.asking = ask
        ask.exec()
        return ask.clickedButton() is discard


def _changes(n: int) -> str:
    return f"{n:,} waiting change" + ("" if n == 1 else "s")


def _place(settings: Settings) -> str:
    return f"the {settings.queue} queue of {settings.title}" if settings.queue else settings.title
