"""The person's commands, undo and redo, taken in the order the person gave them.

A command is committed on the writer thread and noted in the history when its answer comes
back to the Qt thread. A Ctrl+Z pressed straight after a change (the page sends both at once)
would otherwise look at the history before that change is in it, and say "Nothing to undo" or
undo the change before. So an undo or redo waits until everything the person gave before it
has settled, and whatever the person gives while one waits waits behind it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable


class PersonLane:
    def __init__(self) -> None:
        self._unsettled = 0  # given and submitted, not answered yet
        self._waiting: deque[tuple[Callable[[], None], bool]] = deque()

    def give(self, start: Callable[[], None], after_all: bool = False) -> None:
        """Start `start` now, or once it is its turn: at once for a command (unless something
        waits before it), after every earlier one has settled when `after_all` (undo, redo)."""
        if self._waiting or (after_all and self._unsettled):
            self._waiting.append((start, after_all))
            return
        start()

    def began(self) -> Callable[[], None]:
        """Something was submitted; call what this returns once its answer has been taken."""
        self._unsettled += 1
        settled = False

        def settle() -> None:
            nonlocal settled
            if settled:
                return
            settled = True
            self._unsettled -= 1
            self._next()

        return settle

    def _next(self) -> None:
        while self._waiting:
            start, after_all = self._waiting[0]
            if after_all and self._unsettled:
                return
            self._waiting.popleft()
            start()
