"""Reading queue files: helpdesk CSV/JSON exports and the app's own queue document."""

from __future__ import annotations

import codecs
import contextlib
import csv
import gc
import io
import itertools
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal, NamedTuple, NoReturn

import charset_normalizer
from pydantic import ValidationError

from understudy_desktop.queue_io.choices import PEOPLE, ImportChoices
from understudy_desktop.queue_io.columns import (
    FIELD_LABELS,
    FIELD_VALUES,
    FIELDS,
    NUMERIC_CODES,
    PRIORITIES,
    STATUSES,
    UNKNOWN_VALUE_DEFAULTS,
    CellValueError,
    FieldName,
    assignee_slug,
    format_utc,
    map_columns,
    normalise_priority,
    normalise_status,
    numeric_code,
    parse_date,
    split_tags,
    tag_separator,
    value_key,
)
from understudy_desktop.queue_io.errors import QueueFileError, shorten
from understudy_desktop.queue_io.models import Assignee, QueueDocument, Template, Ticket
from understudy_desktop.queue_io.plain_text import (
    FORMULA_START,
    html_to_text,
    looks_like_html,
    means_nobody,
)

SourceKind = Literal["csv", "json-array", "json-object", "json-lines", "understudy"]
# Where a status or priority value's meaning came from: the person's choice, the known words,
# a Freshdesk-style number, or nowhere (an unknown value, given a default until someone chooses).
ValueOrigin = Literal["chosen", "known", "number", "unknown"]
# csv.QUOTE_MINIMAL / QUOTE_ALL / QUOTE_NONNUMERIC / QUOTE_NONE, as typeshed spells them.
CsvQuoting = Literal[0, 1, 2, 3]

MAX_FILE_BYTES: Final = 200 * 1024 * 1024
# QueueSource.vocabulary keeps, next to "status" (ours -> theirs), "read:status" (theirs -> ours):
# how every spelling in the file was read, so the writer re-reads unchanged cells the same way.
READ_PREFIX: Final = "read:"
# How many unknown values one note names before it says "and N more".
_NAMED_VALUES: Final = 4
# Stop collecting row problems after this many; the count keeps going so the message stays honest.
_MAX_PROBLEMS: Final = 50
_SNIFF_CHARS: Final = 64 * 1024
_DELIMITERS: Final = (",", ";", "\t", "|")
# Excel on Western-European Windows writes cp1252; charset-normalizer often ranks a Baltic or
# Central-European code page just above it on short files, which garbles accents.
_PREFERRED_LEGACY: Final = ("cp1252",)
_LEGACY_TOLERANCE: Final = 0.1

_ENCODING_LABELS: Final[dict[str, str]] = {
    "utf-8": "UTF-8",
    "utf-16-le": "UTF-16",
    "utf-16-be": "UTF-16",
    "utf-16": "UTF-16",
    "utf-32-le": "UTF-32",
    "utf-32-be": "UTF-32",
    "utf-32": "UTF-32",
    "ascii": "ASCII",
    "cp1252": "Windows-1252",
    "cp1250": "Windows-1250",
    "cp1251": "Windows-1251",
    "iso8859-1": "Latin-1",
    "iso8859-15": "Latin-9",
    "mac-roman": "Mac Roman",
    "cp932": "Shift-JIS",
    "shift_jis": "Shift-JIS",
}
_DELIMITER_LABELS: Final[dict[str, str]] = {
    ",": "comma-separated",
    ";": "semicolon-separated",
    "\t": "tab-separated",
    "|": "separated by |",
}
_KIND_LABELS: Final[dict[str, str]] = {
    "csv": "CSV",
    "json-array": "JSON",
    "json-object": "JSON",
    "understudy": "Understudy queue",
}


def encoding_label(encoding: str) -> str:
    return _ENCODING_LABELS.get(encoding, encoding.upper())


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


@dataclass(frozen=True)
class ColumnPreview:
    name: str
    field: FieldName | None  # None: "not used" (kept and saved back as it is)
    example: str
    # Unique even when a header is repeated ("Labels (2)"); ImportChoices.columns uses it.
    key: str = ""


@dataclass(frozen=True)
class QueuePreview:
    path: Path
    kind: SourceKind
    encoding: str
    delimiter: str | None
    columns: tuple[ColumnPreview, ...]
    tickets: tuple[Ticket, ...]
    total: int
    notes: tuple[str, ...]
    # The fully loaded queue, so accepting the preview does not read the file a second time.
    queue: LoadedQueue
    # The choices the file was read with (None: everything guessed), and the rows asked for.
    choices: ImportChoices | None = None
    rows: int = 5

    @property
    def value_choices(self) -> dict[str, dict[str, str]]:
        """For "status" and "priority": every distinct spelling in the file -> what it became."""
        return self.queue.values.meanings

    @property
    def unknown_values(self) -> dict[str, tuple[str, ...]]:
        """For "status" and "priority": the spellings nobody knows yet, which got a default."""
        return self.queue.values.unknown

    @property
    def people_choices(self) -> dict[str, str]:
        """Every distinct assignee spelling in the file -> the person it is read as ("")."""
        return self.queue.values.people

    @property
    def value_counts(self) -> dict[str, dict[str, int]]:
        """For "status" and "priority": how many tickets use each spelling."""
        return self.queue.values.counts

    @property
    def format_label(self) -> str:
        return _KIND_LABELS[self.kind]

    @property
    def encoding_label(self) -> str:
        return encoding_label(self.encoding)

    @property
    def delimiter_label(self) -> str | None:
        if self.delimiter is None:
            return None
        return _DELIMITER_LABELS.get(self.delimiter, f"separated by {self.delimiter!r}")

    @property
    def description(self) -> str:
        """E.g. "CSV, UTF-8, comma-separated"."""
        parts = [self.format_label, self.encoding_label]
        if self.delimiter_label:
            parts.append(self.delimiter_label)
        return ", ".join(parts)

    def assignee_name(self, assignee_id: str | None) -> str:
        if assignee_id is None:
            return ""
        for assignee in self.queue.assignees:
            if assignee.id == assignee_id:
                return assignee.name
        return assignee_id


# ---- errors ------------------------------------------------------------------------------------


def _fail(path: Path, text: str, *, row: int | None = None, column: str | None = None) -> NoReturn:
    raise QueueFileError(f"Could not open {path.name}. {text}", path=path, row=row, column=column)


def _more(others: int) -> str:
    if others <= 0:
        return ""
    if others == 1:
        return " (There is 1 more problem like this in the file.)"
    return f" (There are {others:,} more problems like this in the file.)"


class _Problems:
    """Row-level problems, gathered so one message can say how many rows need fixing."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.items: list[tuple[str, int | None, str | None]] = []
        self.count = 0

    def add(self, where: str, text: str, row: int | None = None, column: str | None = None) -> None:
        self.count += 1
        if len(self.items) < _MAX_PROBLEMS:
            self.items.append((f"{where}: {text}", row, column))

    def raise_if_any(self) -> None:
        if not self.count:
            return
        first, row, column = self.items[0]
        message = f"Could not open {self.path.name}. {first}{_more(self.count - 1)}"
        raise QueueFileError(
            message,
            path=self.path,
            row=row,
            column=column,
            problems=tuple(item[0] for item in self.items),
        )


# ---- bytes and text ----------------------------------------------------------------------------


def _read_bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if path.is_dir():
            _fail(path, "This is a folder, not a file.")
        if size > MAX_FILE_BYTES:
            _fail(
                path,
                f"The file is too large ({size / 1024 / 1024:.0f} MB); the limit is "
                f"{MAX_FILE_BYTES // 1024 // 1024} MB. Export fewer tickets at a time.",
            )
        data = path.read_bytes()
    except FileNotFoundError:
        _fail(path, "The file was not found. It may have been moved, renamed or deleted.")
    except PermissionError:
        _fail(path, "You do not have permission to read this file.")
    except OSError as exc:
        _fail(path, f"The file could not be read ({exc.strerror or exc}).")
    if not data:
        _fail(path, "The file is empty.")
    return data


_BOMS: Final = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _decode(path: Path, data: bytes) -> tuple[str, str, bool]:
    """Return (text, codec name, had BOM)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding), encoding, True
            except UnicodeDecodeError as exc:
                _fail(
                    path,
                    f"The file says it is {encoding_label(encoding)} text, but it is damaged "
                    f"near byte {exc.start}. Export it again from your helpdesk.",
                )
    try:
        return data.decode("utf-8"), "utf-8", False
    except UnicodeDecodeError:
        pass
    results = list(charset_normalizer.from_bytes(data))
    if results:
        best = results[0]
        for match in results:
            if (
                match.encoding in _PREFERRED_LEGACY
                and match.chaos <= best.chaos + _LEGACY_TOLERANCE
            ):
                best = match
                break
        encoding = codecs.lookup(best.encoding).name
        try:
            return data.decode(encoding), encoding, False
        except UnicodeDecodeError:
            pass
    _fail(
        path,
        "We could not work out how the text in this file is encoded. In your spreadsheet "
        'program, save it again as "CSV UTF-8" and open that copy.',
    )


def _layout(text: str) -> tuple[str, bool]:
    """The file's line ending and whether it ends with one."""
    first = text.find("\n")
    if first > 0 and text[first - 1] == "\r":
        newline = "\r\n"
    elif first == -1 and "\r" in text:
        newline = "\r"
    else:
        newline = "\n"
    return newline, text.endswith(("\n", "\r"))


def _file_time(path: Path) -> str:
    try:
        return format_utc(
            datetime.fromtimestamp(os.stat(path).st_mtime, UTC).replace(microsecond=0)
        )
    except OSError:
        return format_utc(datetime.now(UTC).replace(microsecond=0))


# ---- turning raw values into ticket fields -----------------------------------------------------


class FieldReader:
    """Turns one raw value (a CSV cell or a JSON value) into a ticket field value.

    Shared with the writer, which re-reads the original values to see whether they changed.
    Lookups are cached because exports repeat the same few statuses and names on every row.
    """

    def __init__(
        self, default_created: str, values: Mapping[str, Mapping[str, str]] | None = None
    ) -> None:
        """``values``: chosen meanings of status and priority spellings, which win over rules."""
        self.default_created = default_created
        self.assignee_names: dict[str, str] = {}
        self.tag_separator: str | None = None
        self._chosen: dict[str, dict[str, str]] = {name: {} for name in FIELD_VALUES}
        self._chosen_loosely: dict[str, dict[str, str]] = {name: {} for name in FIELD_VALUES}
        for name, meanings in (values or {}).items():
            if name not in FIELD_VALUES:
                continue
            for raw, ours in meanings.items():
                if ours in FIELD_VALUES[name]:
                    self._chosen[name][raw.strip()] = ours
                    self._chosen_loosely[name].setdefault(value_key(raw), ours)
        # Per field: raw value -> our value, and raw value -> how many cells hold it.
        self._cache: dict[str, dict[str, str]] = {name: {} for name in FIELD_VALUES}
        self._counts: dict[str, dict[str, int]] = {name: {} for name in FIELD_VALUES}
        # Per field: each spelling (stripped), in file order -> (our value, where it came from).
        self.found: dict[str, dict[str, tuple[str, ValueOrigin]]] = {
            name: {} for name in FIELD_VALUES
        }
        self._assignee: dict[str, str | None] = {}
        # Who each assignee spelling was chosen to mean ("" nobody), and what each spelling
        # in the file was read as, with its count (the preview lists them).
        self._people: dict[str, str] = dict((values or {}).get(PEOPLE, {}))
        self.people_read: dict[str, str] = {}
        self.people_counts: dict[str, int] = {}
        self.readers: dict[FieldName, Callable[[Any], Any]] = {
            "id": self.ticket_id,
            "subject": self.text,
            "body": self.body,
            "requester": self.requester,
            "status": self.status,
            "priority": self.priority,
            "assignee": self.assignee,
            "tags": self.tags,
            "created": self.created,
        }

    @staticmethod
    def ticket_id(raw: Any) -> str:
        if isinstance(raw, str):
            return raw.strip()
        if isinstance(raw, int) and not isinstance(raw, bool):
            return str(raw)
        if raw is None:
            return ""
        raise CellValueError("the ticket id must be text or a whole number.")

    @staticmethod
    def text(raw: Any) -> str:
        if isinstance(raw, str):
            if raw.startswith("\t") and raw[1:2] in FORMULA_START:
                # A tab put there to keep a spreadsheet from running the cell as a formula:
                # kept, so the cell is saved back as safe as it came.
                return raw.rstrip()
            return raw.strip()
        if raw is None:
            return ""
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            return str(raw)
        raise CellValueError(f"this should be text, not {shorten(json.dumps(raw))}.")

    @staticmethod
    def requester(raw: Any) -> str:
        if isinstance(raw, dict):
            # Some JSON exports nest the person: {"name": "Ana", "email": "ana@example.com"}.
            # The name is what a reply greets ("Hi Ana,"); the address only when there is none.
            raw = raw.get("name") or raw.get("email")
        return FieldReader.text(raw)

    @staticmethod
    def body(raw: Any) -> str:
        # Leading spaces and blank lines can matter in a message body, so it is kept as written;
        # a body written in HTML (a helpdesk's rich text) is read as the text it shows.
        if isinstance(raw, str):
            return html_to_text(raw) if looks_like_html(raw) else raw
        return FieldReader.text(raw)

    def _word(self, raw: Any, name: str) -> str:
        if raw is None:
            raw = ""
        elif isinstance(raw, int) and not isinstance(raw, bool):
            raw = str(raw)  # JSON exports write Freshdesk codes as numbers: "status": 2
        elif not isinstance(raw, str):
            raise CellValueError(
                f"this should be a word or a number, not {shorten(json.dumps(raw))}."
            )
        counts = self._counts[name]
        counts[raw] = counts.get(raw, 0) + 1
        cache = self._cache[name]
        found = cache.get(raw)
        if found is None:
            found = self._meaning(name, raw.strip())
            cache[raw] = found
        return found

    def _meaning(self, name: str, key: str) -> str:
        """What one spelling means: the person's choice, else the rules, else a default."""
        seen = self.found[name].get(key)
        if seen is not None:
            return seen[0]
        parse = normalise_status if name == "status" else normalise_priority
        origin: ValueOrigin
        try:
            ours = parse(key)
            origin = "number" if numeric_code(name, key) is not None else "known"
        except CellValueError:
            # One odd value must not stop a whole file from opening; the preview asks about it.
            ours, origin = UNKNOWN_VALUE_DEFAULTS[name], "unknown"
        chosen = self._chosen[name].get(key) or self._chosen_loosely[name].get(value_key(key))
        if chosen is not None and (chosen != ours or origin == "unknown"):
            ours, origin = chosen, "chosen"
        self.found[name][key] = (ours, origin)
        return ours

    def status(self, raw: Any) -> str:
        return self._word(raw, "status")

    def priority(self, raw: Any) -> str:
        return self._word(raw, "priority")

    def vocabulary(self) -> dict[str, dict[str, str]]:
        """QueueSource.vocabulary: how to spell each value when writing, and how each was read.

        A value is written in the file's own word for it when the rules know that word, else as
        a Freshdesk number when the file uses those, else as a spelling the person chose for it.
        A spelling that only got a default is never used for other tickets.
        """
        vocabulary: dict[str, dict[str, str]] = {}
        for name, found in self.found.items():
            spellings: dict[str, str] = {}
            for key, (ours, origin) in found.items():
                if key and origin in ("known", "number"):
                    spellings.setdefault(ours, key)
            numbers = any(origin == "number" for _, origin in found.values())
            if numbers and all(key.isdigit() for key in spellings.values()):
                for code, ours in NUMERIC_CODES[name].items():
                    if code not in found:
                        spellings.setdefault(ours, code)
            for key, (ours, origin) in found.items():
                if key and origin == "chosen":
                    spellings.setdefault(ours, key)
            vocabulary[name] = spellings
        for name, found in self.found.items():
            if found:
                vocabulary[READ_PREFIX + name] = {key: ours for key, (ours, _) in found.items()}
        if self._people:
            # So that saving reads each assignee cell as it was loaded (the person's choices).
            vocabulary[READ_PREFIX + PEOPLE] = dict(self._people)
        return vocabulary

    def value_report(self) -> ValueReport:
        counts: dict[str, dict[str, int]] = {}
        for name, by_raw in self._counts.items():
            merged: dict[str, int] = {key: 0 for key in self.found[name]}
            for raw, count in by_raw.items():
                merged[raw.strip()] = merged.get(raw.strip(), 0) + count
            counts[name] = merged
        return ValueReport(
            meanings={
                name: {key: ours for key, (ours, _) in found.items()}
                for name, found in self.found.items()
            },
            counts=counts,
            unknown={
                name: tuple(key for key, (_, origin) in found.items() if origin == "unknown")
                for name, found in self.found.items()
            },
            numbers={
                name: tuple(key for key, (_, origin) in found.items() if origin == "number")
                for name, found in self.found.items()
            },
            people=dict(self.people_read),
            people_counts=dict(self.people_counts),
        )

    def assignee(self, raw: Any) -> str | None:
        if isinstance(raw, dict):
            # Some JSON exports nest the agent: {"id": 7, "name": "Ana"}.
            raw = raw.get("name") or raw.get("email") or raw.get("id")
        if raw is None:
            return None
        if isinstance(raw, int) and not isinstance(raw, bool):
            raw = str(raw)
        if not isinstance(raw, str):
            raise CellValueError(f"this should be a name, not {shorten(json.dumps(raw))}.")
        name = raw.strip()
        self.people_counts[name] = self.people_counts.get(name, 0) + 1
        if raw in self._assignee:
            return self._assignee[raw]
        chosen = self._people.get(name)
        if chosen is not None:
            meant = chosen  # the person said who this is ("" : nobody)
        elif name and not means_nobody(name):
            meant = name
        else:
            meant = ""  # "No Agent", "Unassigned", "-": how exports write that nobody has it
        slug = assignee_slug(meant) if meant else None
        if slug is not None:
            self.assignee_names.setdefault(slug, meant)
        self.people_read[name] = meant
        self._assignee[raw] = slug
        return slug

    def tags(self, raw: Any) -> list[str]:
        if raw is None:
            return []
        if isinstance(raw, str):
            if self.tag_separator is None:
                self.tag_separator = tag_separator(raw)
            return split_tags(raw)
        if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
            return split_tags(" ".join(raw))
        raise CellValueError(
            f"tags should be words separated by commas, not {shorten(json.dumps(raw))}."
        )

    def created(self, raw: Any) -> str:
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return self.default_created
        if not isinstance(raw, str):
            raise CellValueError(f"this should be a date, not {shorten(json.dumps(raw))}.")
        return parse_date(raw)

    def defaults(self) -> dict[str, Any]:
        """Field values for a file that has no column for them."""
        return {
            "subject": "",
            "body": "",
            "requester": "",
            "status": "new",
            "priority": "normal",
            "assignee": None,
            "tags": [],
            "created": self.default_created,
        }


class _TicketBuilder:
    """Validates rows into tickets, checking ids across the whole file."""

    def __init__(self, problems: _Problems, reader: FieldReader) -> None:
        self.problems = problems
        self.reader = reader
        self.tickets: list[Ticket] = []
        self.first_seen: dict[str, str] = {}

    def add(
        self,
        where: str,
        row: int | None,
        values: Sequence[tuple[FieldName, str, Any]],
    ) -> str | None:
        """Build one ticket from (field, column name, raw value); return its id if it is good."""
        fields = self.reader.defaults()
        ok = True
        for name, column, raw in values:
            try:
                fields[name] = self.reader.readers[name](raw)
            except CellValueError as problem:
                self.problems.add(f"{where}, column “{shorten(column)}”", str(problem), row, column)
                ok = False
        ticket_id = fields.get("id", "")
        if not ticket_id:
            self.problems.add(where, "the ticket id is empty. Every ticket needs an id.", row)
            return None
        if ticket_id in self.first_seen:
            self.problems.add(
                where,
                f"the ticket id “{shorten(ticket_id)}” is used twice (also in "
                f"{self.first_seen[ticket_id].lower()}). Every ticket needs its own id.",
                row,
            )
            return None
        self.first_seen[ticket_id] = where
        if ok and not self.problems.count:
            # Values are already normalised; validating again guards the model's invariants.
            self.tickets.append(Ticket.model_validate(fields))
        return ticket_id if ok else None

    def assignees(self) -> list[Assignee]:
        return [Assignee(id=slug, name=name) for slug, name in self.reader.assignee_names.items()]


# ---- CSV ---------------------------------------------------------------------------------------


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


def _choose_fields(
    keys: Sequence[str], guessed: Sequence[FieldName | None], choices: ImportChoices | None
) -> list[FieldName | None]:
    """The guessed mapping, overridden by the chosen one; a chosen field is not guessed again."""
    if choices is None:
        return list(guessed)
    chosen: dict[int, FieldName | None] = {}
    for index, key in enumerate(keys):
        for candidate in (key, key.strip()):
            if candidate in choices.columns:
                chosen[index] = choices.columns[candidate]
                break
    taken = {name for name in chosen.values() if name is not None}
    return [
        chosen.get(index, None if guess in taken else guess) for index, guess in enumerate(guessed)
    ]


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
        _fail(path, "The file is empty.")
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
        _fail(path, _NO_CHOSEN_ID.format(noun="column"))
    found = ", ".join(f"“{shorten(n, 20)}”" for n in names[:12] if n)
    _fail(
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
    builder: _TicketBuilder,
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
            _fail(
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


def _load_csv(
    path: Path, text: str, encoding: str, bom: bool, choices: ImportChoices | None
) -> LoadedQueue:
    newline, final_newline = _layout(text)
    delimiter = _sniff_delimiter(text[:_SNIFF_CHARS])
    # Long e-mail bodies exceed the csv module's 128 KB cell default.
    csv.field_size_limit(max(csv.field_size_limit(), MAX_FILE_BYTES))
    # Where each physical line ends, so every row's original text can be found again. Done in
    # bulk because a per-line generator costs about a second on a 100k-ticket export.
    lines = io.StringIO(text, newline="").readlines()
    cursor = _CsvCursor(
        csv.reader(lines, delimiter=delimiter, strict=True),
        list(itertools.accumulate(map(len, lines))),
    )
    default_created = _file_time(path)
    field_reader = FieldReader(default_created, choices.values if choices else None)
    problems = _Problems(path)
    builder = _TicketBuilder(problems, field_reader)
    try:
        header, header_start, header_end = _csv_header(path, cursor)
        names = [name.strip() for name in header]
        keys = _unique_keys(header)
        fields = _choose_fields(keys, map_columns(names), choices)
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
        _fail(path, f"Line {line}: {reason}", row=line)
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
    return _loaded(builder, field_reader, source, "column")


def _loaded(
    builder: _TicketBuilder, field_reader: FieldReader, source: QueueSource, noun: str
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


_NO_CHOSEN_ID: Final = (
    "No {noun} is used as the ticket id. Choose the {noun} that holds each ticket's id "
    '(under "Use as…", pick "Ticket id").'
)
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


# ---- JSON --------------------------------------------------------------------------------------

_JSON_ERRORS: Final = (
    ("Expecting ',' delimiter", "a comma is missing between two values"),
    ("Expecting ':' delimiter", "a colon (:) is missing after a field name"),
    ("Expecting value", "a value is missing, or there is an extra comma"),
    ("Expecting property name", "a field name is missing or not in double quotes"),
    ("Unterminated string", "a piece of text is missing its closing quote mark"),
    ("Invalid control character", "a piece of text contains a line break; write it as \\n"),
    ("Extra data", "there is more text after the end of the data"),
)


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
        return json.loads(text)
    except json.JSONDecodeError as exc:
        reason = exc.msg
        for needle, plain in _JSON_ERRORS:
            if reason.startswith(needle):
                reason = plain
                break
        _fail(
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
    _fail(
        path,
        "This JSON file has no list of tickets. We can open a list of tickets, or an object "
        'with a "tickets" list, or a queue saved by this app.',
    )


def _json_field_names(path: Path, items: list[Any]) -> list[str]:
    """Every field any ticket has, in the order they first appear."""
    key_order: dict[str, None] = {}
    for position, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            _fail(
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
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2 or not lines[0].lstrip().startswith("{"):
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


def _load_json(
    path: Path, text: str, encoding: str, bom: bool, choices: ImportChoices | None
) -> LoadedQueue:
    per_line = _json_lines(text)
    data = _parse_json(path, text) if per_line is None else per_line
    newline, final_newline = _layout(text)
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
    fields = _choose_fields(names, map_columns(names), choices)
    columns = tuple(
        SourceColumn(name=n, key=n, field=f) for n, f in zip(names, fields, strict=True)
    )
    if items and "id" not in fields:
        if choices is not None and any(map_columns(names)):
            _fail(path, _NO_CHOSEN_ID.format(noun="field"))
        found = ", ".join(f"“{shorten(n, 20)}”" for n in names[:12])
        _fail(
            path,
            "The tickets in this file have no id field. Give each ticket a field named “id” "
            f"with a different value for each ticket. The fields we found are: {found}.",
        )
    mapped = [(c.name, c.field) for c in columns if c.field is not None]
    default_created = _file_time(path)
    field_reader = FieldReader(default_created, choices.values if choices else None)
    problems = _Problems(path)
    builder = _TicketBuilder(problems, field_reader)
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
    return _loaded(builder, field_reader, source, "field")


def _load_understudy(
    path: Path, data: dict[str, Any], encoding: str, bom: bool, newline: str, final_newline: bool
) -> LoadedQueue:
    version = data.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > 1:
        _fail(
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
        default_created=_file_time(path),
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
    message = f"{verb} {path.name}. {lines[0][:1].upper()}{lines[0][1:]}{_more(len(lines) - 1)}"
    return QueueFileError(
        message, path=path, row=first_row, column=first_column, problems=tuple(lines)
    )


# ---- entry points ------------------------------------------------------------------------------


def _looks_like_json(path: Path, text: str) -> bool:
    suffix = path.suffix.casefold()
    if suffix in (".json", ".jsonl", ".ndjson"):
        return True
    if suffix in (".csv", ".tsv", ".txt"):
        return False
    return text.lstrip()[:1] in ("[", "{")


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Hold the cycle collector while building many objects.

    Every 100k-ticket load allocates millions of objects that are all kept, so each collection
    rescans everything and finds nothing; pausing it halves the load time.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_queue_file(path: Path, choices: ImportChoices | None = None) -> LoadedQueue:
    """Read a helpdesk export (CSV or JSON) or a saved queue; raise QueueFileError if unusable.

    ``choices`` (for exports) overrides the guessed column mapping and the meaning of status and
    priority spellings; without it everything is guessed. The app's own queue files ignore it.
    """
    with paused_gc():
        return _load(Path(path), choices)


def _load(path: Path, choices: ImportChoices | None) -> LoadedQueue:
    data = _read_bytes(path)
    if data.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):
        # The most common wrong pick: the spreadsheet itself instead of its CSV export.
        _fail(
            path,
            "This is a spreadsheet workbook (such as an Excel file), not a CSV file. In your "
            'spreadsheet program, use Save As and choose "CSV UTF-8", then open that file.',
        )
    text, encoding, bom = _decode(path, data)
    if not text.strip():
        _fail(path, "The file is empty.")
    if "\x00" in text:
        _fail(path, "This does not look like a text file. Export the tickets as CSV or JSON.")
    if _looks_like_json(path, text):
        return _load_json(path, text, encoding, bom, choices)
    return _load_csv(path, text, encoding, bom, choices)


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
