"""The person's undo and redo on a real database (model/history.py, driven as the console's
model drives it): the last change first, redo puts back exactly what undo took, a new change
ends the redo, a toast's Undo takes its own change, how many changes are kept, and a command
that changes nothing is no change: not recorded, not undoable, not sent."""

from __future__ import annotations

from typing import Any

from model_helpers import MemoryModel
from test_model import const, queue

from understudy_desktop.definition import Step
from understudy_desktop.model import runs
from understudy_desktop.model.commands import Context
from understudy_desktop.model.history import (
    KEEP,
    Entry,
    History,
    apply_moves,
    redo_moves,
    undo_moves,
)
from understudy_desktop.model.runs import RunRequest
from understudy_desktop.model.tables import Searches


def person_change(
    model: MemoryModel, history: History, revision: int, command: str, payload: Any
) -> int:
    """A command of the person's committed as `revision`, noted as the model notes it."""
    out = model.dispatch(command, payload)
    assert out["ok"], out
    history.note(revision, out["writes"])
    return revision


def person_run(model: MemoryModel, history: History, steps: list[dict[str, Any]]) -> None:
    """A tool the person ran on their selection: one change of theirs, values before kept."""
    request = RunRequest("t", [Step.model_validate(s) for s in steps], {"type": "object"}, {})
    model.conn.execute("BEGIN IMMEDIATE")
    outcome = runs.execute(
        lambda view: Context(model.conn, model.people, view, True, True, Searches(model.conn)),
        model.catalogue,
        request,
    )
    model.conn.execute("COMMIT")
    history.note(1, outcome.writes)


def move(model: MemoryModel, history: History, entry: Entry, undo: bool) -> int:
    """Undo (or redo) `entry` in one transaction, as the model does; how many were written."""
    moves, order = undo_moves(entry) if undo else redo_moves(entry)
    model.conn.execute("BEGIN IMMEDIATE")
    applied = apply_moves(model.conn, moves)
    model.conn.execute("COMMIT")
    if undo:
        history.undone(entry, [order[i] for i in applied])
    else:
        history.redone(entry, [order[i] for i in applied])
    return len(applied)


def undo(model: MemoryModel, history: History, seq: int | None = None) -> Entry | None:
    entry = history.take_undo(seq)
    if entry is not None:
        move(model, history, entry, undo=True)
    return entry


def redo(model: MemoryModel, history: History) -> Entry | None:
    entry = history.take_redo()
    if entry is not None:
        move(model, history, entry, undo=False)
    return entry


def field(model: MemoryModel, ticket: str, name: str) -> Any:
    return next(t[name] for t in model.tickets() if t["id"] == ticket)


def test_undo_takes_a_change_back_last_step_first_and_redo_puts_it_back():
    """One run sets T-1's priority twice: undo walks back through both (to where it was
    before the run), and redo forward through both (to where the run left it)."""
    model, history = MemoryModel(queue()), History()
    person_run(
        model,
        history,
        [
            {"command": "set_ticket_priority", "args": const(ticket_id="T-1", priority="low")},
            {"command": "set_ticket_priority", "args": const(ticket_id="T-1", priority="urgent")},
            {"command": "set_ticket_status", "args": const(ticket_id="T-1", status="pending")},
        ],
    )
    assert (field(model, "T-1", "priority"), field(model, "T-1", "status")) == ("urgent", "pending")
    assert undo(model, history) is not None
    assert (field(model, "T-1", "priority"), field(model, "T-1", "status")) == ("normal", "open")
    assert redo(model, history) is not None
    assert (field(model, "T-1", "priority"), field(model, "T-1", "status")) == ("urgent", "pending")
    # Redone, it is the person's last change again: Undo takes it back once more.
    assert undo(model, history) is not None
    assert field(model, "T-1", "priority") == "normal"


def test_a_new_change_after_undo_ends_the_redo():
    model, history = MemoryModel(queue()), History()
    person_change(
        model, history, 1, "set_ticket_priority", {"ticket_id": "T-1", "priority": "high"}
    )
    undo(model, history)
    person_change(model, history, 2, "set_ticket_status", {"ticket_id": "T-2", "status": "solved"})
    assert history.take_redo() is None
    assert field(model, "T-1", "priority") == "normal"


def test_a_toasts_undo_takes_back_its_own_change_not_the_last():
    model, history = MemoryModel(queue()), History()
    first = person_change(
        model, history, 1, "set_ticket_priority", {"ticket_id": "T-1", "priority": "high"}
    )
    second = person_change(
        model, history, 2, "set_ticket_status", {"ticket_id": "T-2", "status": "solved"}
    )
    taken = undo(model, history, first)
    assert taken is not None and taken.seq == first
    assert field(model, "T-1", "priority") == "normal" and field(model, "T-2", "status") == "solved"
    last = history.take_undo()
    assert last is not None and last.seq == second
    assert history.take_undo(first) is None, "a change undone is not undone twice"


def test_the_person_can_step_back_through_the_last_keep_changes_and_no_further():
    history = History()
    model = MemoryModel(queue())
    out = model.dispatch("set_ticket_priority", {"ticket_id": "T-1", "priority": "high"})
    for revision in range(1, KEEP + 2):
        history.note(revision, out["writes"])
    taken = []
    while (entry := history.take_undo()) is not None:
        taken.append(entry.seq)
    assert taken == list(range(KEEP + 1, 1, -1)), "the oldest one went, and only it"


def test_a_command_that_changes_nothing_is_no_change_and_leaves_undo_as_it_was():
    """Setting a field to the value it holds writes nothing: no change to undo (Ctrl+Z
    still takes back the change before it) and no end to the redo."""
    model, history = MemoryModel(queue()), History()
    person_change(
        model, history, 1, "set_ticket_priority", {"ticket_id": "T-1", "priority": "high"}
    )
    undo(model, history)
    same = model.dispatch("set_ticket_status", {"ticket_id": "T-2", "status": "open"})
    assert same["ok"] and same["writes"] == []
    history.note(99, same["writes"])
    assert redo(model, history) is not None, "nothing happened that could end the redo"
    assert field(model, "T-1", "priority") == "high"
    again = model.dispatch("set_ticket_priority", {"ticket_id": "T-1", "priority": "high"})
    assert again["writes"] == [] and again["result"]["previous"] == "high"


def test_a_set_based_change_counts_and_records_only_the_tickets_it_changes():
    model = MemoryModel(queue())
    model.dispatch("set_ticket_status", {"ticket_id": "T-2", "status": "pending"})
    model.dispatch("filter_tickets", {})
    out = model.dispatch("set_matching_status", {"status": "pending"})
    assert out["result"] == {"matched": 6, "changed": 5}
    [write] = out["writes"]
    assert "T-2" not in write.ids and len(write.ids) == 5
    tagged = model.dispatch("tag_matching_tickets", {"tag": "a"})
    [tag_write] = tagged["writes"]
    assert tagged["result"]["changed"] == 5 and "T-1" not in tag_write.ids  # T-1 has it


def test_a_toasts_undo_takes_its_own_change_from_among_several():
    model, history = MemoryModel(queue()), History()
    person_change(
        model, history, 1, "set_ticket_priority", {"ticket_id": "T-1", "priority": "high"}
    )
    middle = person_change(
        model, history, 2, "set_ticket_status", {"ticket_id": "T-2", "status": "solved"}
    )
    person_change(model, history, 3, "set_ticket_priority", {"ticket_id": "T-3", "priority": "low"})
    assert history.take_undo(99) is None, "a toast for a change no longer kept takes nothing"
    taken = undo(model, history, middle)
    assert taken is not None and taken.seq == middle
    assert field(model, "T-2", "status") == "open"
    assert (field(model, "T-1", "priority"), field(model, "T-3", "priority")) == ("high", "low")
    left = [e.seq for e in iter(history.take_undo, None)]
    assert left == [3, 1]


def test_an_undo_that_takes_nothing_back_leaves_redo_as_it_was():
    """The person's change was changed again since (by an agent): undo leaves it, and Redo
    still redoes what the person last undid."""
    model, history = MemoryModel(queue()), History()
    person_change(
        model, history, 1, "set_ticket_priority", {"ticket_id": "T-1", "priority": "high"}
    )
    person_change(model, history, 2, "set_ticket_status", {"ticket_id": "T-2", "status": "solved"})
    assert model.dispatch("set_ticket_priority", {"ticket_id": "T-1", "priority": "low"})["ok"]
    undo(model, history)
    assert field(model, "T-2", "status") == "open"
    undo(model, history)
    assert field(model, "T-1", "priority") == "low", "someone's later change is left as it is"
    redone = redo(model, history)
    assert redone is not None and redone.seq == 2
    assert field(model, "T-2", "status") == "solved"


def test_a_redo_that_puts_nothing_back_leaves_undo_as_it_was():
    model, history = MemoryModel(queue()), History()
    person_change(
        model, history, 1, "set_ticket_priority", {"ticket_id": "T-1", "priority": "high"}
    )
    person_change(model, history, 2, "set_ticket_status", {"ticket_id": "T-2", "status": "solved"})
    undo(model, history)
    assert model.dispatch("set_ticket_status", {"ticket_id": "T-2", "status": "pending"})["ok"]
    redo(model, history)
    assert field(model, "T-2", "status") == "pending", "someone's later change is left as it is"
    taken = undo(model, history)
    assert taken is not None and taken.seq == 1
    assert field(model, "T-1", "priority") == "normal"


def test_undo_and_redo_of_a_tag_on_every_matching_ticket():
    """Undo takes the tag off each ticket it was added to (and only it: T-1 keeps its own),
    and redo adds it back."""
    model, history = MemoryModel(queue()), History()
    model.dispatch("filter_tickets", {})
    person_change(model, history, 1, "tag_matching_tickets", {"tag": "vip"})
    tags = {t["id"]: t["tags"] for t in model.tickets()}
    assert tags["T-1"] == ["a", "b", "vip"] and tags["T-2"] == ["vip"]
    undo(model, history)
    assert {t["id"]: t["tags"] for t in model.tickets()} == {
        "T-1": ["a", "b"],
        **{f"T-{i}": [] for i in range(2, 7)},
    }
    redo(model, history)
    assert {t["id"]: t["tags"] for t in model.tickets()} == tags
