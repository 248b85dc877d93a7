"""The task set: triage jobs on the demo queue, each with a prompt, the scripted moves of each
arm, and a predicate on the final state (or on the answer) that says whether it was solved.

No model is called: each arm is a script of what an agent would do with that interface.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Ticket = Callable[[str], dict[str, Any]]


@dataclass(frozen=True)
class Task:
    id: str
    prompt: str
    kind: str  # single | set | question
    taught: tuple[str, dict[str, Any]]  # one call of a taught tool
    catalogue: list[tuple[str, dict[str, Any]]]  # catalogue commands, one by one
    dom: list[tuple[str, ...]]  # by accessible name: dom and cdm arms (_dom_action)
    solved: Callable[[Ticket, Any], bool]
    answer_from: str = ""  # questions: where the answer is read
    expected: Any = None
    tags: list[str] = field(default_factory=list)


def _refund(tid: str) -> Task:
    return Task(
        id=f"refund-{tid}",
        kind="single",
        prompt=f"Ticket {tid} is a duplicate charge: give it to Priya at high priority and "
        "fill the approved-refund reply.",
        taught=("assign_refund", {"ticket_id": tid}),
        catalogue=[
            ("select_ticket", {"ticket_id": tid}),
            ("set_ticket_assignee", {"ticket_id": tid, "assignee": "priya"}),
            ("set_ticket_priority", {"ticket_id": tid, "priority": "high"}),
            ("apply_template", {"ticket_id": tid, "template_id": "refund_approved"}),
        ],
        dom=[
            ("open", tid),
            ("select", "Assignee", "priya"),
            ("select", "Priority", "high"),
            ("select", "Reply template", "refund_approved"),
            ("click", "Apply template"),
        ],
        solved=lambda t, _a, tid=tid: (
            t(tid)["assignee"] == "priya"
            and t(tid)["priority"] == "high"
            and t(tid)["reply_draft"].startswith("Hi ")
        ),
    )


def _escalate(tid: str) -> Task:
    return Task(
        id=f"escalate-{tid}",
        kind="single",
        prompt=f"Escalate ticket {tid}: make it urgent and tag it escalated.",
        taught=("escalate", {"ticket_id": tid}),
        catalogue=[
            ("select_ticket", {"ticket_id": tid}),
            ("set_ticket_priority", {"ticket_id": tid, "priority": "urgent"}),
            ("add_ticket_tag", {"ticket_id": tid, "tag": "escalated"}),
        ],
        dom=[("open", tid), ("select", "Priority", "urgent"), ("fill", "Add a tag", "escalated")],
        solved=lambda t, _a, tid=tid: (
            t(tid)["priority"] == "urgent" and "escalated" in t(tid)["tags"]
        ),
    )


def _triage(phrase: str, ids: list[str]) -> Task:
    return Task(
        id=f"triage-{phrase.lower()}",
        kind="set",
        prompt=f"Every ticket mentioning {phrase}: tag it bank-feed and give it to Tomasz at "
        "high priority.",
        taught=("triage_phrase", {"phrase": phrase}),
        catalogue=[
            ("filter_tickets", {"text": phrase}),
            ("tag_matching_tickets", {"tag": "bank-feed"}),
            ("assign_matching_tickets", {"assignee": "tomasz"}),
            ("set_matching_priority", {"priority": "high"}),
        ],
        dom=[
            ("search", phrase),
            ("fill", "Tag to add to every matching ticket", "bank-feed"),
            ("select", "Assign every matching ticket", "tomasz"),
            ("select", "Set priority of every matching ticket", "high"),
        ],
        solved=lambda t, _a, ids=tuple(ids): all(
            t(i)["assignee"] == "tomasz"
            and t(i)["priority"] == "high"
            and "bank-feed" in t(i)["tags"]
            for i in ids
        ),
    )


def _count(label: str, criteria: dict[str, str], expected: int) -> Task:
    args = {"phrase": "", "status": "", "priority": "", "assignee": "", **criteria}
    payload = {
        k: v
        for k, v in {
            "text": args["phrase"],
            "status": args["status"],
            "priority": args["priority"],
            "assignee": args["assignee"],
        }.items()
        if v
    }
    dom: list[tuple[str, ...]] = []
    if args["phrase"]:
        dom.append(("search", args["phrase"]))
    for key, name in (
        ("status", "Filter by status"),
        ("priority", "Filter by priority"),
        ("assignee", "Filter by assignee"),
    ):
        if args[key]:
            dom.append(("select", name, args[key]))
    dom.append(("read_count",))
    return Task(
        id=f"count-{label}",
        kind="question",
        prompt=f"How many tickets are {label.replace('-', ' ')}?",
        taught=("count_tickets", args),
        catalogue=[("filter_tickets", payload)],
        dom=dom,
        solved=lambda _t, answer, expected=expected: answer == expected,
        answer_from="matched",
        expected=expected,
    )


def task_set(demo: dict[str, Any]) -> list[Task]:
    tickets = demo["tickets"]

    def matching(word: str) -> list[str]:
        w = word.lower()
        return [
            t["id"]
            for t in tickets
            if w in f"{t['id']}\n{t['subject']}\n{t['body']}\n{t['requester']}".lower()
        ]

    def count(**criteria: str) -> int:
        return sum(
            1
            for t in tickets
            if all((t["assignee"] if k == "assignee" else t[k]) == v for k, v in criteria.items())
        )

    return [
        _refund("T-1011"),
        _refund("T-1019"),
        _refund("T-1023"),
        _escalate("T-1012"),
        _escalate("T-1014"),
        _escalate("T-1007"),
        _triage("Barclays", matching("barclays")),
        _triage("Starling", matching("starling")),
        _triage("Santander", matching("santander")),
        _count("urgent", {"priority": "urgent"}, count(priority="urgent")),
        _count(
            "open-and-assigned-to-marcus",
            {"status": "open", "assignee": "marcus"},
            count(status="open", assignee="marcus"),
        ),
        _count("pending", {"status": "pending"}, count(status="pending")),
    ]
