"""The cost of one trivial tool call, by way in, measured side by side in one run.

anchor     Chromium 156 with native WebMCP runs the console page; the client speaks CDP over
           --remote-debugging-pipe (bench/cdp_pipe.py): WebMCP.invokeTool, then its
           WebMCP.toolResponded event, on the page's own
           `understudy_list_recordings`, which answers from memory.
app, h11   the app's endpoint served by uvicorn with its pure-Python HTTP parser and asyncio's
           loop (what uvicorn picks when nothing faster is installed);
app        the app's endpoint as it ships: httptools and uvloop;
           each through plain HTTP (one keep-alive connection, the floor any client pays) and
           through the official MCP SDK client, on `understudy_list_recordings`, which the app
           answers in Python without the page.
proxy      the same call through `understudy-mcp` (stdio), with the SDK's stdio client.

Arms take turns in rounds so a busy moment hits them alike. Usage:
  .venv/bin/python bench/transport.py [--rounds 10] [--calls 40]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE)]

import httpx2  # noqa: E402
from cdp_pipe import PipeCDP  # noqa: E402
from harness import application, start_console, wait  # noqa: E402

from understudy_desktop.agent.http_host import TRANSPORT, Transport  # noqa: E402
from understudy_desktop.agent.runtime_file import AgentRuntime, write_runtime  # noqa: E402

TOOL = "understudy_list_recordings"
VERSION = "2025-11-25"


class RawClient:
    """JSON-RPC over one keep-alive HTTP connection: no client library in the way."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.http = httpx2.Client(timeout=30)
        base = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "Authorization": f"Bearer {token}",
        }
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": VERSION,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        }
        answer = self.http.post(url, json=init, headers=base)
        self.headers = {
            **base,
            "Mcp-Session-Id": answer.headers["mcp-session-id"],
            "Mcp-Protocol-Version": VERSION,
        }
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        self.http.post(url, json=note, headers=self.headers)
        self.next_id = 1

    def call(self) -> None:
        self.next_id += 1
        body = {
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": "tools/call",
            "params": {"name": TOOL, "arguments": {}},
        }
        answer = self.http.post(self.url, json=body, headers=self.headers)
        if answer.json()["result"].get("isError"):
            raise RuntimeError(answer.text)


async def sdk_calls(url: str, token: str, n: int) -> list[float]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):
        await client.call_tool(TOOL, {})
        return [await _timed(client.call_tool(TOOL, {})) for _ in range(n)]


async def proxy_calls(data_dir: Path, n: int) -> list[float]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "understudy_desktop.agent.stdio_proxy", "--data-dir", str(data_dir)],
        env=dict(os.environ),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool(TOOL, {})
        return [await _timed(session.call_tool(TOOL, {})) for _ in range(n)]


async def _timed(awaitable: Any) -> float:
    t0 = time.perf_counter()
    await awaitable
    return (time.perf_counter() - t0) * 1000


def in_thread(make: Callable[[], Any], app: Any) -> Any:
    """Run a client on its own thread while the app's Qt loop keeps serving."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = make()
        except BaseException as exc:  # handed back below
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    wait(app, lambda: not thread.is_alive(), 600)
    if "error" in box:
        raise box["error"]
    return box["value"]


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class NativeAnchor:
    """Chromium 156 on the console page; calls through CDP's WebMCP domain over a pipe."""

    def __init__(self) -> None:
        handler = functools.partial(Quiet, directory=str(ROOT / "web_assets"))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.cdp = PipeCDP()
        self.cdp.open_page(f"http://127.0.0.1:{self.server.server_address[1]}/index.html")
        deadline = time.monotonic() + 30
        ready = "document.documentElement.dataset.consoleReady === 'true'"
        while not self.cdp.evaluate(ready):
            if time.monotonic() > deadline:
                raise TimeoutError("the console did not start in Chromium")
            time.sleep(0.05)
        self.cdp.send("WebMCP.enable")
        self.frame = self.cdp.send("Page.getFrameTree")["frameTree"]["frame"]["id"]

    def call(self) -> None:
        sent = self.cdp.send(
            "WebMCP.invokeTool", {"frameId": self.frame, "toolName": TOOL, "input": {}}
        )
        answer = self.cdp.wait_event("WebMCP.toolResponded", {"invocationId": sent["invocationId"]})
        if answer["status"] != "Completed":
            raise RuntimeError(f"the native call failed: {answer}")

    def close(self) -> None:
        self.cdp.close()
        self.server.shutdown()


def timed_loop(call: Callable[[], None], n: int) -> list[float]:
    call()  # warm
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        call()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def restart_endpoint(session: Any, transport: Transport) -> tuple[str, str]:
    agent = session.agent
    agent.stop()
    agent.transport = transport
    agent.start(0)
    return agent.url, agent.token


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--calls", type=int, default=40)
    args = parser.parse_args()
    app = application()
    samples: dict[str, list[float]] = {}
    anchor = NativeAnchor()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        data_dir = Path(tmp) / "data"
        session = start_console(app, data_dir, agent=True)
        slow = Transport(http="h11", loop="asyncio")
        for _ in range(args.rounds):
            samples.setdefault("anchor: CDP WebMCP.invokeTool", []).extend(
                timed_loop(anchor.call, args.calls)
            )
            for label, options in (("h11 + asyncio", slow), ("httptools + uvloop", TRANSPORT)):
                url, token = restart_endpoint(session, options)
                raw = in_thread(lambda u=url, t=token: RawClient(u, t), app)
                samples.setdefault(f"app, {label}: plain HTTP", []).extend(
                    in_thread(lambda r=raw: timed_loop(r.call, args.calls), app)
                )
                samples.setdefault(f"app, {label}: MCP SDK client", []).extend(
                    in_thread(lambda u=url, t=token: asyncio.run(sdk_calls(u, t, args.calls)), app)
                )
            # The proxy finds the app through agent.json: say where the endpoint is now.
            url, token = restart_endpoint(session, TRANSPORT)
            port = session.agent.port_number
            write_runtime(data_dir, AgentRuntime(url, port, token, os.getpid()))
            samples.setdefault("app via understudy-mcp (stdio)", []).extend(
                in_thread(lambda: asyncio.run(proxy_calls(data_dir, args.calls)), app)
            )
        session.close()
    anchor.close()
    report(samples)
    return 0


def report(samples: dict[str, list[float]]) -> None:
    anchor = statistics.median(samples["anchor: CDP WebMCP.invokeTool"])
    print(f"one trivial call ({TOOL}); milliseconds; all arms in one run, taking turns\n")
    print("| way in | calls | median | p95 | median : anchor |")
    print("|---|---:|---:|---:|---:|")
    for label, values in samples.items():
        values = sorted(values)
        p95 = values[int(0.95 * (len(values) - 1))]
        med = statistics.median(values)
        print(f"| {label} | {len(values)} | {med:.2f} | {p95:.2f} | {med / anchor:.1f}x |")
    shipped = statistics.median(samples["app, httptools + uvloop: MCP SDK client"])
    proxy = statistics.median(samples["app via understudy-mcp (stdio)"])
    print("\n| target | measured | met |")
    print("|---|---:|---|")
    print(
        f"| through the HTTP endpoint, within 2x of the anchor | {shipped / anchor:.1f}x | "
        f"{'yes' if shipped <= 2 * anchor else 'no'} |"
    )
    print(
        f"| through understudy-mcp, within 3x of the anchor | {proxy / anchor:.1f}x | "
        f"{'yes' if proxy <= 3 * anchor else 'no'} |"
    )
    print(json.dumps({k: statistics.median(v) for k, v in samples.items()}), file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
