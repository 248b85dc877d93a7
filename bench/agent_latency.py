"""A one-ticket taught tool through the agent endpoint against the same run in the shell with
no endpoint, and 20 agents calling at once. Side by side, in one run of one app.

  in the shell  the shell's run path on the approved steps, called on its own thread (the
                floor: run queue, "may this run now?", the model, one committed transaction)
  endpoint      the official MCP client (its own process) -> streamable HTTP -> the shell's
                call policy (library, schema) -> run queue -> the model -> back
  20 clients    20 MCP clients in one process, 50 calls each, all at once

Prints median / mean / p95 / p99 per arm, the endpoint's overhead over the shell's own run,
and for the 20 clients how many calls succeeded and how many were refused as busy.
Usage: .venv/bin/python bench/agent_latency.py [calls]
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import application, client_process, publish_definitions, start_console
from harness import wait as pump

TOOL = "set_ticket_urgency"
DEFINITION = {
    "name": TOOL,
    "title": "",
    "description": "Open one ticket and set its priority.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "ticket_id": {"type": "string", "pattern": "^T-[0-9]+$", "description": "The ticket."},
            "priority": {"enum": ["low", "normal", "high", "urgent"], "description": "Priority."},
        },
        "required": ["priority", "ticket_id"],
        "additionalProperties": False,
    },
    "steps": [
        {"command": "select_ticket", "args": {"ticket_id": {"from": "param", "name": "ticket_id"}}},
        {
            "command": "set_ticket_priority",
            "args": {
                "ticket_id": {"from": "step", "step": 0, "path": "ticket_id"},
                "priority": {"from": "param", "name": "priority"},
            },
        },
    ],
}
CLIENTS = 20
CALLS_EACH = 50


def in_the_shell(app: Any, session: Any, n: int) -> list[float]:
    """The shell's own run path, call after call, the way the endpoint's calls reach it."""
    tool = session.library.callable(TOOL)
    times: list[float] = []
    for i in range(n):
        answers: list[dict[str, Any]] = []
        t0 = time.perf_counter()
        session.calls.run(tool, args_for(i), "agent", "benchmark", answers.append)
        pump(app, lambda answers=answers: bool(answers), 30, every_ms=1)
        times.append((time.perf_counter() - t0) * 1000)
        if not answers[0].get("ok"):
            raise RuntimeError(answers[0].get("message"))
    return times


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def args_for(i: int, ticket: str = "T-1001") -> dict[str, Any]:
    return {"ticket_id": ticket, "priority": "low" if i % 2 else "high"}


async def sequential_client(url: str, token: str, n: int) -> list[float]:
    from harness import timed_calls

    calls = [(TOOL, args_for(i)) for i in range(n)]
    return await timed_calls(url, token, calls, warm_up=20)


async def many_clients(url: str, token: str) -> dict[str, Any]:
    """CLIENTS sessions at once, each CALLS_EACH calls on its own ticket."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    times: list[float] = []
    codes: dict[str, int] = {}

    async def one(index: int) -> None:
        ticket = f"T-{1001 + index}"
        async with (
            httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(60, read=600)
            ) as http,
            Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
        ):
            for i in range(CALLS_EACH):
                t0 = time.perf_counter()
                result = await client.call_tool(TOOL, args_for(i, ticket))
                times.append((time.perf_counter() - t0) * 1000)
                code = (result.structured_content or {}).get("code") if result.is_error else "ok"
                codes[str(code)] = codes.get(str(code), 0) + 1

    await asyncio.gather(*(one(i) for i in range(CLIENTS)))
    return {"times": times, "codes": codes}


def row(name: str, values: list[float]) -> str:
    return (
        f"{name:<22} | {statistics.median(values):>8.2f} | {statistics.fmean(values):>8.2f} | "
        f"{percentile(values, 95):>8.2f} | {percentile(values, 99):>8.2f}"
    )


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--client":
        url, token, n = sys.argv[2], sys.argv[3], int(sys.argv[4])
        print(json.dumps(asyncio.run(sequential_client(url, token, n))))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--many":
        print(json.dumps(asyncio.run(many_clients(sys.argv[2], sys.argv[3]))))
        return 0
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    app = application()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        session = start_console(app, Path(tmp) / "data", agent=True)
        publish_definitions(session, [DEFINITION], lambda p: pump(app, p, 20))
        shell = in_the_shell(app, session, calls)
        server = session.agent
        assert server is not None
        # Clients run in their own process, as real agents do; the app idles in app.exec().
        endpoint = json.loads(
            client_process(
                app, [sys.executable, __file__, "--client", server.url, server.token, str(calls)]
            )
        )
        many = json.loads(
            client_process(app, [sys.executable, __file__, "--many", server.url, server.token])
        )
        runs = session.library.usage(TOOL).runs
        session.close()

    print()
    print(f"A one-ticket taught tool ({TOOL}: open a ticket, set its priority)")
    print(f"{calls:,} runs per arm, one after another; offscreen QtWebEngine, this machine")
    head = f"{'arm':<22} | {'median':>8} | {'mean':>8} | {'p95':>8} | {'p99':>8}   (ms)"
    print(head)
    print("-" * len(head))
    print(row("in the shell", shell))
    print(row("through the endpoint", endpoint))
    print(row(f"{CLIENTS} clients at once", many["times"]))
    overhead = statistics.median(endpoint) - statistics.median(shell)
    print(f"endpoint overhead over the shell's own run (median): {overhead:.2f} ms")
    total = CLIENTS * CALLS_EACH
    print(f"{CLIENTS} clients x {CALLS_EACH} calls: outcomes {many['codes']} of {total}")
    print(f"runs the library counted: {runs:,} (expected {2 * calls + 20 + total:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
