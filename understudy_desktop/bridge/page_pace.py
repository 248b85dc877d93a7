"""How much the console page may ask of the shell, and how fast.

Whatever a script in the page sends costs the shell work on the Qt thread and, for a change,
a transaction on the database's one writer, which agents' runs share. Two token buckets,
one counting asks and one counting their bytes, hold the page to the pace in rules.json
(pageAsks): far above a person's (a held arrow key, a reply saved at each pause), far below
a loop's. An ask past the pace waits its turn, in order, so nothing a person or a careful
script sent is lost or reordered; past `waiting` asks in line, the next is refused with words
the page shows. A message past messageBytes is not even read.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from understudy_desktop.rules import PageAsks, rules

T = TypeVar("T")

TOO_FAST = (
    "The console sent more changes at once than a person makes, so this one was not made. "
    "Try it again in a moment."
)


@dataclass
class _Bucket:
    rate: float  # refilled per second
    size: float  # most it holds
    level: float
    at: float

    def fill(self, now: float) -> None:
        self.level = min(self.size, self.level + (now - self.at) * self.rate)
        self.at = now

    def short_by(self, amount: float) -> float:
        """Seconds until `amount` is there (0 when it is)."""
        return max(0.0, (amount - self.level) / self.rate)


class PagePace(Generic[T]):
    def __init__(
        self, limits: PageAsks | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limits = limits or rules().pageAsks
        self._clock = clock
        now = clock()
        self._asks = _Bucket(self.limits.perSecond, self.limits.burst, self.limits.burst, now)
        self._bytes = _Bucket(
            self.limits.bytesPerSecond, self.limits.burstBytes, self.limits.burstBytes, now
        )
        self._line: deque[tuple[T, float]] = deque()
        self.refused = 0  # asks refused since the start
        self.held = 0  # asks that had to wait their turn since the start

    @property
    def waiting(self) -> int:
        return len(self._line)

    def admit(self, item: T, size: int) -> Literal["now", "later", "refused"]:
        """May `item` (an ask of `size` bytes) go ahead now, wait in line, or not at all?"""
        cost = min(float(size), self._bytes.size)  # one message never outweighs the bucket
        if self._line:
            return self._queue(item, cost)
        if self._take(cost):
            return "now"
        return self._queue(item, cost)

    def due(self) -> list[T]:
        """What in line may go now, in the order it came."""
        out: list[T] = []
        while self._line and self._take(self._line[0][1]):
            out.append(self._line.popleft()[0])
        return out

    def next_in(self) -> float:
        """Seconds until the first in line may go."""
        if not self._line:
            return 0.0
        now = self._clock()
        self._asks.fill(now)
        self._bytes.fill(now)
        return max(self._asks.short_by(1), self._bytes.short_by(self._line[0][1]))

    def _queue(self, item: T, cost: float) -> Literal["later", "refused"]:
        if len(self._line) >= self.limits.waiting:
            self.refused += 1
            return "refused"
        self._line.append((item, cost))
        self.held += 1
        return "later"

    def _take(self, cost: float) -> bool:
        now = self._clock()
        self._asks.fill(now)
        self._bytes.fill(now)
        if self._asks.level < 1 or self._bytes.level < cost:
            return False
        self._asks.level -= 1
        self._bytes.level -= cost
        return True
