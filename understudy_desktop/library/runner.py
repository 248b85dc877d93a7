"""Runs of taught tools, in arrival order, one at a time, applied by the shell's model.

Whoever asks (an agent through the endpoint, the person from the library, a script in the
page through the WebMCP mirror), the run is the same: the approved definition the library
holds, applied by model/service.py in one transaction. The page is not in the path; it draws
the change afterwards.

"May this run now?" (library/may_run.py) is asked when a call arrives, again when its run
reaches the front, and a last time inside the run's transaction. Turning a tool off or
revoking it ends its waiting runs at once. Each run has its own time limit, counted from its
arrival: one still waiting when its time is up is dropped without running. `busy` comes back
only when MAX_WAITING runs are already waiting.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from PySide6.QtCore import QObject, QTimer, Signal

from understudy_desktop.error_codes import ErrorCode
from understudy_desktop.library.library import Library
from understudy_desktop.library.may_run import ToolState, may_run, stored_state
from understudy_desktop.library.model import TaughtTool
from understudy_desktop.model.runs import RunOutcome, RunRequest
from understudy_desktop.model.service import ConsoleModel

log = logging.getLogger(__name__)

MAX_WAITING = 256

Outcome = Literal["ok", "failed", "refused", "timeout", "cancelled", "busy", "storage"]


@dataclass
class RunResult:
    outcome: Outcome
    answer: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"


@dataclass
class RunJob:
    tool: TaughtTool
    arguments: dict[str, Any]
    by: Literal["agent", "person"]
    client: str
    timeout_s: float
    done: Callable[[RunResult], None]
    arrived: float = field(default_factory=time.monotonic)
    state: str = "waiting"  # waiting, running, finished
    timer: QTimer | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    refused_inside: bool = False  # the run's own transaction said it may not run
    started: bool = False  # its transaction began applying steps (set on the writer thread)
    refusal: dict[str, Any] | None = None  # its tool was turned off or revoked meanwhile
    lock: threading.Lock = field(default_factory=threading.Lock)
    result: RunResult | None = None  # once finished
    cancelled_late: bool = False  # its caller gave up after its changes were saved
    # The person's run on their selection: (ticket, answers) for each (model/runs.py).
    each: tuple[tuple[str, dict[str, Any]], ...] = ()

    @property
    def deadline(self) -> float:
        return self.arrived + self.timeout_s

    def request(self) -> RunRequest:
        parsed = self.tool.parsed
        # A tool that does not parse is not intact, so may_run refused it before it got here.
        assert parsed is not None
        return RunRequest(
            self.tool.name, parsed.steps, self.tool.input_schema, self.arguments, self.each
        )


def tool_state(tool: TaughtTool | None, paused: str = "") -> ToolState | None:
    if tool is None:
        return None
    # A definition that no longer hashes to its approval is not the approved tool.
    status = tool.status if tool.intact else "needs_review"
    return ToolState(status, tool.digest, tool.held, paused)


class ToolRunner(QObject):
    finished = Signal(object)  # the RunJob, after its result was handed out
    # A RunJob whose caller gave up too late: its changes had been saved (or were being).
    cancelled_late = Signal(object)
    # A run left the reply the person is typing alone: the tool's shown name, the tickets.
    reply_left_alone = Signal(str, list)

    def __init__(
        self, model: ConsoleModel, library: Library, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._model = model
        self._library = library
        self._waiting: deque[RunJob] = deque()
        # On a queue connected to a helpdesk: whether a run's changes have reached it yet,
        # in words for the run's result (shell/helpdesk_link.py).
        self.helpdesk_note: Callable[[list[str]], str] | None = None
        self._running: RunJob | None = None
        # Turn off, Revoke, a review: waiting runs are asked again at once.
        library.changed.connect(self._library_changed)
        library.closing.connect(self._closing)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @property
    def running(self) -> bool:
        return self._running is not None

    def check(self, job: RunJob) -> dict[str, Any] | None:
        """May `job` run now, by what the library holds in memory?"""
        current = self._library.get(job.tool.name)
        state = tool_state(current, self._library.paused_for(current))
        return may_run(job.tool.name, state, job.tool.digest, job.deadline, time.monotonic())

    def submit(self, job: RunJob) -> RunJob:
        refusal = self.check(job)
        if refusal is not None:
            self._finish(job, RunResult("refused", refusal))
            return job
        if len(self._waiting) >= MAX_WAITING:
            message = f"{MAX_WAITING} runs are already waiting. Try again."
            self._finish(job, RunResult("busy", _error(ErrorCode.BUSY, message)))
            return job
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.timeout.connect(lambda: self._expired(job))
        timer.start(max(0, int(job.timeout_s * 1000)))
        job.timer = timer
        self._waiting.append(job)
        self._pump()
        return job

    def cancel(self, job: RunJob) -> None:
        """The caller gave up. A waiting run never runs; a running one stops before its next
        step, or after its last one, and is rolled back. One whose changes were already saved
        keeps them, and that is recorded (cancelled_late): its caller may never have seen the
        answer that said so."""
        if job.state == "finished":
            if job.result is not None and job.result.ok:
                self._late(job)
        elif job.state == "waiting":
            self._waiting.remove(job)
            answer = _error(ErrorCode.CANCELLED, f"{job.tool.name} was stopped before it started.")
            self._finish(job, RunResult("cancelled", answer))
        elif job.state == "running":
            job.stop.set()

    # --- the queue -------------------------------------------------------------------------
    def _library_changed(self) -> None:
        for job in list(self._waiting):
            refusal = self.check(job)
            if refusal is not None:
                self._waiting.remove(job)
                self._finish(job, RunResult("refused", refusal))

    def _closing(self, name: str, becomes: str) -> None:
        """The person turns `name` off or revokes it: its runs that have not begun never do."""
        state = None if becomes == "revoked" else ToolState("disabled", "")
        for job in [*self._waiting, *([self._running] if self._running else [])]:
            if job.tool.name != name:
                continue
            refusal = may_run(name, state, job.tool.digest, None, time.monotonic())
            assert refusal is not None
            if job.state == "waiting":
                self._waiting.remove(job)
                self._finish(job, RunResult("refused", refusal))
                continue
            with job.lock:
                if job.started:
                    continue  # under way: it finishes, all or nothing, before the change
                job.refusal = refusal
                job.stop.set()
            self._finish(job, RunResult("refused", refusal))

    def _expired(self, job: RunJob) -> None:
        """Its time is up. A waiting run is dropped; a run handed to the database but not
        begun yet is stopped there (its transaction refuses to begin); one that has begun is
        left to finish, and answers when it has."""
        answer = _error(
            ErrorCode.TIMEOUT, f"{job.tool.name} waited its turn too long and did not run."
        )
        if job.state == "waiting":
            self._waiting.remove(job)
            self._finish(job, RunResult("timeout", answer))
        elif job.state == "running":
            with job.lock:
                if job.started:
                    return
                job.stop.set()
            self._finish(job, RunResult("timeout", answer))

    def _pump(self) -> None:
        while self._running is None and self._waiting:
            job = self._waiting.popleft()
            refusal = self.check(job)
            if refusal is not None:
                self._finish(job, RunResult("refused", refusal))
                continue
            self._start(job)

    def _start(self, job: RunJob) -> None:
        job.state = "running"
        self._running = job
        name, approved, deadline = job.tool.name, job.tool.digest, job.deadline

        def inside(conn: sqlite3.Connection) -> dict[str, Any] | None:
            # The last word, in the run's own transaction.
            state = stored_state(conn, name)
            if state is not None:
                state = replace(state, paused=self._library.paused_for(self._library.get(name)))
            refusal = may_run(name, state, approved, deadline, time.monotonic())
            with job.lock:
                if refusal is None and job.refusal is not None:
                    refusal = job.refusal
                if refusal is None and job.stop.is_set():
                    refusal = _error(ErrorCode.CANCELLED, f"{name} was stopped before it started.")
                job.refused_inside = refusal is not None
                job.started = refusal is None
            return refusal

        def ran(outcome: RunOutcome) -> None:
            self._ran(job, outcome)

        self._model.run(job.request(), inside, job.by, job.client, ran, stopped=job.stop.is_set)

    def _ran(self, job: RunJob, outcome: RunOutcome) -> None:
        if self._running is job:
            self._running = None
        answer = outcome.answer
        code = str(answer.get("code", ""))
        if outcome.ok:
            self._library.record_run(job.tool.name, True, None)
            answer = self._with_helpdesk(answer)
            result = RunResult("ok", answer)
            left = answer.get("reply_left_alone")
            if isinstance(left, list) and left:
                self.reply_left_alone.emit(job.tool.shown_name, [str(t) for t in left])
            if job.stop.is_set():
                # Cancelled after the run's last look before COMMIT: it is saved.
                self._finish(job, result)
                self._late(job)
                self._pump()
                return
        elif code == "cancelled":  # stopped, before its first step or between steps
            result = RunResult("cancelled", answer)
        elif job.refused_inside:
            result = RunResult("refused", answer)
        elif answer.get("badInput") is True:
            # The caller's value was wrong (a typo in a ticket id): the tool did as it should,
            # so this run counts neither for nor against it.
            result = RunResult("failed", answer)
        else:
            step = answer.get("failedStep")
            failure = {"code": code, "message": answer.get("message"), "step": step}
            self._library.record_run(job.tool.name, False, failure)
            result = RunResult("storage" if code == "storage" else "failed", answer)
        self._finish(job, result)
        self._pump()

    def _with_helpdesk(self, answer: dict[str, Any]) -> dict[str, Any]:
        note = self.helpdesk_note
        if note is None:
            return answer
        changed = answer.get("changed")
        tickets = [str(t) for t in changed] if isinstance(changed, list) else []
        words = note(tickets) if tickets else ""
        return {**answer, "helpdesk": words} if words else answer

    def _late(self, job: RunJob) -> None:
        if not job.cancelled_late:
            job.cancelled_late = True
            self._model.record_late_cancel(job.tool.name, job.client)
            self.cancelled_late.emit(job)

    def _finish(self, job: RunJob, result: RunResult) -> None:
        if job.state == "finished":
            return
        job.state = "finished"
        job.result = result
        if job.timer is not None:
            job.timer.stop()
            job.timer.deleteLater()
            job.timer = None
        try:
            job.done(result)
        finally:
            self.finished.emit(job)


def _error(code: ErrorCode, message: str) -> dict[str, Any]:
    return {"isError": True, "code": code, "message": message}
