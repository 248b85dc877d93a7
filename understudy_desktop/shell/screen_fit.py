"""Windows and dialogs that open within the screen they are on.

Each asks for the size it would like; on a small screen (1024x640, or a larger one at 150%
scaling) it gets what fits, with room for the desktop's own panels, and it is placed so that
its title bar and buttons are on the screen. Qt reports screens in device-independent
pixels, so scaling is already counted in the available size.
"""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

MARGIN = 0.96  # of the available size: the window manager's frame and a little air


def available(widget: QWidget) -> QRect:
    screen = widget.screen() if widget.screen() is not None else QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def fit_size(width: int, height: int, room: QRect) -> tuple[int, int]:
    return (
        min(width, int(room.width() * MARGIN)),
        min(height, int(room.height() * MARGIN)),
    )


def fit_to_screen(widget: QWidget, width: int, height: int) -> None:
    """Resize `widget` to width x height, or less where the screen is smaller, and keep it on
    the screen."""
    room = available(widget)
    w, h = fit_size(width, height, room)
    # A minimum size bigger than the screen would push the buttons off it.
    widget.setMinimumSize(min(widget.minimumWidth(), w), min(widget.minimumHeight(), h))
    widget.resize(w, h)
    frame = widget.frameGeometry()
    if not widget.isVisible():
        # Not placed yet (its place is the top-left corner until shown): centred over the
        # window it belongs to, or on the screen.
        parent = widget.parentWidget()
        over = parent.window().frameGeometry() if parent is not None else room
        frame.moveCenter(over.center())
    x = min(max(frame.x(), room.x()), room.right() - w)
    y = min(max(frame.y(), room.y()), room.bottom() - h)
    widget.move(max(room.x(), x), max(room.y(), y))
