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


def run_client(qtbot: Any, make: Callable[[], Awaitable[Any]], timeout_s: float = 30) -> Any:
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


REGISTER_TEST_TOOLS = """(() => {
  const mc = document.modelContext;
  window.__signals = {};
  window.__cancels = [];
  mc.addEventListener('toolcancel', (e) => window.__cancels.push(e.toolName));
  mc.registerTool({
    name: 'lookup_order', title: 'Look up an order',
    description: 'Find an order by number.',
    inputSchema: { type: 'object', properties: { order: { type: 'string', pattern: '^INV-[0-9]+$' },
                   detail: { enum: ['short', 'full'] } },
                   required: ['order'], additionalProperties: false },
    annotations: { readOnlyHint: true, untrustedContentHint: true },
    execute: (input) => ({ order: input.order, status: 'paid', detail: input.detail ?? 'short' }),
  });
  mc.registerTool({
    name: 'archive_ticket', description: 'Archive a ticket.',
    inputSchema: { type: 'object', properties: { ticket_id: { type: 'string' } } },
    annotations: { consequentialHint: true },
    execute: () => 'archived',
  });
  mc.registerTool({ name: 'explode', description: 'Always fails.',
    execute() { throw new Error('kaboom ' + 'secret-detail'); } });
  mc.registerTool({ name: 'chatty', description: 'Returns a lot.',
    execute: () => ({ text: 'x'.repeat(5000) }) });
  mc.registerTool({ name: 'slow', description: 'Waits until aborted.',
    execute: (input, { signal }) => new Promise((resolve, reject) => {
      window.__signals.slow = signal;
      signal.addEventListener('abort', () => reject(new DOMException('stopped', 'AbortError')));
    }) });
  return true;
})()"""


def approve_page_tools(console, names) -> None:
    """The person approves page tools as they are registered now (the test plays the person:
    it writes the approval record a dialog's Approve would write)."""
    from understudy_desktop.consent.approvals import definition_hash

    bridge = console.window.bridge
    console.qtbot.waitUntil(lambda: all(bridge.tool(n) is not None for n in names))
    for name in names:
        definition = bridge.tool(name).as_definition()
        console.session.consent.approvals.record(name, definition_hash(definition))


def approve_in_dialog(console, timeout_ms: int = 10_000):
    """A person clicks Approve in the native consent dialog once it is open."""
    gate = console.session.consent.gate
    console.qtbot.waitUntil(lambda: bool(gate.open_dialogs()), timeout=timeout_ms)
    dialog = gate.open_dialogs()[0]
    text = dialog.headline.text()
    dialog.approve_button.click()
    return text
