"""`understudy-mcp`: MCP on stdio for clients that launch their servers themselves (Claude
Desktop, Claude Code, Codex). It relays each message to the running app's HTTP endpoint
(agent/relay.py), and starts the app first if none is running on the data dir.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import logging.handlers
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx2

from understudy_desktop import __version__
from understudy_desktop.agent.launch import app_command
from understudy_desktop.agent.relay import MAX_BODY, FindApp, Relay, id_in, too_large
from understudy_desktop.agent.runtime_file import AgentRuntime, read_runtime, read_starting
from understudy_desktop.logs import keep_libraries_quiet
from understudy_desktop.paths import DATA_DIR_ENV, keep_private, resolve_data_paths
from understudy_desktop.redact import RedactingFormatter

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


Say = Callable[[str], None]


def say_on_stderr(words: str) -> None:
    """What the proxy waits for, in words: clients show a server's stderr in their logs."""
    log.info("%s", words)
    print(f"understudy-mcp: {words}", file=sys.stderr, flush=True)


def another_has_the_folder(data_dir: Path) -> bool:
    """An Understudy holds the data folder's lock: it is starting, running, or showing a
    message. The lock, not a file it wrote, is what says the owner is alive."""
    from PySide6.QtCore import QLockFile  # only when there is something to wait for

    from understudy_desktop.single_instance import LOCK_NAME

    lock = QLockFile(str(data_dir / LOCK_NAME))
    lock.setStaleLockTime(0)  # a dead owner's lock is stale; a slow one's is not
    if lock.tryLock(0):
        lock.unlock()
        return False
    return lock.error() == QLockFile.LockError.LockFailedError


def spawn_app(data_dir: Path) -> subprocess.Popen[bytes]:
    """Start the app detached (it outlives this proxy), its output into logs/app.log."""
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
        return subprocess.Popen(
            app_command(data_dir),
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
            env=env,
            start_new_session=True,
        )


def last_words(data_dir: Path) -> str:
    """The app's last line in logs/app.log: what it printed when it could not start."""
    try:
        text = (data_dir / "logs" / "app.log").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


class AppWait:
    """Waiting for an Understudy on one data folder to be ready for agents: one that is
    starting, one this proxy started, or one showing a message first. Each new thing it
    waits for is said once."""

    def __init__(self, data_dir: Path, timeout_s: float, may_start: bool, say: Say) -> None:
        self.data_dir = data_dir
        self.timeout_s = timeout_s
        self.deadline = time.monotonic() + timeout_s
        self.may_start = may_start
        self.say = say
        self.child: subprocess.Popen[bytes] | None = None
        self.said = ""
        self.doing = ""

    def run(self) -> AgentRuntime:
        while time.monotonic() < self.deadline:
            runtime = read_runtime(self.data_dir)
            if runtime is not None and reachable(runtime):
                if self.said:
                    self.say("Understudy is ready.")
                return runtime
            if another_has_the_folder(self.data_dir):
                self._tell_what_it_does()
            elif not self._child_running():
                self._start_or_give_up()
            time.sleep(0.2)
        waiting = f" It was {self.doing}." if self.doing else ""
        raise AppUnavailableError(
            f"Understudy was not ready for agents within {self.timeout_s:g} s.{waiting}"
        )

    def _tell_what_it_does(self) -> None:
        state = read_starting(self.data_dir)
        if state is not None and not state.endpoint:
            raise AppUnavailableError(
                "Understudy is running with agents turned off (it was started with "
                "--no-agent). Quit it and start it again without that option."
            )
        self.doing = state.doing if state is not None else "starting"
        self._say(f"Waiting for Understudy, which is {self.doing}.")

    def _child_running(self) -> bool:
        """True while the app this proxy started is still on its way up."""
        if self.child is None:
            return False
        code = self.child.poll()
        if code is None:
            return True
        self.child = None
        if code == 0:
            # It found another Understudy on the folder and handed over: wait for that one.
            return False
        why = last_words(self.data_dir)
        raise AppUnavailableError(
            f"Understudy could not start: {why}" if why else "Understudy stopped while starting."
        )

    def _start_or_give_up(self) -> None:
        if not self.may_start:
            raise AppUnavailableError("Understudy is not running.")
        self._say("Starting Understudy.")
        self.child = spawn_app(self.data_dir)
        self.may_start = False  # once: a second start that fails would only fail again

    def _say(self, words: str) -> None:
        if words != self.said:
            self.said = words
            self.say(words)


def find_or_start_app(
    data_dir: Path, timeout_s: float, may_start: bool, say: Say = say_on_stderr
) -> AgentRuntime:
    """The app's endpoint once it is ready: at once when it runs, after waiting while it
    starts (or shows a message), or started here first when allowed."""
    runtime = read_runtime(data_dir)
    if runtime is not None and reachable(runtime):
        return runtime
    return AppWait(data_dir, timeout_s, may_start, say).run()


MAX_LINE = 1 << 24  # 16 MiB: a longer line is answered with an error and skipped
CHUNK = 1 << 16
HEAD = 4096  # what is kept of a skipped line: enough to find its id


class Oversize(bytes):
    """What lines() gives for a line it skipped: the line's first HEAD bytes, where a client
    writes the id its answer must carry."""


def feed_stdin(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader) -> None:
    """Read stdin on a thread of its own and hand what arrives to `reader`. One way on every
    system: Windows' event loop cannot watch a pipe, and a thread needs nothing from it."""
    fd = sys.stdin.fileno()

    def pump() -> None:
        try:
            # os.read gives whatever has arrived (up to CHUNK) without waiting for more.
            while chunk := os.read(fd, CHUNK):
                loop.call_soon_threadsafe(reader.feed_data, chunk)
        except (OSError, ValueError) as exc:  # stdin closed under us
            log.info("stdin ended: %s", exc)
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="understudy-mcp-stdin", daemon=True).start()


async def lines(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
    """Each line of the client's, however long: one over MAX_LINE comes out as an Oversize
    holding its head, its other bytes skipped, and the lines after it come out as usual."""
    while True:
        try:
            yield await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as end:
            if end.partial.strip():
                yield end.partial
            return
        except asyncio.LimitOverrunError as over:
            head = Oversize((await reader.readexactly(over.consumed))[:HEAD])
            if not await _skip_line(reader):
                return
            yield head


async def _skip_line(reader: asyncio.StreamReader) -> bool:
    """The rest of an oversize line, dropped; False if stdin ended first."""
    while True:
        try:
            await reader.readuntil(b"\n")
            return True
        except asyncio.LimitOverrunError as over:
            await reader.readexactly(over.consumed)
        except asyncio.IncompleteReadError:
            return False


async def serve(find_app: FindApp) -> None:
    """Relay until the client closes our stdin. Each message is handled in a task of its own,
    so that a long one (a tool call waiting for a person's approval, a subscriptions/listen
    stream open for the whole session) never holds up the next; the relay orders only what
    must be ordered (everything waits for an initialize being answered)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    feed_stdin(loop, reader)
    out = sys.stdout.buffer
    writing = asyncio.Lock()

    async def write(message: dict[str, Any]) -> None:
        line = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        async with writing:
            out.write(line)
            out.flush()

    relay = Relay(find_app, write)
    await relay.connect()
    tasks: set[asyncio.Task[None]] = set()
    try:
        async for line in lines(reader):
            if isinstance(line, Oversize):
                await write(too_large(id_in(line), MAX_BODY))  # the app's limit, not ours
                continue
            if not line.strip():
                continue
            task = loop.create_task(relay.handle(line))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
    finally:
        for task in tasks:
            task.cancel()
        await relay.close()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="understudy-mcp",
        description="Connects an AI client (Claude Desktop, Claude Code, Codex, any MCP "
        "client that starts its servers itself) to Understudy over standard input and output. "
        "It passes each message to the running Understudy, and starts Understudy first when "
        "it is not running. Help › Connect an agent in Understudy shows the exact line to give "
        "a client.",
    )
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help=f"the data folder of the Understudy to connect to (default: ${DATA_DIR_ENV}, or "
        "the platform's user data folder, as for understudy)",
    )
    parser.add_argument(
        "--start-timeout",
        type=float,
        default=90.0,
        metavar="SECONDS",
        help="how long to wait for Understudy to start (default 90)",
    )
    parser.add_argument(
        "--no-start", action="store_true", help="fail instead of starting Understudy"
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    keep_private()
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
        asyncio.run(serve(find_app))
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
    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    keep_libraries_quiet()


if __name__ == "__main__":
    sys.exit(main())
