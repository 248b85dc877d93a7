"""How fresh a tool is: 1 / (1 + days unused / 30), where days count from its last run (or,
never run, from when it was made). Unused for 30 days or more is stale: the library suggests
retiring it."""

from __future__ import annotations

import time

STALE_DAYS = 30.0
DAY_S = 86_400.0


def days_unused(last_used: float | None, created_at: float, now: float | None = None) -> float:
    since = last_used if last_used is not None else created_at
    return max(0.0, ((time.time() if now is None else now) - since) / DAY_S)


def freshness(days: float) -> float:
    return 1.0 / (1.0 + max(0.0, days) / STALE_DAYS)


def is_stale(days: float) -> bool:
    return days >= STALE_DAYS
