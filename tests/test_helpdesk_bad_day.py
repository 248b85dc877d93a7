"""The helpdesk on a bad day, against a real Request Tracker behind a proxy that fails on
purpose (tests/fault_proxy.py): an answer that is not RT's (a login page, an empty body) is the
helpdesk being unwell, not an answer, and the sender waits with a growing pause instead of
asking again at once; the status line says which trouble it is (cannot be reached, asked to
wait, a problem of its own, a page that is not its own, the sign-in refused) and clears when
it is over; and a change made, or Refresh, once RT answers again sends what waited at once."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest
from fault_proxy import FaultProxy, Mode
from helpdesk_helpers import make_desk, needs_rt
from test_helpdesk_in_app import rt_priority
from waiting import HANG_S

from understudy_desktop.helpdesk import outbox as outbox_module

pytestmark = [pytest.mark.slow, needs_rt]


@pytest.fixture
def proxied(console, qtbot, rt_server):
    """A console connected to a real RT through the fault proxy (passing, to begin with)."""
    parts = urlsplit(rt_server.web_url)
    proxy = FaultProxy(f"{parts.scheme}://{parts.netloc}")
    desk = make_desk(rt_server, tickets=3)
    dialog = console.window.helpdesk_menu.show_connect()
    dialog.kind.setCurrentIndex(dialog.kind.findData("rt"))
    dialog.address.setText(proxy.url + parts.path)
    dialog.queue.setText(desk.queue)
    dialog.secret.setText(rt_server.token)
    dialog.connect_button.click()
    qtbot.waitUntil(lambda: dialog.result_state is not None)
    first = f"RT-{desk.ids[0]}"
    qtbot.waitUntil(lambda: console.js(f"!!document.getElementById('row-{first}')"))
    yield proxy, desk
    proxy.close()


def status_line(console) -> str:
    return console.window.helpdesk_menu.notice.text()


def back_with_a_long_pause(console, proxy) -> None:
    """RT answers again while the sender's pause lasts far past the hang deadline: what is
    sent after this was woken, not sent when its pause ran out, however slow the machine."""
    sender = console.session.helpdesk._sender
    with outbox_module._ONE_AT_A_TIME:  # not inside a request, whose failure sets the pause
        if sender.offline_since is not None:  # (a wake ends the pause only then)
            sender._paused_until = time.time() + 10 * HANG_S
        proxy.mode = Mode()


def change(console, desk, index: int, priority: str) -> None:
    ticket = f"RT-{desk.ids[index]}"
    done = console.dispatch("set_ticket_priority", {"ticket_id": ticket, "priority": priority})
    assert done["ok"], done


# Whether to watch the sender for 10 s: every kind of trouble goes through the same growing
# pause (helpdesk/outbox.py `_retry`), so three kinds are watched (a bad page, a pause the
# helpdesk asks for, the network gone) and the others are held to their words and to catching
# up, which needs no waiting (the suite's time is shared by every test).
WATCHED, SAID = True, False


@pytest.mark.parametrize(
    ("mode", "words", "watched"),
    [
        (Mode("html"), "answers with a page that is not its own since", WATCHED),
        (Mode("empty"), "answers with a page that is not its own since", SAID),
        (Mode("status", 500), "has a problem of its own since", SAID),
        (Mode("status", 503), "asked to wait, since", SAID),
        (Mode("status", 429, retry_after="3"), "asked to wait, since", WATCHED),
        (Mode("status", 401), "no longer accepts the sign-in: connect again", SAID),
        (Mode("reset"), "offline since", WATCHED),
    ],
)
def test_a_bad_answer_waits_says_which_trouble_and_catches_up(
    console, qtbot, proxied, mode, words, watched
):
    proxy, desk = proxied
    proxy.mode = mode
    began = time.monotonic()
    change(console, desk, 0, "high")
    qtbot.waitUntil(
        lambda: (
            status_line(console).startswith("1 change waiting · ") and words in status_line(console)
        ),
    )
    if watched:
        # Time passing is the point: what the sender does over 10 s of a helpdesk that stays
        # unwell (a slower machine asks less often, never more).
        qtbot.wait(10_000)
        asked = proxy.asked_since(began)
        # Growing pauses (1, 2, 5 s… spread a little), the syncs' own tries every 20 s: a
        # handful, where a sender that asks again at once makes hundreds.
        assert asked <= 12, f"{asked} requests in 10 s"
    assert rt_priority(desk, 0) != "100"
    # RT answers again: a new change (here, Refresh) sends what waited at once.
    back_with_a_long_pause(console, proxy)
    console.window.helpdesk_menu.refresh_action.trigger()
    qtbot.waitUntil(lambda: rt_priority(desk, 0) == "100")  # not left to wait out the pause
    qtbot.waitUntil(lambda: status_line(console) == "All changes are in Request Tracker")


@pytest.mark.parametrize("wake", ["a new change", "Refresh"])
def test_the_sender_wakes_at_once_when_the_helpdesk_answers_again(console, qtbot, proxied, wake):
    """After 20 s away, the sender's pause has grown to about half a minute: a new change, or
    Refresh, sends what waited within seconds instead."""
    proxy, desk = proxied
    proxy.mode = Mode("reset")
    change(console, desk, 0, "high")
    qtbot.waitUntil(lambda: "offline since" in status_line(console))
    qtbot.wait(20_000)  # time passing is the point: the pause grows meanwhile
    back_with_a_long_pause(console, proxy)
    if wake == "Refresh":
        console.window.helpdesk_menu.refresh_action.trigger()
    else:
        change(console, desk, 1, "high")
    qtbot.waitUntil(lambda: rt_priority(desk, 0) == "100")  # not left to wait out the pause


def test_a_look_that_finds_nothing_new_draws_nothing(console, qtbot, proxied):
    """Where nothing a person could see changed, neither the status line nor the page is
    given anything to draw again (each redraw cost the window a repaint per agent change)."""
    _proxy, desk = proxied
    link = console.session.helpdesk
    qtbot.waitUntil(lambda: status_line(console) == "All changes are in Request Tracker")
    drawn: list[str] = []
    link.standing_changed.connect(drawn.append)
    sent_to_page: list[object] = []
    monkeypatched = link._port.helpdesk
    link._port.helpdesk = lambda request: (sent_to_page.append(request), monkeypatched(request))
    for _ in range(3):
        link._publish()
    assert drawn == [] and sent_to_page == []
    change(console, desk, 0, "high")
    qtbot.waitUntil(lambda: rt_priority(desk, 0) == "100")
    qtbot.waitUntil(lambda: status_line(console) == "All changes are in Request Tracker")
    link._publish()
    assert drawn.count("All changes are in Request Tracker") <= 1
    link._port.helpdesk = monkeypatched


def test_an_account_refused_names_the_queue_and_clears_when_allowed_again(console, qtbot, proxied):
    """A 403 is neither the network nor the sign-in: the status line says this account may
    not work in the queue (named), the change says it was refused there, and the line clears
    once RT lets it in again."""
    from test_helpdesk_in_app import detail_line

    from understudy_desktop.text import FSI, PDI

    proxy, desk = proxied
    proxy.mode = Mode("status", 403)
    change(console, desk, 0, "high")
    console.window.helpdesk_menu.refresh_action.trigger()
    place = f"in the queue “{FSI}{desk.queue}{PDI}”"
    qtbot.waitUntil(
        lambda: (
            f"does not let this account work {place}: ask its administrator" in status_line(console)
        ),
    )
    assert "1 change refused" in status_line(console)
    said = detail_line(console, f"RT-{desk.ids[0]}")
    assert f"does not let this account do that in the queue “{desk.queue}”" in said
    assert "sign-in" not in status_line(console) and "offline" not in status_line(console)
    proxy.mode = Mode()
    console.window.helpdesk_menu.refresh_action.trigger()
    qtbot.waitUntil(lambda: "does not let" not in status_line(console))
    assert status_line(console) == "1 change refused"
    assert rt_priority(desk, 0) != "100", "a refused change is not sent behind the person's back"


def test_a_sync_told_to_wait_waits_that_long_and_goes_on_from_its_cursor(console, qtbot, proxied):
    """A 429 with Retry-After on a later sync: the poll does not ask again before then (here
    polling every second, Retry-After 6 s), and the next sync brings in what changed in RT
    meanwhile, from where the last one stopped."""
    proxy, desk = proxied
    link = console.window.helpdesk_menu.link
    link._timer.setInterval(1000)
    proxy.mode = Mode("status", 429, retry_after="6")
    console.window.helpdesk_menu.refresh_action.trigger()
    qtbot.waitUntil(lambda: "asked to wait" in status_line(console))
    told = time.monotonic()
    asked = proxy.asked_since(told)
    desk.rt.rest("PUT", f"ticket/{desk.ids[2]}", {"Priority": 100})
    qtbot.wait(4000)  # time passing is the point: nothing is asked while it does
    assert proxy.asked_since(told) == asked, "asked again before the helpdesk's Retry-After"
    proxy.mode = Mode()
    third = f"RT-{desk.ids[2]}"
    qtbot.waitUntil(
        lambda: (
            console.dispatch("get_ticket", {"ticket_id": third})["result"]["priority"] == "high"
        ),
    )
    # Measured from the refused request itself (the status line says so up to a second
    # later): the next request came no sooner than the helpdesk asked.
    refused_at = max(when for when, kind, _path in proxy.requests if kind == "status")
    next_at = min(when for when, _kind, _path in proxy.requests if when > refused_at)
    assert next_at - refused_at >= 5.5, next_at - refused_at
    qtbot.waitUntil(lambda: status_line(console) == "All changes are in Request Tracker")
