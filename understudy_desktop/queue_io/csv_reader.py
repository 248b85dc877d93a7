"""Reading a CSV export: delimiter and quoting guessed, every row's original text kept."""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from understudy_desktop.queue_io.choices import ImportChoices
from understudy_desktop.queue_io.columns import FieldName, map_columns
from understudy_desktop.queue_io.errors import RowProblems, cannot_open, shorten
from understudy_desktop.queue_io.fields import (
    NO_CHOSEN_ID,
    FieldReader,
    TicketBuilder,
    choose_fields,
)
from understudy_desktop.queue_io.file_text import (
    MAX_FILE_BYTES,
    file_time,
    line_layout,
    physical_lines,
)
from understudy_desktop.queue_io.loaded import (
    CsvQuoting,
    CsvRecord,
    LoadedQueue,
    QueueSource,
    SourceColumn,
)
from understudy_desktop.queue_io.notes import loaded_export

_SNIFF_CHARS: Final = 64 * 1024
_DELIMITERS: Final = (",", ";", "\t", "|")


def _unique_keys(names: Sequence[str]) -> list[str]:
    counts: dict[str, int] = {}
    keys = []
    for name in names:
        counts[name] = counts.get(name, 0) + 1
        keys.append(name if counts[name] == 1 else f"{name} ({counts[name]})")
    return keys


def _sniff_delimiter(sample: str) -> str:
    """Pick the delimiter that splits the header and the next rows into the same many cells."""
    lines = sample.splitlines()[:50]
    best, best_score = ",", (False, -1.0, 0)
    for delimiter in _DELIMITERS:
        try:
            rows = [r for r in csv.reader(lines, delimiter=delimiter) if r]
        except csv.Error:
            continue
        if not rows:
            continue
        width = len(rows[0])
        rest = rows[1:-1] if len(rows) > 2 else rows[1:]  # the sample may cut the last row
        agree = sum(1 for r in rest if len(r) == width) / len(rest) if rest else 1.0
        score = (width > 1, agree, width)
        if score > best_score:
            best, best_score = delimiter, score
    return best


def _sniff_quoting(text: str, header: list[str], delimiter: str, newline: str) -> CsvQuoting:
    """Quote everything only if the file did: then unchanged rows still match byte for byte."""
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, quoting=csv.QUOTE_ALL, lineterminator=newline).writerow(
        header
    )
    all_quoted = out.getvalue()
    return csv.QUOTE_ALL if text.startswith(all_quoted) and len(header) > 0 else csv.QUOTE_MINIMAL


_CSV_ERRORS: Final = (
    (
        "unexpected end of data",
        'a quote mark (") opens a cell here but is never closed. Check the quotes in this row.',
    ),
    (
        "expected after",
        'a quote mark (") is in the middle of a cell. Put the whole cell in quotes and write '
        'the quote mark inside it twice ("").',
    ),
)


class _CsvCursor:
    """Where the csv reader is, for error messages that name the line a problem starts on."""

    def __init__(self, reader: Any, line_ends: list[int]) -> None:
        self.reader = reader
        self.line_ends = line_ends
        self.record_start_line = 1

    def end_of_record(self) -> int:
        return self.line_ends[int(self.reader.line_num) - 1]


def _csv_header(path: Path, cursor: _CsvCursor) -> tuple[list[str], int, int]:
    """The header row (blank lines before it skipped), with where it starts and ends."""
    reader = cursor.reader
    header = next(reader, None)
    while header is not None and not any(cell.strip() for cell in header):
        cursor.record_start_line = reader.line_num + 1
        header = next(reader, None)
    if header is None:
        cannot_open(path, "The file is empty.")
    header_end = cursor.end_of_record()
    start_line = cursor.record_start_line
    header_start = cursor.line_ends[start_line - 2] if start_line > 1 else 0
    cursor.record_start_line = reader.line_num + 1
    return header, header_start, header_end


def _require_id_column(
    path: Path, names: list[str], fields: list[FieldName | None], noun_found: bool
) -> None:
    if "id" in fields:
        return
    if noun_found:
        cannot_open(path, NO_CHOSEN_ID.format(noun="column"))
    found = ", ".join(f"“{shorten(n, 20)}”" for n in names[:12] if n)
    cannot_open(
        path,
        "This file has no ticket id column. Add a column named “id” (or “Ticket ID”) "
        f"with a different value for each ticket, then open the file again. "
        f"The columns we found are: {found or 'none'}.",
    )


def _csv_rows(
    path: Path,
    cursor: _CsvCursor,
    start: int,
    width: int,
    mapped: list[tuple[int, FieldName, str]],
    builder: TicketBuilder,
) -> dict[str, CsvRecord]:
    """Every data row into the builder; each ticket's row text kept for a faithful save."""
    records: dict[str, CsvRecord] = {}
    row = 1
    for cells in cursor.reader:
        row += 1
        cursor.record_start_line = cursor.reader.line_num + 1
        end = cursor.end_of_record()
        if len(cells) != width:
            if not any(cell.strip() for cell in cells):
                start = end
                continue  # spreadsheets leave blank rows behind; they carry no ticket
            cannot_open(
                path,
                f"Row {row} has {len(cells)} cells, but the header has {width} columns. "
                "A value with a comma or semicolon inside probably needs quotes around it.",
                row=row,
            )
        ticket_id = builder.add(f"Row {row}", row, [(f, name, cells[i]) for i, f, name in mapped])
        if ticket_id is not None:
            records[ticket_id] = CsvRecord(cells, start, end)
        start = end
    return records


def load_csv(
    path: Path, text: str, encoding: str, bom: bool, choices: ImportChoices | None
) -> LoadedQueue:
    newline, final_newline = line_layout(text)
    delimiter = _sniff_delimiter(text[:_SNIFF_CHARS])
    # Long e-mail bodies exceed the csv module's 128 KB cell default.
    csv.field_size_limit(max(csv.field_size_limit(), MAX_FILE_BYTES))
    # Where each physical line ends, so every row's original text can be found again. Done in
    # bulk because a per-line generator costs about a second on a 100k-ticket export.
    lines = physical_lines(text)
    cursor = _CsvCursor(
        csv.reader(lines, delimiter=delimiter, strict=True),
        list(itertools.accumulate(map(len, lines))),
    )
    default_created = file_time(path)
    field_reader = FieldReader(default_created, choices.values if choices else None)
    problems = RowProblems(path)
    builder = TicketBuilder(problems, field_reader)
    try:
        header, header_start, header_end = _csv_header(path, cursor)
        names = [name.strip() for name in header]
        keys = _unique_keys(header)
        fields = choose_fields(keys, map_columns(names), choices)
        columns = tuple(
            SourceColumn(name=header[i], key=keys[i], field=fields[i]) for i in range(len(header))
        )
        _require_id_column(path, names, fields, choices is not None and any(map_columns(names)))
        mapped = [(i, f, names[i]) for i, f in enumerate(fields) if f is not None]
        records = _csv_rows(path, cursor, header_end, len(header), mapped, builder)
    except csv.Error as exc:
        reason = str(exc)
        for needle, plain in _CSV_ERRORS:
            if needle in reason:
                reason = plain
                break
        line = cursor.record_start_line
        cannot_open(path, f"Line {line}: {reason}", row=line)
    problems.raise_if_any()

    source = QueueSource(
        kind="csv",
        path=path,
        encoding=encoding,
        bom=bom,
        newline=newline,
        final_newline=final_newline,
        columns=columns,
        delimiter=delimiter,
        quoting=_sniff_quoting(text[header_start:], header, delimiter, newline),
        text=text,
        csv_header=CsvRecord(header, header_start, header_end),
        csv_records=records,
        tag_separator=field_reader.tag_separator or ",",
        vocabulary=field_reader.vocabulary(),
        default_created=default_created,
    )
    return loaded_export(builder, field_reader, source, "column")
