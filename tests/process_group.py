"""Helpers for tests that start servers of their own (Syncthing, Request Tracker): free
loopback ports, and a process group stopped politely, then by force, and waited for."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time

POLL_S = 0.1


def free_ports(count: int) -> list[int]:
    """Distinct loopback ports that were free a moment ago.

    All sockets stay open until every port is chosen, so the kernel cannot hand out the same
    port twice; another process could still take one before the server binds it, which is
    rare enough for tests and shows up as a clear error in the server's log.
    """
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def signal_group(group: int, signum: signal.Signals) -> None:
    # The group may be gone already, for example after the server crashed.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signum)


def group_gone(process: subprocess.Popen[bytes], deadline: float) -> bool:
    """Wait until ``process``'s group is empty; False if some are left at ``deadline``."""
    while True:
        # Reaping our own child matters: unreaped, it stays in the group as a zombie.
        process.poll()
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            # The group id was reused by someone else's processes: ours are gone.
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)


def stop_group(process: subprocess.Popen[bytes], grace_s: float) -> None:
    """SIGTERM to the whole group, SIGKILL to what is left after `grace_s`, then reap."""
    signal_group(process.pid, signal.SIGTERM)
    if not group_gone(process, time.monotonic() + grace_s):
        signal_group(process.pid, signal.SIGKILL)
        # Only a zombie could outlive SIGKILL, and a zombie runs nothing; the short wait lets
        # the kernel finish the job before the caller goes on.
        group_gone(process, time.monotonic() + 2)
    process.wait()
