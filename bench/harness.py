"""Shared pieces of the benchmarks: an offscreen console and ways to wait on it."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ["QTWEBENGINE_DISABLE_SANDBOX"] = "1"

# The tests' escaping helper: one way to put Python values into script text.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from js_text import js_literal
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from understudy_desktop.app import Session, open_session, prepare_qt
from understudy_desktop.definition import Definition
from understudy_desktop.paths import DataPaths


def application() -> QApplication:
    prepare_qt()
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    return app


def wait(
    app: QApplication, predicate: Callable[[], Any], timeout_s: float = 300, every_ms: int = 2
) -> None:
    """Run the Qt event loop until `predicate()` holds. The loop idles between looks, as the
    app's own does (a loop spinning Python code would hold the interpreter lock, and the
    database writer's thread would wait for it)."""
    if predicate():
        return
    deadline = time.monotonic() + timeout_s
    loop = QEventLoop()
    timer = QTimer()
    failed: list[bool] = []

    def look() -> None:
        if predicate():
            loop.quit()
        elif time.monotonic() > deadline:
            failed.append(True)
            loop.quit()

    timer.timeout.connect(look)
    timer.start(every_ms)
    loop.exec()
    timer.stop()
    if failed:
        raise TimeoutError("benchmark step timed out")


def js(app: QApplication, page: Any, script: str) -> Any:
    box: list[Any] = []
    page.runJavaScript(script, 0, box.append)
    wait(app, lambda: bool(box), 120)
    return box[0]


def js_async(app: QApplication, page: Any, expression: str) -> Any:
    """Await a promise in the page; the value (or the page's error) comes back through JSON."""
    js(
        app,
        page,
        "window.__bench = undefined; (async () => { try {"
        f" window.__bench = JSON.stringify({{value: await ({expression})}});"
        " } catch (e) { window.__bench = JSON.stringify({error: String(e)}); } })(); true",
    )
    # Looked at now and then: each look is a call into the page, which the page pays for.
    wait(app, lambda: js(app, page, "window.__bench !== undefined"), 300, every_ms=100)
    answer = json.loads(js(app, page, "window.__bench"))
    if "error" in answer:
        raise RuntimeError(f"the page failed: {answer['error']}")
    return answer["value"]


def start_console(app: QApplication, root: Path, agent: bool = False) -> Session:
    session = open_session(DataPaths(root), agent_port=0 if agent else None)
    window = session.window
    window.resize(1400, 900)
    window.load_console()
    window.show()
    wait(app, lambda: window.port.ready)
    # The list draws its rows on the next animation frame; routines click them.
    wait(app, lambda: js(app, window.page, "document.querySelectorAll('.row').length > 0"))
    return session


async def timed_calls(
    url: str, token: str, calls: list[tuple[str, dict[str, Any]]], warm_up: int = 0
) -> list[float]:
    """Milliseconds of each tools/call, made in order by the official MCP client."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    times: list[float] = []
    async with (
        httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(60, read=600)
        ) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):
        for name, args in calls[:warm_up]:
            await client.call_tool(name, args)
        for name, args in calls:
            t0 = time.perf_counter()
            result = await client.call_tool(name, args, read_timeout_seconds=600)
            times.append((time.perf_counter() - t0) * 1000)
            if result.is_error:
                raise RuntimeError(result.content[0].text)
    return times


def client_process(app: QApplication, argv: list[str]) -> str:
    """Run a benchmark client in its own process (as a real agent is) while the app idles in
    an event loop; returns what the client printed. The loop is a local QEventLoop, not
    `app.exec()`: in Qt 6 `app.quit()` also closes every window, and a closed console is a
    hidden page that Chromium no longer paints, which would flatter every later figure."""
    import subprocess

    from PySide6.QtCore import QTimer

    client = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    loop = QEventLoop()
    watcher = QTimer()
    watcher.timeout.connect(lambda: client.poll() is not None and loop.quit())
    watcher.start(20)
    loop.exec()
    watcher.stop()
    out, _ = client.communicate()
    if client.returncode != 0:
        raise RuntimeError("the benchmark client failed")
    return out


KEEP_HEADLINE = "Keep the recording"
EDITOR_OPEN = (
    "!document.getElementById('teach-panel').hidden"
    " && Boolean(document.getElementById('draft-publish'))"
)


class KeepRecordings(QTimer):
    """A person at the window who keeps what they just recorded: approves the shell's "Keep the
    recording" dialog whenever it opens (every other dialog is left alone); `kept` counts.
    Stop the timer to stop."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.kept = 0
        self._gate = session.consent.gate
        self.timeout.connect(self._look)
        self.start(50)

    def _look(self) -> None:
        for dialog in self._gate.open_dialogs():
            if dialog.headline.text().startswith(KEEP_HEADLINE):
                dialog.approve_button.click()
                self.kept += 1


def keep_recordings(session: Session) -> KeepRecordings:
    return KeepRecordings(session)


def teach_and_publish(
    app: QApplication,
    session: Session,
    tool: str,
    routine: str,
    keep: list[str],
    description: str | None = None,
) -> None:
    """Teach a routine through the console's own controls (JS `routine`), keep the recording in
    the shell's dialog, let whoever runs it choose the values named in `keep` (besides what the
    routine acted on, always asked), publish it as `tool`, and approve it in the consent
    dialog."""
    describe = (
        "const d = document.getElementById('draft-description');"
        f" d.value = {js_literal(description)};"
        " d.dispatchEvent(new Event('input'));"
        if description
        else ""
    )
    page = session.window.page
    keeping = keep_recordings(session)
    js(
        app,
        page,
        f"(() => {{ document.getElementById('teach-button').click(); {routine}\n"
        " document.getElementById('teach-button').click(); return true; })()",
    )
    # Kept in the shell's dialog, then the editor opens on it.
    wait(app, lambda: keeping.kept > 0, 30)
    keeping.stop()
    wait(app, lambda: js(app, page, EDITOR_OPEN), 30)
    js(
        app,
        page,
        f"""(() => {{
      const keep = {js_literal(keep)};
      // Each click redraws the panel: find every switch again by its id before clicking it.
      const ids = [...document.querySelectorAll('#teach-panel input[id^="ask-"]')].map((b) => b.id);
      for (const id of ids) {{
        const b = document.getElementById(id);
        if (b && keep.includes(id.slice(4)) !== b.checked) b.click();
      }}
      const n = document.getElementById('draft-name'); n.value = {js_literal(tool)};
      n.dispatchEvent(new Event('input'));
      {describe}
      document.getElementById('draft-publish').click();
      return true;
    }})()""",
    )
    gate = session.consent.gate
    wait(app, lambda: bool(gate.open_dialogs()), 20)
    gate.open_dialogs()[0].approve_button.click()
    wait(app, lambda: session.library.callable(tool) is not None, 20)


def publish_definitions(
    session: Session, definitions: list[dict[str, Any]], until: Callable[[Callable[[], Any]], None]
) -> None:
    """The person publishes ready-made tools: each is drafted from a recording with the same
    steps and approved in the native dialog (the shell's own path; only the page's editor is
    skipped). `until(predicate)` waits, pumping Qt events."""
    from understudy_desktop.approval.service import PERSON
    from understudy_desktop.library.checks import complete

    gate = session.consent.gate
    for index, raw in enumerate(definitions):
        recording = {
            "id": f"rec-made-{raw['name']}-{index}",
            "name": raw["name"],
            "createdAt": "2026-12-01T09:00:00Z",
            "revision": 1,
            "steps": [{"command": s["command"], "payload": {}} for s in raw["steps"]],
        }
        session.library.save_recording(recording)
        full = complete(Definition.of(raw), session.library.catalogue)
        draft = session.consent.drafts.add(full, [], "person", recording_id=recording["id"])
        answers: list[dict[str, Any]] = []
        session.consent.publish(draft.id, PERSON, None, False, answers.append)
        until(lambda: bool(gate.open_dialogs()))
        gate.open_dialogs()[0].approve_button.click()
        until(lambda answers=answers: bool(answers))
        if answers[0].get("status") != "published":
            raise RuntimeError(f"{raw['name']} was not published: {answers[0]}")
