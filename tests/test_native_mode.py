"""Native mode: the console page in plain Chromium 156, whose own WebMCP gives its tools to a
real DOM-driving agent stack (chrome-devtools-mcp, pinned in package.json), against the desktop
app's MCP endpoint. An agent must meet the same tools either way: same names, descriptions,
input schemas and (where MCP has a matching hint) annotations, and calling one does the same.
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import shutil
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from agent_helpers import mcp_client, run_client
from mcp import ClientSession, StdioServerParameters, stdio_client
from test_teach_e2e import approve_when_asked, teach_assign_refund, ticket
from test_webmcp_conformance import CHROMIUM_ARGS, ensure_chromium

from understudy_desktop.agent.builtins import listed_builtins
from understudy_desktop.paths import web_assets_dir

ROOT = Path(__file__).resolve().parent.parent
CDM = ROOT / "node_modules" / "chrome-devtools-mcp" / "build" / "src" / "bin"
CDM_BIN = CDM / "chrome-devtools-mcp.js"

# What the agent asks for, word for word the same in the browser and in the app.
DRAFT = {
    "name": "assign_refund",
    "description": "Assign a refund ticket to Priya and fill the refund reply.",
    "parameters": {
        "ticket_id": {"description": "The ticket to handle."},
        "assignee": {"bind": False},
        "template_id": {"bind": False},
    },
}

# WebMCP's hint (as CDP reports it) -> the MCP hint the endpoint publishes when it is true.
# The endpoint says only what is known: a false WebMCP hint becomes an absent MCP hint.
HINTS = {"readOnly": "readOnlyHint", "consequential": "destructiveHint"}
# untrustedContent has no MCP hint of the same meaning: it travels in the tool's _meta.
UNTRUSTED_META = "understudy/untrustedContentHint"

# The same mouse routine as tests/test_teach_e2e.py's teach_assign_refund, as the page sees it.
RECORD_IN_PAGE = """async () => {
  const wait = async (test) => {
    for (let i = 0; i < 200 && !test(); i += 1) await new Promise((r) => setTimeout(r, 25));
    if (!test()) throw new Error('timed out');
  };
  const $ = (s) => document.querySelector(s);
  const choose = (s, v) => {
    const e = $(s);
    e.value = v;
    e.dispatchEvent(new Event('change', {bubbles: true}));
  };
  await wait(() => document.documentElement.dataset.consoleReady === 'true');
  const welcome = document.getElementById('welcome');
  if (welcome) welcome.hidden = true;
  $('#teach-button').click();
  await wait(() => document.body.classList.contains('recording'));
  $('#row-T-1006').click();
  await wait(() => $('#assignee-select') && !$('#assignee-select').disabled);
  choose('#assignee-select', 'priya');
  choose('#template-select', 'refund_approved');
  $('#template-apply').click();
  $('#teach-button').click();
  await wait(() => !document.body.classList.contains('recording'));
  return 'recorded';
}"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def console_url() -> Iterator[str]:
    """The console's own files over plain HTTP on loopback (a secure context for WebMCP)."""
    handler = functools.partial(_QuietHandler, directory=str(web_assets_dir()))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()


class DevtoolsAgent:
    """chrome-devtools-mcp over stdio, driven by the MCP SDK's client, as an agent uses it."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session
        self.page = 1

    async def call(self, tool: str, **arguments: Any) -> Any:
        result = await self.session.call_tool(tool, {"pageId": self.page, **arguments})
        text = "\n".join(getattr(c, "text", "") for c in result.content)
        assert not result.is_error, f"{tool} failed: {text}"
        return result

    async def open(self, url: str) -> None:
        pages = await self.session.call_tool("list_pages", {})
        found = re.search(r"^(\d+): ", pages.content[0].text, re.M)
        assert found, pages.content[0].text
        self.page = int(found.group(1))
        await self.call("navigate_page", type="url", url=url)

    async def evaluate(self, function: str) -> str:
        result = await self.call("evaluate_script", function=function)
        return "\n".join(getattr(c, "text", "") for c in result.content)

    async def value(self, function: str) -> Any:
        """A function's JSON.stringify'd answer, out of the tool's Markdown reply."""
        text = await self.evaluate(function)
        fenced = text.split("```json", 1)[1].split("```", 1)[0]
        return json.loads(json.loads(fenced))

    async def webmcp_tools(self) -> list[dict[str, Any]]:
        result = await self.call("list_webmcp_tools")
        assert result.structured_content is not None
        return list(result.structured_content.get("webmcpTools", []))

    async def execute(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.call("execute_webmcp_tool", toolName=tool, input=json.dumps(arguments))
        text = result.content[0].text
        # The tool's answer is the JSON object in the text (after any heading lines).
        answer: dict[str, Any] = json.loads(text[text.index("{") : text.rindex("}") + 1])
        return answer


def devtools_params(user_data: Path) -> StdioServerParameters:
    args = [
        str(CDM_BIN),
        "--executablePath",
        ensure_chromium(),
        "--headless",
        "--userDataDir",
        str(user_data),
        "--categoryExperimentalWebmcp",
        "--experimentalStructuredContent",
        "--no-usage-statistics",
        "--no-performance-crux",
        *[f"--chromeArg={a}" for a in CHROMIUM_ARGS],
    ]
    # CI=1 also keeps the tool from reporting usage; no update check reaches the network.
    # The Node the set-up put on PATH (tools/node on a release whose own is older or absent).
    node = shutil.which("node") or "node"
    path = f"{Path(node).parent}:/usr/bin:/bin"
    return StdioServerParameters(command=node, args=args, env={"CI": "1", "PATH": path})


@asynccontextmanager
async def devtools_agent(console_url: str, user_data: Path) -> AsyncIterator[DevtoolsAgent]:
    """chrome-devtools-mcp started over stdio, its session open, the console's page loaded."""
    async with AsyncExitStack() as stack:
        read, write = await stack.enter_async_context(stdio_client(devtools_params(user_data)))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        agent = DevtoolsAgent(session)
        await agent.open(console_url)
        yield agent


async def in_the_browser(console_url: str, user_data: Path) -> dict[str, Any]:
    """Teach, publish (approved in the page, the only decider there), list and call."""
    async with devtools_agent(console_url, user_data) as agent:
        assert "recorded" in await agent.evaluate(RECORD_IN_PAGE)
        builtins = await agent.webmcp_tools()
        listed = await agent.execute("understudy_list_recordings", {})
        recording_id = listed["output"]["recordings"][0]["id"]
        draft = await agent.execute(
            "understudy_draft_tool", {"recording_id": recording_id, **DRAFT}
        )
        draft_id = draft["output"]["draft_id"]
        waiting = await agent.execute(
            "understudy_publish_tool", {"draft_id": draft_id, "poll": True}
        )
        # A person at the browser approves in the page's overlay.
        await agent.evaluate(
            "() => { document.getElementById('approve-button').click(); return 1; }"
        )
        published = await agent.execute(
            "understudy_publish_tool", {"draft_id": draft_id, "poll": True}
        )
        tools = await agent.webmcp_tools()
        ran = await agent.execute("assign_refund", {"ticket_id": "T-1011"})
        after = await agent.value(
            "() => JSON.stringify(window.understudyShell.api.dispatch("
            "'get_ticket', {ticket_id: 'T-1011'}, 'test').result)"
        )
        return {
            "builtins": builtins,
            "waiting": waiting,
            "published": published,
            "tools": tools,
            "ran": ran,
            "after": after,
        }


def in_the_app(console: Any) -> dict[str, Any]:
    teach_assign_refund(console, "T-1006")
    server = console.session.agent
    approver = approve_when_asked(console)

    async def agent() -> dict[str, Any]:
        async with mcp_client(server.url, server.token) as c:
            builtins = (await c.list_tools()).tools
            listed = json.loads(
                (await c.call_tool("understudy_list_recordings", {})).content[0].text
            )
            recording_id = listed["recordings"][0]["id"]
            drafted = await c.call_tool(
                "understudy_draft_tool", {"recording_id": recording_id, **DRAFT}
            )
            draft_id = json.loads(drafted.content[0].text)["draft_id"]
            published = await c.call_tool("understudy_publish_tool", {"draft_id": draft_id})
            tools = (await c.list_tools()).tools
            ran = await c.call_tool("assign_refund", {"ticket_id": "T-1011"})
            return {
                "builtins": builtins,
                "published": json.loads(published.content[0].text),
                "tools": tools,
                "ran": ran,
            }

    try:
        out = run_client(console.qtbot, agent, 90)
    finally:
        approver.stop()
    out["after"] = ticket(console, "T-1011")
    return out


def as_webmcp(tool: Any) -> dict[str, Any]:
    """An endpoint tool in the shape chrome-devtools-mcp lists a page's WebMCP tool."""
    return {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}


def check_hints(native: dict[str, Any], endpoint: Any) -> None:
    hints = endpoint.annotations.model_dump(by_alias=True) if endpoint.annotations else {}
    for webmcp_hint, mcp_hint in HINTS.items():
        if webmcp_hint not in native:
            continue  # a Chromium that does not know the hint (150 has no consequential)
        expected = True if native.get(webmcp_hint) is True else None
        assert hints.get(mcp_hint) == expected, (endpoint.name, webmcp_hint, native, hints)
    assert hints.get("openWorldHint") is None, (endpoint.name, hints)
    untrusted = (endpoint.meta or {}).get(UNTRUSTED_META)
    assert untrusted == (True if native.get("untrustedContent") is True else None), endpoint


@pytest.mark.slow
def test_an_agent_meets_the_same_tools_in_chromium_and_in_the_app(
    agent_console, console_url, tmp_path
):
    assert CDM_BIN.exists(), "chrome-devtools-mcp is missing: run ./run-tests (npm ci at the root)"
    browser = run_client(
        agent_console.qtbot, lambda: in_the_browser(console_url, tmp_path / "chromium"), 120
    )
    app = in_the_app(agent_console)

    # The built-in tools, before anything was taught.
    native_builtins = {t["name"]: t for t in browser["builtins"]}
    app_builtins = {t.name: t for t in app["builtins"]}
    assert sorted(native_builtins) == sorted(app_builtins)
    # Every tool the file lists, and only those (one it keeps for old agents is not listed).
    assert sorted(native_builtins) == sorted(str(t["name"]) for t in listed_builtins())
    for name, tool in app_builtins.items():
        native = native_builtins[name]
        assert as_webmcp(tool) == {k: native[k] for k in ("name", "description", "inputSchema")}
        check_hints(native["annotations"], tool)

    # The taught tool: published in both, then listed alike.
    assert browser["waiting"]["output"]["status"] == "awaiting_approval"
    assert browser["published"]["output"]["status"] == "published"
    assert app["published"]["status"] == "published"
    native_taught = {t["name"]: t for t in browser["tools"]}["assign_refund"]
    app_taught = {t.name: t for t in app["tools"]}["assign_refund"]
    assert as_webmcp(app_taught) == {
        k: native_taught[k] for k in ("name", "description", "inputSchema")
    }
    check_hints(native_taught["annotations"], app_taught)
    assert native_taught["inputSchema"]["required"] == ["ticket_id"]

    # Calling it does the same to the other ticket.
    assert browser["ran"]["status"] == "Completed", browser["ran"]
    assert app["ran"].is_error is False
    assert browser["ran"]["output"] == app["ran"].structured_content
    for after in (browser["after"], app["after"]):
        assert after["assignee"] == "priya"
        assert after["reply_draft"].startswith("Hi ")


async def queue_as_read(console_url: str, user_data: Path) -> str:
    """The console's accessibility tree as Chromium gives it to assistive technology (and to
    an agent's snapshot), after two tickets are selected for a run."""
    async with devtools_agent(console_url, user_data) as agent:
        await agent.evaluate(
            "async () => { for (let i = 0; i < 200 && !document.querySelector('.row'); i += 1)"
            " await new Promise((r) => setTimeout(r, 25));"
            " for (const id of ['T-1002', 'T-1003']) document.getElementById('row-' + id)"
            ".dispatchEvent(new MouseEvent('click', {bubbles: true, ctrlKey: true}));"
            " return 1; }"
        )
        result = await agent.call("take_snapshot")
        return "\n".join(getattr(c, "text", "") for c in result.content)


def test_the_ticket_list_is_read_as_a_table_of_tickets_not_a_box_to_choose_from(
    qtbot, console_url, tmp_path
):
    """Chromium's own accessibility tree: the queue is a grid named Tickets, each ticket a
    row named by its id and subject, selected ones said to be selected; nothing in it is a
    list box or a combo box (which a screen reader announces as a value to pick)."""
    tree = run_client(qtbot, lambda: queue_as_read(console_url, tmp_path / "chromium"), 120)
    line = next((x for x in tree.splitlines() if '"Tickets"' in x), "")
    assert re.search(r'\bgrid "Tickets"', line), tree[:2000]
    assert "multiselectable" in line
    rows = [x for x in tree.splitlines() if re.search(r'\brow "T-\d+: ', x)]
    assert len(rows) >= 10, tree[:2000]
    chosen = [x for x in rows if "selected" in x.split('"')[-1]]
    assert [re.search(r'row "(T-\d+)', x).group(1) for x in chosen] == ["T-1002", "T-1003"]
    assert not any(re.search(r"\b(listbox|combobox|option)\b", x) for x in [*rows, line])
