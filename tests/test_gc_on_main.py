"""Python's cycle collector never runs on the endpoint's or the writer's thread: a Qt object in
a cycle freed there crashed the app later (CI met it as a segfault in an agent test)."""

from __future__ import annotations

import gc
import threading

from understudy_desktop.qt_thread import init_main_thread_dispatch


class _Cycle:
    def __init__(self, seen: list[str]) -> None:
        self.me = self
        self.seen = seen

    def __del__(self) -> None:
        self.seen.append(threading.current_thread().name)


def test_a_cycle_made_on_the_qt_thread_is_freed_there_even_when_another_thread_allocates(
    qapp, qtbot
):
    init_main_thread_dispatch()
    assert not gc.isenabled()
    seen: list[str] = []
    _Cycle(seen)  # garbage at once, but only the collector can free it

    kept: list[list[object]] = []

    def allocate() -> None:
        kept.append([[] for _ in range(20_000)])  # far past generation 0's threshold

    worker = threading.Thread(target=allocate, name="endpoint")
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(seen))
    assert seen == [threading.main_thread().name]
    kept.clear()
