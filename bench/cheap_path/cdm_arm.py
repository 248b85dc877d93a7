"""The cdm arm: chrome-devtools-mcp (pinned in the root package.json) drives the console page in
Chromium 156 as a DOM-driving agent does, through MCP over stdio with the official Python SDK.

Before every step the agent reads a default (non-verbose) `take_snapshot` and picks the uid it
needs from the text; it then acts with `click`, `fill` (text boxes and <select>s, by the option's
label) and `press_key`. If what it looks for is not in the snapshot yet (the page re-renders on
the next animation frame), it reads another snapshot, as an agent would; those reads are counted.

Counted per task, as for the MCP arms: the tool list (`tools/list`, once per task since each task
is a fresh agent session), every call's name and arguments (written) and every result's text
(read). Each task runs in a fresh isolated browser context (fresh IndexedDB: the demo queue);
opening it and dismissing the first-run welcome happen before timing, as in the DOM arm. The
checker reads tickets through `evaluate_script` after timing; that read is not counted.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arms import DEMO, ROOT, Outcome
from tasks import Task

CDM_JS = ROOT / "node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SNAPSHOT_TRIES = 5  # reads of a snapshot before the agent gives up on finding its target

# One snapshot line: `  uid=1_12 combobox "Filter by status" expandable value="Any"`.
LINE = re.compile(
    r'^(?P<indent> *)uid=(?P<uid>\S+)(?: (?P<role>[A-Za-z]+))?(?: "(?P<name>.*?)")?'
    r'(?P<attrs>(?: [\w-]+(?:="[^"]*")?)*)$'
)


def cdm_params() -> Any:
    from mcp import StdioServerParameters

    args = [
        str(CDM_JS),
        "--executablePath",
        CHROMIUM,
        "--headless",
        "--isolated",
        "--no-usage-statistics",
        "--no-performance-crux",
        *[f"--chromeArg={a}" for a in CHROMIUM_ARGS],
    ]
    # CI=1 also keeps the tool from reporting usage; no update check reaches the network.
    # The Node the set-up put on PATH (tools/node on a release whose own is older or absent).
    node = shutil.which("node") or "node"
    path = f"{Path(node).parent}:/usr/bin:/bin"
    return StdioServerParameters(command=node, args=args, env={"CI": "1", "PATH": path})


@dataclass
class Node:
    depth: int
    uid: str
    role: str
    name: str
    attrs: str
    children: list[Node] = field(default_factory=list)


def parse_snapshot(text: str) -> list[Node]:
    """Every node of a snapshot, in order, each with its children (by indentation)."""
    nodes: list[Node] = []
    stack: list[Node] = []
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        node = Node(
            len(m["indent"]) // 2, m["uid"], m["role"] or "", m["name"] or "", m["attrs"] or ""
        )
        while stack and stack[-1].depth >= node.depth:
            stack.pop()
        if stack:
            stack[-1].children.append(node)
        stack.append(node)
        nodes.append(node)
    return nodes


def option_label(control: Node, value: str) -> str | None:
    """The option an agent would pick for a value from the prompt ("refund_approved" ->
    "Refund approved", "priya" -> "Priya Raman"): case-insensitive, by label words."""
    words = value.replace("_", " ").lower().split()
    labels = [c.name for c in control.children if c.role == "option"]
    for test in (
        lambda label: label.lower() == " ".join(words),
        lambda label: label.lower().split()[: len(words)] == words,
        lambda label: all(w in label.lower().split() for w in words),
    ):
        found = [label for label in labels if label and test(label)]
        if found:
            return found[0]
    return None


def text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


class CdmAgent:
    """One agent session on one page: every call it makes is counted (unless it is set-up or
    the checker's)."""

    def __init__(self, session: Any, page: int) -> None:
        self.session = session
        self.page = page
        self.steps = self.read = self.written = self.rereads = 0

    async def call(self, tool: str, counted: bool = True, **arguments: Any) -> str:
        arguments = {"pageId": self.page, **arguments}
        result = await self.session.call_tool(tool, arguments)
        text = text_of(result)
        if counted:
            self.steps += 1
            self.written += len(json.dumps({"name": tool, "arguments": arguments}))
            self.read += len(text)
        if result.is_error:
            raise RuntimeError(f"{tool} {arguments} failed: {text}")
        return text

    async def look(self, want: Any, what: str, counted: bool = True) -> Any:
        """Read snapshots until `want(nodes, text)` finds something (at most SNAPSHOT_TRIES)."""
        for attempt in range(SNAPSHOT_TRIES):
            text = await self.call("take_snapshot", counted)
            found = want(parse_snapshot(text), text)
            if found is not None:
                return found
            if counted and attempt < SNAPSHOT_TRIES - 1:
                self.rereads += 1
        raise LookupError(f"not in the snapshot: {what}")

    async def find(self, roles: tuple[str, ...], name: str, counted: bool = True) -> Node:
        def want(nodes: list[Node], _text: str) -> Node | None:
            return next((n for n in nodes if n.role in roles and n.name == name), None)

        node: Node = await self.look(want, f"{'/'.join(roles)} {name!r}", counted)
        return node

    # --- the task's actions, as an agent does them with these tools -----------------------

    async def search(self, text: str) -> None:
        box = await self.find(("searchbox",), "Search tickets")
        await self.call("fill", uid=box.uid, value=text)
        await self.call("press_key", key="Enter")

    async def act(self, action: tuple[str, ...]) -> Any:
        kind = action[0]
        if kind == "search" or kind == "open":
            await self.search(action[1])
            if kind == "open":
                prefix = f"{action[1]}:"

                def row(nodes: list[Node], _text: str) -> Node | None:
                    return next(
                        (n for n in nodes if n.role == "row" and n.name.startswith(prefix)),
                        None,
                    )

                found: Node = await self.look(row, f"row {action[1]}")
                await self.call("click", uid=found.uid)
        elif kind == "select":
            control = await self.find(("combobox", "listbox"), action[1])
            label = option_label(control, action[2])
            if label is None:
                raise LookupError(f"no option for {action[2]!r} in {action[1]!r}")
            await self.call("fill", uid=control.uid, value=label)
        elif kind == "click":
            button = await self.find(("button",), action[1])
            await self.call("click", uid=button.uid)
        elif kind == "fill":
            box = await self.find(("textbox", "searchbox", "combobox"), action[1])
            await self.call("fill", uid=box.uid, value=action[2])
            await self.call("press_key", key="Enter")
        elif kind == "read_count":

            def count(_nodes: list[Node], text: str) -> int | None:
                m = re.search(r'"([\d,]+) of [\d,]+ match"', text) or re.search(
                    r'"([\d,]+) tickets?"', text
                )
                return int(m.group(1).replace(",", "")) if m else None

            return await self.look(count, "the match count")
        return None

    # --- set-up and the checker (not counted) ----------------------------------------------

    async def value(self, function: str) -> Any:
        text = await self.call("evaluate_script", False, function=function)
        return json.loads(text.split("```json", 1)[1].split("```", 1)[0])

    async def ready(self) -> None:
        for _ in range(400):
            if await self.value("() => document.documentElement.dataset.consoleReady === 'true'"):
                return
            await asyncio.sleep(0.025)
        raise TimeoutError("the console never became ready")

    async def tickets(self, ids: list[str]) -> dict[str, Any]:
        tickets: dict[str, Any] = await self.value(
            "() => Object.fromEntries("
            + json.dumps(ids)
            + ".map((id) => [id, window.understudyShell.api.dispatch("
            "'get_ticket', {ticket_id: id}, 'bench').result]))"
        )
        return tickets


async def open_page(session: Any, url: str, context: str) -> int:
    text = text_of(await session.call_tool("new_page", {"url": url, "isolatedContext": context}))
    found = re.search(r"^(\d+): .*\[selected\]", text, re.M)
    if not found:
        raise RuntimeError(f"new_page did not say which page it opened: {text}")
    return int(found.group(1))


async def run_task(session: Any, base_url: str, task: Task, ids: list[str]) -> Outcome:
    page = await open_page(session, f"{base_url}/index.html", f"cheap-path-{task.id}")
    agent = CdmAgent(session, page)
    await agent.ready()
    # A fresh profile shows the first-run welcome; the agent dismisses it before the task.
    welcome = await agent.find(("button",), "Got it", counted=False)
    await agent.call("click", False, uid=welcome.uid)
    answer = None
    t0 = time.perf_counter()
    # A fresh agent session reads the tool list first.
    listed = await session.list_tools()
    agent.read += len(
        json.dumps(
            [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
        )
    )
    for action in task.dom:
        answer = await agent.act(action)
    seconds = time.perf_counter() - t0
    tickets = await agent.tickets(ids)
    solved = task.solved(lambda tid: tickets[tid], answer)
    await session.call_tool("close_page", {"pageId": page})
    if agent.rereads:
        print(f"cdm {task.id}: {agent.rereads} extra snapshot read(s) before the target showed")
    return Outcome("cdm", task.id, solved, agent.steps, seconds, agent.read, agent.written)


async def run_cdm(base_url: str, tasks: list[Task]) -> list[Outcome]:
    from mcp import ClientSession, stdio_client

    ids = [t["id"] for t in json.loads(DEMO.read_text())["tickets"]]
    # cdm's own notices go to a log, shown only if the arm fails.
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        try:
            async with (
                stdio_client(cdm_params(), errlog=log) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()  # one cdm process and browser for all tasks, untimed
                return [await run_task(session, base_url, task, ids) for task in tasks]
        except BaseException:
            log.seek(0)
            sys.stderr.write(log.read()[-4000:])
            raise


def run_cdm_arm(base_url: str, tasks: list[Task]) -> list[Outcome]:
    return asyncio.run(run_cdm(base_url, tasks))
