"""One thread for the team library's heavy work, so the window never waits on it: working out
what thousands of files mean, reading the documents to keep, writing back what went missing
and the lead's confirmations. Jobs run in the order given; each one's result is handed to
its `then` on the Qt thread."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from understudy_desktop.qt_thread import call_on_main

log = logging.getLogger(__name__)
T = TypeVar("T")


class Background:
    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="understudy-team")
        self._closed = False

    def run(self, work: Callable[[], T], then: Callable[[T | None], None]) -> None:
        """Run `work` on the team's thread; `then` gets its result on the Qt thread (None if it
        raised: logged, since a bad file or a full disk must not end the team library)."""
        if self._closed:
            return

        def settled(future: Future[T]) -> None:
            try:
                result: T | None = future.result()
            except Exception:
                log.exception("the team library's background work failed")
                result = None
            call_on_main(then, result)

        self._pool.submit(work).add_done_callback(settled)

    def close(self) -> None:
        self._closed = True
        self._pool.shutdown(wait=False, cancel_futures=True)
