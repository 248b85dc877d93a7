"""The console page cannot be taken away from the shell: a script that navigates it (or a
person's click on a link in a ticket) is refused without touching the bridge, so every edit
after it is saved and drawn, and an agent's change is drawn too (issue 33)."""

from __future__ import annotations

import pytest
from agent_helpers import TEST_TOOLS, publish_definitions, stored_ticket
from test_plain_words import internals, widget_text
from test_shell_authority import page_script

from understudy_desktop.web.scheme import START_URL


def still_connected(console, data_dir) -> None:
    """A person's edit is saved (the footer's "Saving…" ends), and an agent's change is drawn."""
    console.dispatch("set_ticket_priority", {"ticket_id": "T-1001", "priority": "urgent"}, "ui")
    console.qtbot.waitUntil(lambda: console.api_json("saveState")["unsaved"] == 0)
    assert stored_ticket(data_dir, "T-1001")["priority"] == "urgent"
    answer = console.run_tool("close_ticket", {"ticket_id": "T-1002"}, by="agent")
    assert answer["ok"], answer
    assert console.dispatch("get_ticket", {"ticket_id": "T-1002"})["result"]["status"] == "closed"


@pytest.mark.parametrize(
    "script",
    [
        "location.href = 'https://example.com/';",
        "location.assign('understudy://app/probe.html');",
        "document.body.insertAdjacentHTML('beforeend', '<a id=\"away\" href=\"https://example.com/\">x</a>');"
        " document.getElementById('away').click();",
        "window.open('https://example.com/', '_self');",
    ],
)
def test_a_navigation_is_refused_and_the_console_stays_connected(agent_console, data_dir, script):
    console = agent_console
    publish_definitions(console, [TEST_TOOLS["close_ticket"]])
    port = console.window.port
    assert port.ready
    page_script(console, script)
    console.settled()  # what a refused load sets off has arrived
    box = console.page.opener.box
    if box is not None:  # an address outside the app: asked about, never opened unasked
        assert "example.com" in box.informativeText()
        box.reject()
    assert port.ready, "the bridge was reset by a navigation that never happened"
    assert console.js("location.href") == START_URL
    # A person's edit is saved (the footer's "Saving…" ends), and an agent's change is drawn.
    still_connected(console, data_dir)


def test_a_script_cannot_open_addresses_in_the_browser_unasked(console, monkeypatch):
    """window.open and a link's click() in a loop, with no click of the person's: nothing
    opens, and not even a question is raised (the app's dialogs are the person's)."""
    from PySide6.QtGui import QDesktopServices

    opened: list[str] = []
    monkeypatch.setattr(
        QDesktopServices, "openUrl", lambda url: opened.append(url.toString()) or True
    )
    asked: list[object] = []
    console.page.opener.asked.connect(asked.append)
    page_script(
        console,
        "for (let i = 0; i < 50; i++) window.open('https://example.com/' + i, '_blank');"
        " for (let i = 0; i < 50; i++) { const a = document.createElement('a');"
        " a.href = 'https://example.com/a' + i; document.body.append(a); a.click(); }",
    )
    console.settled()
    assert asked == [] and console.page.opener.box is None
    assert opened == []


def test_the_person_clicking_many_links_is_asked_one_at_a_time(console, monkeypatch):
    """Fifty clicks: one question, naming the address; nothing opens until the person says
    Open, and then only that address (the rest were dropped, not queued)."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtGui import QDesktopServices
    from PySide6.QtTest import QTest

    opened: list[str] = []
    monkeypatch.setattr(
        QDesktopServices, "openUrl", lambda url: opened.append(url.toString()) or True
    )
    rect = console.js(
        "let n = 0; const a = document.createElement('a'); a.href = 'https://example.com/0';"
        " a.target = '_blank'; a.textContent = 'link';"
        " a.style = 'position:fixed;left:10px;top:10px;padding:20px;z-index:99999;"
        "background:white'; a.addEventListener('click', () => { n += 1;"
        " setTimeout(() => { a.href = 'https://example.com/' + n; }, 0); });"
        " document.body.append(a);"
        " (() => { const r = a.getBoundingClientRect();"
        " return `${r.x + r.width / 2} ${r.y + r.height / 2}`; })()"
    )
    x, y = (int(float(v)) for v in rect.split())
    view = console.window.view.focusProxy()
    for _ in range(50):
        QTest.mouseClick(view, Qt.MouseButton.LeftButton, pos=QPoint(x, y))
    console.qtbot.waitUntil(lambda: console.page.opener.box is not None)
    console.settled()  # the other clicks have reached the shell too
    box = console.page.opener.box
    assert opened == []
    assert box.informativeText() == "https://example.com/0"
    assert not internals(widget_text(box))
    box.button(box.StandardButton.Open).click()
    console.qtbot.waitUntil(lambda: opened == ["https://example.com/0"])
    console.settled()
    assert console.page.opener.box is None
    assert opened == ["https://example.com/0"]


@pytest.mark.parametrize(
    "path", ["nothing-here.js", "js/nothing/here.json", "..%2f..%2fetc/passwd"]
)
def test_a_missing_app_address_is_answered_at_once(console, path):
    """A request for an address the app does not have ends at once (not found), rather than
    staying open for ever in the page."""
    console.js(
        "window.__fetched = null;"
        f" fetch('understudy://app/{path}').then("
        " (r) => { window.__fetched = 'status ' + r.status; },"
        " (e) => { window.__fetched = 'failed'; }); true"
    )
    # runJavaScript gives null back as "" or None.
    console.qtbot.waitUntil(lambda: console.js("window.__fetched") not in (None, ""))
    assert console.js("window.__fetched") in ("status 404", "failed")


EDITS = """
  window.__acked = null;
  (async () => {
    const api = window.understudyShell.api;
    const edit = (i) => ['T-10' + String(1 + (i % 12)).padStart(2, '0'), 'kept-' + i];
    for (let i = 0; i < 40; i++) {
      const [ticket, text] = edit(i);
      api.dispatch('set_reply_draft', {ticket_id: ticket, text}, 'ui');
      if (i === 19) {
        // The first twenty are answered ("saved" in the footer) before the page goes.
        while (api.saveState().unsaved > 0) await new Promise((r) => setTimeout(r, 5));
        window.__acked = [...Array(20).keys()].map(edit);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  true
"""
TICKETS = [f"T-10{n:02d}" for n in range(1, 13)]


def drafts_in_journal(data_dir) -> set[tuple[str, str]]:
    import json
    import sqlite3

    with sqlite3.connect(data_dir / "understudy.sqlite3") as db:
        rows = db.execute(
            "SELECT changes FROM journal WHERE command = 'set_reply_draft'"
        ).fetchall()
    out = set()
    for (changes,) in rows:
        for _op, field, value, ids in json.loads(changes):
            if field == "reply_draft":
                out |= {(t, value) for t in ids}
    return out


@pytest.mark.parametrize("how", ["reload", "renderer killed"])
def test_a_reload_or_a_dead_renderer_in_the_middle_of_edits_loses_nothing(
    agent_console, data_dir, how
):
    """Forty edits, and after the twentieth the page reloads (or its renderer is killed): the
    console comes back by itself, connected; every edit the shell heard is saved, every one
    it answered is among them, the page draws what the database holds, and edits and agents'
    changes after it are saved and drawn as before."""
    import os
    import signal

    from understudy_desktop.bridge.protocol import Ask, CommandAsk

    console = agent_console
    publish_definitions(console, [TEST_TOOLS["close_ticket"]])
    port, bridge = console.window.port, console.window.bridge
    heard: list[tuple[str, str]] = []

    def hear(push: object) -> None:
        if isinstance(push, Ask) and isinstance(push.body, CommandAsk):
            payload = push.body.payload
            heard.append((str(payload.get("ticket_id")), str(payload.get("text"))))

    bridge.pushed.connect(hear)
    went: list[bool] = []
    port.ready_changed.connect(lambda ready: went.append(ready))
    console.js(EDITS)
    console.qtbot.waitUntil(lambda: console.value("window.__acked") is not None)
    acked = console.value("window.__acked")
    # More edits on their way: any moment will do (the page must survive a reload at any
    # point), so this short pause is not waiting for anything.
    console.qtbot.wait(20)
    if how == "reload":
        console.window.page.triggerAction(console.window.page.WebAction.Reload)
    else:
        os.kill(console.page.renderProcessPid(), signal.SIGKILL)
    console.qtbot.waitUntil(lambda: False in went and port.ready)
    console.drawn()
    if how == "renderer killed":
        assert console.window.statusBar().currentMessage() == (
            "The console stopped unexpectedly and was started again. Nothing saved was lost."
        )
    console.flush()
    saved = drafts_in_journal(data_dir)
    assert heard and set(heard) <= saved
    assert {(t, v) for t, v in acked} <= saved
    for t in TICKETS:
        shown = console.dispatch("get_ticket", {"ticket_id": t})["result"]["reply_draft"]
        assert shown == stored_ticket(data_dir, t)["reply_draft"]
    # Edits after it are saved, and an agent's change is drawn.
    still_connected(console, data_dir)


def test_a_renderer_that_keeps_dying_is_not_restarted_for_ever(console):
    """Three restarts a minute at most; then the person is told to restart the app. A renderer
    that ends normally (the app closing) is not restarted."""
    from understudy_desktop.web.renderer_watch import GIVEN_UP, RESTARTED, RendererWatch

    page = console.page
    restarts: list[int] = []
    said: list[str] = []
    RendererWatch(page, lambda: restarts.append(1), said.append)
    status = page.RenderProcessTerminationStatus
    page.renderProcessTerminated.emit(status.NormalTerminationStatus, 0)
    for _ in range(4):
        page.renderProcessTerminated.emit(status.CrashedTerminationStatus, 11)
    console.qtbot.waitUntil(lambda: len(said) == 4)
    assert restarts == [1, 1, 1]
    assert sorted(said) == sorted([RESTARTED] * 3 + [GIVEN_UP])
    assert not internals(GIVEN_UP) and not internals(RESTARTED)


@pytest.mark.parametrize(
    "request_js",
    [
        "fetch('understudy://app/nothing', {method: 'POST', body: 'x'}).then("
        "(r) => done('status ' + r.status), () => done('failed'));",
        pytest.param(
            "fetch('understudy://elsewhere/index.html').then("
            "(r) => done('status ' + r.status), () => done('failed'));",
            marks=pytest.mark.js_errors_expected,  # the console's CSP refuses it, and says so
        ),
        "const x = new XMLHttpRequest(); x.open('GET', 'understudy://app/none.json');"
        " x.onload = () => done('status ' + x.status); x.onerror = () => done('failed'); x.send();",
        "const s = document.createElement('script'); s.src = 'understudy://app/js/none.js';"
        " s.onload = () => done('loaded'); s.onerror = () => done('failed');"
        " document.head.append(s);",
        "const i = new Image(); i.onload = () => done('loaded');"
        " i.onerror = () => done('failed'); i.src = 'understudy://app/img/none.png';",
        "import('understudy://app/js/none.js').then(() => done('loaded'), () => done('failed'));",
    ],
    ids=["post", "other-host", "xhr", "script", "image", "import"],
)
def test_every_kind_of_request_for_a_missing_address_ends_at_once(console, request_js):
    """Not only fetch: a POST, another host, an XHR, a script, an image and a module import
    of an address the app does not have all end at once, with an error, never pending."""
    console.js(
        "window.__ended = null; const done = (how) => { window.__ended = how; };"
        f" {request_js} true"
    )
    console.qtbot.waitUntil(lambda: console.js("window.__ended") not in (None, ""))
    assert console.js("window.__ended") in ("failed", "status 404", "status 403")


def test_an_answer_meant_for_the_document_before_a_reload_is_dropped(agent_console, data_dir):
    """The channel's answers outlive a document: after a reload, the shell's answers to calls
    the old document made reach the new one. Such an answer (an id the new document never
    used) is dropped without an error, and the console stays connected."""
    from understudy_desktop.web.scripts import BRIDGE_WORLD

    console = agent_console
    publish_definitions(console, [TEST_TOOLS["close_ticket"]])
    stale = '{"type": 10, "id": 7, "data": null}'  # 10: a response, in Qt's channel protocol
    with console.qtbot.waitCallback() as done:
        console.page.runJavaScript(
            "setTimeout(() => {"
            f" qt.webChannelTransport.onmessage({{data: '{stale}'}}); window.__staleGiven = true;"
            " }); true",
            BRIDGE_WORLD,
            done,
        )

    def given() -> bool:
        with console.qtbot.waitCallback() as seen:
            console.page.runJavaScript("window.__staleGiven === true", BRIDGE_WORLD, seen)
        return seen.args[0] is True

    console.qtbot.waitUntil(given)  # the timer ran: an error would be logged by now
    still_connected(console, data_dir)
