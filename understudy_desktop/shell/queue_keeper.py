"""The console's queue, kept by the shell: what the console starts with, every change saved
before it counts as saved, and the file the queue came from.

- At start the console gets the database's copy, always; its cache (IndexedDB) is rebuilt
  from it. When the cache said something else, the console says so in one line (unless this
  is the very first start).
  The queue is never silently replaced by the demo queue: the demo queue is stored the first
  time, like any other queue.
- Every change is applied and committed by the shell's model (model/service.py) before the
  person sees "saved" or the agent gets its result. A change that cannot be saved is said
  plainly, and the console is put back to the saved copy, so it never shows what is not kept.
- The file the queue came from (format, columns, extra columns, header order) is kept too, so
  Save queue as… writes the same shape after a restart.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter
from PySide6.QtCore import QObject, Signal

from understudy_desktop.bridge.console_port import ConsolePort
from understudy_desktop.bridge.protocol import QueueAsk, ResyncAsk
from understudy_desktop.bridge.to_page import NoQueue, QueuePlan, Resynced
from understudy_desktop.paths import web_assets_dir
from understudy_desktop.queue_io import (
    Assignee,
    LoadedQueue,
    QueueFileError,
    QueueSource,
    Template,
    queue_document_json,
    source_from_state,
    source_to_state,
)
from understudy_desktop.shell.background import BackgroundJob
from understudy_desktop.store.database import storage_words
from understudy_desktop.store.queue_store import QueueState, QueueStore, Row, ticket_row
from understudy_desktop.web.handoff import Handoff

log = logging.getLogger(__name__)

RESTORED = (
    "Your queue was restored from Understudy's saved copy (this window's own copy was missing "
    "or out of date)."
)
RELOADED = "A change could not be saved, so the queue shows the saved copy again."


_PEOPLE = TypeAdapter(list[Assignee])
_TEMPLATES = TypeAdapter(list[Template])


@dataclass(frozen=True)
class SerializedQueue:
    """A queue read from a file, prepared once (off the GUI thread) for both its homes: the
    page's document and the database's rows."""

    document: bytes
    rows: list[Row]
    meta: dict[str, Any]


@cache
def console_templates() -> tuple[Template, ...]:
    """The console's own reply templates (those of the demo queue)."""
    demo = json.loads((web_assets_dir() / "data" / "default_queue.json").read_text("utf-8"))
    return tuple(_TEMPLATES.validate_python(demo.get("templates") or []))


def serialize(queue: LoadedQueue, name: str) -> SerializedQueue:
    if not queue.templates:
        # A helpdesk export has tickets only: the console's reply templates stay available,
        # in this session and after a restart alike.
        queue = dataclasses.replace(queue, templates=list(console_templates()))
    document = queue_document_json(queue, name)
    rows = [ticket_row(t, i) for i, t in enumerate(queue.tickets)]
    meta = {
        "name": name,
        "assignees": json.loads(_PEOPLE.dump_json(queue.assignees)),
        "templates": json.loads(_TEMPLATES.dump_json(queue.templates)),
    }
    return SerializedQueue(document, rows, meta)


class QueueKeeper(QObject):
    reloaded = Signal(str)  # the console went back to the saved copy; the reason
    shown = Signal()  # the console shows the saved copy it was given again

    def __init__(
        self,
        store: QueueStore,
        port: ConsolePort,
        handoff: Handoff,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self._port = port
        self._handoff = handoff
        self._jobs: set[BackgroundJob] = set()
        port.asked.connect(self._on_ask)

    # --- what the console starts with ---------------------------------------------------
    def _on_ask(self, ask_id: str, body: object) -> None:
        if isinstance(body, QueueAsk):
            self._starting(ask_id, body)
        elif isinstance(body, ResyncAsk):
            self._port.reply(ask_id, Resynced())
            self.reload("")

    def _starting(self, ask_id: str, ask: QueueAsk) -> None:
        """The console starts from the database's copy, always: its own cache (IndexedDB) is
        written by the page, where any script can edit it, so it is rebuilt from this copy
        and never read back. The person hears of it only when the cache said something else
        (deleted, older, damaged, or holding changes the database never confirmed)."""
        state = self.store.state()
        if state is None:
            self._seed(ask_id)
            return
        cache = ask.cache
        agrees = (
            cache is not None
            and not cache.dirty
            and cache.generation == state.generation
            and cache.revision == state.revision
            and cache.tickets == state.tickets
        )
        self._hand_over(ask_id, state, notice="" if agrees else RESTORED)

    def _seed(self, ask_id: str) -> None:
        """The very first start: the demo queue becomes the saved copy, like any queue."""
        demo = json.loads((web_assets_dir() / "data" / "default_queue.json").read_text("utf-8"))

        def stored(result: QueueState | Exception) -> None:
            if isinstance(result, Exception):
                self._port.reply(ask_id, NoQueue(use="none", message=str(result)))
                return
            self._hand_over(ask_id, result, first_run=True)

        self.store.replace(demo, None, "the demo queue", stored)

    def _hand_over(
        self, ask_id: str, state: QueueState, notice: str = "", first_run: bool = False
    ) -> None:
        def ready(data: bytes) -> None:
            plan = QueuePlan(
                use="url",
                url=self._handoff.put(data),
                generation=state.generation,
                revision=state.revision,
                notice=notice,
                firstRun=first_run,
            )
            self._port.reply(ask_id, plan)

        def failed(exc: object) -> None:
            log.error("the saved queue could not be read: %s", exc)
            message = f"Understudy's saved copy of the queue could not be read ({exc})."
            self._port.reply(ask_id, NoQueue(use="none", message=message))

        self._background(self.store.document_json, ready, failed)

    def reload(self, reason: str) -> None:
        """Put the console back to the saved copy (after a change could not be saved)."""
        state = self.store.state()
        if state is None:
            return

        def ready(data: bytes) -> None:
            url = self._handoff.put(data)
            self._port.load_queue(
                url, state.generation, state.revision, lambda _r: self.shown.emit(), notice=reason
            )
            self.reloaded.emit(reason)

        self._background(self.store.document_json, ready, lambda exc: log.error("%s", exc))

    # --- the queue file ---------------------------------------------------------------------
    def replace(
        self,
        loaded: LoadedQueue,
        serialized: SerializedQueue,
        done: Callable[[QueueState | str], None],
    ) -> str:
        """A queue opened from a file becomes the saved copy (one transaction, written on the
        database's own thread, while the page shows it), with the file's shape, so Save queue
        as… can write it back the same way after a restart. Returns its generation at once;
        `done` hears when it is saved, and the page is told (op "saved")."""
        source = source_to_state(loaded.source)

        def stored(result: QueueState | Exception) -> None:
            if isinstance(result, Exception):
                self._port.saved(None, _plain(result), generation)
                self.reload(f"{loaded.source.path.name} could not be saved, so it was not opened.")
                done(_plain(result))
                return
            self._port.saved(result.revision, generation=result.generation)
            done(result)

        generation = secrets.token_hex(8)
        return self.store.replace_rows(
            serialized.meta, serialized.rows, source, loaded.source.path.name, stored, generation
        )

    def source(self) -> QueueSource | None:
        """The file the saved queue came from, or None (the demo queue, the app's own JSON)."""
        state = self.store.meta("source")
        if not isinstance(state, dict):
            return None
        try:
            return source_from_state(state)
        except QueueFileError as exc:
            log.warning("the remembered queue file cannot be used: %s", exc)
            return None

    def known(self) -> dict[str, list[dict[str, str]]]:
        """The people and reply templates on the saved queue ({"person": [...], "template":
        [...]}, each {"id", "name"}): what a pack's references are matched against."""
        out: dict[str, list[dict[str, str]]] = {}
        for kind, key in (("person", "assignees"), ("template", "templates")):
            items = self.store.meta(key)
            out[kind] = [
                {"id": str(i.get("id", "")), "name": str(i.get("name", ""))}
                for i in (items if isinstance(items, list) else [])
                if isinstance(i, dict) and i.get("id")
            ]
        return out

    def source_path(self) -> Path | None:
        source = self.store.meta("source")
        path = source.get("path") if isinstance(source, dict) else None
        return Path(path) if isinstance(path, str) and path else None

    # --- plumbing -----------------------------------------------------------------------------
    def _background(
        self,
        work: Callable[[], bytes],
        ready: Callable[[bytes], None],
        failed: Callable[[object], None],
    ) -> None:
        job = BackgroundJob(work, self)
        self._jobs.add(job)

        def finish(handler: Callable[[Any], None]) -> Callable[[object], None]:
            def run(value: object) -> None:
                self._jobs.discard(job)
                job.deleteLater()
                handler(value)

            return run

        job.succeeded.connect(finish(ready))
        job.failed.connect(finish(failed))
        job.start()


def _plain(exc: BaseException) -> str:
    # SQLite's own words ("database or disk is full") are not for a person.
    return storage_words(exc)
