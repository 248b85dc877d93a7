"""An agent that gives up on a call: nothing of the run is kept at any moment before its
COMMIT, and a cancel that comes after it is recorded beside the run and told to the agent
with its next answer. The run is held on the database's writer thread at each point in turn
(before each step, after the last, between the last look and COMMIT, after the answer) while
the cancel arrives, in the running app."""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

import pytest
from agent_helpers import TEST_TOOLS, definition, publish_definitions, step, stored_ticket

from understudy_desktop.model import commands, service

THREE_STEPS = definition(
    "escalate_for_review",
    "Raise a ticket to urgent, tag it for review and set it to pending.",
    [
        step("set_ticket_priority", ticket_id=("param", "ticket_id"), priority="urgent"),
        step("add_ticket_tag", ticket_id=("param", "ticket_id"), tag="review"),
        step("set_ticket_status", ticket_id=("param", "ticket_id"), status="pending"),
    ],
)
CALLER = "a test agent"


class Hold:
    """Stops the writer thread at one point of a run until the test lets it go."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.go = threading.Event()

    def here(self) -> None:
        self.reached.set()
        assert self.go.wait(20), "the test never let the run go on"


@pytest.fixture
def shell(console):
    publish_definitions(console, [THREE_STEPS, TEST_TOOLS["lookup_ticket"]])
    return console


def hold_at(monkeypatch: pytest.MonkeyPatch, point: str) -> Hold:
    hold = Hold()
    real_apply = commands.apply
    applied = {"n": 0}

    def apply(*args: Any, **kwargs: Any) -> Any:
        n = applied["n"]
        applied["n"] += 1
        if point == f"before step {n + 1}":
            hold.here()
        out = real_apply(*args, **kwargs)
        if point == "after the last step" and n == len(THREE_STEPS["steps"]) - 1:
            hold.here()
        return out

    monkeypatch.setattr(commands, "apply", apply)
    real_journal = service.journal

    def journal(*args: Any, **kwargs: Any) -> None:
        real_journal(*args, **kwargs)
        if point == "before COMMIT" and str(args[2]).startswith("run "):
            hold.here()

    monkeypatch.setattr(service, "journal", journal)
    return hold


def late_notes(data_dir) -> list[tuple[str, str]]:
    with sqlite3.connect(data_dir / "understudy.sqlite3") as db:
        return db.execute(
            "SELECT command, client FROM journal WHERE command LIKE 'cancelled after saving%'"
        ).fetchall()


def fields(data_dir, ticket: str) -> tuple[str, str, list[str]]:
    stored = stored_ticket(data_dir, ticket)
    return stored["priority"], stored["status"], stored["tags"]


@pytest.mark.parametrize(
    "point",
    ["before step 1", "before step 2", "before step 3", "after the last step"],
)
def test_a_cancel_before_commit_keeps_nothing(shell, data_dir, monkeypatch, point):
    calls = shell.session.calls
    before = fields(data_dir, "T-1003")
    hold = hold_at(monkeypatch, point)
    answers: list[dict[str, Any]] = []
    handle = calls.call(THREE_STEPS["name"], {"ticket_id": "T-1003"}, CALLER, answers.append)
    assert hold.reached.wait(20), f"the run never got {point}"
    handle.cancel()
    hold.go.set()
    shell.qtbot.waitUntil(lambda: bool(answers))
    assert answers[0]["code"] == "cancelled", answers[0]
    assert answers[0]["kept"] == []
    shell.flush()
    assert fields(data_dir, "T-1003") == before
    assert late_notes(data_dir) == []


def test_a_cancel_after_the_last_look_is_recorded_and_told_next_time(shell, data_dir, monkeypatch):
    calls = shell.session.calls
    hold = hold_at(monkeypatch, "before COMMIT")
    answers: list[dict[str, Any]] = []
    handle = calls.call(THREE_STEPS["name"], {"ticket_id": "T-1003"}, CALLER, answers.append)
    assert hold.reached.wait(20)
    handle.cancel()
    hold.go.set()
    shell.qtbot.waitUntil(lambda: bool(answers))
    # Saved whole: the answer (which the cancelled caller never reads) says so.
    assert answers[0].get("ok") is True, answers[0]
    shell.flush()
    priority, status, tags = fields(data_dir, "T-1003")
    assert (priority, status, "review" in tags) == ("urgent", "pending", True)
    shell.qtbot.waitUntil(lambda: bool(late_notes(data_dir)))
    assert late_notes(data_dir) == [(f"cancelled after saving: run {THREE_STEPS['name']}", CALLER)]
    # The same agent's next call learns what happened; another agent's does not.
    other: list[dict[str, Any]] = []
    calls.call("lookup_ticket", {"ticket_id": "T-1001"}, "another agent", other.append)
    shell.qtbot.waitUntil(lambda: bool(other))
    assert "earlier" not in other[0]
    nxt: list[dict[str, Any]] = []
    calls.call("lookup_ticket", {"ticket_id": "T-1001"}, CALLER, nxt.append)
    shell.qtbot.waitUntil(lambda: bool(nxt))
    assert nxt[0]["earlier"] == [
        f"Your earlier call to {THREE_STEPS['name']} was cancelled after its changes to "
        "1 ticket had been saved, so they were kept. Change them back with another call if "
        "they are not wanted."
    ]
    # Told once.
    again: list[dict[str, Any]] = []
    calls.call("lookup_ticket", {"ticket_id": "T-1001"}, CALLER, again.append)
    shell.qtbot.waitUntil(lambda: bool(again))
    assert "earlier" not in again[0]


def test_a_cancel_after_the_answer_is_recorded_and_told_even_in_a_refusal(shell, data_dir):
    calls = shell.session.calls
    answers: list[dict[str, Any]] = []
    handle = calls.call(THREE_STEPS["name"], {"ticket_id": "T-1004"}, CALLER, answers.append)
    shell.qtbot.waitUntil(lambda: bool(answers))
    assert answers[0].get("ok") is True
    handle.cancel()  # the answer was on its way when the caller gave up
    shell.qtbot.waitUntil(lambda: bool(late_notes(data_dir)))
    refused: list[dict[str, Any]] = []
    calls.call(THREE_STEPS["name"], {"ticket_id": "nope"}, CALLER, refused.append)
    shell.qtbot.waitUntil(lambda: bool(refused))
    assert refused[0]["code"] == "invalid_input"
    assert "was cancelled after its changes to 1 ticket had been saved" in refused[0]["message"]
