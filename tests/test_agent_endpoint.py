"""The agent endpoint, driven by the official MCP SDK client over streamable HTTP."""

from __future__ import annotations

import json
import os
import signal
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import httpx2
import mcp_types as types
import pytest
from agent_helpers import (
    TEST_TOOLS,
    mcp_client,
    publish_definitions,
    run_client,
    step,
    stored_ticket,
)
from agent_helpers import definition as make_definition
from mcp.shared.exceptions import MCPError
from waiting import HANG_S

from understudy_desktop.agent.runtime_file import read_runtime
from understudy_desktop.agent.server import AgentServer
from understudy_desktop.qt_thread import call_on_main


@pytest.fixture
def agent(agent_console):
    """The running console with three taught tools the person approved."""
    publish_definitions(agent_console, list(TEST_TOOLS.values()))
    return agent_console


BUILTIN_TOOLS = [
    "understudy_draft_tool",
    "understudy_list_recordings",
    "understudy_publish_tool",
    "understudy_run_tool",
]


def endpoint(console):
    server = console.session.agent
    return server.url, server.token


@contextmanager
def page_frozen(console) -> Iterator[None]:
    """The page's renderer stopped outright (as a frozen page is) until the block ends: nothing
    in the page runs meanwhile, however long the test takes."""
    pid = console.page.renderProcessPid()
    assert pid > 0
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def block_the_database(console, seconds: float) -> None:
    """Keep the database's writer busy for `seconds` (a long write ahead of everything else),
    for a test where time passing while a run waits is itself the point."""
    console.session.db.submit(lambda _conn: time.sleep(seconds))


def ticket(console, ticket_id: str) -> dict:
    return console.dispatch("get_ticket", {"ticket_id": ticket_id})["result"]


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
    assert [t.name for t in tools] == sorted([*TEST_TOOLS, *BUILTIN_TOOLS])
    by_name = {t.name: t for t in tools}
    lookup = by_name["lookup_ticket"]
    assert lookup.input_schema["required"] == ["ticket_id"]
    # Computed from the catalogue: get_ticket only reads, and returns customer text. That is
    # WebMCP's untrustedContentHint, which no MCP hint means (openWorldHint is about reaching
    # outside entities): it travels in _meta, and openWorldHint keeps MCP's default.
    assert lookup.annotations.read_only_hint is True
    assert lookup.annotations.open_world_hint is None
    assert lookup.meta == {"understudy/untrustedContentHint": True}
    # A tool that changes tickets claims nothing: MCP's cautious defaults stand.
    assert by_name["close_ticket"].annotations is None
    assert by_name["close_ticket"].meta is None
    # Publishing also asks to revoke: it claims nothing, so MCP's default (it may destroy) holds.
    assert by_name["understudy_publish_tool"].annotations is None
    assert "understudy_revoke_tool" not in by_name
    # It runs any listed tool: it may change things, and it may return customer text.
    assert by_name["understudy_run_tool"].annotations is None
    assert by_name["understudy_run_tool"].meta == {"understudy/untrustedContentHint": True}
    assert all(t.annotations is None or t.annotations.open_world_hint is None for t in tools)
    assert caps.tools.list_changed is True


def test_a_call_runs_the_approved_steps_and_returns_compact_json(agent):
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            return await c.call_tool("close_ticket", {"ticket_id": "T-1003"})

    was = ticket(agent, "T-1003")["status"]
    result = run_client(agent.qtbot, go)
    assert result.is_error is False
    assert result.structured_content["changed"] == ["T-1003"]
    assert result.structured_content["result"] == {
        "ticket_id": "T-1003",
        "status": "closed",
        "previous": was,
    }
    assert json.loads(result.content[0].text) == result.structured_content
    assert ticket(agent, "T-1003")["status"] == "closed"
    assert agent.library.usage("close_ticket").runs == 1


def test_failures_are_results_with_stable_codes_and_never_echo_values(agent):
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            return {
                "invalid": await c.call_tool("close_ticket", {"ticket_id": "DROP secret-value"}),
                "extra": await c.call_tool("close_ticket", {"ticket_id": "T-1", "sneaky": "x"}),
                "step_failed": await c.call_tool("give_to_nobody", {"ticket_id": "T-1004"}),
            }

    before = ticket(agent, "T-1004")
    out = run_client(agent.qtbot, go)
    for name, result in out.items():
        assert result.is_error is True, name
    codes = {name: r.structured_content["code"] for name, r in out.items()}
    assert codes == {
        "invalid": "invalid_input",
        "extra": "invalid_input",
        "step_failed": "step_failed",
    }
    text = " ".join(r.content[0].text for r in out.values())
    assert "secret-value" not in text
    assert "ticket_id: fails 'pattern'" in out["invalid"].content[0].text
    # The unexpected key is the agent's input: the answer names the fields there are instead.
    assert "sneaky" not in out["extra"].content[0].text
    assert "(it takes: ticket_id)" in out["extra"].content[0].text
    assert out["step_failed"].meta["understudy/error"]["code"] == "step_failed"
    # All or nothing: step 1 had raised the priority; the failed run took it back.
    assert ticket(agent, "T-1004") == before
    usage = agent.library.usage("give_to_nobody")
    assert (usage.runs, usage.successes, usage.last_failure["step"]) == (1, 0, 2)


def test_results_over_budget_are_cut_to_fit(agent):
    agent.dispatch("set_reply_draft", {"ticket_id": "T-1005", "text": "x" * 5000})
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            return await c.call_tool("lookup_ticket", {"ticket_id": "T-1005"})

    result = run_client(agent.qtbot, go)
    text = result.content[0].text
    assert len(text) <= 1500
    assert json.loads(text)["result"]["reply_draft"].endswith("…")


def test_a_call_runs_while_the_page_is_frozen(agent, data_dir):
    """The page is not in a call's path: the shell applies the run and answers; the page
    draws it when it can."""
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            return await c.call_tool("close_ticket", {"ticket_id": "T-1006"})

    with page_frozen(agent):
        result = run_client(agent.qtbot, go)
        # Answered and stored while nothing in the page can run.
        assert result.is_error is False, result
        assert stored_ticket(data_dir, "T-1006")["status"] == "closed"
    agent.qtbot.waitUntil(lambda: ticket(agent, "T-1006")["status"] == "closed")


def test_a_run_that_cannot_start_in_time_times_out_and_never_runs_later(agent, data_dir):
    agent.session.agent.call_timeout_s = 0.5
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            return await c.call_tool("close_ticket", {"ticket_id": "T-1006"})

    before = stored_ticket(data_dir, "T-1006")
    # The database stays busy (a long write ahead of it) until the call has been answered:
    # told at its deadline, not when the write ended.
    with agent.database_held():
        result = run_client(agent.qtbot, go)
        assert result.is_error and result.structured_content["code"] == "timeout"
    agent.settled()  # the database is free again: the late run must not happen now
    assert stored_ticket(data_dir, "T-1006") == before


def test_an_unknown_tool_is_a_protocol_error_and_a_known_one_a_result(agent):
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            try:
                await c.call_tool("no_such_tool", {})
            except MCPError as exc:
                return exc.code, exc.message
            return None

    code, message = run_client(agent.qtbot, go)
    # MCP's tools error handling: an unknown tool is JSON-RPC -32602, not a tool result.
    assert code == -32602 and message.startswith("Unknown tool:")
    assert "no_such_tool" not in message  # the name is the caller's input


def raw_session(url: str, token: str, version: str) -> tuple[httpx2.Client, dict[str, str]]:
    """A client that speaks plain HTTP: initialised at `version`, with its session headers."""
    http = httpx2.Client(timeout=30)
    base = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {token}",
    }
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }
    answer = http.post(url, json=init, headers=base)
    assert answer.json()["result"]["protocolVersion"] == version
    headers = {**base, "Mcp-Session-Id": answer.headers["mcp-session-id"]}
    if version != "2025-03-26":  # that version's clients send no version header
        headers["Mcp-Protocol-Version"] = version
    http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    return http, headers


def listed_bytes(url: str, token: str) -> tuple[list[dict], int]:
    """tools/list as it goes over the wire: the tools and the bytes of the result's JSON."""
    http, headers = raw_session(url, token, "2025-11-25")
    answer = http.post(
        url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers
    )
    http.close()
    result = answer.json()["result"]
    return result["tools"], len(json.dumps(result, separators=(",", ":")).encode())


def test_the_tool_list_is_lean_and_says_no_more_than_is_known(agent):
    url, token = endpoint(agent)
    tools, _ = listed_bytes(url, token)
    builtins = [t for t in tools if t["name"] in BUILTIN_TOOLS]
    taught = [t for t in tools if t["name"] not in BUILTIN_TOOLS]
    builtin_bytes = len(json.dumps({"tools": builtins}, separators=(",", ":")).encode())
    # 1,709 B before the descriptions were cut down and the plain string inputs lost their
    # type (argumentRules still checks it), 1,437 B before revoking joined publishing.
    assert builtin_bytes <= 1200, builtin_bytes
    sizes = [len(json.dumps(t, separators=(",", ":")).encode()) for t in taught]
    assert len(sizes) == len(TEST_TOOLS) and sum(sizes) / len(sizes) <= 400, sizes
    for tool in tools:
        # No copies of what the fields say; only the hint MCP has no field for, when true.
        assert tool.get("_meta", {}) in ({}, {"understudy/untrustedContentHint": True}), tool
        # A hint is only ever said when it is true: false restates MCP's default or
        # claims less risk than is known.
        assert all(v is True for v in (tool.get("annotations") or {}).values()), tool
        assert tool["description"] and len(tool["description"]) <= 500


def test_the_lean_schemas_still_check_everything(agent):
    """What the listed schema leaves out (unknown keys, patterns, budgets) is still refused."""
    url, token = endpoint(agent)
    bad = [
        ("understudy_list_recordings", {"extra": 1}),
        ("understudy_draft_tool", {"recording_id": "r", "name": "Bad Name", "description": "d"}),
        ("understudy_draft_tool", {"recording_id": "r", "name": "ok", "description": "d" * 501}),
        (
            "understudy_draft_tool",
            {
                "recording_id": "r",
                "name": "ok",
                "description": "d",
                "parameters": {"x": {"bnd": 1}},
            },
        ),
        ("understudy_publish_tool", {"draft_id": "d", "pol": True}),
        ("understudy_publish_tool", {"draft_id": "d", "revoke": "close_ticket"}),
        ("understudy_publish_tool", {"poll": True}),
        ("understudy_publish_tool", {"revoke": "close_ticket", "poll": "yes"}),
        ("understudy_run_tool", {"name": "close_ticket", "args": {}}),
        ("understudy_revoke_tool", {"name": "close_ticket", "now": True}),
    ]

    async def go():
        async with mcp_client(url, token) as c:
            return [await c.call_tool(name, args) for name, args in bad]

    for (name, args), result in zip(bad, run_client(agent.qtbot, go), strict=True):
        assert result.is_error, (name, args)
        assert result.structured_content["code"] == "invalid_input", (name, result)
    assert sorted(agent.taught()) == sorted(TEST_TOOLS)  # nothing changed


def through(agent, way: str, http: httpx2.Client, url: str, headers: dict) -> None:
    """Calls on this session go through the SDK's message loop, or past it (direct_calls.py),
    which takes a session's calls once the SDK has served it once."""
    server = agent.session.agent
    if way == "sdk":
        server.direct.take = _never_taken
    else:
        listed = http.post(
            url, json={"jsonrpc": "2.0", "id": 99, "method": "tools/list"}, headers=headers
        )
        assert listed.status_code == 200


async def _never_taken(scope, body, send) -> bool:
    return False


def off_the_qt_thread(agent, work):
    """`work()` on a thread of its own while the Qt thread goes on (calls run there)."""
    box: dict = {}
    worker = threading.Thread(target=lambda: box.update(value=work()))
    worker.start()
    agent.qtbot.waitUntil(lambda: not worker.is_alive())
    return box["value"]


@pytest.mark.parametrize("way", ["sdk", "direct"])
@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25"])
def test_a_cancelled_request_gets_no_response_and_never_runs(agent, version, way):
    url, token = endpoint(agent)
    http, headers = raw_session(url, token, version)
    through(agent, way, http, url, headers)
    taken = agent.session.agent.direct.taken
    before = ticket(agent, "T-1008")
    out: dict[str, object] = {}
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "close_ticket", "arguments": {"ticket_id": "T-1008"}},
    }

    def post() -> None:
        answer = http.post(url, json=call, headers=headers)
        out["status"], out["body"] = answer.status_code, answer.text

    # A first call waits on a busy database, so the second waits its turn and can be cancelled.
    first = threading.Thread(
        target=lambda: httpx2.post(
            url,
            json={
                **call,
                "id": 6,
                "params": {**call["params"], "arguments": {"ticket_id": "T-1007"}},
            },
            headers=headers,
            timeout=HANG_S,
        )
    )
    runner = agent.session.calls.runner
    with agent.database_held():
        first.start()
        agent.qtbot.waitUntil(lambda: runner.running)  # the first is under way
        worker = threading.Thread(target=post)
        worker.start()
        agent.qtbot.waitUntil(lambda: runner.waiting == 1)  # the second waits
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
        assert httpx2.post(url, json=cancel, headers=headers).status_code == 202
        agent.qtbot.waitUntil(lambda: not worker.is_alive())
    agent.qtbot.waitUntil(lambda: not first.is_alive())
    # The POST ends with no JSON-RPC message at all: no result and no error for id 7.
    assert out["status"] == 200 and '"id":7' not in str(out["body"])
    agent.settled()
    assert ticket(agent, "T-1008") == before
    assert agent.session.agent.direct.taken - taken == (2 if way == "direct" else 0)
    http.close()


CALLS_TO_COMPARE = [
    ("lookup_ticket", {"ticket_id": "T-1005"}),  # a result, with customer text
    ("lookup_ticket", {"ticket_id": "T-9999"}),  # a tool that fails: isError and its code
    ("lookup_ticket", {"ticket_id": 5}),  # arguments that do not fit
    ("understudy_list_recordings", {}),
]


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25"])
def test_a_call_past_the_sdks_loop_is_answered_as_the_sdk_answers_it(agent, version):
    """Byte for byte, headers included, on every 2025 version (each sieves the result to
    what it has)."""
    url, token = endpoint(agent)
    server = agent.session.agent
    answers: dict[str, list] = {}

    def answered() -> list:
        out = []
        for n, (name, arguments) in enumerate(CALLS_TO_COMPARE):
            call = {"jsonrpc": "2.0", "id": f"c{n}", "method": "tools/call"}
            call["params"] = {"name": name, "arguments": arguments}
            answer = http.post(url, json=call, headers=headers)
            kept = ("content-type", "content-length", "mcp-session-id")
            out.append(
                (answer.status_code, {k: answer.headers.get(k) for k in kept}, answer.content)
            )
        return out

    for way in ("direct", "sdk"):
        http, headers = raw_session(url, token, version)
        taken = server.direct.taken
        through(agent, way, http, url, headers)
        got = off_the_qt_thread(agent, answered)
        answers[way] = [
            (status, {**h, "mcp-session-id": "(its own)"}, body) for status, h, body in got
        ]
        assert all(h["mcp-session-id"] == headers["Mcp-Session-Id"] for _, h, _ in got)
        assert server.direct.taken - taken == (len(CALLS_TO_COMPARE) if way == "direct" else 0)
        http.close()
    assert answers["direct"] == answers["sdk"]


def test_a_call_past_the_sdks_loop_keeps_its_session(agent):
    """The SDK ends a session idle for its timeout; a call the lane answers counts as the
    session's request in flight, as the SDK's own do, so a long call does not end it."""
    url, token = endpoint(agent)
    server = agent.session.agent
    http, headers = raw_session(url, token, "2025-11-25")
    through(agent, "direct", http, url, headers)
    transport = server._session_manager()._server_instances[headers["Mcp-Session-Id"]]
    shortened = threading.Event()

    def shorten() -> None:  # on the endpoint's loop, where the idle scope lives
        transport._idle_timeout = 0.5
        transport.idle_scope.deadline = anyio.current_time() + 0.5
        shortened.set()

    server._loop.call_soon_threadsafe(shorten)
    assert shortened.wait(HANG_S)
    # The call waits its turn well past the idle time (0.5 s): the time passing is the point.
    block_the_database(agent, 2.0)
    taken = server.direct.taken
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call"}
    call["params"] = {"name": "close_ticket", "arguments": {"ticket_id": "T-1002"}}
    listing = {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}
    called, listed = off_the_qt_thread(
        agent, lambda: [http.post(url, json=body, headers=headers) for body in (call, listing)]
    )
    assert server.direct.taken == taken + 1
    assert called.status_code == 200 and "result" in called.json()
    assert listed.status_code == 200, listed.text  # the session is still there
    http.close()


def test_what_the_lane_may_not_answer_goes_to_the_sdk(agent):
    """A request that is not one plain tools/call on a known tool, or with a version header
    that is not the session's, is the SDK's to answer: the lane sends nothing."""
    url, token = endpoint(agent)
    server = agent.session.agent
    http, headers = raw_session(url, token, "2025-11-25")
    through(agent, "direct", http, url, headers)
    taken = server.direct.taken
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    lookup = {"name": "lookup_ticket", "arguments": {"ticket_id": "T-1001"}}
    others = [
        ({**call, "params": {"name": "no_such_tool"}}, headers),
        ({**call, "params": {**lookup, "extra": 1}}, headers),
        ({**call, "params": lookup, "extra": 1}, headers),
        ({**call, "id": None, "params": lookup}, headers),
        ({**call, "params": lookup}, {**headers, "Mcp-Protocol-Version": "2025-06-18"}),
        ({**call, "params": lookup}, {**headers, "Origin": "http://evil.example"}),
        ({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers),
    ]
    statuses = off_the_qt_thread(
        agent, lambda: [http.post(url, json=body, headers=h).status_code for body, h in others]
    )
    assert server.direct.taken == taken, statuses
    assert statuses[5] == 403  # the SDK's own Origin check answered
    http.close()


def test_batches_are_answered_on_2025_03_26_sessions_only(agent):
    url, token = endpoint(agent)
    batch = [
        {"jsonrpc": "2.0", "id": 8, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 9, "method": "tools/list"},
    ]
    http, headers = raw_session(url, token, "2025-03-26")
    answer = http.post(url, json=batch, headers=headers)
    assert answer.status_code == 200, answer.text
    answers = answer.json()
    assert [a["id"] for a in answers] == [8, 9]  # one per request, in order
    assert "close_ticket" in [t["name"] for t in answers[1]["result"]["tools"]]
    only_notes = http.post(url, json=batch[1:2], headers=headers)
    assert only_notes.status_code == 202
    http.close()
    # Later versions removed batches: refused.
    http, headers = raw_session(url, token, "2025-06-18")
    assert http.post(url, json=batch, headers=headers).status_code == 400
    http.close()


INVALID_MEMBERS = [
    7,  # not an object
    {"jsonrpc": "2.0", "id": 10},  # no method
    {"jsonrpc": "1.0", "id": 11, "method": "ping"},  # not JSON-RPC 2.0
    {"jsonrpc": "2.0", "id": 12, "method": 5},  # a method that is not a string
    {"jsonrpc": "2.0", "id": 13, "method": "ping", "params": "Zq9echo7Zq"},  # params not structured
    # ids MCP does not allow (the SDK took these for notifications and answered nothing)
    {"jsonrpc": "2.0", "id": None, "method": "ping"},
    {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
    {"jsonrpc": "2.0", "id": {}, "method": "ping"},
    {"jsonrpc": "2.0", "id": True, "method": "ping"},
    {"jsonrpc": "2.0", "id": ["Zq9echo7Zq"], "method": "ping"},
]


def test_an_invalid_member_of_a_batch_is_an_invalid_request(agent):
    # JSON-RPC 2.0 §5.1: -32600 (Invalid Request) for an object that is no valid request; the
    # SDK says -32602 (Invalid params). Each invalid member gets its own error, id null, and
    # the members around it are answered as ever.
    url, token = endpoint(agent)
    http, headers = raw_session(url, token, "2025-03-26")
    batch = [
        {"jsonrpc": "2.0", "id": 8, "method": "ping"},
        *INVALID_MEMBERS,
        {"jsonrpc": "2.0", "id": 9, "method": "tools/list"},
    ]
    answer = http.post(url, json=batch, headers=headers)
    http.close()
    assert answer.status_code == 200, answer.text
    answers = answer.json()
    assert [a.get("id") for a in answers] == [8, *[None] * len(INVALID_MEMBERS), 9]
    assert answers[0]["result"] == {} and "tools" in answers[-1]["result"]
    for error in answers[1:-1]:
        assert error["jsonrpc"] == "2.0"
        assert error["error"]["code"] == -32600, error
    assert "Zq9echo7Zq" not in answer.text  # the error never retells what was sent


@pytest.mark.parametrize("message", INVALID_MEMBERS)
def test_an_invalid_message_is_an_invalid_request(agent, message):
    url, token = endpoint(agent)
    http, headers = raw_session(url, token, "2025-11-25")
    answer = http.post(url, json=message, headers=headers)
    # Still usable afterwards: the refusal touched nothing else.
    after = http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers=headers)
    http.close()
    assert answer.status_code == 400
    said = answer.json()
    assert said["id"] is None and said["error"]["code"] == -32600, said
    assert "Zq9echo7Zq" not in answer.text
    assert int(answer.headers["content-length"]) == len(answer.content)
    assert after.status_code == 200 and after.json()["result"] == {}


def test_mcp_cancellation_of_a_waiting_call_means_it_never_runs(agent):
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            async with anyio.create_task_group() as tg:
                tg.start_soon(c.call_tool, "close_ticket", {"ticket_id": "T-1007"})
                while not runner.running:  # the first call is under way; the database is busy
                    await anyio.sleep(0.02)
                await cancel_once_waiting(
                    runner, lambda: c.call_tool("close_ticket", {"ticket_id": "T-1008"}), free
                )
            return True

    before = ticket(agent, "T-1008")
    assert before["status"] != "closed"
    runner = agent.session.calls.runner
    with agent.database_held() as free:
        run_client(agent.qtbot, go)
    agent.qtbot.waitUntil(lambda: ticket(agent, "T-1007")["status"] == "closed")
    agent.settled()
    assert ticket(agent, "T-1008") == before
    assert agent.library.usage("close_ticket").runs == 1


async def cancel_once_waiting(runner, call, free: threading.Event) -> None:
    """Make `call`, cancel it once it waits its turn, and free the database once the run
    queue has let it go (so it cannot have run)."""
    async with anyio.create_task_group() as second:
        second.start_soon(call)
        with anyio.fail_after(HANG_S):
            while runner.waiting == 0:  # it waits its turn behind the first
                await anyio.sleep(0.02)
        second.cancel_scope.cancel()
    with anyio.fail_after(HANG_S):
        while runner.waiting:  # the cancellation reached the app
            await anyio.sleep(0.02)
    free.set()


async def stream_open(console) -> None:
    """Until the endpoint holds a request of the client's open: its notification stream (the
    test's other requests have all been answered by then)."""
    activity = console.window._agent[0]
    with anyio.fail_after(HANG_S):
        while activity.snapshot().open_requests == 0:
            await anyio.sleep(0.02)


def test_a_newly_approved_tool_reaches_clients_as_list_changed_legacy(agent):
    url, token = endpoint(agent)
    seen: list[str] = []

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            seen.append(message.method)

    late = make_definition(
        "late_tool", "Added later.", [step("get_ticket", ticket_id=("param", "ticket_id"))]
    )

    async def go():
        async with mcp_client(url, token, message_handler=on_message) as c:
            await c.list_tools()
            # Published once the client listens (its stream open), not after a guessed delay.
            await stream_open(agent)
            call_on_main(lambda: publish_definitions(agent, [late]))
            with anyio.fail_after(HANG_S):
                while not seen:
                    await anyio.sleep(0.05)
            return [t.name for t in (await c.list_tools()).tools]

    names = run_client(agent.qtbot, go)
    assert seen and set(seen) == {"notifications/tools/list_changed"}
    assert "late_tool" in names


def test_a_newly_approved_tool_reaches_clients_over_subscriptions_listen(agent):
    url, token = endpoint(agent)

    later = make_definition(
        "later_tool", "Added later.", [step("get_ticket", ticket_id=("param", "ticket_id"))]
    )

    async def go():
        async with mcp_client(url, token, mode="auto") as c:
            assert c.protocol_version == "2026-07-28"
            async with c.listen(tools_list_changed=True) as subscription:
                await stream_open(agent)
                call_on_main(lambda: publish_definitions(agent, [later]))
                with anyio.fail_after(HANG_S):
                    async for _event in subscription:
                        break
            return [t.name for t in (await c.list_tools()).tools]

    assert "later_tool" in run_client(agent.qtbot, go)


def test_a_stream_asked_to_resume_opens_anew_and_says_the_list_may_have_changed(agent):
    """Last-Event-ID on the GET stream: this endpoint sends no event ids and keeps no events,
    so it opens a new stream (not the SDK's empty 500) whose first event tells the client to
    list the tools again; later changes come on it as usual."""
    url, token = endpoint(agent)
    http, headers = raw_session(url, token, "2025-11-25")
    later = make_definition(
        "after_resume", "Added later.", [step("get_ticket", ticket_id=("param", "ticket_id"))]
    )
    events: list[str] = []
    status: list[int] = []

    def listen() -> None:
        resume = {**headers, "Accept": "text/event-stream", "Last-Event-ID": "0"}
        with http.stream("GET", url, headers=resume) as answer:
            status.append(answer.status_code)
            for line in answer.iter_lines():
                if line.startswith("data:"):
                    events.append(json.loads(line[5:])["method"])
                    if len(events) == 2:
                        return

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    agent.qtbot.waitUntil(lambda: len(events) == 1)
    publish_definitions(agent, [later])
    agent.qtbot.waitUntil(lambda: not thread.is_alive())
    http.close()
    assert status == [200]
    assert events == ["notifications/tools/list_changed"] * 2


def test_a_reload_changes_nothing_agents_see(agent):
    url, token = endpoint(agent)

    async def go():
        async with mcp_client(url, token) as c:
            return [t.name for t in (await c.list_tools()).tools]

    before = run_client(agent.qtbot, go)
    agent.page.triggerAction(agent.page.WebAction.Reload)
    agent.qtbot.waitUntil(lambda: agent.window.port.ready)
    assert run_client(agent.qtbot, go) == before == sorted([*TEST_TOOLS, *BUILTIN_TOOLS])


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
        # Authentication schemes are case-insensitive (RFC 9110 §11.1).
        "lower-case scheme": raw_status(url, {"Authorization": f"bearer {token}"}),
        "upper-case scheme": raw_status(url, {"Authorization": f"BEARER {token}"}),
        "other scheme": raw_status(url, {"Authorization": f"Basic {token}"}),
    }
    assert statuses == {
        "no token": 401,
        "wrong token": 401,
        "foreign origin": 403,
        "foreign host": 421,
        "good": 200,
        "lower-case scheme": 200,
        "upper-case scheme": 200,
        "other scheme": 401,
    }


def test_a_refused_delete_leaves_the_session_and_its_notifications(agent_console):
    url, token = endpoint(agent_console)
    server = agent_console.session.agent
    with httpx2.Client() as http:
        headers = _raw_session(http, url, token, "raw")
        session = headers["Mcp-Session-Id"]
        agent_console.qtbot.waitUntil(lambda: session in server._legacy_sessions)
        refused = http.delete(url, headers={**headers, "Origin": "http://evil.example"})
        assert refused.status_code == 403
        assert session in server._legacy_sessions  # still told when tools change
        ended = http.delete(url, headers=headers)
        assert ended.status_code in (200, 204)
        assert session not in server._legacy_sessions


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com", "::"])
def test_the_endpoint_refuses_to_bind_beyond_loopback(host):
    # The host is checked before anything else is touched, so no tool port is needed.
    with pytest.raises(ValueError, match="loopback"):
        AgentServer(calls=None, activity=None, host=host)  # type: ignore[arg-type]


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

    seen: list[str] = []

    async def go():
        async with mcp_client(url, token) as c:
            await c.call_tool("lookup_ticket", {"ticket_id": "T-1001"})
            with anyio.move_on_after(HANG_S):
                while "last used" not in status.text():
                    await anyio.sleep(0.05)
            seen.append(status.text())

    run_client(agent.qtbot, go)
    # In words (this tool has no title, so its name is spelt out), not the identifier.
    assert "last used: Lookup ticket" in seen[0]
    assert seen[0].startswith("Agent connected: mcp")  # the SDK client's default name


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
    # Each client's page says where the text goes, and how to see that it worked.
    from PySide6.QtWidgets import QLabel

    for index, name in enumerate(snippets):
        words = " ".join(label.text() for label in dialog.tabs.widget(index).findChildren(QLabel))
        assert "To check:" in words, name
    assert "--scope user" in snippets["Claude Code"]
    desktop_words = " ".join(w.text() for w in dialog.tabs.widget(0).findChildren(QLabel))
    assert "start it again" in desktop_words


def test_no_error_repeats_what_the_agent_sent(agent):
    """A recognisable marker in every place an agent can put text never comes back in an
    error: not as a value, a key, a tool name or a draft id."""
    url, token = endpoint(agent)
    marker = "Zq9echo7Zq"
    calls = [
        ("close_ticket", {"ticket_id": marker}),
        ("close_ticket", {"ticket_id": f"T-{marker}"}),
        ("close_ticket", {"ticket_id": "T-1001", marker: marker}),
        ("close_ticket", {"ticket_id": [marker]}),
        ("understudy_run_tool", {"name": marker, "arguments": {}}),
        ("understudy_run_tool", {"name": "close_ticket", "arguments": {"ticket_id": marker}}),
        ("understudy_draft_tool", {"recording_id": marker, "name": "ok", "description": "d"}),
        (
            "understudy_draft_tool",
            {
                "recording_id": "r",
                "name": "ok",
                "description": "d",
                "parameters": {marker: {"bind": "yes"}},
            },
        ),
        ("understudy_publish_tool", {"draft_id": marker}),
        ("understudy_revoke_tool", {"name": marker, "poll": True}),
        ("understudy_publish_tool", {"revoke": marker, "poll": True}),
        ("understudy_list_recordings", {marker: 1}),
    ]

    async def go():
        async with mcp_client(url, token) as c:
            return [await c.call_tool(name, args) for name, args in calls]

    answers = run_client(agent.qtbot, go)
    for (name, args), result in zip(calls, answers, strict=True):
        assert result.is_error, (name, args)
        said = json.dumps(result.model_dump(mode="json", by_alias=True))
        assert marker not in said, (name, args, said)


def _raw_session(http: httpx2.Client, url: str, token: str, name: str) -> dict[str, str]:
    """initialize + initialized over plain HTTP, no notification stream: a client that
    calls now and then."""
    base = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {token}",
    }
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-03-26",
            "capabilities": {},
            "clientInfo": {"name": name, "version": "0"},
        },
    }
    answer = http.post(url, json=init, headers=base)
    headers = {
        **base,
        "Mcp-Session-Id": answer.headers["mcp-session-id"],
        "Mcp-Protocol-Version": "2025-03-26",
    }
    http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers)
    return headers


def test_connected_follows_the_clients_session_not_its_last_call(agent, monkeypatch):
    import understudy_desktop.agent.activity as activity_module

    monkeypatch.setattr(activity_module, "RECENT_S", 1.0)
    url, token = endpoint(agent)
    status = agent.window._agent_status
    # A client that stays (its notification stream open) stays connected, however quiet.
    seen: list[str] = []

    async def stays():
        async with mcp_client(url, token) as c:
            await c.list_tools()
            # Time passing with nothing said is the point: well past RECENT_S.
            await anyio.sleep(2.5)
            seen.append(status.text())
            # From here on only the end of its session can make it go within the test.
            monkeypatch.setattr(activity_module, "RECENT_S", 300.0)

    run_client(agent.qtbot, stays)
    assert seen and seen[0].startswith("Agent connected: mcp")
    # It ended its session on leaving: not connected any more, at once.
    agent.qtbot.waitUntil(lambda: status.text() == "No agent connected")
    monkeypatch.setattr(activity_module, "RECENT_S", 1.0)
    # A client that just stops calling, and never says goodbye, is let go when its time is up
    # with nothing else happening meanwhile.
    with httpx2.Client() as http:
        _raw_session(http, url, token, "quiet-client")
    agent.qtbot.waitUntil(lambda: status.text() == "Agent connected: quiet-client")
    agent.qtbot.waitUntil(lambda: status.text() == "No agent connected")


def test_a_session_ended_and_then_heard_of_is_not_brought_back(qapp):
    from understudy_desktop.agent.activity import AgentActivity

    activity = AgentActivity()
    activity.request_opened()
    activity.forget_session("s1")
    # The stream of an ended session closing after the DELETE answered.
    activity.request_closed("s1")
    assert not activity.snapshot().connected()
    activity.request_opened()
    assert activity.snapshot().connected()  # a request held open is contact
    activity.request_closed("s2")
    assert activity.snapshot().connected()  # heard from just now
    assert activity.snapshot().connected(time.time() + 3600) is False


def test_activity_from_the_endpoint_thread_is_told_on_the_qt_thread_once(qapp, qtbot):
    """The endpoint's thread never emits a Qt signal itself (one raced a window's deletion
    and crashed the app); a burst of requests makes one repaint, not one per request."""
    from understudy_desktop.agent.activity import AgentActivity

    activity = AgentActivity()
    told_on: list[str] = []
    activity.changed.connect(lambda: told_on.append(threading.current_thread().name))

    def burst() -> None:
        for n in range(200):
            activity.request_opened()
            activity.note(client="burst", tool=f"t{n}")
            activity.request_closed("s")

    worker = threading.Thread(target=burst, name="endpoint")
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(told_on))
    qapp.processEvents()
    assert set(told_on) == {threading.main_thread().name}
    assert len(told_on) < 10, f"{len(told_on)} repaints for one burst"
    assert activity.snapshot().calls == 200


def test_a_call_costs_the_endpoint_one_post_to_the_qt_thread(agent, monkeypatch):
    """Each post from the endpoint's thread waits for the interpreter while the Qt thread
    runs Python: a call makes one (its start), and its handle is let go when it answers. The
    status bar still hears of the last call (how often it is told: the burst test below)."""
    import understudy_desktop.agent.server as server_module

    posts: list[str] = []

    def counted(fn, *args):
        if threading.current_thread() is not threading.main_thread():
            posts.append(getattr(fn, "__name__", "?"))
        call_on_main(fn, *args)

    url, token = endpoint(agent)
    calls = 30
    status = agent.window._agent_status
    said = f"last used: {agent.window._tool_words('lookup_ticket')}"
    shown: list[str] = []  # what the status bar said, each time it was told
    told = threading.Event()

    def look() -> None:
        shown.append(status.text())
        if status.text().endswith(said):
            told.set()

    agent.window._agent[0].changed.connect(look)

    async def go():
        async with mcp_client(url, token) as c:
            await c.list_tools()
            monkeypatch.setattr(server_module, "call_on_main", counted)
            for n in range(calls):
                ticket_id = f"T-10{n % 9 + 1:02d}"
                result = await c.call_tool("lookup_ticket", {"ticket_id": ticket_id})
                assert not result.is_error, result
            # Still connected, and the status bar names the last call.
            assert await anyio.to_thread.run_sync(told.wait, 10), shown

    try:
        run_client(agent.qtbot, go)
    finally:
        agent.window._agent[0].changed.disconnect(look)
    # Before: a post to start each call and another to let its handle go.
    assert len(posts) == calls, f"{len(posts)} posts for {calls} calls"


def test_people_see_a_tools_name_in_words():
    from understudy_desktop.library.model import shown_name

    assert shown_name("escalate_refund", "Escalate a  refund ") == "Escalate a refund"
    assert shown_name("escalate_refund", "") == "Escalate refund"
    assert shown_name("escalate_refund", None) == "Escalate refund"
    assert shown_name("escalate_refund", "   ") == "Escalate refund"
    assert shown_name("", "") == "A tool"


class _Freed:
    """Says which thread let it go."""

    def __init__(self, seen: list[str]) -> None:
        self._seen = seen

    def __del__(self) -> None:
        self._seen.append(threading.current_thread().name)


class _CallsReachingQtObjects:
    """A tool port whose call handles reach an object, as a real call's reach a consent
    dialog's waiters or a run's timers."""

    run_timeout_s = 30.0
    approval_hold_s = 45.0

    def __init__(self, seen: list[str]) -> None:
        from PySide6.QtCore import QObject, Signal

        class _Library(QObject):
            changed = Signal()

        self._seen = seen
        self.library = _Library()

    def listed(self) -> list[dict]:
        return [{"name": "t", "description": "d", "inputSchema": {"type": "object"}}]

    def knows(self, name: str) -> bool:
        return name == "t"

    def call(self, name, arguments, client, answer):
        from understudy_desktop.agent.calls import CallHandle

        handle = CallHandle()
        held = _Freed(self._seen)
        handle.on_cancel(lambda: held)
        answer({"ok": True})
        return handle


def test_what_a_call_reaches_is_let_go_on_the_qt_thread(qapp, qtbot):
    """A Qt object freed on the endpoint's thread corrupts the Qt thread and crashes the app
    later (it did, under load): the endpoint hands every call's handle back to be dropped."""
    import gc

    from understudy_desktop.agent.activity import AgentActivity

    seen: list[str] = []
    server = AgentServer(_CallsReachingQtObjects(seen), AgentActivity())  # type: ignore[arg-type]
    server.start(0)
    try:

        async def calls() -> None:
            async with mcp_client(server.url, server.token) as client:
                for _ in range(3):
                    await client.call_tool("t", {})

        run_client(qtbot, calls)
        qtbot.waitUntil(lambda: len(seen) == 3)
    finally:
        server.stop()
    gc.collect()
    assert seen == [threading.main_thread().name] * 3


@pytest.mark.parametrize(
    ("webmcp", "annotations", "meta"),
    [
        ({}, None, None),
        ({"untrustedContentHint": False, "readOnlyHint": False}, None, None),
        ({"untrustedContentHint": True}, None, {"understudy/untrustedContentHint": True}),
        (
            {"readOnlyHint": True, "untrustedContentHint": True},
            {"readOnlyHint": True},
            {"understudy/untrustedContentHint": True},
        ),
        ({"consequentialHint": True, "debugging": True}, {"destructiveHint": True}, None),
    ],
)
def test_webmcp_hints_become_mcp_hints_only_where_they_mean_the_same(webmcp, annotations, meta):
    # untrustedContentHint (the output holds data nobody vouches for) is not MCP's
    # openWorldHint (the tool reaches outside entities): never published as one.
    from understudy_desktop.agent.mcp_shapes import mcp_tool

    tool = mcp_tool({"name": "t", "description": "d", "annotations": webmcp})
    listed = tool.model_dump(by_alias=True, exclude_none=True, mode="json")
    assert listed.get("annotations") == annotations
    assert listed.get("_meta") == meta
