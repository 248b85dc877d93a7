"""understudy-mcp waiting for an Understudy that is not ready yet: it says in words what it
waits for, never starts a second app beside a starting one, and says why one could not
start."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time

import pytest
from mcp import ClientSession, stdio_client
from PySide6.QtCore import QLockFile
from test_stdio_proxy import (
    proxy_params,
    start_app_process,
    stop_app_process,
    stop_whoever_runs,
)
from waiting import HANG_S, until

from understudy_desktop.agent.runtime_file import (
    StartingState,
    read_runtime,
    write_runtime,
    write_starting,
)
from understudy_desktop.agent.stdio_proxy import AppUnavailableError, find_or_start_app
from understudy_desktop.single_instance import LOCK_NAME


def held(data_dir) -> QLockFile:
    """The data folder's lock, held as a starting app holds it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    lock = QLockFile(str(data_dir / LOCK_NAME))
    assert lock.tryLock(0)
    return lock


def test_it_waits_for_a_starting_app_and_says_what_for(agent_console, tmp_path):
    folder = tmp_path / "starting"
    lock = held(folder)
    write_starting(folder, StartingState(os.getpid(), "getting its window ready"))
    said: list[str] = []
    found: list[object] = []
    waiter = threading.Thread(
        target=lambda: found.append(find_or_start_app(folder, 60, True, said.append))
    )
    try:
        waiter.start()
        agent_console.qtbot.waitUntil(lambda: len(said) == 1)
        assert said == ["Waiting for Understudy, which is getting its window ready."]
        # Each new thing it waits for is said once, however often it looks.
        write_starting(folder, StartingState(os.getpid(), "showing a message in its window"))
        agent_console.qtbot.waitUntil(lambda: len(said) == 2)
        # Time passing is the point: it looks several times more, and says nothing new.
        time.sleep(0.6)
        assert said[1] == "Waiting for Understudy, which is showing a message in its window."
        assert len(said) == 2
        assert not (folder / "logs").exists()  # no second app was started beside it
        # The app is ready: its endpoint is found.
        write_runtime(folder, read_runtime(agent_console.session.paths.root))
        waiter.join(HANG_S)
        assert found and found[0] == read_runtime(folder)
        assert said[-1] == "Understudy is ready."
    finally:
        lock.unlock()
        waiter.join(HANG_S)


def test_an_app_with_agents_off_is_said_so_at_once(tmp_path):
    lock = held(tmp_path)
    write_starting(tmp_path, StartingState(os.getpid(), "running with agents off", False))
    try:
        # Said at once: it may wait far longer than the hang deadline, so only an answer that
        # did not wait comes back in time.
        told: list[Exception] = []

        def look() -> None:
            try:
                find_or_start_app(tmp_path, 10 * HANG_S, True, lambda _w: None)
            except AppUnavailableError as exc:
                told.append(exc)

        waiter = threading.Thread(target=look, daemon=True)
        waiter.start()
        until(lambda: not waiter.is_alive(), "the look for the app has answered")
        assert told and re.search(r"agents turned off.*--no-agent", str(told[0]))
    finally:
        lock.unlock()


def test_a_starting_note_left_by_a_dead_app_is_not_believed(tmp_path):
    # A crashed app's starting.json with no lock behind it: nobody is starting.
    write_starting(tmp_path, StartingState(999_999, "getting its window ready"))
    with pytest.raises(AppUnavailableError, match="not running"):
        find_or_start_app(tmp_path, 60, False, lambda _w: None)


def _proxy(data_dir, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "understudy_desktop.agent.stdio_proxy",
            "--data-dir",
            str(data_dir),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        check=False,
        env=dict(os.environ, QT_QPA_PLATFORM="offscreen"),
    )


@pytest.mark.slow
def test_an_app_that_cannot_start_is_said_why(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    damaged = data / "understudy.sqlite3"
    damaged.write_bytes(b"SQLite format 3\0" + os.urandom(8000))
    before = damaged.read_bytes()
    done = _proxy(data)
    assert done.returncode == 1
    assert "understudy-mcp: Starting Understudy." in done.stderr
    assert "Understudy could not start:" in done.stderr and "damaged" in done.stderr
    assert "stopped while starting" not in done.stderr
    assert damaged.read_bytes() == before


@pytest.mark.slow
def test_the_first_call_after_the_person_restarts_the_app_runs(tmp_path):
    """The person quits and starts Understudy again while a client is connected (the proxy
    may start it too): the next call waits for the app and runs, with no false "stopped
    while starting"."""
    import anyio.to_thread

    data = tmp_path / "data"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    command = [sys.executable, "-m", "understudy_desktop", "--data-dir", str(data)]
    apps = [start_app_process(data)]
    # Ready: what it was doing while starting is no longer there for a proxy to read (it
    # goes just after agent.json is written, which is what starting the app waited for).
    until(lambda: not (data / "starting.json").exists(), "the app's starting notes are gone")
    errors_file = tmp_path / "proxy-stderr.txt"

    async def go():
        with errors_file.open("w") as errors:
            async with (
                stdio_client(proxy_params(data), errlog=errors) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                before = await session.call_tool("understudy_list_recordings", {})
                await anyio.to_thread.run_sync(stop_app_process, apps[0])
                # Started again by the person, and called at once, before it is ready.
                apps.append(
                    subprocess.Popen(
                        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                    )
                )
                after = await session.call_tool("understudy_list_recordings", {})
                return before, after

    try:
        before, after = anyio.run(go)
    finally:
        for child in apps:
            if child.poll() is None:
                stop_app_process(child)
        stop_whoever_runs(data)
    assert before.is_error is False
    assert after.is_error is False, after.content[0].text
    said = errors_file.read_text()
    assert "stopped while starting" not in said and "Traceback" not in said
    assert "understudy-mcp: Waiting for Understudy" in said or "Starting Understudy" in said
    log = (data / "logs" / "mcp-proxy.log").read_text()
    assert "Understudy is ready." in log
