"""Runs of taught tools, in arrival order, one at a time in the page.

Whoever asks (an agent through the endpoint, the person from the library, a script in the
page through the WebMCP mirror), the run is the same: the shell takes the approved
definition from the library and hands the page exactly its steps with the arguments. What the
page's own registry holds never matters.

The page has one thread, so runs queue here. Each has its own timeout, counted from when it
arrived. A run still waiting when its time is up is dropped without running. The page is told
each run's deadline and refuses to start one past it, so a run the caller was told timed out
never starts later. `busy` comes back only when MAX_WAITING runs are already waiting.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from PySide6.QtCore import QObject, QTimer, Signal

from understudy_desktop.bridge.console_port import CallResult, ConsolePort
from understudy_desktop.bridge.protocol import RunAnswer
from understudy_desktop.library.library import Library
from understudy_desktop.library.model import TaughtTool

log = logging.getLogger(__name__)

MAX_WAITING = 256
# How long past its deadline a run that already started may take to report back. The page
# never *starts* a run after its deadline; this only covers one that started just before.
GRACE_S = 2.0

Outcome = Literal["ok", "failed", "timeout", "cancelled", "busy", "unavailable", "storage"]
# Saves a run's changes, as one transaction, before its caller hears of it:
# commit(changes, by, tool, client, done), and done("") once saved or done(reason).
Commit = Callable[[list[tuple[str, str, Any]], str, str, str, Callable[[str], None]], None]


@dataclass
class RunResult:
    outcome: Outcome
    answer: RunAnswer | None = None
    message: str = ""


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
    call_id: str = ""
    timer: QTimer | None = None

    @property
    def deadline(self) -> float:
        return self.arrived + self.timeout_s


class ToolRunner(QObject):
    finished = Signal(object)  # the RunJob, after its result was handed out

    def __init__(
        self,
        port: ConsolePort,
        library: Library,
        commit: Commit | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._port = port
        self._library = library
        self._commit = commit
        self._waiting: deque[RunJob] = deque()
        self._running: RunJob | None = None
        port.ready_changed.connect(self._on_ready)

    def _on_ready(self, ready: bool) -> None:
        if ready:
            self._pump()

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @property
    def running(self) -> bool:
        """A run is in the page now (the next waits for it to finish)."""
        return self._running is not None

    def submit(self, job: RunJob) -> RunJob:
        if len(self._waiting) >= MAX_WAITING:
            job.state = "finished"
            job.done(
                RunResult("busy", message=f"{MAX_WAITING} runs are already waiting. Try again.")
            )
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
        """The caller gave up. A waiting run never runs; a running one is aborted in the page
        (its changes are rolled back if it is still between steps)."""
        if job.state == "waiting":
            self._waiting.remove(job)
            self._finish(job, RunResult("cancelled", message="Stopped before it started."))
        elif job.state == "running" and job.call_id:
            self._port.cancel(job.call_id, "cancelled")

    # --- the queue -------------------------------------------------------------------------
    def _expired(self, job: RunJob) -> None:
        if job.state == "waiting":
            self._waiting.remove(job)
            self._finish(
                job,
                RunResult("timeout", message="It waited its turn too long and did not run."),
            )

    def _pump(self) -> None:
        if self._running is not None or not self._waiting or not self._port.ready:
            return
        job = self._waiting.popleft()
        job.state = "running"
        self._running = job
        remaining = max(0.0, job.deadline - time.monotonic())
        definition = job.tool.definition
        payload = {
            "tool": job.tool.name,
            "steps": definition.get("steps"),
            "inputSchema": job.tool.input_schema,
            "input": job.arguments,
            "by": job.by,
            # Wall-clock milliseconds, the page's Date.now(): it refuses to start after this.
            "deadline": int((time.time() + remaining) * 1000),
        }
        job.call_id = self._port.run(
            payload, lambda answer: self._answered(job, answer), remaining + GRACE_S
        )

    def _answered(self, job: RunJob, answer: RunAnswer | CallResult) -> None:
        if self._running is job:
            self._running = None
        if isinstance(answer, CallResult):
            if answer.error_name == "AbortError" and answer.error == "timeout":
                result = RunResult("timeout", message="It did not finish in time and was stopped.")
            elif answer.error_name == "AbortError" and answer.error == "cancelled":
                result = RunResult("cancelled", message="It was stopped before it finished.")
            else:
                result = RunResult("unavailable", message="The console did not run it.")
        elif answer.succeeded:
            if answer.changes and self._commit is not None:
                # Acknowledged only once saved; the next run may start meanwhile (the page has
                # applied this one, and the database keeps commits in order).
                self._commit(
                    answer.changes,
                    job.by,
                    job.tool.name,
                    job.client,
                    lambda error: self._saved(job, answer, error),
                )
                self._pump()
                return
            self._library.record_run(job.tool.name, True, None)
            result = RunResult("ok", answer)
        else:
            if answer.code not in ("timeout", "cancelled"):
                self._library.record_run(
                    job.tool.name,
                    False,
                    {"code": answer.code, "message": answer.message, "step": answer.failedStep},
                )
            outcome: Outcome = answer.code if answer.code in ("timeout", "cancelled") else "failed"  # type: ignore[assignment]
            result = RunResult(outcome, answer, answer.message)
        self._finish(job, result)
        self._pump()

    def _saved(self, job: RunJob, answer: RunAnswer, error: str) -> None:
        if error:
            failure = {"code": "storage", "message": error, "step": None}
            self._library.record_run(job.tool.name, False, failure)
            message = f"The run's changes could not be saved ({error}); nothing was kept."
            self._finish(job, RunResult("storage", answer, message))
            return
        self._library.record_run(job.tool.name, True, None)
        self._finish(job, RunResult("ok", answer))

    def _finish(self, job: RunJob, result: RunResult) -> None:
        if job.state == "finished":
            return
        job.state = "finished"
        if job.timer is not None:
            job.timer.stop()
            job.timer.deleteLater()
            job.timer = None
        try:
            job.done(result)
        finally:
            self.finished.emit(job)
