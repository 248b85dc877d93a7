"""The facts Help › About shows; composed here so a test can read them without a dialog."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import qVersion
from PySide6.QtWebEngineCore import qWebEngineChromiumVersion

from understudy_desktop import APP_NAME, __version__

# How agents reach the page's tools, in words (the technical name is the web standard's).
WEBMCP_WORDS = {
    "native": "the browser engine's own",
    "bridged": "provided by Understudy",
    "degraded": "not available: the console works for people, but agents in the page see no tools",
}


@dataclass(frozen=True)
class AboutFacts:
    app_version: str
    qt_version: str
    pyside_version: str
    chromium_version: str
    webmcp: str

    def as_text(self) -> str:
        # The state comes from the page: a word it does not know is not shown as said.
        mode = WEBMCP_WORDS.get(self.webmcp, WEBMCP_WORDS["degraded"])
        return (
            f"{APP_NAME} {self.app_version}\n\n"
            "Teach a support routine once; agents and colleagues run it as a tool.\n\n"
            f"Qt {self.qt_version} (PySide6 {self.pyside_version})\n"
            f"Chromium {self.chromium_version}\n"
            f"Agent tools in the page: {mode}"
        )


def about_facts(webmcp_state: str) -> AboutFacts:
    return AboutFacts(
        app_version=__version__,
        qt_version=qVersion(),
        pyside_version=pyside_version,
        chromium_version=str(qWebEngineChromiumVersion()),
        webmcp=webmcp_state,
    )
