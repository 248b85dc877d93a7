"""The main window: the console page, its menus and the status bar. What the menus do lives
beside it: the queue file flows in queue_files.py, the pack flows in pack_actions.py."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
)
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import (
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QWidget,
)

from understudy_desktop import APP_NAME
from understudy_desktop.agent.activity import AgentActivity
from understudy_desktop.bridge.console_port import ConsolePort
from understudy_desktop.bridge.page_bridge import PageBridge
from understudy_desktop.bridge.protocol import Summary
from understudy_desktop.library.model import shown_name
from understudy_desktop.logs import log_folder
from understudy_desktop.packs.adding import looks_like_pack
from understudy_desktop.shell.about import about_facts
from understudy_desktop.shell.connect_dialog import ConnectAgentDialog, client_snippets
from understudy_desktop.shell.pack_actions import PackActions
from understudy_desktop.shell.queue_choices import RememberedChoices

if TYPE_CHECKING:
    from understudy_desktop.shell.person_commands import PersonCommands
from understudy_desktop.shell.menu_action import Keys, menu_action
from understudy_desktop.shell.queue_files import QueueFiles
from understudy_desktop.shell.queue_keeper import QueueKeeper
from understudy_desktop.shell.screen_fit import fit_to_screen
from understudy_desktop.shell.status_bar import FittingStatusBar
from understudy_desktop.text import visible_controls
from understudy_desktop.web.handoff import Handoff
from understudy_desktop.web.page import ConsolePage
from understudy_desktop.web.renderer_watch import RendererWatch
from understudy_desktop.web.scheme import START_URL

log = logging.getLogger(__name__)


class MainWindow(QMainWindow):
    """Owns the view and page; the profile belongs to the app and must outlive them."""

    queue_loaded = Signal(int)
    queue_failed = Signal(str)
    queue_saved = Signal(str)

    def __init__(
        self, profile: QWebEngineProfile, handoff: Handoff, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"{APP_NAME} — Triage console")
        fit_to_screen(self, 1360, 860)
        self._webmcp_state = "degraded"

        self.view = QWebEngineView(self)
        self.page = ConsolePage(profile, self.view)
        self.view.setPage(self.page)
        self.page.watch_person_input(self.view)
        self.view.setAccessibleName("Triage console")
        self.setCentralWidget(self.view)
        self.bridge = PageBridge(self.page)
        self.renderer_watch = RendererWatch(
            self.page, self.load_console, lambda words: self.statusBar().showMessage(words, 15000)
        )
        self.port = ConsolePort(self.bridge, self)
        self.port.ready_changed.connect(self._on_ready_changed)
        self.queue_files = QueueFiles(
            self,
            self.port,
            handoff,
            # Looked up at each call, so a show_problem set on this window later is the one used.
            lambda title, message: self.show_problem(title, message),
            self._show_busy,
            self.refresh_status,
        )
        # Re-emitted as the window's own: the app, the tests and the benchmarks wait on these.
        self.queue_files.loaded.connect(self.queue_loaded)
        self.queue_files.failed.connect(self.queue_failed)
        self.queue_files.saved.connect(self.queue_saved)

        # Messages end in "…" rather than run into the labels on the bar's right.
        self.setStatusBar(FittingStatusBar(self))
        self._status = QLabel("Starting…")
        self._status.setAccessibleName("Status")
        self._progress = QProgressBar()
        self._progress.setRange(0, 0)  # busy indicator: reading a file has no useful percentage
        self._progress.setMaximumWidth(160)
        self._progress.setAccessibleName("Working")
        self._progress.setVisible(False)
        self._agent: tuple[AgentActivity, Path, str, str] | None = None
        self._agent_status = QLabel("Agents: off")
        self._agent_status.setAccessibleName("Agent connection")
        self.statusBar().addPermanentWidget(self._progress)
        self.statusBar().addPermanentWidget(self._agent_status)
        self.statusBar().addPermanentWidget(self._status)
        self.packs: PackActions | None = None
        self.person: PersonCommands | None = None
        self.team_menu: Any = None  # shell/team_menu.py TeamMenu, attached by the app
        self.helpdesk_menu: Any = None  # shell/helpdesk_menu.py HelpdeskMenu, likewise
        self._build_menus()
        # Files dropped on the console: queues open, Tool Packs import.
        self.view.setAcceptDrops(False)
        self.setAcceptDrops(True)

    # --- page -------------------------------------------------------------------------------
    def load_console(self) -> None:
        self.page.load(QUrl(START_URL))

    def _on_ready_changed(self, ready: bool) -> None:
        if ready:
            self.refresh_status()
        else:
            self._status.setText("Loading the console…")

    def refresh_status(self) -> None:
        self.port.summary(self._show_summary)

    def _show_summary(self, summary: Summary | None) -> None:
        if summary is None:
            return
        self._webmcp_state = summary.webmcp
        # The status line is the app's own voice: its count and name are the database's,
        # never what the page says (a script there could make it say anything).
        keeper = self.queue_files.keeper
        state = keeper.store.state() if keeper is not None else None
        if state is None:
            return
        name = keeper.store.meta("name") if keeper is not None else None
        where = visible_controls(name) if isinstance(name, str) and name else "Demo queue"
        self._status.setText(f"{state.tickets:,} tickets · {where}")

    # --- menus ------------------------------------------------------------------------------
    def _action(self, text: str, shortcut: Keys, slot: Any, tip: str = "") -> QAction:
        return menu_action(self, text, shortcut, slot, tip)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("&File")
        self.edit_menu = bar.addMenu("&Edit")
        self.view_menu = bar.addMenu("&View")
        self._build_file_menu(self.file_menu)
        self._build_edit_menu(self.edit_menu)
        self._build_view_menu(self.view_menu)
        self._build_help_menu(bar.addMenu("&Help"))

    def _build_file_menu(self, file_menu: QMenu) -> None:
        file_menu.setToolTipsVisible(True)
        self.open_queue_action = self._action(
            "&Open queue…",
            QKeySequence.StandardKey.Open,
            self.queue_files.choose_to_open,
            "Load a CSV or JSON export of tickets from your helpdesk.",
        )
        self.save_queue_action = self._action(
            "&Save queue as…",
            QKeySequence("Ctrl+Shift+S"),
            self.queue_files.choose_save_path,
            "Write the triaged queue back to a CSV or JSON file.",
        )
        self.import_pack_action = self._action(
            "&Import pack…",
            "Ctrl+I",
            self._choose_import,
            "Add the tools in a Tool Pack file a colleague shared.",
        )
        self.export_pack_action = self._action(
            "&Export pack…",
            "Ctrl+Shift+E",
            self._choose_export,
            "Save some of your tools as a Tool Pack file to share.",
        )
        quit_action = self._action("&Quit", QKeySequence.StandardKey.Quit, self.close)
        file_menu.addActions([self.open_queue_action, self.save_queue_action])
        file_menu.addSeparator()
        file_menu.addActions([self.import_pack_action, self.export_pack_action])
        file_menu.addSeparator()
        file_menu.addAction(quit_action)

    def _build_edit_menu(self, edit_menu: QMenu) -> None:
        # The page handles Ctrl+Z itself (in a text field it undoes typing, as everywhere), so
        # these menu entries show their keys without taking them.
        self.undo_action = self._action(
            "&Undo your last change\tCtrl+Z",
            None,
            lambda: self._undo("undo"),
            "Put back what your last change in the queue changed.",
        )
        self.redo_action = self._action(
            "&Redo\tCtrl+Shift+Z", None, lambda: self._undo("redo"), "Do the undone change again."
        )
        self.teach_action = self._action(
            "&Teach a routine\tCtrl+Shift+R",  # the page takes the key itself, as with Undo
            None,
            self._toggle_teaching,
            "Do a routine once; Understudy records it so you can make a tool of it.",
        )
        edit_menu.addActions([self.undo_action, self.redo_action])
        edit_menu.addSeparator()
        edit_menu.addAction(self.teach_action)
        edit_menu.addSeparator()
        self.name_action = self._action(
            "Your &name on shared packs…",
            None,
            self.ask_author_name,
            "The name colleagues see on Tool Packs you export.",
        )
        edit_menu.addAction(self.name_action)

    def _build_view_menu(self, view_menu: QMenu) -> None:
        view_menu.setToolTipsVisible(True)
        self.library_action = self._action(
            "&Library",
            QKeySequence("Ctrl+Shift+T"),
            lambda: self.port.show("library"),
            "Your tools: run them, turn them off, repair or remove them.",
        )
        self.recordings_action = self._action(
            "&Recordings\tCtrl+Shift+L",  # the page handles the key itself, as with Undo
            None,
            lambda: self.port.show("recordings"),
            "The routines you recorded with Teach.",
        )
        reload_action = self._action(
            "Re&load the console",
            QKeySequence.StandardKey.Refresh,
            lambda: self.page.triggerAction(QWebEnginePage.WebAction.Reload),
        )
        view_menu.addActions([self.library_action, self.recordings_action, reload_action])

    def _build_help_menu(self, help_menu: QMenu) -> None:
        self.connect_agent_action = self._action(
            "&Connect an agent…",
            None,
            self.show_connect_agent,
            "Settings to paste into Claude, Codex or another MCP client.",
        )
        help_menu.addAction(self.connect_agent_action)
        help_menu.addAction(
            self._action("&Keyboard shortcuts", None, lambda: self.port.show("shortcuts"))
        )
        help_menu.addAction(
            self._action(
                "Show the &log folder",
                None,
                self.show_log_folder,
                "Where Understudy writes what happened, for when something goes wrong.",
            )
        )
        help_menu.addAction(self._action(f"&About {APP_NAME}", None, self.show_about))

    def ask_author_name(self) -> None:
        if self.packs is None:
            return
        name, ok = QInputDialog.getText(
            self,
            "Your name",
            "Your name, as colleagues will see it on Tool Packs you share:",
            QLineEdit.EchoMode.Normal,
            self.packs.author(),
        )
        if ok and name.strip():
            self.packs.set_author(name)
            self.statusBar().showMessage(f"Packs you export will say they are by {name.strip()}.")

    # --- queue files (the flows are in queue_files.py) -------------------------------------
    @property
    def keeper(self) -> QueueKeeper | None:
        return self.queue_files.keeper

    def open_queue(self, path: Path, confirm: bool) -> None:
        """Load a queue file into the console (see QueueFiles.open): `queue_loaded` once it is
        saved and shown, else `queue_failed`. With `confirm`, the preview asks first."""
        self.queue_files.open(path, confirm)

    def save_queue(self, path: Path) -> None:
        """Write the queue to `path` in the shape it was read in; `queue_saved` once written."""
        self.queue_files.save(path)

    def _show_busy(self, text: str | None) -> None:
        self.open_queue_action.setEnabled(text is None)
        self._progress.setVisible(text is not None)
        if text is None:
            self.statusBar().clearMessage()
        else:
            self.statusBar().showMessage(text)

    # --- dialogs ----------------------------------------------------------------------------
    def show_problem(self, title: str, message: str) -> None:
        log.warning("%s: %s", title, message)
        box = QMessageBox(QMessageBox.Icon.Warning, title, "", QMessageBox.StandardButton.Ok, self)
        # File names and pack texts come from outside: shown as typed, never as markup.
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(visible_controls(message))
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()

    def attach_person(self, person: PersonCommands) -> None:
        self.person = person

    def _undo(self, which: str) -> None:
        if self.person is None:
            return
        model = self.person.model

        def said(answer: dict[str, Any]) -> None:
            if answer.get("nothing"):
                words = "Nothing to undo." if which == "undo" else "Nothing to redo."
            elif which == "undo":
                words = (
                    "Undone, except what was changed again since."
                    if answer.get("kept")
                    else "Undone."
                )
            else:
                words = "Redone."
            self.statusBar().showMessage(words, 5000)

        if which == "undo":
            model.undo(said)
        else:
            model.redo(said)

    def _toggle_teaching(self) -> None:
        if self.person is None:
            return
        if self.person.model.teaching.active:
            self.person.stop_teaching()
        else:
            self.person.start_teaching()

    def attach_queue(self, keeper: QueueKeeper, choices: RememberedChoices) -> None:
        self.queue_files.attach(keeper, choices)
        # A queue given again (the helpdesk's, once connected; the saved copy after a
        # change that could not be kept): the status line counts its tickets.
        keeper.shown.connect(self.refresh_status)

    def attach_packs(self, packs: PackActions) -> None:
        self.packs = packs

    def _choose_import(self) -> None:
        if self.packs is not None:
            self.packs.choose_import()

    def _choose_export(self) -> None:
        if self.packs is not None:
            self.packs.choose_export()

    def open_file(self, path: Path) -> None:
        """A file given on the command line or dropped on the window."""
        if looks_like_pack(path):
            if self.packs is not None:
                self.packs.import_pack(path, confirm=True)
        else:
            self.open_queue(path, confirm=True)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt name)
        urls = event.mimeData().urls()
        if urls and all(u.isLocalFile() for u in urls):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt name)
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.open_file(Path(url.toLocalFile()))
        event.acceptProposedAction()

    def attach_agent(
        self,
        activity: AgentActivity,
        data_dir: Path,
        url: str,
        token: str,
        tool_words: Callable[[str], str] = shown_name,
    ) -> None:
        """Show agent activity in the status bar and enable Help › Connect an agent….
        `tool_words` gives a tool's name in words (people never see the identifier)."""
        self._tool_words = tool_words
        self._agent = (activity, data_dir, url, token)
        self._agent_expiry = QTimer(self)
        self._agent_expiry.setSingleShot(True)
        self._agent_expiry.timeout.connect(self._show_agent_activity)
        activity.changed.connect(self._show_agent_activity)
        self._show_agent_activity()

    def _show_agent_activity(self) -> None:
        if self._agent is None:
            self._agent_status.setText("Agents: off")
            return
        activity = self._agent[0].snapshot()
        now = time.time()
        # A client that goes away without a word is let go when its time is up, whether or
        # not anything else happens by then.
        expires = activity.expires_in(now)
        if expires is not None:
            self._agent_expiry.start(int(expires * 1000) + 50)
        if not activity.connected(now):
            self._agent_status.setText("No agent connected")
            return
        who = activity.client or "an agent that did not say its name"
        last = f" · last used: {self._tool_words(activity.last_tool)}" if activity.last_tool else ""
        self._agent_status.setText(f"Agent connected: {who}{last}")

    def show_connect_agent(self) -> None:
        if self._agent is None:
            self.show_problem(
                "Agents are off", "Understudy was started without its agent endpoint."
            )
            return
        _port, data_dir, url, token = self._agent
        ConnectAgentDialog(client_snippets(data_dir, url, token), self).exec()

    def show_log_folder(self) -> QMessageBox | None:
        """Open the log folder in the file manager; where there is none, say where it is,
        with the path ready to copy."""
        folder = log_folder()
        folder.mkdir(parents=True, exist_ok=True)
        if QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            self.statusBar().showMessage(f"The log is in {folder}", 10000)
            return None
        box = QMessageBox(self)
        box.setWindowTitle("The log folder")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(
            "No file manager could open it here. The log is in this folder (the path is "
            "copied, ready to paste):"
        )
        box.setInformativeText(str(folder))
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        QGuiApplication.clipboard().setText(str(folder))
        box.open()
        return box

    def show_about(self) -> None:
        box = QMessageBox(self)
        box.setWindowTitle(f"About {APP_NAME}")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(about_facts(self._webmcp_state).as_text())
        box.open()  # window-modal, without a nested event loop

    @property
    def webmcp_state(self) -> str:
        return self._webmcp_state

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt name)
        event.accept()
