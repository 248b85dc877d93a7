"""Application bootstrap: flags and scheme before Qt starts, and a clean shutdown order."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sqlite3
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWebEngineCore import QWebEngineProfile
from PySide6.QtWidgets import QApplication, QMessageBox
from shiboken6 import delete, isValid

from understudy_desktop import APP_NAME, __version__
from understudy_desktop.agent.activity import AgentActivity
from understudy_desktop.agent.calls import ToolCalls
from understudy_desktop.agent.runtime_file import (
    AgentRuntime,
    StartingState,
    remove_runtime,
    remove_starting,
    write_runtime,
    write_starting,
)
from understudy_desktop.approval.gate import ConsentGate
from understudy_desktop.approval.service import ConsentService
from understudy_desktop.bridge.library_view import ConsoleLibraryView
from understudy_desktop.chromium_flags import apply_chromium_flags
from understudy_desktop.consent.ledger import ConsentLedger
from understudy_desktop.consent.seal import load_seal
from understudy_desktop.gc_on_main import set_start_apart
from understudy_desktop.helpdesk.credentials import Credentials
from understudy_desktop.library.drafts import Drafts
from understudy_desktop.library.legacy import migrate_legacy_files
from understudy_desktop.library.library import Library
from understudy_desktop.library.model import shown_name
from understudy_desktop.library.runner import ToolRunner
from understudy_desktop.logs import install_crash_handler
from understudy_desktop.model.service import ConsoleModel
from understudy_desktop.packs.adding import looks_like_pack
from understudy_desktop.paths import DataPaths, key_dir, web_assets_dir
from understudy_desktop.qt_thread import call_on_main, init_main_thread_dispatch
from understudy_desktop.shell.console_asks import ConsoleAsks
from understudy_desktop.shell.file_open import FileOpenEvents, UnderstudyApplication
from understudy_desktop.shell.helpdesk_link import HelpdeskLink
from understudy_desktop.shell.helpdesk_menu import HelpdeskMenu
from understudy_desktop.shell.main_window import MainWindow
from understudy_desktop.shell.pack_actions import PackActions
from understudy_desktop.shell.person_commands import PersonCommands
from understudy_desktop.shell.queue_choices import RememberedChoices
from understudy_desktop.shell.queue_keeper import QueueKeeper
from understudy_desktop.shell.storage_watch import StorageWatch
from understudy_desktop.shell.team_menu import TeamMenu
from understudy_desktop.shell.theme import apply_theme
from understudy_desktop.single_instance import InstanceGuard
from understudy_desktop.start_problems import StartProblemError, problem_of
from understudy_desktop.store.database import Database, DatabaseError
from understudy_desktop.store.queue_store import QueueStore
from understudy_desktop.store.settings import Settings
from understudy_desktop.team.identity import Identity
from understudy_desktop.team.library_service import TeamLibrary
from understudy_desktop.team.trust import TeamDecisions
from understudy_desktop.text import visible_controls
from understudy_desktop.web.handoff import Handoff
from understudy_desktop.web.page_files import incomplete_words, missing_page_files
from understudy_desktop.web.profile import make_profile
from understudy_desktop.web.scheme import register_scheme

if TYPE_CHECKING:  # imported on a thread of its own: the MCP SDK takes ~0.4 s to import
    from understudy_desktop.agent.server import AgentServer

log = logging.getLogger(__name__)

IMPORT_SWITCH_S = 0.0005  # seconds; see start_agent_soon

_prepared = False


def prepare_qt() -> None:
    """Everything that must happen before the QApplication exists (idempotent)."""
    global _prepared
    if _prepared:
        return
    apply_chromium_flags()
    if os.environ.get("QT_QPA_PLATFORM") == "offscreen":
        # No display means no GPU context: without this Qt tries OpenGL, then Vulkan, then GBM,
        # warning at each step, before falling back to the software path it ends up using.
        os.environ.setdefault("QSG_RHI_BACKEND", "null")
    register_scheme()
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    QCoreApplication.setApplicationName(APP_NAME)
    QCoreApplication.setApplicationVersion(__version__)
    QCoreApplication.setOrganizationName(APP_NAME)
    _prepared = True


@dataclass
class Session:
    """One running console: the profile outlives the window that uses it."""

    profile: QWebEngineProfile
    window: MainWindow
    handoff: Handoff
    paths: DataPaths
    db: Database
    library: Library
    consent: ConsentService
    calls: ToolCalls
    model: ConsoleModel
    agent: AgentServer | None = None
    team: TeamLibrary | None = None
    helpdesk: HelpdeskLink | None = None

    def close(self) -> None:
        if self.agent is not None:
            self.agent.stop()
            remove_runtime(self.paths.root, os.getpid())
            self.agent = None
        self.library.flush_usage()
        if self.helpdesk is not None and isValid(self.helpdesk):
            self.helpdesk.stop()
        if isValid(self.window) and self.window.person is not None:
            self.window.person.close()
        if self.team is not None and isValid(self.team):
            self.team.watcher.watch(None)
        # Chromium warns (and may lose IndexedDB writes) if a profile goes before its pages:
        # delete the window (view + page) first, then the profile.
        if isValid(self.window):
            self.window.close()
            delete(self.window)
        if isValid(self.profile):
            delete(self.profile)
        self.db.close()


def _reply_kept(window: MainWindow, shown: str, tickets: list[str]) -> None:
    """An agent's run left the reply the person is typing alone: the person is told."""
    window.statusBar().showMessage(
        f"“{visible_controls(shown)}” did not change the reply you are typing on "
        f"{', '.join(tickets)}: your words were kept.",
        15000,
    )


def open_session(paths: DataPaths, agent_port: int | None = 0) -> Session:
    """A console window on `paths`; with `agent_port` (0 = any free port) an MCP endpoint."""
    init_main_thread_dispatch()
    # Everything the app writes (the database, the browser profile, logs) is the person's
    # alone: customers' messages live here.
    os.umask(0o077)
    paths.ensure()
    with contextlib.suppress(OSError):
        paths.root.chmod(0o700)
    db = Database(paths.root)
    app = QApplication.instance()
    if isinstance(app, QApplication):
        apply_theme(app)  # before the first browser profile (see shell/theme.py)
    seal = load_seal(key_dir())
    migrate_legacy_files(paths.root, db, seal)
    library = Library(db, seal)
    load_problems = library.load()
    handoff = Handoff()
    profile = make_profile(paths, handoff)
    window = MainWindow(profile, handoff)
    icon = web_assets_dir() / "img" / "understudy.svg"
    if icon.exists():
        window.setWindowIcon(QIcon(str(icon)))
    # Sensitive actions are decided in the native dialog whether or not agents are enabled:
    # a person's own Publish in the console goes through it too.
    ledger = ConsentLedger()
    gate = ConsentGate(ledger, window)
    drafts = Drafts()
    consent = ConsentService(gate, library, drafts, window)
    consent.done_later.connect(lambda words: window.statusBar().showMessage(words, 15000))
    store = QueueStore(db)
    # The one place every change to the queue is applied (the page sends commands and draws).
    model = ConsoleModel(db, store, library.catalogue, window)
    keeper = QueueKeeper(store, window.port, handoff, window)
    settings = Settings(db)
    window.attach_queue(keeper, RememberedChoices(settings))
    runner = ToolRunner(model, library, window)
    calls = ToolCalls(library, drafts, runner, consent, window, keeper.known)
    person = PersonCommands(model, window.port, keeper, library, consent, window)
    window.attach_person(person)
    ConsoleAsks(
        window.port, library, consent, calls, model, person.repairs.get, window, keeper.known
    )
    ConsoleLibraryView(library, window.port, window)
    session = Session(profile, window, handoff, paths, db, library, consent, calls, model)
    storage = StorageWatch(db, model, window.port, window)
    storage.recovered.connect(lambda words: window.statusBar().showMessage(words, 8000))
    runner.reply_left_alone.connect(lambda shown, tickets: _reply_kept(window, shown, tickets))
    if load_problems:
        window.show_problem(
            "Some saved tools could not be read",
            "These could not be read and were left out. Everything else loaded.\n"
            + "\n".join(f"• {p}" for p in load_problems),
        )
    notify = lambda text: window.statusBar().showMessage(text, 8000)  # noqa: E731
    decisions = TeamDecisions(db)
    identity = Identity(paths.root, settings)
    packs = PackActions(
        window,
        library,
        ledger,
        window.show_problem,
        notify,
        settings,
        keeper.known,
        decisions,
        identity,
    )
    window.attach_packs(packs)
    session.team = TeamLibrary(
        library, packs, settings, decisions, identity, notify, window.show_problem, window
    )
    window.team_menu = TeamMenu(window, session.team)
    session.helpdesk = HelpdeskLink(db, model, keeper, window.port, Credentials(paths.root), window)
    runner.helpdesk_note = session.helpdesk.run_note
    window.helpdesk_menu = HelpdeskMenu(window, session.helpdesk, consent)
    session.helpdesk.resume()
    if agent_port is not None:
        start_agent(session, agent_port)
    return session


def start_agent(session: Session, port: int) -> AgentServer:
    """The MCP endpoint for `session`. agent.json appears once the endpoint listens and the
    console is ready, so a client that started us never meets a console that cannot run its
    calls yet."""
    from understudy_desktop.agent.server import AgentServer

    window = session.window
    # No parent: the endpoint's thread may still report a request closing after the window is
    # gone (a client's stream outlives the stop), and must never reach a deleted object.
    activity = AgentActivity()
    server = AgentServer(session.calls, activity)
    server.start(port)
    runtime = AgentRuntime(server.url, server.port_number, server.token, os.getpid())

    def announce(ready: bool) -> None:
        if ready:
            write_runtime(session.paths.root, runtime)
            remove_starting(session.paths.root, runtime.pid)

    window.port.ready_changed.connect(announce)
    library = session.library

    def tool_words(name: str) -> str:
        tool = library.get(name)
        return tool.shown_name if tool is not None else shown_name(name)

    window.attach_agent(activity, session.paths.root, server.url, server.token, tool_words)
    session.agent = server
    if window.port.ready:
        announce(True)
    return server


def start_agent_soon(session: Session, port: int) -> None:
    """Start the endpoint as soon as the MCP SDK is imported, importing it (about 0.4 s of
    Python) on a thread of its own while the window's page loads, so an agent can list the
    tools about when the console is ready.

    Beside the import, the Qt thread still serves the page its files from Python, and it
    would wait for the interpreter up to the switch interval (5 ms) for each, dozens of times
    in a row: the console was ready 0.5 s later with the import beside it. While the import
    runs, the interval is cut to IMPORT_SWITCH_S, so the Qt thread gets the interpreter back
    within a fraction of a millisecond (bench/native_anchor.py, start-up)."""

    def warm() -> None:
        was = sys.getswitchinterval()
        sys.setswitchinterval(min(was, IMPORT_SWITCH_S))
        try:
            import understudy_desktop.agent.server  # noqa: F401 (the import is the work)
        finally:
            sys.setswitchinterval(was)
        call_on_main(started)

    def started() -> None:
        start_agent(session, port)
        set_start_apart()

    threading.Thread(target=warm, name="understudy-mcp-import", daemon=True).start()


def cannot_start(exc: BaseException, data_dir: Path, quiet: bool) -> int:
    """Say what stops the start, in a dialog (and on stderr), and stop: exit status 1."""
    problem = problem_of(exc, data_dir)
    if problem is None:
        raise exc
    log.error("cannot start: %s (%r)", problem.title, exc)
    print(f"{problem.title}. {problem.words}", file=sys.stderr)
    if not quiet and os.environ.get("QT_QPA_PLATFORM") != "offscreen":
        doing = f"showing why it cannot start (“{problem.title}”) in its window"
        write_starting(data_dir, StartingState(os.getpid(), doing))
        QMessageBox.critical(None, problem.title, problem.words)
    remove_starting(data_dir, os.getpid())
    return 1


def hand_over(guard: InstanceGuard, paths: DataPaths, open_file: Path | None) -> int:
    """Another app has this data folder: give it the file, or say it does not answer."""
    if guard.forward(open_file):
        print(
            f"{APP_NAME} is already running with this data folder; it has been brought "
            "to the front."
        )
        return 0
    print(
        f"Another {APP_NAME} is using {paths.root} and does not answer. Close it, then "
        "start again.",
        file=sys.stderr,
    )
    return 3


def second_start(window: MainWindow, message: dict[str, str]) -> None:
    """The app was started again on this data folder: come to the front, open its file."""
    window.showNormal()
    window.raise_()
    window.activateWindow()
    if message.get("file"):
        window.open_file(Path(message["file"]))


def quit_on_signals(app: QApplication) -> None:
    """Ctrl+C in a terminal, or SIGTERM from a session manager, closes the app the normal way
    (agent.json removed, profile released after the view). Python only sees signals while it
    runs, so a timer (the app's child, living as long as it) wakes it up now and then."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: app.quit())
    wake = QTimer(app)
    wake.start(250)
    wake.timeout.connect(lambda: None)


def run(
    paths: DataPaths,
    open_file: Path | None,
    quit_after_load: bool,
    agent_port: int | None = 0,
    assume_yes: bool = False,
    team_folder: Path | None = None,
) -> int:
    prepare_qt()
    app = QApplication.instance() or UnderstudyApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    try:
        missing = missing_page_files(web_assets_dir())
        if missing:
            log.error("the console's page is incomplete; missing: %s", ", ".join(missing[:10]))
            raise StartProblemError(incomplete_words())
        guard = InstanceGuard(paths.root)
        if not guard.acquire():
            return hand_over(guard, paths, open_file)
        # For an understudy-mcp waiting meanwhile: what it waits for, in words.
        doing = "getting its window ready" if agent_port is not None else "running with agents off"
        write_starting(paths.root, StartingState(os.getpid(), doing, agent_port is not None))
        session = open_session(paths, None)
    except (OSError, sqlite3.Error, DatabaseError, StartProblemError) as exc:
        return cannot_start(exc, paths.root, quiet=quit_after_load)
    window = session.window
    if team_folder is not None and session.team is not None:
        session.team.set_folder(team_folder.expanduser().resolve())
    install_crash_handler(
        lambda text: call_on_main(window.show_problem, "Understudy hit a problem", text)
    )

    def first_ready(ready: bool) -> None:
        # Only the first time: a reload later must not re-open the file or quit.
        if not ready:
            return
        window.port.ready_changed.disconnect(first_ready)
        if open_file is not None and looks_like_pack(open_file):
            assert window.packs is not None
            if quit_after_load:
                window.packs.imported.connect(lambda _n: app.quit())
                window.packs.import_failed.connect(lambda _m: app.exit(2))
            # Given on the command line (or double-clicked): the preview asks before importing,
            # unless this is an unattended run.
            window.packs.import_pack(open_file, confirm=not (quit_after_load or assume_yes))
        elif open_file is not None:
            if quit_after_load:
                window.queue_loaded.connect(lambda _n: app.quit())
                window.queue_failed.connect(lambda _m: app.exit(2))
            window.open_queue(open_file, confirm=False)
        elif quit_after_load:
            # Used by smoke tests and benchmarks: start, wait for the console, stop.
            QTimer.singleShot(0, app.quit)
        if agent_port is None:
            set_start_apart()

    window.port.ready_changed.connect(first_ready)
    if isinstance(app, UnderstudyApplication):
        app.opener = FileOpenEvents(window)
    window.load_console()
    window.show()
    # The endpoint starts whatever the console then asks (opening a file given at start may
    # show a pack's preview, whose answer can take minutes): agents are never shut out.
    if agent_port is not None:
        start_agent_soon(session, agent_port)
    quit_on_signals(app)
    if os.environ.get("QT_QPA_PLATFORM") == "offscreen":
        log.info("running offscreen: the window is not visible")

    guard.on_message(lambda message: second_start(window, message))
    code = app.exec()
    session.close()
    remove_starting(paths.root, os.getpid())
    guard.release()
    return code
