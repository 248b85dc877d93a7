"""Dark follows the system: the page's colours and the native windows' agree, and text keeps
its contrast. Run in a process of its own (the browser engine reads the scheme once)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow

PROBE = """
import json, sys
sys.path.insert(0, {bench!r})
from harness import application, js, start_console
from pathlib import Path
from PySide6.QtGui import QPalette
app = application()
session = start_console(app, Path({data!r}))
page = session.window.page
look = js(app, page, '''JSON.stringify({{
  dark: matchMedia('(prefers-color-scheme: dark)').matches,
  bg: getComputedStyle(document.documentElement).backgroundColor,
  ink: getComputedStyle(document.documentElement).color,
  pill: getComputedStyle(document.querySelector('.status-pill')).color,
  pillBg: getComputedStyle(document.querySelector('.status-pill')).backgroundColor,
}})''')
window = session.window.palette().color(QPalette.ColorRole.Window).name()
print(json.dumps({{"page": json.loads(look), "window": window}}))
session.close()
"""


def rgb(text: str) -> tuple[float, float, float]:
    parts = text[text.index("(") + 1 : text.index(")")].split(",")
    return tuple(float(p) / 255 for p in parts[:3])  # type: ignore[return-value]


def luminance(color: tuple[float, float, float]) -> float:
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in color)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(rgb(a)), luminance(rgb(b))), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def look(tmp_path: Path, theme: str) -> dict:
    script = PROBE.format(bench=str(ROOT / "bench"), data=str(tmp_path / theme))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", UNDERSTUDY_THEME=theme)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=HANG_S
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_the_page_and_the_windows_follow_one_scheme(tmp_path, theme):
    seen = look(tmp_path, theme)
    page = seen["page"]
    assert page["dark"] is (theme == "dark")
    page_dark = luminance(rgb(page["bg"])) < 0.2
    window_dark = luminance(rgb("rgb(" + ",".join(str(int(seen["window"][i : i + 2], 16))
                                               for i in (1, 3, 5)) + ")")) < 0.2  # fmt: skip
    assert page_dark is (theme == "dark") and window_dark is (theme == "dark")
    # WCAG AA for body text, and for the small status pills.
    assert contrast(page["ink"], page["bg"]) >= 7
    assert contrast(page["pill"], page["pillBg"]) >= 4.5


_STYLES: list[object] = []


def test_radio_buttons_and_check_boxes_are_visible_in_the_dark_theme(qtbot):
    """Fusion on a dark palette draws their rings a shade off the window: the dark theme draws
    them in a light grey (measured: the ring's lightness against the window's)."""
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QCheckBox, QRadioButton, QStyleFactory, QVBoxLayout, QWidget

    from understudy_desktop.shell.theme import DARK_INDICATORS, dark_palette

    def contrast(sheet: str) -> list[int]:
        box = QWidget()
        qtbot.addWidget(box)
        fusion = QStyleFactory.create("Fusion")
        _STYLES.append(fusion)  # not owned by the widgets that use it: kept for the session
        box.setStyle(fusion)
        box.setPalette(dark_palette())
        box.setStyleSheet(sheet)
        layout = QVBoxLayout(box)
        found = []
        widgets = [QRadioButton("Anyone"), QCheckBox("A second review")]
        for widget in widgets:
            widget.setStyle(fusion)  # a widget's style does not pass to its children
            layout.addWidget(widget)
        box.show()
        qtbot.waitExposed(box)
        window = QColor(dark_palette().color(dark_palette().ColorRole.Window)).lightness()
        for widget in widgets:
            image = widget.grab().toImage()
            found.append(
                max(
                    abs(QColor(image.pixel(x, y)).lightness() - window)
                    for x in range(min(15, image.width()))
                    for y in range(image.height())
                )
            )
        return found

    assert all(c < 40 for c in contrast("")), "the check no longer sees the faint rings"
    assert all(c > 80 for c in contrast(DARK_INDICATORS))
