"""How this installation's two commands are started by someone else: the app (by
understudy-mcp, when no app runs) and understudy-mcp (by an MCP client, from the line the
Connect dialog shows). One place, because a line that works from a checkout fails in the
frozen app: there `sys.executable` is the app itself, which takes no `-m`."""

from __future__ import annotations

import sys
from pathlib import Path


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def app_command(
    data_dir: Path, executable: Path | None = None, frozen: bool | None = None
) -> list[str]:
    exe = executable or Path(sys.executable)
    if is_frozen() if frozen is None else frozen:
        # The relay runs inside the frozen app (`understudy mcp`), or is its console twin
        # on Windows (understudy-mcp.exe, beside understudy.exe).
        return [str(exe.with_name("understudy" + exe.suffix)), "--data-dir", str(data_dir)]
    return [str(exe), "-m", "understudy_desktop", "--data-dir", str(data_dir)]


def relay_command(
    data_dir: Path, executable: Path | None = None, frozen: bool | None = None
) -> list[str]:
    """The command line an MCP client runs to reach the app on `data_dir`."""
    exe = executable or Path(sys.executable)
    beside = exe.with_name("understudy-mcp" + exe.suffix)
    if beside.is_file():  # a virtualenv's script, or Windows' console relay
        base = [str(beside)]
    elif is_frozen() if frozen is None else frozen:
        base = [str(exe), "mcp"]
    else:
        base = [str(exe), "-m", "understudy_desktop.agent.stdio_proxy"]
    return [*base, "--data-dir", str(data_dir)]
