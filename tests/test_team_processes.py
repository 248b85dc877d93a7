"""The team library across real app processes: an app started on its own (a colleague's
computer) sees what another instance shares, lists none of it to agents before its person
accepts it, and, killed and started again, still watches the folder and loses nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import mcp_client, run_client
from test_team_library import GOOD, import_and_wait, member
from waiting import HANG_S, until

from understudy_desktop.agent.runtime_file import read_runtime

pytestmark = pytest.mark.slow
BUILTIN_PREFIX = "understudy_"


def start_app(data: Path, *args: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", UNDERSTUDY_TEAM_POLL_MS="300")
    return subprocess.Popen(
        [sys.executable, "-m", "understudy_desktop", "--data-dir", str(data), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )


def wait_for(check) -> None:
    until(check, str(check))


def log_says(data: Path, text: str) -> bool:
    log = data / "logs" / "understudy.log"
    return log.exists() and text in log.read_text(encoding="utf-8", errors="replace")


def listed_names(console, data: Path) -> list[str]:
    runtime = read_runtime(data)
    assert runtime is not None

    async def go():
        async with mcp_client(runtime.url, runtime.token) as client:
            return [t.name for t in (await client.list_tools()).tools]

    return run_client(console.qtbot, go)


def test_another_app_process_sees_a_share_lists_nothing_from_it_and_survives_a_kill(
    console_factory, tmp_path
):
    folder = tmp_path / "team"
    folder.mkdir()
    dana = member(console_factory, tmp_path / "dana", folder, "Dana Ortiz")
    import_and_wait(dana, GOOD)

    sam_data = tmp_path / "sam"
    sam = start_app(sam_data, "--team-folder", str(folder))
    try:
        wait_for(lambda: (r := read_runtime(sam_data)) is not None and r.pid == sam.pid)
        wait_for(lambda: log_says(sam_data, "team library status: Team library: nothing new"))
        assert dana.session.team.share(["assign_refund"], "Dana Ortiz") == 1
        wait_for(lambda: log_says(sam_data, "1 new tool from someone you do not trust yet"))
        # Seen, not callable: nothing from the folder reaches agents before Sam accepts it.
        names = listed_names(dana, sam_data)
        assert names and all(n.startswith(BUILTIN_PREFIX) for n in names)

        sam.send_signal(signal.SIGKILL)  # a crash
        sam.wait(timeout=HANG_S)
        log = sam_data / "logs" / "understudy.log"
        before = log.read_text(encoding="utf-8").count(
            "1 new tool from someone you do not trust yet"
        )
        sam = start_app(sam_data)  # no --team-folder: the folder was remembered
        wait_for(lambda: (r := read_runtime(sam_data)) is not None and r.pid == sam.pid)
        wait_for(
            lambda: (
                log.read_text(encoding="utf-8").count(
                    "1 new tool from someone you do not trust yet"
                )
                > before
            )
        )
        names = listed_names(dana, sam_data)
        assert names and all(n.startswith(BUILTIN_PREFIX) for n in names)
        assert dana.library.callable("assign_refund") is not None
    finally:
        sam.terminate()
        sam.wait(timeout=HANG_S)
