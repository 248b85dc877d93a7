"""What the "Open queue" dialog shows of a file, and the key its choices are remembered under."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from understudy_desktop.queue_io.choices import ImportChoices
from understudy_desktop.queue_io.columns import FieldName
from understudy_desktop.queue_io.file_text import encoding_label
from understudy_desktop.queue_io.loaded import LoadedQueue, QueueSource, SourceKind
from understudy_desktop.queue_io.models import Ticket

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
    "json-lines": "JSON Lines",
    "understudy": "Understudy queue",
}


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


def source_signature(item: QueuePreview | LoadedQueue | QueueSource) -> str:
    """A short, stable key for "this kind of file": the same for every export of one helpdesk.

    Built from the file kind (CSV, JSON, ...) and its column names: in order for a CSV file, and
    sorted for JSON, whose key order means nothing. The text encoding, the delimiter and the
    rows are left out, so a re-export with other settings or other tickets gets the same key.
    """
    if isinstance(item, QueuePreview):
        source = item.queue.source
    elif isinstance(item, LoadedQueue):
        source = item.source
    else:
        source = item
    names = [column.name.strip() for column in source.columns]
    family = "csv" if source.kind == "csv" else source.kind.split("-")[0]
    if family == "json":
        names.sort()
    text = json.dumps([family, names], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
