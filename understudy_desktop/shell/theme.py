"""Light or dark, as the system is (or as UNDERSTUDY_THEME says: "dark" or "light").

Two halves must agree. The page follows `prefers-color-scheme` (web_assets/css/console.css),
which Chromium takes from a switch read when the browser engine starts: so the theme is
decided once the QApplication exists (Qt knows the system's scheme then) and before the first
profile is made. The native windows follow the system through Qt's own platform theme; where
Qt has none (offscreen, a bare X session) and dark is asked for, they get Fusion with a dark
palette, so a dialog never sits light on a dark console.
"""

from __future__ import annotations

import os
from typing import Literal

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from understudy_desktop.chromium_flags import FLAGS_ENV

Scheme = Literal["light", "dark"]
THEME_ENV = "UNDERSTUDY_THEME"
DARK_SWITCH = "--blink-settings=preferredColorScheme=0"  # Blink: 0 dark, 1 light


def system_scheme() -> Scheme:
    chosen = os.environ.get(THEME_ENV, "").strip().lower()
    if chosen in ("dark", "light"):
        return chosen  # type: ignore[return-value]
    hints = QGuiApplication.styleHints()
    return "dark" if hints.colorScheme() == Qt.ColorScheme.Dark else "light"


_applied: Scheme | None = None


def apply_theme(app: QApplication) -> Scheme:
    """Before the first browser profile: the page and the windows in one scheme. Once per
    process: the engine reads its switches once, and changing the environment while its
    threads run (a second window in the same process) could crash them (setenv is not
    safe beside another thread's getenv)."""
    global _applied
    if _applied is not None:
        return _applied
    scheme = system_scheme()
    current = os.environ.get(FLAGS_ENV, "")
    flags = [f for f in current.split() if not f.startswith("--blink-settings=preferredColor")]
    if scheme == "dark":
        flags.append(DARK_SWITCH)
    if " ".join(flags) != current:
        os.environ[FLAGS_ENV] = " ".join(flags)
    _applied = scheme
    if scheme == "dark" and QGuiApplication.styleHints().colorScheme() != Qt.ColorScheme.Dark:
        app.setStyle("Fusion")
        app.setPalette(dark_palette())
        app.setStyleSheet(DARK_INDICATORS)
    return scheme


# Fusion draws a radio button's or check box's ring a shade darker than the window: on a dark
# window it all but vanishes. Drawn here with the palette's own light grey and accent.
DARK_INDICATORS = """
QRadioButton::indicator, QCheckBox::indicator {
    width: 14px; height: 14px; border: 1px solid #8b939c; background: #121417;
}
QRadioButton::indicator { border-radius: 8px; }
QCheckBox::indicator { border-radius: 3px; }
QRadioButton::indicator:checked {
    background: qradialgradient(cx: 0.5, cy: 0.5, radius: 0.5, fx: 0.5, fy: 0.5,
        stop: 0 #818cf8, stop: 0.5 #818cf8, stop: 0.6 #121417, stop: 1 #121417);
}
QCheckBox::indicator:checked { background: #818cf8; border-color: #a5b4fc; }
QRadioButton::indicator:disabled, QCheckBox::indicator:disabled { border-color: #4b525a; }
"""


def dark_palette() -> QPalette:
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#1b1e22",
        QPalette.ColorRole.WindowText: "#e7e9ec",
        QPalette.ColorRole.Base: "#121417",
        QPalette.ColorRole.AlternateBase: "#24282d",
        QPalette.ColorRole.Text: "#e7e9ec",
        QPalette.ColorRole.Button: "#262a30",
        QPalette.ColorRole.ButtonText: "#e7e9ec",
        QPalette.ColorRole.Highlight: "#818cf8",
        QPalette.ColorRole.HighlightedText: "#0f1226",
        QPalette.ColorRole.ToolTipBase: "#262a30",
        QPalette.ColorRole.ToolTipText: "#e7e9ec",
        QPalette.ColorRole.PlaceholderText: "#8b939c",
        QPalette.ColorRole.Link: "#a5b4fc",
    }
    for role, color in roles.items():
        palette.setColor(role, QColor(color))
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6b737c"))
    return palette
