"""Reading queue files: the entry points. ``load_queue_file`` tells a JSON file from a CSV one
and hands it to ``json_reader`` or ``csv_reader``; ``preview_queue_file`` adds what the "Open
queue" dialog shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from understudy_desktop.queue_io.choices import ImportChoices
from understudy_desktop.queue_io.columns import FIELD_LABELS, FieldName
from understudy_desktop.queue_io.csv_reader import load_csv
from understudy_desktop.queue_io.errors import cannot_open, shorten
from understudy_desktop.queue_io.file_text import decode, first_character, read_bytes
from understudy_desktop.queue_io.gc_pause import paused_gc
from understudy_desktop.queue_io.json_reader import load_json
from understudy_desktop.queue_io.loaded import LoadedQueue
from understudy_desktop.queue_io.preview import ColumnPreview, QueuePreview


def _looks_like_json(path: Path, text: str) -> bool:
    suffix = path.suffix.casefold()
    if suffix in (".json", ".jsonl", ".ndjson"):
        return True
    if suffix in (".csv", ".tsv", ".txt"):
        return False
    return first_character(text) in ("[", "{")


def load_queue_file(path: Path, choices: ImportChoices | None = None) -> LoadedQueue:
    """Read a helpdesk export (CSV or JSON) or a saved queue; raise QueueFileError if unusable.

    ``choices`` (for exports) overrides the guessed column mapping and the meaning of status and
    priority spellings; without it everything is guessed. The app's own queue files ignore it.
    """
    with paused_gc():
        return _load(Path(path), choices)


def _load(path: Path, choices: ImportChoices | None) -> LoadedQueue:
    data = read_bytes(path)
    if data.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):
        # The most common wrong pick: the spreadsheet itself instead of its CSV export.
        cannot_open(
            path,
            "This is a spreadsheet workbook (such as an Excel file), not a CSV file. In your "
            'spreadsheet program, use Save As and choose "CSV UTF-8", then open that file.',
        )
    text, encoding, bom = decode(path, data)
    if not text or text.isspace():  # not strip(): that copies a 50 MB text in one call
        cannot_open(path, "The file is empty.")
    if "\x00" in text:
        cannot_open(path, "This does not look like a text file. Export the tickets as CSV or JSON.")
    if _looks_like_json(path, text):
        return load_json(path, text, encoding, bom, choices)
    return load_csv(path, text, encoding, bom, choices)


def _example(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return shorten(value)
    return shorten(json.dumps(value, ensure_ascii=False))


def preview_queue_file(
    path: Path, rows: int = 5, choices: ImportChoices | None = None
) -> QueuePreview:
    """What the "Open queue" dialog shows; raises the same QueueFileError as load_queue_file.

    Read again with other ``choices`` whenever the person changes a column or a value's meaning.
    """
    queue = load_queue_file(path, choices)
    source = queue.source
    first = queue.tickets[:rows]
    examples: list[str] = []
    for index, column in enumerate(source.columns):
        example = ""
        for ticket in first:
            if source.kind == "csv":
                value: Any = source.csv_records[ticket.id].cells[index]
            elif source.kind == "understudy":
                value = getattr(ticket, column.name)
                value = " ".join(value) if isinstance(value, list) else value
            else:
                value = source.json_records[ticket.id].get(column.name)
            example = _example(value)
            if example:
                break
        examples.append(example)
    return QueuePreview(
        path=Path(path),
        kind=source.kind,
        encoding=source.encoding,
        delimiter=source.delimiter if source.kind == "csv" else None,
        columns=tuple(
            ColumnPreview(name=c.name, field=c.field, example=e, key=c.key)
            for c, e in zip(source.columns, examples, strict=True)
        ),
        tickets=tuple(first),
        total=len(queue.tickets),
        notes=tuple(queue.notes),
        queue=queue,
        choices=choices,
        rows=rows,
    )


def field_label(name: FieldName | None) -> str:
    return FIELD_LABELS[name] if name is not None else "not used"
