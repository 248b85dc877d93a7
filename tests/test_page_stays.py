"""The console page cannot be taken away from the shell: a script that navigates it (or a
person's click on a link in a ticket) is refused without touching the bridge, so every edit
after it is saved and drawn, and an agent's change is drawn too (issue 33)."""

from __future__ import annotations

import pytest
from agent_helpers import TEST_TOOLS, publish_definitions, stored_ticket
from test_plain_words import internals, widget_text
from test_shell_authority import page_script

from understudy_desktop.web.scheme import START_URL


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
    console.qtbot.wait(1000)  # what a refused load sets off has time to arrive
    box = console.page.opener.box
    if box is not None:  # an address outside the app: asked about, never opened unasked
        assert "example.com" in box.informativeText()
        box.reject()
    assert port.ready, "the bridge was reset by a navigation that never happened"
    assert console.js("location.href") == START_URL
    # A person's edit is saved (the footer's "Saving…" ends), and an agent's change is drawn.
    console.dispatch("set_ticket_priority", {"ticket_id": "T-1001", "priority": "urgent"}, "ui")
    console.qtbot.waitUntil(lambda: console.api_json("saveState")["unsaved"] == 0, timeout=10_000)
    assert stored_ticket(data_dir, "T-1001")["priority"] == "urgent"
    answer = console.run_tool("close_ticket", {"ticket_id": "T-1002"}, by="agent")
    assert answer["ok"], answer
    assert console.dispatch("get_ticket", {"ticket_id": "T-1002"})["result"]["status"] == "closed"


def test_a_script_cannot_open_addresses_in_the_browser_unasked(console, monkeypatch):
    """window.open in a loop: one question, naming the address; nothing opens until the
    person says Open, and then only that address."""
    from PySide6.QtGui import QDesktopServices

    opened: list[str] = []
    monkeypatch.setattr(
        QDesktopServices, "openUrl", lambda url: opened.append(url.toString()) or True
    )
    page_script(
        console,
        "for (let i = 0; i < 50; i++) window.open('https://example.com/' + i, '_blank');",
    )
    console.qtbot.waitUntil(lambda: console.page.opener.box is not None, timeout=5000)
    console.qtbot.wait(500)
    box = console.page.opener.box
    assert opened == []
    assert box.informativeText() == "https://example.com/0"
    assert not internals(widget_text(box))
    box.button(box.StandardButton.Open).click()
    console.qtbot.waitUntil(lambda: opened == ["https://example.com/0"], timeout=5000)
    console.qtbot.wait(500)
    assert console.page.opener.box is None, "the 49 others were dropped, not queued"
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
    console.qtbot.waitUntil(lambda: console.js("window.__fetched") not in (None, ""), timeout=3000)
    assert console.js("window.__fetched") in ("status 404", "failed")
