"""The connected queue in the running app, against a real Request Tracker: File › Connect to
helpdesk… (testing the connection, then reading the queue), a person's change reaching RT,
RT's changes reaching the page, where things stand in words (per ticket and in the status
bar), a conflict the person settles, and the sign-in kept apart from everything else."""

from __future__ import annotations

import stat

import pytest
from helpdesk_helpers import make_desk, needs_rt
from PySide6.QtWidgets import QPushButton
from test_plain_words import internals, widget_text

from understudy_desktop.helpdesk.credentials import FILE as SECRET_FILE
from understudy_desktop.shell.helpdesk_choices import ChoicesDialog
from understudy_desktop.shell.helpdesk_dialog import HelpdeskDialog

pytestmark = [pytest.mark.slow, needs_rt]


def connect(console, qtbot, desk, token=None) -> HelpdeskDialog:
    dialog = console.window.helpdesk_menu.show_connect()
    dialog.kind.setCurrentIndex(dialog.kind.findData("rt"))
    dialog.address.setText(desk.rt.web_url)
    dialog.queue.setText(desk.queue)
    dialog.secret.setText(token or desk.rt.token)
    return dialog


def connected(console, qtbot, desk) -> None:
    dialog = connect(console, qtbot, desk)
    dialog.connect_button.click()
    qtbot.waitUntil(lambda: dialog.result_state is not None)
    first = f"RT-{desk.ids[0]}"
    qtbot.waitUntil(lambda: console.js(f"!!document.getElementById('row-{first}')"))


def rt_priority(desk, index: int) -> str:
    return str(desk.ticket(desk.ids[index])["Priority"])


def detail_line(console, ticket: str) -> str:
    console.dispatch("select_ticket", {"ticket_id": ticket})
    return str(console.js("document.getElementById('d-helpdesk').innerText"))


def test_testing_the_connection_says_what_it_can_do_in_words(console, qtbot, rt_server):
    desk = make_desk(rt_server, tickets=1)
    dialog = connect(console, qtbot, desk)
    dialog.test_button.click()
    qtbot.waitUntil(lambda: dialog.said.text().startswith("Connected"))
    said = dialog.said.text()
    assert f"queue {desk.queue}" in said
    assert "change their status, priority, who it is assigned to and tags" in said
    assert "3 people can be given tickets" in said  # Alice, Bob and RT's root
    assert not internals(widget_text(dialog))
    dialog.secret.setText("1-99-not-a-token")
    dialog.test_button.click()
    qtbot.waitUntil(lambda: "sign-in" in dialog.said.text())
    assert "not-a-token" not in dialog.said.text()
    dialog.address.setText("http://rt.example.com")
    dialog.test_button.click()
    assert "https://" in dialog.said.text(), "a sign-in never crosses the network in the clear"
    dialog.reject()


def test_a_connected_queue_sends_changes_and_shows_rts(console, qtbot, rt_server, data_dir):
    desk = make_desk(rt_server, tickets=3)
    connected(console, qtbot, desk)
    first, second = f"RT-{desk.ids[0]}", f"RT-{desk.ids[1]}"
    assert console.js("document.querySelectorAll('.row').length") == 3
    console.dispatch("set_ticket_priority", {"ticket_id": first, "priority": "high"})
    qtbot.waitUntil(lambda: rt_priority(desk, 0) == "100")
    notice = console.window.helpdesk_menu.notice
    qtbot.waitUntil(lambda: notice.text() == "All changes are in Request Tracker")
    assert detail_line(console, first) == "In Request Tracker"
    # A colleague assigns a ticket in RT: it shows here after a refresh.
    rt_server.rest("PUT", f"ticket/{desk.ids[1]}", {"Owner": "alice"})
    console.window.helpdesk_menu.refresh_action.trigger()
    qtbot.waitUntil(
        lambda: (
            console.dispatch("get_ticket", {"ticket_id": second})["result"]["assignee"]
            == "rt:alice"
        ),
    )
    # The sign-in is kept apart: in a file only this person can read (no keyring here),
    # never in the database or the log.
    secret_file = data_dir / SECRET_FILE
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    token = desk.rt.token.encode()
    for path in data_dir.rglob("*"):
        if path.is_file() and path != secret_file:
            assert token not in path.read_bytes(), f"the sign-in is in {path.name}"


def test_a_change_made_in_rt_meanwhile_is_the_persons_choice(console, qtbot, rt_server):
    desk = make_desk(rt_server, tickets=2)
    connected(console, qtbot, desk)
    link = console.session.helpdesk
    first = f"RT-{desk.ids[0]}"
    rt_server.rest("PUT", f"ticket/{desk.ids[0]}", {"Priority": 50})  # not synced yet
    console.dispatch("set_ticket_priority", {"ticket_id": first, "priority": "urgent"})
    notice = console.window.helpdesk_menu.notice
    qtbot.waitUntil(lambda: notice.text() == "1 change to choose")
    assert rt_priority(desk, 0) == "50", "RT's change was not overwritten"
    assert detail_line(console, first) == "Changed in Request Tracker too: choose which to keep"
    dialog = console.window.helpdesk_menu.show_choices()
    assert isinstance(dialog, ChoicesDialog)
    words = widget_text(dialog)
    assert "you set the priority to Urgent" in words
    assert "in Request Tracker it was set to Normal" in words
    assert not internals(words)
    keep = next(b for b in dialog.findChildren(QPushButton) if b.text() == "Keep mine")
    keep.click()
    qtbot.waitUntil(lambda: rt_priority(desk, 0) == "100")
    qtbot.waitUntil(lambda: notice.text() == "All changes are in Request Tracker")
    assert link.choices() == []
    dialog.close()


def test_the_connection_carries_on_after_a_restart(console_factory, qtbot, rt_server, tmp_path):
    desk = make_desk(rt_server, tickets=2)
    root = tmp_path / "data"
    console = console_factory(root)
    connected(console, qtbot, desk)
    console.session.close()
    again = console_factory(root)
    link = again.session.helpdesk
    assert link.connected and link.title == "Request Tracker"
    second = f"RT-{desk.ids[1]}"
    again.dispatch("set_ticket_status", {"ticket_id": second, "status": "pending"})
    qtbot.waitUntil(lambda: desk.ticket(desk.ids[1])["Status"] == "stalled")
    # Opening another queue ends the connection: nothing of it is sent to RT.
    link.disconnect_queue()
    assert not link.connected
    again.dispatch("set_ticket_status", {"ticket_id": second, "status": "open"})
    again.drawn()
    assert desk.ticket(desk.ids[1])["Status"] == "stalled"


def test_a_runs_result_says_whether_its_changes_reached_rt(console, qtbot, rt_server):
    from agent_helpers import definition, publish_definitions, step

    desk = make_desk(rt_server, tickets=1)
    connected(console, qtbot, desk)
    ticket = f"RT-{desk.ids[0]}"
    close = definition(
        "resolve_ticket",
        "Mark one ticket solved.",
        [step("set_ticket_status", ticket_id=("param", "ticket_id"), status="solved")],
        {"ticket_id": {"type": "string", "description": "The ticket, for example RT-12."}},
    )
    publish_definitions(console, [close])
    answer = console.run_tool("resolve_ticket", {"ticket_id": ticket}, by="agent")
    assert not answer.get("isError"), answer
    words = answer["helpdesk"]
    assert words.startswith("The changes are saved here and on their way to Request Tracker")
    qtbot.waitUntil(lambda: desk.ticket(desk.ids[0])["Status"] == "resolved")
    qtbot.waitUntil(
        lambda: (
            console.session.helpdesk.run_note([ticket]) == "The changes are in Request Tracker."
        ),
    )


def test_a_helpdesk_without_reply_templates_keeps_the_consoles(console, qtbot, rt_server):
    desk = make_desk(rt_server, tickets=1)
    connected(console, qtbot, desk)
    names = console.value(
        "[...document.getElementById('template-select').options].map(o => o.text)"
    )
    assert "Refund approved" in names
