"""The connected queue, kept by the shell: connecting, the sync that brings the helpdesk's
changes in, the outbox that takes ours out, and where things stand, in words.

Everything that changes the queue goes through the model (model/service.py): a sync's writes
are the model's `from_outside` commits, drawn by the page like any other. The outbox is filled
by the database itself (store/helpdesk_tables.py); this only wakes the sender after each commit.
Pulls and sends run off the Qt thread; what they say comes back as Qt signals.
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from shiboken6 import isValid

from understudy_desktop.bridge.console_port import ConsolePort
from understudy_desktop.bridge.to_page import HelpdeskRequest, TicketStanding
from understudy_desktop.helpdesk import sync
from understudy_desktop.helpdesk import tables as hd
from understudy_desktop.helpdesk.base import (
    Abilities,
    Departure,
    GoneError,
    Helpdesk,
    HelpdeskError,
    NotAllowedError,
    Page,
    SignInError,
    UnreachableError,
)
from understudy_desktop.helpdesk.connect import Settings, SettingsError, checked, make
from understudy_desktop.helpdesk.credentials import Credentials
from understudy_desktop.helpdesk.macros import MacroTool, macro_tool
from understudy_desktop.helpdesk.outbox import Sender, SendResult
from understudy_desktop.helpdesk.words import left_words, run_words, status_words, ticket_words
from understudy_desktop.model.commands import Write
from understudy_desktop.model.service import ConsoleModel
from understudy_desktop.qt_thread import call_on_main
from understudy_desktop.redact import Secret
from understudy_desktop.shell.background import BackgroundJob
from understudy_desktop.shell.queue_keeper import QueueKeeper, console_templates
from understudy_desktop.store.database import Database
from understudy_desktop.store.queue_store import QueueState, read_meta, write_meta
from understudy_desktop.text import isolated

log = logging.getLogger(__name__)

POLL_S = 20.0  # how often the helpdesk is asked what changed (a person's "Refresh" at once)
# Where changes stand is looked at this long after the first news, and told only if what a
# person sees changed: a change that reaches the helpdesk within it never shows "waiting",
# so neither the status line, the window nor the page redraws for it (issue 32's CPU bench:
# bench/helpdesk_cpu.py).
PUBLISH_DELAY_MS = 1000
# How often every ticket held is checked against the helpdesk's queue (RT: one light request
# per hundred tickets), for a ticket deleted or moved where this sign-in cannot see, which
# RT's search never lists; at each start, and at once on Refresh, too.
ROLL_CALL_S = 120.0
ROLL_CALL_CHECKS = 50  # tickets missing from a roll call read one by one to confirm, at most


class HelpdeskLink(QObject):
    standing_changed = Signal(str)  # the status bar's words ("" when not connected)
    connected_changed = Signal(bool)
    choices_waiting = Signal(int)  # conflicts the person has to choose on
    problem = Signal(str)  # something the person should hear (a sync that failed, …)

    def __init__(
        self,
        db: Database,
        model: ConsoleModel,
        keeper: QueueKeeper,
        port: ConsolePort,
        credentials: Credentials,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._db = db
        self._model = model
        self._keeper = keeper
        self._port = port
        self.credentials = credentials
        self.settings: Settings | None = None
        self._sender: Sender | None = None
        self._puller: Helpdesk | None = None
        self._pulling = threading.Lock()
        self._jobs: set[BackgroundJob] = set()
        self.offline_since: float | None = None
        self.offline_reason = ""  # why: UnreachableError.why, or "sign-in"
        self.standing_text = ""
        self._shown: tuple[Any, ...] | None = None  # what the last publish showed
        self._roll_called_at = 0.0  # when the held tickets were last checked (0: at once)
        self._pull_paused_until = 0.0  # the helpdesk's Retry-After, for the poll
        self._timer = QTimer(self)
        self._timer.setInterval(int(POLL_S * 1000))
        self._timer.timeout.connect(self.pull_now)
        self._publish_timer = QTimer(self)
        self._publish_timer.setSingleShot(True)
        self._publish_timer.setInterval(PUBLISH_DELAY_MS)
        self._publish_timer.timeout.connect(self._publish)
        model.fed.connect(self._committed)
        # Another queue (a file, the demo queue) replacing the helpdesk's ends the link, in
        # that queue's own transaction; connecting writes its link after this.
        keeper.store.on_replace.append(lambda conn, _meta: hd.forget_link(conn))

    @property
    def connected(self) -> bool:
        return self._sender is not None

    @property
    def title(self) -> str:
        return self.settings.title if self.settings is not None else ""

    # --- starting and stopping -------------------------------------------------------------
    def resume(self) -> None:
        """At start: carry on with the connected queue, if the saved queue is one."""
        found = self._db.submit(_current_link, keep=False).result()
        if found is None:
            return
        try:
            settings = Settings.from_dict(found.settings)
        except SettingsError:
            return
        secret = self.credentials.load(settings.url)
        if secret is None:
            self.settings = settings
            self.problem.emit(
                f"Understudy no longer has the sign-in for {settings.title}: connect again "
                "from File › Connect to helpdesk…. Your changes are kept until then."
            )
            self._schedule_publish()
            return
        self._start(settings, secret)

    def _start(self, settings: Settings, secret: str) -> None:
        self.stop()
        self.settings = settings
        # A new connection has not failed yet: an earlier one's "offline since" is not its.
        self.offline_since = None
        self.offline_reason = ""
        self._shown = None
        self._roll_called_at = 0.0
        self._pull_paused_until = 0.0
        self._puller = make(settings, secret)
        self._sender = Sender(
            self._db,
            make(settings, secret),
            changed=lambda r: self._later(self._sent, r),
            offline=lambda at: self._later(self._offline, at),
            left=lambda note: self._later(self._tickets_left, [note]),
        )
        self._sender.start()
        self._timer.start()
        self.connected_changed.emit(True)
        self._schedule_publish()
        self.pull_now()

    def stop(self) -> None:
        self._timer.stop()
        if self._sender is not None:
            self._sender.stop()
            self._sender = None
        if self._puller is not None:
            self._puller.close()
            self._puller = None

    def queue_replaced(self) -> None:
        """Another queue (a file) took the helpdesk's place, and its transaction ended the link
        (on_replace): stop sending, and say nothing more of the helpdesk about its tickets."""
        if self.settings is None:
            return
        self.stop()
        self.settings = None
        self.offline_since = None
        self.standing_text = ""
        self._shown = None
        self.standing_changed.emit("")
        self._port_states({})
        self.connected_changed.emit(False)

    def disconnect_queue(self) -> None:
        """Stop working with the helpdesk: the queue stays, as a copy of its own."""
        settings = self.settings
        self.stop()
        self.settings = None
        self._db.write(hd.forget_link)
        if settings is not None:
            self.credentials.forget(settings.url)
        self.connected_changed.emit(False)
        self.standing_changed.emit("")
        self._port_states({})

    # --- connecting ----------------------------------------------------------------------
    def test(
        self, settings: Settings, secret: str, done: Callable[[Abilities | str], None]
    ) -> None:
        """Try the settings (off the Qt thread): what the connection can do, or why not."""
        secret = Secret(secret)  # remembered at once: no log or error from here on shows it

        def work() -> Abilities:
            helpdesk = make(checked(settings), secret)
            try:
                abilities = helpdesk.check()
                return dataclasses.replace(
                    abilities, notes=(*abilities.notes, *_who_it_sees(helpdesk))
                )
            finally:
                helpdesk.close()

        self._background(work, done)

    def connect_queue(
        self,
        settings: Settings,
        secret: str,
        progress: Callable[[int], None],
        done: Callable[[QueueState | str], None],
    ) -> None:
        """Read the helpdesk's queue (progress: tickets read so far) and make it the queue."""
        secret = Secret(secret)
        try:
            settings = checked(settings)
        except SettingsError as exc:
            done(str(exc))
            return

        def work() -> tuple[sync.FirstSync, Abilities]:
            helpdesk = make(settings, secret)
            try:
                abilities = helpdesk.check()
                name = settings.queue or settings.title
                first = sync.read_all(helpdesk, name, lambda n, _of: call_on_main(progress, n))
            finally:
                helpdesk.close()
            first.fields = tuple(abilities.fields)
            first.settings = settings.as_dict()
            return first, abilities

        def read(result: tuple[sync.FirstSync, Abilities] | str) -> None:
            if isinstance(result, str):
                done(result)
                return
            self._store_first(settings, secret, result[0], done)

        self._background(work, read)

    def waiting(self) -> int:
        """Changes made here that have not reached the helpdesk yet."""
        return int(self._db.submit(hd.open_count, keep=False).result())

    def same_place(self, settings: Settings) -> bool:
        """Whether `settings` name the helpdesk and queue this queue is linked to."""
        now = self.settings
        return now is not None and (now.kind, now.url, now.queue, now.email) == (
            settings.kind,
            settings.url,
            settings.queue,
            settings.email,
        )

    def new_address(self, settings: Settings) -> bool:
        """Whether `settings` name the same kind of helpdesk, queue and account as the linked
        one at another address (the helpdesk moved, or https instead of http): perhaps the
        same helpdesk, which sign_in_again(new_address=True) finds out."""
        now = self.settings
        return (
            now is not None
            and (now.kind, now.queue, now.email) == (settings.kind, settings.queue, settings.email)
            and now.url != settings.url
        )

    def sign_in_again(
        self,
        settings: Settings,
        secret: str,
        done: Callable[[Abilities | str], None],
        new_address: bool = False,
    ) -> None:
        """The same helpdesk and queue with a new sign-in (a token that was revoked, changed
        or forgotten), or at a new address: the queue and its waiting changes are left as they
        are; the sign-in is checked (at a new address: and that the queue's tickets are there,
        the same ones), kept, and sending resumes at once, from the oldest change, each change
        read against the helpdesk again before it is sent."""
        secret = Secret(secret)
        before = self.settings
        sample = self._db.submit(_some_tickets, keep=False).result() if new_address else []

        def work() -> Abilities:
            helpdesk = make(checked(settings), secret)
            try:
                abilities = helpdesk.check()
                _same_tickets(helpdesk, sample)
                return abilities
            finally:
                helpdesk.close()

        def signed_in(result: Abilities | str) -> None:
            if isinstance(result, str):
                done(result)
                return
            if new_address and before is not None:
                self._db.write(lambda conn: hd.move_link(conn, checked(settings).as_dict()))
                self.credentials.forget(before.url)
                settings_now = checked(settings)
            else:
                settings_now = settings
            self._sign_in_kept(settings_now, secret, result, done)

        self._background(work, signed_in)

    def _sign_in_kept(
        self,
        settings: Settings,
        secret: str,
        result: Abilities,
        done: Callable[[Abilities | str], None],
    ) -> None:
        self._keep_sign_in(settings, secret)
        self._db.submit(hd.due_now)  # before the new sender's first read of the outbox
        self._start(settings, secret)
        done(result)

    def _keep_sign_in(self, settings: Settings, secret: str) -> None:
        try:
            self.credentials.save(settings.url, secret)
        except OSError as exc:
            log.error("the helpdesk sign-in could not be kept: %s", exc)
            self.problem.emit(
                "The sign-in could not be kept on this computer: you will be asked again "
                "after a restart."
            )

    def _store_first(
        self,
        settings: Settings,
        secret: str,
        first: sync.FirstSync,
        done: Callable[[QueueState | str], None],
    ) -> None:
        def stored(result: QueueState | Exception) -> None:
            if isinstance(result, Exception):
                done(f"The queue could not be saved: {result}")
                return
            self._keep_sign_in(settings, secret)
            self._keeper.reload("")
            self._start(settings, secret)
            done(result)

        self.stop()
        if not first.meta["templates"]:
            # A helpdesk with no reply templates of its own (RT): the console's stay.
            first.meta["templates"] = [t.model_dump() for t in console_templates()]
        self._keeper.store.replace_rows(
            first.meta, first.rows, None, settings.title, stored, also=first.store
        )

    # --- the helpdesk's changes coming in -------------------------------------------------------
    def pull_now(self, asked: bool = False) -> None:
        """Ask the helpdesk what changed (the poll's timer, or `asked` by the person). A
        helpdesk that asked to wait (429 with Retry-After) is not asked by the timer before
        then; the next sync goes on from the saved cursor, where the last one stopped."""
        puller = self._puller
        if puller is None or (not asked and time.time() < self._pull_paused_until):
            return
        if not self._pulling.acquire(blocking=False):
            return
        thread = threading.Thread(target=self._pull, args=(puller,), name="helpdesk-sync")
        thread.daemon = True
        thread.start()

    def _pull(self, puller: Helpdesk) -> None:
        """On the sync thread: pages of changes until the helpdesk has no more."""
        try:
            while True:
                link = self._db.submit(_current_link, keep=False).result()
                if link is None:
                    return
                read_at = time.time()
                page = puller.changed_since(link.cursor or None)
                self._answering(puller)
                applied = self._apply_page(puller, page, read_at)
                if applied is not None and applied.left:
                    self._later(self._tickets_left, applied.left)
                elif applied is not None and (applied.arrived or applied.retext):
                    self._later(self._keeper.reload, "")
                if puller is not self._puller:
                    return
                if not page.more:
                    self._roll_call(puller)
                    return
        except HelpdeskError as exc:
            if puller is self._puller:
                if self.offline_since is None:  # one line per change of state
                    log.info("sync with the helpdesk failed: %s", exc)
                self.offline_reason = _why(exc)
                wait = exc.retry_after_s if isinstance(exc, UnreachableError) else None
                self._pull_paused_until = time.time() + wait if wait else 0.0
                self._later(self._offline, self.offline_since or time.time())
        except Exception:
            log.exception("sync with the helpdesk failed")
        finally:
            self._pulling.release()

    def _answering(self, puller: Helpdesk) -> None:
        """The helpdesk answered a sync: changes waiting for it need not wait out their pause
        (the sync's timer is the cheap probe), and the status line clears."""
        sender = self._sender
        if puller is not self._puller or sender is None:
            return
        if sender.offline_since is not None:
            sender.poke()
        elif self.offline_since is not None:
            self._later(self._offline, None)

    def _roll_call(self, puller: Helpdesk) -> None:
        """Now and then (and on Refresh), every ticket held is checked against the helpdesk's
        queue: one that is no longer in it, confirmed by reading it, leaves the console's."""
        if time.time() - self._roll_called_at < ROLL_CALL_S:
            return
        held = self._db.submit(lambda conn: hd.console_ids(conn, "ticket"), keep=False).result()
        gone = sync.roll_call(puller, set(held), ROLL_CALL_CHECKS)
        self._roll_called_at = time.time()
        if gone:
            log.info("%d tickets are no longer in the helpdesk's queue", len(gone))
            left = self._leave(puller, gone)
            if left:
                self._later(self._tickets_left, left)

    def _leave(self, puller: Helpdesk, gone: list[Departure]) -> list[hd.Left]:
        """Through the model's writer, like a sync's page; waits for the commit."""
        left = self._through_model(puller, lambda conn: ([], sync.leave_all(conn, gone)))
        return left if isinstance(left, list) else []

    def _through_model(
        self, puller: Helpdesk, work: Callable[[sqlite3.Connection], tuple[list[Write], Any]]
    ) -> Any:
        """On the sync thread: `work` as the model's commit from outside (the page draws what
        it wrote), waited for; None when the window closed or the connection changed while
        the helpdesk was read, or the work failed (the exception, then)."""
        done = threading.Event()
        outcome: list[Any] = []

        def finished(result: Any) -> None:
            outcome.append(result)
            done.set()

        def start() -> None:
            if isValid(self) and isValid(self._model) and self._puller is puller:
                self._model.from_outside("helpdesk", "sync", work, finished)
            else:
                finished(None)

        call_on_main(start)
        done.wait(120)
        return outcome[0] if outcome else None

    def _tickets_left(self, notes: list[hd.Left]) -> None:
        """Tickets left the queue: the page is given the queue again, and the person told."""
        self._keeper.reload("")
        if len(notes) == 1:
            self.problem.emit(left_words(self.title, notes[0]))
        else:
            self.problem.emit(
                f"{len(notes):,} tickets were moved or deleted in {self.title}, so they left "
                "this queue: File › Changes to choose… lists them."
            )
        self._schedule_publish()

    def left_notes(self) -> list[hd.Left]:
        return list(self._db.submit(hd.left_notes, keep=False).result())

    def clear_left(self) -> None:
        self._db.write(hd.clear_left)
        self._schedule_publish()

    def refresh(self) -> None:
        """Refresh from helpdesk: bring its changes in now, check every ticket held is still
        the helpdesk's, and send ours now."""
        self._roll_called_at = 0.0
        self.pull_now(asked=True)
        if self._sender is not None:
            self._sender.poke()

    def _apply_page(self, puller: Helpdesk, page: Page, read_at: float) -> sync.Applied | None:
        """Through the model, so the page draws it; waits for the commit."""

        def work(conn: sqlite3.Connection) -> tuple[list[Write], sync.Applied]:
            applied = sync.apply_remote(
                conn, page.tickets, page.cursor, read_at, puller.reads_back, page.gone
            )
            return applied.writes, applied

        applied = self._through_model(puller, work)
        return applied if isinstance(applied, sync.Applied) else None

    # --- where things stand ---------------------------------------------------------------
    def _committed(self, entry: Any) -> None:
        if self._sender is not None and getattr(entry, "by", "") != "helpdesk":
            self._sender.poke()
        self._schedule_publish()

    def _sent(self, result: SendResult) -> None:
        self._schedule_publish()

    def _offline(self, at: float | None) -> None:
        self.offline_since = at
        sender = self._sender
        if at is not None and sender is not None and sender.offline_since is not None:
            self.offline_reason = sender.offline_reason
        self._schedule_publish()

    def _schedule_publish(self) -> None:
        if not self._publish_timer.isActive():
            self._publish_timer.start()

    def _publish(self) -> None:
        if self.settings is None:
            return
        standing = self._db.submit(hd.standing, keep=False).result()
        where = ""
        if self.settings.kind == "rt" and self.settings.queue:
            where = f"in the queue “{isolated(self.settings.queue)}”"
        text = status_words(self.title, standing, self.offline_since, self.offline_reason, where)
        shown = (text, standing.conflicts, tuple(sorted(standing.by_ticket.items())))
        if shown == self._shown:
            # Nothing a person could see changed (an agent's change sent and settled between
            # two looks): no repaint of the status line, no message for the page to redraw.
            return
        self._shown = shown
        self.standing_text = text
        self.standing_changed.emit(self.standing_text)
        self.choices_waiting.emit(standing.conflicts)
        states = {
            # The outbox's own states (helpdesk/tables.py), checked on the way to the page.
            ticket: TicketStanding.model_validate(
                {"state": state, "words": ticket_words(self.title, state, said)}
            )
            for ticket, (state, said) in standing.by_ticket.items()
        }
        self._port_states(states)

    def _port_states(self, states: dict[str, TicketStanding]) -> None:
        title = self.title
        self._port.helpdesk(
            HelpdeskRequest(
                title=title,
                inWords=ticket_words(title, None) if title else "",
                tickets=states,
            )
        )

    def run_note(self, tickets: list[str]) -> str:
        """For a run's result: have its changes reached the helpdesk yet?"""
        if self.settings is None:
            return ""
        waiting = self._db.submit(lambda conn: hd.waiting_for(conn, tickets), keep=False)
        return run_words(self.title, int(waiting.result()))

    # --- the team's macros, as draft tools --------------------------------------------------
    def macro_tools(self, done: Callable[[list[MacroTool] | str], None]) -> None:
        """The helpdesk's macros (canned responses), read again, each as a tool to approve."""
        puller, settings = self._puller, self.settings
        if puller is None or settings is None:
            done("Connect to a helpdesk first (File › Connect to helpdesk…).")
            return
        kind = settings.kind

        def work() -> list[MacroTool]:
            macros = puller.templates()
            people = self._db.submit(lambda c: hd.console_ids(c, "person"), keep=False).result()
            names = {str(p.get("id")): str(p.get("name")) for p in self.people()}
            templates = self._keeper.store.meta("templates") or []
            held = {str(t.get("id")) for t in templates if isinstance(t, dict)}
            added = self._bring_in_replies(kind, macros, held)
            held |= added
            out = []
            for macro in macros:
                template = sync.template_id(kind, macro.remote_id)
                out.append(
                    macro_tool(
                        macro, people, names, template if template in held else None, self.title
                    )
                )
            return out

        self._background(work, done)

    def _bring_in_replies(self, kind: str, macros: list[Any], held: set[str]) -> set[str]:
        """Macros made in the helpdesk since connecting: their reply text becomes one of the
        queue's reply templates now, so the tool fills it rather than leaving it out (on the
        worker thread; the page is given the queue again)."""
        missing = [
            {"id": sync.template_id(kind, m.remote_id), "name": m.title, "body": m.body}
            for m in macros
            if m.body.strip() and sync.template_id(kind, m.remote_id) not in held
        ]
        if not missing:
            return set()

        def add(conn: sqlite3.Connection) -> None:
            current = list(read_meta(conn, "templates") or [])
            write_meta(conn, "templates", [*current, *missing])

        self._db.write(add)
        self._later(self._keeper.reload, "")
        return {str(t["id"]) for t in missing}

    # --- the person chooses ---------------------------------------------------------------
    def people(self) -> list[dict[str, Any]]:
        found = self._keeper.store.meta("assignees")
        return [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []

    def choices(self) -> list[hd.Choice]:
        result: list[hd.Choice] = self._db.submit(hd.choices, keep=False).result()
        return result

    def choose(self, choice: hd.Choice, keep_mine: bool, done: Callable[[], None]) -> None:
        if keep_mine:
            self._db.write(lambda conn: hd.keep_mine(conn, choice.ticket, choice.field))
            if self._sender is not None:
                self._sender.poke()
            self._schedule_publish()
            done()
            return

        def work(conn: sqlite3.Connection) -> tuple[list[Write], None]:
            if not hd.take_theirs(conn, choice.ticket, choice.field):
                return [], None
            hd.set_quiet(conn, True)
            from understudy_desktop.model import tables

            tables.write_field(conn, choice.ticket, choice.field, choice.theirs)
            hd.set_quiet(conn, False)
            return [Write(choice.field, choice.theirs, (choice.ticket,))], None

        self._model.from_outside("helpdesk", "take theirs", work, lambda _r: done())

    def try_refused_again(self) -> None:
        self._db.write(hd.retry_refused)
        if self._sender is not None:
            self._sender.poke()
        self._schedule_publish()

    # --- plumbing ---------------------------------------------------------------------------
    def _later(self, fn: Callable[..., None], *args: Any) -> None:
        """On the Qt thread, unless the window (and this with it) is gone by then."""

        def run() -> None:
            if isValid(self) and self.settings is not None:
                fn(*args)

        call_on_main(run)

    def _background(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        job = BackgroundJob(work, self)
        self._jobs.add(job)

        def finish(value: object) -> None:
            self._jobs.discard(job)
            job.deleteLater()
            if isinstance(value, HelpdeskError | SettingsError):
                done(str(value))
            elif isinstance(value, BaseException):
                log.error("the helpdesk connection failed: %r", value)
                done("Something went wrong while talking to the helpdesk (details in the log).")
            else:
                done(value)

        job.succeeded.connect(finish)
        job.failed.connect(finish)
        job.start()


def _why(exc: HelpdeskError) -> str:
    if isinstance(exc, UnreachableError):
        return exc.why
    if isinstance(exc, SignInError):
        return "sign-in"
    return "not-allowed" if isinstance(exc, NotAllowedError) else "trouble"


def _who_it_sees(helpdesk: Helpdesk) -> tuple[str, ...]:
    """The people and groups the connection can see, as a sentence (none if it may not)."""
    try:
        people, groups = len(helpdesk.people()), len(helpdesk.groups())
    except HelpdeskError:
        return ()
    said = f"{people:,} {'person' if people == 1 else 'people'} can be given tickets"
    if groups:
        said += f"; it sees {groups:,} {'group' if groups == 1 else 'groups'}"
    return (said + ".",)


SAMPLE = 5  # tickets read at a new address to tell the same helpdesk from another


def _some_tickets(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(console id, helpdesk id, subject) of a few tickets held, spread over the queue."""
    rows = conn.execute(
        "SELECT i.console_id, i.remote_id, t.subject FROM helpdesk_ids i"
        " JOIN ticket_text t ON t.id = i.console_id WHERE i.kind = 'ticket' ORDER BY t.n"
    ).fetchall()
    step = max(1, len(rows) // SAMPLE)
    return [(str(r[0]), str(r[1]), str(r[2])) for r in rows[::step][:SAMPLE]]


def _same_tickets(helpdesk: Helpdesk, sample: list[tuple[str, str, str]]) -> None:
    """At a new address, the queue's own tickets must be there, with their subjects: another
    helpdesk of the same kind (a test server, another team's) is told apart before any
    change of ours could be sent to it."""
    for console, remote, subject in sample:
        try:
            found = helpdesk.current(remote).subject
        except (GoneError, NotAllowedError) as exc:
            if isinstance(exc, SignInError):
                raise
            found = None
        if found != subject:
            raise HelpdeskError(
                f"That address does not hold this queue's tickets ({console} is not there as "
                f"it is here): it looks like another {helpdesk.title}. Nothing was changed."
            )


def _current_link(conn: sqlite3.Connection) -> hd.Link | None:
    """The link, if it belongs to the queue the database holds now."""
    found = hd.link(conn)
    if found is None:
        return None
    row = conn.execute("SELECT value FROM queue_meta WHERE key = 'generation'").fetchone()
    generation = str(row[0]).strip('"') if row else ""
    return found if found.generation == generation else None
