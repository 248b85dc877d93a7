"""The console's QWebEnginePage: stays on our origin, and reports the page's console to logging."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile

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


class ConsolePage(QWebEnginePage):
    """Navigation outside understudy://app is refused; external links go to the system browser."""

    navigation_refused = Signal(QUrl)

    def __init__(self, profile: QWebEngineProfile, parent: QObject | None = None) -> None:
        super().__init__(profile, parent)

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
        if is_app_url(target):
            return True
        self.navigation_refused.emit(target)
        if nav_type == QWebEnginePage.NavigationType.NavigationTypeLinkClicked:
            open_externally(target)
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
    def acceptNavigationRequest(  # noqa: N802 (Qt name)
        self, url: QUrl | str, nav_type: QWebEnginePage.NavigationType, is_main_frame: bool
    ) -> bool:
        open_externally(QUrl(url) if isinstance(url, str) else url)
        self.deleteLater()
        return False
