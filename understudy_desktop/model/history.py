"""The person's undo and redo, kept by the shell: only their own changes, never an agent's
run, and never a field someone changed again since (it is left as it is, and counted)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

from understudy_desktop.model import tables
from understudy_desktop.model.commands import Write

KEEP = 200  # changes the person can step back through

# A change as undo sees it: (ticket, field, value before, value after).
Change = tuple[str, str, Any, Any]
# A move: where `field` of `ticket` still holds `expected`, write `value`.
Move = tuple[str, str, Any, Any]


@dataclass
class Entry:
    seq: int  # the revision the change was committed as
    changes: list[Change]
    undone_changes: list[Change] = field(default_factory=list)


class History:
    def __init__(self) -> None:
        self._done: list[Entry] = []
        self._undone: list[Entry] = []

    def note(self, revision: int, writes: list[Write]) -> None:
        """A committed change of the person's (with its values before)."""
        changes = [c for w in writes if w.before is not None for c in w.changes()]
        if not changes:
            return
        self._done.append(Entry(revision, changes))
        del self._done[:-KEEP]
        self._undone.clear()

    def take_undo(self, seq: int | None = None) -> Entry | None:
        """The last change (or the one committed as `seq`: a toast's Undo)."""
        if seq is None:
            return self._done.pop() if self._done else None
        for i, entry in enumerate(self._done):
            if entry.seq == seq:
                return self._done.pop(i)
        return None

    def undone(self, entry: Entry, applied: list[int]) -> None:
        """Undo wrote back these changes (by index into entry.changes, reversed order). They
        are kept in the order they were made: redo makes them again in that order (a run that
        set one field twice ends where it ended, not at its first value)."""
        entry.undone_changes = [entry.changes[i] for i in sorted(applied)]
        if entry.undone_changes:
            self._undone.append(entry)

    def take_redo(self) -> Entry | None:
        return self._undone.pop() if self._undone else None

    def redone(self, entry: Entry, applied: list[int]) -> None:
        entry.changes = [entry.undone_changes[i] for i in applied]
        entry.undone_changes = []
        if entry.changes:
            self._done.append(entry)


def undo_moves(entry: Entry) -> tuple[list[Move], list[int]]:
    """The moves that undo `entry`, last change first, and which change each one reverts."""
    order = list(reversed(range(len(entry.changes))))
    return [
        (entry.changes[i][0], entry.changes[i][1], entry.changes[i][3], entry.changes[i][2])
        for i in order
    ], order


def redo_moves(entry: Entry) -> tuple[list[Move], list[int]]:
    order = list(range(len(entry.undone_changes)))
    return [(c[0], c[1], c[2], c[3]) for c in entry.undone_changes], order


def apply_moves(conn: sqlite3.Connection, moves: list[Move]) -> list[int]:
    """Write each move where its field still holds what it expects; returns which did."""
    return [
        i
        for i, (ticket, name, expected, value) in enumerate(moves)
        if tables.write_if(conn, ticket, name, expected, value)
    ]
