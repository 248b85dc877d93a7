"""One way to make a menu action: its words, its keys, what it does, and the tip the status
bar shows while the pointer is on it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence

Keys = QKeySequence | QKeySequence.StandardKey | str | None


def menu_action(parent: QObject, text: str, keys: Keys, slot: Any, tip: str = "") -> QAction:
    action = QAction(text, parent)
    if keys is not None:
        action.setShortcut(QKeySequence(keys))
    if tip:
        action.setToolTip(tip)
        action.setStatusTip(tip)
    if slot is not None:
        action.triggered.connect(slot)
    return action
