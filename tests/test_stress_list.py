"""tools/stress_tests.py keeps, in code, the test files that wait on processes, Qt timers,
networks or real servers; this keeps that list from rotting: it names files that exist, and a
new test file that waits on such things is in it or said not to be, with why."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
# What makes a test file's timing depend on something outside its own thread.
WAITS_ON = re.compile(
    r"waitUntil|waitSignal|subprocess|rt_server|needs_rt|SyncthingPair|mcp_client|run_client"
    r"|FaultProxy"
)


def stress_tests() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "stress_tests", ROOT / "tools" / "stress_tests.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("stress_tests", module)
    spec.loader.exec_module(module)
    return module


def test_every_listed_file_exists_once_with_a_reason():
    tool = stress_tests()
    listed = [*tool.TIME_SENSITIVE, *tool.NOT_TIME_SENSITIVE]
    names = [name for name, _why in listed]
    assert sorted(set(names)) == sorted(names), "a file is listed twice"
    missing = [name for name in names if not (ROOT / name).is_file()]
    assert missing == [], f"listed but not there: {missing}"
    assert all(why.strip() for _name, why in listed)


def test_every_file_that_waits_on_something_is_listed_or_exempt():
    tool = stress_tests()
    known = {name for name, _why in (*tool.TIME_SENSITIVE, *tool.NOT_TIME_SENSITIVE)}
    waiting = {
        f"tests/{path.name}"
        for path in (ROOT / "tests").glob("test_*.py")
        if WAITS_ON.search(path.read_text(encoding="utf-8"))
    }
    assert sorted(waiting - known) == [], "add them to TIME_SENSITIVE or NOT_TIME_SENSITIVE"
