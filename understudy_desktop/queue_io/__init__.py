"""Opening and saving ticket queues: helpdesk CSV/JSON exports and the app's own queue files."""

from understudy_desktop.queue_io.choices import ImportChoices, source_signature
from understudy_desktop.queue_io.columns import (
    FIELD_LABELS,
    FIELD_VALUES,
    FIELDS,
    PRIORITIES,
    STATUSES,
    UNKNOWN_VALUE_DEFAULTS,
    FieldName,
)
from understudy_desktop.queue_io.errors import QueueFileError
from understudy_desktop.queue_io.models import Assignee, QueueDocument, Template, Ticket
from understudy_desktop.queue_io.reader import (
    MAX_FILE_BYTES,
    ColumnPreview,
    LoadedQueue,
    QueuePreview,
    QueueSource,
    SourceColumn,
    ValueReport,
    field_label,
    load_queue_file,
    preview_queue_file,
)
from understudy_desktop.queue_io.source_state import source_from_state, source_to_state
from understudy_desktop.queue_io.writer import (
    queue_document_json,
    save_queue_file,
    write_atomically,
)

__all__ = [
    "FIELDS",
    "FIELD_LABELS",
    "FIELD_VALUES",
    "MAX_FILE_BYTES",
    "PRIORITIES",
    "STATUSES",
    "UNKNOWN_VALUE_DEFAULTS",
    "Assignee",
    "ColumnPreview",
    "FieldName",
    "ImportChoices",
    "LoadedQueue",
    "QueueDocument",
    "QueueFileError",
    "QueuePreview",
    "QueueSource",
    "SourceColumn",
    "Template",
    "Ticket",
    "ValueReport",
    "field_label",
    "load_queue_file",
    "preview_queue_file",
    "queue_document_json",
    "save_queue_file",
    "source_from_state",
    "source_signature",
    "source_to_state",
    "write_atomically",
]
