"""File › Open queue… / Save queue as… (and queues dropped or given on the command line): the
flows, on the Qt thread. A file is read on a worker thread, asked about in the preview when the
person opened it, then stored as the saved copy and shown in the console; saving writes the saved
copy back in the shape of the file it came from. The window owns the menus and the status bar
and calls in here; the outcome comes back as signals the window passes on."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QMainWindow

from understudy_desktop.bridge.console_port import CallResult, ConsolePort
from understudy_desktop.queue_io import LoadedQueue, QueueFileError, QueuePreview, save_queue_file
from understudy_desktop.queue_io.gc_pause import paused_gc
from understudy_desktop.queue_io.progress import OpenStoppedError, ReadWatch, watched
from understudy_desktop.shell.background import BackgroundJob
from understudy_desktop.shell.open_progress import OpenProgress
from understudy_desktop.shell.queue_choices import RememberedChoices
from understudy_desktop.shell.queue_keeper import QueueKeeper, SerializedQueue, serialize
from understudy_desktop.shell.queue_preview import QueuePreviewDialog
from understudy_desktop.shell.save_places import save_start
from understudy_desktop.store.queue_store import QueueState
from understudy_desktop.text import file_name_words
from understudy_desktop.web.handoff import Handoff

log = logging.getLogger(__name__)

QUEUE_FILTER = (
    "Ticket queues (*.csv *.json *.jsonl);;CSV files (*.csv);;JSON files (*.json);;"
    "JSON Lines files (*.jsonl *.ndjson)"
)


class QueueFiles(QObject):
    """Opens queue files into the console and saves the queue to a file.

    `loaded` (the ticket count) once an opened queue is both saved and shown, `failed` (the
    message, or "cancelled") when it is not, `saved` (the path) once a file is written.
    """

    loaded = Signal(int)
    failed = Signal(str)
    saved = Signal(str)

    def __init__(
        self,
        window: QMainWindow,
        port: ConsolePort,
        handoff: Handoff,
        show_problem: Callable[[str, str], None],
        show_busy: Callable[[str | None], None],
        opened: Callable[[], None],
    ) -> None:
        """`show_busy` shows what is being opened (None: nothing); `opened` runs after an open."""
        super().__init__(window)
        self._window = window
        self._port = port
        self._handoff = handoff
        self._show_problem = show_problem
        self._show_busy = show_busy
        self._opened = opened
        self.keeper: QueueKeeper | None = None
        self.choices = RememberedChoices(None)
        self._busy: str | None = None
        self._progress: OpenProgress | None = None  # while a file opens
        # Asked before a file replaces the queue (the helpdesk link asks the person when the
        # queue is its helpdesk's): False leaves everything as it is.
        self.may_replace: Callable[[Path], bool] = lambda _path: True

    def attach(self, keeper: QueueKeeper, choices: RememberedChoices) -> None:
        self.keeper = keeper
        self.choices = choices

    # --- opening ----------------------------------------------------------------------------
    def choose_to_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self._window, "Open queue", "", QUEUE_FILTER)
        if path:
            self.open(Path(path), confirm=True)

    def open(self, path: Path, confirm: bool) -> None:
        """Load a queue file into the console; on any problem the current queue stays.

        The file is read on a worker thread (a 100k-ticket CSV takes seconds), stored as the
        saved copy on the database's thread, then shown; the outcome is `loaded` (once it is
        both saved and shown) or `failed`. With `confirm`, the preview asks first.
        """
        if self._busy is not None:
            self._show_problem("Still busy", "Wait until the current queue has finished opening.")
            return
        if confirm and not self.may_replace(path):
            self.failed.emit("cancelled")
            return

        choices = self.choices
        watch = ReadWatch()

        def read() -> tuple[QueuePreview | LoadedQueue, SerializedQueue]:
            # Parsing and serialising for the page and the database happen here, off the GUI
            # thread, with this helpdesk's remembered columns and values; the progress window
            # watches it and can stop it.
            with watched(watch), paused_gc():
                result, _ = choices.read(path, confirm)
                queue = result.queue if isinstance(result, QueuePreview) else result
                return result, serialize(queue, path.name)

        self._progress = OpenProgress(file_name_words(path.name), watch, self._window)
        job = BackgroundJob(read, self)
        job.succeeded.connect(lambda answer: self._read_safely(path, *answer))
        job.failed.connect(lambda exc: self._failed(exc))
        self._set_busy(f"Opening {path.name}…")
        job.start()

    def _read_safely(
        self, path: Path, result: QueuePreview | LoadedQueue, serialized: SerializedQueue
    ) -> None:
        """Whatever goes wrong while showing the preview or storing the queue ends the open
        (File › Open queue… usable again, the problem said), never leaves it "Opening…"."""
        try:
            self._read(path, result, serialized)
        except Exception as exc:
            self._failed(exc)

    def _read(
        self, path: Path, result: QueuePreview | LoadedQueue, serialized: SerializedQueue
    ) -> None:
        if isinstance(result, QueuePreview):
            self._end_progress()  # the preview is the next thing the person sees
            dialog = QueuePreviewDialog(
                result, self._window, remembered=self.choices.lookup(result)
            )
            if dialog.exec() != QueuePreviewDialog.DialogCode.Accepted:
                self._set_busy(None)
                self.failed.emit("cancelled")
                return
            self.choices.remember(dialog.preview, dialog.choices)
            # The file as read with the person's final choices (read in full already; no
            # second pass over the file unless a choice changed how it reads).
            loaded = dialog.queue
            if loaded is not result.queue:
                serialized = serialize(loaded, path.name)
        else:
            loaded = result
        self._store_and_show(path, loaded, serialized)

    def _store_and_show(self, path: Path, loaded: LoadedQueue, serialized: SerializedQueue) -> None:
        assert self.keeper is not None
        self._set_busy(f"Saving and showing {len(loaded.tickets):,} tickets…")
        if self._progress is not None:
            self._progress.saving(len(loaded.tickets))
        # Saved (on the database's thread) and shown (in the page) at the same time; the open
        # counts as done once both are.
        outcome: dict[str, QueueState | str | CallResult] = {}

        def settle() -> None:
            if len(outcome) < 2:
                return
            self._set_busy(None)
            stored, shown = outcome["stored"], outcome["shown"]
            if isinstance(stored, str):
                self._failed(QueueFileError(f"The queue could not be saved: {stored}"))
                return
            if isinstance(shown, CallResult) and not shown.ok:
                # Saved but not shown (the page reloaded meanwhile): it shows at its next start.
                # Said in the app's words: what the page answered may be a script's.
                self._failed(
                    QueueFileError(
                        f"{file_name_words(path.name)} was saved, but the console could not "
                        "show it yet. It shows when the console starts again (View › Reload "
                        "the console)."
                    )
                )
                return
            self.loaded.emit(len(loaded.tickets))
            note = f" ({'; '.join(loaded.notes)})" if loaded.notes else ""
            self._window.statusBar().showMessage(f"Opened {path.name}{note}", 8000)
            self._opened()

        def stored(state: QueueState | str) -> None:
            outcome["stored"] = state
            settle()

        def shown(answer: CallResult) -> None:
            outcome["shown"] = answer
            settle()

        generation = self.keeper.replace(loaded, serialized, stored)
        url = self._handoff.put(serialized.document)
        self._port.load_queue(url, generation, None, shown)

    def _failed(self, exc: object) -> None:
        self._set_busy(None)
        if isinstance(exc, OpenStoppedError):
            # The person's own Stop: said where they look, no dialog to dismiss.
            self._window.statusBar().showMessage(str(exc), 8000)
            self.failed.emit("cancelled")
            return
        if isinstance(exc, QueueFileError):
            message = str(exc)
        else:
            log.exception(
                "opening a queue failed", exc_info=exc if isinstance(exc, Exception) else None
            )
            message = (
                "Something went wrong while reading the file; the queue you had is unchanged. "
                "The details are in the log (Help › Show the log folder)."
            )
        self._show_problem("This queue could not be opened", message)
        self.failed.emit(message)

    def _set_busy(self, text: str | None) -> None:
        self._busy = text
        self._show_busy(text)
        if text is None:
            self._end_progress()

    def _end_progress(self) -> None:
        if self._progress is not None:
            self._progress.finish()
            self._progress = None

    # --- saving -----------------------------------------------------------------------------
    def choose_save_path(self) -> None:
        known = self.keeper.source_path() if self.keeper is not None else None
        start = save_start("queue.json", known)
        path, _ = QFileDialog.getSaveFileName(self._window, "Save queue as", start, QUEUE_FILTER)
        if path:
            self.save(Path(path))

    def save(self, path: Path) -> None:
        """Write the saved copy of the queue, in the shape of the file it came from (known
        across restarts), on a worker thread, once the changes on screen are saved."""
        keeper = self.keeper
        assert keeper is not None

        def write() -> None:
            data = json.loads(keeper.store.document_json())
            save_queue_file(
                path,
                data["tickets"],
                data.get("assignees", []),
                data.get("templates", []),
                keeper.source(),
            )

        def failed(exc: object) -> None:
            message = str(exc) if isinstance(exc, QueueFileError | OSError) else repr(exc)
            self._show_problem("The queue could not be saved", message)

        def written(_none: object) -> None:
            self._window.statusBar().showMessage(f"Saved {path.name}", 5000)
            self.saved.emit(str(path))

        def start(_flushed: CallResult) -> None:
            job = BackgroundJob(write, self)
            job.succeeded.connect(written)
            job.failed.connect(failed)
            job.start()

        # Changes on screen that are still being saved go into the file too.
        self._port.flush(start)
