"""View › Team library: what colleagues shared, in groups (new, updates, from people not
trusted yet, not signed, withdrawn...), each tool's warning first; Review… and Not for me;
Share my tools… to put this person's tools into the folder; the team's history; and, for the
team lead, Turn off for the team. Everything from the folder is shown as plain text (it is
someone else's file)."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from understudy_desktop.library.model import shown_name
from understudy_desktop.shell import team_words
from understudy_desktop.shell.pack_dialogs import ExportPackDialog, day_words
from understudy_desktop.shell.screen_fit import fit_to_screen
from understudy_desktop.shell.team_list import TeamList
from understudy_desktop.team.inbox import TeamTool, TeamView
from understudy_desktop.team.library_service import TeamLibrary
from understudy_desktop.team.signing import fingerprint
from understudy_desktop.text import visible_controls

# While files keep arriving the view changes many times a second: the list is drawn again at
# most this often, and only while the window is shown.
REDRAW_MS = 400


class TeamDialog(QDialog):
    def __init__(
        self, team: TeamLibrary, open_settings: Callable[[], None], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._team = team
        self._open_settings = open_settings
        self.setWindowTitle("Team library")
        fit_to_screen(self, 720, 480)
        layout = QVBoxLayout(self)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.items = TeamList(self._review)
        self.items.setAccessibleName("Tools in the team library")
        self.items.doubleClicked.connect(lambda _index: self._review())
        self.items.selectionModel().currentChanged.connect(lambda *_a: self._update_buttons())
        layout.addWidget(self.items, 1)
        self.details = QLabel()
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setAccessibleName("The chosen tool")
        layout.addWidget(self.details)
        self._pending: TeamView | None = None
        self._drawn_at = 0.0
        self._redraw = QTimer(self)
        self._redraw.setSingleShot(True)
        self._redraw.timeout.connect(self._draw_pending)
        row = QHBoxLayout()
        self.review_button = QPushButton("&Review…")
        self.review_button.clicked.connect(self._review)
        self.decline_button = QPushButton("&Not for me")
        self.decline_button.setToolTip("Hide this tool; it comes back if its author updates it.")
        self.decline_button.clicked.connect(self._decline)
        self.share_button = QPushButton("&Share my tools…")
        self.share_button.clicked.connect(self.choose_and_share)
        self.folder_button = QPushButton("Choose the &folder…")
        self.folder_button.clicked.connect(lambda: self._open_settings())
        self.history_button = QPushButton("&History…")
        self.history_button.setToolTip("Who shared, accepted, withdrew and turned off what.")
        self.history_button.clicked.connect(self.show_history)
        self.team_off_button = QPushButton("Turn &off for the team")
        self.team_off_button.setToolTip("As the team lead: nobody's app runs this tool.")
        self.team_off_button.clicked.connect(self._turn_off_for_team)
        self.their_key_button = QPushButton("This key is &theirs…")
        self.their_key_button.setToolTip(
            "Only after checking the whole fingerprint with its owner, by phone or in person."
        )
        self.their_key_button.clicked.connect(self._trust_their_key)
        for button in (
            self.review_button,
            self.decline_button,
            self.share_button,
            self.history_button,
            self.team_off_button,
            self.their_key_button,
        ):
            row.addWidget(button)
        row.addStretch(1)
        row.addWidget(self.folder_button)
        layout.addLayout(row)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout.addWidget(close)
        team.view_changed.connect(self._view_changed)
        self.show_view(team.view)

    def _view_changed(self, view: TeamView) -> None:
        """Draw a new view now, or, if one was drawn a moment ago, once REDRAW_MS have passed
        (the newest view then; those in between are never drawn). A closed window draws the
        newest when it is shown again."""
        self._pending = view
        if self._redraw.isActive() or not self.isVisible():
            return
        wait = REDRAW_MS - (time.monotonic() - self._drawn_at) * 1000
        self._redraw.start(max(0, int(wait)))

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self._pending is not None:
            self._draw_pending()

    def _draw_pending(self) -> None:
        view, self._pending = self._pending, None
        if view is not None:
            self.show_view(view)

    def show_view(self, view: TeamView) -> None:
        folder = self._team.folder
        if folder is None:
            self.status.setText(
                "No team folder is chosen. Choose a folder your team already shares (a network "
                "drive, OneDrive, Google Drive, Dropbox, Nextcloud): Understudy keeps the "
                "team's tools there, signed by whoever shared them."
            )
        else:
            status = self._team.status or "Reading the folder…"
            self.status.setText(visible_controls(f"{folder}\n{status}"))
        notes = team_words.notes(view)
        if notes and folder is not None:
            self.status.setText(self.status.text() + "\n" + "\n".join(notes))
        self._drawn_at = time.monotonic()
        self.items.show_view(view)
        self._update_buttons()

    def _current(self) -> TeamTool | None:
        return self.items.current_tool()

    def _update_buttons(self) -> None:
        tool = self._current()
        self.details.setText(self.items.current_words())
        reviewable = tool is not None and (tool.offered or tool.state == "declined")
        self.review_button.setEnabled(reviewable)
        self.decline_button.setEnabled(tool is not None and tool.offered)
        self.share_button.setEnabled(self._team.folder is not None)
        lead = self._team.is_lead()
        self.team_off_button.setVisible(lead)
        self.team_off_button.setEnabled(
            lead and tool is not None and bool(tool.key) and tool.state != "changed"
        )
        if tool is not None and tool.state == "turned_off":
            self.team_off_button.setText("Turn &on for the team")
        else:
            self.team_off_button.setText("Turn &off for the team")
        self.their_key_button.setVisible(tool is not None and tool.state == "disputed")

    def _trust_their_key(self) -> None:
        """A key handed over twice: this person checked with its owner which new key is
        theirs, and says so (their own word settles it for them)."""
        tool = self._current()
        if tool is None or tool.state != "disputed":
            return
        name = visible_controls(tool.author or "its owner")
        answer = QMessageBox.question(
            self,
            "Is this key theirs?",
            f"Someone moved {name}'s old key to two different new keys, so one of them is not "
            f"{name}'s. Only say this one is theirs if {name} read you its whole fingerprint, "
            f"by phone or in person, and it was exactly:\n\n{fingerprint(tool.key)}",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self._team.trust(tool.key, tool.author or "Someone")

    def _review(self) -> None:
        tool = self._current()
        if tool is not None:
            self._team.review(tool)

    def _decline(self) -> None:
        tool = self._current()
        if tool is not None and tool.offered:
            self._team.decline(tool)

    def _turn_off_for_team(self) -> None:
        tool = self._current()
        if tool is None or not self._team.is_lead():
            return
        off = tool.state != "turned_off"
        name = visible_controls(shown_name(tool.tool, tool.file.title))
        if off:
            words = (
                f"Turn “{name}” off for the whole team? Every member who follows your rules has "
                "it turned off at once, agents are told why, and nobody can turn it back on "
                "until you do. The same steps shared under another name stay off too."
            )
        else:
            words = (
                f"Turn “{name}” back on for the team? Each member who had it is asked to "
                "review it before it runs again."
            )
        answer = QMessageBox.question(
            self,
            "Turn off for the team?" if off else "Turn on for the team?",
            words,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self._team.turn_off_for_team(tool, off=off)

    def show_history(self) -> QDialog:
        """The team's history, newest first, from the signed files in the folder."""
        dialog = QDialog(self)
        dialog.setWindowTitle("Team library history")
        dialog.resize(640, 420)
        layout = QVBoxLayout(dialog)
        intro = QLabel(
            "Who shared, accepted, withdrew and turned off what, newest first. Only signed "
            "files are listed, under the names you trust their keys as."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        lines = QListWidget()
        lines.setWordWrap(True)
        lines.setAccessibleName("Team library history")
        for entry in self._team.view.audit[:2000]:
            when = day_words(entry.when) if entry.when else "at an unknown time"
            lines.addItem(visible_controls(f"{when}: {entry.who} {entry.what}"))
        if not lines.count():
            lines.addItem("Nothing yet.")
        layout.addWidget(lines, 1)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(dialog.reject)
        layout.addWidget(close)
        dialog.show()
        self.history = dialog
        return dialog

    def choose_and_share(self) -> None:
        dialog = ExportPackDialog(
            self._team.shareable(),
            self._team.author,
            self,
            title="Share with your team",
            button="Share",
        )
        if dialog.exec() == QDialog.DialogCode.Accepted and dialog.chosen():
            author = dialog.author.text().strip()
            self._team.set_author(author)
            self._team.share(dialog.chosen(), author)
