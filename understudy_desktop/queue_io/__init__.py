"""Opening and saving ticket queues: helpdesk CSV/JSON exports and the app's own queue files.

Reading goes one way, each module importing only those above it:

- ``errors``: the one error type (``QueueFileError``) and the helpers that word it
- ``columns``, ``plain_text``, ``models``: column names, values, HTML as text, the ticket models
- ``choices``: what the person chose for a kind of file (``ImportChoices``)
- ``loaded``: what a read gives (``LoadedQueue``, ``QueueSource``, ``ValueReport``)
- ``file_text``: the bytes as text (size limit, encoding, line endings); ``gc_pause``;
  ``progress`` (how far a read has got, and the person's Stop)
- ``fields``: raw values into ticket fields, rows into tickets (``FieldReader``)
- ``notes``: what a loaded export tells the person
- ``csv_reader``, ``json_reader``: each format read (and saved queues, in ``json_reader``)
- ``preview``: what the "Open queue" dialog shows, and ``source_signature``
- ``reader``: the entry points, ``load_queue_file`` and ``preview_queue_file``

``writer`` saves a queue in the shape it was read in, and ``source_state`` keeps that shape as
JSON across restarts. ``tests/test_code_shape.py`` fails on any import cycle in this package.
"""

from understudy_desktop.queue_io.choices import ImportChoices
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
from understudy_desktop.queue_io.file_text import MAX_FILE_BYTES
from understudy_desktop.queue_io.loaded import LoadedQueue, QueueSource, SourceColumn, ValueReport
from understudy_desktop.queue_io.models import Assignee, QueueDocument, Template, Ticket
from understudy_desktop.queue_io.preview import ColumnPreview, QueuePreview, source_signature
from understudy_desktop.queue_io.reader import field_label, load_queue_file, preview_queue_file
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
