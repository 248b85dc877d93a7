"""Saving a triaged queue, in the shape it was opened in whenever possible."""

from __future__ import annotations

import codecs
import csv
import errno
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from understudy_desktop import atomic_file
from understudy_desktop.queue_io.columns import FIELDS, FieldName
from understudy_desktop.queue_io.errors import QueueFileError, shorten
from understudy_desktop.queue_io.fields import FieldReader
from understudy_desktop.queue_io.file_text import encoding_label
from understudy_desktop.queue_io.gc_pause import paused_gc
from understudy_desktop.queue_io.json_reader import plain_validation_error
from understudy_desktop.queue_io.loaded import LoadedQueue, QueueSource
from understudy_desktop.queue_io.models import Assignee, QueueDocument, Template, Ticket
from understudy_desktop.queue_io.plain_text import defused

_Target = Literal["source-csv", "source-json", "plain-csv", "understudy"]
_CSV_SUFFIXES: Final = (".csv", ".tsv", ".txt")
_BOM_BY_CODEC: Final = {
    "utf-8": codecs.BOM_UTF8,
    "utf-16-le": codecs.BOM_UTF16_LE,
    "utf-16-be": codecs.BOM_UTF16_BE,
    "utf-32-le": codecs.BOM_UTF32_LE,
    "utf-32-be": codecs.BOM_UTF32_BE,
}


class _SaveInput(BaseModel):
    """Accepts models or plain dicts (as they come from the web page) and checks them alike."""

    model_config = ConfigDict(extra="forbid")

    tickets: list[Ticket]
    assignees: list[Assignee] = Field(default_factory=list)
    templates: list[Template] = Field(default_factory=list)


def _fail(path: Path, text: str) -> QueueFileError:
    return QueueFileError(f"Could not save {path.name}. {text}", path=path)


def _target(path: Path, source: QueueSource | None) -> _Target:
    suffix = path.suffix.casefold()
    if source is not None and source.kind == "csv" and suffix != ".json":
        return "source-csv"
    json_kinds = ("json-array", "json-object", "json-lines")
    if source is not None and source.kind in json_kinds and suffix not in _CSV_SUFFIXES:
        return "source-json"
    return "plain-csv" if suffix in _CSV_SUFFIXES else "understudy"


def save_queue_file(
    path: Path,
    tickets: Sequence[Ticket] | Sequence[dict[str, Any]],
    assignees: Sequence[Assignee] | Sequence[dict[str, Any]] = (),
    templates: Sequence[Template] | Sequence[dict[str, Any]] = (),
    source: QueueSource | None = None,
) -> None:
    """Write the queue to ``path`` atomically: the old file stays intact if anything fails.

    The format follows ``source`` (the file the queue was opened from) unless the new name's
    suffix asks for another one: ".csv" gives a plain CSV, ".json" the app's own queue document.
    """
    path = Path(path)
    with paused_gc():
        data = _render(path, tickets, assignees, templates, source)
    write_atomically(path, data)


def _render(
    path: Path,
    tickets: Sequence[Ticket] | Sequence[dict[str, Any]],
    assignees: Sequence[Assignee] | Sequence[dict[str, Any]],
    templates: Sequence[Template] | Sequence[dict[str, Any]],
    source: QueueSource | None,
) -> bytes:
    try:
        checked = _SaveInput.model_validate(
            {"tickets": list(tickets), "assignees": list(assignees), "templates": list(templates)}
        )
    except ValidationError as exc:
        raise plain_validation_error(path, exc, "Could not save") from None
    seen: set[str] = set()
    for ticket in checked.tickets:
        if ticket.id in seen:
            raise _fail(path, f'The ticket id "{shorten(ticket.id)}" is used twice.')
        seen.add(ticket.id)

    target = _target(path, source)
    if target == "source-csv" and source is not None:
        text = _source_csv(checked.tickets, checked.assignees, source)
        data = _encode(path, text, source.encoding, source.bom)
    elif target == "source-json" and source is not None:
        text = _source_json(checked.tickets, checked.assignees, source)
        data = _encode(path, text, source.encoding, source.bom)
    elif target == "plain-csv":
        delimiter = "\t" if path.suffix.casefold() == ".tsv" else ","
        text = _plain_csv(checked.tickets, checked.assignees, delimiter)
        # The BOM is what makes Excel read UTF-8 instead of guessing a legacy code page.
        data = _encode(path, text, "utf-8", bom=True)
    else:
        try:
            document = QueueDocument(
                tickets=checked.tickets, assignees=checked.assignees, templates=checked.templates
            )
        except ValidationError as exc:
            raise plain_validation_error(path, exc, "Could not save") from None
        text = json.dumps(document.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
        data = text.encode("utf-8")
    return data


# ---- shared value formatting -------------------------------------------------------------------


class _Formatter:
    """Spells our values the way the source file spelled them."""

    def __init__(self, source: QueueSource | None, assignees: Sequence[Assignee]) -> None:
        self.names = {a.id: a.name for a in assignees}
        self.vocabulary = source.vocabulary if source else {}
        self.tag_separator = source.tag_separator if source else ","

    def word(self, name: str, value: str) -> str:
        seen = self.vocabulary.get(name, {})
        if value in seen:
            return seen[value]
        spellings = list(seen.values())
        if spellings and all(s.isupper() for s in spellings):
            return value.upper()
        if spellings and all(s[:1].isupper() for s in spellings):
            return value.capitalize()
        return value

    def assignee(self, assignee_id: str | None) -> str:
        if assignee_id is None:
            return ""
        # An id the caller did not list is still better written than silently dropped.
        return self.names.get(assignee_id, assignee_id)

    def cell(self, name: FieldName, ticket: Ticket) -> str:
        value = getattr(ticket, name)
        if name in ("status", "priority"):
            return self.word(name, value)
        if name == "assignee":
            return self.assignee(value)
        if name == "tags":
            return self.tag_separator.join(value)
        return str(value)


def _unmapped_fields(
    tickets: Sequence[Ticket], source: QueueSource, mapped: set[FieldName]
) -> list[FieldName]:
    """Fields the file had no column for, but that now hold something worth keeping."""
    defaults = FieldReader(source.default_created).defaults()
    return [
        name
        for name in FIELDS
        if name not in mapped and any(getattr(t, name) != defaults[name] for t in tickets)
    ]


# ---- CSV ---------------------------------------------------------------------------------------


def _plain_csv(tickets: Sequence[Ticket], assignees: Sequence[Assignee], delimiter: str) -> str:
    formatter = _Formatter(None, assignees)
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(FIELDS)
    for ticket in tickets:
        writer.writerow([defused(formatter.cell(name, ticket)) for name in FIELDS])
    return out.getvalue()


def _source_csv(
    tickets: Sequence[Ticket], assignees: Sequence[Assignee], source: QueueSource
) -> str:
    formatter = _Formatter(source, assignees)
    # Read the original cells exactly as they were loaded, chosen meanings included.
    reader = FieldReader(source.default_created, source.read_values)
    mapped = [(i, c.field) for i, c in enumerate(source.columns) if c.field is not None]
    added = _unmapped_fields(tickets, source, {name for _, name in mapped})
    width = len(source.columns)
    newline = source.newline
    out = io.StringIO()
    writer = csv.writer(
        out, delimiter=source.delimiter, quoting=source.quoting, lineterminator=newline
    )

    def verbatim(piece: str) -> None:
        out.write(piece if piece.endswith(("\n", "\r")) else piece + newline)

    if source.csv_header is not None and not added:
        verbatim(source.text[source.csv_header.start : source.csv_header.end])
    else:
        writer.writerow([c.name for c in source.columns] + list(added))

    for ticket in tickets:
        record = source.csv_records.get(ticket.id)
        if record is None:
            row = [""] * width
            for index, name in mapped:
                row[index] = defused(formatter.cell(name, ticket))
            writer.writerow(row + [defused(formatter.cell(name, ticket)) for name in added])
            continue
        cells = record.cells
        changes: dict[int, str] = {}
        for index, name in mapped:
            if reader.readers[name](cells[index]) != getattr(ticket, name):
                changes[index] = defused(formatter.cell(name, ticket))
        for index, cell in enumerate(cells):
            # A cell a spreadsheet would run as a formula (as a helpdesk may export what a
            # customer typed) is saved as text, even in a row nobody changed.
            if index not in changes and defused(cell) != cell:
                changes[index] = defused(cell)
        raw = source.text[record.start : record.end]
        if not changes and not added:
            # Untouched rows are copied as they were, quotes and all, so a diff shows only edits.
            verbatim(raw)
            continue
        raw_cells = _raw_cells(raw, source.delimiter)
        if raw_cells is None or len(raw_cells) != width:
            row = [changes.get(i, cell) for i, cell in enumerate(cells)]
            writer.writerow(row + [defused(formatter.cell(name, ticket)) for name in added])
            continue
        quote = _CellQuoter(source.delimiter, source.quoting)
        parts = [quote(changes[i]) if i in changes else cell for i, cell in enumerate(raw_cells)]
        parts += [quote(defused(formatter.cell(name, ticket))) for name in added]
        out.write(source.delimiter.join(parts) + newline)

    text = out.getvalue()
    if not source.final_newline:
        text = text.removesuffix(newline)
    return text


def _raw_cells(record: str, delimiter: str) -> list[str] | None:
    """Split one record's text into its cells exactly as written, quotes included.

    Lets a changed row keep the original spelling of the cells that did not change. Returns None
    for anything unusual; the caller then falls back to the csv module's own quoting.
    """
    body = record.rstrip("\r\n")
    cells: list[str] = []
    start = 0
    in_quotes = False
    for position, char in enumerate(body):
        if char == '"':
            in_quotes = not in_quotes
        elif char == delimiter and not in_quotes:
            cells.append(body[start:position])
            start = position + 1
    if in_quotes:
        return None
    cells.append(body[start:])
    return cells


class _CellQuoter:
    """Quote one new cell value the way csv.writer would in this file's dialect."""

    def __init__(self, delimiter: str, quoting: int) -> None:
        self.delimiter = delimiter
        self.quote_all = quoting == csv.QUOTE_ALL

    def __call__(self, value: str) -> str:
        special = self.delimiter in value or any(ch in value for ch in '"\r\n')
        if self.quote_all or special:
            return '"' + value.replace('"', '""') + '"'
        return value


# ---- JSON --------------------------------------------------------------------------------------


def _json_value(
    name: FieldName,
    ticket: Ticket,
    formatter: _Formatter,
    source: QueueSource,
    raw: Any,
    numbers: bool = False,
) -> Any:
    value = getattr(ticket, name)
    if name in ("status", "priority"):
        word = formatter.cell(name, ticket)
        # A file that writes Freshdesk codes as JSON numbers ("status": 5) gets a number back.
        number = (isinstance(raw, int) and not isinstance(raw, bool)) or (raw is None and numbers)
        return int(word) if number and word.isascii() and word.isdigit() else word
    if name == "id":
        if source.ids_were_numbers and value.isdigit() and str(int(value)) == value:
            return int(value)
        return value
    if name == "tags":
        return list(value) if isinstance(raw, list) or raw is None else formatter.cell(name, ticket)
    if name == "assignee":
        if value is None:
            return None
        return (
            {"name": formatter.assignee(value)}
            if isinstance(raw, dict)
            else formatter.assignee(value)
        )
    if name == "requester" and isinstance(raw, dict):
        return {"email": value} if "email" in raw else {"name": value}
    return formatter.cell(name, ticket)


def _source_json(
    tickets: Sequence[Ticket], assignees: Sequence[Assignee], source: QueueSource
) -> str:
    formatter = _Formatter(source, assignees)
    # Read the original cells exactly as they were loaded, chosen meanings included.
    reader = FieldReader(source.default_created, source.read_values)
    mapped = [(c.name, c.field) for c in source.columns if c.field is not None]
    added = _unmapped_fields(tickets, source, {name for _, name in mapped})
    defaults = reader.defaults()
    # Whether the file keeps tags as a JSON list or as one string, judged by its first ticket.
    tags_key = next((key for key, name in mapped if name == "tags"), None)
    sample = next(iter(source.json_records.values()), {})
    tags_raw_default: Any = sample.get(tags_key) if tags_key else None
    # Status and priority fields whose values the file writes as JSON numbers.
    numeric = {
        name
        for key, name in mapped
        if name in ("status", "priority")
        and isinstance(sample.get(key), int)
        and not isinstance(sample.get(key), bool)
    }
    items: list[dict[str, Any]] = []
    for ticket in tickets:
        original = source.json_records.get(ticket.id)
        if original is None:
            item: dict[str, Any] = {}
            for key, name in mapped:
                raw = tags_raw_default if name == "tags" else None
                item[key] = _json_value(name, ticket, formatter, source, raw, name in numeric)
        else:
            item = dict(original)
            for key, name in mapped:
                current = getattr(ticket, name)
                if key in original:
                    if reader.readers[name](original[key]) == current:
                        continue
                    item[key] = _json_value(
                        name, ticket, formatter, source, original[key], name in numeric
                    )
                elif current != defaults.get(name):
                    raw = tags_raw_default if name == "tags" else None
                    item[key] = _json_value(name, ticket, formatter, source, raw, name in numeric)
        for name in added:
            item[name] = _json_value(name, ticket, formatter, source, None)
        items.append(item)

    if source.kind == "json-lines":
        # One ticket per line, as it came.
        lines = [
            json.dumps(
                item,
                ensure_ascii=source.json_ascii,
                separators=(",", ":") if source.json_compact else None,
            )
            for item in items
        ]
        text = source.newline.join(lines)
        return text + source.newline if source.final_newline else text
    document: Any = items
    if source.json_envelope is not None:
        document = {
            key: (items if key == "tickets" else value)
            for key, value in source.json_envelope.items()
        }
    text = json.dumps(
        document,
        indent=source.json_indent,
        ensure_ascii=source.json_ascii,
        separators=(",", ":") if source.json_compact else None,
    )
    # json.dumps escapes line breaks inside strings, so every "\n" here is layout.
    text = text.replace("\n", source.newline)
    return text + source.newline if source.final_newline else text


# ---- bytes on disk -----------------------------------------------------------------------------


def _encode(path: Path, text: str, encoding: str, bom: bool) -> bytes:
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise _fail(
            path,
            f"The character “{shorten(bad)}” cannot be stored in this file, which uses the "
            f"{encoding_label(encoding)} text encoding. Remove it, or save the queue under a new "
            "name ending in “.json”.",
        ) from None
    return _BOM_BY_CODEC.get(encoding, b"") + data if bom else data


def _plain_os_error(exc: OSError) -> str:
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "You do not have permission to save in this folder. Choose another folder."
    if exc.errno == errno.ENOSPC:
        return "The disk is full. Free some space and save again."
    if exc.errno == errno.ENOENT:
        return "The folder does not exist any more. Choose another folder."
    if exc.errno == errno.EISDIR:
        return "There is a folder with this name. Choose another name."
    return f"The file could not be written ({exc.strerror or exc})."


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step (atomic_file), or say in plain words why not."""
    try:
        atomic_file.write_atomically(Path(path), data)
    except OSError as exc:
        raise _fail(Path(path), _plain_os_error(exc)) from None


_TICKETS = TypeAdapter(list[Ticket])
_ASSIGNEES = TypeAdapter(list[Assignee])
_TEMPLATES = TypeAdapter(list[Template])


def queue_document_json(queue: LoadedQueue, name: str | None = None) -> bytes:
    """The queue as the console's JSON document (with its `name`, if given), serialised by
    pydantic's Rust core.

    For 100,000 tickets this is ~10x faster than model_dump() + json.dumps(), which matters
    because the person is waiting for the queue to appear. The tickets go a slice at a time
    and the document is joined once: one call over all of them, or a copy of the whole
    document, holds the interpreter (every thread waits, the window's too) for a tenth of a
    second or more.
    """
    head = [b'{"name":', json.dumps(name).encode(), b","] if name is not None else [b"{"]
    return b"".join(
        [
            *head,
            b'"format":"understudy-queue","version":1,"tickets":[',
            *_ticket_slices(queue.tickets),
            b'],"assignees":',
            _ASSIGNEES.dump_json(queue.assignees),
            b',"templates":',
            _TEMPLATES.dump_json(queue.templates),
            b"}",
        ]
    )


_TICKETS_PER_CALL = 2000  # a few milliseconds of serialising each


def _ticket_slices(tickets: list[Ticket]) -> list[bytes]:
    """The members of the tickets' JSON array, a slice at a time, with the commas between."""
    out: list[bytes] = []
    for at in range(0, len(tickets), _TICKETS_PER_CALL):
        if out:
            out.append(b",")
        out.append(_TICKETS.dump_json(tickets[at : at + _TICKETS_PER_CALL])[1:-1])
    return out
