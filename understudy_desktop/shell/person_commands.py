"""What the person does in the console, as the shell carries it out.

The page sends the person's commands (a click, a key, a typed value), Undo and Redo, and Teach;
the shell's model applies them and the page draws what the model says happened, from the
change feed. Keeping, renaming and deleting a recording are decided in the shell's own
dialogs, so a script in the page can ask but never decide.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget

from understudy_desktop.approval.service import ConsentService
from understudy_desktop.bridge import to_page
from understudy_desktop.bridge.console_port import ConsolePort
from understudy_desktop.bridge.protocol import (
    CommandAsk,
    RecordingAsk,
    TeachAsk,
    TypingAsk,
    UndoAsk,
)
from understudy_desktop.bridge.to_page import (
    CommandDone,
    Outcome,
    ReplyValue,
    TeachStarted,
    TeachStopped,
    UndoDone,
    refused,
    reply_of,
)
from understudy_desktop.error_codes import ErrorCode
from understudy_desktop.library.library import Library
from understudy_desktop.library.model import shown_name
from understudy_desktop.model.service import ConsoleModel, FeedEntry
from understudy_desktop.shell.queue_keeper import QueueKeeper
from understudy_desktop.store.queue_store import QueueStore

log = logging.getLogger(__name__)

VIEW_REMEMBER_MS = 300  # the person's filter and open ticket, kept a moment after they settle
# What agents' runs changed is sent at once, then at most this often: an agent calling a tool
# every few milliseconds does not make the page paint a frame for each call, and a call on its
# own is drawn at once. A person's own change is always sent at once (its answer follows it).
FEED_EVERY_MS = 50
NOT_SAVED = "A change could not be saved, so the queue shows the saved copy again."

Send = Callable[[ReplyValue], None]


class PersonCommands(QObject):
    def __init__(
        self,
        model: ConsoleModel,
        port: ConsolePort,
        keeper: QueueKeeper,
        library: Library,
        consent: ConsentService,
        window: QWidget,
    ) -> None:
        super().__init__(window)
        self._model = model
        self._port = port
        self._keeper = keeper
        self._library = library
        self._consent = consent
        self._window = window
        # Per tool, the step a repair re-did (0-based) and the shell's own recording of it.
        self.repairs: dict[str, tuple[int, dict[str, Any]]] = {}
        self._view_timer = QTimer(self)
        self._view_timer.setSingleShot(True)
        self._view_timer.setInterval(VIEW_REMEMBER_MS)
        self._view_timer.timeout.connect(self._remember_view)
        self._feed_held: list[to_page.FeedEntry] = []
        self._feed_sent = 0.0
        self._feed_timer = QTimer(self)
        self._feed_timer.setSingleShot(True)
        self._feed_timer.setInterval(FEED_EVERY_MS)
        self._feed_timer.timeout.connect(self.send_feed)
        port.asked.connect(self._on_ask)
        port.ready_changed.connect(self._on_ready)
        model.fed.connect(self._feed)
        model.not_saved.connect(lambda _why: keeper.reload(NOT_SAVED))

    @property
    def model(self) -> ConsoleModel:
        return self._model

    @property
    def store(self) -> QueueStore:
        return self._keeper.store

    def _feed(self, entry: FeedEntry) -> None:
        tool = self._library.get(entry.tool) if entry.tool else None
        shown = tool.shown_name if tool is not None else shown_name(entry.tool)
        self._feed_held.append(feed_message(entry, shown if entry.tool else ""))
        persons = entry.by == "person" and not entry.tool
        if persons or time.monotonic() - self._feed_sent >= FEED_EVERY_MS / 1000:
            self.send_feed()
        elif not self._feed_timer.isActive():
            self._feed_timer.start()

    def send_feed(self) -> None:
        """What was committed so far goes to the page, in commit order, as one message."""
        self._feed_timer.stop()
        if self._feed_held:
            held, self._feed_held = self._feed_held, []
            self._feed_sent = time.monotonic()
            self._port.feed(to_page.FeedRequest(entries=held))

    def _on_ready(self, ready: bool) -> None:
        if ready:
            self._port.teaching(self.teaching_state())

    def teaching_state(self) -> to_page.TeachingState:
        teaching = self._model.teaching
        repair = teaching.repair
        return to_page.TeachingState(
            active=teaching.active,
            steps=teaching.steps,
            repairTool=repair[0] if repair else None,
            repairStep=repair[1] if repair else None,
        )

    def _on_ask(self, ask_id: str, body: object) -> None:
        def send(value: ReplyValue) -> None:
            self._port.reply(ask_id, value)

        def given(model: to_page.AnswerModel) -> Callable[[dict[str, Any]], None]:
            # The model answers the menus and the tests with dicts; the page gets its models.
            return lambda value: send(reply_of(value, model))

        if isinstance(body, CommandAsk):
            self._model.person(
                body.command, body.payload, given(CommandDone), body.control, dict(body.provenance)
            )
            if body.command in ("filter_tickets", "select_ticket"):
                self._view_timer.start()
        elif isinstance(body, UndoAsk):
            if body.kind == "undo":
                self._model.undo(given(UndoDone), body.seq)
            else:
                self._model.redo(given(UndoDone))
        elif isinstance(body, TeachAsk):
            self._teach(body, send)
        elif isinstance(body, RecordingAsk):
            self._recording(body, send)
        elif isinstance(body, TypingAsk):
            self._model.person_typing(body.ticket)
            send(to_page.Noted())

    def _remember_view(self) -> None:
        self._view_timer.stop()
        self.store.remember_view(self._model.person_view().as_dict())

    def close(self) -> None:
        """The app is closing: a view that settled a moment ago is still kept."""
        if self._view_timer.isActive():
            self._remember_view()

    # --- teaching --------------------------------------------------------------------------
    def start_teaching(self, repair: tuple[str, int] | None = None) -> None:
        """Teach from a menu of the shell, or from the page's button (either starts it; only
        the person's own dialog keeps what was recorded)."""
        self._model.start_teaching(repair)
        self._port.teaching(self.teaching_state())

    def _teach(self, ask: TeachAsk, send: Send) -> None:
        if ask.action == "start":
            repair = None
            if ask.repairTool is not None and ask.repairStep is not None:
                tool = self._library.get(ask.repairTool)
                if tool is None or ask.repairStep >= len(tool.steps):
                    send(refused(ErrorCode.NOT_FOUND, "There is no such tool or step to repair."))
                    return
                repair = (ask.repairTool, ask.repairStep)
            self.start_teaching(repair)
            send(TeachStarted(**self.teaching_state().model_dump()))
            return
        self.stop_teaching(send)

    def stop_teaching(self, send: Send | None = None) -> None:
        """Stop recording once the commands given before are in, then ask the person whether
        to keep what was recorded (a repair's step goes to its repair dialog instead)."""
        self._model.after_pending(lambda: self._stopped(send))

    def _stopped(self, send: Send | None) -> None:
        repair = self._model.teaching.repair
        recording, left_out = self._model.teaching.stop()
        self._port.teaching(self.teaching_state())
        answer: Send = send or (lambda _value: None)
        if recording is None:
            answer(TeachStopped(ok=True, recorded=0))
            return
        if repair is not None:
            # A repair's re-done step goes into the repair dialog, not the recordings.
            self.repairs[repair[0]] = (repair[1], recording)
            step = to_page.RepairStep(tool=repair[0], step=repair[1])
            answer(TeachStopped(ok=True, repair=step, recording=to_page.recording(recording)))
            return

        def decided(value: dict[str, Any]) -> None:
            if value.get("isError"):
                answer(TeachStopped(ok=True, kept=False, recorded=len(recording["steps"])))
                return
            kept = self._library.recording(recording["id"])
            shown = to_page.recording(kept) if kept is not None else None
            answer(TeachStopped(ok=True, kept=True, recording=shown))

        self._consent.keep_recording(recording, decided, left_out)

    # --- recordings ------------------------------------------------------------------------
    def _recording(self, ask: RecordingAsk, send: Send) -> None:
        recording = self._library.recording(ask.id)
        if recording is None:
            send(refused(ErrorCode.NOT_FOUND, "That recording is gone."))
            return
        if ask.action == "delete":
            self._consent.delete_recording(ask.id, lambda value: send(reply_of(value, Outcome)))
            return
        self._rename(recording, send)

    def _rename(self, recording: dict[str, Any], send: Send) -> None:
        dialog = QInputDialog(self._window)
        dialog.setWindowTitle("Rename the recording")
        dialog.setLabelText("A name for this recording:")
        dialog.setTextEchoMode(QLineEdit.EchoMode.Normal)
        dialog.setTextValue(str(recording.get("name", "")))
        dialog.setOkButtonText("Rename")

        def finished(result: int) -> None:
            name = dialog.textValue().strip()[:200]
            dialog.deleteLater()
            if result != QInputDialog.DialogCode.Accepted or not name:
                send(refused(ErrorCode.CONSENT_DENIED, "Not renamed."))
                return
            self._library.save_recording({**recording, "name": name})
            send(to_page.Renamed(status="renamed", name=name))

        dialog.finished.connect(finished)
        self.rename_dialog = dialog
        dialog.open()


def feed_message(entry: FeedEntry, tool_shown: str) -> to_page.FeedEntry:
    """A commit of the model's as the page's change feed carries it (the model knows nothing
    of the page's messages), with the tool that made it as people know it."""
    step = None
    if entry.step is not None:
        step = to_page.FeedStep(
            index=entry.step.index, title=entry.step.title, control=entry.step.control
        )
    return to_page.FeedEntry(
        rev=entry.revision,
        generation=entry.generation,
        by=entry.by,
        tool=entry.tool,
        toolShown=tool_shown,
        writes=[w.parts() for w in entry.writes],
        step=step,
    )
