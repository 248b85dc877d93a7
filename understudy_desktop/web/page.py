"""The console's QWebEnginePage: stays on our origin, and reports the page's console to logging."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QMessageBox, QWidget

from understudy_desktop.text import visible_controls
from understudy_desktop.web.scheme import HOST, SCHEME

js_log = logging.getLogger("understudy.js")
log = logging.getLogger(__name__)

_EXTERNAL_SCHEMES = frozenset({"http", "https", "mailto"})

_LEVELS = {
    QWebEnginePage.JavaScriptConsoleMessageLevel.InfoMessageLevel: logging.INFO,
    QWebEnginePage.JavaScriptConsoleMessageLevel.WarningMessageLevel: logging.WARNING,
    QWebEnginePage.JavaScriptConsoleMessageLevel.ErrorMessageLevel: logging.ERROR,
}


def is_app_url(url: QUrl) -> bool:
    return url.scheme() == SCHEME and url.host() == HOST


def open_externally(url: QUrl) -> bool:
    """Hand a link to the system browser; only web and mail links, never file:// or custom."""
    if url.scheme() not in _EXTERNAL_SCHEMES:
        log.warning("refused to open %s", url.toDisplayString())
        return False
    return QDesktopServices.openUrl(url)


class OpenAsker(QObject):
    """An address leaves the app only when the person says so, in a native question that
    names it: a page script cannot open the system browser on its own, nor a hundred times
    (one question at a time; what a script asks meanwhile is dropped)."""

    asked = Signal(QMessageBox)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.box: QMessageBox | None = None

    def ask(self, url: QUrl, near: QWidget | None) -> None:
        if url.scheme() not in _EXTERNAL_SCHEMES:
            log.warning("refused to open %s", url.toDisplayString())
            return
        if self.box is not None:
            log.info("a second address to open while one is asked about: dropped")
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Open in your web browser?",
            "",
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel,
            near,
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText("Open this address in your web browser?")
        box.setInformativeText(visible_controls(url.toDisplayString()))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        self.box = box

        def answered(button: int) -> None:
            self.box = None
            if button == QMessageBox.StandardButton.Open:
                open_externally(url)

        box.finished.connect(answered)
        box.open()
        self.asked.emit(box)


# What the shell itself does to the console's frame: load it (page.load) and reload it. A
# script's location.href, a link, a form or history is refused, even to one of the app's own
# pages: the console's document, with its bridge, stays.
_SHELL_LOADS = frozenset(
    {
        QWebEnginePage.NavigationType.NavigationTypeTyped,
        QWebEnginePage.NavigationType.NavigationTypeReload,
    }
)


class ConsolePage(QWebEnginePage):
    """The console's frame stays on the console: navigation outside understudy://app is
    refused, and so is any the page itself starts; external links go to the system browser."""

    navigation_refused = Signal(QUrl)

    def __init__(self, profile: QWebEngineProfile, parent: QObject | None = None) -> None:
        super().__init__(profile, parent)
        self.opener = OpenAsker(self)

    def ask_to_open(self, url: QUrl) -> None:
        """After the navigation is refused (never inside Chromium's own call)."""
        view = QWebEngineView.forPage(self)
        near = view.window() if view is not None else None
        QTimer.singleShot(0, self, lambda: self.opener.ask(url, near))

    def javaScriptConsoleMessage(  # noqa: N802 (Qt name)
        self,
        level: QWebEnginePage.JavaScriptConsoleMessageLevel,
        message: str,
        line: int,
        source: str,
    ) -> None:
        js_log.log(_LEVELS.get(level, logging.INFO), "%s (%s:%d)", message, source, line)

    def acceptNavigationRequest(  # noqa: N802 (Qt name)
        self, url: QUrl | str, nav_type: QWebEnginePage.NavigationType, is_main_frame: bool
    ) -> bool:
        target = QUrl(url) if isinstance(url, str) else url
        if is_app_url(target) and (not is_main_frame or nav_type in _SHELL_LOADS):
            return True
        self.navigation_refused.emit(target)
        if nav_type == QWebEnginePage.NavigationType.NavigationTypeLinkClicked:
            self.ask_to_open(target)
        else:
            log.warning("navigation away from the console refused: %s", target.toDisplayString())
        return False

    def createWindow(  # noqa: N802 (Qt name)
        self, window_type: QWebEnginePage.WebWindowType
    ) -> QWebEnginePage:
        # target=_blank and window.open(): the console never opens a second in-app window; a
        # throwaway page catches the first URL and sends it to the system browser.
        return _ExternalLinkCatcher(self.profile(), self)


class _ExternalLinkCatcher(QWebEnginePage):
    def __init__(self, profile: QWebEngineProfile, console: ConsolePage) -> None:
        super().__init__(profile, console)
        self._console = console

    def acceptNavigationRequest(  # noqa: N802 (Qt name)
        self, url: QUrl | str, nav_type: QWebEnginePage.NavigationType, is_main_frame: bool
    ) -> bool:
        self._console.ask_to_open(QUrl(url) if isinstance(url, str) else url)
        self.deleteLater()
        return False
