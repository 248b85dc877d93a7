"""The main window: the console page, its menus and the status bar."""

from __future__ import annotations

import json
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
    QFileDialog,
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
from understudy_desktop.bridge.console_port import CallResult, ConsolePort
from understudy_desktop.bridge.page_bridge import PageBridge
from understudy_desktop.bridge.protocol import Summary
from understudy_desktop.library.model import shown_name
from understudy_desktop.logs import log_folder
from understudy_desktop.queue_io import (
    LoadedQueue,
    QueueFileError,
    QueuePreview,
    save_queue_file,
)
from understudy_desktop.shell.about import about_facts
from understudy_desktop.shell.background import BackgroundJob, garbage_collection_paused
from understudy_desktop.shell.connect_dialog import ConnectAgentDialog, client_snippets
from understudy_desktop.shell.pack_actions import PackActions, looks_like_pack
from understudy_desktop.shell.queue_choices import RememberedChoices

if TYPE_CHECKING:
    from understudy_desktop.shell.person_commands import PersonCommands
from understudy_desktop.shell.menu_action import Keys, menu_action
from understudy_desktop.shell.queue_keeper import QueueKeeper, SerializedQueue, serialize
from understudy_desktop.shell.queue_preview import QueuePreviewDialog
from understudy_desktop.shell.screen_fit import fit_to_screen
from understudy_desktop.store.queue_store import QueueState
from understudy_desktop.text import visible_controls
from understudy_desktop.web.handoff import Handoff
from understudy_desktop.web.page import ConsolePage
from understudy_desktop.web.scheme import START_URL

log = logging.getLogger(__name__)

QUEUE_FILTER = (
    "Ticket queues (*.csv *.json *.jsonl);;CSV files (*.csv);;JSON files (*.json);;"
    "JSON Lines files (*.jsonl *.ndjson)"
)


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
        self._handoff = handoff
        self.keeper: QueueKeeper | None = None
        self.choices = RememberedChoices(None)
        self._webmcp_state = "degraded"

        self.view = QWebEngineView(self)
        self.page = ConsolePage(profile, self.view)
        self.view.setPage(self.page)
        self.view.setAccessibleName("Triage console")
        self.setCentralWidget(self.view)
        self.bridge = PageBridge(self.page)
        self.port = ConsolePort(self.bridge, self)
        self.port.ready_changed.connect(self._on_ready_changed)

        self._status = QLabel("Starting…")
        self._status.setAccessibleName("Status")
        self._progress = QProgressBar()
        self._progress.setRange(0, 0)  # busy indicator: reading a file has no useful percentage
        self._progress.setMaximumWidth(160)
        self._progress.setAccessibleName("Working")
        self._progress.setVisible(False)
        self._busy: str | None = None
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
        count = summary.tickets
        where = summary.queueName or "Demo queue"
        self._status.setText(f"{count:,} tickets · {where}")

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
            self.choose_queue_to_open,
            "Load a CSV or JSON export of tickets from your helpdesk.",
        )
        self.save_queue_action = self._action(
            "&Save queue as…",
            QKeySequence("Ctrl+Shift+S"),
            self.choose_queue_save_path,
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

    # --- queue files ------------------------------------------------------------------------
    def choose_queue_to_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open queue", "", QUEUE_FILTER)
        if path:
            self.open_queue(Path(path), confirm=True)

    def open_queue(self, path: Path, confirm: bool) -> None:
        """Load a queue file into the console; on any problem the current queue stays.

        The file is read on a worker thread (a 100k-ticket CSV takes seconds), stored as the
        saved copy on the database's thread, then shown; the outcome is `queue_loaded` (once
        it is both saved and shown) or `queue_failed`. With `confirm`, the preview asks first.
        """
        if self._busy is not None:
            self.show_problem("Still busy", "Wait until the current queue has finished opening.")
            return

        choices = self.choices

        def read() -> tuple[QueuePreview | LoadedQueue, SerializedQueue]:
            # Parsing and serialising for the page and the database happen here, off the GUI
            # thread, with this helpdesk's remembered columns and values.
            with garbage_collection_paused():
                result, _ = choices.read(path, confirm)
                queue = result.queue if isinstance(result, QueuePreview) else result
                return result, serialize(queue, path.name)

        job = BackgroundJob(read, self)
        job.succeeded.connect(lambda answer: self._queue_read(path, *answer))
        job.failed.connect(lambda exc: self._queue_failed(exc))
        self._set_busy(f"Opening {path.name}…")
        job.start()

    def _queue_read(
        self, path: Path, result: QueuePreview | LoadedQueue, serialized: SerializedQueue
    ) -> None:
        if isinstance(result, QueuePreview):
            dialog = QueuePreviewDialog(result, self, remembered=self.choices.lookup(result))
            if dialog.exec() != QueuePreviewDialog.DialogCode.Accepted:
                self._set_busy(None)
                self.queue_failed.emit("cancelled")
                return
            self.choices.remember(dialog.preview, dialog.choices)
            # The file as read with the person's final choices (read in full already; no
            # second pass over the file unless a choice changed how it reads).
            loaded = dialog.queue
            if loaded is not result.queue:
                serialized = serialize(loaded, path.name)
        else:
            loaded = result
        assert self.keeper is not None
        self._set_busy(f"Opening {len(loaded.tickets):,} tickets…")
        # Saved (on the database's thread) and shown (in the page) at the same time; the open
        # counts as done once both are.
        outcome: dict[str, QueueState | str | CallResult] = {}

        def settle() -> None:
            if len(outcome) < 2:
                return
            self._set_busy(None)
            stored, shown = outcome["stored"], outcome["shown"]
            if isinstance(stored, str):
                self._queue_failed(QueueFileError(f"The queue could not be saved: {stored}"))
                return
            if isinstance(shown, CallResult) and not shown.ok:
                # Saved but not shown (the page reloaded meanwhile): it shows at its next start.
                self._queue_failed(QueueFileError(shown.error))
                return
            self.queue_loaded.emit(len(loaded.tickets))
            note = f" ({'; '.join(loaded.notes)})" if loaded.notes else ""
            self.statusBar().showMessage(f"Opened {path.name}{note}", 8000)
            self.refresh_status()

        def stored(state: QueueState | str) -> None:
            outcome["stored"] = state
            settle()

        def shown(answer: CallResult) -> None:
            outcome["shown"] = answer
            settle()

        generation = self.keeper.replace(loaded, serialized, stored)
        url = self._handoff.put(serialized.document)
        self.port.load_queue(url, generation, None, shown)

    def _queue_failed(self, exc: object) -> None:
        self._set_busy(None)
        if isinstance(exc, QueueFileError):
            message = str(exc)
        else:
            log.exception(
                "opening a queue failed", exc_info=exc if isinstance(exc, Exception) else None
            )
            message = f"Something went wrong while reading the file: {exc}"
        self.show_problem("This queue could not be opened", message)
        self.queue_failed.emit(message)

    def _set_busy(self, text: str | None) -> None:
        self._busy = text
        self.open_queue_action.setEnabled(text is None)
        self._progress.setVisible(text is not None)
        if text is None:
            self.statusBar().clearMessage()
        else:
            self.statusBar().showMessage(text)

    def choose_queue_save_path(self) -> None:
        known = self.keeper.source_path() if self.keeper is not None else None
        start = str(known) if known else "queue.json"
        path, _ = QFileDialog.getSaveFileName(self, "Save queue as", start, QUEUE_FILTER)
        if path:
            self.save_queue(Path(path))

    def save_queue(self, path: Path) -> None:
        """Write the saved copy of the queue, in the shape of the file it came from (known
        across restarts), on a worker thread, once the changes on screen are saved."""
        keeper = self.keeper
        assert keeper is not None

        def write() -> None:
            data = json.loads(keeper.store.document_json())
            save_queue_file(
                path,
                data["tickets"],
                data.get("assignees", []),
                data.get("templates", []),
                keeper.source(),
            )

        def failed(exc: object) -> None:
            message = str(exc) if isinstance(exc, QueueFileError | OSError) else repr(exc)
            self.show_problem("The queue could not be saved", message)

        def written(_none: object) -> None:
            self.statusBar().showMessage(f"Saved {path.name}", 5000)
            self.queue_saved.emit(str(path))

        def start(_flushed: CallResult) -> None:
            job = BackgroundJob(write, self)
            job.succeeded.connect(written)
            job.failed.connect(failed)
            job.start()

        # Changes on screen that are still being saved go into the file too.
        self.port.flush(start)

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
        self.keeper = keeper
        self.choices = choices
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
