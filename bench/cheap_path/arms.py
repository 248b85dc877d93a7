"""The arms. Each runs a task from a reset state and reports what it cost.

taught     an MCP client calls the taught tool through the running app's endpoint
catalogue  an MCP client calls the console's catalogue commands (one approved single-step
           tool per command) one by one
dom        Playwright drives the console in Chromium 156 by accessible names, reading the
           accessibility snapshot a DOM agent would read before every step (scripted: the floor)
cdm        chrome-devtools-mcp drives the console in Chromium 156 over MCP, as a DOM-driving
           agent does: snapshot, then click / fill / press_key by uid (cdm_arm.py)
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import publish_definitions, start_console, teach_and_publish, wait
from tasks import Task

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "web_assets" / "data" / "default_queue.json"


@dataclass
class Outcome:
    arm: str
    task: str
    solved: bool
    steps: int
    seconds: float
    bytes_read: int
    bytes_written: int


# --- teaching, as a person does it in the console ------------------------------------------

ROUTINES = {
    "assign_refund": (
        ["ticket_id"],
        """
      document.getElementById('row-T-1006').click();
      for (const [id, v] of [['assignee-select', 'priya'], ['priority-select', 'high'],
                             ['template-select', 'refund_approved']]) {
        const s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event('change'));
      }
      document.getElementById('template-apply').click();""",
    ),
    "escalate": (
        ["ticket_id"],
        """
      document.getElementById('row-T-1006').click();
      const p = document.getElementById('priority-select'); p.value = 'urgent';
      p.dispatchEvent(new Event('change'));
      document.getElementById('tag-input').value = 'escalated';
      document.getElementById('tag-form').requestSubmit();""",
    ),
    "triage_phrase": (
        ["phrase"],
        """
      const f = document.getElementById('filter-text'); f.value = 'bank feed';
      f.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}));
      document.getElementById('bulk-tag-input').value = 'bank-feed';
      document.getElementById('bulk-tag-form').requestSubmit();
      for (const [id, v] of [['bulk-assign', 'tomasz'], ['bulk-priority', 'high']]) {
        const s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event('change'));
      }""",
    ),
    # One filter with every criterion set, so each becomes a parameter.
    "count_tickets": (
        ["phrase", "status", "priority", "assignee"],
        """
      document.getElementById('filter-text').value = 'refund';
      document.getElementById('filter-status').value = 'open';
      document.getElementById('filter-priority').value = 'high';
      const a = document.getElementById('filter-assignee'); a.value = 'priya';
      a.dispatchEvent(new Event('change'));""",
    ),
}


def teach_all(app: Any, session: Any) -> None:
    for tool, (keep, routine) in ROUTINES.items():
        teach_and_publish(app, session, tool, routine, keep)


# The catalogue arm's agent calls the console's commands one by one. In the desktop app only
# tools a person approved are exposed, so the benchmark plays the person approving one
# single-step tool per command the tasks use, every field a question (one command, no more).
CATALOGUE_COMMANDS = [
    "select_ticket",
    "set_ticket_assignee",
    "set_ticket_priority",
    "apply_template",
    "add_ticket_tag",
    "filter_tickets",
    "tag_matching_tickets",
    "assign_matching_tickets",
    "set_matching_priority",
]


def command_tool(command: Any) -> dict[str, Any]:
    schema = command.payload_schema
    fields = schema.get("properties", {})
    return {
        "name": f"cmd_{command.id}",
        "title": "",
        "description": f"{command.title}: one catalogue command, as the console runs it.",
        "inputSchema": {
            "type": "object",
            "properties": {f: dict(s) for f, s in fields.items()},
            "required": list(schema.get("required", [])),
            "additionalProperties": False,
        },
        "steps": [
            {"command": command.id, "args": {f: {"from": "param", "name": f} for f in fields}}
        ],
    }


def expose_catalogue(app: Any, session: Any) -> None:
    commands = session.library.catalogue.commands
    publish_definitions(
        session, [command_tool(commands[c]) for c in CATALOGUE_COMMANDS], lambda p: wait(app, p, 20)
    )


def reset_app(app: Any, session: Any) -> None:
    loaded: list[int] = []
    session.window.queue_loaded.connect(loaded.append)
    session.window.open_queue(DEMO, confirm=False)
    wait(app, lambda: bool(loaded), 60)
    session.window.queue_loaded.disconnect()


def app_ticket(app: Any, session: Any):
    """A ticket as the app holds it: its database (the page draws it a moment later)."""

    def ticket(tid: str) -> dict[str, Any]:
        found: dict[str, Any] = session.window.keeper.store.rows([tid]).get(tid, {})
        return found

    return ticket


# --- the MCP arms ---------------------------------------------------------------------------


async def _mcp_task(
    url: str, token: str, calls: list[tuple[str, dict[str, Any]]], catalogue_arm: bool
) -> tuple[float, int, int, list[str]]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(60, read=600)
        ) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):
        t0 = time.perf_counter()
        listed = await client.list_tools()
        # Each arm's agent reads only its own interface's tools (both run in one app here).
        own = [t for t in listed.tools if t.name.startswith("cmd_") == catalogue_arm]
        read = len(
            json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in own])
        )
        written = 0
        texts = []
        for name, args in calls:
            written += len(json.dumps({"name": name, "arguments": args}))
            result = await client.call_tool(name, args)
            text = result.content[0].text if result.content else ""
            read += len(text)
            texts.append(text)
        return time.perf_counter() - t0, read, written, texts


def run_mcp(
    app: Any, url: str, token: str, calls: list[tuple[str, dict[str, Any]]], catalogue_arm: bool
) -> tuple[float, int, int, list[str]]:
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["v"] = asyncio.run(_mcp_task(url, token, calls, catalogue_arm))
        except BaseException as exc:  # reported on the main thread
            box["e"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    wait(app, lambda: not thread.is_alive(), 120)
    if "e" in box:
        raise box["e"]
    return box["v"]


def answer_of(texts: list[str]) -> Any:
    """A question's answer: the last step's `matched` (both a taught run and a catalogue
    dispatch put the step's result under "result")."""
    try:
        last = json.loads(texts[-1])
    except (ValueError, IndexError):
        return None
    return (last.get("result") or {}).get("matched") if isinstance(last, dict) else None


def run_app_arm(arm: str, app: Any, session: Any, task: Task) -> Outcome:
    reset_app(app, session)
    server = session.agent
    calls = [task.taught] if arm == "taught" else [(f"cmd_{c}", p) for c, p in task.catalogue]
    seconds, read, written, texts = run_mcp(
        app, server.url, server.token, calls, arm == "catalogue"
    )
    solved = task.solved(app_ticket(app, session), answer_of(texts))
    return Outcome(arm, task.id, solved, len(calls), seconds, read, written)


def start_app(app: Any, root: Path) -> Any:
    session = start_console(app, root, agent=True)
    teach_all(app, session)
    expose_catalogue(app, session)
    return session


# --- the DOM arm ------------------------------------------------------------------------------


def _dom_action(page: Any, action: tuple[str, ...]) -> Any:
    kind = action[0]
    if kind == "search" or kind == "open":
        box = page.get_by_role("searchbox", name="Search tickets")
        box.fill(action[1])
        box.press("Enter")
        if kind == "open":
            page.get_by_role("row", name=re.compile(f"^{re.escape(action[1])}:")).click()
    elif kind == "select":
        page.get_by_label(action[1], exact=True).select_option(action[2])
    elif kind == "click":
        page.get_by_role("button", name=action[1], exact=True).click()
    elif kind == "fill":
        field = page.get_by_label(action[1], exact=True)
        field.fill(action[2])
        field.press("Enter")
    elif kind == "read_count":
        text = page.locator("#match-count").inner_text()
        match = re.match(r"([\d,]+)", text)
        return int(match.group(1).replace(",", "")) if match else None
    return None


def run_dom_arm(browser: Any, base_url: str, task: Task) -> Outcome:
    context = browser.new_context(bypass_csp=True, viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(f"{base_url}/index.html")
    page.wait_for_function("document.documentElement.dataset.consoleReady === 'true'")
    # A fresh profile shows the first-run welcome; the agent dismisses it before the task.
    welcome = page.get_by_role("button", name="Got it")
    if welcome.is_visible():
        welcome.click()
    read = written = 0
    answer = None
    t0 = time.perf_counter()
    for action in task.dom:
        read += len(page.locator("body").aria_snapshot())  # what a DOM agent reads first
        written += len(json.dumps(action))
        answer = _dom_action(page, action)
    seconds = time.perf_counter() - t0

    def ticket(tid: str) -> dict[str, Any]:
        out = page.evaluate(
            "(tid) => window.understudyShell.api.dispatch('get_ticket', {ticket_id: tid}, 'bench')",
            tid,
        )
        return out["result"]

    solved = task.solved(ticket, answer)
    context.close()
    return Outcome("dom", task.id, solved, len(task.dom), seconds, read, written)
