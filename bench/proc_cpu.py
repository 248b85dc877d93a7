"""CPU time of processes and threads, read from /proc (Linux).

CPU is utime + stime from a stat file (/proc/<pid>/stat for a process, all its threads, dead
ones included; /proc/<pid>/task/<tid>/stat for one thread), fields 14 and 15, in clock ticks.
Chromium-style processes say what they are in their command line (`--type=renderer`,
`--type=gpu-process`, `--type=utility`, `--type=zygote`); a process without `--type=` is the
browser. Chromium's zygote children rewrite their command line; QtWebEngine's keep the
zygote's, so a "zygote" forked by a zygote is called what it is: a renderer.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def _fields(stat_path: str) -> list[str] | None:
    try:
        text = Path(stat_path).read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its last ')'.
    return text.rsplit(")", 1)[1].split()


def cpu_seconds(stat_path: str) -> float:
    """utime + stime so far from a stat file (0 if the process or thread is gone)."""
    fields = _fields(stat_path)
    if fields is None:
        return 0.0
    # After the command name, field 3 (state) is index 0: utime is field 14, stime field 15.
    return (int(fields[11]) + int(fields[12])) * TICK_S


def stat_path(pid: int, tid: int | None = None) -> str:
    return f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"


def _parents() -> dict[int, int]:
    out: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _fields(stat_path(int(entry)))
            if fields is not None:
                out[int(entry)] = int(fields[1])
    return out


def descendants(root: int) -> list[int]:
    """The root and every process below it, from the parent links in /proc."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parents().items():
        children.setdefault(parent, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _type_flag(pid: int) -> str:
    try:
        text = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "gone"
    found = re.search(r"(?:^| )--type=(\S+)", text)
    return found.group(1) if found else "browser"


def kinds(pids: list[int]) -> dict[int, str]:
    """What each process is: browser, renderer, gpu-process, utility, zygote."""
    parents = _parents()
    flags = {pid: _type_flag(pid) for pid in pids}
    out: dict[int, str] = {}
    for pid, flag in flags.items():
        forked = flag == "zygote" and _type_flag(parents.get(pid, 0)) == "zygote"
        out[pid] = "renderer" if forked else flag
    return out


def threads(pid: int) -> dict[int, str]:
    """The process's threads and their names (comm)."""
    out: dict[int, str] = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            out[int(tid)] = Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
        except OSError:
            continue
    return out


def snapshot(paths: list[str]) -> dict[str, float]:
    return {path: cpu_seconds(path) for path in paths}


def spent(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """CPU seconds spent between two snapshots, per stat file; one that appeared in between
    counts from zero, one that vanished in between counts nothing."""
    return {
        path: max(0.0, after.get(path, before.get(path, 0.0)) - before.get(path, 0.0))
        for path in {*before, *after}
    }
