"""The window's status bar, whose messages never run into the labels on its right: a message
longer than the room left of them ends in "…", and the whole of it is the bar's tooltip (and
what a screen reader reads)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

GAP = 24  # pixels kept between a message and the labels on its right


class FittingStatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.full_message = ""

    def room(self) -> int:
        """Pixels a message may take: the bar's width less the labels on its right."""
        layout = self.layout()
        spacing = layout.spacing() if layout is not None else 0
        taken = 0
        for label in self.findChildren(QLabel):
            if label.isVisible():
                taken += label.width() + spacing
        return max(80, self.width() - taken - GAP)

    def showMessage(self, text: str, timeout: int | None = 0) -> None:  # noqa: N802 (Qt name)
        self.full_message = text
        metrics = self.fontMetrics()
        shown = text
        if metrics.horizontalAdvance(text) > self.room():
            shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, self.room())
        self.setToolTip(text if shown != text else "")
        self.setAccessibleDescription(text)
        super().showMessage(shown, timeout or 0)
