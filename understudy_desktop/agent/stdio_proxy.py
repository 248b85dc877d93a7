"""`understudy-mcp`: a stdio MCP server for clients that launch their servers themselves
(Claude Desktop, Claude Code, Codex). It forwards to the running app's HTTP endpoint and
starts the app first if none is running on the data dir.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import logging.handlers
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import anyio
import httpx2
import mcp_types as types
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import CONNECTION_CLOSED
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from understudy_desktop import __version__
from understudy_desktop.agent.results import CLIENT_META_KEY
from understudy_desktop.agent.runtime_file import AgentRuntime, read_runtime
from understudy_desktop.agent.upstream import (
    FindApp,
    Upstream,
    UpstreamUnavailableError,
    call_through,
    list_through,
)
from understudy_desktop.paths import resolve_data_paths

log = logging.getLogger("understudy-mcp")


class AppUnavailableError(RuntimeError):
    """The app is not running and could not be started."""


def reachable(runtime: AgentRuntime) -> bool:
    """The endpoint answers and accepts our token (a stale agent.json fails here)."""
    try:
        with httpx2.Client(timeout=2.0) as http:
            answer = http.get(runtime.url, headers={"Authorization": f"Bearer {runtime.token}"})
    except httpx2.HTTPError:
        return False
    return answer.status_code != 401


def app_command(data_dir: Path) -> list[str]:
    if getattr(sys, "frozen", False):  # the installed app: its launcher sits beside us
        return [str(Path(sys.executable).with_name("understudy")), "--data-dir", str(data_dir)]
    return [sys.executable, "-m", "understudy_desktop", "--data-dir", str(data_dir)]


def start_app(data_dir: Path, timeout_s: float) -> AgentRuntime:
    """Start the app detached (it outlives this proxy) and wait for its endpoint."""
    env = dict(os.environ)
    if (
        not env.get("DISPLAY")
        and not env.get("WAYLAND_DISPLAY")
        and sys.platform.startswith("linux")
    ):
        env["QT_QPA_PLATFORM"] = "offscreen"
    logs = data_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    with (logs / "app.log").open("ab") as log_file:
        child = subprocess.Popen(
            app_command(data_dir),
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
            env=env,
            start_new_session=True,
        )
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if child.poll() is not None:
            where = logs / "app.log"
            raise AppUnavailableError(f"Understudy stopped while starting (see {where}).")
        runtime = read_runtime(data_dir)
        if runtime is not None and runtime.pid == child.pid and reachable(runtime):
            return runtime
        time.sleep(0.2)
    raise AppUnavailableError(f"Understudy did not start within {timeout_s:g} s.")


def find_or_start_app(data_dir: Path, timeout_s: float, may_start: bool) -> AgentRuntime:
    runtime = read_runtime(data_dir)
    if runtime is not None and reachable(runtime):
        return runtime
    if not may_start:
        raise AppUnavailableError("Understudy is not running.")
    return start_app(data_dir, timeout_s)


def _on_behalf_of(ctx: ServerRequestContext) -> types.RequestParamsMeta:
    """The _meta of a forwarded request: the name of the client that started this proxy, so
    the console's approval dialog and status name it rather than the proxy."""
    params = getattr(ctx.session, "client_params", None)
    name = params.client_info.name if params is not None else ""
    return cast(types.RequestParamsMeta, {CLIENT_META_KEY: name})  # an open map


def build_proxy(find_app: FindApp) -> Server:
    bus = InMemorySubscriptionBus()
    downstream: dict[str, ServerSession] = {}

    async def tools_changed() -> None:
        await bus.publish(ToolsListChanged())
        session = downstream.get("session")
        if session is not None:
            with contextlib.suppress(Exception):  # a client that went away is not our failure
                await session.send_tool_list_changed()

    async def upstream_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            await tools_changed()

    @contextlib.asynccontextmanager
    async def lifespan(_server: Server) -> AsyncIterator[dict[str, Any]]:
        async with anyio.create_task_group() as tasks:
            upstream = Upstream(tasks, find_app, upstream_message, tools_changed)
            try:
                await upstream.client()  # connect now: a client's first list is quick
            except UpstreamUnavailableError as exc:
                log.warning("Understudy is not available yet: %s", exc)
            yield {"upstream": upstream}
            await upstream.close()
            tasks.cancel_scope.cancel()

    def remember(ctx: ServerRequestContext) -> None:
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            downstream["session"] = ctx.session

    async def list_tools(
        ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        remember(ctx)
        upstream: Upstream = ctx.lifespan_context["upstream"]
        try:
            return await list_through(upstream, _on_behalf_of(ctx))
        except UpstreamUnavailableError as exc:
            raise MCPError(CONNECTION_CLOSED, f"Understudy is not available: {exc}") from None

    async def call_tool(
        ctx: ServerRequestContext, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        remember(ctx)
        upstream: Upstream = ctx.lifespan_context["upstream"]
        # Cancelling this handler cancels the upstream call, which aborts the page's signal.
        return await call_through(upstream, params.name, params.arguments, _on_behalf_of(ctx))

    return Server(
        "understudy",
        version=__version__,
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=ListenHandler(bus),
    )


async def serve(find_app: FindApp) -> None:
    server = build_proxy(find_app)
    async with stdio_server() as (read, write):
        options = server.create_initialization_options(NotificationOptions(tools_changed=True))
        await server.run(read, write, options)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="understudy-mcp",
        description="MCP server on stdio for Understudy's tools (starts Understudy if needed).",
    )
    parser.add_argument("--data-dir", metavar="DIR", help="the data dir of the Understudy to use")
    parser.add_argument(
        "--start-timeout",
        type=float,
        default=90.0,
        metavar="SECONDS",
        help="how long to wait for Understudy to start (default 90)",
    )
    parser.add_argument("--no-start", action="store_true", help="fail instead of starting it")
    args = parser.parse_args(argv)
    paths = resolve_data_paths(args.data_dir)
    quiet_logging(paths.root)
    try:
        find_or_start_app(paths.root, args.start_timeout, not args.no_start)
    except AppUnavailableError as exc:
        print(f"understudy-mcp: {exc}", file=sys.stderr)
        return 1

    def find_app() -> AgentRuntime:
        # After a restart: the app's new agent.json (started again only if allowed).
        return find_or_start_app(paths.root, args.start_timeout, not args.no_start)

    try:
        anyio.run(serve, find_app)
    except KeyboardInterrupt:
        return 0
    except BaseException as exc:  # one line for the client, the details in the log
        log.exception("understudy-mcp stopped")
        print(f"understudy-mcp stopped: {type(exc).__name__}: {exc}"[:300], file=sys.stderr)
        return 1
    return 0


def quiet_logging(data_dir: Path) -> None:
    """Details (and any traceback) go to logs/mcp-proxy.log in the data dir; the client, which
    reads our stderr, gets one-line messages only."""
    logs = data_dir / "logs"
    try:
        logs.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            logs / "mcp-proxy.log", maxBytes=1_000_000, backupCount=2, encoding="utf-8"
        )
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)


if __name__ == "__main__":
    sys.exit(main())
