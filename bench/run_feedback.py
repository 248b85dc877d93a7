"""How soon the person sees that an agent ran a tool, whatever they are doing at the window.

An agent (the official MCP client, on a thread of its own) calls a one-ticket taught tool; the
figure is the time from the call leaving the client to the run's notice showing in the console
(a MutationObserver in the page notes when it appears; both clocks are this machine's). Arms,
taking turns call by call so that a busy moment of the machine falls on all of them alike:

  idle            nobody at the keyboard
  typing a reply  real key presses into the reply box, one every 12 ms (xdotool's default pace)
  typing a search the same into the search box (each key filters the queue)
  dialog open     a window of the shell's own is open in front of the console (Help › About)

The issue's target is a second. Usage: .venv/bin/python bench/run_feedback.py [calls per arm]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_latency import DEFINITION, TOOL
from harness import application, js, publish_definitions, start_console, wait
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox

WATCH = """(() => {
  const toast = document.getElementById('run-toast');
  window.__toastShown = [];
  new MutationObserver(() => {
    if (!toast.hidden) window.__toastShown.push(Date.now());
  }).observe(toast, { attributes: true, childList: true, subtree: true, characterData: true });
  return true;
})()"""

HIDDEN = "document.getElementById('run-toast').hidden"
KEY_EVERY_MS = 12


class Typist(QTimer):
    """A person typing into one of the console's fields with real key presses."""

    def __init__(self, app: QApplication, session: Any, field: str) -> None:
        super().__init__()
        window = session.window
        window.activateWindow()
        window.view.setFocus()
        js(app, window.page, f"document.getElementById('{field}').focus(); true")
        view = window.view.focusProxy()
        self.setInterval(KEY_EVERY_MS)
        self.timeout.connect(lambda: QTest.keyClick(view, Qt.Key.Key_A))
        self.start()


class AboutOpen:
    """A window of the shell's own is open in front of the console, modal, as its dialogs
    are (opened with open(): the benchmark's own waits are event loops too, and a dialog's
    exec() inside one would hold it)."""

    def __init__(self, session: Any) -> None:
        self._box = QMessageBox(
            QMessageBox.Icon.Information, "About", "Understudy", parent=session.window
        )
        self._box.open()

    def stop(self) -> None:
        self._box.done(0)


def call_once(app: QApplication, url: str, token: str, ticket: str) -> float:
    """One call that changes the ticket; when (time.time()) it left the client."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    sent: list[float] = []

    async def go() -> None:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
            Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
        ):
            # A priority the ticket does not have already: a call that changes nothing shows
            # nothing.
            for priority in ("low", "urgent"):
                sent[:] = [time.time()]
                result = await client.call_tool(TOOL, {"ticket_id": ticket, "priority": priority})
                if result.is_error:
                    raise RuntimeError(result.content[0].text)
                if result.structured_content and result.structured_content.get("changed"):
                    return
            raise RuntimeError("the call changed nothing")

    failed: list[BaseException] = []

    def client() -> None:
        try:
            asyncio.run(go())
        except BaseException as exc:  # handed back to the main thread
            failed.append(exc)

    thread = threading.Thread(target=client, daemon=True)
    thread.start()
    wait(app, lambda: not thread.is_alive(), 60)
    if failed:
        raise failed[0]
    return sent[0]


def main() -> int:
    per_arm = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    app = application()
    arms: dict[str, Callable[[Any], Any]] = {
        "idle": lambda s: None,
        "typing a reply": lambda s: Typist(app, s, "reply-draft"),
        "typing a search": lambda s: Typist(app, s, "filter-text"),
        "dialog open": AboutOpen,
    }
    times: dict[str, list[float]] = {name: [] for name in arms}
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        session = start_console(app, Path(tmp) / "data", agent=True)
        publish_definitions(session, [DEFINITION], lambda p: wait(app, p, 20))
        page = session.window.page
        server = session.agent
        assert server is not None
        js(app, page, "document.getElementById('reply-draft') !== null")
        js(app, page, WATCH)
        # The person works on a ticket of their own; the agent's calls go to others.
        js(app, page, "document.querySelector('[data-ticket-id=\"T-1002\"]').click(); true")
        calls = 0
        for _ in range(per_arm):
            for name, start in arms.items():
                js(app, page, "window.__toastShown = []; true")
                busy = start(session)
                pause(app, 300)  # the person is at it before the agent calls
                ticket = f"T-{1003 + (calls % 30)}"
                calls += 1
                sent = call_once(app, server.url, server.token, ticket)
                wait(app, lambda: bool(js(app, page, "window.__toastShown.length")), 60)
                shown = js(app, page, "window.__toastShown[0]")
                times[name].append(shown - sent * 1000)
                if busy is not None:
                    busy.stop()
                # The notice hides 1.5 s after a run; the next call starts from a quiet screen.
                wait(app, lambda: bool(js(app, page, HIDDEN)))
        session.close()
    print()
    print("Time from an agent's call to its notice in the console (ms), offscreen, this machine")
    print(f"{per_arm} calls per arm, arms taking turns; target: under 1,000 ms")
    head = f"{'while the person is':<22} | {'median':>8} | {'worst':>8}"
    print(head)
    print("-" * len(head))
    for name, values in times.items():
        print(f"{name:<22} | {statistics.median(values):>8.0f} | {max(values):>8.0f}")
    return 0


def pause(app: QApplication, ms: int) -> None:
    until = time.monotonic() + ms / 1000
    wait(app, lambda: time.monotonic() >= until)


if __name__ == "__main__":
    sys.exit(main())
