"""The native approval dialog: the one place where a consent is granted.

Its text is composed by the app from the action and its arguments. Escape rejects. It is not
modal, so the person can look at the console before deciding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIcon, QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSystemTrayIcon,
    QVBoxLayout,
    QWidget,
)

from understudy_desktop.consent.ledger import ConsentLedger, DialogApproval


@dataclass(frozen=True)
class DialogText:
    """Everything the dialog says, composed by the app from the action's arguments."""

    headline: str
    details: str
    requester: str  # who asks: an agent's own name, or "you, in the console"
    sections: tuple[tuple[str, str], ...] = field(default=())  # (heading, plain text)
    approve: str = "Approve"  # the buttons' words, where plainer ones say it better
    reject: str = "Reject"
    # Enter keeps and the other button asks first: only for keeping what the person just did
    # (a recording), never for a grant of power, where Enter alone never approves.
    keep_by_default: bool = False
    # Enter approves: only for the person's own action they just chose, which Undo puts back
    # (a run on the tickets they selected), never for a grant of power.
    approve_by_default: bool = False

    @property
    def from_person(self) -> bool:
        return self.requester.startswith("you")


class ConsentDialog(QDialog):
    decided = Signal(bool)  # True: approved (and granted); False: rejected

    def __init__(
        self,
        ledger: ConsentLedger,
        key: str,
        text: DialogText,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        headline, details, requester = text.headline, text.details, text.requester
        self._ledger = ledger
        self._key = key
        self._done = False
        self.setWindowTitle("Understudy needs your approval")
        outer = QVBoxLayout(self)
        # Everything the dialog says scrolls, the buttons stay: on a small screen (1024x640,
        # 150% scaling) no step and no warning is cut off unseen.
        page = QWidget()
        layout = QVBoxLayout(page)
        self.scroller = QScrollArea()
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.scroller.setWidget(page)
        outer.addWidget(self.scroller, 1)
        self.headline = QLabel(headline)
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(Qt.TextFormat.PlainText)  # arguments are shown, never rendered
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.headline.setFont(font)
        layout.addWidget(self.headline)
        self.details = QLabel(details)
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.details)
        self.sections: list[QLabel] = []
        for heading, body in text.sections:
            title = QLabel(heading)
            title.setTextFormat(Qt.TextFormat.PlainText)
            bold = title.font()
            bold.setBold(True)
            title.setFont(bold)
            content = QLabel(body)
            content.setWordWrap(True)
            content.setTextFormat(Qt.TextFormat.PlainText)
            content.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(title)
            layout.addWidget(content)
            self.sections.extend([title, content])
        who = QLabel(
            f"Asked by: {requester}"
            if requester
            else "Asked by: an agent that did not say its name"
        )
        who.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(who)
        if text.keep_by_default:
            said = f"Nothing is kept until you choose {text.approve}."
        elif text.from_person:
            said = "Nothing happens until you approve."
        else:
            said = "Only you can approve this. The agent waits for your answer."
        note = QLabel(said)
        note.setWordWrap(True)
        layout.addWidget(note)
        outer.addWidget(self._buttons(text))
        self._fit(page)

    def _buttons(self, text: DialogText) -> QDialogButtonBox:
        buttons = QDialogButtonBox()
        self.approve_button = QPushButton(text.approve)
        self.reject_button = QPushButton(text.reject)
        self.approve_button.setAccessibleName(text.approve)
        self.reject_button.setAccessibleName(text.reject)
        buttons.addButton(self.reject_button, QDialogButtonBox.ButtonRole.RejectRole)
        buttons.addButton(self.approve_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.reject_button.setDefault(True)  # Enter alone never approves
        if text.keep_by_default:
            # Keeping is what was just done (a recording): Enter keeps, throwing away asks.
            self.reject_button.setDefault(False)
            self.reject_button.setAutoDefault(False)  # focused or not, Enter keeps
            self.approve_button.setDefault(True)
        if text.approve_by_default:
            self.reject_button.setDefault(False)
            self.reject_button.setAutoDefault(False)
            self.approve_button.setDefault(True)
        self._confirm_reject = text.keep_by_default
        self.approve_button.clicked.connect(self._on_approve)
        self.reject_button.clicked.connect(self._on_reject)
        return buttons

    def _fit(self, body: QWidget) -> None:
        screen = self.screen() or QApplication.primaryScreen()
        room = screen.availableGeometry() if screen is not None else None
        width = min(620, room.width() - 40) if room is not None else 620
        self.resize(width, 10)  # the labels wrap to this width before the height is asked
        wanted = body.sizeHint().height() + 110
        height = min(wanted, int(room.height() * 0.9)) if room is not None else wanted
        self.setMinimumWidth(min(520, width))
        self.resize(width, max(260, height))

    def _on_approve(self) -> None:
        if self._done:
            return
        self._done = True
        # The one and only grant in the app: a person clicked Approve for this exact key.
        self._ledger.grant(DialogApproval(self._key))
        self.decided.emit(True)
        self.accept()

    def _on_reject(self) -> None:
        if self._done:
            return
        if self._confirm_reject and not self._rejection_confirmed():
            return
        self._done = True
        self.decided.emit(False)
        self.reject()

    def _rejection_confirmed(self) -> bool:
        answer = QMessageBox.question(
            self,
            "Throw it away?",
            f"{self.reject_button.text()} what you recorded? It cannot be brought back.",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Discard

    def withdraw(self) -> None:
        """The request behind this dialog was cancelled: close it, granting nothing."""
        self._done = True
        self.close()

    def text_shown(self) -> str:
        """Everything the dialog says, as a person reads it (for tests of the wording)."""
        labels = [self.headline, self.details, *self.sections, *self.findChildren(QLabel)]
        seen: list[str] = []
        for label in labels:
            if label.text() not in seen:
                seen.append(label.text())
        return "\n".join(seen)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt name)
        if event.key() == Qt.Key.Key_Escape:
            self._on_reject()
            return
        super().keyPressEvent(event)

    def reject(self) -> None:
        # Closing the window counts as Reject.
        if not self._done:
            self._done = True
            self.decided.emit(False)
        super().reject()

    def present(self) -> None:
        """Show it in front, even when the main window is in the background, and say so in
        the system tray where the desktop has one."""
        self.show()
        self.raise_()
        self.activateWindow()
        QApplication.alert(self)
        tray = _tray()
        if tray is not None:
            tray.showMessage("Understudy needs your approval", self.headline.text())


_tray_icon: QSystemTrayIcon | None = None


def _tray() -> QSystemTrayIcon | None:
    global _tray_icon
    if _tray_icon is None and QSystemTrayIcon.isSystemTrayAvailable():
        app = QApplication.instance()
        icon = app.windowIcon() if isinstance(app, QApplication) else QIcon()
        _tray_icon = QSystemTrayIcon(icon)
        _tray_icon.show()
    return _tray_icon
