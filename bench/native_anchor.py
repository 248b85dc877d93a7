"""The app beside its native-Chromium anchor: the same console page, the same taught tools,
measured side by side in one run.

anchor  Debian's Chromium 156 with native WebMCP (`--enable-features=WebMCP`, headless, a fresh
        profile) opens the console page from web_assets/ served by a plain http.server on
        127.0.0.1. The page stands alone: it registers its own WebMCP tools, keeps taught tools
        in IndexedDB and approves publishing in its own overlay (#approve-button). A bare CDP
        client (bench/cdp_pipe.py, over --remote-debugging-pipe) calls tools with
        WebMCP.invokeTool and waits for WebMCP.toolResponded. It runs in a process of its own
        (bench/native_page.py, driven as a child of this one). Its window is given the app
        page's viewport (1400 x 854 CSS pixels here), so both paint the same area.
app     the desktop app in this process (offscreen QtWebEngine, window shown, its MCP endpoint
        on loopback), called by a bare HTTP client (JSON-RPC over one kept-alive connection,
        as lean as the anchor's CDP client) in a process of its own.

Both teach the same routine through the page's own controls (Teach, do it, Teach, pick what
the caller chooses, name it, Publish) and approve it: in the app in the consent dialog, in
Chromium in the page's overlay. The input schemas the agent meets (the endpoint's listing,
CDP's WebMCP.toolsAdded) are checked to be identical before anything is measured.

1. CPU per taught call: a two-step taught tool (open a ticket, set its priority; the caller
   picks both) called `--calls` times per arm (default 200; priorities alternate so every
   call really changes the ticket). CPU is utime + stime from /proc (bench/proc_cpu.py), read
   just before each batch and 0.3 s after its last answer (so painting and IndexedDB writes
   that follow an answer count): for the app every thread of this process (the main thread
   with Python, Qt and the shell; the endpoint's and the database writer's Python threads;
   QtWebEngine's browser-side threads, which live in this process), its QtWebEngineProcess
   children and the client process; for the anchor every Chromium process and the CDP
   client's process. Divided by the calls, with where it went; also the median wall time of
   one call and what each side costs idle. A third arm, not a target, calls the app with its
   window hidden (nothing painted) to show what painting costs. Targets: less CPU per call
   than the anchor; a lower median wall time through the endpoint than the native invoke.
2. Scale: a set-based taught tool (filter for a phrase, tag the matches, set their priority)
   over a queue with `--tickets` matching tickets (default 100,000, plus a tenth as many that
   do not match), in the app through the endpoint and in Chromium (which fetches the same
   queue as data/default_queue.json on its first run in a fresh profile). Each run flips the
   priority and is checked to have changed every match. The page's longest freeze is the
   largest gap of a 10 ms setInterval heartbeat inside the page, from just before the call
   until 1.5 s after its answer; the same heartbeat over 2 s of idling is shown as the floor.
   Targets: median wall within 1.5x of the anchor's; the app's longest freeze under 200 ms.
3. Start-up: cold start (fresh data dir / fresh profile) until the meta-tools are listed:
   `python -m understudy_desktop --data-dir X` offscreen until an MCP client lists them
   (bench/startup_memory.py's launch), against Chromium launched on the page until CDP reports
   all four registered, then idle memory (the PSS of each process tree). Median of
   `--starts` (default 5) each. Targets: within 1.3x; idle memory within 1.2x.

The machine has 2 cores and other work may run at the same time, so arms take turns: the calls
run in `--rounds` (default 10) rounds of one batch per arm, the order rotating every round;
the scale runs alternate one by one, and so do the cold starts. While a child works, the app
idles in a Qt event loop (bench/peers.py), as it does for an agent.
Prints markdown tables. Usage:
  .venv/bin/python bench/native_anchor.py [--calls 200] [--rounds 10] [--tickets 100000]
      [--runs 5] [--starts 5] [--only cpu|scale|startup ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]  # tests/js_text.py: the one escaping

from js_text import js_literal  # noqa: E402
from native_page import ASSETS, AssetServer, NativeConsole, cold_start_s  # noqa: E402
from peers import Peer, announce, serve  # noqa: E402
from proc_cpu import descendants, kinds, snapshot, spent, stat_path, threads  # noqa: E402
from startup_memory import IDLE_S as SETTLED_S  # noqa: E402

from understudy_desktop.agent.builtins import listed_builtins  # noqa: E402

PRIORITY_TOOL = "reprioritise_ticket"
PHRASE_TOOL = "tag_phrase"
# The page registers the listed built-ins (data/builtin_tools.json), as the shell lists them.
META_TOOLS = {str(t["name"]) for t in listed_builtins()}
TARGET_TICKET = "T-1011"
SEEN_TICKET = "S-1"  # the big queue's first ticket: a match, drawn at the top of the list
IDLE_S = 2.0
# Each batch's CPU and each run's heartbeat go on this long after the last answer: what the
# pages do after answering (painting, writing IndexedDB) is part of what a call costs.
BATCH_SETTLE_S = 0.3
RUN_SETTLE_S = 1.5

# The routines, as a person does them in the console while Teach records.
ROUTINES: dict[str, tuple[list[str], str]] = {
    PRIORITY_TOOL: (
        ["priority"],
        """$('row-T-1006').click();
  const p = $('priority-select'); p.value = 'urgent'; p.dispatchEvent(new Event('change'));""",
    ),
    PHRASE_TOOL: (
        ["phrase", "priority"],
        """const f = $('filter-text'); f.value = 'bank feed';
  f.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}));
  $('bulk-tag-input').value = 'bank-issue';
  $('bulk-tag-form').requestSubmit();
  const p = $('bulk-priority'); p.value = 'high'; p.dispatchEvent(new Event('change'));""",
    ),
}

HEARTBEAT_START = """(() => { clearInterval(window.__beat); window.__longest = 0;
  window.__last = performance.now();
  window.__beat = setInterval(() => { const now = performance.now();
    window.__longest = Math.max(window.__longest, now - window.__last); window.__last = now;
  }, 10);
  return true; })()"""
# The gap up to this moment counts too: a freeze at the very end of a run is not missed.
HEARTBEAT_STOP = """(() => { clearInterval(window.__beat);
  return Math.max(window.__longest, performance.now() - window.__last); })()"""

# Until the person sees it: the moment the first matching ticket's row is drawn with the new
# priority (the frame after the page's list changed), as wall-clock milliseconds since the
# epoch, so the side that asked can subtract its own clock's start from it.
SEEN_READ = "window.__seenAt"


def seen_watch(ticket: str, priority: str) -> str:
    """Watch the list until `ticket`'s row shows `priority`; the same text on both sides."""
    return f"""(() => {{ window.__seenAt = null; window.__seenWatch?.disconnect();
  const shown = () => document.querySelector(
    '[aria-label^=' + JSON.stringify({js_literal(ticket + ":")}) + ']'
  )?.classList.contains({js_literal("prio-" + priority)});
  const watch = new MutationObserver(() => {{
    if (!shown()) return;
    watch.disconnect();
    const at = () => {{ window.__seenAt = performance.timeOrigin + performance.now(); }};
    requestAnimationFrame(at);
  }});
  watch.observe(document.body, {{ subtree: true, childList: true, attributes: true }});
  window.__seenWatch = watch;
  return !shown(); }})()"""


def teach_script(tool: str) -> str:
    """The page-side teaching of `tool`, as a promise: the same text in the app and Chromium."""
    keep, routine = ROUTINES[tool]
    return f"""(async () => {{
  const $ = (id) => document.getElementById(id);
  const until = async (test, what) => {{
    for (let i = 0; i < 2400 && !test(); i++) await new Promise((r) => setTimeout(r, 25));
    if (!test()) throw new Error('timed out waiting for ' + what);
  }};
  await until(() => document.documentElement.dataset.consoleReady === 'true', 'the console');
  const welcome = $('welcome'); if (welcome) welcome.hidden = true;
  $('teach-button').click();
  await until(() => document.body.classList.contains('recording'), 'recording');
  {routine}
  $('teach-button').click();
  await until(() => !document.body.classList.contains('recording') && $('draft-name'), 'a draft');
  const keep = {json.dumps(keep)};
  for (const b of document.querySelectorAll('#teach-panel input[id^="ask-"]')) {{
    if (keep.includes(b.id.slice(4)) !== b.checked) b.click();
  }}
  const n = $('draft-name'); n.value = {json.dumps(tool)};
  n.dispatchEvent(new Event('input'));
  $('draft-publish').click();
  return true;
}})()"""


def priority_calls(n: int, start: int) -> list[dict[str, Any]]:
    """Alternate high/low on one ticket (it starts at normal), so every call changes it."""
    return [
        {"ticket_id": TARGET_TICKET, "priority": "high" if (start + i) % 2 == 0 else "low"}
        for i in range(n)
    ]


def phrase_args(run: int) -> dict[str, Any]:
    """Teaching set every match to high: runs go low, high, low, ... so each changes them all."""
    return {"phrase": "bank feed", "priority": "low" if run % 2 == 0 else "high"}


def big_queue(matching: int) -> dict[str, Any]:
    """`matching` tickets about a stopped bank feed, and a tenth as many about VAT."""
    demo = json.loads((ASSETS / "data" / "default_queue.json").read_text())
    tickets: list[dict[str, Any]] = []
    for i in range(matching + max(10, matching // 10)):
        match = i < matching
        tickets.append(
            {
                "id": f"S-{i + 1}",
                "subject": "Our bank feed stopped syncing" if match else "VAT return question",
                "body": "Nothing has come through since Monday." if match else "Which box?",
                "requester": f"Customer {i % 997} <c{i % 997}@example.com>",
                "created": "2026-11-20T09:30:00Z",
                "status": "open",
                "priority": "normal",
                "assignee": None,
                "tags": [],
            }
        )
    return {
        "format": "understudy-queue",
        "version": 1,
        "assignees": demo["assignees"],
        "templates": demo["templates"],
        "tickets": tickets,
    }


def check_changed(message: dict[str, Any], output: dict[str, Any] | None) -> None:
    """A set-based run must really have changed every match (the message says how many)."""
    expected = message.get("changed")
    if expected is None:
        return
    changed = ((output or {}).get("result") or {}).get("changed")
    if changed != expected:
        raise RuntimeError(f"the run changed {changed} tickets, not {expected}")


# --- the child processes ----------------------------------------------------------------------


class BareMcp:
    """An agent's side of the app arm as lean as the anchor's bare CDP client: JSON-RPC over
    one kept-alive HTTP connection to the endpoint (streamable HTTP, one JSON body per
    answer), no SDK, no sessions library, nothing parsed that is not needed."""

    def __init__(self, url: str, token: str) -> None:
        import http.client
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        self._path = parts.path or "/"
        self._http = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80)
        self._headers = {
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        self._id = 0
        version = "2025-11-25"
        _, headers = self._post(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "bare-http", "version": "1"},
            },
        )
        self._headers["Mcp-Session-Id"] = headers["mcp-session-id"]
        self._headers["Mcp-Protocol-Version"] = version
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, body: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
        import http.client

        text = json.dumps(body)
        try:
            self._http.request("POST", self._path, text, self._headers)
        except (BrokenPipeError, ConnectionResetError, http.client.HTTPException):
            # The server let an idle connection go (uvicorn keeps one 5 s); the request never
            # left, so it is sent again on a new one.
            self._http.close()
            self._http.request("POST", self._path, text, self._headers)
        response = self._http.getresponse()
        data = response.read()
        return data, {k.lower(): v for k, v in response.getheaders()}

    def _post(self, method: str, params: dict[str, Any]) -> tuple[Any, dict[str, str]]:
        self._id += 1
        data, headers = self._send(
            {"jsonrpc": "2.0", "id": self._id, "method": method, "params": params}
        )
        message = json.loads(data)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return message["result"], headers

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result, _ = self._post("tools/call", {"name": name, "arguments": arguments})
        return dict(result)

    def schema(self, tool: str) -> Any:
        result, _ = self._post("tools/list", {})
        return next(t["inputSchema"] for t in result["tools"] if t["name"] == tool)


def answer_batch(message: dict[str, Any], results: list[Any]) -> None:
    """Every call of a batch must have succeeded (and changed what it should)."""
    for result in results:
        if result.get("isError"):
            raise RuntimeError(str(result.get("content")))
        check_changed(message, result.get("structuredContent"))


def app_client(url: str, token: str) -> None:
    """The agent's side of the app arm: a bare HTTP client (BareMcp); each message is a batch
    of calls, answered with their wall times in milliseconds (or asks for the input schema
    the endpoint lists for a tool)."""
    client = BareMcp(url, token)

    def batch(message: dict[str, Any]) -> Any:
        if message.get("op") == "schema":  # what the endpoint lists for the tool
            return client.schema(message["tool"])
        if message.get("op") == "sleep":  # nothing asked: what the app costs idle
            time.sleep(message["seconds"])
            return None
        times = []
        results = []
        for arguments in message["calls"]:
            t0 = time.perf_counter()
            results.append(client.call(message["tool"], arguments))
            times.append((time.perf_counter() - t0) * 1000)
        answer_batch(message, results)
        time.sleep(message.get("settle", 0))
        return times

    announce(True)
    serve(batch)


def sdk_client(kind: str, url: str, token: str, data_dir: str) -> None:
    """The agent's side as agents really have it: the official MCP SDK client, over
    streamable HTTP ("sdk") or through understudy-mcp on stdio ("stdio"), which an MCP client
    such as Claude Desktop starts itself. Batches as app_client's."""
    import asyncio
    from contextlib import AsyncExitStack

    import httpx2
    from mcp import Client, ClientSession, StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from peers import serve_async

    async def main() -> None:
        async with AsyncExitStack() as stack:
            session: Any
            if kind == "sdk":
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(
                        headers={"Authorization": f"Bearer {token}"},
                        timeout=httpx2.Timeout(30, read=300),
                    )
                )
                session = await stack.enter_async_context(
                    Client(streamable_http_client(url, http_client=http), mode="legacy")
                )
            else:
                params = StdioServerParameters(
                    command=sys.executable,
                    args=[
                        "-m",
                        "understudy_desktop.agent.stdio_proxy",
                        "--data-dir",
                        data_dir,
                        "--no-start",
                    ],
                    env=dict(os.environ),
                )
                read, write = await stack.enter_async_context(stdio_client(params))
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()

            async def batch(message: dict[str, Any]) -> Any:
                if message.get("op") == "sleep":
                    await asyncio.sleep(message["seconds"])
                    return None
                times = []
                results = []
                for arguments in message["calls"]:
                    t0 = time.perf_counter()
                    result = await session.call_tool(message["tool"], arguments)
                    times.append((time.perf_counter() - t0) * 1000)
                    results.append(result.model_dump(by_alias=True, mode="json"))
                answer_batch(message, results)
                await asyncio.sleep(message.get("settle", 0))
                return times

            announce(True)
            await serve_async(batch)

    asyncio.run(main())


def native_worker(tool: str, tickets: int, width: int, height: int) -> None:
    """The anchor's side: Chromium on the page (with a `tickets` queue if non-zero, in a
    width x height viewport like the app's), `tool` taught and approved there, then batches
    of WebMCP.invokeTool calls on request."""
    server = AssetServer(big_queue(tickets) if tickets else None)
    console = NativeConsole(server.url, timeout_s=600)
    console.resize(width, height)
    console.publish_taught(teach_script(tool), tool)
    announce({"schema": console.tools()[tool].get("inputSchema")})

    def handle(message: dict[str, Any]) -> Any:
        if message.get("op") == "sleep":  # nothing asked: what Chromium costs idle
            time.sleep(message["seconds"])
            return None
        if message.get("op") == "idle":  # the heartbeat's longest gap with nothing to do
            console.run_async(HEARTBEAT_START)
            time.sleep(message["seconds"])
            return console.run_async(HEARTBEAT_STOP)
        if message.get("heartbeat"):
            console.run_async(HEARTBEAT_START)
        seen = message.get("seen")
        if seen and console.run_async(seen_watch(seen["ticket"], seen["priority"])) is not True:
            raise RuntimeError("the page showed the change before it was asked for")
        asked = time.time()
        times = []
        for arguments in message["calls"]:
            t0 = time.perf_counter()
            output = console.invoke(message["tool"], arguments, 600)
            times.append((time.perf_counter() - t0) * 1000)
            if not isinstance(output, dict) or output.get("ok") is not True:
                raise RuntimeError(f"the tool failed in Chromium: {output}")
            check_changed(message, output)
        time.sleep(message.get("settle", 0))
        if message.get("heartbeat"):
            answer: dict[str, Any] = {"times": times, "longest": console.run_async(HEARTBEAT_STOP)}
            if seen:
                answer["seen"] = shown_after(console.run_async(SEEN_READ), asked)
            return answer
        return times

    serve(handle)
    console.close()
    server.close()


# --- the app side -----------------------------------------------------------------------------


def shown_after(seen_at: Any, asked: float) -> float:
    """Milliseconds from asking to the page showing the change (it must have shown it)."""
    if not isinstance(seen_at, (int, float)):
        raise RuntimeError("the page never showed the change")
    return float(seen_at) - asked * 1000


def teach_in_app(app: Any, session: Any, tool: str) -> None:
    """Teach `tool` with the console's controls and approve it in the consent dialog."""
    from harness import js_async, keep_recordings, wait

    keeping = keep_recordings(session)  # the person keeps the recording in the shell's dialog
    assert js_async(app, session.window.page, teach_script(tool)) is True
    keeping.stop()
    gate = session.consent.gate
    wait(app, lambda: bool(gate.open_dialogs()), 60)
    gate.open_dialogs()[0].approve_button.click()
    wait(app, lambda: session.library.callable(tool) is not None, 60)


def same_schema(tool: str, client: Peer, native_schema: Any) -> None:
    """The tool an agent meets must be the same in both: the endpoint's listing against the
    page's native WebMCP registration (as the endpoint leans it: a description that only
    lists an input's choices is left out of the list, agent/mcp_shapes.py)."""
    from understudy_desktop.agent.mcp_shapes import lean_inputs

    app_schema = client.ask({"op": "schema", "tool": tool})
    if app_schema != lean_inputs(native_schema):
        raise RuntimeError(
            f"{tool} was taught differently: app {json.dumps(app_schema)}, "
            f"Chromium {json.dumps(native_schema)}"
        )


def child(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), *args]


APP_PROCESS = "app process"
APP_MAIN = "app process: main thread (Python, Qt event loop, shell)"
APP_PYTHON = "app process: Python thread {}"
APP_CHROMIUM = "app process: QtWebEngine thread {}"  # by the thread's own name
APP_GONE = "app process: threads that ended meanwhile"


def measured(
    peer: Peer, message: dict[str, Any], processes: Callable[[], dict[str, str]]
) -> tuple[Any, dict[str, float]]:
    """Ask a child for a batch; the CPU seconds spent meanwhile, by kind of process (stat
    files from `processes()`, listed before and after so none born meanwhile is missed)."""
    before_labels = processes()
    before = snapshot(list(before_labels))
    answer = peer.ask(message)
    labels = {**before_labels, **processes()}
    after = snapshot(list(labels))
    by_label: dict[str, float] = {}
    for path, seconds in spent(before, after).items():
        by_label[labels[path]] = by_label.get(labels[path], 0.0) + seconds
    # The app process is read whole and thread by thread: the difference is what threads
    # that ended during the batch had spent.
    if APP_PROCESS in by_label:
        whole = by_label.pop(APP_PROCESS)
        parts = sum(v for k, v in by_label.items() if k.startswith(APP_PROCESS + ":"))
        if whole > parts:
            by_label[APP_GONE] = whole - parts
    return answer, by_label


def app_processes(clients: dict[str, Peer], native: Peer) -> Callable[[], dict[str, str]]:
    """This process thread by thread (Python and Qt on the main thread, Python's other
    threads, QtWebEngine's browser-side threads, which live in this process), its
    QtWebEngineProcess children (zygotes, renderer) and each client's process with what it
    started (understudy-mcp, for the stdio client); never the anchor's processes, which are
    children of this one too."""

    def listed() -> dict[str, str]:
        me = os.getpid()
        trees = {label: descendants(peer.pid) for label, peer in clients.items()}
        others = {
            *descendants(native.pid),
            *(pid for tree in trees.values() for pid in tree),
            *HOGS,
        }
        ours = [pid for pid in descendants(me) if pid not in others and pid != me]
        out = {stat_path(pid): f"QtWebEngineProcess: {k}" for pid, k in kinds(ours).items()}
        out[stat_path(me)] = APP_PROCESS
        # Python's own threads by their Python names (understudy-mcp is the endpoint's
        # uvicorn, understudy-db-writer the database's writer); the rest are QtWebEngine's.
        python = {t.native_id: t.name for t in threading.enumerate()}
        for tid, name in threads(me).items():
            label = APP_MAIN if tid == me else APP_CHROMIUM.format(name)
            if tid != me and tid in python:
                label = APP_PYTHON.format(python[tid])
            out[stat_path(me, tid)] = label
        for label, peer in clients.items():
            for pid in trees[label]:
                out[stat_path(pid)] = label if pid == peer.pid else "understudy-mcp process"
        return out

    return listed


def native_processes(native: Peer) -> Callable[[], dict[str, str]]:
    def listed() -> dict[str, str]:
        found = kinds(descendants(native.pid))
        return {
            stat_path(pid): "CDP client process (Python)" if pid == native.pid else f"Chromium: {k}"
            for pid, k in found.items()
        }

    return listed


class Arm:
    def __init__(self, name: str) -> None:
        self.name = name
        self.times: list[float] = []
        self.cpu_per_call: list[float] = []  # per batch, seconds
        self.cpu: dict[str, float] = {}  # by kind of process, seconds over all batches
        self.freezes: list[float] = []
        self.seen: list[float] = []  # ms from asking until the page showed the change
        self.idle_gap = 0.0  # the heartbeat's longest gap while idle
        self.idle_cpu: float | None = None  # CPU seconds per second with nothing asked

    def add_batch(self, times: list[float], cpu: dict[str, float]) -> None:
        self.times.extend(times)
        self.cpu_per_call.append(sum(cpu.values()) / len(times))
        for label, seconds in cpu.items():
            self.cpu[label] = self.cpu.get(label, 0.0) + seconds


def viewport(app: Any, page: Any) -> list[str]:
    """The app page's viewport in CSS pixels, as arguments for the anchor's worker."""
    from harness import js

    return [str(v) for v in json.loads(js(app, page, "JSON.stringify([innerWidth, innerHeight])"))]


def settle(seconds: float) -> None:
    """Let the app's event loop idle a moment (a local loop: see bench/peers.py)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


HOGS: set[int] = set()
BARE, SDK, STDIO = (
    "bare HTTP client process (Python)",
    "MCP SDK client process (Python)",
    "MCP SDK stdio client process (Python)",
)


def cpu_phase(calls: int, rounds: int) -> list[Arm]:
    from harness import application, start_console

    app = application()
    app_arm, native_arm, hidden_arm = Arm("app"), Arm("anchor"), Arm("app, window hidden")
    sdk_arm, stdio_arm = Arm("app, MCP SDK"), Arm("app, understudy-mcp")
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        data_dir = Path(tmp) / "data"
        session = start_console(app, data_dir, agent=True)
        window = session.window
        native = Peer(child("--native-worker", PRIORITY_TOOL, "0", *viewport(app, window.page)))
        teach_in_app(app, session, PRIORITY_TOOL)
        url, token = session.agent.url, session.agent.token
        client = Peer(child("--app-client", url, token))
        client.receive()
        sdk = Peer(child("--sdk-client", "sdk", url, token, str(data_dir)))
        stdio = Peer(child("--sdk-client", "stdio", url, token, str(data_dir)))
        for peer in (sdk, stdio):
            peer.receive()
        same_schema(PRIORITY_TOOL, client, native.receive()["schema"])
        for peer in (client, sdk, stdio, native):
            peer.ask({"tool": PRIORITY_TOOL, "calls": priority_calls(10, 0)})
        per_round = max(1, calls // rounds)
        in_app = app_processes({BARE: client, SDK: sdk, STDIO: stdio}, native)
        in_chromium = native_processes(native)
        # What each side costs with nothing asked of it (both pages shown, both settled).
        settle(1.0)
        for arm, peer, processes in ((app_arm, client, in_app), (native_arm, native, in_chromium)):
            _, cpu = measured(peer, {"op": "sleep", "seconds": IDLE_S}, processes)
            arm.idle_cpu = sum(cpu.values()) / IDLE_S
        # Each side's ticket flips on every call, batch after batch (the app arms share one).
        done = {"app": 10 * 3, "anchor": 10}

        def batch(arm: Arm, peer: Peer, side: str, processes: Callable[[], dict[str, str]]) -> None:
            calls = priority_calls(per_round, done[side])
            message = {"tool": PRIORITY_TOOL, "calls": calls, "settle": BATCH_SETTLE_S}
            done[side] += per_round
            times, cpu = measured(peer, message, processes)
            arm.add_batch(times, cpu)

        def hidden() -> None:
            window.hide()
            settle(0.3)
            batch(hidden_arm, client, "app", in_app)
            window.show()
            settle(0.3)

        turns: list[Callable[[], None]] = [
            lambda: batch(app_arm, client, "app", in_app),
            lambda: batch(native_arm, native, "anchor", in_chromium),
            lambda: batch(sdk_arm, sdk, "app", in_app),
            lambda: batch(stdio_arm, stdio, "app", in_app),
            hidden,
        ]
        for r in range(rounds):
            k = r % len(turns)
            for go in turns[k:] + turns[:k]:
                go()
        for peer in (client, sdk, stdio, native):
            peer.close()
        session.close()
    return [app_arm, native_arm, sdk_arm, stdio_arm, hidden_arm]


def scale_message(run: int, tickets: int) -> dict[str, Any]:
    """One run of the set-based tool, checked to change every match, then a settle."""
    return {
        "tool": PHRASE_TOOL,
        "calls": [phrase_args(run)],
        "changed": tickets,
        "settle": RUN_SETTLE_S,
        "seen": {"ticket": SEEN_TICKET, "priority": phrase_args(run)["priority"]},
    }


def scale_phase(tickets: int, runs: int) -> tuple[Arm, Arm]:
    from harness import application, js, start_console, wait

    app = application()
    app_arm, native_arm = Arm("app"), Arm("anchor")
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        session = start_console(app, Path(tmp) / "data", agent=True)
        # The anchor builds its own copy of the queue (the same function, the same tickets).
        size = viewport(app, session.window.page)
        native = Peer(child("--native-worker", PHRASE_TOOL, str(tickets), *size))
        path = Path(tmp) / "queue.json"
        path.write_text(json.dumps(big_queue(tickets)), encoding="utf-8")
        loaded: list[int] = []
        session.window.queue_loaded.connect(loaded.append)
        session.window.open_queue(path, confirm=False)
        wait(app, lambda: bool(loaded), 600)
        session.window.queue_loaded.disconnect()
        teach_in_app(app, session, PHRASE_TOOL)
        client = Peer(child("--app-client", session.agent.url, session.agent.token))
        client.receive()
        same_schema(PHRASE_TOOL, client, native.receive()["schema"])
        page = session.window.page
        app_tree = app_processes({BARE: client}, native)
        native_tree = native_processes(native)

        def in_app(run: int) -> tuple[list[float], float, float, dict[str, float]]:
            js(app, page, HEARTBEAT_START)
            message = scale_message(run, tickets)
            if js(app, page, seen_watch(**message["seen"])) is not True:
                raise RuntimeError("the page showed the change before it was asked for")
            asked = time.time()
            times, cpu = measured(client, message, app_tree)
            seen = shown_after(js(app, page, SEEN_READ), asked)
            return times, float(js(app, page, HEARTBEAT_STOP)), seen, cpu

        def in_chromium(run: int) -> tuple[list[float], float, float, dict[str, float]]:
            message = {**scale_message(run, tickets), "heartbeat": True}
            answer, cpu = measured(native, message, native_tree)
            return answer["times"], float(answer["longest"]), float(answer["seen"]), cpu

        in_app(0)  # one run each to warm up, not counted
        in_chromium(0)
        # What the heartbeat shows with nothing to do (timer slack, other work on the machine).
        js(app, page, HEARTBEAT_START)
        settle(IDLE_S)
        app_arm.idle_gap = float(js(app, page, HEARTBEAT_STOP))
        native_arm.idle_gap = float(native.ask({"op": "idle", "seconds": IDLE_S}))
        for run in range(1, runs + 1):
            turns = [(app_arm, in_app), (native_arm, in_chromium)]
            for arm, go in turns if run % 2 == 0 else turns[::-1]:
                times, longest, seen, cpu = go(run)
                arm.add_batch(times, cpu)
                arm.freezes.append(longest)
                arm.seen.append(seen)
        client.close()
        native.close()
        session.close()
    return app_arm, native_arm


Starts = tuple[list[float], list[float], list[float], list[float], list[float]]


def startup_phase(starts: int) -> Starts:
    from startup_memory import launch

    app_s: list[float] = []
    app_ready: list[float] = []  # the console interactive, agent.json written
    native_s: list[float] = []
    app_mb: list[float] = []  # idle after the start, the process tree's PSS
    native_mb: list[float] = []
    server = AssetServer()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        for i in range(starts):

            def app_start(data_dir: Path = Path(tmp) / f"cold-{i}") -> None:
                ready, listed = launch(data_dir, idle=app_mb)
                app_ready.append(ready)
                app_s.append(listed)

            def native_start() -> None:
                native_s.append(cold_start_s(server.url, META_TOOLS, idle=native_mb))

            turns = [app_start, native_start]
            for go in turns if i % 2 == 0 else turns[::-1]:
                go()
    server.close()
    return app_s, native_s, app_ready, app_mb, native_mb


# --- the report -------------------------------------------------------------------------------


def med(values: list[float]) -> float:
    return statistics.median(values)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[round(0.95 * (len(ordered) - 1))]


def met(ok: bool) -> str:
    return "met" if ok else "missed"


def cpu_breakdown(arms: list[Arm], unit: str) -> None:
    print(f"\nWhere the CPU goes (ms per {unit}, by kind of process or thread; each under 1%")
    print("of its arm is summed into one row):\n")
    print(f"| arm | process or thread | CPU per {unit} (ms) | share |")
    print("|---|---|---:|---:|")
    digits = 2 if unit == "call" else 0
    for arm in arms:
        total = sum(arm.cpu.values()) or 1.0
        rows = sorted(arm.cpu.items(), key=lambda kv: -kv[1])
        small = [seconds for _, seconds in rows if seconds / total < 0.01]
        rows = [(k, v) for k, v in rows if v / total >= 0.01]
        if small:
            rows.append((f"{len(small)} others", sum(small)))
        for label, seconds in rows:
            print(
                f"| {arm.name} | {label} | {seconds / len(arm.times) * 1000:.{digits}f} |"
                f" {seconds / total:.0%} |"
            )


def report_cpu(arms: list[Arm]) -> list[tuple[str, str, str, str, str]]:
    app_arm, native_arm, sdk_arm, stdio_arm, hidden_arm = arms
    print(f"\n### 1. A two-step taught tool ({PRIORITY_TOOL}), called one after another\n")
    print("| arm | calls | CPU per call, all processes (ms) | median of batches (ms) |", end="")
    print(" wall median (ms) | wall p95 (ms) | idle CPU (ms per s) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    rows = [
        (app_arm, "app: endpoint, bare HTTP client in its own process"),
        (sdk_arm, "app: endpoint, the official MCP SDK client (streamable HTTP)"),
        (stdio_arm, "app: understudy-mcp on stdio, the official MCP SDK client"),
        (native_arm, "anchor: Chromium 156, CDP WebMCP.invokeTool"),
        (hidden_arm, "diagnostic, no target: the app with its window hidden (page not painted)"),
    ]
    for arm, label in rows:
        total = sum(arm.cpu.values()) / len(arm.times) * 1000
        print(
            f"| {label} | {len(arm.times)} | {total:.2f} | {med(arm.cpu_per_call) * 1000:.2f} |"
            f" {med(arm.times):.2f} | {p95(arm.times):.2f} |"
            f" {'' if arm.idle_cpu is None else f'{arm.idle_cpu * 1000:.0f}'} |"
        )
    cpu_breakdown([app_arm, sdk_arm, stdio_arm, native_arm, hidden_arm], "call")
    native_cpu = sum(native_arm.cpu.values()) / len(native_arm.times)
    targets = []
    for arm, how in (
        (app_arm, "a bare client"),
        (sdk_arm, "the MCP SDK"),
        (stdio_arm, "understudy-mcp"),
    ):
        cpu = sum(arm.cpu.values()) / len(arm.times)
        targets += [
            (
                f"CPU per taught call through {how} at most the anchor's",
                f"{cpu * 1000:.2f} ms",
                f"{native_cpu * 1000:.2f} ms",
                f"{cpu / native_cpu:.2f}x",
                met(cpu <= native_cpu),
            ),
            (
                f"taught call through {how} at most the native invoke (median wall)",
                f"{med(arm.times):.2f} ms",
                f"{med(native_arm.times):.2f} ms",
                f"{med(arm.times) / med(native_arm.times):.2f}x",
                met(med(arm.times) <= med(native_arm.times)),
            ),
        ]
    return targets


def report_scale(
    app_arm: Arm, native_arm: Arm, tickets: int
) -> list[tuple[str, str, str, str, str]]:
    print(f"\n### 2. A set-based taught tool ({PHRASE_TOOL}) over {tickets:,} matching tickets\n")
    print("| arm | runs | wall median (ms) | wall max (ms) | longest freeze, median (ms) |", end="")
    print(f" longest freeze, max (ms) | idle {IDLE_S:.0f} s, longest gap (ms) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for arm, label in (
        (app_arm, "app: endpoint, MCP SDK client"),
        (native_arm, "anchor: Chromium 156, CDP WebMCP.invokeTool"),
    ):
        print(
            f"| {label} | {len(arm.times)} | {med(arm.times):.0f} | {max(arm.times):.0f} |"
            f" {med(arm.freezes):.0f} | {max(arm.freezes):.0f} | {arm.idle_gap:.0f} |"
        )
    cpu_breakdown([app_arm, native_arm], "run")
    ratio = med(app_arm.times) / med(native_arm.times)
    seen = med(app_arm.seen) / med(native_arm.seen)
    return [
        (
            f"{tickets:,} matches: within 1.5x of the anchor",
            f"{med(app_arm.times):.0f} ms",
            f"{med(native_arm.times):.0f} ms",
            f"{ratio:.2f}x",
            met(ratio <= 1.5),
        ),
        (
            f"{tickets:,} matches until the page shows them: within 1.5x",
            f"{med(app_arm.seen):.0f} ms",
            f"{med(native_arm.seen):.0f} ms",
            f"{seen:.2f}x",
            met(seen <= 1.5),
        ),
        (
            "longest page freeze under 200 ms (worst run)",
            f"{max(app_arm.freezes):.0f} ms",
            f"{max(native_arm.freezes):.0f} ms",
            f"{max(app_arm.freezes) / max(native_arm.freezes):.2f}x",
            met(max(app_arm.freezes) < 200),
        ),
    ]


def report_startup(
    app_s: list[float],
    native_s: list[float],
    app_ready: list[float],
    app_mb: list[float],
    native_mb: list[float],
) -> list[tuple[str, ...]]:
    print("\n### 3. Cold start until the meta-tools are listed, then idle memory\n")
    print("| arm | starts | median (s) | min (s) | max (s) | idle PSS, median (MB) |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, values, mb in (
        ("app: python -m understudy_desktop, MCP client lists", app_s, app_mb),
        ("anchor: Chromium 156 on the page, CDP reports registered", native_s, native_mb),
        ("(app, on the way: console interactive, agent.json written)", app_ready, []),
    ):
        memory = f"{med(mb):.0f}" if mb else ""
        print(
            f"| {label} | {len(values)} | {med(values):.2f} | {min(values):.2f} |"
            f" {max(values):.2f} | {memory} |"
        )
    print(
        f"\nIdle memory is the proportional set size of each side's whole process tree"
        f" {SETTLED_S:.0f} s after its tools were listed (the app with its QtWebEngine processes,"
        " Chromium with its renderer, GPU and utility processes)."
    )
    ratio = med(app_s) / med(native_s)
    memory_ratio = med(app_mb) / med(native_mb)
    return [
        (
            "cold start to tools listed within 1.3x of Chromium",
            f"{med(app_s):.2f} s",
            f"{med(native_s):.2f} s",
            f"{ratio:.2f}x",
            met(ratio <= 1.3),
        ),
        (
            "idle memory within 1.2x of Chromium's",
            f"{med(app_mb):.0f} MB",
            f"{med(native_mb):.0f} MB",
            f"{memory_ratio:.2f}x",
            met(memory_ratio <= 1.2),
        ),
    ]


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--app-client":
        app_client(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--sdk-client":
        sdk_client(*sys.argv[2:6])
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--native-worker":
        native_worker(sys.argv[2], *(int(a) for a in sys.argv[3:6]))
        return 0
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--tickets", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5, help="scale runs per arm")
    parser.add_argument("--starts", type=int, default=5, help="cold starts per arm")
    parser.add_argument("--only", choices=["cpu", "scale", "startup"], action="append")
    parser.add_argument(
        "--hogs", type=int, default=0, help="processes that spin the whole time (a busy machine)"
    )
    args = parser.parse_args()
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.hogs)]
    HOGS.update(hog.pid for hog in hogs)  # the load, not the app: never counted as either side
    try:
        return run_phases(args)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def run_phases(args: argparse.Namespace) -> int:
    phases = args.only or ["startup", "cpu", "scale"]
    began = time.perf_counter()
    # Start-up first, while nothing else of this benchmark is running.
    starts = startup_phase(args.starts) if "startup" in phases else None
    calls = cpu_phase(args.calls, args.rounds) if "cpu" in phases else None
    scale = scale_phase(args.tickets, args.runs) if "scale" in phases else None

    busy = f", {args.hogs} spinning processes beside it" if args.hogs else ", nothing else running"
    print(f"\n## The app beside native Chromium 156 (one run, arms taking turns; 2 cores{busy})")
    targets: list[tuple[str, ...]] = []
    if calls:
        targets += report_cpu(calls)
    if scale:
        targets += report_scale(*scale, args.tickets)
    if starts:
        targets += report_startup(*starts)
    print("\n### Targets\n")
    print("| target | app | anchor | app : anchor | |")
    print("|---|---:|---:|---:|---|")
    for row in targets:
        print("| " + " | ".join(row) + " |")
    print(f"\nbenchmark time: {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
