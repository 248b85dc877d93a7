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


def test_once_started_the_garbage_of_start_up_is_freed_and_the_rest_set_apart(
    qapp, qtbot, monkeypatch
):
    """What start-up built lives for the session: after one pass the collector's later passes
    never walk it again (a full pass over it held the Qt thread ~100 ms)."""
    from understudy_desktop import gc_on_main

    monkeypatch.setattr(gc_on_main, "_set_apart", False)
    monkeypatch.setattr(gc_on_main, "SET_APART_AFTER_MS", 10)
    init_main_thread_dispatch()
    # Earlier tests' queue reads set their tickets apart (queue_io/gc_pause.py): back in, so
    # the count below is of this pass alone.
    gc.unfreeze()
    gc.collect()  # only what this test makes is left for the pass
    seen: list[str] = []
    _Cycle(seen)  # left behind by start-up
    kept = [[] for _ in range(1_000)]
    try:
        gc_on_main.set_start_apart()
        qtbot.waitUntil(lambda: gc.get_freeze_count() > 0)
        assert seen == [threading.main_thread().name]  # freed first, not set apart for good
        assert gc.get_freeze_count() > len(kept)  # what lives on is set apart
    finally:
        gc.unfreeze()  # the rest of the test session collects as usual
