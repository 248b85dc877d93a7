"""Edit › Settings…: the person's name on what they share, the team library's folder, whether
to share usage counts, and the authors they trust (with a way to stop trusting one)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from understudy_desktop.shell.team_library import TeamLibrary
from understudy_desktop.team.signing import key_id
from understudy_desktop.text import visible_controls

NO_FOLDER = "None chosen"


class SettingsDialog(QDialog):
    def __init__(self, team: TeamLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._team = team
        self.chosen_folder: Path | None = team.folder
        self.setWindowTitle("Settings")
        self.resize(620, 520)
        layout = QVBoxLayout(self)
        you = QFormLayout()
        self.author = QLineEdit(team.author)
        self.author.setMaxLength(120)
        self.author.setPlaceholderText("For example: Dana Ortiz")
        self.author.setAccessibleName("Your name")
        you.addRow("Your name:", self.author)
        layout.addLayout(you)
        layout.addWidget(self._team_box())
        layout.addWidget(self._trust_box(), 1)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._apply)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _team_box(self) -> QGroupBox:
        box = QGroupBox("Team library")
        layout = QVBoxLayout(box)
        layout.addWidget(
            _words(
                "A folder your team already shares (a network drive, OneDrive, Google Drive, "
                "Dropbox, Nextcloud). Tools you share are kept there, signed by you; tools "
                "colleagues share wait there for you to review them."
            )
        )
        row = QHBoxLayout()
        self.folder_label = _words(str(self.chosen_folder) if self.chosen_folder else NO_FOLDER)
        self.folder_label.setAccessibleName("Team library folder")
        choose = QPushButton("&Choose…")
        choose.clicked.connect(self._choose_folder)
        self.stop_button = QPushButton("&Stop using it")
        self.stop_button.setToolTip("Tools you accepted stay in your library.")
        self.stop_button.clicked.connect(self._stop_folder)
        self.stop_button.setEnabled(self.chosen_folder is not None)
        row.addWidget(self.folder_label, 1)
        row.addWidget(choose)
        row.addWidget(self.stop_button)
        layout.addLayout(row)
        self.share_usage = QCheckBox(
            "Share how often I use team tools (counts and days only, never ticket data)"
        )
        self.share_usage.setChecked(self._team.share_usage)
        layout.addWidget(self.share_usage)
        identity = self._team.identity
        layout.addWidget(
            _words(
                f"Your signing key: {identity.key_id}. Colleagues see it beside your name."
                if identity.key_id
                else "Your signing key is made the first time you share a tool."
            )
        )
        return box

    def _trust_box(self) -> QGroupBox:
        box = QGroupBox("People you trust")
        layout = QVBoxLayout(box)
        self.trusted = QListWidget()
        self.trusted.setAccessibleName("People you trust")
        for key, name in sorted(self._team.decisions.trusted().items(), key=lambda kv: kv[1]):
            item = QListWidgetItem(visible_controls(f"{name} (key {key_id(key)})"))
            item.setData(Qt.ItemDataRole.UserRole, key)
            self.trusted.addItem(item)
        if not self.trusted.count():
            layout.addWidget(
                _words("Nobody yet. You are asked the first time you review a colleague's tool.")
            )
        layout.addWidget(self.trusted, 1)
        self.distrust_button = QPushButton("Stop &trusting")
        self.distrust_button.setToolTip(
            "Their tools already in your library stay; new ones wait for you to decide again."
        )
        self.distrust_button.clicked.connect(self._distrust)
        self.distrust_button.setEnabled(self.trusted.count() > 0)
        layout.addWidget(self.distrust_button, 0, Qt.AlignmentFlag.AlignLeft)
        return box

    def _choose_folder(self) -> None:
        start = str(self.chosen_folder or Path.home())
        path = QFileDialog.getExistingDirectory(self, "Choose the team library folder", start)
        if path:
            self.chosen_folder = Path(path)
            self.folder_label.setText(visible_controls(path))
            self.stop_button.setEnabled(True)

    def _stop_folder(self) -> None:
        self.chosen_folder = None
        self.folder_label.setText(NO_FOLDER)
        self.stop_button.setEnabled(False)

    def _distrust(self) -> None:
        item = self.trusted.currentItem() or self.trusted.item(0)
        if item is None:
            return
        self._team.distrust(str(item.data(Qt.ItemDataRole.UserRole)))
        self.trusted.takeItem(self.trusted.row(item))
        self.distrust_button.setEnabled(self.trusted.count() > 0)

    def _apply(self) -> None:
        if self.author.text().strip():
            self._team.set_author(self.author.text())
        if self.chosen_folder != self._team.folder:
            self._team.set_folder(self.chosen_folder)
        if self.share_usage.isChecked() != self._team.share_usage:
            self._team.set_share_usage(self.share_usage.isChecked())
        self.accept()


def _words(text: str) -> QLabel:
    label = QLabel(visible_controls(text))
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    return label
