"""The shell's model on a database of its own, without Qt: for tests that drive commands
straight through model/commands.py (the parity test, the model's unit tests)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from understudy_desktop.catalogue import current_catalogue
from understudy_desktop.model import commands
from understudy_desktop.model.commands import CommandError, Context, People
from understudy_desktop.model.views import View
from understudy_desktop.queue_io.models import Ticket
from understudy_desktop.store.database import migrate
from understudy_desktop.store.queue_store import ticket_row, write_queue
from understudy_desktop.store.ticket_tables import TICKET_JSON


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
