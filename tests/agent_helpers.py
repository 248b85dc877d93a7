"""Run a real MCP SDK client on its own thread while the test's Qt loop keeps the page alive."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from waiting import HANG_S


def run_client(qtbot: Any, make: Callable[[], Awaitable[Any]], timeout_s: float = HANG_S) -> Any:
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(make())
        except BaseException as exc:  # handed back to the test thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=int(timeout_s * 1000))
    if "error" in box:
        raise box["error"]
    return box.get("value")


@asynccontextmanager
async def mcp_client(url: str, token: str, mode: str = "legacy", **kwargs: Any):
    async with (
        httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=300)
        ) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode, **kwargs) as c,
    ):
        yield c


def ticket_param(description: str = "The ticket, for example T-1001.") -> dict:
    return {"type": "string", "pattern": "^T-[0-9]+$", "description": description}


def definition(name: str, description: str, steps: list[dict], properties: dict | None = None):
    """A taught tool's definition, as the page's compiler would make it."""
    properties = properties if properties is not None else {"ticket_id": ticket_param()}
    return {
        "name": name,
        "title": "",
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": properties,
            "required": sorted(properties),
            "additionalProperties": False,
        },
        "steps": steps,
    }


def step(command: str, **args) -> dict:
    """A step: keyword values are fixed; ("param", name) reads a parameter."""
    out = {}
    for field, value in args.items():
        if isinstance(value, tuple) and value[0] == "param":
            out[field] = {"from": "param", "name": value[1]}
        else:
            out[field] = {"from": "const", "value": value}
    return {"command": command, "args": out}


TEST_TOOLS = {
    "lookup_ticket": definition(
        "lookup_ticket",
        "Read one ticket: subject, message, status and reply draft.",
        [step("get_ticket", ticket_id=("param", "ticket_id"))],
    ),
    "close_ticket": definition(
        "close_ticket",
        "Close one ticket.",
        [step("set_ticket_status", ticket_id=("param", "ticket_id"), status="closed")],
    ),
    "give_to_nobody": definition(
        "give_to_nobody",
        "Raise a ticket to urgent, then close one this queue does not have (always fails).",
        [
            step("set_ticket_priority", ticket_id=("param", "ticket_id"), priority="urgent"),
            step("set_ticket_status", ticket_id="T-0000", status="closed"),
        ],
    ),
}


def publish_definitions(console, definitions: list[dict]) -> None:
    """The person publishes tools, approving each in the native dialog (bench/harness.py)."""
    from harness import publish_definitions as publish

    publish(console.session, definitions, lambda p: console.qtbot.waitUntil(p))


def approve_in_dialog(console, full: bool = False):
    """A person clicks Approve in the native consent dialog once it is open; returns its
    headline (or, with full, everything it says)."""
    gate = console.session.consent.gate
    console.qtbot.waitUntil(lambda: bool(gate.open_dialogs()))
    dialog = gate.open_dialogs()[0]
    text = dialog.text_shown() if full else dialog.headline.text()
    dialog.approve_button.click()
    return text


def stored_ticket(data_dir, ticket_id: str) -> dict:
    """A ticket as the database holds it (the shell's copy, not what the page shows)."""
    import json
    import sqlite3

    from understudy_desktop.store.ticket_tables import TICKET_JSON

    db = sqlite3.connect(data_dir / "understudy.sqlite3")
    try:
        row = db.execute(f"SELECT {TICKET_JSON} FROM tickets WHERE id = ?", (ticket_id,)).fetchone()
    finally:
        db.close()
    assert row is not None, f"{ticket_id} is not in the database"
    return json.loads(row[0])
