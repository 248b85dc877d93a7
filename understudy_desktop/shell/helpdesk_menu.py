"""Where the helpdesk meets the window: File › Connect to helpdesk…, Refresh from helpdesk,
Changes to choose…, Disconnect; and a status bar line that says where changes stand ("3
changes waiting · offline since 10:42", "All changes are in Zendesk")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox, QPushButton

from understudy_desktop.approval.service import PERSON, ConsentService
from understudy_desktop.helpdesk.macros import MacroTool
from understudy_desktop.library.drafts import check_imported
from understudy_desktop.shell.helpdesk_choices import ChoicesDialog
from understudy_desktop.shell.helpdesk_dialog import HelpdeskDialog
from understudy_desktop.shell.helpdesk_link import HelpdeskLink
from understudy_desktop.shell.helpdesk_macros import MacrosDialog, publish_words
from understudy_desktop.shell.main_window import MainWindow
from understudy_desktop.shell.menu_action import Keys, menu_action


class HelpdeskMenu:
    def __init__(
        self, window: MainWindow, link: HelpdeskLink, consent: ConsentService | None = None
    ) -> None:
        self._window = window
        self.link = link
        self._consent = consent
        self.macros: MacrosDialog | None = None
        self.dialog: HelpdeskDialog | None = None
        self.asking: QMessageBox | None = None
        self.connect_action = self._action(
            "&Connect to helpdesk…",
            "Ctrl+Shift+K",
            self.show_connect,
            "Work on your Request Tracker, Zendesk or Freshdesk queue directly.",
        )
        self.refresh_action = self._action(
            "&Refresh from helpdesk",
            "Ctrl+Shift+U",
            link.refresh,
            "Bring in what changed in the helpdesk now, rather than in a few seconds.",
        )
        self.choose_action = self._action(
            "C&hanges to choose…",
            "Ctrl+Shift+J",
            self.show_choices,
            "Your changes that met a change made in the helpdesk at the same time.",
        )
        self.macros_action = self._action(
            "&Tools from helpdesk macros…",
            None,
            self.show_macros,
            "Your team's Zendesk macros or Freshdesk canned responses, as tools to approve.",
        )
        self.disconnect_action = self._action(
            "&Disconnect from helpdesk",
            None,
            self.disconnect,
            "Keep the queue here as it is, and stop sending changes to the helpdesk.",
        )
        menu = window.file_menu
        actions = menu.actions()
        after_save = actions[actions.index(window.save_queue_action) + 1]
        for action in (
            self.connect_action,
            self.refresh_action,
            self.choose_action,
            self.macros_action,
            self.disconnect_action,
        ):
            menu.insertAction(after_save, action)
        menu.insertSeparator(self.connect_action)
        self.notice = QPushButton()
        self.notice.setFlat(True)
        self.notice.setAccessibleName("Helpdesk")
        self.notice.clicked.connect(self.show_choices)
        self.notice.hide()
        window.statusBar().insertPermanentWidget(0, self.notice)
        link.standing_changed.connect(self._standing)
        link.connected_changed.connect(self._connected)
        link.problem.connect(lambda words: window.statusBar().showMessage(words, 15000))
        window.queue_files.may_replace = self.may_open_file
        window.queue_files.loaded.connect(lambda _n: link.queue_replaced())
        self._connected(link.connected)

    def _action(self, text: str, keys: Keys, slot: object, tip: str) -> QAction:
        return menu_action(self._window, text, keys, slot, tip)

    def _connected(self, connected: bool) -> None:
        self.refresh_action.setEnabled(connected)
        self.choose_action.setEnabled(connected)
        self.disconnect_action.setEnabled(connected)
        self.macros_action.setEnabled(
            connected and self.link.settings is not None and self.link.settings.kind != "rt"
        )
        if not connected:
            self.notice.hide()

    def _standing(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    def show_connect(self) -> HelpdeskDialog:
        self.dialog = HelpdeskDialog(self.link, self._window)
        self.dialog.open()
        return self.dialog

    def show_choices(self) -> ChoicesDialog:
        people = {str(p.get("id")): str(p.get("name")) for p in (self.link.people())}
        dialog = ChoicesDialog(self.link, people, self._window)
        dialog.open()
        return dialog

    def show_macros(self) -> None:
        def listed(result: list[MacroTool] | str) -> None:
            if isinstance(result, str):
                self._window.statusBar().showMessage(result, 10000)
                return
            self.macros = MacrosDialog(self.link.title, result, self.make_tool, self._window)
            self.macros.open()

        self.link.macro_tools(listed)

    def make_tool(self, tool: MacroTool, said: Callable[[str], None]) -> None:
        """Put the macro's tool to the person in the approval dialog."""
        consent = self._consent
        if consent is None or tool.definition is None:
            said("It cannot be made here.")
            return
        keeper = self._window.keeper
        known = keeper.known() if keeper is not None else {}
        definition, problems = check_imported(tool.definition, consent.catalogue, known)
        if definition is None or problems:
            said(" ".join(problems) or "It is not well formed.")
            return
        draft = consent.drafts.add(definition, [], "person")
        consent.publish(draft.id, PERSON, None, False, lambda reply: said(publish_words(reply)))

    def may_open_file(self, path: Path) -> bool:
        """A file opened while the queue is the helpdesk's ends the connection: asked first,
        saying that the file's tickets are not the helpdesk's and what waits to be sent."""
        if self.link.settings is None:
            return True
        title = self.link.title
        waiting = self.link.waiting()
        ask = QMessageBox(self._window)
        ask.setTextFormat(Qt.TextFormat.PlainText)
        ask.setWindowTitle("Open queue")
        ask.setText(
            f"Opening {path.name} ends the connection to {title}: the file's tickets are not "
            f"{title}'s, and nothing you change in them is sent there."
        )
        if waiting:
            ask.setIcon(QMessageBox.Icon.Warning)
            ask.setInformativeText(
                f"{waiting:,} of your changes {'has' if waiting == 1 else 'have'} not reached "
                f"{title} yet, and would never be sent."
            )
        go = ask.addButton("Open the file", QMessageBox.ButtonRole.DestructiveRole)
        stay = ask.addButton(f"Stay with {title}", QMessageBox.ButtonRole.RejectRole)
        ask.setDefaultButton(stay)
        ask.setEscapeButton(stay)
        self.asking = ask
        ask.exec()
        return ask.clickedButton() is go

    def disconnect(self) -> None:
        """Stop working with the helpdesk; with changes still waiting, only by a button that
        says how many are dropped."""
        waiting = self.link.waiting()
        ask = QMessageBox(self._window)
        ask.setTextFormat(Qt.TextFormat.PlainText)
        ask.setWindowTitle("Disconnect from helpdesk")
        ask.setText(f"Stop working with {self.link.title}? The queue stays here as it is.")
        if waiting:
            ask.setIcon(QMessageBox.Icon.Warning)
            ask.setInformativeText(
                f"{waiting:,} of your changes {'has' if waiting == 1 else 'have'} not reached "
                f"{self.link.title} yet, and would never be sent."
            )
            label = f"Disconnect and discard {waiting:,} waiting change" + "s" * (waiting != 1)
        else:
            label = "Disconnect"
        go = ask.addButton(label, QMessageBox.ButtonRole.DestructiveRole)
        stay = ask.addButton("Cancel", QMessageBox.ButtonRole.RejectRole)
        ask.setDefaultButton(stay)
        ask.setEscapeButton(stay)
        self.asking = ask
        ask.exec()
        if ask.clickedButton() is go:
            self.link.disconnect_queue()
