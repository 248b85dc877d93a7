"""Many short pytest runs without paying for the same imports each time: the mutation gate's
worker (tools/mutants.py).

A run of the gate is a few seconds of pytest per mutant, two thirds of it importing Qt, the
MCP SDK, pydantic and the rest before a test begins. This process imports those once, then
forks a child for each run it is asked for: the child imports the project afresh from the
files on disk (the mutant already written into them; nothing of the project is imported
here), runs pytest, and exits. No QApplication and no thread is made before the fork, so
each child starts as a fresh process would, but for the modules already in memory.

Protocol, one JSON line each way: in, a list of pytest arguments; out, {"code": exit code,
"output": what pytest printed}. A run that outlives its time is killed and reported with
code -9. End of input ends the worker.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import time

RUN_LIMIT_S = 600.0
# Imported once: what every test file brings in before its first line runs (none of the
# project's own modules, which the mutant changes).
WARM = (
    "PySide6.QtCore",
    "PySide6.QtGui",
    "PySide6.QtWidgets",
    "PySide6.QtWebChannel",
    "PySide6.QtWebEngineCore",
    "PySide6.QtWebEngineWidgets",
    "pydantic",
    "jsonschema",
    "cryptography.hazmat.primitives.asymmetric.ed25519",
    "rfc8785",
    "icu",
    "mcp",
    "pytest",
    "pytestqt.plugin",
    "hypothesis",
)


def warm() -> None:
    import importlib

    for name in WARM:
        try:
            importlib.import_module(name)
        except ImportError:
            continue  # not installed here: the child imports what it needs


def run(args: list[str]) -> dict[str, object]:
    with tempfile.TemporaryFile(mode="w+b") as out:
        pid = os.fork()
        if pid == 0:  # the child: pytest as if started afresh, its output to the file
            code = 70
            try:
                os.dup2(out.fileno(), 1)
                os.dup2(out.fileno(), 2)
                import pytest

                code = int(pytest.main(args))
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        deadline = time.monotonic() + RUN_LIMIT_S
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                code = -9
                break
            time.sleep(0.02)
        out.seek(0)
        return {"code": code, "output": out.read().decode("utf-8", "replace")}


def main() -> int:
    warm()
    for line in sys.stdin:
        if not line.strip():
            continue
        answer = run([str(a) for a in json.loads(line)])
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
