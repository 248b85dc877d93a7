"""Macros as draft tools: each action the catalogue has a command for is a step, anything
else is said in words and left out (never guessed); and in the app, a Zendesk macro (from
the local Zendesk fake) made into a tool, approved, run, and its changes sent to Zendesk."""

from __future__ import annotations

import pytest
from agent_helpers import approve_in_dialog
from helpdesk_fakes import FakeZendesk
from test_plain_words import internals, widget_text

from understudy_desktop.catalogue import current_catalogue
from understudy_desktop.definition import Definition
from understudy_desktop.helpdesk.base import RemoteTemplate
from understudy_desktop.helpdesk.connect import Settings
from understudy_desktop.helpdesk.macros import macro_tool, tool_name
from understudy_desktop.library.checks import definition_problems


def test_each_action_with_a_command_is_a_step_and_the_rest_is_left_out():
    macro = RemoteTemplate(
        "77",
        "Close & tag billing!",
        "Thanks, we fixed it.",
        (
            ("status", "solved"),
            ("priority", "high"),
            ("current_tags", "billing VIP"),
            ("assignee_id", "1002"),
            ("group_id", "360001"),
            ("assignee_id", "current_user"),
            ("custom_fields_123", "yes"),
            ("comment_value", "Thanks, we fixed it."),
        ),
    )
    tool = macro_tool(
        macro, {"1002": "zendesk:1002"}, {"zendesk:1002": "Priya Raman"}, "zd-t:77", "Zendesk"
    )
    assert tool.name == tool_name("Close & tag billing!") == "close_tag_billing"
    assert tool.definition is not None
    steps = [(s["command"], {k: v.get("value") for k, v in s["args"].items()}) for s in
             tool.definition["steps"]]  # fmt: skip
    assert [c for c, _ in steps] == [
        "set_ticket_status",
        "set_ticket_priority",
        "add_ticket_tag",
        "add_ticket_tag",
        "set_ticket_assignee",
        "apply_template",
    ]
    assert steps[4][1]["assignee"] == "zendesk:1002"
    assert steps[2][1]["tag"] == "billing" and steps[3][1]["tag"] == "vip"
    assert "assign it to Priya Raman" in tool.does
    assert tool.left_out == [
        "set the group",
        "assign it to whoever uses it (Understudy asks for no one)",
        "set a custom field",
    ]
    assert definition_problems(Definition.of(tool.definition), current_catalogue()) == []


def test_a_macro_with_nothing_understudy_can_do_makes_no_tool():
    macro = RemoteTemplate("5", "Escalate", "", (("group_id", "9"), ("type", "incident")))
    tool = macro_tool(macro, {}, {}, None, "Zendesk")
    assert tool.definition is None
    assert tool.left_out == ["set the group", "set the ticket type"]


@pytest.mark.slow
def test_a_zendesk_macro_becomes_an_approved_tool_whose_run_reaches_zendesk(console, qtbot):
    with FakeZendesk() as fake:
        agent = fake.add_agent("Priya Raman", "priya@example.com")
        number = fake.add_ticket("Refund please", "Charged twice", status="open")
        fake.add_macro(
            "Refund done",
            [("status", "solved"), ("current_tags", "refund"), ("group_id", "4"),
             ("assignee_id", str(agent)), ("comment_value", "We refunded you.")],
        )  # fmt: skip
        link = console.session.helpdesk
        settings = Settings("zendesk", fake.url, email=fake.email)
        states: list[object] = []
        link.connect_queue(settings, fake.token, lambda _n: None, states.append)
        qtbot.waitUntil(lambda: bool(states))
        assert not isinstance(states[0], str), states
        menu = console.window.helpdesk_menu
        assert menu.macros_action.isEnabled()
        menu.show_macros()
        qtbot.waitUntil(lambda: menu.macros is not None)
        dialog = menu.macros
        text = "\n".join(label.text() for label in dialog.said.values())
        assert text == ""
        words = dialog.findChildren(type(dialog.said["Refund done"]))
        shown = "\n".join(w.text() for w in words)
        assert "It will set the status to solved; add the tag refund" in shown
        assert "Left out: set the group." in shown
        assert not internals(widget_text(dialog))
        dialog.buttons["Refund done"].click()
        approve_in_dialog(console)
        qtbot.waitUntil(lambda: dialog.said["Refund done"].text().startswith("Approved"))
        answer = console.run_tool("refund_done", {"ticket_id": f"ZD-{number}"}, by="agent")
        assert not answer.get("isError"), answer
        qtbot.waitUntil(lambda: fake.tickets[number]["status"] == "solved")
        qtbot.waitUntil(lambda: "refund" in fake.tickets[number]["tags"])
        qtbot.waitUntil(lambda: fake.tickets[number]["assignee_id"] == agent)
        row = console.dispatch("get_ticket", {"ticket_id": f"ZD-{number}"})["result"]
        assert row["reply_draft"].startswith("We refunded you")
        link.disconnect_queue()


def test_a_hold_status_and_a_reply_with_no_template_are_said_not_dropped():
    macro = RemoteTemplate(
        "8", "Wait for them", "We will wait.", (("status", "hold"), ("comment_value", "x"))
    )
    tool = macro_tool(macro, {}, {}, None, "Zendesk")
    assert tool.does == ["set the status to pending (the console's word for On-hold)"]
    assert tool.left_out == ["its reply text, which the queue has no reply template for"]


@pytest.mark.slow
def test_a_macro_made_after_connecting_brings_its_reply_along(console, qtbot):
    """Made in Zendesk after the queue was read: its reply text becomes one of the queue's
    reply templates when the macros are listed, and its tool fills it."""
    with FakeZendesk() as fake:
        fake.add_ticket("Refund please", "Charged twice", status="open")
        link = console.session.helpdesk
        states: list[object] = []
        settings = Settings("zendesk", fake.url, email=fake.email)
        link.connect_queue(settings, fake.token, lambda _n: None, states.append)
        qtbot.waitUntil(lambda: bool(states))
        fake.add_macro("Late one", [("status", "hold"), ("comment_value", "Back soon.")])
        menu = console.window.helpdesk_menu
        menu.show_macros()
        qtbot.waitUntil(lambda: menu.macros is not None)
        shown = widget_text(menu.macros)
        assert "fill the reply with “Late one”" in shown
        assert "the console's word for On-hold" in shown
        assert "reply template" not in shown
        qtbot.waitUntil(
            lambda: (
                "Late one" in [t["name"] for t in console.dispatch("list_templates", {})["result"]]
            ),
        )
        menu.macros.reject()
