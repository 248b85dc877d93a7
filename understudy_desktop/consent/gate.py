"""ConsentGate: one decision per sensitive request, asked in the native dialog.

A request whose consent is already in the ledger (approved earlier, within 120 s) is consumed
and goes ahead. Otherwise the dialog opens, or the one already open for the same action and
arguments is joined, so twenty hammered calls make one dialog. Approve grants once; the first
caller still waiting consumes it. Callers that stopped waiting (the agent got
awaiting_approval) leave the consent in the ledger for their retry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from understudy_desktop.consent.dialog import ConsentDialog
from understudy_desktop.consent.ledger import ConsentLedger, consent_key
from understudy_desktop.consent.manifest import SensitiveAction


class Decision(Enum):
    GRANTED = "granted"  # consumed by this caller: go ahead, once
    DENIED = "denied"  # the person rejected it
    ALREADY_USED = "already_used"  # approved once, and another caller already used it


@dataclass
class _Waiter:
    callback: Callable[[Decision], None]
    live: bool = True


@dataclass
class _Open:
    dialog: ConsentDialog
    action: SensitiveAction
    args: dict[str, Any]
    waiters: list[_Waiter] = field(default_factory=list)


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
        headline: str,
        details: str,
        requester: str,
        callback: Callable[[Decision], None],
    ) -> Callable[[], None]:
        """Ask for consent. Returns `stop_waiting()`, which the caller calls when it gives up."""
        if self.ledger.consume(action.name, args):
            callback(Decision.GRANTED)
            return lambda: None
        key = consent_key(action.name, args)
        waiter = _Waiter(callback)
        current = self._open.get(key)
        if current is None:
            dialog = ConsentDialog(self.ledger, key, headline, details, requester, self._parent)
            current = _Open(dialog, action, dict(args))
            self._open[key] = current
            dialog.decided.connect(lambda approved, k=key: self._decided(k, approved))
            dialog.present()
            self.dialog_opened.emit(dialog)
        current.waiters.append(waiter)

        def stop_waiting() -> None:
            waiter.live = False

        return stop_waiting

    def _decided(self, key: str, approved: bool) -> None:
        current = self._open.pop(key, None)
        if current is None:
            return
        current.dialog.deleteLater()
        live = [w for w in current.waiters if w.live]
        if not approved:
            for w in live:
                w.callback(Decision.DENIED)
            return
        first = True
        for w in live:
            if first and self.ledger.consume_key(key):
                w.callback(Decision.GRANTED)
                first = False
            else:
                w.callback(Decision.ALREADY_USED)
