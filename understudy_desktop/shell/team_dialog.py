"""View › Team library: what colleagues shared, in words, with Review… and Not for me; and
Share my tools… to put this person's tools into the folder. Everything from the folder is
shown as plain text (it is someone else's file)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from understudy_desktop.shell.pack_dialogs import ExportPackDialog
from understudy_desktop.shell.team_library import TeamLibrary
from understudy_desktop.team.inbox import TeamTool, TeamView
from understudy_desktop.text import visible_controls

ORDER = {"update": 0, "new": 1, "changed": 2, "current": 3, "mine": 4, "withdrawn": 5}


class TeamDialog(QDialog):
    def __init__(
        self, team: TeamLibrary, open_settings: Callable[[], None], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._team = team
        self._open_settings = open_settings
        self.setWindowTitle("Team library")
        self.resize(720, 480)
        layout = QVBoxLayout(self)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.items = QListWidget()
        self.items.setWordWrap(True)
        self.items.setAccessibleName("Tools in the team library")
        self.items.itemDoubleClicked.connect(lambda _item: self._review())
        self.items.currentItemChanged.connect(lambda *_a: self._update_buttons())
        layout.addWidget(self.items, 1)
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
        for button in (self.review_button, self.decline_button, self.share_button):
            row.addWidget(button)
        row.addStretch(1)
        row.addWidget(self.folder_button)
        layout.addLayout(row)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout.addWidget(close)
        team.view_changed.connect(self.show_view)
        self.show_view(team.view)

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
        chosen = self._current()
        self.items.clear()
        shown = [t for t in view.tools if t.state in ORDER]
        for tool in sorted(shown, key=lambda t: (ORDER[t.state], t.tool)):
            item = QListWidgetItem(visible_controls(self._team.describe(tool)))
            item.setData(Qt.ItemDataRole.UserRole, tool)
            self.items.addItem(item)
            if chosen is not None and tool.file.name == chosen.file.name:
                self.items.setCurrentItem(item)
        if self.items.currentItem() is None and self.items.count():
            self.items.setCurrentRow(0)
        self._update_buttons()

    def _current(self) -> TeamTool | None:
        item = self.items.currentItem()
        found = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return found if isinstance(found, TeamTool) else None

    def _update_buttons(self) -> None:
        tool = self._current()
        reviewable = tool is not None and (tool.offered or tool.state == "declined")
        self.review_button.setEnabled(reviewable)
        self.decline_button.setEnabled(tool is not None and tool.offered)
        self.share_button.setEnabled(self._team.folder is not None)

    def _review(self) -> None:
        tool = self._current()
        if tool is not None:
            self._team.review(tool)

    def _decline(self) -> None:
        tool = self._current()
        if tool is not None and tool.offered:
            self._team.decline(tool)

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
