"""Connecting again never throws away a change waiting to be sent, against a real Request
Tracker. RT stops accepting the sign-in (a revoked token); the person goes on working, then
does what the app tells them (connect again with a new key): the queue is not read anew, the
waiting changes are kept and reach RT at once. Another helpdesk or queue would leave them
unsent: the person is asked first, by a button that names how many, and Keep changes
nothing; Disconnect asks the same way."""

from __future__ import annotations

import pytest
from helpdesk_helpers import make_desk, needs_rt
from PySide6.QtCore import QTimer
from test_helpdesk_in_app import connect, connected, rt_priority
from test_plain_words import internals, widget_text

pytestmark = [pytest.mark.slow, needs_rt]


def refused_sign_in(console, qtbot, desk) -> tuple[str, str]:
    """Connected, then RT refuses the key; two changes are made meanwhile, and wait."""
    connected(console, qtbot, desk)
    link = console.session.helpdesk
    link._start(link.settings, "1-99-revoked")  # what RT says to a revoked token: 401
    first, second = f"RT-{desk.ids[0]}", f"RT-{desk.ids[1]}"
    console.dispatch("set_ticket_priority", {"ticket_id": first, "priority": "high"})
    console.dispatch("set_ticket_status", {"ticket_id": second, "status": "pending"})
    notice = console.window.helpdesk_menu.notice
    qtbot.waitUntil(lambda: notice.text().startswith("2 changes waiting"))
    assert link.waiting() == 2
    assert rt_priority(desk, 0) != "100"
    return first, second


def answer_when_asked(qtbot, holder, button_text: str, seen: list[str]) -> None:
    """Press `button_text` in the question the app asks (a modal box it keeps in `holder`),
    if one appears within 30 s; what it said goes into `seen`."""
    tries = iter(range(600))

    def press() -> None:
        box = holder.asking
        if box is None or not box.isVisible():
            if next(tries, None) is not None:
                QTimer.singleShot(50, press)
            return
        seen.append(widget_text(box))
        next(b for b in box.buttons() if b.text() == button_text).click()

    QTimer.singleShot(50, press)


def test_connecting_again_with_a_new_key_keeps_and_sends_the_waiting_changes(
    console, qtbot, rt_server
):
    desk = make_desk(rt_server, tickets=3)
    refused_sign_in(console, qtbot, desk)
    link = console.session.helpdesk
    rows_before = console.js("document.querySelectorAll('.row').length")
    dialog = connect(console, qtbot, desk)  # the same RT and queue, with a key it accepts
    asked: list[str] = []
    answer_when_asked(qtbot, dialog, "Keep", asked)
    dialog.connect_button.click()
    qtbot.waitUntil(lambda: dialog.signed_in_again or bool(asked))
    assert asked == [], "the same helpdesk and queue is a new sign-in: nothing to ask"
    assert dialog.result_state is None, "the queue was not read anew"
    # Sent at once, not after the refused key's back-off.
    qtbot.waitUntil(lambda: rt_priority(desk, 0) == "100")
    qtbot.waitUntil(lambda: desk.ticket(desk.ids[1])["Status"] == "stalled")
    notice = console.window.helpdesk_menu.notice
    qtbot.waitUntil(lambda: notice.text() == "All changes are in Request Tracker")
    assert link.waiting() == 0
    assert console.js("document.querySelectorAll('.row').length") == rows_before


def to_another_queue(console, qtbot, rt_server, answer: str):
    """Waiting changes, then Connect to another queue of the same RT, answered `answer`."""
    desk = make_desk(rt_server, tickets=2)
    refused_sign_in(console, qtbot, desk)
    other = make_desk(rt_server, tickets=1)
    dialog = connect(console, qtbot, other)
    seen: list[str] = []
    answer_when_asked(qtbot, dialog, answer, seen)
    dialog.connect_button.click()
    qtbot.waitUntil(lambda: bool(seen))
    return desk, other, dialog, seen


def test_another_queue_asks_first_and_keep_changes_nothing(console, qtbot, rt_server):
    desk, other, dialog, seen = to_another_queue(console, qtbot, rt_server, "Keep")
    link = console.session.helpdesk
    assert "2 waiting changes made here have not reached Request Tracker yet" in seen[0]
    assert f"the {other.queue} queue of Request Tracker" in seen[0]
    assert "Disconnect and discard 2 waiting changes" in seen[0]
    assert not internals(seen[0])
    assert "Nothing was changed" in dialog.said.text()
    assert link.waiting() == 2 and link.settings.queue == desk.queue
    dialog.reject()
    # Disconnect asks the same way; Cancel keeps the connection and its changes.
    menu = console.window.helpdesk_menu
    answer_when_asked(qtbot, menu, "Cancel", seen)
    menu.disconnect()
    assert "Disconnect and discard 2 waiting changes" in seen[-1]
    assert link.connected and link.waiting() == 2


def test_discarding_is_what_the_person_chose_and_nothing_else_is_lost(console, qtbot, rt_server):
    discard = "Disconnect and discard 2 waiting changes"
    desk, other, dialog, _seen = to_another_queue(console, qtbot, rt_server, discard)
    link = console.session.helpdesk
    qtbot.waitUntil(lambda: dialog.result_state is not None)
    assert link.settings.queue == other.queue
    assert link.waiting() == 0
    assert rt_priority(desk, 0) != "100", "a discarded change never reaches the old queue"
    kept = console.session.db.submit(
        lambda conn: conn.execute("SELECT count(*) FROM outbox WHERE state = 'settled'").fetchone()[
            0
        ],
        keep=False,
    ).result()
    assert kept == 2, "the discarded changes stay on record"


def test_opening_a_file_while_connected_asks_and_then_ends_the_link(
    console, qtbot, rt_server, monkeypatch
):
    """A file's tickets are not the helpdesk's: opening one asks first (Stay is the default);
    once opened, nothing is sent and nothing says "In Request Tracker" any more."""
    from pathlib import Path

    from test_helpdesk_in_app import detail_line

    from understudy_desktop.shell.queue_preview import QueuePreviewDialog

    desk = make_desk(rt_server, tickets=1)
    connected(console, qtbot, desk)
    link, menu = console.session.helpdesk, console.window.helpdesk_menu
    monkeypatch.setattr(QueuePreviewDialog, "exec", lambda d: (d.open_button.click(), 1)[1])
    queue = Path(__file__).parent / "fixtures" / "queues" / "helpdesk_comma.csv"
    seen: list[str] = []
    answer_when_asked(qtbot, menu, "Stay with Request Tracker", seen)
    with qtbot.waitSignal(console.window.queue_failed):
        console.window.open_queue(queue, confirm=True)
    assert "Opening helpdesk_comma.csv ends the connection to Request Tracker" in seen[0]
    assert "the file's tickets are not Request Tracker's" in seen[0]
    assert link.connected
    answer_when_asked(qtbot, menu, "Open the file", seen)
    with qtbot.waitSignal(console.window.queue_loaded):
        console.window.open_queue(queue, confirm=True)
    assert not link.connected and not menu.notice.isVisible()
    assert "Request Tracker" not in detail_line(console, "1002")


def connect_at(console, qtbot, desk, url: str):
    dialog = connect(console, qtbot, desk)
    dialog.address.setText(url)
    asked: list[str] = []
    answer_when_asked(qtbot, dialog, "Keep", asked)
    dialog.connect_button.click()
    qtbot.waitUntil(
        lambda: (
            dialog.signed_in_again or bool(asked) or "Nothing was changed" in dialog.said.text()
        ),
    )
    return dialog, asked


def proxy_for(rt_server):
    from urllib.parse import urlsplit

    from fault_proxy import FaultProxy

    parts = urlsplit(rt_server.web_url)
    return FaultProxy(f"{parts.scheme}://{parts.netloc}"), parts.path


def test_the_same_helpdesk_at_a_new_address_keeps_and_sends_the_waiting_changes(
    console, qtbot, rt_server
):
    """RT moved (here: the same RT through another address): its tickets are found there, so
    it is the same helpdesk; nothing is asked, nothing read anew, the waiting changes go."""
    desk = make_desk(rt_server, tickets=3)
    refused_sign_in(console, qtbot, desk)
    proxy, path = proxy_for(rt_server)
    try:
        dialog, asked = connect_at(console, qtbot, desk, proxy.url + path)
        assert asked == [] and dialog.signed_in_again
        assert dialog.result_state is None, "the queue was not read anew"
        qtbot.waitUntil(lambda: rt_priority(desk, 0) == "100")
        link = console.session.helpdesk
        assert link.settings.url.startswith(proxy.url)
        assert proxy.asked_since(0) > 0, "the changes went to the new address"
        saved = console.session.db.read("SELECT settings FROM helpdesk_link")[0][0]
        assert proxy.url in saved, "a restart carries on at the new address"
    finally:
        proxy.close()


def test_another_helpdesk_at_a_new_address_is_told_apart_and_nothing_changes(
    console, qtbot, rt_server
):
    """At the new address the queue's tickets are not what they are here (here: one renamed
    in RT, so the sample does not match): it says so, and the link, the waiting changes and
    the sign-in stay as they were."""
    desk = make_desk(rt_server, tickets=3)
    refused_sign_in(console, qtbot, desk)
    link = console.session.helpdesk
    before = link.settings
    rt_server.rest("PUT", f"ticket/{desk.ids[0]}", {"Subject": "Someone else's ticket"})
    proxy, path = proxy_for(rt_server)
    try:
        dialog, asked = connect_at(console, qtbot, desk, proxy.url + path)
        said = dialog.said.text()
        assert "does not hold this queue's tickets" in said and "Nothing was changed" in said
        assert not internals(said)
        assert asked == [] and not dialog.signed_in_again
        assert link.settings == before
        assert link.waiting() == 2
        dialog.reject()
    finally:
        proxy.close()
