"""Where the team library meets the window: File › Share with team…, View › Team library,
Edit › Settings…, and a status bar button that says what is new ("3 new tools from your
team") or that the folder is not reachable."""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QPushButton

from understudy_desktop.shell.main_window import MainWindow
from understudy_desktop.shell.menu_action import Keys, menu_action
from understudy_desktop.shell.settings_dialog import SettingsDialog
from understudy_desktop.shell.team_dialog import TeamDialog
from understudy_desktop.team.library_service import TeamLibrary


class TeamMenu:
    def __init__(self, window: MainWindow, team: TeamLibrary) -> None:
        self._window = window
        self.team = team
        self.dialog: TeamDialog | None = None
        self.share_action = self._action(
            "S&hare with team…",
            "Ctrl+Shift+H",
            self.share,
            "Put some of your tools in the team library, signed by you.",
        )
        self.team_action = self._action(
            "&Team library",
            "Ctrl+Shift+M",
            self.show_team,
            "Tools your colleagues shared: review them before they run here.",
        )
        self.settings_action = self._action(
            "&Settings…",
            "Ctrl+,",
            self.show_settings,
            "Your name, the team library folder, and the people you trust.",
        )
        actions = window.file_menu.actions()
        after_export = actions[actions.index(window.export_pack_action) + 1]
        window.file_menu.insertAction(after_export, self.share_action)
        window.view_menu.addAction(self.team_action)
        window.edit_menu.addSeparator()
        window.edit_menu.addAction(self.settings_action)
        self.notice = QPushButton()
        self.notice.setFlat(True)
        self.notice.setAccessibleName("Team library")
        self.notice.clicked.connect(self.show_team)
        self.notice.hide()
        window.statusBar().addPermanentWidget(self.notice)
        team.status_changed.connect(self._show_status)
        self._show_status(team.status)

    def _action(self, text: str, keys: Keys, slot: object, tip: str) -> QAction:
        return menu_action(self._window, text, keys, slot, tip)

    def _show_status(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    def show_team(self) -> TeamDialog:
        if self.dialog is None:
            self.dialog = TeamDialog(self.team, self.show_settings, self._window)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def share(self) -> None:
        if self.team.folder is None:
            self.show_settings()
            if self.team.folder is None:
                return
        self.show_team().choose_and_share()

    def show_settings(self) -> None:
        SettingsDialog(self.team, self._window).exec()
