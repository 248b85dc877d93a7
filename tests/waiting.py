"""The one deadline every test waits with, and a poll for code that runs outside Qt's loop.

A test waits for the state it needs (a condition, a signal, an answer), never for a guessed
time. The deadline below only reports a hang: it is long enough for a machine with every core
busy, and UNDERSTUDY_TEST_PATIENCE multiplies it (2 on a machine slower still)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

PATIENCE = float(os.environ.get("UNDERSTUDY_TEST_PATIENCE") or 1)
HANG_S = 120.0 * PATIENCE
HANG_MS = int(HANG_S * 1000)
# How often a poll looks again: often enough to add little to a test, rarely enough not to
# compete with what it waits for.
POLL_S = 0.05


def until(check: Callable[[], T], what: str, deadline_s: float = HANG_S) -> T:
    """Poll `check` until it returns something true and return that; AssertionError naming
    `what` if it never does before the deadline (a hang, not a slow machine)."""
    deadline = time.monotonic() + deadline_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"still waiting after {deadline_s:.0f} s until {what}")
        time.sleep(POLL_S)
