"""The Qt shell: flags, data dirs, navigation policy, console logging, menus, shutdown."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest
from js_text import js_call, js_literal
from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QPoint, Qt, qVersion
from PySide6.QtGui import QDesktopServices
from PySide6.QtTest import QTest
from PySide6.QtWebEngineCore import qWebEngineChromiumVersion
from shiboken6 import isValid

from understudy_desktop.chromium_flags import apply_chromium_flags, chromium_switches
from understudy_desktop.cli import build_parser
from understudy_desktop.paths import resolve_data_paths
from understudy_desktop.shell.about import about_facts


def test_webmcp_is_always_requested_and_sandbox_only_off_for_root():
    assert chromium_switches(as_root=False) == ["--enable-features=WebMCP"]
    assert chromium_switches(as_root=True) == ["--enable-features=WebMCP", "--no-sandbox"]


def test_flags_merge_with_what_the_user_set():
    env = {"QTWEBENGINE_CHROMIUM_FLAGS": "--force-dark-mode"}
    merged = apply_chromium_flags(env)
    assert merged[0] == "--force-dark-mode"
    assert "--enable-features=WebMCP" in env["QTWEBENGINE_CHROMIUM_FLAGS"].split()
    # Applying twice does not duplicate anything.
    apply_chromium_flags(env)
    assert env["QTWEBENGINE_CHROMIUM_FLAGS"].split().count("--enable-features=WebMCP") == 1


def test_data_dir_comes_from_flag_then_env_then_platform(tmp_path, monkeypatch):
    monkeypatch.setenv("UNDERSTUDY_DATA_DIR", str(tmp_path / "env"))
    assert resolve_data_paths(str(tmp_path / "flag")).root == tmp_path / "flag"
    assert resolve_data_paths(None).root == tmp_path / "env"
    monkeypatch.delenv("UNDERSTUDY_DATA_DIR")
    assert "nderstudy" in str(resolve_data_paths(None).root)


def test_cli_parses_data_dir_and_file():
    args = build_parser().parse_args(["--data-dir", "/x", "queue.csv"])
    assert args.data_dir == "/x"
    assert args.file == Path("queue.csv")


def test_js_literal_cannot_break_out_of_a_script():
    hostile = "</script><script>alert(1)</script>\u2028'\"`${x}"
    text = js_literal(hostile)
    assert "<" not in text and ">" not in text and "\u2028" not in text
    assert js_call("window.a.b", hostile, 1).startswith("window.a.b(")
    with pytest.raises(ValueError):
        js_call("alert(1);window.x", 1)


def test_js_literal_round_trips_through_the_page(console):
    hostile = "</script>\u2028\u2029 ' \" ` ${1+1} \\ \x00 Zoë 💡"
    assert console.js(js_literal(hostile)) == hostile


def test_profile_lives_in_the_data_dir(console, data_dir):
    profile = console.page.profile()
    assert not profile.isOffTheRecord()
    assert Path(profile.persistentStoragePath()) == data_dir / "browser-profile"


def test_navigation_away_from_the_app_is_refused(console, monkeypatch):
    # The system browser cannot run here; nothing may reach it from this test either way.
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: True)
    refused: list[str] = []
    console.page.navigation_refused.connect(lambda url: refused.append(url.toString()))
    console.js("location.href = 'https://example.com/'; true")
    console.qtbot.waitUntil(lambda: bool(refused))
    assert refused == ["https://example.com/"]
    assert console.page.url().toString() == "understudy://app/index.html"


def test_a_clicked_external_link_opens_in_the_system_browser_once_the_person_says(
    console, monkeypatch
):
    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    rect = console.js(
        "const a = document.createElement('a'); a.href = 'https://example.org/help';"
        "a.textContent = 'help'; a.id = 'help-link';"
        " a.style = 'position:fixed;left:10px;top:10px;padding:20px;z-index:99999;"
        "background:white'; document.body.append(a);"
        " (() => { const r = a.getBoundingClientRect();"
        " return `${r.x + r.width / 2} ${r.y + r.height / 2}`; })()"
    )
    # A script's click() raises no question at all; the person's own click does.
    console.js("document.getElementById('help-link').click(); true")
    console.settled()
    assert console.page.opener.box is None
    x, y = (int(float(v)) for v in rect.split())
    QTest.mouseClick(console.window.view.focusProxy(), Qt.MouseButton.LeftButton, pos=QPoint(x, y))
    console.qtbot.waitUntil(lambda: console.page.opener.box is not None)
    box = console.page.opener.box
    assert box.informativeText() == "https://example.org/help"
    assert opened == [], "nothing leaves the app before the person answers"
    box.button(box.StandardButton.Open).click()
    console.qtbot.waitUntil(lambda: bool(opened))
    assert opened == ["https://example.org/help"]
    assert console.page.url().toString() == "understudy://app/index.html"


def test_file_urls_are_never_opened(console, monkeypatch):
    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    refused: list[str] = []
    console.page.navigation_refused.connect(lambda url: refused.append(url.toString()))
    console.js(
        "const a = document.createElement('a'); a.href = 'file:///etc/passwd';"
        "document.body.append(a); a.click(); true"
    )
    console.qtbot.waitUntil(lambda: bool(refused))
    assert refused == ["file:///etc/passwd"]
    assert opened == []


@pytest.mark.js_errors_expected
def test_page_console_messages_reach_python_logging(console, js_errors):
    console.js("console.error('boom from the page'); console.warn('careful'); true")
    console.qtbot.waitUntil(lambda: len(js_errors.records) >= 2)
    levels = {r.getMessage().split(" (")[0]: r.levelno for r in js_errors.records}
    assert levels["boom from the page"] == logging.ERROR
    assert levels["careful"] == logging.WARNING


def test_menus_have_the_promised_entries(console):
    bar = console.window.menuBar()
    menus = {a.text().replace("&", ""): a.menu() for a in bar.actions()}
    assert list(menus) == ["File", "Edit", "View", "Help"]

    def items(menu: str) -> list[str]:
        return [a.text().replace("&", "").split("\t")[0] for a in menus[menu].actions() if a.text()]

    assert items("File") == [
        "Open queue…",
        "Save queue as…",
        "Connect to helpdesk…",
        "Refresh from helpdesk",
        "Changes to choose…",
        "Tools from helpdesk macros…",
        "Disconnect from helpdesk",
        "Import pack…",
        "Export pack…",
        "Share with team…",
        "Quit",
    ]
    assert items("Edit") == [
        "Undo your last change",
        "Redo",
        "Teach a routine",
        "Your name on shared packs…",
        "Settings…",
    ]
    assert "Team library" in items("View")
    assert console.window.team_menu.team_action.shortcut().toString() == "Ctrl+Shift+M"
    assert items("Help")[:3] == ["Connect an agent…", "Keyboard shortcuts", "Show the log folder"]
    assert console.window.export_pack_action.shortcut().toString() == "Ctrl+Shift+E"
    helpdesk = console.window.helpdesk_menu
    assert helpdesk.connect_action.shortcut().toString() == "Ctrl+Shift+K"
    # Not connected: only Connect is offered.
    assert not helpdesk.refresh_action.isEnabled() and not helpdesk.disconnect_action.isEnabled()
    # View › Library works: it opens the library in the console.
    library = console.window.library_action
    assert "Library" in items("View") and library.isEnabled()
    assert console.js("document.getElementById('library-panel').hidden") is True
    library.trigger()
    console.qtbot.waitUntil(
        lambda: console.js("document.getElementById('library-panel').hidden") is False
    )
    assert "No tools yet" in console.js("document.getElementById('library-panel').textContent")


def test_about_names_versions_and_webmcp_mode(console):
    # The page reports its mode in the status summary that follows "ready": wait for that
    # answer rather than for a guess at how long it takes (it was late on a busy machine).
    console.qtbot.waitUntil(lambda: console.window.webmcp_state != "degraded")
    text = about_facts(console.window.webmcp_state).as_text()
    assert f"Qt {qVersion()} (PySide6 {pyside_version})" in text
    assert f"Chromium {qWebEngineChromiumVersion()}" in text
    assert "Chromium 140." in text  # the engine DESIGN.md measured: no native WebMCP
    assert "Agent tools in the page: provided by Understudy" in text
    assert "WebMCP" not in text  # a person never meets the standard's name


def test_status_bar_shows_queue_in_plain_words(console):
    console.qtbot.waitUntil(lambda: "40 tickets" in console.window._status.text())
    assert console.window._status.text() == "40 tickets · Demo queue"


def test_shutdown_deletes_view_before_profile_without_warnings(console_factory, data_dir):
    # qt_log_level_fail=WARNING in pyproject makes any Qt warning here fail the test.
    c = console_factory(data_dir)
    view, profile = c.window.view, c.page.profile()
    c.session.close()
    assert not isValid(view)
    assert not isValid(profile)


def test_every_shortcut_does_one_thing_and_is_in_the_shortcut_list(console):
    """A window shortcut the page also handles would do two things at once (the team library
    once took the page's Ctrl+Shift+L); each is in the ? list, and no key is listed twice."""
    from PySide6.QtGui import QAction, QKeySequence

    bound: list[str] = []
    for action in console.window.findChildren(QAction):
        bound.extend(
            k.toString(QKeySequence.SequenceFormat.PortableText) for k in action.shortcuts()
        )
        hint = action.text().partition("\t")[2]  # shown beside an item the page handles
        if hint:
            bound.append(hint)
    assert len(bound) == len(set(bound)), sorted(bound)
    console.js("document.dispatchEvent(new KeyboardEvent('keydown', {key: '?'})); true")
    console.qtbot.waitUntil(lambda: console.js("!document.getElementById('shortcuts-help').hidden"))
    listed = json.loads(
        console.js(
            "JSON.stringify([...document.querySelectorAll('#shortcuts-help kbd')]"
            ".map((k) => k.textContent))"
        )
    )
    assert len(listed) == len(set(listed)), sorted(listed)
    # Every key is listed, the platform's Quit and Reload too (Ctrl+R is Reload's second key).
    own = [k for k in bound if k != "Ctrl+R"]
    assert {"Ctrl+Q", "F5", "Enter"} <= set(listed)
    assert sorted(set(own) - set(listed)) == [], (own, listed)


# "File › Open queue… (Ctrl+O)", and "Ctrl+Shift+T or View › Library)".
MENU_THEN_KEYS = r"› (?P<item>[^()*›]+?) \((?P<keys>(?:Ctrl|Shift|Alt|F[0-9])[^)]*)\)"
KEYS_THEN_MENU = r"(?P<keys>(?:Ctrl|F[0-9])[A-Za-z0-9+]*),? or \w+ › (?P<item>[^(),*›]+?)[),]"


def test_the_readme_gives_each_menu_item_the_keys_the_menu_binds(console):
    """The README once gave the team library a key it no longer had (Ctrl+Shift+L, which the
    page took): every key it names beside a menu item is the one that item has."""
    from PySide6.QtGui import QAction, QKeySequence

    keys: dict[str, set[str]] = {}
    for action in console.window.findChildren(QAction):
        item, _, hint = action.text().replace("&", "").partition("\t")
        bound = {k.toString(QKeySequence.SequenceFormat.PortableText) for k in action.shortcuts()}
        keys.setdefault(item, set()).update(bound | ({hint} if hint else set()))
    readme = " ".join((Path(__file__).parent.parent / "README.md").read_text().split())
    named = [
        (m["item"], m["keys"])
        for pattern in (MENU_THEN_KEYS, KEYS_THEN_MENU)
        for m in re.finditer(pattern, readme)
    ]
    # Guards the guard: the README's sentences are still read as menu items and keys.
    assert "Team library" in {item for item, _keys in named} and len(named) >= 10
    assert [(item, k) for item, k in named if k not in keys.get(item, set())] == []


def test_the_status_bar_and_about_say_only_the_apps_own_words(console, monkeypatch):
    """What the page answers may be a script's: a summary that claims another count and name,
    or a state word of its own, never reaches the status line or the About box."""
    from understudy_desktop.bridge.protocol import Summary

    console.qtbot.waitUntil(lambda: "40 tickets" in console.window._status.text())
    lie = Summary(
        tickets=999,
        queueName="Your session has expired. Type your helpdesk password in the reply box",
        webmcp="Your session has expired. Type your helpdesk password",
    )
    monkeypatch.setattr(console.window.port, "summary", lambda answer: answer(lie))
    console.window.refresh_status()
    assert console.window._status.text() == "40 tickets · Demo queue"
    text = about_facts(console.window.webmcp_state).as_text()
    assert "password" not in text
    assert "Agent tools in the page: not available" in text


def test_a_long_status_message_ends_in_dots_before_the_labels_on_the_right(console):
    window = console.window
    window.resize(1024, 640)
    bar = window.statusBar()
    console.qtbot.waitUntil(lambda: bar.width() <= 1024)  # laid out at the new size
    long = "“Refund for the billing lead” did not change the reply you are typing on " + ", ".join(
        f"T-{n}" for n in range(1000, 1040)
    )
    bar.showMessage(long, 5000)
    shown = bar.currentMessage()
    assert shown.endswith("…") and shown != long
    assert bar.fontMetrics().horizontalAdvance(shown) <= bar.room()
    assert bar.toolTip() == long and bar.full_message == long
    bar.showMessage("Saved.", 5000)
    assert bar.currentMessage() == "Saved." and bar.toolTip() == ""
