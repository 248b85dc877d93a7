"""The open ticket's tool menu (js/ui/ticket_tools.js): g, then a number, runs a taught tool on
the open ticket, as one "apply macro" does; a tool that asks for more than the ticket opens its
Run… form with the ticket filled in. Real key presses in the real console."""

from __future__ import annotations

from agent_helpers import (
    TEST_TOOLS,
    definition,
    publish_definitions,
    step,
    stored_ticket,
    ticket_param,
)
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

SET_PRIORITY = definition(
    "prioritise_ticket",
    "Set a ticket's priority.",
    [step("set_ticket_priority", ticket_id=("param", "ticket_id"), priority=("param", "priority"))],
    {
        "ticket_id": ticket_param(),
        "priority": {"type": "string", "enum": ["low", "normal", "high", "urgent"]},
    },
)


def shown(console, ticket_id: str, tools: int) -> None:
    """Until the page has drawn the open ticket and knows the tools the shell published (the
    menu is made from what the page knows; a click before then says there are none)."""
    console.qtbot.waitUntil(
        lambda: (
            console.js(
                "document.getElementById('queue-list').getAttribute('aria-activedescendant')"
                f" === 'row-{ticket_id}'"
                f" && document.getElementById('library-count').textContent === '{tools}'"
            )
            is True
        )
    )


def keys(console):
    console.window.activateWindow()
    console.window.view.setFocus()
    console.qtbot.waitUntil(lambda: console.js("document.hasFocus()") is True)
    console.js("document.getElementById('queue-list').focus(); true")
    return console.window.view.focusProxy()


def test_g_then_a_number_runs_a_tool_on_the_open_ticket(console, data_dir):
    publish_definitions(
        console, [TEST_TOOLS["close_ticket"], SET_PRIORITY, TEST_TOOLS["lookup_ticket"]]
    )
    console.dispatch("select_ticket", {"ticket_id": "T-1003"}, "ui")
    shown(console, "T-1003", 3)
    view = keys(console)
    QTest.keyClick(view, Qt.Key.Key_G)
    console.qtbot.waitUntil(lambda: console.js("!document.getElementById('ticket-tools').hidden"))
    listed = console.value(
        "[...document.querySelectorAll('#ticket-tools button')].map((b) => b.textContent)"
    )
    # By their names, numbered; every one of them works on one ticket.
    assert listed == ["1 Close ticket", "2 Lookup ticket", "3 Prioritise ticket"]
    QTest.keyClick(view, Qt.Key.Key_1)  # two keys in all, as one "apply macro"
    console.qtbot.waitUntil(lambda: stored_ticket(data_dir, "T-1003")["status"] == "closed")
    console.qtbot.waitUntil(
        lambda: (
            "Close ticket finished: 1 ticket changed."
            in console.js("document.getElementById('toast-text').textContent")
        )
    )
    assert console.js("document.getElementById('ticket-tools').hidden") is True


def test_a_tool_that_asks_more_opens_its_form_with_the_ticket_filled_in(console, data_dir):
    publish_definitions(console, [SET_PRIORITY])
    console.dispatch("select_ticket", {"ticket_id": "T-1004"}, "ui")
    shown(console, "T-1004", 1)
    console.js("document.getElementById('ticket-tools-button').click(); true")
    console.qtbot.waitUntil(lambda: console.js("!document.getElementById('ticket-tools').hidden"))
    console.js("document.querySelector('#ticket-tools button').click(); true")
    form = "#library-panel form"
    console.qtbot.waitUntil(lambda: console.js(f"Boolean(document.querySelector('{form}'))"))
    assert console.js(f"document.querySelector('{form} [name=ticket_id]').value") == "T-1004"
    console.js(
        f"document.querySelector('{form} [name=priority]').value = 'urgent';"
        f" document.querySelector('{form} button').click(); true"
    )
    console.qtbot.waitUntil(lambda: stored_ticket(data_dir, "T-1004")["priority"] == "urgent")


def test_with_no_tool_that_fits_the_ticket_it_says_so_in_words(console):
    console.dispatch("select_ticket", {"ticket_id": "T-1002"}, "ui")
    shown(console, "T-1002", 0)
    console.js("document.getElementById('ticket-tools-button').click(); true")
    console.qtbot.waitUntil(
        lambda: (
            console.js("document.getElementById('toast-text').textContent")
            == "None of your tools works on one ticket yet. Press Teach, do the routine once, then "
            "Stop teaching."
        )
    )
    assert console.js("document.getElementById('ticket-tools').hidden") is True
