"""Guards against a broken Qt binding before anything else is blamed for a crash."""

from __future__ import annotations

import sys

from PySide6.QtCore import QCoreApplication, QTimer


def test_void_calls_keep_none_alive(qapp):
    # PySide6 6.12.0 on Python 3.11 decremented None's reference count on every call of a
    # void method; a long session then aborts with "deallocating None". We pin a release
    # without the bug, and this test fails if a bump brings it back.
    timer = QTimer()
    before = sys.getrefcount(None)
    for _ in range(5_000):
        timer.setInterval(5)
        QCoreApplication.sendPostedEvents()
    assert sys.getrefcount(None) - before > -100
