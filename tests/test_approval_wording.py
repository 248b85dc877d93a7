"""What the approval dialog warns a person of, word for word (approval/wording.py): a tool
that can change every ticket a search matches says so, one that only reads says it changes
nothing, a question that may be left out says so, and a repair or an update shows each step
that changes and what agents will read, before and now. Each step says which of its values
are asked each time, carried from an earlier step, or fixed (and which fixed value)."""

from __future__ import annotations

from typing import Any

from understudy_desktop.approval.wording import (
    UNREADABLE,
    answers,
    changes,
    difference_sections,
    questions,
    step_lines,
    tool_sections,
)
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


def param(name: str) -> dict[str, str]:
    return {"from": "param", "name": name}


STEPS = tool(
    [
        {
            "command": "filter_tickets",
            "args": {"status": param("s"), "text": param("q"), "priority": const(p="")["p"]},
        },
        {"command": "get_ticket", "args": {"ticket_id": param("ticket")}},
        {
            "command": "set_ticket_assignee",
            "args": {
                "ticket_id": {"from": "step", "step": 1, "path": "id"},
                "assignee": const(a="__unassigned__")["a"],
            },
        },
        {"command": "set_reply_draft", "args": const(ticket_id="T-1", text="x" * 61)},
        {
            "command": "set_ticket_assignee",
            "args": {"ticket_id": param("ticket"), "assignee": param("who")},
        },
        {"command": "filter_tickets", "args": {"status": const(s="open")["s"], "text": param("q")}},
    ],
    properties={k: {"type": "string"} for k in ("s", "q", "ticket", "who")},
)


def test_each_step_says_what_is_asked_carried_or_fixed():
    assert step_lines(STEPS, current_catalogue()) == [
        # Two values asked of one search read as one phrase; an empty fixed value is no filter.
        "1. Find the tickets matching the words and status you choose",
        "2. Read the ticket you choose",
        # Carried from an earlier step, and nobody for the unassigned value.
        "3. Assign the same ticket to nobody",
        # A long fixed value is cut where a person can still read it.
        "4. Write the reply to ticket T-1: “" + "x" * 60 + "…”",
        "5. Assign the ticket you choose to the person you choose",
        "6. Find the tickets mentioning the words you choose, with status Open",
    ]


def test_what_a_run_was_given_is_said_by_name():
    given = answers(
        STEPS,
        {"ticket": "T-1", "s": "open", "who": "u-7"},
        current_catalogue(),
        {"person": [{"id": "u-7", "name": "Priya Raman"}]},
    )
    assert given == "• Status: Open\n• Ticket: T-1\n• Person: Priya Raman"


def test_a_stored_copy_that_does_not_read_as_a_tool_says_so():
    assert tool_sections(None, current_catalogue()) == (("What it does", UNREADABLE),)
    assert difference_sections(STEPS, None, current_catalogue()) == (("What changes", UNREADABLE),)


def test_a_step_an_update_removes_is_shown_going():
    read = {"command": "get_ticket", "args": {"ticket_id": param("ticket")}}
    longer = tool([read, {"command": "get_ticket", "args": const(ticket_id="T-2")}])
    [(_what, lines), *_] = difference_sections(longer, tool([read]), current_catalogue())
    assert lines == "1. Read the ticket you choose\n2. Read ticket T-2\n   → now: (none)"
