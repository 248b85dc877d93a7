"""agent.json in the data dir: where the running app's MCP endpoint is, and its token.

Readable by the user alone (0600): the token is what stops another local user's program
from driving the console.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from understudy_desktop.atomic_file import write_atomically

RUNTIME_NAME = "agent.json"


@dataclass(frozen=True)
class AgentRuntime:
    url: str
    port: int
    token: str
    pid: int

    @staticmethod
    def path_in(data_dir: Path) -> Path:
        return data_dir / RUNTIME_NAME


def write_runtime(data_dir: Path, runtime: AgentRuntime) -> Path:
    """Atomically write agent.json, readable by the user alone from the first byte."""
    data_dir.mkdir(parents=True, exist_ok=True)
    target = AgentRuntime.path_in(data_dir)
    write_atomically(target, json.dumps(asdict(runtime)).encode("utf-8"), mode=0o600)
    return target


def read_runtime(data_dir: Path) -> AgentRuntime | None:
    try:
        raw = json.loads(AgentRuntime.path_in(data_dir).read_text(encoding="utf-8"))
        return AgentRuntime(
            url=str(raw["url"]), port=int(raw["port"]), token=str(raw["token"]), pid=int(raw["pid"])
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def remove_runtime(data_dir: Path, pid: int) -> None:
    """Remove agent.json if it is still ours (a newer instance may have replaced it)."""
    current = read_runtime(data_dir)
    if current is not None and current.pid == pid:
        AgentRuntime.path_in(data_dir).unlink(missing_ok=True)


# --- starting.json: what a starting app is doing, for understudy-mcp to say -------------------
STARTING_NAME = "starting.json"


@dataclass(frozen=True)
class StartingState:
    """Written by an app that holds the data folder before its endpoint is ready (or that will
    never have one): `doing` is in words, to follow "Understudy is …"."""

    pid: int
    doing: str
    endpoint: bool = True  # False: it runs without the agent endpoint (--no-agent)


def write_starting(data_dir: Path, state: StartingState) -> None:
    """Best effort: a folder that cannot be written (the reason the app cannot start) must not
    stop the app from saying so in its own window."""
    with contextlib.suppress(OSError):
        write_atomically(
            data_dir / STARTING_NAME, json.dumps(asdict(state)).encode("utf-8"), mode=0o600
        )


def read_starting(data_dir: Path) -> StartingState | None:
    try:
        raw = json.loads((data_dir / STARTING_NAME).read_text(encoding="utf-8"))
        return StartingState(
            pid=int(raw["pid"]), doing=str(raw["doing"])[:300], endpoint=bool(raw["endpoint"])
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def remove_starting(data_dir: Path, pid: int) -> None:
    current = read_starting(data_dir)
    if current is not None and current.pid == pid:
        with contextlib.suppress(OSError):
            (data_dir / STARTING_NAME).unlink()
