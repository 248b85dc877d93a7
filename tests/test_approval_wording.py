"""What the approval dialog warns a person of, word for word (approval/wording.py): a tool
that can change every ticket a search matches says so, one that only reads says it changes
nothing, a question that may be left out says so, and a repair or an update shows each step
that changes and what agents will read, before and now."""

from __future__ import annotations

from typing import Any

from understudy_desktop.approval.wording import changes, difference_sections, questions
from understudy_desktop.catalogue import current_catalogue
from understudy_desktop.definition import Definition

MANY = " It can change many tickets at once (every ticket a search matches)."


def const(**values: Any) -> dict[str, Any]:
    return {k: {"from": "const", "value": v} for k, v in values.items()}


def tool(steps: list[dict[str, Any]], description: str = "Does it.", **schema: Any) -> Definition:
    return Definition.model_validate(
        {
            "name": "t",
            "description": description,
            "inputSchema": {"type": "object", **schema},
            "steps": steps,
        }
    )


def test_a_tool_that_changes_every_match_is_said_to_change_many_tickets():
    catalogue = current_catalogue()
    one = tool(
        [{"command": "set_ticket_priority", "args": const(ticket_id="T-1", priority="high")}]
    )
    assert changes(one, catalogue) == "Tickets: set priority."
    many = tool(
        [
            {"command": "filter_tickets", "args": const(status="open")},
            {"command": "set_matching_priority", "args": const(priority="high")},
        ]
    )
    assert changes(many, catalogue) == "Tickets: set priority of all matching tickets." + MANY


def test_a_tool_that_only_reads_is_said_to_change_nothing():
    reads = tool(
        [
            {"command": "filter_tickets", "args": const(status="open")},
            {"command": "get_ticket", "args": const(ticket_id="T-1")},
        ]
    )
    assert changes(reads, current_catalogue()) == "Nothing: it only reads tickets."


def test_a_question_that_may_be_left_out_says_so():
    asks = tool(
        [{"command": "get_ticket", "args": {"ticket_id": {"from": "param", "name": "ticket"}}}],
        properties={
            "ticket": {"type": "string", "description": "The ticket."},
            "note": {"type": "string", "description": "A note."},
        },
        required=["ticket"],
    )
    assert questions(asks) == ["• The ticket.", "• A note. (optional)"]


def test_an_update_shows_each_changed_step_and_what_agents_read_before_and_now():
    catalogue = current_catalogue()
    old = tool(
        [{"command": "set_ticket_priority", "args": const(ticket_id="T-1", priority="high")}],
        "Raise it.",
    )
    new = tool(
        [{"command": "set_ticket_priority", "args": const(ticket_id="T-1", priority="low")}],
        "Lower it.",
    )
    [(what, lines), (read, words)] = difference_sections(old, new, catalogue)
    assert (what, read) == ("What changes", "What agents will read")
    assert lines == (
        "1. Set the priority of ticket T-1 to High\n   → now: Set the priority of ticket T-1 to Low"
    )
    assert words == "Before: Raise it.\nNow: Lower it."
    same = difference_sections(old, old, catalogue, always_description=True)
    assert same == (
        ("What changes", "1. Set the priority of ticket T-1 to High"),
        ("What agents will read", "Unchanged: Raise it."),
    )
