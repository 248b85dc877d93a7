"""A label for words that may hold text from outside (a ticket's subject, a person's name in a
helpdesk, a pack's author): shown as plain text, never as rich text Qt would render (a
`<b>` or an `<img>` in a customer's subject). The outside pieces come already made safe to
read (text.isolated, or text.visible_controls for a whole text from outside)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def plain_label(text: str = "", *, bold: bool = False, selectable: bool = False) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if bold:
        font = label.font()
        font.setBold(True)
        label.setFont(font)
    return label
