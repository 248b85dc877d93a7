"""Opening and saving ticket queues: helpdesk CSV/JSON exports and the app's own queue files."""

from understudy_desktop.queue_io.columns import FIELD_LABELS, FIELDS, PRIORITIES, STATUSES
from understudy_desktop.queue_io.errors import QueueFileError
from understudy_desktop.queue_io.models import Assignee, QueueDocument, Template, Ticket
from understudy_desktop.queue_io.reader import (
    MAX_FILE_BYTES,
    ColumnPreview,
    LoadedQueue,
    QueuePreview,
    QueueSource,
    SourceColumn,
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
    "MAX_FILE_BYTES",
    "PRIORITIES",
    "STATUSES",
    "Assignee",
    "ColumnPreview",
    "LoadedQueue",
    "QueueDocument",
    "QueueFileError",
    "QueuePreview",
    "QueueSource",
    "SourceColumn",
    "Template",
    "Ticket",
    "field_label",
    "load_queue_file",
    "preview_queue_file",
    "queue_document_json",
    "save_queue_file",
    "source_from_state",
    "source_to_state",
    "write_atomically",
]
