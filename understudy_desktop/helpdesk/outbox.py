"""Sending the outbox to the helpdesk: in order, one change at a time, with retries.

Each change is sent the same way, and that way is what makes a crash harmless:

1. read the ticket as the helpdesk has it now (with its version);
2. if the field already holds our value, the change has arrived (a send before a crash got
   there, or someone made the same change): it is marked sent and nothing is sent again;
3. if the field still holds what the person's change was made over, the change is sent
   against the version just read (RT: If-Match; Zendesk: a safe update; Freshdesk: compared
   just before), and a helpdesk that moved on in between is simply read again;
   The same holds when the field holds one of our own earlier changes to it: a send that
   reached the helpdesk just before a crash, followed by another change before the restart;
4. otherwise someone changed the field in the helpdesk meanwhile: the change waits for the
   person to choose (a conflict), and nothing is overwritten.

The outcome is committed (store/database.py) before the next change is taken, so a kill -9
at any moment leaves each change either waiting (read again at step 1 on the next start) or
settled. While the helpdesk cannot be reached, the sender waits with a growing pause (or the
helpdesk's Retry-After) and everything else keeps working here.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from understudy_desktop.helpdesk import tables as hd
from understudy_desktop.helpdesk.base import (
    ConflictError,
    FieldChange,
    GoneError,
    Helpdesk,
    HelpdeskError,
    RemoteTicket,
    SignInError,
    UnreachableError,
)
from understudy_desktop.store.database import Database

log = logging.getLogger(__name__)

BACKOFF_S = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
MOVED_ON_TRIES = 3  # the ticket changed between our read and our send this many times: wait
IDLE_WAKE_S = 30.0
_ONE_AT_A_TIME = threading.Lock()


@dataclass(frozen=True)
class SendResult:
    """What became of one change (for the shell's words and the tests)."""

    ticket: str
    field: str
    outcome: str  # "sent", "arrived", "conflict", "refused", "retry", "left"
    words: str = ""


class Sender:
    """The outbox's one sending thread. `changed` is called (on this thread) after each
    outcome is committed; `offline` with the time the helpdesk stopped answering, or None;
    `left` when a change found its ticket gone from the connected queue (the ticket has left
    the console's queue by then, in the same transaction as the change's end)."""

    def __init__(
        self,
        db: Database,
        helpdesk: Helpdesk,
        changed: Callable[[SendResult], None] = lambda r: None,
        offline: Callable[[float | None], None] = lambda at: None,
        left: Callable[[hd.Left], None] = lambda note: None,
    ) -> None:
        self._db = db
        self._helpdesk = helpdesk
        self._changed = changed
        self._offline = offline
        self._left = left
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="helpdesk-outbox", daemon=True)
        self.offline_since: float | None = None
        # Why it is offline, for the status line: UnreachableError.why, or "sign-in".
        self.offline_reason = ""
        # A helpdesk that cannot be reached, or asked to wait, gets nothing until then: the
        # pause is the connection's, not one change's.
        self._paused_until = 0.0

    def start(self) -> None:
        self._thread.start()

    def poke(self) -> None:
        """A change was committed, the person asked for a refresh, or a sync found the
        helpdesk answering again: try now rather than at the end of the pause. While offline
        every waiting change is made due, so the oldest goes first; if the helpdesk is still
        away, that one try starts the next, longer pause."""
        if self.offline_since is not None:
            self._paused_until = 0.0
            # Queued before the sender's next read of the outbox (one writer, in order); not
            # waited for: this runs on the window's thread when a change is committed.
            self._db.submit(hd.due_now)
        self._wake.set()

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)

    def _run(self) -> None:
        self._db.write(hd.prune_sent)
        while not self._stop.is_set():
            try:
                sent = self.send_one()
            except Exception:  # the sender must outlive any one change
                log.exception("the outbox could not send a change")
                self._paused_until = time.time() + BACKOFF_S[-1]
                sent = None
            if sent is not None:
                continue
            due = self._db.submit(hd.next_due_at, keep=False).result()
            due = max(due or 0.0, self._paused_until) or None
            wait = IDLE_WAKE_S if due is None else max(0.05, min(IDLE_WAKE_S, due - time.time()))
            self._wake.wait(wait)
            self._wake.clear()

    def send_one(self) -> SendResult | None:
        """Send the next due change; None when nothing is due (or the helpdesk asked to wait).

        One change at a time in the whole app, whichever sender: a sender replaced (a new
        sign-in, a reconnection) may still be inside a request that outlives its stop(), and
        two senders reading the same change would each send it, the later one finding the
        earlier one's value and taking it for someone else's (a false conflict)."""
        with _ONE_AT_A_TIME:
            if self._stop.is_set():
                return None
            return self._send_one()

    def _send_one(self) -> SendResult | None:
        if time.time() < self._paused_until:
            return None
        out = self._db.submit(lambda conn: hd.next_outgoing(conn, time.time()), keep=False).result()
        if out is None:
            return None
        remote = self._db.submit(lambda conn: _remote_ids(conn, out), keep=False).result()
        if remote is None:
            return self._settle(out, "refused", "The ticket is not linked to the helpdesk.")
        try:
            outcome, after, theirs = self._deliver(out, remote)
        except UnreachableError as exc:
            return self._retry(out, exc)
        except SignInError as exc:
            # Sign-in trouble is everyone's, not this change's: wait, and say so. (A change
            # this account may not make, 403, is this change's: refused, below.)
            return self._retry(out, UnreachableError(str(exc), BACKOFF_S[-1], "sign-in"))
        except GoneError as exc:
            return self._gone(out, exc)
        except HelpdeskError as exc:
            return self._settle(out, "refused", str(exc))
        except Exception as exc:
            # An answer the adapter could not make sense of: the helpdesk is unwell, not this
            # change; it waits like any other, with the details in the log once.
            if self.offline_since is None:
                log.exception("the helpdesk's answer could not be read")
            words = f"{type(exc).__name__} while reading the helpdesk's answer"
            return self._retry(out, UnreachableError(words, why="trouble"))
        self._went_online()
        if outcome == "conflict":
            assert after is not None
            self._db.write(lambda conn: hd.mark_conflict(conn, out, theirs, after, out.ticket))
            return self._told(SendResult(out.ticket, out.field, "conflict"))
        assert after is not None
        self._db.write(lambda conn: hd.mark_sent(conn, out, out.ticket, after))
        return self._told(SendResult(out.ticket, out.field, outcome))

    def _deliver(
        self, out: hd.Outgoing, remote: tuple[str, Any, list[Any]]
    ) -> tuple[str, RemoteTicket | None, Any]:
        remote_ticket, value, earlier = remote
        ours = _plain(out.field, self._helpdesk.reads_back(out.field, value))
        # What the helpdesk may hold without anyone else having changed it: what the person
        # changed it over, or one of their own earlier changes (sent before a crash).
        bases = [_plain(out.field, out.base)]
        bases += [_plain(out.field, self._helpdesk.reads_back(out.field, v)) for v in earlier]
        for _ in range(MOVED_ON_TRIES):
            now = self._helpdesk.current(remote_ticket)
            theirs = _plain(out.field, now.value(out.field))
            if theirs == ours:
                return "arrived", now, None
            if theirs not in bases and not _on_its_way(out.field, theirs, [*bases, ours]):
                return "conflict", now, theirs
            try:
                after = self._helpdesk.apply(
                    FieldChange(remote_ticket, out.field, value, now.version)
                )
            except ConflictError:
                continue  # someone changed the ticket between our read and our send
            return "sent", after, None
        raise UnreachableError("The ticket keeps changing in the helpdesk; trying again shortly.")

    def _retry(self, out: hd.Outgoing, exc: UnreachableError) -> SendResult:
        # A growing pause, spread a little (many apps coming back at once do not all ask in
        # the same second), capped; the helpdesk's own Retry-After when it gave one.
        step = BACKOFF_S[min(out.attempts, len(BACKOFF_S) - 1)] * random.uniform(0.8, 1.2)
        wait = exc.retry_after_s if exc.retry_after_s is not None else min(step, BACKOFF_S[-1])
        self._paused_until = time.time() + wait
        self._db.write(lambda conn: hd.mark_retry(conn, out, self._paused_until, str(exc)))
        if self.offline_since is None or exc.why != self.offline_reason:
            # One line per change of state, not per attempt.
            log.warning("changes wait for the helpdesk: %s", exc)
        self.offline_reason = exc.why
        if self.offline_since is None:
            self.offline_since = time.time()
            self._offline(self.offline_since)
        return self._told(SendResult(out.ticket, out.field, "retry", str(exc)))

    def _settle(self, out: hd.Outgoing, state: str, words: str) -> SendResult:
        self._db.write(lambda conn: hd.mark_refused(conn, out, words))
        self._went_online()
        return self._told(SendResult(out.ticket, out.field, state, words))

    def _gone(self, out: hd.Outgoing, exc: GoneError) -> SendResult:
        """The ticket was moved to another queue or deleted: it leaves the console's queue,
        with every change to it still open, and the person is told (nothing is sent)."""
        note = self._db.write(lambda conn: hd.leave(conn, out.ticket, exc.why))
        if note is None:  # not here (any more): the change itself ends, refused
            self._db.write(lambda conn: hd.mark_refused(conn, out, str(exc)))
        self._went_online()
        if note is not None:
            try:
                self._left(note)
            except Exception:
                log.exception("telling about a ticket that left failed")
        return self._told(SendResult(out.ticket, out.field, "left", str(exc)))

    def _went_online(self) -> None:
        if self.offline_since is not None:
            log.info("the helpdesk answers again: sending the waiting changes")
            self.offline_since = None
            self.offline_reason = ""
            self._offline(None)

    def _told(self, result: SendResult) -> SendResult:
        try:
            self._changed(result)
        except Exception:
            log.exception("telling about a sent change failed")
        return result


def _on_its_way(field: str, theirs: Any, values: list[Any]) -> bool:
    """Tags the helpdesk holds halfway from one of our values to a later one: RT applies a
    tags change one value at a time (add the new, delete the old), and a server killed in
    between keeps a mix of the two. A set between from and to (everything both hold, nothing
    neither holds) can only differ from `to` in what we changed ourselves, so sending ours
    again undoes no one else's change; anything else is someone's, and waits for a choice."""
    if field != "tags":
        return False
    held = set(theirs or ())
    for i, before in enumerate(values):
        for after in values[i + 1 :]:
            old, new = set(before or ()), set(after or ())
            if old & new <= held <= old | new:
                return True
    return False


def _plain(field: str, value: Any) -> Any:
    """Tags compare as sets: helpdesks keep them in an order of their own."""
    if field == "tags":
        return sorted(set(value or ()))
    return value


def _remote_ids(conn: Any, out: hd.Outgoing) -> tuple[str, Any, list[Any]] | None:
    """The helpdesk's id of the ticket, and the values in the helpdesk's terms."""
    ticket = hd.remote_id(conn, "ticket", out.ticket)
    if ticket is None:
        return None
    if out.field != "assignee":
        return ticket, out.value, list(out.earlier)
    people = []
    for value in (*out.earlier, out.value):
        person = None if value is None else hd.remote_id(conn, "person", str(value))
        if value is not None and person is None:
            return None
        people.append(person)
    return ticket, people[-1], people[:-1]
