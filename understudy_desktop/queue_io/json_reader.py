"""Reading a JSON export (a list, an object holding one, or JSON Lines) or a saved queue."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from understudy_desktop.queue_io.choices import ImportChoices
from understudy_desktop.queue_io.columns import FIELDS, PRIORITIES, STATUSES, map_columns
from understudy_desktop.queue_io.errors import (
    QueueFileError,
    RowProblems,
    cannot_open,
    more_problems,
    shorten,
)
from understudy_desktop.queue_io.fields import (
    NO_CHOSEN_ID,
    FieldReader,
    TicketBuilder,
    choose_fields,
)
from understudy_desktop.queue_io.file_text import (
    file_time,
    first_character,
    line_layout,
    physical_lines,
)
from understudy_desktop.queue_io.json_pieces import loads as loads_in_pieces
from understudy_desktop.queue_io.loaded import LoadedQueue, QueueSource, SourceColumn, SourceKind
from understudy_desktop.queue_io.models import QueueDocument
from understudy_desktop.queue_io.notes import loaded_export

_JSON_ERRORS: Final = (
    ("Expecting ',' delimiter", "a comma is missing between two values"),
    ("Expecting ':' delimiter", "a colon (:) is missing after a field name"),
    ("Expecting value", "a value is missing, or there is an extra comma"),
    ("Expecting property name", "a field name is missing or not in double quotes"),
    ("Unterminated string", "a piece of text is missing its closing quote mark"),
    ("Invalid control character", "a piece of text contains a line break; write it as \\n"),
    ("Extra data", "there is more text after the end of the data"),
    # Python 3.13 and later say this where 3.11 says "Expecting value".
    ("Illegal trailing comma", "there is an extra comma before a closing bracket"),
)
# For anything else Python may say (its words change between versions): still plain.
_JSON_OTHER: Final = "something in it is not written the way JSON needs"


def _json_layout(text: str) -> tuple[int | str | None, bool, bool]:
    """Indent, compact separators, ASCII escapes: so a saved export still looks like its origin."""
    match = re.search(r"[\[{]\r?\n([ \t]+)\S", text[:4096])
    indent: int | str | None
    if match:
        whitespace = match.group(1)
        indent = whitespace if "\t" in whitespace else len(whitespace)
    else:
        indent = None
    compact = indent is None and '": ' not in text[:4096]
    ascii_only = "\\u" in text and text.isascii()
    return indent, compact, ascii_only


def _parse_json(path: Path, text: str) -> Any:
    try:
        return loads_in_pieces(text)  # json.loads, a ticket at a time
    except json.JSONDecodeError as exc:
        reason = next(
            (plain for needle, plain in _JSON_ERRORS if exc.msg.startswith(needle)), _JSON_OTHER
        )
        cannot_open(
            path,
            f"It is not valid JSON: line {exc.lineno}, column {exc.colno}: {reason}.",
            row=exc.lineno,
        )


def _json_tickets(path: Path, data: Any) -> tuple[SourceKind, list[Any], dict[str, Any] | None]:
    """The list of tickets, whether the file is a bare list or an object holding one."""
    if isinstance(data, list):
        return "json-array", data, None
    if isinstance(data, dict) and isinstance(data.get("tickets"), list):
        envelope = {key: (None if key == "tickets" else value) for key, value in data.items()}
        return "json-object", data["tickets"], envelope
    cannot_open(
        path,
        "This JSON file has no list of tickets. We can open a list of tickets, or an object "
        'with a "tickets" list, or a queue saved by this app.',
    )


def _json_field_names(path: Path, items: list[Any]) -> list[str]:
    """Every field any ticket has, in the order they first appear."""
    key_order: dict[str, None] = {}
    for position, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            cannot_open(
                path,
                f"Ticket {position} in the list is not a ticket: it should be an object with "
                f"fields like “id” and “subject”, not {shorten(json.dumps(item))}.",
                row=position,
            )
        for key in item:
            key_order.setdefault(key, None)
    return list(key_order)


def _json_lines(text: str) -> list[Any] | None:
    """The tickets of a JSON Lines export (one object per line, as Zendesk's incremental export
    writes), or None when the text is not that."""
    if first_character(text) != "{":
        return None  # a list, or not JSON: not split into lines for nothing
    # Nor an object written on one line, or one whose first line is not a whole object (a
    # pretty-printed export): the first line tells, without splitting the whole text.
    first_end = text.find("\n")
    if first_end == -1:
        return None
    try:
        json.loads(text[:first_end])
    except json.JSONDecodeError:
        return None
    # Lines as JSON Lines has them (\n or \r\n), a slice of the text at a time.
    lines = [line for line in physical_lines(text) if line.strip()]
    if len(lines) < 2:
        return None
    items = []
    for line in lines:
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            return None
        if not isinstance(item, dict):
            return None
        items.append(item)
    return items


def load_json(
    path: Path, text: str, encoding: str, bom: bool, choices: ImportChoices | None
) -> LoadedQueue:
    per_line = _json_lines(text)
    data = _parse_json(path, text) if per_line is None else per_line
    newline, final_newline = line_layout(text)
    indent, compact, ascii_only = _json_layout(text)
    if isinstance(data, dict) and data.get("format") == "understudy-queue":
        return _load_understudy(path, data, encoding, bom, newline, final_newline)
    if per_line is not None:
        kind: SourceKind = "json-lines"
        items: list[Any] = per_line
        envelope: dict[str, Any] | None = None
    else:
        kind, items, envelope = _json_tickets(path, data)
    names = _json_field_names(path, items)
    fields = choose_fields(names, map_columns(names), choices)
    columns = tuple(
        SourceColumn(name=n, key=n, field=f) for n, f in zip(names, fields, strict=True)
    )
    if items and "id" not in fields:
        if choices is not None and any(map_columns(names)):
            cannot_open(path, NO_CHOSEN_ID.format(noun="field"))
        found = ", ".join(f"“{shorten(n, 20)}”" for n in names[:12])
        cannot_open(
            path,
            "The tickets in this file have no id field. Give each ticket a field named “id” "
            f"with a different value for each ticket. The fields we found are: {found}.",
        )
    mapped = [(c.name, c.field) for c in columns if c.field is not None]
    default_created = file_time(path)
    field_reader = FieldReader(default_created, choices.values if choices else None)
    problems = RowProblems(path)
    builder = TicketBuilder(problems, field_reader)
    records: dict[str, dict[str, Any]] = {}
    ids_were_numbers = bool(items)
    id_key = next((key for key, f in mapped if f == "id"), "id")
    for position, item in enumerate(items, start=1):
        values = [(f, key, item[key]) for key, f in mapped if key in item]
        ticket_id = builder.add(f"Ticket {position}", position, values)
        if ticket_id is not None:
            records[ticket_id] = item
            ids_were_numbers = ids_were_numbers and isinstance(item.get(id_key), int)
    problems.raise_if_any()

    source = QueueSource(
        kind=kind,
        path=path,
        encoding=encoding,
        bom=bom,
        newline=newline,
        final_newline=final_newline,
        columns=columns,
        json_records=records,
        json_envelope=envelope,
        json_indent=indent,
        json_compact=compact,
        json_ascii=ascii_only,
        ids_were_numbers=ids_were_numbers,
        tag_separator=field_reader.tag_separator or ",",
        vocabulary=field_reader.vocabulary(),
        default_created=default_created,
    )
    return loaded_export(builder, field_reader, source, "field")


def _load_understudy(
    path: Path, data: dict[str, Any], encoding: str, bom: bool, newline: str, final_newline: bool
) -> LoadedQueue:
    version = data.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > 1:
        cannot_open(
            path,
            f"This queue was saved by a newer version of Understudy (format version {version}). "
            "Update the app to open it.",
        )
    try:
        document = QueueDocument.model_validate(data)
    except ValidationError as exc:
        raise plain_validation_error(path, exc, "Could not open") from None
    source = QueueSource(
        kind="understudy",
        path=path,
        encoding=encoding,
        bom=bom,
        newline=newline,
        final_newline=final_newline,
        columns=tuple(SourceColumn(name=f, key=f, field=f) for f in FIELDS),
        default_created=file_time(path),
    )
    return LoadedQueue(
        tickets=document.tickets,
        assignees=document.assignees,
        templates=document.templates,
        source=source,
    )


_ITEM_NAMES: Final = {"tickets": "Ticket", "assignees": "Assignee", "templates": "Template"}


def plain_validation_error(path: Path, exc: ValidationError, verb: str) -> QueueFileError:
    """Turn pydantic's report into sentences that name the ticket and field involved."""
    lines: list[str] = []
    first_row: int | None = None
    first_column: str | None = None
    for error in exc.errors():
        loc = list(error["loc"])
        where_parts: list[str] = []
        if len(loc) >= 2 and isinstance(loc[0], str) and isinstance(loc[1], int):
            where_parts.append(f"{_ITEM_NAMES.get(loc[0], loc[0])} {loc[1] + 1}")
            first_row = first_row if first_row is not None else loc[1] + 1
            loc = loc[2:]
        field_name = ".".join(str(part) for part in loc)
        if field_name:
            where_parts.append(f"field “{shorten(field_name)}”")
            first_column = first_column or field_name
        value = error.get("input")
        kind = error["type"]
        if kind == "missing":
            text = "this field is missing."
        elif kind == "extra_forbidden":
            text = "this field is not one we know."
        elif kind == "literal_error" and field_name in ("status", "priority"):
            allowed = STATUSES if field_name == "status" else PRIORITIES
            text = (
                f"the {field_name} “{shorten(value)}” is not one we know. "
                f"Use one of: {', '.join(allowed)}."
            )
        elif kind == "string_type":
            text = "this should be text."
        elif kind == "string_too_short":
            text = "this must not be empty."
        elif kind in ("list_type", "model_type"):
            text = "this has the wrong shape."
        else:
            text = error["msg"].removeprefix("Value error, ")
            text = text[:1].upper() + text[1:] if not where_parts else text
            text = text if text.endswith(".") else text + "."
        lines.append(f"{', '.join(where_parts)}: {text}" if where_parts else text)
    message = (
        f"{verb} {path.name}. {lines[0][:1].upper()}{lines[0][1:]}{more_problems(len(lines) - 1)}"
    )
    return QueueFileError(
        message, path=path, row=first_row, column=first_column, problems=tuple(lines)
    )
