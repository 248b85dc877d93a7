"""`understudy-mcp` over stdio, driven by the MCP SDK's own stdio client."""

from __future__ import annotations

import os
import signal
import sys
import time

import anyio
import mcp_types as types
import pytest
from agent_helpers import TEST_TOOLS, definition, publish_definitions, run_client, step
from mcp import ClientSession, StdioServerParameters, stdio_client
from PySide6.QtCore import QTimer

from understudy_desktop.agent.runtime_file import read_runtime


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
            with anyio.fail_after(20):
                while not seen:
                    await anyio.sleep(0.05)
            later = [t.name for t in (await session.list_tools()).tools]
            return names, called, bad, later

    extra = definition(
        "via_proxy", "Read a ticket.", [step("get_ticket", ticket_id=("param", "ticket_id"))]
    )
    QTimer.singleShot(2500, lambda: publish_definitions(agent_console, [extra]))
    names, called, bad, later = run_client(agent_console.qtbot, go, timeout_s=60)
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


def test_the_proxy_says_plainly_when_the_app_is_not_running(tmp_path):
    import subprocess

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
        timeout=60,
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
        names = run_client(qtbot, go, timeout_s=120)
        runtime = read_runtime(data_dir)
        assert runtime is not None and runtime.pid != os.getpid()
        assert "understudy_draft_tool" in names  # the console's own meta-tools
        os.kill(runtime.pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while read_runtime(data_dir) is not None and time.monotonic() < deadline:
            time.sleep(0.2)
        # A polite stop removes agent.json: the next proxy will not trust a dead endpoint.
        assert read_runtime(data_dir) is None
    finally:
        runtime = read_runtime(data_dir)
        if runtime is not None:
            os.kill(runtime.pid, signal.SIGTERM)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                try:
                    os.kill(runtime.pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.2)
