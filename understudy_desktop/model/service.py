"""The console's model as the app runs it: every change to the queue is applied here.

- A person's command (from a click in the page) is checked against its schema, applied to the
  SQLite queue in the person's view, committed, and only then answered. The page may draw it
  at once, but the answer is final: a refusal puts the row back.
- A run of a taught tool (an agent's call, the person's Run…) is applied here too, in one
  transaction, with no page in its path; "may this run now?" is asked again inside it.
- After every commit the page gets a change-feed entry (a revision and what was written), in
  commit order, and draws it: the step toast, the highlight and the badges.
- The person's undo and redo, and what they do while teaching, are kept here.

The work runs on the database's writer thread (store/database.py) in submission order; the
answers come back on the Qt thread in the same order.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal
from shiboken6 import isValid

from understudy_desktop.catalogue import Catalogue
from understudy_desktop.error_codes import ErrorCode
from understudy_desktop.model import commands, runs
from understudy_desktop.model.commands import Actor, CommandError, Context, People, Write
from understudy_desktop.model.history import History, Move, apply_moves, redo_moves, undo_moves
from understudy_desktop.model.person_lane import PersonLane
from understudy_desktop.model.runs import RunError, RunOutcome, RunRequest
from understudy_desktop.model.tables import Searches
from understudy_desktop.model.teaching import Teaching
from understudy_desktop.model.views import View
from understudy_desktop.qt_thread import call_on_main
from understudy_desktop.store.database import Database, storage_words
from understudy_desktop.store.queue_store import QueueStore, bump_revision, journal, read_meta

log = logging.getLogger(__name__)

VIEW_COMMANDS = frozenset({"filter_tickets", "select_ticket"})
# The page says the person is typing at least this often while they type (js/ui/detail_pane.js
# sends it every 2 s): a reply stays theirs this long after the last word of it.
TYPING_HOLD_S = 6.0
Reply = Callable[[dict[str, Any]], None]
# Inside a run's transaction: None if the tool may run now, else the answer refusing it.
RunCheck = Callable[[sqlite3.Connection], "dict[str, Any] | None"]


@dataclass(frozen=True)
class FeedEntry:
    """What one commit changed, for the page to draw."""

    revision: int
    generation: str  # which queue (a queue opened from a file is a new generation)
    by: Actor
    writes: list[Write]
    tool: str = ""
    step: runs.StepShown | None = None


class ConsoleModel(QObject):
    fed = Signal(object)  # a FeedEntry, after its COMMIT, in commit order
    not_saved = Signal(str)  # a change could not be saved: the reason, in words

    def __init__(
        self, db: Database, store: QueueStore, catalogue: Catalogue, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._db = db
        self.catalogue = catalogue
        self.history = History()
        self._lane = PersonLane()
        self.teaching = Teaching(catalogue)
        # Off only for the crash harness's own check that it notices a lost change.
        self.forgetful = False
        self._lock = threading.Lock()
        self._person = View.from_dict(store.meta("view"))  # owned by the writer thread
        self._people: tuple[str, str, People] | None = None
        self._typing: tuple[str, float] | None = None
        store.on_replace.append(self._queue_replaced)

    # --- what the person sees (any thread) -----------------------------------------------
    def person_view(self) -> View:
        with self._lock:
            return self._person.copy()

    def person_typing(self, ticket: str | None) -> None:
        """The person is typing the reply on `ticket` (None: stopped). Held TYPING_HOLD_S
        after the last word of it, so a page that stops saying so cannot hold it for ever."""
        self._typing = (ticket, time.monotonic()) if ticket else None

    def reply_typed(self) -> str | None:
        """The ticket whose reply the person is typing now, if any (any thread)."""
        typing = self._typing  # one read: the Qt thread may replace it meanwhile
        if typing is None or time.monotonic() - typing[1] > TYPING_HOLD_S:
            return None
        return typing[0]

    # --- a person's command --------------------------------------------------------------
    def person(
        self,
        command: str,
        payload: Any,
        reply: Reply,
        control: str | None = None,
        provenance: dict[str, str] | None = None,
    ) -> None:
        """Apply a command the person gave in the console; `reply` gets {ok, rev, ...} once
        it is committed, or {isError, code, message} (nothing changed)."""
        self._lane.give(lambda: self._person_now(command, payload, reply, control, provenance))

    def _person_now(
        self,
        command: str,
        payload: Any,
        reply: Reply,
        control: str | None,
        provenance: dict[str, str] | None,
    ) -> None:
        teaching = self.teaching.active
        settle = self._lane.began()

        def work(conn: sqlite3.Connection) -> tuple[commands.Applied, Stamp | None, People]:
            view = self.person_view()
            people = self._people_of(conn)
            ctx = Context(conn, people, view, want_result=teaching or command not in VIEW_COMMANDS)
            applied = commands.apply(self.catalogue, ctx, command, payload)
            stamp = None
            if applied.writes:
                stamp = _stamp(conn)
                journal(conn, "person", command, [w.as_feed() for w in applied.writes])
            with self._lock:
                self._person = view
            return applied, stamp, people

        def done(result: tuple[commands.Applied, Stamp | None, People] | BaseException) -> None:
            try:
                answer(result)
            finally:
                settle()

        def answer(result: tuple[commands.Applied, Stamp | None, People] | BaseException) -> None:
            if isinstance(result, CommandError):
                reply({"isError": True, "code": result.code, "message": result.message})
                return
            if isinstance(result, BaseException):
                self._refused_by_storage(result, reply)
                return
            applied, stamp, people = result
            answer: dict[str, Any] = {"ok": True, "rev": stamp[0] if stamp else None}
            if stamp is not None:
                self.history.note(stamp[0], applied.writes)
                self.fed.emit(FeedEntry(stamp[0], stamp[1], "person", applied.writes))
                answer["seq"] = stamp[0]
            if isinstance(applied.result, dict) and "changed" in applied.result:
                answer["result"] = applied.result
            if self.teaching.active:
                self.teaching.record(command, payload, applied.result, control, provenance, people)
                answer["teachSteps"] = self.teaching.steps
            reply(answer)

        self._submit(work, done)

    def _refused_by_storage(self, exc: BaseException, reply: Reply) -> None:
        words = storage_words(exc)
        log.error("a change could not be saved: %s", exc)
        reply({"isError": True, "code": ErrorCode.STORAGE, "message": words})
        self.not_saved.emit(words)

    # --- undo and redo (the person's own changes only) -------------------------------------
    def undo(self, reply: Reply, seq: int | None = None) -> None:
        """Put back what the person's last change (or change `seq`) changed, field by field,
        where nobody changed the field since. It waits for the person's earlier commands."""
        self._lane.give(lambda: self._undo_now(reply, seq), after_all=True)

    def redo(self, reply: Reply) -> None:
        self._lane.give(lambda: self._redo_now(reply), after_all=True)

    def _undo_now(self, reply: Reply, seq: int | None) -> None:
        entry = self.history.take_undo(seq)
        if entry is None:
            reply({"ok": False, "nothing": True})
            return
        moves, order = undo_moves(entry)
        self._move(
            moves, reply, lambda applied: self.history.undone(entry, [order[i] for i in applied])
        )

    def _redo_now(self, reply: Reply) -> None:
        entry = self.history.take_redo()
        if entry is None:
            reply({"ok": False, "nothing": True})
            return
        moves, order = redo_moves(entry)
        self._move(
            moves, reply, lambda applied: self.history.redone(entry, [order[i] for i in applied])
        )

    def _move(self, moves: list[Move], reply: Reply, settle: Callable[[list[int]], None]) -> None:
        settled = self._lane.began()

        def work(conn: sqlite3.Connection) -> tuple[list[int], Stamp | None]:
            applied = apply_moves(conn, moves)
            stamp = None
            if applied:
                stamp = _stamp(conn)
                journal(
                    conn,
                    "person",
                    "undo",
                    [[moves[i][0], moves[i][1], moves[i][3]] for i in applied],
                )
            return applied, stamp

        def finished(result: Any) -> None:
            try:
                answer(result)
            finally:
                settled()

        def answer(result: Any) -> None:
            if isinstance(result, BaseException):
                settle([])
                self._refused_by_storage(result, reply)
                return
            applied, stamp = result
            settle(applied)
            if stamp is not None:
                writes = [
                    Write(moves[i][1], moves[i][3], (moves[i][0],), "set", (moves[i][2],))
                    for i in applied
                ]
                self.fed.emit(FeedEntry(stamp[0], stamp[1], "person", writes))
            kept = len(moves) - len(applied)
            rev = stamp[0] if stamp else None
            reply({"ok": True, "rev": rev, "reverted": len(applied), "kept": kept})

        self._submit(work, finished)

    # --- runs ------------------------------------------------------------------------------
    def run(
        self,
        request: RunRequest,
        check: RunCheck,
        by: str,
        client: str,
        done: Callable[[RunOutcome], None],
        stopped: Callable[[], bool] = lambda: False,
        trial: bool = False,
    ) -> None:
        """Apply a taught tool's approved steps in one transaction; `check` decides inside it
        whether the tool may still run. A trial is rolled back whatever it did (what it would
        change, for the approval dialog), and nobody is told of a change."""
        actor: Actor = "agent" if by == "agent" else "person"
        # The person's run on their selection is one change of theirs: Undo puts it back.
        undoable = actor == "person" and bool(request.each)

        def work(conn: sqlite3.Connection) -> tuple[RunOutcome, Stamp | None]:
            refusal = check(conn)
            if refusal is not None:
                raise RunError(refusal)
            people = self._people_of(conn)
            searches = Searches(conn)
            outcome = runs.execute(
                lambda view: Context(
                    conn, people, view, True, undoable, searches, reply_typed=self.reply_typed()
                ),
                self.catalogue,
                request,
                stopped,
            )
            stamp = None
            if outcome.writes and not trial:
                stamp = _stamp(conn)
                feed = [w.as_feed() for w in outcome.writes]
                journal(conn, actor, f"run {request.tool}", feed, request.tool, client)
            return outcome, stamp

        def finished(result: Any) -> None:
            if isinstance(result, RunError):
                done(RunOutcome(result.answer))
                return
            if isinstance(result, BaseException):
                words = storage_words(result)
                log.error("a run's changes could not be saved: %s", result)
                message = (
                    f"{request.tool} ran, but its changes could not be saved, so none were kept."
                )
                done(RunOutcome({"isError": True, "code": ErrorCode.STORAGE, "message": message}))
                self.not_saved.emit(words)
                return
            outcome, stamp = result
            if undoable and stamp is not None:
                self.history.note(stamp[0], outcome.writes)
                outcome.answer["seq"] = stamp[0]
            # The caller first (an agent is waiting on it), then the page is told what changed.
            done(outcome)
            if stamp is not None:
                entry = FeedEntry(
                    stamp[0], stamp[1], actor, outcome.writes, request.tool, outcome.last_step
                )
                self.fed.emit(entry)

        self._submit(work, finished, keep=not trial)

    def record_late_cancel(self, tool: str, client: str) -> None:
        """A run of `tool` was saved before its caller's cancel reached it: the journal says
        so beside the run, so that whoever reads the record knows the caller gave up."""

        def work(conn: sqlite3.Connection) -> None:
            journal(conn, "agent", f"cancelled after saving: run {tool}", [], tool, client)

        self._submit(work, lambda _result: None)

    # --- teaching ----------------------------------------------------------------------------
    def start_teaching(self, repair: tuple[str, int] | None = None) -> None:
        """From now on the person's commands are recorded (until stop_teaching)."""
        self.teaching.start(self.person_view().filter, repair)

    def after_pending(self, then: Callable[[], None]) -> None:
        """Call `then` once every command submitted so far has been answered (Stop teaching
        keeps the steps the person gave just before pressing it)."""
        self._submit(lambda _conn: None, lambda _result: then())

    # --- changes from outside (the helpdesk) ---------------------------------------------
    def from_outside(
        self,
        actor: Actor,
        command: str,
        work: Callable[[sqlite3.Connection], tuple[list[Write], Any]],
        done: Callable[[Any], None],
    ) -> None:
        """Apply what someone else did (the helpdesk's own changes, read by a sync): `work`
        writes and says what it wrote; the page draws it like any commit. `done` gets the
        work's second value, or the exception (nothing changed)."""

        def wrapped(conn: sqlite3.Connection) -> tuple[list[Write], Any, Stamp | None]:
            writes, extra = work(conn)
            stamp = None
            if writes:
                stamp = _stamp(conn)
                journal(conn, actor, command, [w.as_feed() for w in writes])
            return writes, extra, stamp

        def finished(result: Any) -> None:
            if isinstance(result, BaseException):
                log.warning("a change from %s could not be applied: %s", actor, result)
                done(result)
                return
            writes, extra, stamp = result
            if stamp is not None:
                self.fed.emit(FeedEntry(stamp[0], stamp[1], actor, writes))
            done(extra)

        self._submit(wrapped, finished)

    # --- plumbing --------------------------------------------------------------------------
    def _submit(
        self,
        work: Callable[[sqlite3.Connection], Any],
        done: Callable[[Any], None],
        keep: bool = True,
    ) -> None:
        future = self._db.submit(work, keep=keep and not self.forgetful)

        def settled(f: Future[Any]) -> None:
            exc = f.exception()
            call_on_main(self._answer, done, exc if exc is not None else f.result())

        future.add_done_callback(settled)

    def _answer(self, done: Callable[[Any], None], result: Any) -> None:
        # The window (and this model with it) may be gone when a late answer arrives.
        if isValid(self):
            done(result)

    def _people_of(self, conn: sqlite3.Connection) -> People:
        """The queue's people and templates (read in the transaction, parsed once per queue)."""
        raw = dict(
            conn.execute(
                "SELECT key, value FROM queue_meta WHERE key IN ('assignees', 'templates')"
            ).fetchall()
        )
        people_text, template_text = raw.get("assignees", "[]"), raw.get("templates", "[]")
        cached = self._people
        if cached is not None and cached[0] == people_text and cached[1] == template_text:
            return cached[2]
        people = People(_records(people_text), _records(template_text))
        self._people = (people_text, template_text, people)
        return people

    def _queue_replaced(self, conn: sqlite3.Connection, document: dict[str, Any]) -> None:
        """Inside the new queue's transaction: the person's view is the new queue's."""
        with self._lock:
            self._person = View.from_dict(document.get("view"))
        self._people = None


Stamp = tuple[int, str]  # the revision a commit is, and the queue's generation


def _stamp(conn: sqlite3.Connection) -> Stamp:
    """One revision up for this commit, and which queue it is of."""
    revision = bump_revision(conn)
    return revision, str(read_meta(conn, "generation"))


def _records(text: str) -> list[dict[str, Any]]:
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []
