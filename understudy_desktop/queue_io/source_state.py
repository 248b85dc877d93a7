"""A QueueSource as plain JSON data, so "Save queue as…" keeps the file's shape after a restart.

What is stored and what is re-derived:

* CSV: the original ``text`` is stored, and for the header and each record only where its text
  sits (start and end offsets) plus, for records, the ticket id. The cells are re-derived on load
  by splitting the text into lines and feeding each record's lines to the csv module exactly as
  the reader did (``newline=""`` line split, same delimiter, ``strict=True``). A record's cells
  depend on nothing but its own lines, so this is exact, and every cell is not stored twice.

  Re-running the whole reader on the text is deliberately not done: it re-guesses the delimiter
  and the column mapping and re-validates every date and status, with rules that may change
  between app versions, while this state outlives an upgrade. The ticket ids keying the records
  could then change and the writer would treat every row as new. Stored offsets and ids keep the
  restore independent of those heuristics, and the parse checks that they still fit the text.

* JSON exports: the reader keeps no text for them, so the records and the envelope are stored as
  they are (they are JSON values already; the order of records and of keys is kept).
* Everything else (encoding, BOM, layout, columns, vocabulary, ...) is stored as is.
"""

from __future__ import annotations

import bisect
import codecs
import csv
import io
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, TypeVar, cast, get_args

from understudy_desktop.queue_io.columns import FIELDS, FieldName
from understudy_desktop.queue_io.errors import QueueFileError, shorten
from understudy_desktop.queue_io.file_text import MAX_FILE_BYTES
from understudy_desktop.queue_io.gc_pause import paused_gc
from understudy_desktop.queue_io.loaded import (
    CsvQuoting,
    CsvRecord,
    QueueSource,
    SourceColumn,
    SourceKind,
)

STATE_VERSION: Final = 1

_KINDS: Final[tuple[str, ...]] = get_args(SourceKind)
_QUOTINGS: Final[tuple[int, ...]] = get_args(CsvQuoting)
# The reader only ever finds these line endings; anything else means the state was edited.
_NEWLINES: Final = ("\n", "\r\n", "\r")

_L = TypeVar("_L")


def source_to_state(source: QueueSource) -> dict[str, Any]:
    """The source as JSON-serialisable data (``json.dumps(..., ensure_ascii=False)`` works).

    The JSON records are shared with ``source``, not copied (they can be 100k tickets): serialise
    the result, do not change it.
    """
    header = source.csv_header
    with paused_gc():  # 100k small lists would otherwise trigger full collections of the queue
        return _state(source, header)


def _state(source: QueueSource, header: CsvRecord | None) -> dict[str, Any]:
    return {
        "version": STATE_VERSION,
        "kind": source.kind,
        "path": str(source.path),
        "encoding": source.encoding,
        "bom": source.bom,
        "newline": source.newline,
        "final_newline": source.final_newline,
        "columns": [
            {"name": column.name, "key": column.key, "field": column.field}
            for column in source.columns
        ],
        "delimiter": source.delimiter,
        "quoting": source.quoting,
        "text": source.text,
        "csv_header": None if header is None else [header.start, header.end],
        # Lists of pairs/triples rather than objects: the order of records matters to the writer.
        "csv_records": [
            [ticket_id, record.start, record.end]
            for ticket_id, record in source.csv_records.items()
        ],
        "json_records": [[ticket_id, record] for ticket_id, record in source.json_records.items()],
        "json_envelope": source.json_envelope,
        "json_indent": source.json_indent,
        "json_compact": source.json_compact,
        "json_ascii": source.json_ascii,
        "ids_were_numbers": source.ids_were_numbers,
        "tag_separator": source.tag_separator,
        "vocabulary": source.vocabulary,
        "default_created": source.default_created,
    }


def source_from_state(state: Any) -> QueueSource:
    """Rebuild the source ``source_to_state`` described; raise QueueFileError if it is damaged."""
    if not isinstance(state, dict):
        raise _damaged("they are not a set of named values")
    version = _get(state, "version")
    if isinstance(version, int) and not isinstance(version, bool) and version > STATE_VERSION:
        raise _damaged("they were saved by a newer version of Understudy")
    if not isinstance(version, int) or isinstance(version, bool) or version != STATE_VERSION:
        raise _damaged("they are in a format this version of Understudy does not know")

    encoding = _text(state, "encoding")
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise _damaged(f"the text encoding “{shorten(encoding)}” is not one we know") from None
    path = _text(state, "path")
    if not path:
        raise _damaged('the "path" entry is empty')
    delimiter = _text(state, "delimiter")
    if len(delimiter) != 1:
        raise _damaged('the "delimiter" entry should be a single character')
    newline = _text(state, "newline")
    if newline not in _NEWLINES:
        raise _damaged('the "newline" entry is not a line ending')
    kind = cast(SourceKind, _one_of(state, "kind", _KINDS))
    quoting = cast(CsvQuoting, _one_of(state, "quoting", _QUOTINGS))
    text = _text(state, "text")
    columns = _columns(_get(state, "columns"))

    with paused_gc():
        csv_header, csv_records = _csv_parts(state, text, delimiter, columns)
        json_records = _json_records(_get(state, "json_records"))

    return QueueSource(
        kind=kind,
        path=Path(path),
        encoding=encoding,
        bom=_flag(state, "bom"),
        newline=newline,
        final_newline=_flag(state, "final_newline"),
        columns=columns,
        delimiter=delimiter,
        quoting=quoting,
        text=text,
        csv_header=csv_header,
        csv_records=csv_records,
        json_records=json_records,
        json_envelope=_envelope(_get(state, "json_envelope")),
        json_indent=_indent(_get(state, "json_indent")),
        json_compact=_flag(state, "json_compact"),
        json_ascii=_flag(state, "json_ascii"),
        ids_were_numbers=_flag(state, "ids_were_numbers"),
        tag_separator=_text(state, "tag_separator"),
        vocabulary=_vocabulary(_get(state, "vocabulary")),
        default_created=_text(state, "default_created"),
    )


# ---- checking values ---------------------------------------------------------------------------


def _damaged(detail: str) -> QueueFileError:
    return QueueFileError(
        f"The remembered details of the queue file cannot be used: {detail}. Open the file again "
        "(File › Open queue…) so that it can be saved back in its original shape."
    )


def _get(state: dict[str, Any], key: str) -> Any:
    if key not in state:
        raise _damaged(f"the “{key}” entry is missing")
    return state[key]


def _text(state: dict[str, Any], key: str) -> str:
    value = _get(state, key)
    if not isinstance(value, str):
        raise _damaged(f"the “{key}” entry should be text")
    return value


def _flag(state: dict[str, Any], key: str) -> bool:
    value = _get(state, key)
    if not isinstance(value, bool):
        raise _damaged(f"the “{key}” entry should be true or false")
    return value


def _one_of(state: dict[str, Any], key: str, allowed: tuple[_L, ...]) -> _L:
    value = _get(state, key)
    # bool is an int (True == 1), so it must be ruled out before the membership test.
    if isinstance(value, bool) or value not in allowed:
        raise _damaged(f"the “{key}” entry is not one we know")
    return cast(_L, value)


def _columns(value: Any) -> tuple[SourceColumn, ...]:
    if not isinstance(value, list):
        raise _damaged('the "columns" entry should be a list')
    columns = []
    for item in value:
        if not isinstance(item, dict):
            raise _damaged("a column is not described properly")
        name, key, field = item.get("name"), item.get("key"), item.get("field")
        if not isinstance(name, str) or not isinstance(key, str):
            raise _damaged("a column has no name")
        if field is not None and field not in FIELDS:
            raise _damaged(f"the column “{shorten(name)}” feeds a ticket field we do not know")
        columns.append(SourceColumn(name=name, key=key, field=cast(FieldName | None, field)))
    return tuple(columns)


def _envelope(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    # The writer puts the tickets back in the "tickets" slot; without it they would be dropped.
    if not isinstance(value, dict) or "tickets" not in value:
        raise _damaged('the "json_envelope" entry has no place for the tickets')
    return value


def _indent(value: Any) -> int | str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise _damaged('the "json_indent" entry should be a number, text or null')


def _vocabulary(value: Any) -> dict[str, dict[str, str]]:
    ok = isinstance(value, dict) and all(
        isinstance(words, dict)
        and all(isinstance(ours, str) and isinstance(theirs, str) for ours, theirs in words.items())
        for words in value.values()
    )
    if not ok:
        raise _damaged('the "vocabulary" entry should map words to words')
    return cast(dict[str, dict[str, str]], value)


def _json_records(value: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(value, list):
        raise _damaged('the "json_records" entry should be a list')
    records: dict[str, dict[str, Any]] = {}
    for item in value:
        if not (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], str)
            and isinstance(item[1], dict)
        ):
            raise _damaged("a JSON ticket is not stored as an id and an object")
        if item[0] in records:
            raise _damaged(f"the ticket id {_quoted(item[0])} is stored twice")
        records[item[0]] = item[1]
    return records


# ---- re-deriving CSV cells ---------------------------------------------------------------------


class _Lines:
    """The text split into physical lines exactly as the reader splits it (``newline=""``)."""

    def __init__(self, text: str) -> None:
        self.lines = io.StringIO(text, newline="").readlines()
        # Sorted, so an offset is looked up by bisection (a dict would cost far more memory).
        self.ends = list(itertools.accumulate(map(len, self.lines)))

    def count_before(self, offset: Any) -> int | None:
        """How many lines come before ``offset``, or None unless a line starts there."""
        if type(offset) is not int:
            return None
        if offset == 0:
            return 0
        index = bisect.bisect_left(self.ends, offset)
        return index + 1 if index < len(self.ends) and self.ends[index] == offset else None

    def span(self, start: Any, end: Any) -> tuple[int, int] | None:
        """The lines text[start:end] covers, or None unless it is a non-empty run of lines."""
        first, last = self.count_before(start), self.count_before(end)
        if first is None or last is None or first >= last:
            return None
        return first, last


def _parse(lines: _Lines, spans: Sequence[tuple[int, int]], delimiter: str) -> list[list[str]]:
    """The cells of the one CSV record in each span, read the way the reader read them.

    The reader fed the same lines to ``csv.reader(..., strict=True)``; a record starts and ends
    on a line boundary and the csv reader carries nothing over from one record to the next, so
    feeding just the records' lines gives the same cells. One reader for all spans keeps a 100k
    row restore fast; its line count proves that each span held exactly one record.
    """
    chunks = itertools.chain.from_iterable(lines.lines[first:last] for first, last in spans)
    reader = csv.reader(chunks, delimiter=delimiter, strict=True)
    rows: list[list[str]] = []
    consumed = 0
    try:
        for first, last in spans:
            consumed += last - first
            row = next(reader, None)
            if row is None or reader.line_num != consumed:
                break
            rows.append(row)
    except csv.Error:
        pass
    return rows


def _csv_parts(
    state: dict[str, Any], text: str, delimiter: str, columns: tuple[SourceColumn, ...]
) -> tuple[CsvRecord | None, dict[str, CsvRecord]]:
    header_value = _get(state, "csv_header")
    records_value = _get(state, "csv_records")
    if header_value is not None and not (isinstance(header_value, list) and len(header_value) == 2):
        raise _damaged('the "csv_header" entry should be a start and an end')
    if not isinstance(records_value, list):
        raise _damaged('the "csv_records" entry should be a list')
    if header_value is None and not records_value:
        return None, {}
    # Long e-mail bodies exceed the csv module's 128 KB cell default; the reader raises it too,
    # but after a restart nothing may have been read yet.
    csv.field_size_limit(max(csv.field_size_limit(), MAX_FILE_BYTES))
    lines = _Lines(text)

    header: CsvRecord | None = None
    previous_end = 0
    if header_value is not None:
        start, end = header_value
        span = lines.span(start, end)
        cells = _parse(lines, [span], delimiter) if span is not None else []
        if not cells:
            raise _damaged("the header does not line up with the remembered text")
        if cells[0] != [column.name for column in columns]:
            raise _damaged("the header does not match the remembered columns")
        header = CsvRecord(cells[0], start, end)
        previous_end = end

    spans: list[tuple[int, int]] = []
    for item in records_value:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)):
            raise _damaged("a CSV row is not stored as an id, a start and an end")
        span = lines.span(item[1], item[2])
        if span is None or item[1] < previous_end:
            raise _damaged(f"the row of ticket {_quoted(item[0])} does not line up with the text")
        spans.append(span)
        previous_end = item[2]

    rows = _parse(lines, spans, delimiter)
    width = len(columns)
    records: dict[str, CsvRecord] = {}
    for position, (ticket_id, start, end) in enumerate(records_value):
        if position >= len(rows):
            raise _damaged(f"the row of ticket {_quoted(ticket_id)} does not line up with the text")
        # The writer indexes cells by column; a short row would fail only at save time.
        if len(rows[position]) != width:
            raise _damaged(f"the row of ticket {_quoted(ticket_id)} has the wrong number of cells")
        if ticket_id in records:
            raise _damaged(f"the ticket id {_quoted(ticket_id)} is stored twice")
        records[ticket_id] = CsvRecord(rows[position], start, end)
    return header, records


def _quoted(ticket_id: str) -> str:
    return f"“{shorten(ticket_id)}”"
