"""A reply the person is typing is theirs: an agent's run that would fill it leaves it alone,
is told so, does the rest of its steps, and the person sees a notice. Typed with real key
presses in the real console; the agent's call goes through the shell's one call path."""

from __future__ import annotations

from typing import Any

from agent_helpers import definition, publish_definitions, step, stored_ticket, ticket_param
from PySide6.QtTest import QTest

DRAFT_AND_TAG = definition(
    "draft_and_tag",
    "Write a reply on a ticket and tag it for follow-up.",
    [
        step("set_reply_draft", ticket_id=("param", "ticket_id"), text=("param", "text")),
        step("add_ticket_tag", ticket_id=("param", "ticket_id"), tag="follow-up"),
    ],
    {"ticket_id": ticket_param(), "text": {"type": "string", "description": "The reply."}},
)


def call(console, arguments: dict[str, Any]) -> dict[str, Any]:
    return console.wait_for(
        lambda done: console.session.calls.call("draft_and_tag", arguments, "an agent", done)
    )


def type_reply(console, ticket: str, words: str) -> None:
    console.dispatch("select_ticket", {"ticket_id": ticket}, "ui")
    console.qtbot.waitUntil(
        lambda: console.js("document.getElementById('d-id').textContent") == ticket
    )
    # The window has the focus back (an approval dialog had it), as after the person's click.
    console.window.activateWindow()
    console.window.view.setFocus()
    console.qtbot.waitUntil(lambda: console.js("document.hasFocus()") is True)
    console.js("document.getElementById('reply-draft').focus(); true")
    QTest.keyClicks(console.window.view.focusProxy(), words)
    console.qtbot.waitUntil(
        lambda: console.js("document.getElementById('reply-draft').value") == words
    )


def test_an_agents_reply_leaves_the_one_being_typed_alone(console, data_dir, monkeypatch):
    from understudy_desktop.model import service

    publish_definitions(console, [DRAFT_AND_TAG])
    model = console.session.model
    # Typing marks the reply as the person's; leaving the box ends that.
    type_reply(console, "T-1006", "Just a moment")
    console.qtbot.waitUntil(lambda: model.reply_typed() == "T-1006")
    console.js("document.getElementById('reply-draft').blur(); true")
    console.qtbot.waitUntil(lambda: model.reply_typed() is None)
    type_reply(console, "T-1003", "Hello, I am looking")
    console.qtbot.waitUntil(lambda: model.reply_typed() == "T-1003")
    answer = call(console, {"ticket_id": "T-1003", "text": "Dear customer, refund done."})
    assert answer["ok"] is True
    assert answer["reply_left_alone"] == ["T-1003"]
    assert answer["note"].startswith("The reply on T-1003 was left as it is, because the person")
    console.flush()
    stored = stored_ticket(data_dir, "T-1003")
    assert stored["reply_draft"] != "Dear customer, refund done."
    assert "follow-up" in stored["tags"]  # the rest of the run was done
    assert console.js("document.getElementById('reply-draft').value") == "Hello, I am looking"
    assert console.window.statusBar().currentMessage() == (
        "“Draft and tag” did not change the reply you are typing on T-1003: your words were kept."
    )
    # Another ticket's reply is written as ever.
    other = call(console, {"ticket_id": "T-1004", "text": "Thanks!"})
    assert "reply_left_alone" not in other
    assert stored_ticket(data_dir, "T-1004")["reply_draft"] == "Thanks!"
    # Once the person has stopped typing a while, the agent's reply goes in.
    monkeypatch.setattr(service, "TYPING_HOLD_S", 0.0)
    again = call(console, {"ticket_id": "T-1003", "text": "Dear customer, refund done."})
    assert "reply_left_alone" not in again
    assert stored_ticket(data_dir, "T-1003")["reply_draft"] == "Dear customer, refund done."


def test_a_typing_notice_expires_on_its_own(console, monkeypatch):
    """A page that says "typing" once and never again does not hold the reply for ever."""
    from understudy_desktop.model import service

    model = console.session.model
    model.person_typing("T-1005")
    assert model.reply_typed() == "T-1005"
    monkeypatch.setattr(service, "TYPING_HOLD_S", 0.0)
    console.qtbot.waitUntil(lambda: model.reply_typed() is None)
