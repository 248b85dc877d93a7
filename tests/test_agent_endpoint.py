"""The agent endpoint, driven by the official MCP SDK client over streamable HTTP."""

from __future__ import annotations

import json
import os
import stat

import anyio
import httpx2
import mcp_types as types
import pytest
from agent_helpers import REGISTER_TEST_TOOLS, approve_page_tools, mcp_client, run_client
from PySide6.QtCore import QTimer

from understudy_desktop.agent.runtime_file import read_runtime
from understudy_desktop.agent.server import AgentServer
from understudy_desktop.consent.approvals import definition_hash


@pytest.fixture
def agent(agent_console):
    """The running console with the test tools registered by the page, as the mirror sees them."""
    agent_console.js(REGISTER_TEST_TOOLS)
    bridge = agent_console.window.bridge
    agent_console.qtbot.waitUntil(lambda: len(bridge.tools) == 5 + len(META_TOOLS))
    approve_page_tools(agent_console, TEST_TOOLS)
    return agent_console


META_TOOLS = [
    "understudy_draft_tool",
    "understudy_list_recordings",
    "understudy_publish_tool",
    "understudy_run_tool",
]
TEST_TOOLS = ["archive_ticket", "chatty", "explode", "lookup_order", "slow"]


def endpoint(console):
    server = console.session.agent
    return server.url, server.token


def test_the_runtime_file_is_private_and_points_at_the_endpoint(agent_console, data_dir):
    runtime = read_runtime(data_dir)
    server = agent_console.session.agent
    assert runtime is not None
    assert runtime.url == server.url and runtime.token == server.token
    assert runtime.pid == os.getpid()
    mode = stat.S_IMODE((data_dir / "agent.json").stat().st_mode)
    assert mode == 0o600
    agent_console.session.close()
    assert not (data_dir / "agent.json").exists()


def test_tools_are_listed_sorted_with_annotations_mapped(agent):
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            return (await c.list_tools()).tools, c.server_capabilities

    tools, caps = run_client(agent.qtbot, go)
    assert [t.name for t in tools] == sorted([*TEST_TOOLS, *META_TOOLS, "understudy_revoke_tool"])
    tools = [t for t in tools if not t.name.startswith("understudy_")]
    lookup = tools[3]
    assert lookup.title == "Look up an order"
    assert lookup.input_schema["required"] == ["order"]
    assert lookup.annotations.read_only_hint is True
    assert lookup.annotations.open_world_hint is True  # untrustedContentHint
    assert lookup.annotations.destructive_hint is False
    assert tools[0].annotations.destructive_hint is True  # consequentialHint
    assert lookup.meta["understudy/webmcp-annotations"]["untrustedContentHint"] is True
    assert tools[2].input_schema == {"type": "object"}
    assert caps.tools.list_changed is True


def test_a_call_runs_in_the_page_and_returns_compact_json(agent):
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            return await c.call_tool("lookup_order", {"order": "INV-20931", "detail": "full"})

    result = run_client(agent.qtbot, go)
    assert result.is_error is False
    assert result.structured_content == {"order": "INV-20931", "status": "paid", "detail": "full"}
    assert result.content[0].text == '{"order":"INV-20931","status":"paid","detail":"full"}'


@pytest.mark.js_errors_expected  # 'explode' throws in the page on purpose
def test_failures_are_results_with_stable_codes_and_never_echo_values(agent):
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            return {
                "invalid": await c.call_tool("lookup_order", {"order": "DROP TABLE secret-value"}),
                "extra": await c.call_tool("lookup_order", {"order": "INV-1", "sneaky": "x-value"}),
                "unknown": await c.call_tool("no_such_tool", {}),
                "tool_error": await c.call_tool("explode", {}),
            }

    out = run_client(agent.qtbot, go)
    for name, result in out.items():
        assert result.is_error is True, name
    codes = {name: r.structured_content["code"] for name, r in out.items()}
    assert codes == {
        "invalid": "invalid_input",
        "extra": "invalid_input",
        "unknown": "not_found",
        "tool_error": "tool_error",
    }
    text = " ".join(r.content[0].text for r in out.values())
    assert "secret-value" not in text and "x-value" not in text and "secret-detail" not in text
    assert "order: fails 'pattern'" in out["invalid"].content[0].text
    assert "sneaky" in out["extra"].content[0].text  # the unexpected field is named
    assert out["tool_error"].meta["understudy/error"]["code"] == "tool_error"


def test_results_over_budget_are_cut_with_a_notice(agent):
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            return await c.call_tool("chatty", {})

    result = run_client(agent.qtbot, go)
    text = result.content[0].text
    assert len(text) <= 1500
    assert "[cut: the result was 5,011 characters; the limit is 1,500]" in text  # {"text":"…"}
    assert result.structured_content is None  # the cut JSON is no longer an object


def test_a_slow_call_times_out_and_its_signal_is_aborted(agent):
    agent.session.agent.call_timeout_s = 0.5
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            return await c.call_tool("slow", {})

    result = run_client(agent.qtbot, go)
    assert result.is_error and result.structured_content["code"] == "timeout"
    agent.qtbot.waitUntil(lambda: agent.js("window.__signals.slow.aborted") is True)


def test_mcp_cancellation_aborts_the_page_call(agent):
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            with anyio.move_on_after(0.7):
                await c.call_tool("slow", {})
            await anyio.sleep(0.5)  # let the cancellation reach the page
            return True

    run_client(agent.qtbot, go)
    agent.qtbot.waitUntil(lambda: agent.js("window.__signals.slow.aborted") is True)
    # The shim treats the shell's calls as an agent's: cancelling one fires toolcancel.
    assert agent.value("window.__cancels") == ["slow"]


def test_a_new_page_tool_reaches_clients_as_list_changed_legacy(agent):
    url, token = endpoint(agent)
    seen: list[str] = []

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            seen.append(message.method)

    async def go():
        async with mcp_client(url, token, message_handler=on_message) as c:
            await c.list_tools()
            with anyio.fail_after(10):
                while not seen:
                    await anyio.sleep(0.05)
            return [t.name for t in (await c.list_tools()).tools]

    register = (
        "document.modelContext.registerTool({name: 'late_tool', description: 'Added later.',"
        " execute: () => 1}); true"
    )
    # Approved ahead of time (as a person would), so it is listed the moment it appears.
    agent.session.consent.approvals.record(
        "late_tool",
        definition_hash(
            {"name": "late_tool", "title": "", "description": "Added later.", "annotations": {}}
        ),
    )
    QTimer.singleShot(800, lambda: agent.js(register))
    names = run_client(agent.qtbot, go)
    assert seen == ["notifications/tools/list_changed"]
    assert "late_tool" in names


def test_a_new_page_tool_reaches_clients_over_subscriptions_listen(agent):
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token, mode="auto") as c:
            assert c.protocol_version == "2026-07-28"
            async with c.listen(tools_list_changed=True) as subscription:
                with anyio.fail_after(10):
                    async for _event in subscription:
                        break
            return [t.name for t in (await c.list_tools()).tools]

    register = (
        "document.modelContext.registerTool({name: 'later_tool', description: 'Added later.',"
        " execute: () => 1}); true"
    )
    agent.session.consent.approvals.record(
        "later_tool",
        definition_hash(
            {"name": "later_tool", "title": "", "description": "Added later.", "annotations": {}}
        ),
    )
    QTimer.singleShot(800, lambda: agent.js(register))
    assert "later_tool" in run_client(agent.qtbot, go)


def test_a_reload_empties_the_list_and_the_page_tools_return(agent):
    url, token = endpoint(agent)
    agent.page.triggerAction(agent.page.WebAction.Reload)
    agent.qtbot.waitUntil(lambda: agent.window.bridge.ready)

    async def go():
        async with mcp_client(url, token) as c:
            return [t.name for t in (await c.list_tools()).tools]

    # The test tools were the old document's; the console registers its meta-tools again.
    agent.qtbot.waitUntil(lambda: len(agent.window.bridge.tools) == len(META_TOOLS))
    assert run_client(agent.qtbot, go) == sorted([*META_TOOLS, "understudy_revoke_tool"])


# --- security ---------------------------------------------------------------------------


def raw_status(url: str, headers: dict[str, str]) -> int:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }
    base = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with httpx2.Client() as http:
        return http.post(url, json=body, headers={**base, **headers}).status_code


def test_missing_or_wrong_token_foreign_origin_and_host_are_refused(agent_console):
    url, token = endpoint(agent_console)
    good = {"Authorization": f"Bearer {token}"}
    statuses = {
        "no token": raw_status(url, {}),
        "wrong token": raw_status(url, {"Authorization": "Bearer not-the-token"}),
        "foreign origin": raw_status(url, {**good, "Origin": "http://evil.example"}),
        "foreign host": raw_status(url, {**good, "Host": "evil.example"}),
        "good": raw_status(url, good),
    }
    assert statuses == {
        "no token": 401,
        "wrong token": 401,
        "foreign origin": 403,
        "foreign host": 421,
        "good": 200,
    }


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com", "::"])
def test_the_endpoint_refuses_to_bind_beyond_loopback(host):
    # The host is checked before anything else is touched, so no tool port is needed.
    with pytest.raises(ValueError, match="loopback"):
        AgentServer(port=None, host=host)


def test_the_page_main_world_cannot_reach_qt_or_the_bridge(agent_console):
    checks = agent_console.value(
        "({qt: typeof qt, transport: typeof window.qt, bridge: typeof window.understudyBridge,"
        " channel: typeof QWebChannel,"
        " hook: typeof window[Symbol.for('understudy.webmcp.agent')]})"
    )
    assert checks == {
        "qt": "undefined",
        "transport": "undefined",
        "bridge": "undefined",
        "channel": "undefined",
        "hook": "undefined",
    }


def test_the_status_bar_names_the_agent_and_its_last_tool(agent):
    url, token = endpoint(agent)
    status = agent.window._agent_status
    assert status.text() == "No agent connected"

    async def go():
        async with mcp_client(url, token) as c:
            await c.call_tool("lookup_order", {"order": "INV-1"})

    run_client(agent.qtbot, go)
    agent.qtbot.waitUntil(lambda: "last tool: lookup_order" in status.text())
    assert status.text().startswith("mcp connected")  # the SDK client's default name


def test_connect_an_agent_shows_configs_with_a_copy_button(agent_console, data_dir, qtbot):
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QPushButton

    from understudy_desktop.shell.connect_dialog import ConnectAgentDialog, client_snippets

    server = agent_console.session.agent
    snippets = client_snippets(data_dir, server.url, server.token)
    assert list(snippets) == ["Claude Desktop", "Claude Code", "Codex", "Other (HTTP)"]
    desktop = json.loads(snippets["Claude Desktop"])["mcpServers"]["understudy"]
    assert desktop["command"].endswith("understudy-mcp") or desktop["args"][:2] == [
        "-m",
        "understudy_desktop.agent.stdio_proxy",
    ]
    assert desktop["args"][-2:] == ["--data-dir", str(data_dir)]
    assert server.token in snippets["Other (HTTP)"]
    dialog = ConnectAgentDialog(snippets)
    qtbot.addWidget(dialog)
    copy = dialog.tabs.widget(0).findChild(QPushButton)
    copy.click()
    assert QGuiApplication.clipboard().text() == snippets["Claude Desktop"]
    assert copy.text() == "Copied"
