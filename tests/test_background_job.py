"""Slow file work off the GUI thread (shell/background.py): its answer reaches the GUI thread,
and a job whose owner was closed while it worked ends quietly instead of failing in its
thread (a preview the person stopped and shut, found under a busy machine)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from PySide6.QtCore import QObject
from waiting import HANG_S

from understudy_desktop.shell.background import BackgroundJob


@pytest.fixture
def thread_errors(monkeypatch) -> list[Any]:
    seen: list[Any] = []
    monkeypatch.setattr(threading, "excepthook", seen.append)
    return seen


def test_the_answer_reaches_the_gui_thread(qtbot, thread_errors):
    owner = QObject()
    job = BackgroundJob(lambda: 42, owner)
    with qtbot.waitSignal(job.succeeded) as got:
        job.start()
    assert got.args == [42]
    failing = BackgroundJob(lambda: 1 / 0, owner)
    with qtbot.waitSignal(failing.failed) as failed:
        failing.start()
    assert isinstance(failed.args[0], ZeroDivisionError)
    assert thread_errors == []


@pytest.mark.parametrize("work_fails", [False, True])
def test_a_job_whose_owner_was_closed_meanwhile_ends_quietly(qtbot, thread_errors, work_fails):
    owner = QObject()
    release = threading.Event()

    def work() -> int:
        release.wait(HANG_S)
        if work_fails:
            raise ValueError("stopped")
        return 1

    job = BackgroundJob(work, owner)
    job.start()
    thread = job._thread
    owner.deleteLater()
    qtbot.waitUntil(lambda: _deleted(owner))
    release.set()
    thread.join(HANG_S)
    assert not thread.is_alive()
    assert thread_errors == []


def _deleted(obj: QObject) -> bool:
    from shiboken6 import isValid

    return not isValid(obj)
