"""An exception in a thread a test started (a background job, a server's handler) fails that
test: pyproject.toml makes pytest's warning of it an error. Checked on a test of its own, run
by pytest in a process of its own with this project's settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from waiting import HANG_S

ROOT = Path(__file__).resolve().parent.parent

A_THREAD_THAT_FAILS = """
import threading

def test_a_job_fails_in_its_thread():
    worker = threading.Thread(target=lambda: {}["missing"])
    worker.start()
    worker.join()
"""


def test_an_exception_in_a_tests_thread_fails_the_test(tmp_path):
    (tmp_path / "test_thread.py").write_text(A_THREAD_THAT_FAILS, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-c",
            str(ROOT / "pyproject.toml"),
            "--rootdir",
            str(tmp_path),
            str(tmp_path / "test_thread.py"),
        ],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        check=False,
    )
    assert done.returncode == 1, done.stdout[-2000:]
    assert "1 failed" in done.stdout
    assert "PytestUnhandledThreadExceptionWarning" in done.stdout
