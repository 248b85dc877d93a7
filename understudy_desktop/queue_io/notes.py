"""What a loaded helpdesk export tells the person: unused columns, undated tickets, and values
that were guessed (unknown words, Freshdesk numbers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from understudy_desktop.queue_io.columns import FIELD_VALUES, UNKNOWN_VALUE_DEFAULTS
from understudy_desktop.queue_io.errors import shorten
from understudy_desktop.queue_io.fields import FieldReader, TicketBuilder
from understudy_desktop.queue_io.loaded import LoadedQueue, QueueSource, SourceColumn, ValueReport
from understudy_desktop.queue_io.models import Ticket

# How many unknown values one note names before it says "and N more".
_NAMED_VALUES: Final = 4
_PLURALS: Final = {"status": "statuses", "priority": "priorities"}


def _quoted_list(values: Sequence[str]) -> str:
    """'“a”', '“a” and “b”', '“a”, “b” and 3 more'."""
    names = [f"“{shorten(value, 30)}”" if value else "(empty)" for value in values]
    if len(names) > _NAMED_VALUES:
        return f"{', '.join(names[:_NAMED_VALUES])} and {len(names) - _NAMED_VALUES} more"
    if len(names) == 1:
        return names[0]
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _value_notes(report: ValueReport) -> list[str]:
    """Plain sentences about values that were guessed: unknown words and Freshdesk numbers."""
    notes: list[str] = []
    for name in FIELD_VALUES:
        unknown = report.unknown[name]
        if not unknown:
            continue
        tickets = sum(report.counts[name].get(value, 0) for value in unknown)
        default = UNKNOWN_VALUE_DEFAULTS[name]
        one = len(unknown) == 1
        what = f"the {name if one else _PLURALS[name]} {_quoted_list(unknown)}"
        them, means = ("it", "it means") if one else ("them", "they mean")
        with_them = (
            f"the ticket with {them} is"
            if tickets == 1
            else f"the {tickets:,} tickets with {them} are"
        )
        notes.append(
            f"Understudy does not know {what}, so {with_them} set to {default} for now. "
            f"You can choose what {means} when you open the file."
        )
    for name in FIELD_VALUES:
        numbers = sorted(report.numbers[name], key=lambda code: int(code))
        if numbers:
            codes = ", ".join(f"{code} = {report.meanings[name][code]}" for code in numbers)
            notes.append(f"Numbers in the {name} column were read as Freshdesk codes ({codes}).")
    return notes


def _notes(
    columns: Sequence[SourceColumn], tickets: list[Ticket], default: str, noun: str
) -> list[str]:
    notes = []
    unused = [c.name for c in columns if c.field is None]
    if unused:
        listed = ", ".join(f"“{shorten(n, 20)}”" for n in unused[:6])
        more = f" and {len(unused) - 6} more" if len(unused) > 6 else ""
        if len(unused) == 1:
            notes.append(f"1 {noun} is not used: {listed}. It is kept and saved back unchanged.")
        else:
            notes.append(
                f"{len(unused)} {noun}s are not used: {listed}{more}. "
                "They are kept and saved back unchanged."
            )
    undated = sum(1 for t in tickets if t.created == default)
    if undated:
        notes.append(
            f"{undated} ticket{'s have' if undated > 1 else ' has'} no date, so the file's "
            "last-changed time is used instead."
        )
    return notes


def loaded_export(
    builder: TicketBuilder, field_reader: FieldReader, source: QueueSource, noun: str
) -> LoadedQueue:
    """The tickets read from a helpdesk file, with what the preview tells the person."""
    report = field_reader.value_report()
    notes = _notes(source.columns, builder.tickets, source.default_created, noun)
    return LoadedQueue(
        tickets=builder.tickets,
        assignees=builder.assignees(),
        templates=[],
        source=source,
        notes=notes + _value_notes(report),
        values=report,
    )
