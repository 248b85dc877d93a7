"""Dark follows the system: the page's colours and the native windows' agree, and text keeps
its contrast. Run in a process of its own (the browser engine reads the scheme once)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
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
