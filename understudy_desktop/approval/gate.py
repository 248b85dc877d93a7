"""ConsentGate: one decision per sensitive request, asked in the native dialog.

A request whose consent is already in the ledger (approved earlier, within 120 s) is consumed
and goes ahead. Otherwise the dialog opens, or the one already open for the same action and
arguments is joined, so twenty hammered calls make one dialog. Approve grants once; the first
caller still waiting consumes it and receives the Grant. A caller may stop waiting in two
ways: it *parks* (an agent told awaiting_approval may retry later, so the dialog stays and a
consent granted afterwards waits in the ledger for that retry), or it *withdraws* (the request
behind it was cancelled: when nobody waits or is parked any more, the dialog closes and
nothing is granted).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from understudy_desktop.approval.dialog import ConsentDialog, DialogText
from understudy_desktop.consent.ledger import ConsentLedger, Grant, consent_key
from understudy_desktop.consent.manifest import SensitiveAction


class Decision(Enum):
    GRANTED = "granted"  # consumed by this caller: go ahead, once
    DENIED = "denied"  # the person rejected it
    ALREADY_USED = "already_used"  # approved once, and another caller already used it
    WITHDRAWN = "withdrawn"  # every request behind the dialog was cancelled; it closed


Callback = Callable[[Decision, Grant | None], None]


@dataclass
class _Waiter:
    callback: Callback
    state: str = "waiting"  # waiting, parked or withdrawn


@dataclass
class _Open:
    dialog: ConsentDialog
    action: SensitiveAction
    args: dict[str, Any]
    waiters: list[_Waiter] = field(default_factory=list)


@dataclass
class Ticket:
    """A caller's hold on a request: park() or withdraw() when it stops waiting."""

    park: Callable[[], None]
    withdraw: Callable[[], None]


class ConsentGate(QObject):
    dialog_opened = Signal(object)  # the ConsentDialog, for tests and the tray

    def __init__(self, ledger: ConsentLedger, parent_window: QWidget | None = None) -> None:
        super().__init__(parent_window)
        self.ledger = ledger
        self._parent = parent_window
        self._open: dict[str, _Open] = {}

    def open_dialogs(self) -> list[ConsentDialog]:
        return [o.dialog for o in self._open.values()]

    def is_open(self, action: SensitiveAction, args: dict[str, Any]) -> bool:
        return consent_key(action.name, args) in self._open

    def request(
        self,
        action: SensitiveAction,
        args: dict[str, Any],
        text: DialogText,
        callback: Callback,
    ) -> Ticket:
        """Ask for consent; `callback` hears the decision exactly once (unless withdrawn)."""
        grant = self.ledger.consume(action.name, args)
        if grant is not None:
            callback(Decision.GRANTED, grant)
            return Ticket(lambda: None, lambda: None)
        key = consent_key(action.name, args)
        waiter = _Waiter(callback)
        current = self._open.get(key)
        if current is None:
            dialog = ConsentDialog(self.ledger, key, text, self._parent)
            current = _Open(dialog, action, dict(args))
            self._open[key] = current
            dialog.decided.connect(lambda approved, k=key: self._decided(k, approved))
            dialog.present()
            self.dialog_opened.emit(dialog)
        current.waiters.append(waiter)

        def park() -> None:
            if waiter.state == "waiting":
                waiter.state = "parked"

        def withdraw() -> None:
            waiter.state = "withdrawn"
            self._close_if_unwanted(key)

        return Ticket(park, withdraw)

    def _close_if_unwanted(self, key: str) -> None:
        current = self._open.get(key)
        if current is None or any(w.state != "withdrawn" for w in current.waiters):
            return
        del self._open[key]
        current.dialog.withdraw()
        current.dialog.deleteLater()

    def _decided(self, key: str, approved: bool) -> None:
        current = self._open.pop(key, None)
        if current is None:
            return
        current.dialog.deleteLater()
        live = [w for w in current.waiters if w.state == "waiting"]
        if not approved:
            for w in live:
                w.callback(Decision.DENIED, None)
            return
        if not live:
            # Everyone stopped waiting (the agent was told "awaiting approval" after the
            # hold): what the person approved is still done, by the first who asked.
            live = [w for w in current.waiters if w.state == "parked"][:1]
        first = True
        for w in live:
            grant = self.ledger.consume_key(current.action.name, key) if first else None
            if grant is not None:
                w.callback(Decision.GRANTED, grant)
                first = False
            else:
                w.callback(Decision.ALREADY_USED, None)
