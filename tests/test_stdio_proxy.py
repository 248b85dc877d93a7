"""`understudy-mcp` over stdio, driven by the MCP SDK's own stdio client."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

import anyio
import mcp_types as types
import pytest
from agent_helpers import TEST_TOOLS, definition, publish_definitions, run_client, step
from mcp import ClientSession, StdioServerParameters, stdio_client
from test_agent_endpoint import stream_open
from waiting import HANG_S, until

from understudy_desktop.agent.runtime_file import read_runtime
from understudy_desktop.qt_thread import call_on_main


def proxy_params(data_dir) -> StdioServerParameters:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "understudy_desktop.agent.stdio_proxy", "--data-dir", str(data_dir)],
        env=env,
    )


def test_the_proxy_lists_calls_and_forwards_list_changed(agent_console, data_dir):
    publish_definitions(agent_console, [TEST_TOOLS["lookup_ticket"], TEST_TOOLS["close_ticket"]])
    seen: list[str] = []

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            seen.append(message.method)

    async def go():
        async with (
            stdio_client(proxy_params(data_dir)) as (read, write),
            ClientSession(
                read,
                write,
                message_handler=on_message,
                client_info=types.Implementation(name="Claude Desktop", version="1"),
            ) as session,
        ):
            await session.initialize()
            names = [t.name for t in (await session.list_tools()).tools]
            called = await session.call_tool("close_ticket", {"ticket_id": "T-1009"})
            bad = await session.call_tool("close_ticket", {"ticket_id": 7})
            # Published once the relay holds its notification stream open, not after a guess.
            await stream_open(agent_console)
            call_on_main(lambda: publish_definitions(agent_console, [extra]))
            with anyio.fail_after(HANG_S):
                while not seen:
                    await anyio.sleep(0.05)
            later = [t.name for t in (await session.list_tools()).tools]
            return names, called, bad, later

    extra = definition(
        "via_proxy", "Read a ticket.", [step("get_ticket", ticket_id=("param", "ticket_id"))]
    )
    names, called, bad, later = run_client(agent_console.qtbot, go)
    assert [n for n in names if not n.startswith("understudy_")] == [
        "close_ticket",
        "lookup_ticket",
    ]
    assert called.structured_content["changed"] == ["T-1009"]
    assert bad.is_error and bad.structured_content["code"] == "invalid_input"
    assert "via_proxy" in later
    # The console names the client that started the proxy, not the proxy.
    activity = agent_console.window._agent[0]
    assert activity.snapshot().client == "Claude Desktop"
    assert "Claude Desktop" in agent_console.window._agent_status.text()
    # Calls are not the log's business: the HTTP client's line per request stays out of it.
    said = (data_dir / "logs" / "mcp-proxy.log").read_text(encoding="utf-8")
    assert "/mcp" not in said, said[-500:]


def test_a_call_cancelled_through_the_proxy_never_runs(agent_console, data_dir):
    """The relay passes the client's notifications/cancelled on, in the same session."""
    from test_agent_endpoint import cancel_once_waiting, ticket

    publish_definitions(agent_console, [TEST_TOOLS["close_ticket"]])

    async def go():
        async with (
            stdio_client(proxy_params(data_dir)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            async with anyio.create_task_group() as tg:
                tg.start_soon(session.call_tool, "close_ticket", {"ticket_id": "T-1007"})
                while not runner.running:  # the first call is under way; the database is busy
                    await anyio.sleep(0.02)
                await cancel_once_waiting(
                    runner,
                    lambda: session.call_tool("close_ticket", {"ticket_id": "T-1008"}),
                    free,
                )
            return True

    before = ticket(agent_console, "T-1008")
    assert before["status"] != "closed"
    runner = agent_console.session.calls.runner
    # The database is kept busy until the second call has been let go.
    with agent_console.database_held() as free:
        run_client(agent_console.qtbot, go)
    agent_console.qtbot.waitUntil(lambda: ticket(agent_console, "T-1007")["status"] == "closed")
    agent_console.settled()
    assert ticket(agent_console, "T-1008") == before
    assert agent_console.library.usage("close_ticket").runs == 1


RAW_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


def raw_proxy(data_dir) -> subprocess.Popen:
    """understudy-mcp, talked to line by line (no MCP client in between)."""
    return subprocess.Popen(
        [sys.executable, *proxy_params(data_dir).args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=proxy_params(data_dir).env,
    )


def converse(console, child, lines: list[bytes], answers: list, expect: int):
    """Write every line, then read `expect` answers (on a thread: the Qt loop keeps going)."""

    def talk() -> None:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(b"\n".join(lines) + b"\n")
        child.stdin.flush()
        while len(answers) < expect:
            answers.append(json.loads(child.stdout.readline()))
        child.stdin.close()

    try:
        thread = threading.Thread(target=talk, daemon=True)
        thread.start()
        console.qtbot.waitUntil(lambda: not thread.is_alive())
    finally:
        child.kill()
        child.wait(HANG_S)


def test_the_proxy_answers_a_line_that_is_not_json_and_goes_on(agent_console, data_dir):
    """A broken line gets a JSON-RPC parse error; the next request is answered as usual."""
    child = raw_proxy(data_dir)
    init = RAW_INIT
    lines = [
        json.dumps(init),
        "this is not json",
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ]
    answers: list[dict] = []

    converse(agent_console, child, [line.encode() for line in lines], answers, 3)
    by_id = {a.get("id"): a for a in answers}
    assert by_id[1]["result"]["protocolVersion"] == "2025-06-18"
    assert by_id[None]["error"]["code"] == -32700
    assert "understudy_run_tool" in [t["name"] for t in by_id[2]["result"]["tools"]]


def test_the_proxy_answers_oversize_requests_and_lives_through_any_line(agent_console, data_dir):
    """A request over the app's 4 MiB gets a JSON-RPC error with its own id (not silence),
    however large (past the proxy's own 16 MiB line limit too); a long line that is not JSON
    is skipped with an error; requests with ids MCP does not allow get -32600; the requests
    after all of them are answered."""
    child = raw_proxy(data_dir)
    init = RAW_INIT

    def call(request_id, size: int) -> bytes:
        message = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": "understudy_run_tool", "arguments": {"note": "x" * size}},
        }
        return json.dumps(message).encode()

    bad_ids = [None, 1.5, {}, True]
    lines = [
        json.dumps(init).encode(),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(),
        call(7, 5 << 20),
        b"y" * (17 << 20),
        call("huge", 64 << 20),
        *[json.dumps({"jsonrpc": "2.0", "id": i, "method": "ping"}).encode() for i in bad_ids],
        json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).encode(),
    ]
    answers: list[dict] = []

    converse(agent_console, child, lines, answers, 9)
    by_id = {json.dumps(a.get("id")): a for a in answers}
    assert by_id["7"]["error"]["code"] == -32600
    assert "larger than Understudy takes (4 MB)" in by_id["7"]["error"]["message"]
    assert "larger than Understudy takes (4 MB)" in by_id['"huge"']["error"]["message"]
    nameless = [a for a in answers if a.get("id") is None]
    assert len(nameless) == 5  # the line that is not JSON, and the four bad ids
    assert sum("larger than" in a["error"]["message"] for a in nameless) == 1
    assert sum("must be a string or an integer" in a["error"]["message"] for a in nameless) == 4
    assert {a["error"]["code"] for a in nameless} == {-32600}
    assert "understudy_run_tool" in [t["name"] for t in by_id["9"]["result"]["tools"]]


def test_the_proxy_says_plainly_when_the_app_is_not_running(tmp_path):

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "understudy_desktop.agent.stdio_proxy",
            "--data-dir",
            str(tmp_path),
            "--no-start",
        ],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        check=False,
    )
    assert done.returncode == 1
    assert "Understudy is not running" in done.stderr


@pytest.mark.slow
def test_the_proxy_starts_the_app_when_none_is_running(qtbot, tmp_path):
    data_dir = tmp_path / "fresh"

    async def go():
        async with (
            stdio_client(proxy_params(data_dir)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return [t.name for t in (await session.list_tools()).tools]

    try:
        names = run_client(qtbot, go)
        runtime = read_runtime(data_dir)
        assert runtime is not None and runtime.pid != os.getpid()
        assert "understudy_draft_tool" in names  # the console's own meta-tools
        os.kill(runtime.pid, signal.SIGTERM)
        # A polite stop removes agent.json: the next proxy will not trust a dead endpoint.
        until(lambda: read_runtime(data_dir) is None, "the stopped app removes agent.json")
    finally:
        stop_whoever_runs(data_dir)


def stop_whoever_runs(data_dir) -> None:
    """Stop the app agent.json names (one a proxy started on its own), and wait for it."""
    runtime = read_runtime(data_dir)
    if runtime is None:
        return
    os.kill(runtime.pid, signal.SIGTERM)

    def gone() -> bool:
        try:
            os.kill(runtime.pid, 0)
        except ProcessLookupError:
            return True
        return False

    until(gone, "the app it started has stopped")


def start_app_process(data_dir) -> subprocess.Popen:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    child = subprocess.Popen(
        [sys.executable, "-m", "understudy_desktop", "--data-dir", str(data_dir)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def started() -> bool:
        runtime = read_runtime(data_dir)
        assert child.poll() is None, "the app stopped while starting"
        return runtime is not None and runtime.pid == child.pid

    try:
        until(started, "the app has started and written agent.json")
    except AssertionError:
        child.kill()
        raise
    return child


def stop_app_process(child: subprocess.Popen) -> None:
    child.send_signal(signal.SIGTERM)
    try:
        child.wait(HANG_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait(HANG_S)


@pytest.mark.slow
def test_the_proxy_outlives_a_restart_of_the_app(tmp_path):
    """A connected client keeps working across a restart of the app (new port and token): a
    call while the app is down gets a clean error, the next one after it is back succeeds."""
    import anyio.to_thread

    data_dir = tmp_path / "data"
    apps = [start_app_process(data_dir)]
    first_token = read_runtime(data_dir).token
    params = proxy_params(data_dir)
    params.args.append("--no-start")
    stderr = tmp_path / "proxy-stderr.txt"

    async def go():
        with stderr.open("w") as errors:
            async with (
                stdio_client(params, errlog=errors) as (read, write),
                ClientSession(
                    read,
                    write,
                    client_info=types.Implementation(name="Claude Desktop", version="1"),
                ) as session,
            ):
                await session.initialize()
                before = await session.call_tool("understudy_list_recordings", {})
                await anyio.to_thread.run_sync(stop_app_process, apps[0])
                down = await session.call_tool("understudy_list_recordings", {})
                apps.append(await anyio.to_thread.run_sync(start_app_process, data_dir))
                after = await session.call_tool("understudy_list_recordings", {})
                names = [t.name for t in (await session.list_tools()).tools]
                return before, down, after, names

    try:
        before, down, after, names = anyio.run(go)
    finally:
        for child in apps:
            if child.poll() is None:
                stop_app_process(child)
    assert before.is_error is False
    assert down.is_error is True and down.structured_content["code"] == "unavailable"
    assert "Understudy" in down.content[0].text
    assert read_runtime(data_dir) is None or read_runtime(data_dir).token != first_token
    assert after.is_error is False, after.content[0].text
    assert "understudy_run_tool" in names
    # Whatever happened is in the proxy's log; the client's stderr has no traceback.
    assert "Traceback" not in stderr.read_text()
    assert (data_dir / "logs" / "mcp-proxy.log").exists()


def test_a_listening_client_is_answered_through_the_proxy(agent_console, data_dir):
    """A 2026-07-28 client (no initialize: server/discover) keeps a subscriptions/listen
    stream open through the proxy; calls made while it is open, and after it ends, are
    answered, and the stream carries the change."""
    from mcp import Client

    later = definition(
        "heard_later", "Read a ticket.", [step("get_ticket", ticket_id=("param", "ticket_id"))]
    )

    async def go():
        async with Client(stdio_client(proxy_params(data_dir)), mode="auto") as c:
            version = c.protocol_version
            async with c.listen(tools_list_changed=True) as subscription:
                with anyio.fail_after(HANG_S):
                    during = [t.name for t in (await c.list_tools()).tools]
                    # Published once the relay holds the stream open, not at a guess.
                    await stream_open(agent_console)
                    call_on_main(lambda: publish_definitions(agent_console, [later]))
                    async for _event in subscription:
                        break
            with anyio.fail_after(HANG_S):
                after = await c.call_tool("understudy_list_recordings", {})
                names = [t.name for t in (await c.list_tools()).tools]
            return version, during, after, names

    version, during, after, names = run_client(agent_console.qtbot, go)
    assert version == "2026-07-28"
    assert "understudy_run_tool" in during
    assert after.is_error is False
    assert "heard_later" in names
