"""The person learns of an agent's run at once, whatever they are doing (issue 35): the run's
notice shows while they type, names the tool in words, and takes nothing from what they type."""

from __future__ import annotations

from agent_helpers import TEST_TOOLS, mcp_client, publish_definitions, run_client
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from test_agent_endpoint import endpoint

NOTICE = "document.getElementById('run-toast')"


def test_an_agents_run_is_told_while_the_person_types_a_reply(agent_console):
    console = agent_console
    publish_definitions(console, [TEST_TOOLS["close_ticket"]])
    console.dispatch("select_ticket", {"ticket_id": "T-1001"}, "ui")
    console.window.activateWindow()
    console.window.view.setFocus()
    console.qtbot.waitUntil(lambda: console.js("document.hasFocus()") is True)
    console.js("document.getElementById('reply-draft').focus(); true")
    view = console.window.view.focusProxy()
    typist = QTimer()
    typist.setInterval(12)  # xdotool's pace
    typist.timeout.connect(lambda: QTest.keyClick(view, Qt.Key.Key_A))
    typist.start()
    console.qtbot.waitUntil(lambda: len(typed(console)) > 20)
    url, token = endpoint(console)

    async def call():
        async with mcp_client(url, token) as c:
            return await c.call_tool("close_ticket", {"ticket_id": "T-1003"})

    try:
        assert run_client(console.qtbot, call).is_error is False
        # Told while the keys still come: a notice held until the person stops typing would
        # never show here.
        console.qtbot.waitUntil(lambda: console.js(f"{NOTICE}.hidden") is False)
        notice = console.js(f"{NOTICE}.textContent")
        at_notice = len(typed(console))
        console.qtbot.waitUntil(lambda: len(typed(console)) > at_notice + 10)
    finally:
        typist.stop()
    assert notice.startswith("Close ticket (an agent) — step ")
    assert "close_ticket" not in notice
    assert console.js("document.activeElement.id") == "reply-draft"
    assert set(typed(console)) == {"a"}  # every key went into the reply, nothing else did


def typed(console) -> str:
    return str(console.js("document.getElementById('reply-draft').value"))
