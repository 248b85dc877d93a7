"""Every control has an accessible name, and the console works from the keyboard alone."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

UNNAMED_CONTROLS = """(() => {
  const name = (el) => {
    if (el.getAttribute('aria-label')) return el.getAttribute('aria-label');
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      return by.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
    }
    if (el.labels && el.labels.length) return [...el.labels].map((l) => l.textContent).join(' ');
    if (el.tagName === 'BUTTON') return el.textContent;
    return '';
  };
  const controls = 'button, select, input, textarea, [role=grid], [role=row]';
  return [...document.querySelectorAll(controls)]
    .filter((el) => !name(el).trim())
    .map((el) => el.outerHTML.slice(0, 80));
})()"""


def test_every_control_has_an_accessible_name(console):
    console.dispatch("select_ticket", {"ticket_id": "T-1006"})
    console.qtbot.waitUntil(lambda: console.js("!document.getElementById('detail-card').hidden"))
    assert console.value(UNNAMED_CONTROLS) == []


def test_the_console_works_from_the_keyboard_alone(console):
    keys = console.window.view.focusProxy()
    console.window.view.setFocus()
    # Keys typed before the page has focus are dropped: wait until both Qt and the page agree.
    console.qtbot.waitUntil(lambda: keys.hasFocus() and console.js("document.hasFocus()"))

    def press(*seq):
        for k in seq:
            QTest.keyClick(keys, k)

    press(Qt.Key.Key_J, Qt.Key.Key_J)
    console.qtbot.waitUntil(lambda: console.api_json("summary")["selected"] == "T-1002")
    press(Qt.Key.Key_A)
    console.qtbot.waitUntil(lambda: console.js("document.activeElement.id") == "assignee-select")
    press(Qt.Key.Key_E)  # type-ahead to "Elena Vasquez"
    console.qtbot.waitUntil(
        lambda: (
            console.dispatch("get_ticket", {"ticket_id": "T-1002"})["result"]["assignee"] == "elena"
        )
    )
    press(Qt.Key.Key_Escape, Qt.Key.Key_T)
    console.qtbot.waitUntil(lambda: console.js("document.activeElement.id") == "tag-input")
    QTest.keyClicks(keys, "vip")
    press(Qt.Key.Key_Return)
    console.qtbot.waitUntil(
        lambda: "vip" in console.dispatch("get_ticket", {"ticket_id": "T-1002"})["result"]["tags"]
    )
    press(Qt.Key.Key_Escape, Qt.Key.Key_Slash)
    console.qtbot.waitUntil(lambda: console.js("document.activeElement.id") == "filter-text")
    QTest.keyClicks(keys, "bank feed")
    press(Qt.Key.Key_Return)
    console.qtbot.waitUntil(lambda: console.api_json("log")[-1]["id"] == "filter_tickets")
    assert console.api_json("log")[-1]["payload"] == {"text": "bank feed"}
    sources = {e["source"] for e in console.api_json("log") if e["id"] != "get_ticket"}
    assert sources == {"ui"}


def test_rows_are_listed_to_tree_readers_but_focus_stays_on_the_list(console):
    """Rows are focusable (tabindex -1, so a default accessibility snapshot that keeps only
    focusable descendants of a control lists them) but never keep focus: a clicked row hands it
    to the list, without a focus ring, and j then moves exactly one row."""
    keys = console.window.view.focusProxy()
    console.window.view.setFocus()
    console.qtbot.waitUntil(lambda: keys.hasFocus() and console.js("document.hasFocus()"))
    assert console.value(
        "[...document.querySelectorAll('#queue-list .row')].every((r) => r.tabIndex === -1)"
    )
    x, y = console.value(
        "(() => { const r = document.getElementById('row-T-1003').getBoundingClientRect();"
        " return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]; })()"
    )
    QTest.mouseClick(keys, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(x, y))
    console.qtbot.waitUntil(lambda: console.api_json("summary")["selected"] == "T-1003")
    console.qtbot.waitUntil(lambda: console.js("document.activeElement.id") == "queue-list")
    assert not console.js("document.getElementById('queue-list').matches(':focus-visible')")
    QTest.keyClick(keys, Qt.Key.Key_J)
    console.qtbot.waitUntil(lambda: console.api_json("summary")["selected"] != "T-1003")
    assert console.api_json("summary")["selected"] == "T-1004"
    assert console.js("document.activeElement.id") == "queue-list"
    QTest.keyClick(keys, Qt.Key.Key_Down)
    console.qtbot.waitUntil(lambda: console.api_json("summary")["selected"] == "T-1005")
    QTest.keyClick(keys, Qt.Key.Key_Return)
    console.qtbot.waitUntil(lambda: console.js("document.activeElement.id") == "assignee-select")
