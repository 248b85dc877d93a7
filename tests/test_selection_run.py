"""A taught tool on the tickets the person selected (issue 35): select with real keys and
clicks, g then a number, and the shell tries the run, says in its own dialog how many tickets
it would change, and runs it on all of them as one change that Ctrl+Z puts back."""

from __future__ import annotations

import sqlite3

from agent_helpers import TEST_TOOLS, publish_definitions, stored_ticket
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from test_plain_words import internals
from test_ticket_tools import SET_PRIORITY, keys

CLOSE = TEST_TOOLS["close_ticket"]


def toast(console) -> str:
    return str(console.js("document.getElementById('toast-text').textContent"))


def selected(console) -> list[str]:
    """The rows the list marks as selected, as a screen reader is told (aria-selected)."""
    return console.value(
        "[...document.querySelectorAll('#queue-list [role=row][aria-selected=true]')]"
        ".map((r) => r.dataset.ticketId)"
    )


def dialog(console):
    gate = console.session.consent.gate
    console.qtbot.waitUntil(lambda: bool(gate.open_dialogs()))
    return gate.open_dialogs()[0]


def statuses(data_dir, ids: list[str]) -> dict[str, str]:
    return {t: stored_ticket(data_dir, t)["status"] for t in ids}


def journal_runs(data_dir) -> int:
    with sqlite3.connect(data_dir / "understudy.sqlite3") as db:
        (count,) = db.execute(
            "SELECT count(*) FROM journal WHERE command = 'run close_ticket'"
        ).fetchone()
    return int(count)


def select_three_by_keys(console) -> object:
    """The open ticket, then Shift+Down twice: three tickets selected, by keys alone."""
    console.dispatch("select_ticket", {"ticket_id": "T-1001"}, "ui")
    view = keys(console)
    QTest.keyClick(view, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    QTest.keyClick(view, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    console.qtbot.waitUntil(lambda: len(selected(console)) == 3)
    return view


def test_g_on_a_selection_previews_runs_once_and_undoes_as_one(console, data_dir):
    publish_definitions(console, [CLOSE])
    view = select_three_by_keys(console)
    chosen = selected(console)
    assert chosen == ["T-1001", "T-1002", "T-1003"]
    before = statuses(data_dir, chosen)
    assert console.js("document.getElementById('selection-count').textContent") == (
        "3 tickets selected"
    )
    QTest.keyClick(view, Qt.Key.Key_G)
    menu_open = "!document.getElementById('selection-tools').hidden"
    console.qtbot.waitUntil(lambda: console.js(menu_open))
    QTest.keyClick(view, Qt.Key.Key_1)
    box = dialog(console)
    said = box.text_shown()
    # The preview was a trial: nothing changed while the person reads it.
    assert statuses(data_dir, chosen) == before
    assert "Run “Close ticket” on 3 selected tickets?" in said
    would = [t for t in chosen if before[t] != "closed"]
    left = len(chosen) - len(would)
    assert 0 < len(would) < 3  # the demo queue has one of them closed already
    assert f"It would change {len(would)} tickets" in said
    assert ", ".join(would) in said
    assert f"Left as they are\n{left} ticket: nothing to change." in said
    assert box.approve_button.text() == f"Run on {len(would)} tickets"
    assert box.approve_button.isDefault()  # Enter runs what the person just chose
    assert internals(said) == []
    QTest.keyClick(box, Qt.Key.Key_Return)
    console.qtbot.waitUntil(lambda: set(statuses(data_dir, chosen).values()) == {"closed"})
    console.qtbot.waitUntil(lambda: toast(console) == f"Close ticket changed {len(would)} tickets.")
    assert journal_runs(data_dir) == 1  # one run, one change
    assert selected(console) == []  # done with: the selection is cleared
    assert console.js("document.getElementById('selection-bar').hidden") is True
    # Ctrl+Z puts every ticket back at once.
    view = keys(console)
    QTest.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    console.qtbot.waitUntil(lambda: statuses(data_dir, chosen) == before)


def test_cancel_in_the_dialog_changes_nothing(console, data_dir):
    publish_definitions(console, [CLOSE])
    select_three_by_keys(console)
    chosen = selected(console)
    before = statuses(data_dir, chosen)
    console.js("document.getElementById('selection-run').click(); true")
    console.js("document.querySelector('#selection-tools button').click(); true")
    dialog(console).reject_button.click()
    console.qtbot.waitUntil(lambda: "did not run" in toast(console))
    assert statuses(data_dir, chosen) == before
    assert journal_runs(data_dir) == 0
    assert selected(console) == chosen  # kept, to try another tool


def test_ctrl_and_shift_clicks_select_and_esc_clears(console):
    console.dispatch("select_ticket", {"ticket_id": "T-1002"}, "ui")
    view = keys(console)

    def click(ticket: str, modifier: Qt.KeyboardModifier) -> None:
        rect = console.value(
            f"(() => {{ const r = document.getElementById('row-{ticket}').getBoundingClientRect();"
            " return [r.left + 40, r.top + r.height / 2]; })()"
        )
        QTest.mouseClick(view, Qt.MouseButton.LeftButton, modifier, QPoint(*map(int, rect)))

    click("T-1005", Qt.KeyboardModifier.ControlModifier)
    console.qtbot.waitUntil(lambda: selected(console) == ["T-1005"])
    click("T-1004", Qt.KeyboardModifier.ShiftModifier)  # from the open ticket to this one
    console.qtbot.waitUntil(lambda: selected(console) == ["T-1002", "T-1003", "T-1004", "T-1005"])
    click("T-1003", Qt.KeyboardModifier.ControlModifier)  # a second Ctrl+click takes it out
    console.qtbot.waitUntil(lambda: selected(console) == ["T-1002", "T-1004", "T-1005"])
    # The open ticket stays the one it was: selecting is not opening.
    assert console.value("document.querySelector('[aria-current=true]').dataset.ticketId") == (
        "T-1002"
    )
    QTest.keyClick(view, Qt.Key.Key_Escape)
    console.qtbot.waitUntil(lambda: selected(console) == [])


def test_a_tool_that_asks_more_asks_once_for_every_selected_ticket(console, data_dir):
    publish_definitions(console, [SET_PRIORITY])
    view = select_three_by_keys(console)
    chosen = selected(console)
    QTest.keyClick(view, Qt.Key.Key_G)
    QTest.keyClick(view, Qt.Key.Key_1)
    form = "#library-panel form"
    console.qtbot.waitUntil(lambda: console.js(f"Boolean(document.querySelector('{form}'))"))
    # The ticket is not asked: the form says which tickets it runs on.
    assert console.js(f"document.querySelector('{form} [name=ticket_id]') === null") is True
    assert "On the 3 tickets you selected." in console.js(
        f"document.querySelector('{form}').textContent"
    )
    console.js(
        f"document.querySelector('{form} [name=priority]').value = 'urgent';"
        f" document.querySelector('{form} button').click(); true"
    )
    box = dialog(console)
    assert "Priority: Urgent" in box.text_shown()
    box.approve_button.click()
    console.qtbot.waitUntil(
        lambda: {stored_ticket(data_dir, t)["priority"] for t in chosen} == {"urgent"}
    )


def test_a_ticket_it_cannot_run_on_is_named_and_nothing_changes(console, data_dir):
    """One selected ticket is gone by the time the tool runs: the shell's trial stops on it,
    says which, and no ticket changes (no dialog to approve a run that cannot be)."""
    publish_definitions(console, [CLOSE])
    select_three_by_keys(console)
    before = statuses(data_dir, ["T-1001", "T-1002", "T-1003"])
    from understudy_desktop.shell.console_asks import ConsoleAsks

    asks = console.window.findChild(ConsoleAsks)
    answer = console.wait_for(
        lambda done: asks._run_selection("close_ticket", ["T-1001", "T-9999", "T-1003"], {}, done)
    )
    assert answer["isError"]
    assert answer["message"].startswith("On T-9999: ")
    assert "None of the 3 tickets was changed." in answer["message"]
    assert not console.session.consent.gate.open_dialogs()
    assert statuses(data_dir, ["T-1001", "T-1002", "T-1003"]) == before


def test_a_script_that_selects_and_picks_still_meets_the_dialog(console, data_dir):
    """A script in the page that selects rows and picks a tool, as clicks would: the shell
    asks the person in its own dialog, and nothing changes unless they press Run there."""
    from test_shell_authority import page_script

    publish_definitions(console, [CLOSE])
    before = statuses(data_dir, ["T-1001", "T-1002"])
    page_script(
        console,
        "for (const id of ['T-1001', 'T-1002']) document.getElementById('row-' + id)"
        ".dispatchEvent(new MouseEvent('click', {bubbles: true, ctrlKey: true}));"
        " document.getElementById('selection-run').click();"
        " document.querySelector('#selection-tools button').click();",
    )
    box = dialog(console)
    console.settled()
    assert statuses(data_dir, ["T-1001", "T-1002"]) == before
    box.reject_button.click()
    console.qtbot.waitUntil(lambda: "did not run" in toast(console))
    assert statuses(data_dir, ["T-1001", "T-1002"]) == before
    assert journal_runs(data_dir) == 0
