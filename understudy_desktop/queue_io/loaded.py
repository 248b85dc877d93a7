"""What reading a queue file gives: the tickets, and everything needed to save them back.

``LoadedQueue`` is the result of every read; its ``QueueSource`` remembers the file's shape
(encoding, layout, columns, the original rows) so the writer can keep it, and ``ValueReport``
says how each status, priority and assignee spelling was read. Kept apart from the readers so
that the writer, the saved state (source_state.py) and the preview can name these types
without importing the code that reads files.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, NamedTuple

from understudy_desktop.queue_io.columns import FIELD_VALUES, FieldName
from understudy_desktop.queue_io.models import Assignee, Template, Ticket

SourceKind = Literal["csv", "json-array", "json-object", "json-lines", "understudy"]
# Where a status or priority value's meaning came from: the person's choice, the known words,
# a Freshdesk-style number, or nowhere (an unknown value, given a default until someone chooses).
ValueOrigin = Literal["chosen", "known", "number", "unknown"]
# csv.QUOTE_MINIMAL / QUOTE_ALL / QUOTE_NONNUMERIC / QUOTE_NONE, as typeshed spells them.
CsvQuoting = Literal[0, 1, 2, 3]

# QueueSource.vocabulary keeps, next to "status" (ours -> theirs), "read:status" (theirs -> ours):
# how every spelling in the file was read, so the writer re-reads unchanged cells the same way.
READ_PREFIX: Final = "read:"


@dataclass(frozen=True)
class SourceColumn:
    """One column (CSV) or key (JSON) of the original file."""

    name: str  # as written in the file
    key: str  # unique even when a header is repeated, e.g. "Labels (2)"
    field: FieldName | None  # which ticket field it feeds, None when it is carried along


class CsvRecord(NamedTuple):
    """A CSV row as read, and where its text sits in the original file."""

    cells: list[str]
    start: int
    end: int


@dataclass
class QueueSource:
    """Everything needed to write a queue back in the shape it was read in."""

    kind: SourceKind
    path: Path
    encoding: str  # Python codec name, e.g. "utf-8", "cp1252", "utf-16-le"
    bom: bool
    newline: str
    final_newline: bool
    columns: tuple[SourceColumn, ...] = ()
    delimiter: str = ","
    quoting: CsvQuoting = csv.QUOTE_MINIMAL
    # Original text, so a CSV row whose ticket did not change can be copied byte for byte.
    text: str = ""
    csv_header: CsvRecord | None = None
    csv_records: dict[str, CsvRecord] = field(default_factory=dict)
    json_records: dict[str, dict[str, Any]] = field(default_factory=dict)
    # A {"tickets": [...]} export's other top-level keys, in order; "tickets" marks the slot.
    json_envelope: dict[str, Any] | None = None
    json_indent: int | str | None = 2
    json_compact: bool = False
    json_ascii: bool = False
    ids_were_numbers: bool = False
    tag_separator: str = ","
    # Per field: our value -> how the file first spelled it ("open" -> "In Progress"); and under
    # READ_PREFIX + field, each spelling in the file -> the value it was read as (see read_values).
    vocabulary: dict[str, dict[str, str]] = field(default_factory=dict)
    # Used for tickets without a date; the writer leaves such dates out again.
    default_created: str = ""

    @property
    def read_values(self) -> dict[str, dict[str, str]]:
        """Per field ("status", "priority"): each spelling in the file -> the value it was read as.

        Includes the person's choices, so re-reading a cell gives what the ticket was loaded with.
        """
        return {
            name[len(READ_PREFIX) :]: words
            for name, words in self.vocabulary.items()
            if name.startswith(READ_PREFIX)
        }

    @property
    def mapping(self) -> dict[str, FieldName | None]:
        """Source column -> ticket field (None: carried along unchanged)."""
        return {column.key: column.field for column in self.columns}

    def extras(self, ticket_id: str) -> dict[str, Any]:
        """The columns of one original row that are not ticket fields, keyed by column."""
        record = self.csv_records.get(ticket_id)
        if record is not None:
            return {
                column.key: record.cells[index]
                for index, column in enumerate(self.columns)
                if column.field is None
            }
        obj = self.json_records.get(ticket_id)
        if obj is not None:
            used = {column.name for column in self.columns if column.field is not None}
            return {key: value for key, value in obj.items() if key not in used}
        return {}

    @property
    def extra_columns(self) -> dict[str, dict[str, Any]]:
        """Every row's unmapped columns keyed by ticket id (built on demand: it can be big)."""
        ids = self.csv_records or self.json_records
        return {ticket_id: self.extras(ticket_id) for ticket_id in ids}


def _per_value_field() -> dict[str, Any]:
    return {name: {} for name in FIELD_VALUES}


def _per_value_field_tuple() -> dict[str, tuple[str, ...]]:
    return {name: () for name in FIELD_VALUES}


@dataclass(frozen=True)
class ValueReport:
    """The status and priority values found in a file, and what each was read as.

    Every dict has the keys "status" and "priority"; a field the file has no column for is empty.
    Spellings are as written in the file, without surrounding spaces ("" for an empty cell).
    """

    # Spelling -> our value, for every distinct spelling, in the order the file first uses them.
    meanings: dict[str, dict[str, str]] = field(default_factory=_per_value_field)
    # Spelling -> how many tickets use it.
    counts: dict[str, dict[str, int]] = field(default_factory=_per_value_field)
    # Spellings no rule knows and nobody chose a meaning for; they got a default for now.
    unknown: dict[str, tuple[str, ...]] = field(default_factory=_per_value_field_tuple)
    # Spellings read as Freshdesk-style numbers (status 2 = open, priority 1 = low, ...).
    numbers: dict[str, tuple[str, ...]] = field(default_factory=_per_value_field_tuple)
    # Each assignee spelling -> the person it was read as ("" nobody), and its count.
    people: dict[str, str] = field(default_factory=dict)
    people_counts: dict[str, int] = field(default_factory=dict)


@dataclass
class LoadedQueue:
    tickets: list[Ticket]
    assignees: list[Assignee]
    templates: list[Template]
    source: QueueSource
    # Things worth telling the user that do not stop the file from opening.
    notes: list[str] = field(default_factory=list)
    values: ValueReport = field(default_factory=ValueReport)
