"""How each helpdesk's export is read, remembered: the columns and values a person chose in the
queue preview are used again the next time a file with the same columns is opened.

Kept in the settings table under one key per helpdesk (`source_signature`: the file kind and its
column names), so a re-export with new tickets is read the same way without asking again.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from understudy_desktop.queue_io import (
    ImportChoices,
    LoadedQueue,
    QueueFileError,
    QueuePreview,
    load_queue_file,
    preview_queue_file,
    source_signature,
)
from understudy_desktop.store.settings import Settings

log = logging.getLogger(__name__)

PREFIX = "import_choices:"


class RememberedChoices:
    def __init__(self, settings: Settings | None) -> None:
        self._settings = settings

    def lookup(self, item: QueuePreview | LoadedQueue) -> ImportChoices | None:
        if self._settings is None:
            return None
        stored: Any = self._settings.get(PREFIX + source_signature(item))
        if stored is None:
            return None
        try:
            return ImportChoices.from_json(stored)
        except QueueFileError:
            # Written by a newer version or damaged: read the file by guessing, as if new.
            log.warning("remembered choices for this helpdesk could not be read; ignored")
            return None

    def remember(self, preview: QueuePreview, choices: ImportChoices) -> None:
        if self._settings is not None:
            self._settings.set(PREFIX + source_signature(preview), choices.to_json())

    def read(self, path: Path, confirm: bool) -> tuple[QueuePreview | LoadedQueue, bool]:
        """Read `path` (for the preview when `confirm`), with this helpdesk's remembered
        choices when there are some. Runs on a worker thread; the second bool says whether
        remembered choices were used.

        The key needs the file's column names, so the file is read once by guessing; only a
        helpdesk with remembered choices is read a second time.
        """
        first: QueuePreview | LoadedQueue = (
            preview_queue_file(path) if confirm else load_queue_file(path)
        )
        choices = self.lookup(first)
        if choices is None:
            return first, False
        try:
            again = (
                preview_queue_file(path, choices=choices)
                if confirm
                else load_queue_file(path, choices=choices)
            )
        except QueueFileError:
            # The remembered choices no longer fit this file (a column was dropped): the
            # guess stands, and the preview lets the person choose again.
            return first, False
        return again, True
