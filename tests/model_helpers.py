"""The shell's model on a database of its own, without Qt: for tests that drive commands
straight through model/commands.py and runs through model/runs.py (the parity tests, the
model's unit tests); and the page's model in Node beside it (web_assets/tests/model_worker.js)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from waiting import HANG_S

from understudy_desktop.catalogue import current_catalogue
from understudy_desktop.definition import Step
from understudy_desktop.model import commands, runs
from understudy_desktop.model.commands import CommandError, Context, People
from understudy_desktop.model.views import View
from understudy_desktop.queue_io.models import Ticket
from understudy_desktop.store.database import migrate
from understudy_desktop.store.queue_store import ticket_row, write_queue
from understudy_desktop.store.ticket_tables import TICKET_JSON

WORKER = Path(__file__).resolve().parent.parent / "web_assets" / "tests" / "model_worker.js"


@contextmanager
def page_worker() -> Iterator[Callable[[dict[str, Any]], dict[str, Any]]]:
    """The page's model in one Node process: ask(request) -> its answer (see the worker)."""
    node = shutil.which("node")
    assert node, "Node runs the page's model"
    process = subprocess.Popen(
        [node, str(WORKER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )

    def ask(request: dict[str, Any]) -> dict[str, Any]:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        answer: dict[str, Any] = json.loads(process.stdout.readline())
        assert "crashed" not in answer, answer.get("crashed")
        return answer

    try:
        yield ask
    finally:
        process.terminate()
        process.wait(HANG_S)


def normalised(ticket: dict[str, Any]) -> Ticket:
    """A ticket in the page's shape, every field present (js/queue_state.js normaliseTicket)."""
    return Ticket.model_validate(
        {
            "id": str(ticket["id"]),
            "subject": ticket.get("subject", ""),
            "body": ticket.get("body", ""),
            "requester": ticket.get("requester", ""),
            "created": ticket.get("created") or "2026-11-01T09:00:00Z",
            "status": ticket.get("status", "new"),
            "priority": ticket.get("priority", "normal"),
            "assignee": ticket.get("assignee"),
            "tags": list(ticket.get("tags") or []),
            "reply_draft": ticket.get("reply_draft", ""),
        }
    )


class MemoryModel:
    def __init__(self, queue: dict[str, Any]) -> None:
        self.conn = sqlite3.connect(":memory:", isolation_level=None)
        migrate(self.conn)
        rows = [ticket_row(normalised(t), i) for i, t in enumerate(queue["tickets"])]
        self.conn.execute("BEGIN")
        write_queue(self.conn, queue, rows, None, "g1")
        self.conn.execute("COMMIT")
        self.people = People(list(queue.get("assignees") or []), list(queue.get("templates") or []))
        self.view = View()
        self.catalogue = current_catalogue()

    def dispatch(self, command: str, payload: Any) -> dict[str, Any]:
        """One of the person's commands, as its own transaction."""
        view = self.view.copy()
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            applied = commands.apply(
                self.catalogue, Context(self.conn, self.people, view), command, payload
            )
        except CommandError as exc:
            self.conn.execute("ROLLBACK")
            return {"ok": False, "code": exc.code, "message": exc.message}
        self.conn.execute("COMMIT")
        self.view = view
        return {"ok": True, "result": applied.result, "writes": applied.writes}

    def tickets(self) -> list[dict[str, Any]]:
        rows = self.conn.execute(f"SELECT {TICKET_JSON} FROM tickets ORDER BY position")
        return [json.loads(r[0]) for r in rows]

    def run(
        self, definition: dict[str, Any], arguments: Any, stop_after: int | None = None
    ) -> dict[str, Any]:
        """A taught tool's run as model/service.py runs it: model/runs.py in one transaction,
        rolled back when it fails; the caller gives up once `stop_after` steps were applied."""
        looks = 0

        def stopped() -> bool:
            nonlocal looks
            looks += 1  # runs.py looks before each step (and once more after the last)
            return stop_after is not None and looks > stop_after

        request = runs.RunRequest(
            definition["name"],
            [Step.model_validate(s) for s in definition["steps"]],
            definition["inputSchema"],
            arguments,
        )
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            outcome = runs.execute(
                lambda view: Context(self.conn, self.people, view, True, False),
                self.catalogue,
                request,
                stopped,
            )
        except runs.RunError as exc:
            self.conn.execute("ROLLBACK")
            return exc.answer
        self.conn.execute("COMMIT")
        return outcome.answer
