"""Shared fixtures: a real QtWebEngine console, offscreen, with its data in a temp dir."""

from __future__ import annotations

import atexit
import json
import logging
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

# The benchmarks' harness (bench/harness.py) holds the helpers both use to play the person.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

# The user's keys (consent/seal.py) go to a folder of this test run, never the real one; set
# here so that app processes the tests start use it too. Removed when the run ends, so that
# runs leave nothing behind in the machine's temp folder.
if "UNDERSTUDY_KEY_DIR" not in os.environ:
    os.environ["UNDERSTUDY_KEY_DIR"] = tempfile.mkdtemp(prefix="understudy-keys-")
    atexit.register(shutil.rmtree, os.environ["UNDERSTUDY_KEY_DIR"], ignore_errors=True)
# Signing keys (team/keys.py) never go to the desktop's real keyring: the "no keyring" backend
# makes them files in each test's data folder, as on a machine without one.
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

# Before anything imports Qt: offscreen rendering, and no sandbox for root.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ["QTWEBENGINE_DISABLE_SANDBOX"] = "1"

from js_text import js_call
from pytestqt.qtbot import QtBot
from waiting import HANG_MS

from understudy_desktop.app import Session, open_session, prepare_qt
from understudy_desktop.paths import DataPaths

prepare_qt()

READS = frozenset({"get_ticket", "list_templates", "list_assignees"})


class JsErrors(logging.Handler):
    """Collects errors the page logs to its console; a test fails if any are unexpected."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(scope="module")
def rt_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A real Request Tracker 5 on loopback, with Alice and Bob (who may own tickets) and
    Chloé (a requester), for one test module (tests/helpdesk_helpers.py)."""
    from helpdesk_helpers import rt_with_people

    yield from rt_with_people(tmp_path_factory)


@pytest.fixture(autouse=True)
def js_errors(request: pytest.FixtureRequest) -> Iterator[JsErrors]:
    handler = JsErrors()
    logger = logging.getLogger("understudy.js")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)
    if request.node.get_closest_marker("js_errors_expected") is None:
        errors = [r.getMessage() for r in handler.records if r.levelno >= logging.ERROR]
        assert not errors, f"unexpected JavaScript errors: {errors}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "js_errors_expected: the page is expected to log errors")


class PatientQtBot(QtBot):
    """pytest-qt's bot whose waits, unless a test says otherwise, give up only at the one hang
    deadline (tests/waiting.py), not at pytest-qt's 5 s, which a busy machine overruns. The
    methods keep pytest-qt's names (hence noqa N802)."""

    def waitUntil(self, callback: Any, *, timeout: int = HANG_MS) -> None:  # noqa: N802
        super().waitUntil(callback, timeout=timeout)

    def waitSignal(self, signal: Any, *, timeout: int = HANG_MS, **kwargs: Any) -> Any:  # noqa: N802
        return super().waitSignal(signal, timeout=timeout, **kwargs)

    def waitSignals(self, signals: Any, *, timeout: int = HANG_MS, **kwargs: Any) -> Any:  # noqa: N802
        return super().waitSignals(signals, timeout=timeout, **kwargs)

    def waitCallback(self, *, timeout: int = HANG_MS, **kwargs: Any) -> Any:  # noqa: N802
        return super().waitCallback(timeout=timeout, **kwargs)

    def waitExposed(self, widget: Any, *, timeout: int = HANG_MS) -> Any:  # noqa: N802
        return super().waitExposed(widget, timeout=timeout)

    def waitActive(self, widget: Any, *, timeout: int = HANG_MS) -> Any:  # noqa: N802
        return super().waitActive(widget, timeout=timeout)


@pytest.fixture
def qtbot(qapp: Any, request: pytest.FixtureRequest) -> PatientQtBot:
    """Every test's qtbot is the patient one (this replaces pytest-qt's own fixture)."""
    return PatientQtBot(request)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own data dir; the user's real one is never touched."""
    root = tmp_path / "data"
    monkeypatch.setenv("UNDERSTUDY_DATA_DIR", str(root))
    return root


class Console:
    """A running console window plus helpers to evaluate JavaScript in its page."""

    def __init__(self, session: Session, qtbot: Any) -> None:
        self.session = session
        self.window = session.window
        self.page = session.window.page
        self.qtbot = qtbot

    def js(self, script: str) -> Any:
        """Evaluate a synchronous expression in the page's main world and return its value."""
        with self.qtbot.waitCallback() as callback:
            self.page.runJavaScript(script, 0, callback)
        return callback.args[0]

    def value(self, expression: str) -> Any:
        """Evaluate an expression and return it through JSON (runJavaScript drops some arrays)."""
        text = self.js(f"JSON.stringify(({expression}))")
        return None if text in (None, "") else json.loads(text)

    def api(self, method: str, *args: Any) -> Any:
        """Call a synchronous understudyShell.api method with escaped arguments."""
        return self.js(f"JSON.stringify({js_call('window.understudyShell.api.' + method, *args)})")

    def api_json(self, method: str, *args: Any) -> Any:
        return json.loads(self.api(method, *args))

    def wait_for(self, start: Any) -> Any:
        """Run start(callback) (an asynchronous shell call) and return what it answers."""
        results: list[Any] = []
        start(results.append)
        self.qtbot.waitUntil(lambda: bool(results))
        return results[0]

    # --- what the shell holds (the authority) ---------------------------------------------
    @property
    def library(self) -> Any:
        return self.session.library

    def listed(self) -> list[str]:
        """The tool names agents are shown now."""
        return [str(t["name"]) for t in self.session.calls.listed()]

    def taught(self) -> list[str]:
        return [t.name for t in self.session.library.tools()]

    def run_tool(self, name: str, arguments: dict[str, Any], by: str = "person") -> Any:
        """Run an approved tool through the shell's one run path; returns its answer."""
        tool = self.session.library.callable(name)
        assert tool is not None, f"{name} is not callable"
        return self.wait_for(
            lambda done: self.session.calls.run(tool, arguments, by, "a test", done)
        )

    def dispatch(self, command: str, payload: dict[str, Any], source: str = "shell") -> Any:
        """A command through the page's API. A read waits until the page has drawn every change
        the shell committed (an agent's run is drawn a moment after its answer)."""
        if command in READS:
            self.drawn()
        return self.api_json("dispatch", command, payload, source)

    def drawn(self) -> None:
        """Until the page shows every change the shell's database holds."""
        store = self.window.keeper.store

        def caught_up() -> bool:
            state = store.state()
            return state is None or self.api_json("saveState")["revision"] >= state.revision

        self.qtbot.waitUntil(caught_up)

    @contextmanager
    def database_held(self) -> Iterator[threading.Event]:
        """Keep the database's writer busy (a long write ahead of everything else) until the
        block ends or the test sets the event: runs wait their turn there meanwhile."""
        free = threading.Event()
        self.session.db.submit(lambda _conn: free.wait(HANG_MS / 1000))
        try:
            yield free
        finally:
            free.set()

    def settled(self) -> None:
        """Until what was set off so far has had its chance, for a test that proves something
        did NOT happen: the page has run what it had queued (a script's round trip), the
        database's writer has done all it held, and no run waits or runs."""
        self.js("true")
        # A round trip on the page's own channel to the shell, behind what the page sent on it
        # (a read: flush would wait for the page's saving too, which a flood makes long).
        self.wait_for(self.window.port.summary)
        self.written()
        runner = self.session.calls.runner
        self.qtbot.waitUntil(lambda: not runner.running and runner.waiting == 0)

    def written(self) -> None:
        """Until the database's one writer has done everything handed to it so far."""
        flushed = self.session.db.submit(lambda _conn: None)
        self.qtbot.waitUntil(flushed.done)

    def scan_team_folder(self) -> None:
        """Scan the team folder now, and wait until that scan, begun after every change so far,
        is done (a scan already under way began before them: it ends first)."""
        team = self.session.team
        watcher = team.watcher
        self.qtbot.waitUntil(lambda: not watcher._busy)
        with self.qtbot.waitSignal(watcher.scanned):
            watcher.scan_now()
        # The view is worked out on the team's thread: wait until it is shown.
        self.qtbot.waitUntil(team.settled)

    def flush(self) -> None:
        result = self.wait_for(self.window.port.flush)
        assert result.ok, result.error


def start_console(
    qtbot: Any, data_root: Path, agent: bool = False, keep_welcome: bool = False
) -> Console:
    # The agent endpoint starts only where a test needs it (uvicorn adds ~0.3 s per console).
    session = open_session(DataPaths(data_root), agent_port=0 if agent else None)
    window = session.window
    window.resize(1400, 900)
    with qtbot.waitSignal(window.port.ready_changed):
        window.load_console()
        window.show()
    console = Console(session, qtbot)
    # The list renders on the next animation frame; tests that click rows need them drawn.
    qtbot.waitUntil(lambda: console.js("document.querySelectorAll('.row').length > 0"))
    if not keep_welcome:
        # A person dismisses the first-run welcome before working (it covers the reply area).
        console.js("document.getElementById('welcome').hidden = true; true")
    return console


@pytest.fixture
def console(qtbot: Any, data_dir: Path) -> Iterator[Console]:
    c = start_console(qtbot, data_dir)
    yield c
    c.session.close()


@pytest.fixture
def agent_console(qtbot: Any, data_dir: Path) -> Iterator[Console]:
    """A console with its MCP endpoint running."""
    c = start_console(qtbot, data_dir, agent=True)
    yield c
    c.session.close()


@pytest.fixture
def console_factory(qtbot: Any) -> Iterator[Any]:
    """Start (and stop) consoles on a chosen data dir, for restart tests."""
    started: list[Console] = []

    def start(root: Path, agent: bool = False, keep_welcome: bool = False) -> Console:
        c = start_console(qtbot, root, agent, keep_welcome)
        started.append(c)
        return c

    yield start
    for c in started:
        c.session.close()
